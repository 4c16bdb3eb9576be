//! The CLI at its edges (`docs/cli.md`, "Guarantees"): `-o` onto special files
//! and symbolic links, `-o -`, standard output that fails (`/dev/full`) or whose
//! reader went away (status 141), and allocations the host cannot provide.

#![cfg(unix)]

use std::fs;
use std::io::Read;
use std::os::unix::fs::{symlink, FileTypeExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;

use common::{arg, example, stderr, stdout, whale};

const BROKEN_PIPE_STATUS: i32 = 141;

/// `whale ir lower examples/fib.json` into `dir/fib.wir`; returns the path and its text.
fn fib_text(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let wir = dir.join("fib.wir");
    let o = whale(&["ir", "lower", arg(&example("fib.json")), "-o", arg(&wir)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = fs::read(&wir).unwrap();
    (wir, text)
}

/// Runs `whale ARGS` with standard output connected to `stdout`.
fn whale_with_stdout(args: &[&str], stdout: impl Into<Stdio>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whale"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("whale runs")
}

fn dev_full() -> Option<fs::File> {
    fs::OpenOptions::new().write(true).open("/dev/full").ok()
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let (wir, text) = fib_text(dir.path());
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut got = Vec::new();
            fs::File::open(&fifo).unwrap().read_to_end(&mut got).unwrap();
            got
        })
    };
    let o = whale(&["ir", "print", arg(&wir), "-o", arg(&fifo)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("Wrote IR to {}\n", fifo.display()));
    assert_eq!(reader.join().unwrap(), text);
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_symbolic_link_is_written_through_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (wir, text) = fib_text(dir.path());
    let target = dir.path().join("target.wir");
    fs::write(&target, b"old").unwrap();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    // A relative link in another directory, reached through a second link: a chain.
    symlink("../target.wir", sub.join("inner")).unwrap();
    let link = dir.path().join("link.wir");
    symlink("sub/inner", &link).unwrap();
    let o = whale(&["ir", "print", arg(&wir), "-o", arg(&link)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read(&target).unwrap(), text);
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(fs::symlink_metadata(sub.join("inner")).unwrap().file_type().is_symlink());

    // A dangling link: the file is created where it points, as `File::create` would.
    let dangling = dir.path().join("dangling.wir");
    symlink("created.wir", &dangling).unwrap();
    let o = whale(&["ir", "print", arg(&wir), "-o", arg(&dangling)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read(dir.path().join("created.wir")).unwrap(), text);
    assert!(fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());

    // A failing command leaves the link's target untouched.
    let o = whale(&["ir", "print", arg(&dir.path().join("missing.wir")), "-o", arg(&link)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(fs::read(&target).unwrap(), text);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 6, "no temporary file is left behind");
}

#[test]
fn dash_and_dev_stdout_write_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let (wir, text) = fib_text(dir.path());
    for name in ["-", "/dev/stdout"] {
        let o = whale(&["ir", "print", arg(&wir), "-o", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(o.stdout, text, "{name}");
    }
}

#[test]
fn dev_null_is_written_and_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let (wir, _) = fib_text(dir.path());
    let o = whale(&["ir", "print", arg(&wir), "-o", "/dev/null"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
}

#[test]
fn a_character_device_is_written_and_stays_a_device() {
    let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if !is_root {
        eprintln!("skipped: creating a device node with mknod needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (wir, _) = fib_text(dir.path());
    let device = dir.path().join("null-device");
    // Major 1, minor 3: the null device.
    let made = Command::new("mknod").arg(&device).args(["c", "1", "3"]).status().expect("mknod runs");
    if !made.success() {
        eprintln!("skipped: mknod failed (a container without the capability)");
        return;
    }
    for command in [&["ir", "print"][..], &["ir", "convert"][..]] {
        let mut args = command.to_vec();
        args.extend([arg(&wir), "-o", arg(&device)]);
        if command[1] == "convert" {
            args.extend(["--to", "fr2e"]);
        }
        let o = whale(&args);
        assert!(o.status.success(), "{command:?}: {}", stderr(&o));
        assert!(fs::symlink_metadata(&device).unwrap().file_type().is_char_device(), "{command:?}");
    }
}

#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let Some(_) = dev_full() else {
        eprintln!("skipped: no /dev/full");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (wir, text) = fib_text(dir.path());
    let out = dir.path().join("out.wir");
    let cases: [&[&str]; 5] = [
        &["ir", "run", arg(&wir), "--function", "main"],
        &["ir", "verify", arg(&wir)],
        &["ir", "print", arg(&wir), "-o", arg(&out)],
        &["ir", "print", arg(&wir)],
        &["--help"],
    ];
    for args in cases {
        let o = whale_with_stdout(args, dev_full().unwrap());
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let message = stderr(&o);
        assert!(message.starts_with("Error: failed to write standard output: "), "{args:?}: {message}");
        assert!(!message.contains("panicked"), "{args:?}: {message}");
    }
    // `ir print -o` wrote its file before the note failed.
    assert_eq!(fs::read(&out).unwrap(), text);
}

#[test]
fn a_closed_pipe_ends_quietly_with_status_141() {
    let dir = tempfile::tempdir().unwrap();
    let (wir, _) = fib_text(dir.path());
    let cases: [&[&str]; 3] =
        [&["ir", "run", arg(&wir), "--function", "main"], &["ir", "print", arg(&wir)], &["ir", "verify", arg(&wir)]];
    for args in cases {
        // The reader is gone before whale starts: its first write fails with EPIPE.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = whale_with_stdout(args, writer);
        assert_eq!(o.status.code(), Some(BROKEN_PIPE_STATUS), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

#[test]
fn host_output_into_a_closed_pipe_is_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("print.wir");
    fs::write(
        &program,
        "module {\n  format_version 2\n  semantics_version 1\n  target \"x86_64-whale-linux\"\n  \
         datalayout { ptr=64, endian=little }\n\n  \
         declare @f0 \"print\": sysv64 (i64) -> void, linkage external, link_name \"whale_print_int\"\n  \
         declare @f1 \"main\": whale () -> void, linkage internal\n\n  \
         fn @main() -> void, id @f1 {\n  entry:\n    %v0: i64 = const i64 7\n    \
         call sysv64 void @f0(%v0)\n    ret void\n  }\n}\n",
    )
    .unwrap();
    let o = whale(&["ir", "run", arg(&program), "--function", "main"]);
    assert_eq!(stdout(&o), "7\nvoid\n", "{}", stderr(&o));
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = whale_with_stdout(&["ir", "run", arg(&program), "--function", "main"], writer);
    assert_eq!(o.status.code(), Some(BROKEN_PIPE_STATUS), "{}", stderr(&o));
}

#[test]
fn an_allocation_the_host_cannot_provide_is_a_clean_error() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("huge.wir");
    fs::write(
        &program,
        "module {\n  format_version 2\n  semantics_version 1\n  target \"x86_64-whale-linux\"\n  \
         datalayout { ptr=64, endian=little }\n\n  declare @f0 \"main\": whale () -> u64, linkage internal\n\n  \
         fn @main() -> u64, id @f0 {\n  entry:\n    \
         %v0: ptr<array<u8, 1099511627776>> = alloca array<u8, 1099511627776>, align 8\n    \
         %v1: u64 = const u64 2\n    ret u64 %v1\n  }\n}\n",
    )
    .unwrap();
    // An address-space limit makes the 1 TiB reservation fail whatever the host's overcommit policy.
    let script = format!(
        "ulimit -v 4000000 && exec '{}' ir run '{}' --function main --max-memory 18446744073709551615",
        env!("CARGO_BIN_EXE_whale"),
        arg(&program)
    );
    let o = Command::new("sh").arg("-c").arg(&script).stdin(Stdio::null()).output().expect("sh runs");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let message = stderr(&o);
    assert!(
        message.starts_with("Error: ") && message.contains("out of memory while allocating 1099511627792 bytes"),
        "{message}"
    );
}

#[test]
fn input_limits_can_be_lowered_and_raised() {
    let dir = tempfile::tempdir().unwrap();
    let (wir, _) = fib_text(dir.path());
    let o = whale(&["--max-input-bytes", "100", "ir", "verify", arg(&wir)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("exceeds the input limit of 100 bytes (raise it with --max-input-bytes)"));

    // IR text over the text reader's default 8 MiB reads once the limit is raised.
    let mut text = String::from(
        "module {\n  format_version 2\n  semantics_version 1\n  target \"x86_64-whale-linux\"\n  \
         datalayout { ptr=64, endian=little }\n\n",
    );
    let mut i = 0;
    while text.len() <= 9 << 20 {
        text.push_str(&format!(
            "  declare @f{i} \"e{i}\": sysv64 (i32) -> i32, linkage external, link_name \"e{i}\"\n"
        ));
        i += 1;
    }
    text.push_str("}\n");
    let big = dir.path().join("big.wir");
    fs::write(&big, &text).unwrap();
    let o = whale(&["ir", "verify", arg(&big)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("IR input bytes limit exceeded (limit 8388608)"), "{}", stderr(&o));
    let o = whale(&["ir", "verify", arg(&big), "--max-input-bytes", "16777216"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn every_interpreter_limit_is_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    let (wir, _) = fib_text(dir.path());
    let run =
        |flag: &str, value: &str| whale(&["ir", "run", arg(&wir), "--function", "fib", "--arg", "20", flag, value]);
    for (flag, message) in [
        ("--max-steps", "interpreter step limit 5 reached"),
        ("--max-call-depth", "interpreter call depth limit 5 reached"),
        ("--max-allocations", "interpreter memory allocations limit 5 reached"),
        ("--max-stack-slots", "interpreter value stack slot limit 5 reached"),
        ("--max-memory", "interpreter memory bytes limit 5 reached"),
    ] {
        let o = run(flag, "5");
        assert_eq!(o.status.code(), Some(1), "{flag}");
        assert!(stderr(&o).contains(message), "{flag}: {}", stderr(&o));
    }
    let o = run("--max-call-depth", "100");
    assert_eq!(stdout(&o), "u64 6765\n", "{}", stderr(&o));
}
