//! LLVM 19's command-line tools, when installed (`llvm-config-19 --bindir`): `llvm-as` on W1/W2 written as `.ll`
//! against Whale's text-to-image conversion, and `lli -force-interpreter` on W3 against the Whale interpreter.
//!
//! The tools run as processes, so their times include process start-up and file I/O; the Whale side therefore also
//! reads its input file and writes its output file. Without LLVM 19 the section says so and measures nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::exec::{Run, WhaleEngine};
use crate::measure::{compare, ratio, thousands, Plan, Samples};
use crate::Static;

/// LLVM 19's binary directory, if `llvm-config-19` is on the path.
pub fn llvm_bindir() -> Option<PathBuf> {
    let out = Command::new("llvm-config-19").arg("--bindir").output().ok()?;
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && dir.join("llvm-as").exists()).then_some(dir)
}

fn llvm_version(bindir: &Path) -> String {
    Command::new(bindir.join("llvm-config"))
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map_or_else(|| "19".to_string(), |s| s.trim().to_string())
}

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("whale-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_tool(command: &mut Command) -> Vec<u8> {
    let out = command.output().expect("the LLVM tool starts");
    assert!(out.status.success(), "{command:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The peer's size over FR2E's, marked in bold when FR2E is larger.
pub fn size_ratio(peer: f64, fr2e: f64) -> String {
    let r = peer / fr2e;
    if r >= 1.0 {
        format!("{r:.2}× (FR2E smaller)")
    } else {
        format!("**{r:.2}× (FR2E larger)**")
    }
}

/// Runs the LLVM comparison when LLVM 19 is installed; returns the markdown section.
pub fn run(plan: Plan, workloads: &[Static], fib: Option<Run>) -> String {
    let Some(bindir) = llvm_bindir() else {
        return "### LLVM 19 tools\n\nSkipped: LLVM 19 is not installed (`llvm-config-19 --bindir` failed). Install \
                the Debian package `llvm-19` to add `llvm-as` and `lli` figures.\n"
            .to_string();
    };
    let scratch = Scratch::new();
    let dir = &scratch.0;
    let mut table = String::from(
        "| workload | Whale: read .wir, parse + verify, write .fr2e | llvm-as: .ll to .bc | llvm-as ÷ Whale | FR2E \
         bytes/inst | bitcode bytes/inst | bitcode ÷ FR2E size |\n| --- | --- | --- | --- | ---: | ---: | --- |\n",
    );
    for &w in workloads {
        eprintln!("llvm: {}", w.name());
        let (wir, fr2e_out) = (dir.join("w.wir"), dir.join("w.fr2e"));
        let (ll, bc) = (dir.join("w.ll"), dir.join("w.bc"));
        let module = w.whale();
        std::fs::write(&wir, ir::print_module(&module)).expect("writes the Whale text");
        drop(module);
        std::fs::write(&ll, w.program().ll()).expect("writes the .ll");
        let mut whale = || {
            let text = std::fs::read_to_string(&wir).expect("reads the Whale text");
            let module = ir::parse_module_with_limits(&text, crate::whale_limits()).expect("Whale text reads back");
            std::fs::write(&fr2e_out, fr2e::write_module(&module)).expect("writes the image");
        };
        let mut llvm_as = || {
            run_tool(Command::new(bindir.join("llvm-as")).arg(&ll).arg("-o").arg(&bc));
        };
        let samples = compare(plan, &mut [&mut whale, &mut llvm_as]);
        let [whale, peer] = <[Samples; 2]>::try_from(samples).expect("two engines");
        let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len()) as f64;
        let n = w.instructions() as f64;
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {} |",
            w.name(),
            whale.cell(),
            peer.cell(),
            ratio(&whale, &peer),
            size(&fr2e_out) / n,
            size(&bc) / n,
            size_ratio(size(&bc), size(&fr2e_out))
        );
    }
    let mut section = format!(
        "### LLVM {} tools\n\n`llvm-as` assembles, verifies and writes bitcode; its times include process start-up. \
         The Whale side reads the `.wir` file, runs `ir::parse_module` (which verifies) and writes the FR2E image. \
         Bytes are per workload instruction.\n\n{table}",
        llvm_version(&bindir)
    );
    if let Some(run) = fib {
        eprintln!("llvm: lli {}", run.name());
        let ll = dir.join("fib.ll");
        std::fs::write(&ll, crate::llvm::fib_program(run.arg())).expect("writes fib.ll");
        let want = run.expected();
        let module = crate::whale_w345::fib();
        let mut whale = || {
            let mut e = WhaleEngine::new(&module, "fib", vec![interp::Value::I64(run.arg())]);
            assert_eq!(e.run(), want, "Whale {}", run.name());
        };
        let mut lli = || {
            let out = run_tool(Command::new(bindir.join("lli")).arg("-force-interpreter").arg(&ll));
            assert_eq!(String::from_utf8_lossy(&out).trim(), want.to_string(), "lli {}", run.name());
        };
        let samples = compare(plan, &mut [&mut whale, &mut lli]);
        let [whale, peer] = <[Samples; 2]>::try_from(samples).expect("two engines");
        let _ = write!(
            section,
            "\n| workload | Whale: translate + run | `lli -force-interpreter` (process) | lli ÷ Whale |\n| --- | --- | \
             --- | --- |\n| {} ({} CLIF dynamic instructions) | {} | {} | {} |\n",
            run.name(),
            thousands(run.dynamic_instructions() as usize),
            whale.cell(),
            peer.cell(),
            ratio(&whale, &peer)
        );
    }
    section
}
