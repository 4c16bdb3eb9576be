//! Function-scoped ids through the whole tool: a module whose three functions
//! each start at `%v0` and `%b0`, two of them with the same sparse ids, calling
//! each other (`tests/fixtures/function-scoped-ids.wir`).

use std::fs;
use std::path::{Path, PathBuf};

mod common;

use common::{arg, stderr, stdout, whale};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/function-scoped-ids.wir")
}

#[track_caller]
fn ok(args: &[&str]) -> String {
    let o = whale(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// Each function's result through `ir run`.
fn results(path: &Path) -> Vec<String> {
    [("square", "7"), ("sum_squares", "10"), ("main", "")]
        .iter()
        .map(|(f, a)| {
            let mut args = vec!["ir", "run", arg(path), "--function", f];
            if !a.is_empty() {
                args.extend(["--arg", a]);
            }
            ok(&args)
        })
        .collect()
}

#[test]
fn verify_print_and_run() {
    let path = fixture();
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(ok(&["ir", "verify", arg(&path)]), format!("Verified IR {}\n", path.display()));
    assert_eq!(ok(&["ir", "print", arg(&path), "--format", "4"]), text);
    // Format-4 input keeps its family by default.
    assert_eq!(ok(&["ir", "print", arg(&path)]), text);
    assert_eq!(results(&path), ["i64 49\n", "i64 385\n", "i64 148225\n"]);
}

#[test]
fn fr2e_round_trip_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("ids.fr2e");
    ok(&["ir", "convert", arg(&fixture()), "-o", arg(&image)]);
    let back = dir.path().join("back.wir");
    ok(&["ir", "convert", arg(&image), "-o", arg(&back), "--to", "wir"]);
    assert_eq!(fs::read_to_string(&back).unwrap(), fs::read_to_string(fixture()).unwrap());
    assert_eq!(results(&image), results(&fixture()));
}

#[test]
fn llvm13_round_trip_renumbers_and_runs_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("ids.bc");
    ok(&["ir", "convert", arg(&fixture()), "-o", arg(&bc)]);
    let back = ok(&["ir", "print", arg(&bc), "--format", "4"]);
    // Bytecode records no ids: each function's come back from zero in definition order (docs/llvm13.md).
    assert!(back.contains("  fn @f1 \"sum_squares\"(%v0 \"n\": i64) -> i64, entry %b0 {"), "{back}");
    assert!(back.contains("%b1 \"loop\":\n    %v3: i64 = phi i64"), "{back}");
    assert_eq!(results(&bc), results(&fixture()));
}

#[test]
fn threads_never_change_the_output() {
    let path = fixture();
    let one = ok(&["ir", "print", arg(&path), "--threads", "1"]);
    assert_eq!(ok(&["ir", "print", arg(&path), "--threads", "3"]), one);
    let o = whale(&["ir", "verify", arg(&path), "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_whale"))
        .args(["ir", "verify", arg(&path)])
        .env("WHALE_THREADS", "zero")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("WHALE_THREADS"), "{}", stderr(&o));
}

/// The seed's own command: `whale ir lower ir/tests/fixtures/ast-v2-calls.json`.
#[test]
fn the_seed_calls_fixture_lowers_and_runs() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("ir/tests/fixtures/ast-v2-calls.json");
    let text = ok(&["ir", "lower", arg(&fixture)]);
    assert!(text.contains("%v9: i32 = call whale i32 indirect %v7(%v8)\n"), "{text}");
    assert!(text.contains("call sysv64 void @f0(%v11)\n"), "{text}");
    // The external function is the standard host's integer printer: 42 is printed, then returned.
    assert_eq!(ok(&["ir", "run", arg(&fixture), "--function", "main"]), "42\ni32 42\n");
}
