//! `whale-bench`: prints markdown tables comparing Whale with its peers on the shared workloads.
//!
//! Usage: `whale-bench [all|check|text|binary|exec|llvm]... [--quick]` (default `all`). `--quick` takes three timed
//! rounds per comparison instead of up to fifteen, runs cranelift-interpreter on the smaller W4/W5 sizes only and
//! llvm-as on the inputs below 1M instructions only, and finishes in a few minutes. Progress goes to stderr, the
//! report to stdout.

use std::process::ExitCode;
use std::time::Instant;

use whale_bench::exec::Run;
use whale_bench::measure::Plan;
use whale_bench::{binary, exec, machine, text, tools, Static};

const SECTIONS: [&str; 5] = ["check", "text", "binary", "exec", "llvm"];

fn main() -> ExitCode {
    let mut quick = false;
    let mut sections = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--quick" => quick = true,
            "all" => sections.extend(SECTIONS),
            "-h" | "--help" => {
                println!("usage: whale-bench [all|check|text|binary|exec|llvm]... [--quick]");
                return ExitCode::SUCCESS;
            }
            other => match SECTIONS.iter().find(|&&s| s == other) {
                Some(&s) => sections.push(s),
                None => {
                    eprintln!("whale-bench: unknown argument `{other}` (try --help)");
                    return ExitCode::from(2);
                }
            },
        }
    }
    if sections.is_empty() {
        sections.extend(SECTIONS);
    }
    let plan = if quick { Plan::QUICK } else { Plan::FULL };
    let load = machine::load();
    let started = Instant::now();
    let mut report = String::new();
    for section in sections {
        let part = match section {
            "check" => format!("### Checks\n\n{}", exec::check(&Static::ALL)),
            "text" => text::run(plan, &Static::ALL),
            "binary" => binary::run(plan, &Static::ALL),
            "exec" => exec::run(plan, &exec::runs(quick)),
            _ => {
                // llvm-as takes 7–13 s per 1M-instruction input, so `--quick` leaves those out.
                let statics: Vec<Static> =
                    Static::ALL.into_iter().filter(|w| !quick || w.instructions() < 500_000).collect();
                tools::run(plan, &statics, Some(Run::Fib(27)))
            }
        };
        report.push_str(&part);
        report.push('\n');
    }
    let command =
        format!("cargo run -p whale-bench --release -- {}", std::env::args().skip(1).collect::<Vec<_>>().join(" "));
    println!(
        "Command: `{}`; {} timed rounds per comparison{}; total {:.0} s.\n",
        command.trim_end(),
        if quick { "3" } else { "5–15" },
        if quick { " (`--quick`)" } else { "" },
        started.elapsed().as_secs_f64()
    );
    println!("{}", machine::describe(load));
    print!("{report}");
    ExitCode::SUCCESS
}
