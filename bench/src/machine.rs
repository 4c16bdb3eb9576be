//! The machine and software a run was measured on: CPU model, cores, memory, load, kernel, compiler and the peer
//! crates' versions (read from the workspace's `Cargo.lock` at build time).

use std::fmt::Write;

const LOCKFILE: &str = include_str!("../../Cargo.lock");

/// The peer crates whose versions the report states.
const PEERS: [&str; 6] =
    ["cranelift-codegen", "cranelift-reader", "cranelift-interpreter", "wasmi", "wasmparser", "wasm-encoder"];

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The CPU model name of the first processor.
pub fn cpu_model() -> String {
    read("/proc/cpuinfo")
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string()))
        .unwrap_or_else(|| "unknown CPU".to_string())
}

/// The 1-minute load average.
pub fn load() -> f64 {
    read("/proc/loadavg").split_whitespace().next().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN)
}

fn memory_gib() -> f64 {
    read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|r| r.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / (1024.0 * 1024.0))
}

fn rustc_version() -> String {
    std::process::Command::new("rustc")
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map_or_else(|| "rustc (unknown version)".to_string(), |s| s.trim().to_string())
}

/// The version of `name` in the workspace lockfile (the newest when several are locked).
pub fn locked_version(name: &str) -> Option<&'static str> {
    let needle = format!("name = \"{name}\"\nversion = \"");
    let start = LOCKFILE.rfind(&needle)? + needle.len();
    let len = LOCKFILE[start..].find('"')?;
    Some(&LOCKFILE[start..start + len])
}

/// A markdown paragraph describing the machine, the load at `load_before` and now, and the software.
pub fn describe(load_before: f64) -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Machine: {}, {} logical CPUs (nproc), {:.1} GiB memory, Linux {}; load average {:.2} at the start, {:.2} at \
         the end{}.",
        cpu_model(),
        cores,
        memory_gib(),
        read("/proc/sys/kernel/osrelease").trim(),
        load_before,
        load(),
        if load_before.max(load()) > 1.0 { " (the machine was shared with other work)" } else { "" }
    );
    let peers: Vec<String> =
        PEERS.iter().map(|p| format!("{p} {}", locked_version(p).unwrap_or("(not locked)"))).collect();
    let _ = writeln!(s, "Software: {}; release profile; {}.", rustc_version(), peers.join(", "));
    s
}
