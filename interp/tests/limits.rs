//! Limits (whale-upstream §g.1, §g.3): steps (exactly where the budget runs
//! out, phis and constants included), call depth (deep recursion never
//! overflows the Rust stack), memory bytes, allocations and stack slots — each
//! a distinct error, separate from traps.

mod common;

#[path = "../benches/workloads.rs"]
mod workloads;

use common::*;
use interp::{ExecError, Interpreter, LimitKind, Options, TrapReason, Value};
use ir::{Callee, ICmpPred, Module, Type};

fn with_steps(max_steps: u64) -> Options {
    Options { max_steps, ..Options::default() }
}

#[test]
fn the_step_limit_stops_before_the_operation_that_would_exceed_it() {
    let m = workloads::fib();
    let total = workloads::fib_steps(10);
    let mut i = Interpreter::new(&m, with_steps(total)).unwrap();
    assert_eq!(i.call("fib", &[Value::I64(10)]).unwrap().steps, total);
    for budget in [0, 1, 2, 3, 4, 5, 9, 10, 11, 100, total - 1] {
        let mut i = Interpreter::new(&m, with_steps(budget)).unwrap();
        let e = i.call("fib", &[Value::I64(10)]).unwrap_err();
        let l = e.as_limit().unwrap_or_else(|| panic!("{e}"));
        assert_eq!((l.kind, l.limit, l.steps), (LimitKind::Steps, budget, budget));
        if budget == 0 {
            // Limit 0 stops the first operation: the entry block's constant.
            assert_eq!((l.site.block.as_u32(), l.site.inst), (0, 0));
            assert_eq!(e.to_string(), "interpreter step limit 0 reached at @f0 %b0 instruction 0 (%v1)");
        }
        if budget == 3 {
            // const, icmp, cbr ran; the next operation is the `rec` block's first.
            assert_eq!((l.site.block.as_u32(), l.site.inst), (2, 0));
        }
        if budget == 5 {
            // ... then const and sub; the stop is at the call.
            assert_eq!((l.site.block.as_u32(), l.site.inst), (2, 2));
        }
    }
}

#[test]
fn the_step_limit_can_stop_inside_a_phi_group() {
    // entry: br (1 step); head: phi a, phi b, phi i, icmp, cbr; body: add, add, br.
    let m = function(&[Type::U32], Type::U32, |f, p| {
        let entry = f.entry_block();
        let head = f.create_block("head");
        let body = f.create_block("body");
        let exit = f.create_block("exit");
        let zero = f.const_u32(0);
        let one = f.const_u32(1);
        f.br(head);
        f.set_insert_point(head);
        let a = f.phi(Type::U32, &[(zero, entry)]);
        let b = f.phi(Type::U32, &[(one, entry)]);
        let i = f.phi(Type::U32, &[(zero, entry)]);
        let more = f.icmp(ICmpPred::Ult, Type::U32, i, p[0]);
        f.cbr(more, body, exit);
        f.set_insert_point(body);
        let next = f.add(Type::U32, i, one);
        f.add_phi_input(a, b, body);
        f.add_phi_input(b, a, body);
        f.add_phi_input(i, next, body);
        f.br(head);
        f.set_insert_point(exit);
        Some(a)
    });
    // 3 steps in entry (two constants, br); phis of the first entry into head at steps 3, 4, 5.
    for (budget, phi) in [(3u64, 0u32), (4, 1), (5, 2)] {
        let l = limit(&m, with_steps(budget), &[Value::U32(5)]);
        assert_eq!((l.site.block.as_u32(), l.site.inst, l.steps), (1, phi, budget), "budget {budget}");
    }
    // The body's add and br (fused with the header's test into one operation).
    for (budget, inst) in [(8u64, 0u32), (9, 1)] {
        let l = limit(&m, with_steps(budget), &[Value::U32(5)]);
        assert_eq!((l.site.block.as_u32(), l.site.inst, l.steps), (2, inst, budget), "budget {budget}");
    }
    // Second entry, through the back edge: 3 + 5 (head) + 2 (body) = 10, then the phis.
    for (budget, phi) in [(10u64, 0u32), (11, 1), (12, 2), (13, 3)] {
        let l = limit(&m, with_steps(budget), &[Value::U32(5)]);
        assert_eq!((l.site.block.as_u32(), l.site.inst), (1, phi), "budget {budget}");
    }
}

#[test]
fn a_trap_before_the_limit_wins_and_counts_exactly() {
    // const, sdiv (traps on 0), add, ret.
    let m = function(&[Type::I32, Type::I32], Type::I32, |f, p| {
        let one = f.const_i32(1);
        let q = f.sdiv(Type::I32, p[0], p[1]);
        Some(f.add(Type::I32, q, one))
    });
    let args = [Value::I32(1), Value::I32(0)];
    for budget in [2, 3, 100] {
        let mut i = Interpreter::new(&m, with_steps(budget)).unwrap();
        let t = i.call("f", &args).unwrap_err();
        let t = t.as_trap().unwrap();
        assert_eq!((t.reason.clone(), t.site.inst, t.steps), (TrapReason::DivisionByZero, 1, 2));
    }
    let l = limit(&m, with_steps(1), &args);
    assert_eq!((l.site.inst, l.steps), (1, 1));
}

