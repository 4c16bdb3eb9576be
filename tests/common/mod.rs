//! Helpers shared by the CLI tests: run the real `whale` binary and read its output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `whale ARGS` with no standard input.
pub fn whale(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whale")).args(args).stdin(Stdio::null()).output().expect("whale runs")
}

/// Runs `whale ARGS` with `input` on standard input.
pub fn whale_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_whale"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("whale runs");
    child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    child.wait_with_output().expect("whale finishes")
}

/// The path of `examples/NAME`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name)
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A path as a command-line argument (test paths are UTF-8).
pub fn arg(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// Runs `whale ir convert INPUT -o OUTPUT EXTRA…`, requires success, and returns its standard output.
pub fn convert(input: &Path, output: &Path, extra: &[&str]) -> String {
    let mut args = vec!["ir", "convert", arg(input), "-o", arg(output)];
    args.extend_from_slice(extra);
    let o = whale(&args);
    assert!(o.status.success(), "{}: {}", input.display(), stderr(&o));
    stdout(&o)
}
