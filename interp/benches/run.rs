//! Interpreter speed on the shared workloads W3–W5 (`shared/reference/workloads.md`).
//!
//! Group `interp/run`: `fib_27` (W3, recursive calls), `loopsum_10m` (W5, a
//! pure loop of 10^7 iterations) and `sieve_3x1m` (W4, three sieves over a
//! 1,000,000-byte tracked allocation). Each program is built with the IR
//! builder, translated once, and its result checked before timing; throughput
//! is in steps (executed IR instructions, phis and terminators). Under
//! `cargo test --benches` (no `--bench` flag) the inputs are smaller.
//!
//! Run: `cargo bench -p interp --bench run`.

mod workloads;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use interp::{Interpreter, Options, Value};
use ir::Module;

fn prepare(module: &Module, function: &str, arg: Value, expected: Value) -> (Interpreter, u64) {
    let options = Options { max_steps: u64::MAX, ..Options::default() };
    let mut interp = Interpreter::new(module, options).expect("workload verifies");
    let outcome = interp.call(function, &[arg]).expect("workload runs");
    assert_eq!(outcome.value, Some(expected), "{function} result");
    (interp, outcome.steps)
}

fn run(c: &mut Criterion) {
    // `cargo test --benches` runs each benchmark once, unoptimised: smaller inputs then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let mut group = c.benchmark_group("interp/run");
    group.sample_size(20);

    let n = if quick { 15 } else { 27 };
    let fib = workloads::fib();
    let expected = if quick { 610 } else { 196_418 };
    let (mut interp, steps) = prepare(&fib, "fib", Value::I64(n), Value::I64(expected));
    assert_eq!(steps, workloads::fib_steps(n as u64));
    group.throughput(Throughput::Elements(steps));
    group.bench_function(BenchmarkId::from_parameter("fib_27"), |b| {
        b.iter(|| interp.call("fib", &[Value::I64(n)]).expect("runs"))
    });

    let n: u64 = if quick { 100_000 } else { 10_000_000 };
    let loopsum = workloads::loopsum();
    let expected = if quick { 199_999 } else { 19_999_999 };
    let (mut interp, steps) = prepare(&loopsum, "loopsum", Value::U64(n), Value::U64(expected));
    group.throughput(Throughput::Elements(steps));
    group.bench_function(BenchmarkId::from_parameter("loopsum_10m"), |b| {
        b.iter(|| interp.call("loopsum", &[Value::U64(n)]).expect("runs"))
    });

    let k = if quick { 1 } else { 3 };
    let sieve = workloads::sieve();
    let (mut interp, steps) = prepare(&sieve, "sieve", Value::I64(k), Value::I64(k * workloads::PRIMES_BELOW_SIZE));
    group.throughput(Throughput::Elements(steps));
    group.bench_function(BenchmarkId::from_parameter("sieve_3x1m"), |b| {
        b.iter(|| interp.call("sieve", &[Value::I64(k)]).expect("runs"))
    });

    group.finish();
}

criterion_group!(benches, run);
criterion_main!(benches);
