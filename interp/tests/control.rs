//! Control flow and the remaining value instructions: simultaneous phi
//! assignment, `select` with both arms evaluated, `switch`, `trap`/`trap_if`,
//! constants, `const_decl`, globals, `mov`, `extract`, and step counting.

mod common;

use common::*;
use interp::{ExecError, Interpreter, Options, TrapReason, Value};
use ir::{BinOp, CheckedOp, ConstExpr, ConstValue, ICmpPred, Type};

#[test]
fn phis_are_assigned_simultaneously() {
    // (a, b) = (b, a) n times: a swap loop whose back edge moves each phi into the other.
    let m = function(&[Type::I32, Type::I32, Type::U32], Type::I32, |f, p| {
        let entry = f.entry_block();
        let head = f.create_block("head");
        let body = f.create_block("body");
        let exit = f.create_block("exit");
        let zero = f.const_u32(0);
        let one = f.const_u32(1);
        f.br(head);
        f.set_insert_point(head);
        let a = f.phi(Type::I32, &[(p[0], entry)]);
        let b = f.phi(Type::I32, &[(p[1], entry)]);
        let i = f.phi(Type::U32, &[(zero, entry)]);
        let more = f.icmp(ICmpPred::Ult, Type::U32, i, p[2]);
        f.cbr(more, body, exit);
        f.set_insert_point(body);
        let next = f.add(Type::U32, i, one);
        f.add_phi_input(a, b, body);
        f.add_phi_input(b, a, body);
        f.add_phi_input(i, next, body);
        f.br(head);
        f.set_insert_point(exit);
        let ten = f.const_i32(10);
        let scaled = f.mul(Type::I32, a, ten);
        Some(f.add(Type::I32, scaled, b))
    });
    assert_eq!(value(&m, &[Value::I32(1), Value::I32(2), Value::U32(0)]), Value::I32(12));
    assert_eq!(value(&m, &[Value::I32(1), Value::I32(2), Value::U32(1)]), Value::I32(21));
    assert_eq!(value(&m, &[Value::I32(1), Value::I32(2), Value::U32(5)]), Value::I32(21));
    assert_eq!(value(&m, &[Value::I32(1), Value::I32(2), Value::U32(6)]), Value::I32(12));
}

#[test]
fn phis_on_conditional_edges_and_rotations() {
    // A three-way rotation through a cbr edge (the stub path), with a 128-bit phi.
    let m = function(&[Type::I128, Type::I128, Type::I128, Type::Bool], Type::I128, |f, p| {
        let entry = f.entry_block();
        let head = f.create_block("head");
        let exit = f.create_block("exit");
        f.br(head);
        f.set_insert_point(head);
        let a = f.phi(Type::I128, &[(p[0], entry)]);
        let b = f.phi(Type::I128, &[(p[1], entry)]);
        let c = f.phi(Type::I128, &[(p[2], entry)]);
        let first = f.phi(Type::Bool, &[(p[3], entry)]);
        let no = f.const_bool(false);
        f.add_phi_input(a, b, head);
        f.add_phi_input(b, c, head);
        f.add_phi_input(c, a, head);
        f.add_phi_input(first, no, head);
        f.cbr(first, head, exit);
        f.set_insert_point(exit);
        let hundred = f.const_i128(100);
        let ten = f.const_i128(10);
        let x = f.mul(Type::I128, a, hundred);
        let y = f.mul(Type::I128, b, ten);
        let s = f.add(Type::I128, x, y);
        Some(f.add(Type::I128, s, c))
    });
    let args = |go| [Value::I128(1), Value::I128(2), Value::I128(3), Value::Bool(go)];
    assert_eq!(value(&m, &args(false)), Value::I128(123));
    assert_eq!(value(&m, &args(true)), Value::I128(231));
}

#[test]
fn select_evaluates_both_arms() {
    let m = function(&[Type::Bool, Type::I32, Type::I32], Type::I32, |f, p| {
        // The unselected arm is computed too: a division by zero traps either way.
        let q = f.sdiv(Type::I32, p[1], p[2]);
        Some(f.select(Type::I32, p[0], p[1], q))
    });
    assert_eq!(value(&m, &[Value::Bool(true), Value::I32(7), Value::I32(2)]), Value::I32(7));
    assert_eq!(value(&m, &[Value::Bool(false), Value::I32(7), Value::I32(2)]), Value::I32(3));
    assert_eq!(reason(&m, &[Value::Bool(true), Value::I32(7), Value::I32(0)]), TrapReason::DivisionByZero);
    // Aggregates and 128-bit values select whole.
    let pair = Type::Tuple(vec![Type::I128, Type::Bool]);
    let t = pair.clone();
    let m = function(&[Type::Bool, pair.clone(), pair.clone()], pair, move |f, p| Some(f.select(t, p[0], p[1], p[2])));
    let x = Value::Aggregate(vec![Value::I128(-1), Value::Bool(true)]);
    let y = Value::Aggregate(vec![Value::I128(5), Value::Bool(false)]);
    assert_eq!(value(&m, &[Value::Bool(false), x.clone(), y.clone()]), y);
    assert_eq!(value(&m, &[Value::Bool(true), x.clone(), y]), x);
}

