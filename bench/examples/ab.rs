//! An A/B driver: runs one library operation on one workload a number of times and nothing else, using only APIs
//! that earlier commits have too, so the same file built in a worktree of an earlier commit measures that commit.
//!
//! Usage: `cargo run -p whale-bench --release --example ab -- OP [TIMES]`; OP is one of `build`, `verify`, `print`,
//! `parse`, `fr2e-write`, `fr2e-read`, `llvm13-write`, `llvm13-read` followed by `-w1` (W1, 100k) or `-w2` (W2,
//! 2,000 functions), or `interp-fib` (fib 20), `interp-loopsum` (10^6), `interp-sieve` (one sieve). The
//! input is prepared before the timed runs; with `--time` the driver prints the best and median time of TIMES runs,
//! otherwise it just runs them (for `valgrind --tool=callgrind`: instructions per run are the difference between a
//! run with TIMES = 2 and one with TIMES = 1). `BENCHMARKS.md` gives the commands of each recorded comparison.

#[path = "../../interp/benches/workloads.rs"]
mod interp_workloads;
#[path = "../../ir/benches/workloads.rs"]
mod workloads;

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let timed = args.iter().any(|a| a == "--time");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--time").collect();
    let Some(op) = args.first() else {
        eprintln!("usage: ab OP [TIMES] [--time] (see the source for OP)");
        return ExitCode::from(2);
    };
    let times: usize = args.get(1).and_then(|t| t.parse().ok()).unwrap_or(1);
    let Some(mut run) = prepare(op) else {
        eprintln!("unknown operation {op}");
        return ExitCode::from(2);
    };
    let mut seconds = Vec::with_capacity(times);
    for _ in 0..times {
        let start = Instant::now();
        run();
        seconds.push(start.elapsed().as_secs_f64());
    }
    if timed {
        seconds.sort_by(f64::total_cmp);
        println!("{op}: best {:.3} ms, median {:.3} ms", seconds[0] * 1e3, seconds[seconds.len() / 2] * 1e3);
    }
    ExitCode::SUCCESS
}

/// The operation `op` with its input built.
fn prepare(op: &str) -> Option<Box<dyn FnMut()>> {
    let (what, workload) = op.rsplit_once('-').unwrap_or((op, ""));
    let module = || match workload {
        "w1" => Some(workloads::w1(100_000)),
        "w2" => Some(workloads::w2(2_000)),
        _ => None,
    };
    Some(match what {
        "build" if workload == "w1" => {
            let recipe = workloads::w1_recipe(100_000);
            Box::new(move || drop(black_box(workloads::build_w1(&recipe))))
        }
        "build" if workload == "w2" => {
            let recipe = workloads::w2_recipe(2_000);
            Box::new(move || drop(black_box(workloads::build_w2(&recipe))))
        }
        "verify" => {
            let m = module()?;
            Box::new(move || assert!(ir::verify_module(black_box(&m)).is_ok()))
        }
        "print" => {
            let m = module()?;
            Box::new(move || drop(black_box(ir::print_module(&m))))
        }
        "parse" => {
            let text = ir::print_module(&module()?);
            Box::new(move || assert!(ir::parse_module(black_box(&text)).is_ok()))
        }
        "fr2e-write" => {
            let m = module()?;
            Box::new(move || drop(black_box(fr2e::write_module(&m))))
        }
        "fr2e-read" => {
            let image = fr2e::write_module(&module()?);
            Box::new(move || assert!(fr2e::read_module(black_box(&image)).is_ok()))
        }
        "llvm13-write" => {
            let m = module()?;
            Box::new(move || drop(black_box(llvm13::write_whale(&m))))
        }
        "llvm13-read" => {
            let bytes = llvm13::write_whale(&module()?).ok()?;
            Box::new(move || assert!(llvm13::read_whale(black_box(&bytes)).is_ok()))
        }
        "interp" => {
            let (m, function, arg) = match workload {
                "fib" => (interp_workloads::fib(), "fib", interp::Value::I64(20)),
                "loopsum" => (interp_workloads::loopsum(), "loopsum", interp::Value::U64(1_000_000)),
                "sieve" => (interp_workloads::sieve(), "sieve", interp::Value::I64(1)),
                _ => return None,
            };
            let options = interp::Options { max_steps: u64::MAX, ..interp::Options::default() };
            let mut i = interp::Interpreter::new(&m, options).ok()?;
            Box::new(move || assert!(i.call(function, std::slice::from_ref(&arg)).is_ok()))
        }
        _ => return None,
    })
}
