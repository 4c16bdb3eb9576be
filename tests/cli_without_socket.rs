//! The `whale` binary built without the default `socket-cli` feature: AST JSON
//! cannot be read, and every way of asking for it prints the two recovery
//! lines and exits 2 without touching the output. Text and FR2E still work.
//! Run with `cargo test -p whale --no-default-features --test cli_without_socket`.

#![cfg(not(feature = "socket-cli"))]

mod common;

use common::{example, stderr, stdout, whale};

#[test]
fn lower_names_the_missing_feature_and_exits_2() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let out = dir.path().join("fib.wir");
    let o = whale(&[
        "ir",
        "lower",
        example("fib.json").to_str().expect("utf-8 path"),
        "-o",
        out.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "Error: 'whale ir lower' requires feature 'socket-cli'.\n\
         Build/run with: cargo run -p whale --features socket-cli -- ir lower ...\n"
    );
    assert!(!out.exists(), "no output file is created");
}

#[test]
fn ast_json_input_to_any_command_names_the_missing_feature() {
    for command in [["ir", "verify"], ["ir", "print"], ["ir", "run"]] {
        let mut args: Vec<&str> = command.to_vec();
        let path = example("fib.json");
        args.push(path.to_str().expect("utf-8 path"));
        if command[1] == "run" {
            args.extend(["--function", "main"]);
        }
        let o = whale(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            "Error: AST JSON input requires feature 'socket-cli'.\n\
             Build/run with: cargo run -p whale --features socket-cli -- ir ...\n",
            "{args:?}"
        );
    }
}

#[test]
fn text_input_still_works() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let text = dir.path().join("unit.wir");
    std::fs::write(
        &text,
        "module {\n  format_version 2\n  semantics_version 1\n  target \"x86_64-whale-linux\"\n  \
         datalayout { ptr=64, endian=little }\n\n  declare @f0 \"main\": whale () -> i32, linkage internal\n\n  \
         fn @main() -> i32, id @f0 {\n  entry:\n    %v0: i32 = const i32 7\n    ret i32 %v0\n  }\n\n}\n",
    )
    .expect("write text");
    let o = whale(&["ir", "run", text.to_str().expect("utf-8 path"), "--function", "main"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "i32 7\n");
}