#[test]
fn switch_on_integers_and_bools() {
    let switch = |ty: Type, keys: Vec<ConstValue>| {
        function(&[ty], Type::I32, move |f, p| {
            let default = f.create_block("default");
            let blocks: Vec<_> = (0..keys.len()).map(|i| f.create_block(&format!("case{i}"))).collect();
            let cases: Vec<_> = keys.iter().copied().zip(blocks.iter().copied()).collect();
            f.switch(p[0], default, &cases);
            for (i, b) in blocks.iter().enumerate() {
                f.set_insert_point(*b);
                let v = f.const_i32(i as i32 + 1);
                f.ret(Some(v));
            }
            f.set_insert_point(default);
            let v = f.const_i32(0);
            f.ret(Some(v));
            None
        })
    };
    let m = switch(Type::I8, vec![ConstValue::I(-1), ConstValue::I(0), ConstValue::I(100)]);
    for (x, want) in [(-1i8, 1), (0, 2), (100, 3), (5, 0), (-128, 0)] {
        assert_eq!(value(&m, &[Value::I8(x)]), Value::I32(want), "{x}");
    }
    let m = switch(Type::U64, vec![ConstValue::U(u128::from(u64::MAX)), ConstValue::U(7)]);
    assert_eq!(value(&m, &[Value::U64(u64::MAX)]), Value::I32(1));
    assert_eq!(value(&m, &[Value::U64(7)]), Value::I32(2));
    assert_eq!(value(&m, &[Value::U64(8)]), Value::I32(0));
    let m = switch(Type::I128, vec![ConstValue::I(i128::MIN), ConstValue::I(1 << 100)]);
    assert_eq!(value(&m, &[Value::I128(i128::MIN)]), Value::I32(1));
    assert_eq!(value(&m, &[Value::I128(1 << 100)]), Value::I32(2));
    assert_eq!(value(&m, &[Value::I128(1 << 64)]), Value::I32(0));
    let m = switch(Type::Bool, vec![ConstValue::Bool(true)]);
    assert_eq!(value(&m, &[Value::Bool(true)]), Value::I32(1));
    assert_eq!(value(&m, &[Value::Bool(false)]), Value::I32(0));
    let m = switch(Type::U32, vec![]);
    assert_eq!(value(&m, &[Value::U32(3)]), Value::I32(0));
}

#[test]
fn trap_and_trap_if() {
    let m = function(&[Type::Bool], Type::I32, |f, p| {
        f.trap_if(p[0], "bad \"input\"");
        let ok = f.create_block("ok");
        f.br(ok);
        f.set_insert_point(ok);
        f.trap("unreachable code");
        None
    });
    let t = trap(&m, &[Value::Bool(true)]);
    assert_eq!(t.reason, TrapReason::Explicit("bad \"input\"".into()));
    assert_eq!((t.site.block.as_u32(), t.site.inst, t.site.value, t.steps), (0, 0, None, 1));
    assert_eq!(t.to_string(), "trap at @f0 %b0 instruction 0: \"bad \\\"input\\\"\" (after 1 steps)");
    let t = trap(&m, &[Value::Bool(false)]);
    assert_eq!(t.reason, TrapReason::Explicit("unreachable code".into()));
    assert_eq!((t.site.block.as_u32(), t.site.inst, t.steps), (1, 0, 3));
}

#[test]
fn constants_const_decls_and_globals() {
    let mut mb = builder();
    let limit = mb.add_global("LIMIT", Type::I64, ConstValue::I(10), 8);
    let mut f = mb.begin_function("f", vec![], Type::I64);
    let expr = ConstExpr {
        ty: Type::I64,
        kind: ir::ConstExprKind::Binary {
            op: ir::ConstBinOp::Add,
            lhs: Box::new(ConstExpr { ty: Type::I64, kind: ir::ConstExprKind::Reference(ir::ConstRef::Global(limit)) }),
            rhs: Box::new(ConstExpr::literal(Type::I64, ConstValue::I(1))),
        },
    };
    let k = f.const_decl("k", expr, ConstValue::I(11));
    let wide = f.const_u128(u128::MAX);
    let narrow = f.cast(ir::CastOp::Trunc, wide, Type::U8);
    let widened = f.cast(ir::CastOp::Zext, narrow, Type::I64);
    let sum = f.add(Type::I64, k, widened);
    f.ret(Some(sum));
    f.finish();
    let m = mb.finish();
    ir::verify_module(&m).unwrap();
    let out = interp(&m).call("f", &[]).unwrap();
    assert_eq!(out.value, Some(Value::I64(11 + 255)));
    // Constants and const_decls count as steps although they are never executed one by one.
    assert_eq!(out.steps, 6);
}

