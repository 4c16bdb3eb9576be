//! Criterion benches for the peer comparisons of `whale-bench` (see `bench/WORKLOADS.md`), Whale and each peer in one
//! group so their figures come from the same run.
//!
//! Groups: `text/parse_verify`, `text/verify`, `text/print` (Whale vs Cranelift on W1 100k and W2 100k),
//! `binary/write`, `binary/read_verify` (FR2E vs WebAssembly on the same), and `exec/run` (Whale vs wasmi on W3–W5,
//! plus cranelift-interpreter on W3; its W4/W5 runs take seconds each, so only `whale-bench exec` times them).
//! Under `cargo test --benches` (no `--bench` flag) the inputs are smaller.
//!
//! Run: `cargo bench -p whale-bench --bench peers`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use whale_bench::exec::{Engines, Run};
use whale_bench::{binary, text, Static};

fn quick() -> bool {
    !std::env::args().any(|a| a == "--bench")
}

fn statics() -> Vec<Static> {
    if quick() {
        vec![Static::W1(1_000), Static::W2(20)]
    } else {
        vec![Static::W1(100_000), Static::W2(2_000)]
    }
}

fn text_benches(c: &mut Criterion) {
    for w in statics() {
        let p = text::prepare(w);
        let id = w.id();
        let mut group = c.benchmark_group("text/parse_verify");
        group.sample_size(10).throughput(Throughput::Elements(w.instructions() as u64));
        group.bench_function(BenchmarkId::new("whale", &id), |b| b.iter(|| text::whale_parse(&p)));
        group.bench_function(BenchmarkId::new("cranelift", &id), |b| b.iter(|| text::cranelift_parse_verify(&p)));
        group.finish();

        let mut group = c.benchmark_group("text/verify");
        group.sample_size(10).throughput(Throughput::Elements(w.instructions() as u64));
        group.bench_function(BenchmarkId::new("whale", &id), |b| {
            b.iter(|| ir::verify_module(black_box(&p.module)).expect("verifies"))
        });
        group.bench_function(BenchmarkId::new("cranelift", &id), |b| b.iter(|| text::cranelift_verify(&p)));
        group.finish();

        let mut group = c.benchmark_group("text/print");
        group.sample_size(10).throughput(Throughput::Elements(w.instructions() as u64));
        group.bench_function(BenchmarkId::new("whale", &id), |b| b.iter(|| ir::print_module(black_box(&p.module))));
        group.bench_function(BenchmarkId::new("cranelift", &id), |b| b.iter(|| text::display(&p.functions)));
        group.finish();
    }
}

fn binary_benches(c: &mut Criterion) {
    for w in statics() {
        let p = binary::prepare(w);
        let id = w.id();
        let mut group = c.benchmark_group("binary/write");
        group.sample_size(10).throughput(Throughput::Elements(w.instructions() as u64));
        group.bench_function(BenchmarkId::new("fr2e", &id), |b| b.iter(|| fr2e::write_module(black_box(&p.module))));
        group.bench_function(BenchmarkId::new("wasm", &id), |b| b.iter(|| p.program.wasm()));
        group.finish();

        let mut group = c.benchmark_group("binary/read_verify");
        group.sample_size(10).throughput(Throughput::Elements(w.instructions() as u64));
        group.bench_function(BenchmarkId::new("fr2e", &id), |b| b.iter(|| binary::fr2e_read_verify(&p)));
        group.bench_function(BenchmarkId::new("wasm", &id), |b| b.iter(|| binary::wasm_validate(&p)));
        group.finish();
    }
}

fn exec_benches(c: &mut Criterion) {
    let runs = if quick() { [Run::Fib(15), Run::Sieve(1), Run::LoopSum(10_000)] } else { Run::ALL };
    let mut group = c.benchmark_group("exec/run");
    group.sample_size(10);
    for r in runs {
        let mut e = Engines::new(r);
        let want = r.expected();
        assert_eq!([e.whale.run(), e.wasmi.run()], [want; 2], "{} results (Whale, wasmi)", r.name());
        group.throughput(Throughput::Elements(r.dynamic_instructions()));
        group.bench_function(BenchmarkId::new("whale", r.id()), |b| b.iter(|| e.whale.run()));
        group.bench_function(BenchmarkId::new("wasmi", r.id()), |b| b.iter(|| e.wasmi.run()));
        if matches!(r, Run::Fib(_)) {
            assert_eq!(e.cranelift.run(), want, "{} result (Cranelift)", r.name());
            group.bench_function(BenchmarkId::new("cranelift", r.id()), |b| b.iter(|| e.cranelift.run()));
        }
    }
    group.finish();
}

criterion_group!(benches, text_benches, binary_benches, exec_benches);
criterion_main!(benches);
