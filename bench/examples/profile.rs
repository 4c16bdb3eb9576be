//! A driver for profilers: runs one engine on one workload a number of times and nothing else, so `perf record` or
//! `valgrind --tool=callgrind` sees only that work.
//!
//! Usage: `cargo run -p whale-bench --release --example profile -- WHAT [TIMES]`, where WHAT is one of
//! `whale-fib`, `whale-sieve`, `whale-loopsum`, `wasmi-fib`, `wasmi-sieve`, `wasmi-loopsum` (W3, W4 ×3, W5 10M), or
//! `fr2e-write`, `fr2e-read`, `wasm-validate` (W1 100k).

use std::hint::black_box;
use std::process::ExitCode;

use whale_bench::exec::{Engines, Run};
use whale_bench::{binary, Static};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(what) = args.first() else {
        eprintln!("usage: profile WHAT [TIMES] (see the source for WHAT)");
        return ExitCode::from(2);
    };
    let times: usize = args.get(1).and_then(|t| t.parse().ok()).unwrap_or(5);
    let run = match what.split_once('-').map(|(_, w)| w) {
        Some("fib") => Some(Run::Fib(27)),
        Some("sieve") => Some(Run::Sieve(3)),
        Some("loopsum") => Some(Run::LoopSum(10_000_000)),
        _ => None,
    };
    match (what.as_str(), run) {
        (w, Some(r)) if w.starts_with("whale-") => {
            let mut e = Engines::new(r);
            for _ in 0..times {
                assert_eq!(e.whale.run(), r.expected());
            }
        }
        (w, Some(r)) if w.starts_with("wasmi-") => {
            let mut e = Engines::new(r);
            for _ in 0..times {
                assert_eq!(e.wasmi.run(), r.expected());
            }
        }
        ("fr2e-write" | "fr2e-read" | "wasm-validate", _) => {
            let p = binary::prepare(Static::W1(100_000));
            for _ in 0..times {
                match what.as_str() {
                    "fr2e-write" => drop(black_box(fr2e::write_module(&p.module))),
                    "fr2e-read" => drop(black_box(binary::fr2e_read_verify(&p))),
                    _ => binary::wasm_validate(&p),
                }
            }
        }
        _ => {
            eprintln!("profile: unknown workload `{what}`");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
