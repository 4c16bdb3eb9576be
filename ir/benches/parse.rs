//! Text reader throughput: print a generated module, then parse (and verify) it.
//!
//! Run: `cargo bench -p ir --bench parse`. Group `ir/parse`; inputs are the W1
//! (one straight-line function) and W2 (many small looping functions) workloads
//! of about 100k instructions, in format 2 and format 4. Throughput is reported
//! in input bytes (criterion's MiB/s); the instruction rate printed before the
//! measurements is `instructions / best of five runs`. Parsing includes the
//! full verification of the module.

mod workloads;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ir::{print_module, print_module_with, TextFormat};

fn cases() -> Vec<(&'static str, String, usize)> {
    let w1 = workloads::w1(100_000);
    let w2 = workloads::w2(2_000);
    let mut out = Vec::new();
    for (name, module) in [("w1_100k", &w1), ("w2_100k", &w2)] {
        out.push((name, print_module(module), module.inst_count()));
        let v4 = if name == "w1_100k" { "w1_100k_v4" } else { "w2_100k_v4" };
        out.push((v4, print_module_with(module, TextFormat::V4), module.inst_count()));
    }
    out
}

fn benches(c: &mut Criterion) {
    let cases = cases();
    for (name, text, insts) in &cases {
        let module = ir::parse_module(text).expect("printed text parses");
        assert_eq!(
            &print_module_with(&module, if name.ends_with("_v4") { TextFormat::V4 } else { TextFormat::Auto }),
            text
        );
        // A quick instruction rate for the record (criterion reports bytes/s).
        let runs = 5;
        let mut best = Duration::MAX;
        for _ in 0..runs {
            let start = Instant::now();
            black_box(ir::parse_module(black_box(text)).expect("parses"));
            best = best.min(start.elapsed());
        }
        println!(
            "parse {name}: {insts} instructions, {} bytes, best of {runs}: {:.2} ms = {:.2} M instructions/s",
            text.len(),
            best.as_secs_f64() * 1e3,
            *insts as f64 / best.as_secs_f64() / 1e6
        );
    }
    let mut g = c.benchmark_group("ir/parse");
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(4));
    g.warm_up_time(Duration::from_secs(1));
    for (name, text, _) in &cases {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| ir::parse_module(black_box(text)))
        });
    }
    g.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
