//! `whale ir run`, run for real: results printed as `TYPE VALUE`, traps and
//! limits reported as `Error: <file>: …` with exit code 1, usage errors exit 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ir::{BinOp, Callee, CallingConvention, DataLayout, FunctionSignature, Linkage, ModuleBuilder, Type};

fn whale(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whale")).args(args).stdin(Stdio::null()).output().expect("whale runs")
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name).display().to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and expects success with exactly `expected` on standard output.
fn ok(args: &[&str], expected: &str) {
    let o = whale(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    assert_eq!(stdout(&o), expected, "{args:?}");
}

/// Runs and expects exit code 1 with `Error: ` and `fragment` on standard error.
fn fails(args: &[&str], fragment: &str) -> String {
    let o = whale(args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stdout(&o));
    let err = stderr(&o);
    assert!(err.starts_with("Error: ") && err.contains(fragment), "{args:?}: {err}");
    err
}

/// Writes `module` as IR text into a temporary directory.
fn ir_file(dir: &tempfile::TempDir, name: &str, module: &ir::Module) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, ir::print_module(module)).expect("write IR");
    path
}

fn builder() -> ModuleBuilder {
    ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
}

#[test]
fn runs_the_fib_example() {
    let fib = example("fib.json");
    ok(&["ir", "run", &fib, "--function", "main"], "u64 55\n");
    ok(&["ir", "run", &fib, "--function", "fib", "--arg", "20"], "u64 6765\n");
    ok(&["ir", "run", &fib, "--function", "@f0", "--arg", "1"], "u64 1\n");
}

#[test]
fn runs_the_other_examples() {
    let literals = example("literals.json");
    for (function, expected) in [
        ("wide", "u128 340282366920938463463374607431768211454\n"),
        ("signed_wide", "i128 -170141183460469231731687303715884105727\n"),
        ("half", "f16 0x3e00\n"),
        ("single", "f32 0x40c90fdb\n"),
        ("nan_ne", "bool true\n"),
        ("tiny", "i1 -1\n"),
        ("bit", "u1 1\n"),
    ] {
        ok(&["ir", "run", &literals, "--function", function], expected);
    }
    let globals = example("globals.json");
    ok(&["ir", "run", &globals, "--function", "scaled", "--arg", "-3"], "i64 -1323\n");
    ok(&["ir", "run", &globals, "--function", "limit"], "i64 10\n");
    ok(&["ir", "run", &example("loops.json"), "--function", "count_pairs", "--arg", "5"], "i32 12\n");
    // calls.json calls external functions nothing provides: the trap names the first.
    let err = fails(&["ir", "run", &example("calls.json"), "--function", "main"], "trap at @f4 %b2 instruction 10");
    assert!(err.contains("call to unbound external function \"log_value\" (after 11 steps)"), "{err}");
}

#[test]
fn traps_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let mut mb = builder();
    let mut f = mb.begin_function("div", vec![("a".into(), Type::I32), ("b".into(), Type::I32)], Type::I32);
    let (a, b) = (f.param_value(0), f.param_value(1));
    let q = f.bin(BinOp::Sdiv, Type::I32, a, b);
    f.ret(Some(q));
    f.finish();
    let mut f = mb.begin_function("big", vec![], Type::Void);
    let _ = f.alloca(Type::array(Type::U8, 1 << 20), 1);
    f.ret(None);
    f.finish();
    let path = ir_file(&dir, "div.wir", &mb.finish());
    let path = path.to_str().unwrap();
    ok(&["ir", "run", path, "--function", "div", "--arg", "-7", "--arg", "2"], "i32 -3\n");
    let err = fails(&["ir", "run", path, "--function", "div", "--arg", "1", "--arg", "0"], "div.wir: ");
    assert_eq!(err, format!("Error: {path}: trap at @f0 %b0 instruction 0 (%v2): division by zero (after 1 steps)\n"));
    ok(&["ir", "run", path, "--function", "big"], "void\n");
    fails(
        &["ir", "run", path, "--function", "big", "--max-memory", "4096"],
        "interpreter memory bytes limit 4096 reached at @f1",
    );
    let fib = example("fib.json");
    fails(&["ir", "run", &fib, "--function", "main", "--max-steps", "10"], "interpreter step limit 10 reached at @f0");
    ok(&["ir", "run", &fib, "--function", "fib", "--arg", "25", "--max-steps", "10000000"], "u64 75025\n");
}

#[test]
fn arguments_and_results_of_every_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let mut mb = builder();
    let mut f = mb.begin_function(
        "pick",
        vec![("c".into(), Type::Bool), ("x".into(), Type::F64), ("y".into(), Type::F64)],
        Type::F64,
    );
    let (c, x, y) = (f.param_value(0), f.param_value(1), f.param_value(2));
    let r = f.select(Type::F64, c, x, y);
    f.ret(Some(r));
    f.finish();
    let mut f = mb.begin_function("pair", vec![("x".into(), Type::I8)], Type::Tuple(vec![Type::I8, Type::Bool]));
    let x = f.param_value(0);
    let r = f.checked(ir::CheckedOp::SAdd, Type::I8, x, x);
    f.ret(Some(r));
    f.finish();
    let sig = FunctionSignature {
        params: vec![Type::I64],
        ret: Type::Void,
        convention: CallingConvention::SysV64,
        variadic: false,
    };
    let print = mb.declare_function("print", sig, Linkage::External, Some("whale_print_int".into())).unwrap();
    let mut f = mb.begin_function("shout", vec![("x".into(), Type::I64)], Type::Void);
    let x = f.param_value(0);
    f.call(Callee::Direct(print), vec![x]).unwrap();
    f.ret(None);
    f.finish();
    let path = ir_file(&dir, "values.wir", &mb.finish());
    let path = path.to_str().unwrap();
    ok(
        &[
            "ir",
            "run",
            path,
            "--function",
            "pick",
            "--arg",
            "false",
            "--arg",
            "0x3ff0000000000000",
            "--arg",
            "0xc00c000000000000",
        ],
        "f64 0xc00c000000000000\n",
    );
    ok(&["ir", "run", path, "--function", "pair", "--arg", "100"], "tuple<i8, bool> { -56, true }\n");
    // The standard host functions print to standard output before the result.
    ok(&["ir", "run", path, "--function", "shout", "--arg", "-5"], "-5\nvoid\n");
    fails(
        &["ir", "run", path, "--function", "pick", "--arg", "1", "--arg", "0x0", "--arg", "0x0"],
        "argument 0: `1` is not a bool literal",
    );
    fails(&["ir", "run", path, "--function", "pick", "--arg", "true", "--arg", "1.5", "--arg", "0x0"], "argument 1:");
    fails(&["ir", "run", path, "--function", "pair", "--arg", "128"], "is not a i8 literal in range");
    fails(&["ir", "run", path, "--function", "pair"], "expected 1 arguments, got 0");
    fails(&["ir", "run", path, "--function", "nothing"], "no function nothing");
    fails(&["ir", "run", path, "--function", "@f9"], "no function @f9");
}

#[test]
fn usage_errors_exit_2() {
    let o = whale(&["ir", "run", &example("fib.json")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--function"));
    let o = whale(&["ir", "run", &example("fib.json"), "--function", "main", "--max-steps", "many"]);
    assert_eq!(o.status.code(), Some(2));
    let o = whale(&["ir", "run", "--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("--max-memory"));
}
