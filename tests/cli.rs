//! The `whale` binary, run for real: exit codes, messages, and output files that
//! are never created, truncated or replaced on failure.

use std::fs;
use std::path::Path;

mod common;

use common::{example, stderr, stdout, whale, whale_stdin};

const BAD_VERSION: &str = r#"{
  "format_version": 99,
  "semantics_version": 1,
  "features": [],
  "program": { "globals": [], "functions": [], "declarations": [] }
}"#;

#[test]
fn help_and_version() {
    let o = whale(&["--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("ir"));
    let o = whale(&["ir", "lower", "--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("--no-verify"));
    let o = whale(&["--version"]);
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("whale "));
}

#[test]
fn usage_errors_exit_2() {
    let o = whale(&["ir", "lower"]);
    assert_eq!(o.status.code(), Some(2));
    let o = whale(&["ir", "frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    let o = whale(&["ir", "print", "x.json", "--format", "3"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn lower_to_stdout_and_file_are_identical() {
    let dir = tempfile::tempdir().unwrap();
    let input = example("fib.json");
    let o = whale(&["ir", "lower", input.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("module {\n  format_version 2\n"));
    let out = dir.path().join("out with space.wir");
    let f = whale(&["ir", "lower", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(f.status.success(), "{}", stderr(&f));
    assert_eq!(stdout(&f), format!("Wrote IR to {}\n", out.display()));
    assert_eq!(fs::read(&out).unwrap(), o.stdout);
    // Deterministic across runs, and nothing else left in the directory.
    let again = whale(&["ir", "lower", input.to_str().unwrap()]);
    assert_eq!(again.stdout, o.stdout);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// `-o` leaves the mode `File::create` would: a new file gets the default less
/// the umask (not the owner-only mode of temporary files), a replaced file keeps its own.
#[cfg(unix)]
#[test]
fn output_files_get_ordinary_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let input = example("fib.json");
    let reference = dir.path().join("reference");
    fs::File::create(&reference).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let out = dir.path().join("new.wir");
    assert!(whale(&["ir", "lower", input.to_str().unwrap(), "-o", out.to_str().unwrap()]).status.success());
    assert_eq!(mode(&out), mode(&reference));
    fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).unwrap();
    assert!(whale(&["ir", "lower", input.to_str().unwrap(), "-o", out.to_str().unwrap()]).status.success());
    assert_eq!(mode(&out), 0o640);
}

#[test]
fn every_example_lowers_verifies_and_prints() {
    for entry in fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let o = whale(&["ir", "lower", path.to_str().unwrap()]);
            assert!(o.status.success(), "{}: {}", path.display(), stderr(&o));
            let v = whale(&["ir", "verify", path.to_str().unwrap()]);
            assert!(v.status.success(), "{}: {}", path.display(), stderr(&v));
            assert_eq!(stdout(&v), format!("Verified IR {}\n", path.display()));
        }
    }
}

#[test]
fn rejected_input_creates_and_replaces_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("invalid.json");
    fs::write(&input, BAD_VERSION).unwrap();
    let out = dir.path().join("rejected.wir");
    for extra in [&[][..], &["--no-verify"][..]] {
        let mut args = vec!["ir", "lower", input.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = whale(&args);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(stderr(&o), "Error: Failed to parse socket JSON: unsupported AST format_version 99; expected 2\n");
        assert!(!out.exists());
    }
    fs::write(&out, "keep me").unwrap();
    let o = whale(&["ir", "lower", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(fs::read_to_string(&out).unwrap(), "keep me");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary files left behind");
}

#[test]
fn lowering_errors_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.json");
    let program = r#"{"format_version": 2, "semantics_version": 1, "features": [], "program": {
      "declarations": [], "globals": [], "functions": [{"convention": "Whale", "linkage": "Internal",
      "link_name": null, "name": "f", "parameters": [], "return_type": {"Int": {"bits": 8, "signed": true}},
      "body": [{"Return": {"Lit": {"Int": {"bits": 8, "signed": true, "value": "128"}}}}]}]}}"#;
    fs::write(&input, program).unwrap();
    let o = whale(&["ir", "lower", input.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("Error: lower_o0 failed: "), "{}", stderr(&o));
}

#[test]
fn unsupported_target_is_refused_before_reading_input() {
    let o = whale(&["ir", "lower", "/nonexistent/input.json", "--target", "riscv64-unknown"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("unsupported target") && e.contains("x86_64-whale-linux"), "{e}");
}

#[test]
fn output_that_is_the_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("fib.json");
    fs::copy(example("fib.json"), &input).unwrap();
    let original = fs::read(&input).unwrap();
    let hard = dir.path().join("hard.json");
    fs::hard_link(&input, &hard).unwrap();
    let soft = dir.path().join("soft.json");
    std::os::unix::fs::symlink(&input, &soft).unwrap();
    for out in [&input, &hard, &soft] {
        let o = whale(&["ir", "lower", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("same file"), "{}", stderr(&o));
        assert_eq!(fs::read(&input).unwrap(), original);
    }
    let o = whale(&["ir", "print", input.to_str().unwrap(), "-o", hard.to_str().unwrap()]);
    assert!(stderr(&o).contains("same file"));
}

#[test]
fn directory_as_output_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = whale(&["ir", "lower", example("fib.json").to_str().unwrap(), "-o", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("Error: failed to write"), "{}", stderr(&o));
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn standard_input_and_format_4() {
    let json = fs::read(example("fib.json")).unwrap();
    let o = whale_stdin(&["ir", "lower", "-"], &json);
    assert!(o.status.success(), "{}", stderr(&o));
    let from_file = whale(&["ir", "lower", example("fib.json").to_str().unwrap()]);
    assert_eq!(o.stdout, from_file.stdout);
    let o = whale_stdin(&["ir", "print", "-", "--format", "4"], &json);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("module {\n  format_version 4\n"));
    let o = whale_stdin(&["ir", "verify", "-"], &json);
    assert_eq!(stdout(&o), "Verified IR <stdin>\n");
}

#[test]
fn missing_input_is_an_error() {
    let o = whale(&["ir", "verify", "/nonexistent/x.wir"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("Error: failed to read /nonexistent/x.wir"));
}

#[test]
fn text_ir_round_trips_through_print_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["fib.json", "loops.json", "globals.json", "calls.json", "literals.json"] {
        let wir = dir.path().join(name.replace(".json", ".wir"));
        let o = whale(&["ir", "lower", example(name).to_str().unwrap(), "--emit", "wir", "-o", wir.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v = whale(&["ir", "verify", wir.to_str().unwrap()]);
        assert!(v.status.success(), "{name}: {}", stderr(&v));
        let p = whale(&["ir", "print", wir.to_str().unwrap()]);
        assert!(p.status.success(), "{name}: {}", stderr(&p));
        assert_eq!(p.stdout, fs::read(&wir).unwrap(), "{name}: print(parse(text)) == text");
        let v4 = whale(&["ir", "print", wir.to_str().unwrap(), "--format", "4"]);
        let wir4 = dir.path().join("v4.wir");
        fs::write(&wir4, &v4.stdout).unwrap();
        let back = whale(&["ir", "print", wir4.to_str().unwrap(), "--format", "4"]);
        assert_eq!(back.stdout, v4.stdout, "{name}: format 4 round trip");
    }
}

#[test]
fn text_errors_point_at_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let wir = dir.path().join("bad.wir");
    let text = "module {\n  format_version 2\n  semantics_version 1\n  target \"x86_64-whale-linux\"\n  datalayout { ptr=64, endian=little }\n\n  declare @f0 \"f\": whale () -> i32, linkage internal\n\n  fn @f() -> i32, id @f0 {\n  entry:\n    %v0: i32 = addd i32 %v0, %v0\n    ret i32 %v0\n  }\n\n}\n";
    fs::write(&wir, text).unwrap();
    let out = dir.path().join("out.wir");
    let o = whale(&["ir", "print", wir.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    let first = e.lines().next().unwrap();
    assert!(first.starts_with(&format!("Error: {}:11:16: ", wir.display())), "{e}");
    assert!(first.contains("unknown instruction"), "{e}");
    assert!(e.contains("addd i32") && e.contains('^'), "{e}");
    assert!(!out.exists());
}