fn infinite_recursion() -> Module {
    let mut mb = builder();
    let mut f = mb.begin_function("f", vec![("n".into(), Type::I64)], Type::I64);
    let me = f.function_id("f").unwrap();
    let n = f.param_value(0);
    let r = f.call(Callee::Direct(me), vec![n]).unwrap().unwrap();
    f.ret(Some(r));
    f.finish();
    mb.finish()
}

#[test]
fn call_depth() {
    let m = infinite_recursion();
    for depth in [1u32, 2, 1000, 1_000_000] {
        let options = Options { max_steps: u64::MAX, max_call_depth: depth, ..Options::default() };
        let l = limit(&m, options, &[Value::I64(0)]);
        assert_eq!((l.kind, l.limit, l.site.inst), (LimitKind::CallDepth, u64::from(depth), 0));
        // One step (the call) per frame entered.
        assert_eq!(l.steps, u64::from(depth));
    }
    let l = limit(&m, Options { max_steps: u64::MAX, max_call_depth: 10, ..Options::default() }, &[Value::I64(0)]);
    assert_eq!(
        ExecError::Limit(Box::new(l)).to_string(),
        "interpreter call depth limit 10 reached at @f0 %b0 instruction 0 (%v1)"
    );
    // Without a depth limit the value stack is the bound.
    let options =
        Options { max_steps: u64::MAX, max_call_depth: u32::MAX, max_stack_slots: 100_000, ..Options::default() };
    let l = limit(&m, options, &[Value::I64(0)]);
    assert_eq!((l.kind, l.limit), (LimitKind::StackSlots, 100_000));
}

#[test]
fn memory_bytes_and_allocations() {
    let m = function(&[], Type::Void, |f, _| {
        let _ = f.alloca(Type::array(Type::U8, 2_000_000), 1);
        None
    });
    let options = Options { max_memory_bytes: 1_000_000, ..Options::default() };
    let l = limit(&m, options, &[]);
    assert_eq!((l.kind, l.limit, l.site.inst), (LimitKind::MemoryBytes, 1_000_000, 0));
    assert!(run(&m, &[]).is_ok());
    // An alloca in a loop allocates anew each iteration.
    let m = function(&[Type::U32], Type::Void, |f, p| {
        let entry = f.entry_block();
        let head = f.create_block("head");
        let body = f.create_block("body");
        let exit = f.create_block("exit");
        let zero = f.const_u32(0);
        let one = f.const_u32(1);
        f.br(head);
        f.set_insert_point(head);
        let i = f.phi(Type::U32, &[(zero, entry)]);
        let more = f.icmp(ICmpPred::Ult, Type::U32, i, p[0]);
        f.cbr(more, body, exit);
        f.set_insert_point(body);
        let _ = f.alloca(Type::I64, 8);
        let next = f.add(Type::U32, i, one);
        f.add_phi_input(i, next, body);
        f.br(head);
        f.set_insert_point(exit);
        None
    });
    let options = Options { max_allocations: 10, ..Options::default() };
    let mut i = Interpreter::new(&m, options).unwrap();
    assert!(i.call("f", &[Value::U32(10)]).is_ok());
    let e = i.call("f", &[Value::U32(11)]).unwrap_err();
    let l = e.as_limit().unwrap();
    assert_eq!((l.kind, l.limit), (LimitKind::Allocations, 10));
    assert_eq!(e.to_string(), format!("interpreter memory allocations limit 10 reached at {}", l.site));
    // Limits are distinct from traps, and the interpreter is reusable after either.
    assert!(i.call("f", &[Value::U32(3)]).is_ok());
}

/// Frames of more than 65,536 slots (here two 40,000-element array values) run
/// with bounds-checked frame windows, calls and traps included.
#[test]
fn large_frames() {
    let n = 40_000u64;
    let array = Type::array(Type::U64, n);
    let mut mb = builder();
    let mut id = mb.begin_function("id", vec![("x".into(), Type::U64)], Type::U64);
    let x = id.param_value(0);
    id.ret(Some(x));
    id.finish();
    let mut f = mb.begin_function("f", vec![("i".into(), Type::I64)], Type::U64);
    let i = f.param_value(0);
    let id_fn = f.function_id("id").unwrap();
    let a = f.alloca(array.clone(), 8);
    let b = f.alloca(array.clone(), 8);
    let ones = f.const_u8(1);
    let bytes = f.const_u64(8 * n);
    let raw = f.cast(ir::CastOp::Bitcast, a, Type::ptr(Type::U8));
    f.memset(raw, ones, bytes, 8);
    let v = f.load(array.clone(), a, 8);
    f.store(array.clone(), v, b, 8);
    let w = f.load(array.clone(), b, 8);
    f.store(array, w, a, 8);
    let zero = f.const_i64(0);
    let at = f.gep(Type::ptr(Type::U64), b, &[zero, i]);
    let element = f.load(Type::U64, at, 8);
    let r = f.call(Callee::Direct(id_fn), vec![element]).unwrap().unwrap();
    f.ret(Some(r));
    f.finish();
    let m = mb.finish();
    let mut interp = Interpreter::new(&m, Options::default()).unwrap();
    let outcome = interp.call("f", &[Value::I64(39_999)]).unwrap();
    assert_eq!(outcome.value, Some(Value::U64(0x0101_0101_0101_0101)));
    let e = interp.call("f", &[Value::I64(40_000)]).unwrap_err();
    let t = e.as_trap().unwrap();
    assert_eq!((t.reason.clone(), t.site.inst), (TrapReason::Memory(interp::MemoryTrap::OutOfBounds), 12));
    assert_eq!(interp.call("id", &[Value::U64(7)]).unwrap().value, Some(Value::U64(7)));
}

