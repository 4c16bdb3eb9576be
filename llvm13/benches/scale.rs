//! How LLVM 1.3 reading and disassembly scale with the number of functions: modules of 25k to 400k external
//! declarations (`i32 (i32)`, each named), and one of 60k small defined functions (a parameter, a constant, an add
//! and a return each). Time must grow linearly with the number of functions.
//!
//! Run: `cargo bench -p llvm13 --bench scale`. Groups, in functions per second:
//!
//! - `llvm13/scale_read`: `llvm13::read_whale` (format reader, mapping and verification);
//! - `llvm13/scale_disasm`: `llvm13::read_module` then `llvm13::disasm` into a sink.
//!
//! Before measuring, the bench prints the best of a few runs of each case and the growth ratio from one size to the
//! next (2.0 is linear), the figures `BENCHMARKS.md` records. With `LLVM13_SCALE_ONCE=read:200000` (or
//! `disasm:N`, `bodies:N`) it instead runs that one case once and exits, which is what callgrind is given.

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use ir::{CallingConvention, DataLayout, FunctionSignature, Linkage, Module, ModuleBuilder, Type};

/// Declaration counts of the declaration cases.
const SIZES: [usize; 5] = [25_000, 50_000, 100_000, 200_000, 400_000];
/// Defined functions of the bodies case.
const BODIES: usize = 60_000;

/// A module of `n` external declarations `i32 ext{i}(i32)`.
fn declarations(n: usize) -> Module {
    let mut m = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    for i in 0..n {
        let sig = FunctionSignature {
            params: vec![Type::I32],
            ret: Type::I32,
            convention: CallingConvention::SysV64,
            variadic: false,
        };
        m.declare_function(&format!("ext{i}"), sig, Linkage::External, Some(format!("ext{i}")))
            .expect("a fresh declaration");
    }
    m.finish()
}

/// A module of `n` functions `f{i}(x: i32) -> i32 { ret x + i }`.
fn bodies(n: usize) -> Module {
    let mut m = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    for i in 0..n {
        let mut f = m.begin_function(&format!("f{i}"), vec![("x".into(), Type::I32)], Type::I32);
        let c = f.const_i32(i as i32);
        let x = f.param_value(0);
        let sum = f.add(Type::I32, x, c);
        f.ret(Some(sum));
        f.finish();
    }
    m.finish()
}

fn best_of(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn read(bytes: &[u8]) {
    black_box(llvm13::read_whale(bytes).expect("reads"));
}

fn disasm(bytes: &[u8]) {
    let m = llvm13::read_module(bytes).expect("reads");
    llvm13::disasm(&m, &mut std::io::sink()).expect("a sink takes any text");
}

/// The bytes of case `kind` ("read"/"disasm" take declarations, "bodies" defined functions) at size `n`.
fn case_bytes(kind: &str, n: usize) -> Vec<u8> {
    let module = if kind == "bodies" { bodies(n) } else { declarations(n) };
    llvm13::write_whale(&module).expect("maps to LLVM 1.3")
}

/// Runs one case once, for profilers: `read:N`, `disasm:N` or `bodies:N`.
fn once(spec: &str) {
    let (kind, n) = spec.split_once(':').expect("LLVM13_SCALE_ONCE is kind:count");
    let n: usize = n.parse().expect("a count");
    let bytes = case_bytes(kind, n);
    match kind {
        "disasm" => disasm(&bytes),
        _ => read(&bytes),
    }
}

/// The declaration files, smallest first, and the bodies file; without `full`, only the two smallest sizes.
fn inputs(full: bool) -> (Vec<(usize, Vec<u8>)>, Vec<u8>) {
    let sizes = if full { &SIZES[..] } else { &SIZES[..2] };
    let declarations = sizes.iter().map(|&n| (n, case_bytes("read", n))).collect();
    (declarations, case_bytes("bodies", BODIES))
}

fn table(declarations: &[(usize, Vec<u8>)], bodies: &[u8]) {
    println!("{:<8} {:>8} {:>11} {:>10} {:>9} {:>7}", "case", "n", "bytes", "best ms", "µs/func", "growth");
    let row = |kind: &str, n: usize, size: usize, seconds: f64, growth: String| {
        println!("{kind:<8} {n:>8} {size:>11} {:>10.1} {:>9.3} {growth:>7}", seconds * 1e3, seconds * 1e6 / n as f64);
    };
    for (kind, f) in [("read", read as fn(&[u8])), ("disasm", disasm)] {
        let mut previous: Option<f64> = None;
        for (n, bytes) in declarations {
            let seconds = best_of(3, || f(bytes));
            let growth = previous.map_or(String::from("-"), |p| format!("{:.2}", seconds / p));
            row(kind, *n, bytes.len(), seconds, growth);
            previous = Some(seconds);
        }
    }
    let seconds = best_of(3, || read(bodies));
    row("bodies", BODIES, bodies.len(), seconds, String::from("-"));
}

fn bench(c: &mut Criterion) {
    // Criterion's test mode (`cargo test --benches`) runs each case once, on the two smallest sizes; the table is for
    // real runs only.
    let full = std::env::args().any(|a| a == "--bench");
    let (declarations, bodies) = inputs(full);
    if full {
        table(&declarations, &bodies);
    }
    for (kind, f) in [("read", read as fn(&[u8])), ("disasm", disasm)] {
        let mut group = c.benchmark_group(format!("llvm13/scale_{kind}"));
        group.sample_size(10);
        for (n, bytes) in &declarations {
            group.throughput(Throughput::Elements(*n as u64));
            let id = BenchmarkId::from_parameter(format!("decl_{}k", n / 1000));
            group.bench_with_input(id, bytes, |b, bytes| b.iter(|| f(bytes)));
        }
        if kind == "read" {
            group.throughput(Throughput::Elements(BODIES as u64));
            group.bench_with_input(BenchmarkId::from_parameter("bodies_60k"), &bodies, |b, bytes| {
                b.iter(|| read(bytes))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(spec) = std::env::var("LLVM13_SCALE_ONCE") {
        once(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
