//! Text reader throughput: the lexer alone, and parse + verify, over printed
//! W1 and W2 modules.
//!
//! Run: `cargo bench -p ir --bench parse`. Inputs are the W1 (one
//! straight-line function) and W2 (many small looping functions) workloads of
//! about 10k, 100k and 1M instructions, printed with `ir::print_module`
//! (format 2). Groups:
//!
//! - `ir/tokenize`: the lexer over the whole text (`ir::parser::tokenize_count`),
//!   in bytes per second;
//! - `ir/parse`: `ir::parse_module_with_limits`, which reads and then verifies
//!   the module, in instructions per second.
//!
//! All inputs are read with limits raised to fit the 1M texts (the default
//! limits accept 8 MiB of text); the limits do not change the work done.
//! Before measuring, `cargo bench` prints for every input the best of a few
//! runs as instructions/s and MB/s, and how the 1M texts' times compare with
//! the 100k ones (linear growth would be 10×).

mod workloads;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use ir::{print_module, IrLimits};

/// A printed workload: name, text, instruction count.
struct Input {
    name: &'static str,
    text: String,
    insts: usize,
}

fn inputs() -> Vec<Input> {
    let modules = [
        ("w1_10k", workloads::w1(10_000)),
        ("w1_100k", workloads::w1(100_000)),
        ("w1_1m", workloads::w1(1_000_000)),
        ("w2_100k", workloads::w2(2_000)),
        ("w2_1m", workloads::w2(20_000)),
    ];
    modules.into_iter().map(|(name, m)| Input { name, text: print_module(&m), insts: m.inst_count() }).collect()
}

/// Limits large enough for every input.
fn limits() -> IrLimits {
    IrLimits {
        max_input_bytes: 1 << 30,
        max_tokens: 1 << 30,
        max_nodes: 1 << 28,
        max_functions: 1 << 24,
        max_blocks: 1 << 26,
        max_values: 1 << 26,
        ..IrLimits::default()
    }
}

/// The best of `runs` timings of `f`.
fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Prints the best-of-N rates of every input (skipped in `cargo test --benches`).
fn summary(inputs: &[Input]) {
    let mut parse_times = Vec::new();
    for input in inputs {
        let Input { name, text, insts } = input;
        let runs = if text.len() > 20 << 20 { 5 } else { 15 };
        let tokenize = best_of(runs, || {
            black_box(ir::parser::tokenize_count(black_box(text)).expect("printed text lexes"));
        });
        let parse = best_of(runs, || {
            black_box(ir::parse_module_with_limits(black_box(text), limits()).expect("printed text parses"));
        });
        let mb = text.len() as f64 / 1e6;
        println!(
            "{name}: {insts} instructions, {:.1} MB; tokenize {:.0} MB/s; parse + verify {:.2} ms = {:.2} M instructions/s = {:.0} MB/s (best of {runs})",
            mb,
            mb / tokenize.as_secs_f64(),
            parse.as_secs_f64() * 1e3,
            *insts as f64 / parse.as_secs_f64() / 1e6,
            mb / parse.as_secs_f64(),
        );
        parse_times.push((*name, parse));
    }
    let time = |name: &str| parse_times.iter().find(|(n, _)| *n == name).map(|(_, t)| t.as_secs_f64());
    for w in ["w1", "w2"] {
        if let (Some(small), Some(large)) = (time(&format!("{w}_100k")), time(&format!("{w}_1m"))) {
            println!("{w}: 1M text takes {:.1}x the time of the 100k one (10x is linear)", large / small);
        }
    }
}

fn benches(c: &mut Criterion) {
    let inputs = inputs();
    for input in &inputs {
        let module = ir::parse_module_with_limits(&input.text, limits()).expect("printed text parses");
        assert_eq!(module.inst_count(), input.insts);
        assert_eq!(print_module(&module), input.text);
    }
    if std::env::args().any(|arg| arg == "--bench") {
        summary(&inputs);
    }

    let mut g = c.benchmark_group("ir/tokenize");
    g.sampling_mode(SamplingMode::Flat);
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    for Input { name, text, .. } in &inputs {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| ir::parser::tokenize_count(black_box(text)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("ir/parse");
    g.sampling_mode(SamplingMode::Flat);
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    for Input { name, text, insts } in &inputs {
        g.throughput(Throughput::Elements(*insts as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| ir::parse_module_with_limits(black_box(text), limits()))
        });
    }
    g.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