/// Runs `function` under every budget below its step count and checks that
/// the limit stops exactly before the operation `trace[budget]`, a
/// `(block, instruction)` pair: steps inside fused operations (latches with
/// their adds, element accesses, compare-and-branches) stop where the IR says.
fn check_every_budget(m: &Module, function: &str, args: &[Value], trace: &[(u32, u32)]) {
    let mut i = Interpreter::new(m, with_steps(trace.len() as u64)).unwrap();
    assert_eq!(i.call(function, args).unwrap().steps, trace.len() as u64);
    for (budget, &(block, inst)) in trace.iter().enumerate() {
        let mut i = Interpreter::new(m, with_steps(budget as u64)).unwrap();
        let e = i.call(function, args).unwrap_err();
        let l = e.as_limit().unwrap_or_else(|| panic!("{e}"));
        assert_eq!((l.site.block.as_u32(), l.site.inst, l.steps), (block, inst, budget as u64), "budget {budget}");
    }
}

/// `(block, instruction)` for each instruction of `block` in order.
fn block_trace(block: u32, len: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..len).map(move |inst| (block, inst))
}

#[test]
fn the_step_limit_stops_inside_fused_loop_operations() {
    // loopsum: entry (3 constants, br); head (2 phis, icmp, cbr); body (mul, urem,
    // add, add, br: two adds fused with the latch); exit (ret).
    let n = 3;
    let mut trace: Vec<(u32, u32)> = block_trace(0, 4).collect();
    for _ in 0..n {
        trace.extend(block_trace(1, 4).chain(block_trace(2, 5)));
    }
    trace.extend(block_trace(1, 4).chain(block_trace(3, 1)));
    check_every_budget(&workloads::loopsum(), "loopsum", &[Value::U64(n)], &trace);

    // A fill loop and a count loop over a byte array: the gep of each access is
    // fused with it, the increment with the latch.
    let m = function(&[Type::I64], Type::I64, |f, p| {
        let entry = f.entry_block();
        let fill = f.create_block("fill");
        let fill_body = f.create_block("fill.body");
        let count = f.create_block("count");
        let count_body = f.create_block("count.body");
        let exit = f.create_block("exit");
        let bytes = f.alloca(Type::array(Type::U8, 8), 1);
        let zero = f.const_i64(0);
        let one = f.const_i64(1);
        let seven = f.const_u8(7);
        f.br(fill);
        f.set_insert_point(fill);
        let i = f.phi(Type::I64, &[(zero, entry)]);
        let more = f.icmp(ICmpPred::Slt, Type::I64, i, p[0]);
        f.cbr(more, fill_body, count);
        f.set_insert_point(fill_body);
        let at = f.gep(Type::ptr(Type::U8), bytes, &[zero, i]);
        f.store(Type::U8, seven, at, 1);
        let next = f.add(Type::I64, i, one);
        f.add_phi_input(i, next, fill_body);
        f.br(fill);
        f.set_insert_point(count);
        let j = f.phi(Type::I64, &[(zero, fill)]);
        let sum = f.phi(Type::I64, &[(zero, fill)]);
        let more = f.icmp(ICmpPred::Sle, Type::I64, p[0], j);
        f.cbr(more, exit, count_body);
        f.set_insert_point(count_body);
        let from = f.gep(Type::ptr(Type::U8), bytes, &[zero, j]);
        let b = f.load(Type::U8, from, 1);
        let wide = f.cast(ir::CastOp::Zext, b, Type::I64);
        let sum_next = f.add(Type::I64, sum, wide);
        let j_next = f.add(Type::I64, j, one);
        f.add_phi_input(j, j_next, count_body);
        f.add_phi_input(sum, sum_next, count_body);
        f.br(count);
        f.set_insert_point(exit);
        Some(sum)
    });
    let n = 3;
    let mut trace: Vec<(u32, u32)> = block_trace(0, 5).collect();
    for _ in 0..n {
        trace.extend(block_trace(1, 3).chain(block_trace(2, 4)));
    }
    trace.extend(block_trace(1, 3));
    for _ in 0..n {
        trace.extend(block_trace(3, 4).chain(block_trace(4, 6)));
    }
    trace.extend(block_trace(3, 4).chain(block_trace(5, 1)));
    assert_eq!(value(&m, &[Value::I64(n.into())]), Value::I64(21));
    check_every_budget(&m, "f", &[Value::I64(n.into())], &trace);
}