#[test]
fn mov_extract_and_aggregates_as_values() {
    let tuple = Type::Tuple(vec![Type::U16, Type::Bool]);
    let m = function(&[Type::U16, Type::U16], Type::Bool, |f, p| {
        let r = f.checked(CheckedOp::UAdd, Type::U16, p[0], p[1]);
        let moved = f.mov(tuple.clone(), r);
        Some(f.extract(tuple, Type::Bool, moved, 1))
    });
    assert_eq!(value(&m, &[Value::U16(u16::MAX), Value::U16(1)]), Value::Bool(true));
    assert_eq!(value(&m, &[Value::U16(1), Value::U16(1)]), Value::Bool(false));
}

#[test]
fn step_counts_are_exact() {
    // 3 steps: add, add, ret.
    let m = function(&[Type::I64], Type::I64, |f, p| {
        let a = f.add(Type::I64, p[0], p[0]);
        Some(f.add(Type::I64, a, a))
    });
    assert_eq!(run(&m, &[Value::I64(1)]).unwrap().steps, 3);
    // A loop of n iterations: entry (const, br) 2, header (phi, icmp, cbr) 3 per
    // test, body (add, br) 2 per iteration, exit (ret) 1.
    let m = function(&[Type::U32], Type::U32, |f, p| {
        let entry = f.entry_block();
        let head = f.create_block("head");
        let body = f.create_block("body");
        let exit = f.create_block("exit");
        let zero = f.const_u32(0);
        f.br(head);
        f.set_insert_point(head);
        let i = f.phi(Type::U32, &[(zero, entry)]);
        let more = f.icmp(ICmpPred::Ult, Type::U32, i, p[0]);
        f.cbr(more, body, exit);
        f.set_insert_point(body);
        let one = f.const_u32(1);
        let next = f.bin(BinOp::Add, Type::U32, i, one);
        f.add_phi_input(i, next, body);
        f.br(head);
        f.set_insert_point(exit);
        Some(i)
    });
    for n in [0u32, 1, 7] {
        let out = run(&m, &[Value::U32(n)]).unwrap();
        assert_eq!(out.value, Some(Value::U32(n)));
        assert_eq!(out.steps, 2 + 3 * u64::from(n + 1) + 3 * u64::from(n) + 1, "n = {n}");
    }
}

#[test]
fn api_misuse_is_reported() {
    let m = function(&[Type::I32], Type::I32, |_, p| Some(p[0]));
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    assert_eq!(i.call("g", &[]), Err(ExecError::UnknownFunctionName("g".into())));
    assert_eq!(i.call(ir::FunctionId::from_u32(9), &[]), Err(ExecError::UnknownFunction(ir::FunctionId::from_u32(9))));
    assert_eq!(i.call("f", &[]), Err(ExecError::ArgumentCount { expected: 1, got: 0 }));
    assert_eq!(i.call("f", &[Value::I64(1)]), Err(ExecError::ArgumentType { index: 0, expected: "i32".into() }));
    assert_eq!(i.call("f", &[Value::I32(4)]).unwrap().value, Some(Value::I32(4)));
    assert_eq!(i.call(ir::FunctionId::from_u32(0), &[Value::I32(5)]).unwrap().value, Some(Value::I32(5)));
    let m = function(&[Type::I1], Type::Void, |_, _| None);
    assert!(matches!(run(&m, &[Value::I1(1)]), Err(ExecError::ArgumentType { .. })));
    assert_eq!(run(&m, &[Value::I1(-1)]).unwrap().value, None);
    // A module that does not verify is refused.
    let mut mb = builder();
    let mut f = mb.begin_function("f", vec![], Type::I32);
    let x = f.const_i64(1);
    f.ret(Some(x));
    f.finish();
    assert!(matches!(Interpreter::new(&mb.finish(), Options::default()), Err(interp::LoadError::Verify(_))));
}

#[test]
fn functions_too_large_to_translate_are_reported_when_called() {
    // A value of 100,000 slots cannot live in a frame; the other function still runs.
    let big = Type::array(Type::U64, 100_000);
    let mut mb = builder();
    let mut f = mb.begin_function("copy", vec![("p".into(), Type::ptr(big.clone()))], Type::Void);
    let p = f.param_value(0);
    let v = f.load(big.clone(), p, 8);
    f.store(big, v, p, 8);
    f.ret(None);
    f.finish();
    let mut f = mb.begin_function("f", vec![], Type::I32);
    let one = f.const_i32(1);
    f.ret(Some(one));
    f.finish();
    let m = mb.finish();
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    assert_eq!(i.call("f", &[]).unwrap().value, Some(Value::I32(1)));
    let e = i.call("copy", &[Value::Ptr(interp::Pointer::NULL)]).unwrap_err();
    let ExecError::Unsupported { reason, .. } = &e else { panic!("{e}") };
    assert!(reason.contains("array<u64, 100000>"), "{reason}");
}
