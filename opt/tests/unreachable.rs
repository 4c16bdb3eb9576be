//! `remove_unreachable_blocks`: before and after as IR text, verified, and
//! the interpreter's results unchanged.

use interp::{Interpreter, Options, Value};

/// Runs `function` of the text's module on each argument, before and after the pass.
fn results(text: &str, function: &str, args: &[i64]) -> Vec<String> {
    let module = ir::parse_module(text).unwrap_or_else(|e| panic!("{}", e.render(text, "test")));
    let mut interp = Interpreter::new(&module, Options::default()).expect("verifies");
    args.iter().map(|&a| format!("{:?}", interp.call(function, &[Value::I64(a)]))).collect()
}

/// Applies the pass to every function of `before`; checks the result verifies
/// and prints as `after`, and that the pass then finds nothing more to do.
#[track_caller]
fn check(before: &str, after: &str) {
    let mut module = ir::parse_module(before).unwrap_or_else(|e| panic!("{}", e.render(before, "before")));
    let changed = opt::run_on_module(&mut module, opt::remove_unreachable_blocks);
    assert_eq!(changed, before != after);
    for index in 0..module.function_count() {
        ir::verify_function(&module, index).unwrap_or_else(|e| panic!("{e}"));
    }
    ir::verify_module(&module).unwrap();
    let printed = ir::print_module_with(&module, ir::TextFormat::V4);
    assert_eq!(printed, after, "printed after the pass:\n{printed}");
    assert!(!opt::run_on_module(&mut module, opt::remove_unreachable_blocks), "a second run changes nothing");
}

const HEADER: &str = "module {
  format_version 4
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"f\": whale (i64) -> i64, linkage internal

";

fn module(body: &str) -> String {
    format!("{HEADER}{body}\n}}\n")
}

#[test]
fn dead_blocks_go_with_their_phi_inputs() {
    // %b3 and %b4 form an unreachable cycle that feeds the join's phi; %b5 traps, unreachable too.
    let before = module(
        "  fn @f0 \"f\"(%v0 \"x\": i64) -> i64, entry %b0 {
  %b0 \"entry\":
    %v1: i64 = const i64 0
    %v2: bool = cmp slt i64 %v0, %v1
    cbr bool %v2, label %b1, label %b2
  %b1 \"neg\":
    %v3: i64 = sub i64 %v1, %v0
    br label %b2
  %b3 \"dead.a\":
    %v4: i64 = const i64 99
    br label %b4
  %b4 \"dead.b\":
    cbr bool %v2, label %b3, label %b2
  %b5 \"dead.trap\":
    trap reason=\"never\"
  %b2 \"join\":
    %v5: i64 = phi i64 [ %v0, %b0 ], [ %v3, %b1 ], [ %v4, %b4 ]
    ret i64 %v5
  }
",
    );
    let after = module(
        "  fn @f0 \"f\"(%v0 \"x\": i64) -> i64, entry %b0 {
  %b0 \"entry\":
    %v1: i64 = const i64 0
    %v2: bool = cmp slt i64 %v0, %v1
    cbr bool %v2, label %b1, label %b2
  %b1 \"neg\":
    %v3: i64 = sub i64 %v1, %v0
    br label %b2
  %b2 \"join\":
    %v5: i64 = phi i64 [ %v0, %b0 ], [ %v3, %b1 ]
    ret i64 %v5
  }
",
    );
    check(&before, &after);
    let args = [-5, 0, 7, i64::MIN + 1];
    assert_eq!(results(&before, "f", &args), results(&after, "f", &args));
}

#[test]
fn reachable_loops_and_every_block_of_a_live_function_stay() {
    let text = module(
        "  fn @f0 \"f\"(%v0 \"n\": i64) -> i64, entry %b0 {
  %b0 \"entry\":
    %v1: i64 = const i64 0
    %v2: i64 = const i64 1
    br label %b1
  %b1 \"head\":
    %v3: i64 = phi i64 [ %v1, %b0 ], [ %v5, %b2 ]
    %v4: bool = cmp slt i64 %v3, %v0
    cbr bool %v4, label %b2, label %b3
  %b2 \"body\":
    %v5: i64 = add i64 %v3, %v2
    br label %b1
  %b3 \"exit\":
    ret i64 %v3
  }
",
    );
    check(&text, &text);
}

#[test]
fn blocks_reached_only_through_switch_cases_stay() {
    let before = module(
        "  fn @f0 \"f\"(%v0 \"x\": i64) -> i64, entry %b0 {
  %b0 \"entry\":
    switch i64 %v0, label %b1 [ 1: %b2, 2: %b2 ]
  %b3 \"orphan\":
    br label %b2
  %b1 \"default\":
    ret i64 %v0
  %b2 \"case\":
    %v1: i64 = const i64 10
    ret i64 %v1
  }
",
    );
    let after = module(
        "  fn @f0 \"f\"(%v0 \"x\": i64) -> i64, entry %b0 {
  %b0 \"entry\":
    switch i64 %v0, label %b1 [ 1: %b2, 2: %b2 ]
  %b1 \"default\":
    ret i64 %v0
  %b2 \"case\":
    %v1: i64 = const i64 10
    ret i64 %v1
  }
",
    );
    check(&before, &after);
    assert_eq!(results(&before, "f", &[0, 1, 2, 3]), results(&after, "f", &[0, 1, 2, 3]));
}

#[test]
fn lowered_examples_keep_their_meaning() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut changed = 0;
    for name in ["fib.json", "loops.json", "calls.json", "globals.json", "literals.json"] {
        let source = std::fs::read_to_string(dir.join(name)).unwrap();
        let program = ir::lower_ast::interchange::decode(&source).unwrap();
        let mut module =
            ir::lower_ast::lower_o0(&program, "x86_64-whale-linux", ir::DataLayout::default_64bit_le()).unwrap();
        let before = ir::print_module(&module);
        let insts = module.inst_count();
        changed += usize::from(opt::run_on_module(&mut module, opt::remove_unreachable_blocks));
        ir::verify_module(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(module.inst_count() <= insts);
        // Every function without parameters runs to the same result.
        let original = ir::parse_module(&before).unwrap();
        for f in original.functions().filter(|f| f.params.is_empty()) {
            let run = |m: &ir::Module| {
                let mut i = Interpreter::new(m, Options::default()).unwrap();
                i.bind_standard_host();
                format!("{:?}", i.call(f.name, &[]))
            };
            assert_eq!(run(&original), run(&module), "{name}: {}", f.name);
        }
    }
    // Lowering makes no dead blocks in these examples: the pass must find nothing to remove.
    assert_eq!(changed, 0);
}
