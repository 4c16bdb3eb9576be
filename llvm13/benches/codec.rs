//! LLVM 1.3 bytecode writer and reader throughput on the W1 workload of `shared/reference/workloads.md` (one
//! straight-line function over i32 and i64) at 100k instructions.
//!
//! Run: `cargo bench -p llvm13 --bench codec`. Groups, in Whale instructions per second:
//!
//! - `llvm13/write`: `llvm13::write_whale` (mapping, slot numbering and writing);
//! - `llvm13/read`: `llvm13::read_whale` (format reader, mapping and verification).
//!
//! Before measuring, the bench prints the file size, bytes per instruction, and the best of a few runs of each
//! operation as instructions/s and MB/s of bytecode, the figures `BENCHMARKS.md` records.

#[path = "../../ir/benches/workloads.rs"]
mod workloads;

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn best_of(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn bench(c: &mut Criterion) {
    let module = workloads::w1(100_000);
    let bytes = llvm13::write_whale(&module).expect("W1 maps to LLVM 1.3");
    let back = llvm13::read_whale(&bytes).expect("W1 reads back");
    assert_eq!(llvm13::write_whale(&back).expect("W1 writes again"), bytes, "the bytes are stable");
    let insts = module.inst_count() as f64;
    let size = bytes.len() as f64;
    println!(
        "w1_100k: {} instructions, {} bytes, {:.2} bytes/instruction",
        module.inst_count(),
        bytes.len(),
        size / insts
    );
    let write = best_of(5, || drop(black_box(llvm13::write_whale(&module))));
    let read = best_of(5, || drop(black_box(llvm13::read_whale(&bytes))));
    for (what, seconds) in [("write", write), ("read", read)] {
        println!(
            "  {what:<6} best {:>7.2} ms  {:>6.2} M inst/s  {:>7.1} MB/s",
            seconds * 1e3,
            insts / seconds / 1e6,
            size / seconds / 1e6
        );
    }

    let mut group = c.benchmark_group("llvm13/write");
    group.throughput(Throughput::Elements(module.inst_count() as u64));
    group.sample_size(10);
    group.bench_with_input(BenchmarkId::from_parameter("w1_100k"), &module, |b, m| {
        b.iter(|| llvm13::write_whale(m).expect("writes"))
    });
    group.finish();
    let mut group = c.benchmark_group("llvm13/read");
    group.throughput(Throughput::Elements(module.inst_count() as u64));
    group.sample_size(10);
    group.bench_with_input(BenchmarkId::from_parameter("w1_100k"), &bytes, |b, bytes| {
        b.iter(|| llvm13::read_whale(bytes).expect("reads"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
