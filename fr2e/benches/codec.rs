//! FR2E writer and reader throughput on the W1 (one straight-line function) and W2 (many small looping functions)
//! workloads of `shared/reference/workloads.md`, at about 100k and 1M instructions.
//!
//! Run: `cargo bench -p fr2e --bench codec`. Groups, all in Whale instructions per second:
//!
//! - `fr2e/write`: `fr2e::write_module`, the canonical writer;
//! - `fr2e/read`: `fr2e::read_module_unverified`, image to `ir::Module` without verification;
//! - `fr2e/read_verify`: `fr2e::read_module`, which also verifies.
//!
//! Before measuring (under `cargo bench`, not in criterion's test mode), the bench prints each image's size, bytes per
//! instruction, and the best of a few runs of each operation as instructions/s and MB/s of image.

#[path = "../../ir/benches/workloads.rs"]
mod workloads;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

struct Input {
    name: &'static str,
    module: ir::Module,
    image: Vec<u8>,
}

fn inputs() -> Vec<Input> {
    let modules = [
        ("w1_100k", workloads::w1(100_000)),
        ("w1_1m", workloads::w1(1_000_000)),
        ("w2_100k", workloads::w2(2_000)),
        ("w2_1m", workloads::w2(20_000)),
    ];
    modules
        .into_iter()
        .map(|(name, module)| {
            let image = fr2e::write_module(&module);
            let back = fr2e::read_module(&image).expect("the workload reads back");
            assert_eq!(fr2e::write_module(&back), image, "{name}: the image is canonical");
            Input { name, module, image }
        })
        .collect()
}

/// The best of `runs` timings of `f`, in seconds.
fn best_of(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn report(inputs: &[Input]) {
    let limits = fr2e::ReadLimits::default();
    for input in inputs {
        let insts = input.module.inst_count() as f64;
        let bytes = input.image.len() as f64;
        println!(
            "{}: {} instructions, {} bytes, {:.2} bytes/instruction",
            input.name,
            input.module.inst_count(),
            input.image.len(),
            bytes / insts
        );
        let runs = if insts > 500_000.0 { 3 } else { 10 };
        let write = best_of(runs, || drop(black_box(fr2e::write_module(&input.module))));
        let read = best_of(runs, || drop(black_box(fr2e::read_module_unverified(&input.image, &limits))));
        let verify = best_of(runs, || drop(black_box(fr2e::read_module(&input.image))));
        for (what, seconds) in [("write", write), ("read", read), ("read+verify", verify)] {
            println!(
                "  {what:<12} best {:>7.2} ms  {:>6.2} M inst/s  {:>7.1} MB/s",
                seconds * 1e3,
                insts / seconds / 1e6,
                bytes / seconds / 1e6
            );
        }
    }
}

fn benches(c: &mut Criterion) {
    let inputs = inputs();
    // `cargo bench` passes `--bench`; `cargo test --benches` (criterion's one-pass test mode) skips the report.
    if std::env::args().any(|a| a == "--bench") {
        report(&inputs);
    }
    let limits = fr2e::ReadLimits::default();
    for input in &inputs {
        let big = input.module.inst_count() >= 500_000;
        let configure = |g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>| {
            g.throughput(Throughput::Elements(input.module.inst_count() as u64));
            g.sample_size(if big { 10 } else { 20 });
            g.measurement_time(Duration::from_secs(if big { 8 } else { 4 }));
            g.warm_up_time(Duration::from_secs(1));
        };
        let id = BenchmarkId::from_parameter(input.name);
        let mut g = c.benchmark_group("fr2e/write");
        configure(&mut g);
        g.bench_function(id.clone(), |b| b.iter(|| fr2e::write_module(black_box(&input.module))));
        g.finish();
        let mut g = c.benchmark_group("fr2e/read");
        configure(&mut g);
        g.bench_function(id.clone(), |b| {
            b.iter(|| fr2e::read_module_unverified(black_box(&input.image), &limits).map(|m| m.inst_count()))
        });
        g.finish();
        let mut g = c.benchmark_group("fr2e/read_verify");
        configure(&mut g);
        g.bench_function(id, |b| b.iter(|| fr2e::read_module(black_box(&input.image)).map(|m| m.inst_count())));
        g.finish();
    }
}

criterion_group!(group, benches);
criterion_main!(group);
