//! Acceptance tests of the verifier (whale-upstream §d): one minimal failing module per `VerifyError` variant
//! reachable through the public builder API, every fixed phi reason, dominance, calls and declarations, the F3 cast
//! table, checked arithmetic, gep, switch, alignment, layout and `undef` rules, builder misuse, and the tricky valid
//! cases (loop and self-loop phis, repeated edges, unreachable blocks).
//!
//! Variants the builder cannot construct (an entry block outside the function, a block of another function, a
//! terminator in the middle of a block, a result type that disagrees with its instruction, and the call and
//! declaration errors the builder's checked APIs refuse) are tested where the builder refuses them (its `Err`), and
//! again on hand-edited modules in the unit tests of `ir/src/verifier/{structure,module_rules,operands}.rs`.

use ir::{
    verify_module, verify_module_all, BinOp, BlockId, BuildError, CallError, Callee, CallingConvention, CastOp,
    CheckedOp, CmpOp, ConstBinOp, ConstCmpOp, ConstEvalError, ConstExpr, ConstExprKind, ConstRef, ConstValue,
    DataLayout, Endian, FCmpPred, FloatBits, FunctionBuilder, FunctionId, FunctionSignature, GlobalId, ICmpPred,
    InstId, LayoutError, Linkage, Module, ModuleBuilder, Opcode, TargetError, Type, ValueId, VerifyError,
};

const TARGET: &str = "x86_64-whale-linux";
const GENERIC_SIGNATURE: &str = "void parameters, malformed types and variadic calls are unsupported";
const SYSV64_AGGREGATE: &str = "SysV64 aggregate signatures are unsupported";

fn builder() -> ModuleBuilder {
    ModuleBuilder::new(TARGET, DataLayout::default_64bit_le())
}

fn v(n: u32) -> ValueId {
    ValueId::from_u32(n)
}

fn b(n: u32) -> BlockId {
    BlockId::from_u32(n)
}

fn func_id(n: u32) -> FunctionId {
    FunctionId::from_u32(n)
}

fn params(list: &[(&str, Type)]) -> Vec<(String, Type)> {
    list.iter().map(|(name, ty)| (name.to_string(), ty.clone())).collect()
}

/// A module holding one function `f(params) -> ret` built by `body`; `body`'s result is returned beside it.
fn single<R>(list: &[(&str, Type)], ret: Type, body: impl FnOnce(&mut FunctionBuilder<'_>) -> R) -> (Module, R) {
    let mut mb = builder();
    let mut f = mb.begin_function("f", params(list), ret);
    let result = body(&mut f);
    f.finish();
    (mb.finish(), result)
}

/// Every error of `m`, after checking that `verify_module` reports the first of them.
fn errors(m: &Module) -> Vec<VerifyError> {
    let all = match verify_module_all(m) {
        Ok(()) => Vec::new(),
        Err(all) => {
            assert!(!all.is_empty(), "verify_module_all returned Err with no errors");
            all
        }
    };
    assert_eq!(verify_module(m).err(), all.first().cloned());
    all
}

fn assert_valid(m: &Module) {
    assert_eq!(errors(m), Vec::new());
}

/// Errors of a void function `f(params)` built by `body`; an open current block gets `ret void`.
fn body_errors(list: &[(&str, Type)], body: impl FnOnce(&mut FunctionBuilder<'_>)) -> Vec<VerifyError> {
    let (m, ()) = single(list, Type::Void, |f| {
        body(f);
        if !f.is_current_block_terminated() {
            f.ret(None);
        }
    });
    errors(&m)
}

/// The instruction defining `value`.
fn def(m: &Module, value: ValueId) -> InstId {
    let f = m.function_at(0);
    (0..f.inst_count() as u32)
        .map(InstId::from_u32)
        .find(|&i| f.inst_result(i) == Some(value))
        .unwrap_or_else(|| panic!("{value} is not defined"))
}

/// The last instruction (the terminator) of `block` (builder modules number
/// blocks module-wide, so the first function that has it is its own).
fn last(m: &Module, block: BlockId) -> InstId {
    let f = m.functions().find(|f| f.has_block(block)).expect("a function has the block");
    f.block_insts(block).next_back().expect("block has instructions")
}

/// Asserts that `errors` is exactly one error matching the pattern.
macro_rules! assert_only {
    ($errors:expr, $pattern:pat $(if $guard:expr)?) => {{
        let errors = $errors;
        assert!(matches!(errors.as_slice(), [$pattern] $(if $guard)?), "unexpected errors: {errors:#?}");
    }};
}

fn string(s: &str) -> String {
    s.to_string()
}

// ---- builder misuse (BuildError) ---------------------------------------------------------------------------------

#[test]
fn second_terminator_is_reported_before_everything_else() {
    let mut mb = ModuleBuilder::new("no-such-target", DataLayout::default_64bit_le());
    let mut f = mb.begin_function("f", vec![], Type::Void);
    f.ret(None);
    f.trap("again");
    f.finish();
    let m = mb.finish();
    assert_eq!(
        errors(&m),
        vec![
            VerifyError::Build(BuildError::SecondTerminator { func: string("f"), block: b(0), op: Opcode::Trap }),
            VerifyError::Target(TargetError::UnsupportedTarget(string("no-such-target"))),
        ]
    );
    // The rejected terminator was not added: the block still ends with its `ret`.
    assert_eq!(m.function_at(0).block_insts(b(0)).len(), 1);
}

#[test]
fn instruction_after_terminator_is_a_build_error_and_not_added() {
    let (m, late) = single(&[], Type::Void, |f| {
        f.ret(None);
        f.const_i32(1)
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::Build(BuildError::InstructionAfterTerminator {
            func: string("f"),
            block: b(0),
            op: Opcode::Const
        })]
    );
    assert_eq!(m.function_at(0).value_type(late), None);
    assert_eq!(m.inst_count(), 1);
}

#[test]
fn try_terminators_return_misuse_without_recording_it() {
    let (m, results) = single(&[("c", Type::Bool)], Type::Void, |f| {
        let (c, entry) = (f.param_value(0), f.entry_block());
        f.ret(None);
        vec![f.try_br(entry), f.try_cbr(c, entry, entry), f.try_switch(c, entry, &[]), f.try_ret(None), f.try_trap("x")]
    });
    let ops = [Opcode::Br, Opcode::Cbr, Opcode::Switch, Opcode::Ret, Opcode::Trap];
    for (result, op) in results.into_iter().zip(ops) {
        assert_eq!(result, Err(BuildError::SecondTerminator { func: string("f"), block: b(0), op }));
    }
    assert!(m.build_errors().is_empty());
    assert_valid(&m);
}

#[test]
fn other_builder_misuse_is_reported() {
    let mut mb = builder();
    let mut a = mb.begin_function("a", vec![], Type::Void);
    a.ret(None);
    a.finish();
    let mut g = mb.begin_function("g", params(&[("x", Type::I32)]), Type::Void);
    let x = g.param_value(0);
    g.set_insert_point(b(0)); // the entry of `a`
    assert_eq!(g.current_block(), b(1));
    g.add_phi_input(x, x, b(1));
    let slot = g.alloca(Type::I32, 4);
    g.store(Type::I64, x, slot, 4); // the store itself is added, typed by its operand
    g.ret(None);
    g.finish();
    let m = mb.finish();
    assert_eq!(
        errors(&m),
        vec![
            VerifyError::Build(BuildError::ForeignBlock { func: string("g"), block: b(0) }),
            VerifyError::Build(BuildError::NotAPhi { func: string("g"), value: x }),
            VerifyError::Build(BuildError::AnnotationMismatch {
                func: string("g"),
                op: Opcode::Store,
                value: x,
                annotated: Type::I64,
                actual: Type::I32,
            }),
        ]
    );
}

// ---- F4 pre-pass: undef and memory layouts ---------------------------------------------------------------------------

#[test]
fn undef_is_forbidden() {
    let (m, u) = single(&[], Type::I32, |f| {
        let u = f.undef(Type::I32);
        f.ret(Some(u));
        u
    });
    assert_eq!(errors(&m), vec![VerifyError::ForbiddenUndef { func: string("f"), value: u, inst: def(&m, u) }]);
}

#[test]
fn memory_operations_need_a_storage_layout() {
    let huge = Type::array(Type::U64, u64::MAX);
    let (m, insts) = single(&[("p", Type::ptr(huge.clone()))], Type::Void, |f| {
        let p = f.param_value(0);
        let a = f.alloca(huge.clone(), 8);
        let l = f.load(huge.clone(), p, 8);
        f.store(huge.clone(), l, p, 8);
        let zero = f.const_i64(0);
        let g = f.gep(Type::ptr(Type::U64), p, &[zero, zero]);
        f.uninit(huge.clone(), p, 8);
        f.ret(None);
        [a, l, g]
    });
    let entry: Vec<InstId> = m.function_at(0).block_insts(b(0)).collect();
    let expected = [("alloca", def(&m, insts[0])), ("load", def(&m, insts[1])), ("store", entry[2])]
        .into_iter()
        .chain([("gep", def(&m, insts[2])), ("uninit", entry[5])])
        .map(|(operation, inst)| VerifyError::InvalidMemoryLayout {
            func: string("f"),
            operation,
            reason: LayoutError::Overflow,
            inst,
        })
        .collect::<Vec<_>>();
    assert_eq!(errors(&m), expected);
}

#[test]
fn layout_nesting_limit_is_reported_not_overflowed() {
    let mut deep = Type::U8;
    for _ in 0..200 {
        deep = Type::array(deep, 1);
    }
    assert_only!(
        body_errors(&[], |f| {
            f.alloca(deep, 1);
        }),
        VerifyError::InvalidMemoryLayout { operation: "alloca", reason: LayoutError::DepthLimit, .. }
    );
    // `void` has no layout either, but is reported by the operand rules.
    assert_only!(
        body_errors(&[], |f| {
            f.alloca(Type::Void, 1);
        }),
        VerifyError::InvalidInstructionType { operation: "alloca", ty: Type::Void, .. }
    );
}

// ---- target ----------------------------------------------------------------------------------------------------------

#[test]
fn target_must_be_known_with_its_own_layout() {
    let m = ModuleBuilder::new("riscv64-unknown", DataLayout::default_64bit_le()).finish();
    assert_eq!(errors(&m), vec![VerifyError::Target(TargetError::UnsupportedTarget(string("riscv64-unknown")))]);
    for actual in
        [DataLayout { pointer_bits: 32, endian: Endian::Little }, DataLayout { pointer_bits: 64, endian: Endian::Big }]
    {
        let m = ModuleBuilder::new(TARGET, actual).finish();
        assert_eq!(
            errors(&m),
            vec![VerifyError::Target(TargetError::LayoutMismatch {
                target: string(TARGET),
                expected: DataLayout::default_64bit_le(),
                actual,
            })]
        );
    }
}

// ---- globals and constant expressions ------------------------------------------------------------------------------

fn lit(ty: Type, value: ConstValue) -> Box<ConstExpr> {
    Box::new(ConstExpr::literal(ty, value))
}

fn global_ref(ty: Type, id: u32) -> Box<ConstExpr> {
    Box::new(ConstExpr { ty, kind: ConstExprKind::Reference(ConstRef::Global(GlobalId::from_u32(id))) })
}

fn local_ref(ty: Type, value: ValueId) -> Box<ConstExpr> {
    Box::new(ConstExpr { ty, kind: ConstExprKind::Reference(ConstRef::Local(value)) })
}

fn add(ty: Type, lhs: Box<ConstExpr>, rhs: Box<ConstExpr>) -> ConstExpr {
    ConstExpr { ty, kind: ConstExprKind::Binary { op: ConstBinOp::Add, lhs, rhs } }
}

#[test]
fn duplicate_global() {
    let mut mb = builder();
    mb.add_global("g", Type::I32, ConstValue::I(1), 4);
    mb.add_global("g", Type::I32, ConstValue::I(2), 4);
    assert_eq!(errors(&mb.finish()), vec![VerifyError::DuplicateGlobal { name: string("g") }]);
}

#[test]
fn global_initializer_must_fit_its_type() {
    for (ty, payload) in [
        (Type::I8, ConstValue::I(300)),
        (Type::U32, ConstValue::I(1)),
        (Type::F64, ConstValue::F(FloatBits::F32(0))),
        (Type::Bool, ConstValue::U(1)),
    ] {
        let mut mb = builder();
        mb.add_global("g", ty.clone(), payload, 8);
        assert_eq!(
            errors(&mb.finish()),
            vec![
                VerifyError::InvalidGlobalInitializer { name: string("g"), ty: ty.clone(), payload },
                VerifyError::InvalidConstExpression {
                    scope: string("module"),
                    declaration: string("g"),
                    reason: Box::new(ConstEvalError::InvalidLiteral { ty, value: payload }),
                },
            ]
        );
    }
}

#[test]
fn global_alignment_must_be_a_power_of_two() {
    let mut mb = builder();
    mb.add_global("zero", Type::I32, ConstValue::I(0), 0);
    mb.add_global("three", Type::I32, ConstValue::I(0), 3);
    mb.add_global("big", Type::I32, ConstValue::I(0), 1 << 31);
    assert_eq!(
        errors(&mb.finish()),
        vec![
            VerifyError::InvalidGlobalAlignment { name: string("zero"), align: 0 },
            VerifyError::InvalidGlobalAlignment { name: string("three"), align: 3 },
        ]
    );
}

#[test]
fn global_constant_expressions_are_reevaluated() {
    let module_error = |declaration: &str, reason| VerifyError::InvalidConstExpression {
        scope: string("module"),
        declaration: string(declaration),
        reason: Box::new(reason),
    };
    // Recorded value differs from the evaluation.
    let mut mb = builder();
    let expression = add(Type::I32, lit(Type::I32, ConstValue::I(1)), lit(Type::I32, ConstValue::I(2)));
    mb.add_global_const("sum", expression, ConstValue::I(4), 4);
    assert_eq!(
        errors(&mb.finish()),
        vec![module_error(
            "sum",
            ConstEvalError::ResultMismatch { evaluated: ConstValue::I(3), recorded: ConstValue::I(4) }
        )]
    );
    // Unknown reference.
    let mut mb = builder();
    mb.add_global_const("r", *global_ref(Type::I32, 9), ConstValue::I(0), 4);
    assert_eq!(errors(&mb.finish()), vec![module_error("r", ConstEvalError::UnknownReference(string("@g9")))]);
    // A reference whose type is not the referenced global's.
    let mut mb = builder();
    mb.add_global("narrow", Type::I32, ConstValue::I(7), 4);
    mb.add_global_const("wide", *global_ref(Type::I64, 0), ConstValue::I(7), 8);
    assert_eq!(
        errors(&mb.finish()),
        vec![module_error("wide", ConstEvalError::TypeMismatch { expected: Type::I64, found: Type::I32 })]
    );
    // A cycle: both globals are reported.
    let mut mb = builder();
    mb.add_global_const("a", *global_ref(Type::I32, 1), ConstValue::I(0), 4);
    mb.add_global_const("b", *global_ref(Type::I32, 0), ConstValue::I(0), 4);
    let errs = errors(&mb.finish());
    assert!(
        matches!(
            errs.as_slice(),
            [
                VerifyError::InvalidConstExpression { declaration: a, reason: ra, .. },
                VerifyError::InvalidConstExpression { declaration: b, reason: rb, .. },
            ] if a == "a" && b == "b"
                && matches!(**ra, ConstEvalError::CyclicReference(_))
                && matches!(**rb, ConstEvalError::CyclicReference(_))
        ),
        "{errs:#?}"
    );
}

#[test]
fn globals_may_reference_later_globals_and_share_names_with_functions() {
    let mut mb = builder();
    let compare = ConstExpr {
        ty: Type::Bool,
        kind: ConstExprKind::Compare {
            op: ConstCmpOp::Lt,
            lhs: global_ref(Type::I32, 1),
            rhs: lit(Type::I32, ConstValue::I(8)),
        },
    };
    mb.add_global_const(
        "first",
        add(Type::I32, global_ref(Type::I32, 1), lit(Type::I32, ConstValue::I(1))),
        ConstValue::I(8),
        4,
    );
    mb.add_global("f", Type::I32, ConstValue::I(7), 4);
    mb.add_global_const("less", compare, ConstValue::Bool(true), 1);
    let mut f = mb.begin_function("f", vec![], Type::Void);
    f.ret(None);
    f.finish();
    assert_valid(&mb.finish());
}

#[test]
fn local_constant_declarations_are_reevaluated() {
    // Recorded value differs.
    let (m, ()) = single(&[], Type::I32, |f| {
        let two = f.const_i32(2);
        let k = f.const_decl(
            "k",
            add(Type::I32, local_ref(Type::I32, two), lit(Type::I32, ConstValue::I(1))),
            ConstValue::I(4),
        );
        f.ret(Some(k));
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::InvalidConstExpression {
            scope: string("f"),
            declaration: string("k"),
            reason: Box::new(ConstEvalError::ResultMismatch {
                evaluated: ConstValue::I(3),
                recorded: ConstValue::I(4)
            }),
        }]
    );
    // A reference to a value that is not a constant of this function.
    let (m, ()) = single(&[("x", Type::I32)], Type::I32, |f| {
        let x = f.param_value(0);
        let k = f.const_decl("k", *local_ref(Type::I32, x), ConstValue::I(0));
        f.ret(Some(k));
    });
    assert_only!(
        errors(&m),
        VerifyError::InvalidConstExpression { reason, .. } if matches!(**reason, ConstEvalError::UnknownReference(_))
    );
    // Two declarations referring to each other (the forward reference also breaks dominance).
    let (m, ()) = single(&[], Type::I32, |f| {
        let first = f.const_decl("first", *local_ref(Type::I32, v(1)), ConstValue::I(0));
        let second = f.const_decl("second", *local_ref(Type::I32, first), ConstValue::I(0));
        assert_eq!(second, v(1));
        f.ret(Some(second));
    });
    let errs = errors(&m);
    assert!(
        errs.iter().any(|e| matches!(
            e,
            VerifyError::InvalidConstExpression { reason, .. } if matches!(**reason, ConstEvalError::CyclicReference(_))
        )),
        "{errs:#?}"
    );
    assert!(errs.iter().any(|e| matches!(e, VerifyError::NonDominatingValue { value, .. } if *value == v(1))));
}

#[test]
fn local_constant_declarations_may_reference_globals_and_locals() {
    let mut mb = builder();
    mb.add_global("g", Type::I32, ConstValue::I(40), 4);
    let mut f = mb.begin_function("f", vec![], Type::I32);
    let two = f.const_i32(2);
    let half =
        f.const_decl("half", add(Type::I32, global_ref(Type::I32, 0), local_ref(Type::I32, two)), ConstValue::I(42));
    let sum = f.const_decl(
        "sum",
        add(Type::I32, local_ref(Type::I32, half), lit(Type::I32, ConstValue::I(-2))),
        ConstValue::I(40),
    );
    f.ret(Some(sum));
    f.finish();
    assert_valid(&mb.finish());
}

// ---- functions, declarations and definitions -----------------------------------------------------------------------

#[test]
fn duplicate_function_bodies() {
    let mut mb = builder();
    for _ in 0..2 {
        let mut f = mb.begin_function("f", vec![], Type::Void);
        f.ret(None);
        f.finish();
    }
    assert_eq!(
        errors(&mb.finish()),
        vec![
            VerifyError::DuplicateFunction { name: string("f") },
            VerifyError::Call { func: string("f"), reason: CallError::ConflictingDeclaration(string("f")), inst: None },
        ]
    );
}

#[test]
fn void_parameter() {
    let (m, ()) = single(&[("x", Type::Void)], Type::Void, |f| f.ret(None));
    assert_eq!(
        errors(&m),
        vec![
            VerifyError::Call {
                func: string("f"),
                reason: CallError::InvalidSignature(string(GENERIC_SIGNATURE)),
                inst: None
            },
            VerifyError::VoidParameter { func: string("f"), param: 0 },
        ]
    );
}

#[test]
fn internal_declaration_needs_a_definition() {
    let mut mb = builder();
    mb.declare_function("g", FunctionSignature::whale(vec![], Type::I32), Linkage::Internal, None).unwrap();
    assert_eq!(
        errors(&mb.finish()),
        vec![VerifyError::Call { func: string("g"), reason: CallError::MissingDefinition(func_id(0)), inst: None }]
    );
}

#[test]
fn conflicting_declaration_reaches_the_verifier_through_begin_function() {
    // `begin_function` does not deduplicate declarations (upstream F2), so a name declared
    // with `declare_function` and then defined with `begin_function` is declared twice.
    let mut mb = builder();
    let sig = FunctionSignature::whale(vec![], Type::Void);
    mb.declare_function("f", sig, Linkage::External, Some(string("f_ext"))).unwrap();
    let mut f = mb.begin_function("f", vec![], Type::Void);
    f.ret(None);
    f.finish();
    assert_eq!(
        errors(&mb.finish()),
        vec![VerifyError::Call {
            func: string("f"),
            reason: CallError::ConflictingDeclaration(string("f")),
            inst: None
        }]
    );
}

#[test]
fn malformed_function_pointer_types_are_rejected_even_unused() {
    let variadic = FunctionSignature { variadic: true, ..FunctionSignature::whale(vec![Type::I32], Type::Void) };
    let errs = body_errors(&[], |f| {
        f.alloca(Type::fn_ptr(variadic), 8);
    });
    assert_eq!(
        errs,
        vec![VerifyError::Call {
            func: string("f"),
            reason: CallError::InvalidSignature(string(
                "malformed function pointer type ptr<fnptr<whale (i32, ...) -> void>>"
            )),
            inst: None,
        }]
    );
}

#[test]
fn declarations_and_calls_refused_by_the_builder() {
    // These `CallError`s come from the builder's checked APIs, which refuse the declaration or call:
    // InvalidSignature, ConflictingDeclaration, LinkNameCollision, InvalidLinkName, UnknownFunctionName,
    // UnknownFunction, DuplicateDefinition, DefinitionMismatch, ArgumentCount, ArgumentType, NotFunctionPointer and
    // UnknownValue. The verifier's side of each is tested on hand-edited modules in the unit tests of
    // `verifier/module_rules.rs` and `verifier/operands.rs`.
    let mut mb = builder();
    let sig = FunctionSignature::whale(vec![Type::I32], Type::I32);
    let g = mb.declare_function("g", sig.clone(), Linkage::External, Some(string("g_impl"))).unwrap();
    assert_eq!(mb.declare_function("g", sig.clone(), Linkage::External, Some(string("g_impl"))), Ok(g));
    let variadic = FunctionSignature { variadic: true, ..FunctionSignature::whale(vec![Type::I32], Type::Void) };
    assert_eq!(
        mb.declare_function("v", variadic.clone(), Linkage::Internal, None),
        Err(CallError::InvalidSignature(string(GENERIC_SIGNATURE)))
    );
    let void_param = FunctionSignature::whale(vec![Type::Void], Type::Void);
    assert_eq!(
        mb.declare_function("w", void_param, Linkage::Internal, None),
        Err(CallError::InvalidSignature(string(GENERIC_SIGNATURE)))
    );
    let aggregate = FunctionSignature {
        params: vec![Type::Struct(vec![Type::I32])],
        ret: Type::Void,
        convention: CallingConvention::SysV64,
        variadic: false,
    };
    assert_eq!(
        mb.declare_function("s", aggregate, Linkage::External, Some(string("s"))),
        Err(CallError::InvalidSignature(string(SYSV64_AGGREGATE)))
    );
    let other = FunctionSignature::whale(vec![], Type::I32);
    assert_eq!(
        mb.declare_function("g", other.clone(), Linkage::External, Some(string("g_impl"))),
        Err(CallError::ConflictingDeclaration(string("g")))
    );
    assert_eq!(
        mb.declare_function("h", other.clone(), Linkage::External, Some(string("g_impl"))),
        Err(CallError::LinkNameCollision(string("g_impl")))
    );
    for (linkage, link) in [
        (Linkage::External, None),
        (Linkage::External, Some("")),
        (Linkage::External, Some("a\0b")),
        (Linkage::Internal, Some("x")),
    ] {
        assert_eq!(
            mb.declare_function("l", other.clone(), linkage, link.map(string)),
            Err(CallError::InvalidLinkName(string("l")))
        );
    }
    assert_eq!(mb.function_id("nope"), Err(CallError::UnknownFunctionName(string("nope"))));
    assert_eq!(mb.function_id("g"), Ok(g));
    assert_eq!(mb.begin_declared_function(func_id(42), vec![]).err(), Some(CallError::UnknownFunction(func_id(42))));
    let k = mb.declare_function("k", sig.clone(), Linkage::External, Some(string("k"))).unwrap();
    assert_eq!(mb.begin_declared_function(k, vec![]).err(), Some(CallError::DefinitionMismatch(k)));

    // An external declaration may have a body.
    let mut f = mb.begin_declared_function(g, vec![string("x")]).unwrap();
    let x = f.param_value(0);
    let wide = f.const_i64(1);
    assert_eq!(f.call(Callee::Direct(func_id(42)), vec![x]), Err(CallError::UnknownFunction(func_id(42))));
    assert_eq!(f.function_addr(func_id(42)), Err(CallError::UnknownFunction(func_id(42))));
    assert_eq!(f.call(Callee::Direct(g), vec![]), Err(CallError::ArgumentCount { expected: 1, got: 0 }));
    assert_eq!(
        f.call(Callee::Direct(g), vec![wide]),
        Err(CallError::ArgumentType { index: 0, expected: Type::I32, got: Type::I64 })
    );
    assert_eq!(f.call(Callee::Direct(g), vec![v(999)]), Err(CallError::UnknownValue(v(999))));
    assert_eq!(f.call(Callee::Indirect(x), vec![]), Err(CallError::NotFunctionPointer(x)));
    assert_eq!(f.call(Callee::Indirect(v(999)), vec![]), Err(CallError::UnknownValue(v(999))));
    assert_eq!(f.null_function(variadic), Err(CallError::InvalidSignature(string(GENERIC_SIGNATURE))));
    assert_eq!(f.callee_signature(&Callee::Direct(g)), Ok(sig));
    // Rejected calls appended nothing and consumed no id.
    let next = f.const_i32(0);
    assert_eq!(next, v(wide.as_u32() + 1));
    f.ret(Some(x));
    f.finish();
    assert_eq!(mb.begin_declared_function(g, vec![string("x")]).err(), Some(CallError::DuplicateDefinition(g)));
    assert_valid(&mb.finish());
}

#[test]
fn valid_declarations_and_calls() {
    let mut mb = builder();
    let sysv = FunctionSignature {
        params: vec![Type::ptr(Type::U8)],
        ret: Type::I32,
        convention: CallingConvention::SysV64,
        variadic: false,
    };
    let puts = mb.declare_function("puts", sysv.clone(), Linkage::External, Some(string("puts"))).unwrap();
    let log = mb
        .declare_function(
            "log",
            FunctionSignature { params: vec![Type::I64], ret: Type::Void, ..sysv.clone() },
            Linkage::External,
            Some(string("whale_log")),
        )
        .unwrap();
    let helper =
        mb.declare_function("helper", FunctionSignature::whale(vec![], Type::Void), Linkage::Internal, None).unwrap();
    let mut f =
        mb.begin_function("main", params(&[("s", Type::ptr(Type::U8)), ("cb", Type::fn_ptr(sysv.clone()))]), Type::I32);
    let (s, cb) = (f.param_value(0), f.param_value(1));
    let direct = f.call(Callee::Direct(puts), vec![s]).unwrap().expect("non-void call has a result");
    let through_param = f.call(Callee::Indirect(cb), vec![s]).unwrap().unwrap();
    let address = f.function_addr(puts).unwrap();
    let indirect = f.call(Callee::Indirect(address), vec![s]).unwrap().unwrap();
    let wide = f.cast(CastOp::Sext, indirect, Type::I64);
    assert_eq!(f.call(Callee::Direct(log), vec![wide]), Ok(None));
    assert_eq!(f.call(Callee::Direct(helper), vec![]), Ok(None));
    let null = f.null_function(sysv.clone()).unwrap();
    let same = f.cmp(CmpOp::Eq, Type::I32, direct, through_param);
    f.select(Type::fn_ptr(sysv), same, null, address);
    f.ret(Some(direct));
    f.finish();
    let mut h = mb.begin_declared_function(helper, vec![]).unwrap();
    h.ret(None);
    h.finish();
    assert_valid(&mb.finish());
}

#[test]
fn function_pointer_casts_are_forbidden() {
    let sig = FunctionSignature::whale(vec![], Type::Void);
    let fnptr = Type::fn_ptr(sig);
    for (from, op, to) in [
        (fnptr.clone(), CastOp::Bitcast, Type::ptr(Type::U8)),
        (fnptr.clone(), CastOp::Ptrtoint, Type::U64),
        (Type::U64, CastOp::Inttoptr, fnptr.clone()),
        (Type::ptr(Type::U8), CastOp::Bitcast, fnptr.clone()),
    ] {
        let (m, result) = single(&[("x", from)], Type::Void, |f| {
            let x = f.param_value(0);
            let r = f.cast(op, x, to);
            f.ret(None);
            r
        });
        assert_eq!(
            errors(&m),
            vec![VerifyError::Call {
                func: string("f"),
                reason: CallError::ForbiddenFunctionPointerCast,
                inst: Some(def(&m, result)),
            }]
        );
    }
}

// ---- structure: terminators, targets, operands, constants, conditions, returns -------------------------------------

#[test]
fn unterminated_blocks() {
    let (m, ()) = single(&[], Type::Void, |_| {});
    assert_eq!(
        errors(&m),
        vec![VerifyError::UnterminatedBlock { func: string("f"), block: b(0), name: string("entry") }]
    );
    let (m, dead) = single(&[], Type::Void, |f| {
        let dead = f.create_block("dead");
        f.ret(None);
        dead
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::UnterminatedBlock { func: string("f"), block: dead, name: string("dead") }]
    );
}

#[test]
fn branch_targets_must_be_blocks_of_the_function() {
    let (m, ()) = single(&[], Type::Void, |f| f.br(b(42)));
    assert_eq!(
        errors(&m),
        vec![VerifyError::InvalidBranchTarget { func: string("f"), block: b(0), target: b(42), inst: last(&m, b(0)) }]
    );
    // A block of another function, through cbr and switch too.
    let mut mb = builder();
    let mut a = mb.begin_function("a", vec![], Type::Void);
    a.ret(None);
    a.finish();
    let mut g = mb.begin_function("g", params(&[("c", Type::Bool)]), Type::Void);
    let c = g.param_value(0);
    let next = g.create_block("next");
    g.cbr(c, next, b(0));
    g.set_insert_point(next);
    g.switch(c, next, &[(ConstValue::Bool(true), b(0))]);
    g.finish();
    let m = mb.finish();
    assert_eq!(
        errors(&m),
        vec![
            VerifyError::InvalidBranchTarget { func: string("g"), block: b(1), target: b(0), inst: last(&m, b(1)) },
            VerifyError::InvalidBranchTarget { func: string("g"), block: next, target: b(0), inst: last(&m, next) },
        ]
    );
}

#[test]
fn operands_must_be_defined_in_the_function() {
    let mut mb = builder();
    let mut a = mb.begin_function("a", params(&[("x", Type::I32)]), Type::I32);
    let x = a.param_value(0);
    a.ret(Some(x));
    a.finish();
    let mut g = mb.begin_function("g", vec![], Type::I32);
    g.ret(Some(x));
    g.finish();
    let m = mb.finish();
    assert_eq!(
        errors(&m),
        vec![VerifyError::UseOfUndefinedValue { func: string("g"), value: x, inst: last(&m, b(1)) }]
    );
    // A value that exists nowhere is reported once, not also as a wrong return.
    let (m, ()) = single(&[], Type::I32, |f| f.ret(Some(v(99))));
    assert_eq!(
        errors(&m),
        vec![VerifyError::UseOfUndefinedValue { func: string("f"), value: v(99), inst: last(&m, b(0)) }]
    );
}

#[test]
fn constants_must_be_valid_for_their_type() {
    let cases: Vec<(Type, ConstValue)> = vec![
        (Type::I8, ConstValue::I(300)),
        (Type::I8, ConstValue::I(-129)),
        (Type::I1, ConstValue::I(1)),
        (Type::U1, ConstValue::U(2)),
        (Type::U8, ConstValue::U(256)),
        (Type::I32, ConstValue::U(1)),
        (Type::U32, ConstValue::I(1)),
        (Type::F64, ConstValue::F(FloatBits::F32(0))),
        (Type::F16, ConstValue::I(0)),
        (Type::Bool, ConstValue::U(1)),
        (Type::I32, ConstValue::Bool(false)),
        (Type::ptr(Type::I8), ConstValue::U(0)),
    ];
    for (ty, payload) in cases {
        let (m, value) = single(&[], Type::Void, |f| {
            let value = f.constant(ty.clone(), payload);
            f.ret(None);
            value
        });
        assert_eq!(
            errors(&m),
            vec![VerifyError::InvalidConstant { func: string("f"), value, ty, payload, inst: def(&m, value) }]
        );
    }
    // The extremes of every scalar type are valid.
    let (m, ()) = single(&[], Type::Void, |f| {
        f.const_bool(true);
        f.const_i1(-1);
        f.const_i1(0);
        f.const_i8(i8::MIN);
        f.const_i16(i16::MAX);
        f.const_i32(i32::MIN);
        f.const_i64(i64::MAX);
        f.const_i128(i128::MIN);
        f.const_i128(i128::MAX);
        f.const_u1(1);
        f.const_u8(u8::MAX);
        f.const_u16(u16::MAX);
        f.const_u32(u32::MAX);
        f.const_u64(u64::MAX);
        f.const_u128(u128::MAX);
        f.const_f16_bits(0x7e00);
        f.const_f32(-0.0);
        f.const_f64(f64::INFINITY);
        f.const_float(Type::F16, 1.5);
        f.const_int(Type::I16, -32768);
        f.const_uint(Type::U16, 65535);
        f.ret(None);
    });
    assert_valid(&m);
}

#[test]
fn conditions_must_be_bool() {
    let (m, ()) = single(&[("i", Type::I32), ("u", Type::U1), ("s", Type::I1)], Type::Void, |f| {
        let (i, u, s) = (f.param_value(0), f.param_value(1), f.param_value(2));
        f.select(Type::I32, u, i, i);
        f.trap_if(s, "never");
        let next = f.create_block("next");
        f.cbr(i, next, next);
        f.set_insert_point(next);
        f.ret(None);
    });
    let entry: Vec<InstId> = m.function_at(0).block_insts(b(0)).collect();
    assert_eq!(
        errors(&m),
        vec![
            VerifyError::ConditionTypeMismatch { func: string("f"), value: v(1), got: Type::U1, inst: entry[0] },
            VerifyError::ConditionTypeMismatch { func: string("f"), value: v(2), got: Type::I1, inst: entry[1] },
            VerifyError::ConditionTypeMismatch { func: string("f"), value: v(0), got: Type::I32, inst: entry[2] },
        ]
    );
}

#[test]
fn returns_must_match_the_function_type() {
    let (m, ()) = single(&[], Type::I32, |f| f.ret(None));
    assert_eq!(
        errors(&m),
        vec![VerifyError::RetTypeMismatch { func: string("f"), expected: Type::I32, got: None, inst: last(&m, b(0)) }]
    );
    let (m, ()) = single(&[("x", Type::I64)], Type::I32, |f| f.ret(Some(f.param_value(0))));
    assert_eq!(
        errors(&m),
        vec![VerifyError::RetTypeMismatch {
            func: string("f"),
            expected: Type::I32,
            got: Some(Type::I64),
            inst: last(&m, b(0))
        }]
    );
    let (m, ()) = single(&[("x", Type::I32)], Type::Void, |f| f.ret(Some(f.param_value(0))));
    assert_eq!(
        errors(&m),
        vec![VerifyError::RetTypeMismatch {
            func: string("f"),
            expected: Type::Void,
            got: Some(Type::I32),
            inst: last(&m, b(0))
        }]
    );
}

// ---- switch --------------------------------------------------------------------------------------------------------

fn switch_errors(ty: Type, cases: &[ConstValue]) -> Vec<VerifyError> {
    body_errors(&[("x", ty)], |f| {
        let x = f.param_value(0);
        let done = f.create_block("done");
        let cases: Vec<_> = cases.iter().map(|&k| (k, done)).collect();
        f.switch(x, done, &cases);
        f.set_insert_point(done);
    })
}

#[test]
fn switch_rules() {
    assert_only!(
        switch_errors(Type::F32, &[]),
        VerifyError::InvalidInstructionType { operation: "switch", ty: Type::F32, .. }
    );
    assert_only!(
        switch_errors(Type::ptr(Type::I8), &[]),
        VerifyError::InvalidInstructionType { operation: "switch", ty: Type::Ptr(_), .. }
    );
    let invalid =
        switch_errors(Type::I8, &[ConstValue::I(128), ConstValue::U(1), ConstValue::I(5), ConstValue::I(-128)]);
    assert!(
        matches!(
            invalid.as_slice(),
            [
                VerifyError::InvalidSwitchCase { index: 0, block, .. },
                VerifyError::InvalidSwitchCase { index: 1, .. },
            ] if *block == b(0)
        ),
        "{invalid:#?}"
    );
    assert_only!(
        switch_errors(Type::I32, &[ConstValue::I(1), ConstValue::I(2), ConstValue::I(1)]),
        VerifyError::DuplicateSwitchCase { index: 2, .. }
    );
    assert_only!(
        switch_errors(Type::Bool, &[ConstValue::Bool(true), ConstValue::Bool(true)]),
        VerifyError::DuplicateSwitchCase { index: 1, .. }
    );
    // Valid: bool, 128-bit extremes, no cases at all.
    assert_eq!(switch_errors(Type::Bool, &[ConstValue::Bool(false), ConstValue::Bool(true)]), vec![]);
    assert_eq!(switch_errors(Type::U128, &[ConstValue::U(u128::MAX), ConstValue::U(0)]), vec![]);
    assert_eq!(switch_errors(Type::I128, &[ConstValue::I(i128::MIN), ConstValue::I(-1)]), vec![]);
    assert_eq!(switch_errors(Type::U8, &[]), vec![]);
}

// ---- operation types -----------------------------------------------------------------------------------------------

#[test]
fn operations_are_defined_only_on_their_types() {
    let arith = |ty: Type, op: BinOp| {
        body_errors(&[("x", ty.clone())], |f| {
            let x = f.param_value(0);
            f.bin(op, ty, x, x);
        })
    };
    for (ty, op) in [
        (Type::F32, BinOp::Add),
        (Type::Bool, BinOp::Sub),
        (Type::ptr(Type::I8), BinOp::Mul),
        (Type::U32, BinOp::Sdiv),
        (Type::U32, BinOp::Srem),
        (Type::I32, BinOp::Udiv),
        (Type::I64, BinOp::Urem),
        (Type::I32, BinOp::Fadd),
        (Type::U8, BinOp::Frem),
        (Type::F64, BinOp::Shl),
        (Type::F64, BinOp::Xor),
    ] {
        let errs = arith(ty.clone(), op);
        assert_only!(errs, VerifyError::InvalidInstructionType { operation: "binary operation", ty: t, .. } if *t == ty);
    }
    assert_only!(
        body_errors(&[("x", Type::F32)], |f| {
            let x = f.param_value(0);
            f.not(Type::F32, x);
        }),
        VerifyError::InvalidInstructionType { operation: "not", ty: Type::F32, .. }
    );
    assert_only!(
        body_errors(&[("x", Type::Bool)], |f| {
            let x = f.param_value(0);
            f.not(Type::Bool, x);
        }),
        VerifyError::InvalidInstructionType { operation: "not", ty: Type::Bool, .. }
    );
    assert_only!(
        body_errors(&[("x", Type::I32)], |f| {
            let x = f.param_value(0);
            f.mov(Type::Void, x);
        }),
        VerifyError::InvalidInstructionType { operation: "mov", ty: Type::Void, .. }
    );
    assert_only!(
        body_errors(&[("c", Type::Bool), ("x", Type::I32)], |f| {
            let (c, x) = (f.param_value(0), f.param_value(1));
            f.select(Type::Void, c, x, x);
        }),
        VerifyError::InvalidInstructionType { operation: "select", ty: Type::Void, .. }
    );
    assert_only!(
        body_errors(&[("p", Type::ptr(Type::Void))], |f| {
            let p = f.param_value(0);
            f.load(Type::Void, p, 1);
        }),
        VerifyError::InvalidInstructionType { operation: "load", ty: Type::Void, .. }
    );
    assert_only!(
        body_errors(&[("p", Type::ptr(Type::Void))], |f| {
            let p = f.param_value(0);
            f.uninit(Type::Void, p, 1);
        }),
        VerifyError::InvalidInstructionType { operation: "uninit", ty: Type::Void, .. }
    );
    let store_void = body_errors(&[("p", Type::ptr(Type::Void))], |f| {
        let p = f.param_value(0);
        let nothing = f.constant(Type::Void, ConstValue::I(0));
        f.store(Type::Void, nothing, p, 1);
    });
    assert!(
        matches!(
            store_void.as_slice(),
            [
                VerifyError::InvalidConstant { ty: Type::Void, .. },
                VerifyError::InvalidInstructionType { operation: "store", ty: Type::Void, .. }
            ]
        ),
        "{store_void:#?}"
    );
}

#[test]
fn comparison_predicates_need_matching_operand_types() {
    let fnptr = Type::fn_ptr(FunctionSignature::whale(vec![], Type::Void));
    let cmp = |ty: Type, op: CmpOp| {
        body_errors(&[("x", ty.clone())], |f| {
            let x = f.param_value(0);
            f.cmp(op, ty, x, x);
        })
    };
    for (ty, op) in [
        (Type::U32, CmpOp::Slt),
        (Type::I32, CmpOp::Ult),
        (Type::F32, CmpOp::Eq),
        (Type::I32, CmpOp::Feq),
        (Type::Bool, CmpOp::Sgt),
        (fnptr.clone(), CmpOp::Eq),
        (Type::ptr(Type::I8), CmpOp::Ult),
        (Type::Struct(vec![]), CmpOp::Ne),
    ] {
        assert_only!(cmp(ty.clone(), op), VerifyError::InvalidInstructionType { operation: "comparison", ty: t, .. } if *t == ty);
    }
    for (ty, op) in [
        (Type::I8, CmpOp::Eq),
        (Type::Bool, CmpOp::Ne),
        (Type::ptr(Type::I8), CmpOp::Eq),
        (Type::I64, CmpOp::Sge),
        (Type::U1, CmpOp::Ule),
        (Type::F16, CmpOp::Fge),
    ] {
        assert_eq!(cmp(ty, op), vec![]);
    }
    let icmp = |ty: Type, pred: ICmpPred| {
        body_errors(&[("x", ty.clone())], |f| {
            let x = f.param_value(0);
            f.icmp(pred, ty, x, x);
        })
    };
    assert_only!(
        icmp(Type::F32, ICmpPred::Eq),
        VerifyError::InvalidInstructionType { operation: "integer comparison", .. }
    );
    assert_only!(
        icmp(Type::U8, ICmpPred::Slt),
        VerifyError::InvalidInstructionType { operation: "integer comparison", .. }
    );
    assert_only!(
        icmp(Type::I8, ICmpPred::Uge),
        VerifyError::InvalidInstructionType { operation: "integer comparison", .. }
    );
    assert_eq!(icmp(Type::ptr(Type::Void), ICmpPred::Ne), vec![]);
    let fcmp = |ty: Type, pred: FCmpPred| {
        body_errors(&[("x", ty.clone())], |f| {
            let x = f.param_value(0);
            f.fcmp(pred, ty, x, x);
        })
    };
    assert_only!(
        fcmp(Type::I32, FCmpPred::Oeq),
        VerifyError::InvalidInstructionType { operation: "floating comparison", .. }
    );
    for &pred in FCmpPred::ALL {
        assert_eq!(fcmp(Type::F64, pred), vec![]);
    }
}

#[test]
fn extract_needs_a_tuple_field_of_the_result_type() {
    let pair = Type::Tuple(vec![Type::I32, Type::Bool]);
    let extract = |agg: Type, dst: Type, index: u32| {
        body_errors(&[("t", agg.clone())], |f| {
            let t = f.param_value(0);
            f.extract(agg, dst, t, index);
        })
    };
    assert_eq!(extract(pair.clone(), Type::Bool, 1), vec![]);
    assert_only!(
        extract(pair.clone(), Type::I32, 2),
        VerifyError::InvalidInstructionType { operation: "extract", ty: Type::Tuple(_), .. }
    );
    assert_only!(extract(pair.clone(), Type::I64, 0), VerifyError::InvalidInstructionType { operation: "extract", .. });
    let st = Type::Struct(vec![Type::I32]);
    assert_only!(
        extract(st, Type::I32, 0),
        VerifyError::InvalidInstructionType { operation: "extract", ty: Type::Struct(_), .. }
    );
}

#[test]
fn checked_arithmetic_needs_matching_signedness_and_operands() {
    let checked = |ty: Type, op: CheckedOp, rhs: Type| {
        body_errors(&[("a", ty.clone()), ("b", rhs)], |f| {
            let (a, b) = (f.param_value(0), f.param_value(1));
            let r = f.checked(op, ty.clone(), a, b);
            f.extract(Type::Tuple(vec![ty, Type::Bool]), Type::Bool, r, 1);
        })
    };
    for op in [CheckedOp::SAdd, CheckedOp::SSub, CheckedOp::SMul] {
        assert_eq!(checked(Type::I32, op, Type::I32), vec![]);
        assert_only!(
            checked(Type::U32, op, Type::U32),
            VerifyError::InvalidInstructionType { operation: "checked arithmetic", ty: Type::U32, .. }
        );
    }
    for op in [CheckedOp::UAdd, CheckedOp::USub, CheckedOp::UMul] {
        assert_eq!(checked(Type::U128, op, Type::U128), vec![]);
        assert_only!(
            checked(Type::I8, op, Type::I8),
            VerifyError::InvalidInstructionType { operation: "checked arithmetic", ty: Type::I8, .. }
        );
    }
    assert_only!(
        checked(Type::Bool, CheckedOp::UAdd, Type::Bool),
        VerifyError::InvalidInstructionType { operation: "checked arithmetic", ty: Type::Bool, .. }
    );
    assert_only!(
        checked(Type::I32, CheckedOp::SAdd, Type::I64),
        VerifyError::OperandTypeMismatch { value, expected: Type::I32, got: Type::I64, .. } if *value == v(1)
    );
    // The tuple result of checked arithmetic can be taken apart.
    let errs = body_errors(&[("a", Type::U64)], |f| {
        let a = f.param_value(0);
        let r = f.checked(CheckedOp::UMul, Type::U64, a, a);
        f.extract(Type::Tuple(vec![Type::U64, Type::Bool]), Type::U64, r, 0);
    });
    assert_eq!(errs, vec![]);
}

#[test]
fn operand_types_must_match_exactly() {
    let mismatch = |errs: Vec<VerifyError>, value: ValueId, expected: Type, got: Type| {
        assert_only!(
            errs,
            VerifyError::OperandTypeMismatch { value: v, expected: e, got: g, .. } if *v == value && *e == expected && *g == got
        );
    };
    let two = [("a", Type::I32), ("b", Type::I64)];
    mismatch(
        body_errors(&two, |f| {
            let (a, b) = (f.param_value(0), f.param_value(1));
            f.add(Type::I32, a, b);
        }),
        v(1),
        Type::I32,
        Type::I64,
    );
    mismatch(
        body_errors(&two, |f| {
            let b = f.param_value(1);
            f.mov(Type::I32, b);
        }),
        v(1),
        Type::I32,
        Type::I64,
    );
    mismatch(
        body_errors(&[("a", Type::U32)], |f| {
            let a = f.param_value(0);
            f.not(Type::I32, a);
        }),
        v(0),
        Type::I32,
        Type::U32,
    );
    mismatch(
        body_errors(&two, |f| {
            let (a, b) = (f.param_value(0), f.param_value(1));
            f.cmp(CmpOp::Eq, Type::I32, a, b);
        }),
        v(1),
        Type::I32,
        Type::I64,
    );
    mismatch(
        body_errors(&[("c", Type::Bool), ("a", Type::I32), ("b", Type::I64)], |f| {
            let (c, a, b) = (f.param_value(0), f.param_value(1), f.param_value(2));
            f.select(Type::I32, c, a, b);
        }),
        v(2),
        Type::I32,
        Type::I64,
    );
    // Pointer operands: the expected type is spelled `ptr<T>` even when the module never built it.
    let p64 = [("p", Type::ptr(Type::I64)), ("x", Type::I32)];
    mismatch(
        body_errors(&p64, |f| {
            let p = f.param_value(0);
            f.load(Type::I32, p, 4);
        }),
        v(0),
        Type::ptr(Type::I32),
        Type::ptr(Type::I64),
    );
    mismatch(
        body_errors(&p64, |f| {
            let (p, x) = (f.param_value(0), f.param_value(1));
            f.store(Type::I32, x, p, 4);
        }),
        v(0),
        Type::ptr(Type::I32),
        Type::ptr(Type::I64),
    );
    mismatch(
        body_errors(&p64, |f| {
            let p = f.param_value(0);
            f.uninit(Type::I32, p, 4);
        }),
        v(0),
        Type::ptr(Type::I32),
        Type::ptr(Type::I64),
    );
    let bulk = [("p", Type::ptr(Type::I8)), ("q", Type::ptr(Type::I16)), ("n", Type::U32), ("x", Type::I8)];
    let errs = body_errors(&bulk, |f| {
        let (p, q, n, x) = (f.param_value(0), f.param_value(1), f.param_value(2), f.param_value(3));
        f.memcpy(p, q, n, 1);
        f.memset(p, x, n, 1);
    });
    let got: Vec<_> = errs
        .iter()
        .map(|e| match e {
            VerifyError::OperandTypeMismatch { value, expected, got, .. } => (*value, expected.clone(), got.clone()),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (v(0), Type::ptr(Type::U8), Type::ptr(Type::I8)),
            (v(1), Type::ptr(Type::U8), Type::ptr(Type::I16)),
            (v(2), Type::U64, Type::U32),
            (v(0), Type::ptr(Type::U8), Type::ptr(Type::I8)),
            (v(3), Type::U8, Type::I8),
            (v(2), Type::U64, Type::U32),
        ]
    );
}

// ---- casts (F3 table, whale-upstream §b.7) ------------------------------------------------------------------------

fn cast_errors(from: Type, op: CastOp, to: Type) -> Vec<VerifyError> {
    body_errors(&[("x", from)], |f| {
        let x = f.param_value(0);
        f.cast(op, x, to);
    })
}

#[test]
fn cast_table_accepts_the_legal_pairs() {
    let p = |t: Type| Type::ptr(t);
    let legal = [
        (Type::I8, CastOp::Zext, Type::I16),
        (Type::U8, CastOp::Zext, Type::I64),
        (Type::I8, CastOp::Zext, Type::U32),
        (Type::I1, CastOp::Zext, Type::I8),
        (Type::U64, CastOp::Zext, Type::U128),
        (Type::Bool, CastOp::Zext, Type::U1),
        (Type::Bool, CastOp::Zext, Type::I8),
        (Type::Bool, CastOp::Zext, Type::U64),
        (Type::I8, CastOp::Sext, Type::I64),
        (Type::U16, CastOp::Sext, Type::I32),
        (Type::I1, CastOp::Sext, Type::U8),
        (Type::I64, CastOp::Trunc, Type::I8),
        (Type::U32, CastOp::Trunc, Type::U1),
        (Type::I16, CastOp::Trunc, Type::U8),
        (Type::F16, CastOp::Fext, Type::F32),
        (Type::F32, CastOp::Fext, Type::F64),
        (Type::F64, CastOp::Ftrunc, Type::F16),
        (Type::I32, CastOp::ItofS, Type::F64),
        (Type::I128, CastOp::ItofS, Type::F16),
        (Type::U64, CastOp::ItofU, Type::F32),
        (Type::U1, CastOp::ItofU, Type::F64),
        (Type::F64, CastOp::FtoiS, Type::I32),
        (Type::F16, CastOp::FtoiS, Type::I1),
        (Type::F32, CastOp::FtoiU, Type::U8),
        (Type::I32, CastOp::Bitcast, Type::F32),
        (Type::F64, CastOp::Bitcast, Type::U64),
        (Type::F16, CastOp::Bitcast, Type::I16),
        (Type::U32, CastOp::Bitcast, Type::I32),
        (Type::I64, CastOp::Bitcast, Type::I64),
        (p(Type::I8), CastOp::Bitcast, p(Type::Void)),
        (p(Type::I8), CastOp::Ptrtoint, Type::U64),
        (p(Type::Void), CastOp::Ptrtoint, Type::I32),
        (Type::U64, CastOp::Inttoptr, p(Type::I32)),
        (Type::I8, CastOp::Inttoptr, p(p(Type::Void))),
    ];
    for (from, op, to) in legal {
        assert_eq!(cast_errors(from.clone(), op, to.clone()), vec![], "{op:?} {from} -> {to}");
    }
}

#[test]
fn cast_table_rejects_everything_else() {
    let p = |t: Type| Type::ptr(t);
    let illegal = [
        (Type::I16, CastOp::Zext, Type::I8),
        (Type::I32, CastOp::Zext, Type::I32),
        (Type::Bool, CastOp::Zext, Type::I1),
        (Type::Bool, CastOp::Zext, Type::Bool),
        (Type::F32, CastOp::Zext, Type::F64),
        (p(Type::I8), CastOp::Zext, Type::I64),
        (Type::Bool, CastOp::Sext, Type::I8),
        (Type::I32, CastOp::Sext, Type::I16),
        (Type::I32, CastOp::Sext, Type::U32),
        (Type::I8, CastOp::Trunc, Type::Bool),
        (Type::Bool, CastOp::Trunc, Type::I1),
        (Type::I8, CastOp::Trunc, Type::I8),
        (Type::U8, CastOp::Trunc, Type::U16),
        (Type::F64, CastOp::Fext, Type::F32),
        (Type::F32, CastOp::Fext, Type::F32),
        (Type::I32, CastOp::Fext, Type::F64),
        (Type::F32, CastOp::Ftrunc, Type::F64),
        (Type::F16, CastOp::Ftrunc, Type::F16),
        (Type::U32, CastOp::ItofS, Type::F32),
        (Type::Bool, CastOp::ItofS, Type::F32),
        (Type::I32, CastOp::ItofS, Type::I64),
        (Type::I32, CastOp::ItofU, Type::F32),
        (Type::F32, CastOp::FtoiS, Type::U32),
        (Type::F32, CastOp::FtoiS, Type::Bool),
        (Type::F64, CastOp::FtoiU, Type::I64),
        (Type::I32, CastOp::FtoiU, Type::U32),
        (Type::Bool, CastOp::Bitcast, Type::U1),
        (Type::U1, CastOp::Bitcast, Type::Bool),
        (Type::I1, CastOp::Bitcast, Type::Bool),
        (Type::I32, CastOp::Bitcast, Type::F64),
        (Type::F16, CastOp::Bitcast, Type::I32),
        (p(Type::I8), CastOp::Bitcast, Type::I64),
        (Type::I64, CastOp::Bitcast, p(Type::I8)),
        (Type::Struct(vec![Type::I32]), CastOp::Bitcast, Type::Struct(vec![Type::I32])),
        (Type::I64, CastOp::Ptrtoint, Type::I64),
        (p(Type::I8), CastOp::Ptrtoint, Type::Bool),
        (p(Type::I8), CastOp::Ptrtoint, Type::F64),
        (p(Type::I8), CastOp::Inttoptr, p(Type::I8)),
        (Type::Bool, CastOp::Inttoptr, p(Type::I8)),
        (Type::F64, CastOp::Inttoptr, p(Type::I8)),
    ];
    for (from, op, to) in illegal {
        let errs = cast_errors(from.clone(), op, to.clone());
        assert_only!(
            errs,
            VerifyError::InvalidCast { op: o, from: s, to: d, value, .. }
                if *o == op.opcode() && *s == from && *d == to && *value == v(1)
        );
    }
}

// ---- gep (whale-upstream §b.4) ------------------------------------------------------------------------------------

/// A gep index: the `i64` parameter, the `f32` parameter, or a new constant.
#[derive(Clone, Copy, Debug)]
enum Index {
    Param,
    Float,
    I64(i128),
    U32(u128),
}

/// Errors of `gep base, indices` with parameters `base` (%v0), `i: i64` (%v1) and `x: f32` (%v2).
fn gep_errors(base: Type, indices: &[Index], result: Type) -> Vec<VerifyError> {
    body_errors(&[("base", base), ("i", Type::I64), ("x", Type::F32)], |f| {
        let base = f.param_value(0);
        let indices: Vec<ValueId> = indices
            .iter()
            .map(|&index| match index {
                Index::Param => f.param_value(1),
                Index::Float => f.param_value(2),
                Index::I64(k) => f.const_int(Type::I64, k),
                Index::U32(k) => f.const_uint(Type::U32, k),
            })
            .collect();
        f.gep(result, base, &indices);
    })
}

#[test]
fn gep_rules() {
    let st = Type::Struct(vec![Type::U8, Type::I64]);
    let arr = Type::array(Type::I32, 4);
    let (param, float, zero) = (Index::Param, Index::Float, Index::I64(0));
    let reason = |errs: Vec<VerifyError>| match errs.as_slice() {
        [VerifyError::InvalidGep { index, reason, .. }] => (*index, *reason),
        other => panic!("unexpected errors: {other:#?}"),
    };
    assert_eq!(reason(gep_errors(Type::I64, &[], Type::ptr(Type::I64))), (None, "base must be a pointer"));
    assert_eq!(
        reason(gep_errors(Type::ptr(Type::Void), &[param], Type::ptr(Type::Void))),
        (None, "element addressing requires a concrete stored type")
    );
    assert_eq!(
        reason(gep_errors(Type::ptr(st.clone()), &[float], Type::ptr(st.clone()))),
        (Some(0), "index must be an integer")
    );
    assert_eq!(
        reason(gep_errors(Type::ptr(arr.clone()), &[zero, float], Type::ptr(Type::I32))),
        (Some(1), "index must be an integer")
    );
    for field in [param, Index::I64(-1)] {
        assert_eq!(
            reason(gep_errors(Type::ptr(st.clone()), &[zero, field], Type::ptr(Type::U8))),
            (Some(1), "field index must be a nonnegative integer constant")
        );
    }
    assert_eq!(
        reason(gep_errors(Type::ptr(st.clone()), &[zero, Index::I64(2)], Type::ptr(Type::U8))),
        (Some(1), "field index is outside the aggregate type")
    );
    assert_eq!(
        reason(gep_errors(Type::ptr(Type::ptr(Type::I32)), &[zero, zero], Type::ptr(Type::I32))),
        (Some(1), "further indices require an array, struct, or tuple; GEP does not load pointers")
    );
    assert_eq!(
        reason(gep_errors(Type::ptr(arr.clone()), &[zero, zero, zero], Type::ptr(Type::I32))),
        (Some(2), "further indices require an array, struct, or tuple; GEP does not load pointers")
    );
    // The result must be a pointer to the selected type.
    let errs = gep_errors(Type::ptr(st.clone()), &[zero, Index::I64(1)], Type::ptr(Type::I32));
    assert_only!(
        errs,
        VerifyError::OperandTypeMismatch { value, expected, got, .. }
            if *value == v(5) && *expected == Type::ptr(Type::I64) && *got == Type::ptr(Type::I32)
    );
    // Valid forms.
    let tuple = Type::Tuple(vec![Type::Bool, arr.clone()]);
    for (base, indices, result) in [
        (Type::ptr(arr.clone()), vec![zero, param], Type::ptr(Type::I32)),
        (Type::ptr(arr.clone()), vec![param], Type::ptr(arr.clone())),
        (Type::ptr(st.clone()), vec![zero, Index::I64(1)], Type::ptr(Type::I64)),
        (Type::ptr(st.clone()), vec![param, Index::U32(0)], Type::ptr(Type::U8)),
        (Type::ptr(tuple.clone()), vec![zero, Index::I64(1), param], Type::ptr(Type::I32)),
        (Type::ptr(st.clone()), vec![], Type::ptr(st.clone())),
        (Type::ptr(Type::Void), vec![], Type::ptr(Type::Void)),
        (Type::ptr(Type::I8), vec![param], Type::ptr(Type::I8)),
    ] {
        assert_eq!(gep_errors(base.clone(), &indices, result), vec![], "{base} {indices:?}");
    }
}

#[test]
fn gep_field_index_may_be_a_const_decl() {
    let st = Type::Struct(vec![Type::U8, Type::I64]);
    let errs = body_errors(&[("p", Type::ptr(st))], |f| {
        let p = f.param_value(0);
        let zero = f.const_i64(0);
        let one = f.const_decl("one", ConstExpr::literal(Type::I32, ConstValue::I(1)), ConstValue::I(1));
        f.gep(Type::ptr(Type::I64), p, &[zero, one]);
    });
    assert_eq!(errs, vec![]);
}

// ---- memory alignment ------------------------------------------------------------------------------------------------

#[test]
fn memory_alignment_must_be_a_power_of_two() {
    let errs = body_errors(&[("p", Type::ptr(Type::U8))], |f| {
        let p = f.param_value(0);
        f.alloca(Type::I32, 0);
        f.alloca(Type::I32, 3);
        let x = f.load(Type::U8, p, 6);
        f.store(Type::U8, x, p, 12);
        f.uninit(Type::U8, p, 5);
        let n = f.const_u64(1);
        f.memcpy(p, p, n, 7);
        f.memset(p, x, n, 9);
        f.alloca(Type::I32, 1 << 31);
        f.load(Type::U8, p, 1);
    });
    let aligns: Vec<u32> = errs
        .iter()
        .map(|e| match e {
            VerifyError::InvalidMemoryAlignment { func, align, .. } if func == "f" => *align,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(aligns, [0, 3, 6, 12, 5, 7, 9]);
}

// ---- CFG: entry, dominance -----------------------------------------------------------------------------------------

#[test]
fn entry_block_has_no_predecessors() {
    let (m, ()) = single(&[], Type::Void, |f| {
        let entry = f.entry_block();
        let body = f.create_block("body");
        f.br(body);
        f.set_insert_point(body);
        f.br(entry);
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::EntryHasPredecessor { func: string("f"), entry: b(0), predecessor: b(1) }]
    );
    let (m, ()) = single(&[], Type::Void, |f| {
        let entry = f.entry_block();
        f.br(entry);
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::EntryHasPredecessor { func: string("f"), entry: b(0), predecessor: b(0) }]
    );
    // Even from an unreachable block.
    let (m, ()) = single(&[], Type::Void, |f| {
        let entry = f.entry_block();
        let dead = f.create_block("dead");
        f.ret(None);
        f.set_insert_point(dead);
        f.br(entry);
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::EntryHasPredecessor { func: string("f"), entry: b(0), predecessor: b(1) }]
    );
}

/// `f(c: bool) -> i32` whose entry branches on `c` to `then` (b1) and `else` (b2), both going to `join` (b3).
fn diamond<R>(
    then_body: impl FnOnce(&mut FunctionBuilder<'_>) -> R,
    join_body: impl FnOnce(&mut FunctionBuilder<'_>, &R),
) -> (Module, R) {
    single(&[("c", Type::Bool)], Type::I32, |f| {
        let c = f.param_value(0);
        let (then_block, else_block, join) = (f.create_block("then"), f.create_block("else"), f.create_block("join"));
        f.cbr(c, then_block, else_block);
        f.set_insert_point(then_block);
        let r = then_body(f);
        f.br(join);
        f.set_insert_point(else_block);
        f.br(join);
        f.set_insert_point(join);
        join_body(f, &r);
        r
    })
}

#[test]
fn uses_must_be_dominated_by_their_definitions() {
    // A value of one arm used after the join (by the terminator).
    let (m, x) = diamond(|f| f.const_i32(1), |f, &x| f.ret(Some(x)));
    assert_eq!(
        errors(&m),
        vec![VerifyError::NonDominatingValue { func: string("f"), value: x, block: b(3), inst: last(&m, b(3)) }]
    );
    // By an ordinary instruction.
    let (m, (x, sum)) = diamond(
        |f| (f.const_i32(1), v(2)),
        |f, &(x, sum)| {
            assert_eq!(f.add(Type::I32, x, x), sum);
            f.ret(Some(sum));
        },
    );
    assert_eq!(
        errors(&m),
        vec![
            VerifyError::NonDominatingValue { func: string("f"), value: x, block: b(3), inst: def(&m, sum) },
            VerifyError::NonDominatingValue { func: string("f"), value: x, block: b(3), inst: def(&m, sum) },
        ]
    );
    // A phi input must be available at the end of its predecessor.
    let (m, (x, phi)) = diamond(
        |f| (f.const_i32(1), v(2)),
        |f, &(x, phi)| {
            assert_eq!(f.phi(Type::I32, &[(x, b(1)), (x, b(2))]), phi);
            f.ret(Some(phi));
        },
    );
    assert_eq!(
        errors(&m),
        vec![VerifyError::NonDominatingValue { func: string("f"), value: x, block: b(2), inst: def(&m, phi) }]
    );
}

#[test]
fn same_block_uses_must_follow_the_definition() {
    let (m, (early, later)) = single(&[("x", Type::I32)], Type::I32, |f| {
        let x = f.param_value(0);
        let early = f.add(Type::I32, x, v(2));
        let later = f.const_i32(1);
        assert_eq!(later, v(2));
        f.ret(Some(early));
        (early, later)
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::NonDominatingValue { func: string("f"), value: later, block: b(0), inst: def(&m, early) }]
    );
    // An instruction cannot use its own result.
    let (m, own) = single(&[], Type::I32, |f| {
        let own = f.add(Type::I32, v(0), v(0));
        assert_eq!(own, v(0));
        f.ret(Some(own));
        own
    });
    let inst = def(&m, own);
    assert_eq!(
        errors(&m),
        vec![
            VerifyError::NonDominatingValue { func: string("f"), value: own, block: b(0), inst },
            VerifyError::NonDominatingValue { func: string("f"), value: own, block: b(0), inst },
        ]
    );
}

#[test]
fn values_of_unreachable_blocks_do_not_dominate_reachable_uses() {
    let (m, (y, join)) = single(&[], Type::I32, |f| {
        let (dead, join) = (f.create_block("dead"), f.create_block("join"));
        f.br(join);
        f.set_insert_point(dead);
        let y = f.const_i32(1);
        f.ret(Some(y));
        f.set_insert_point(join);
        f.ret(Some(y));
        (y, join)
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::NonDominatingValue { func: string("f"), value: y, block: join, inst: last(&m, join) }]
    );
}

#[test]
fn constant_references_and_indirect_callees_are_uses() {
    // A const_decl's local reference must dominate it.
    let (m, (k, decl)) = diamond(
        |f| (f.const_i32(2), v(2)),
        |f, &(k, decl)| {
            let d = f.const_decl("d", *local_ref(Type::I32, k), ConstValue::I(2));
            assert_eq!(d, decl);
            f.ret(Some(d));
        },
    );
    assert_eq!(
        errors(&m),
        vec![VerifyError::NonDominatingValue { func: string("f"), value: k, block: b(3), inst: def(&m, decl) }]
    );
    // The callee of an indirect call must dominate the call.
    let mut mb = builder();
    let target = mb
        .declare_function("t", FunctionSignature::whale(vec![], Type::I32), Linkage::External, Some(string("t")))
        .unwrap();
    let mut f = mb.begin_function("f", params(&[("c", Type::Bool)]), Type::I32);
    let c = f.param_value(0);
    let (then_block, join) = (f.create_block("then"), f.create_block("join"));
    f.cbr(c, then_block, join);
    f.set_insert_point(then_block);
    let pointer = f.function_addr(target).unwrap();
    f.br(join);
    f.set_insert_point(join);
    let result = f.call(Callee::Indirect(pointer), vec![]).unwrap().unwrap();
    f.ret(Some(result));
    f.finish();
    let m = mb.finish();
    assert_eq!(
        errors(&m),
        vec![VerifyError::NonDominatingValue { func: string("f"), value: pointer, block: join, inst: def(&m, result) }]
    );
}

// ---- phi rules -----------------------------------------------------------------------------------------------------

fn invalid_phi(m: &Module, block: BlockId, phi: ValueId, reason: &'static str) -> VerifyError {
    VerifyError::InvalidPhi { func: string("f"), block, value: phi, reason, inst: def(m, phi) }
}

/// `f(c: bool) -> i32`: entry (b0) defines `%v1 = const i32 7`, then `shape` builds the rest and returns the phi.
fn phi_case(shape: impl FnOnce(&mut FunctionBuilder<'_>, ValueId) -> (BlockId, ValueId)) -> (Module, BlockId, ValueId) {
    let (m, (block, phi)) = single(&[("c", Type::Bool)], Type::I32, |f| {
        let seven = f.const_i32(7);
        shape(f, seven)
    });
    (m, block, phi)
}

#[test]
fn phi_must_precede_non_phi_instructions() {
    let (m, block, phi) = phi_case(|f, seven| {
        let j = f.create_block("j");
        f.br(j);
        f.set_insert_point(j);
        f.const_i32(1);
        let phi = f.phi(Type::I32, &[(seven, b(0))]);
        f.ret(Some(phi));
        (j, phi)
    });
    assert_eq!(errors(&m), vec![invalid_phi(&m, block, phi, "phi must precede non-phi instructions")]);
}

#[test]
fn phi_in_the_entry_block() {
    let (m, phi) = single(&[], Type::I32, |f| {
        let phi = f.phi(Type::I32, &[]);
        f.ret(Some(phi));
        phi
    });
    assert_eq!(errors(&m), vec![invalid_phi(&m, b(0), phi, "function entry has no incoming SSA value")]);
}

#[test]
fn phi_requires_incoming_values() {
    let (m, block, phi) = phi_case(|f, _| {
        let j = f.create_block("j");
        f.br(j);
        f.set_insert_point(j);
        let phi = f.phi(Type::I32, &[]);
        f.ret(Some(phi));
        (j, phi)
    });
    assert_eq!(errors(&m), vec![invalid_phi(&m, block, phi, "phi requires incoming values")]);
}

#[test]
fn phi_names_an_unknown_predecessor() {
    let (m, block, phi) = phi_case(|f, seven| {
        let j = f.create_block("j");
        f.br(j);
        f.set_insert_point(j);
        let phi = f.phi(Type::I32, &[(seven, b(0)), (seven, b(77))]);
        f.ret(Some(phi));
        (j, phi)
    });
    assert_eq!(errors(&m), vec![invalid_phi(&m, block, phi, "phi names an unknown predecessor")]);
}

#[test]
fn phi_input_is_not_a_predecessor() {
    let (m, block, phi) = phi_case(|f, seven| {
        let (a, j) = (f.create_block("a"), f.create_block("j"));
        f.br(a);
        f.set_insert_point(a);
        f.br(j);
        f.set_insert_point(j);
        let phi = f.phi(Type::I32, &[(seven, a), (seven, b(0))]);
        f.ret(Some(phi));
        (j, phi)
    });
    assert_eq!(errors(&m), vec![invalid_phi(&m, block, phi, "phi input is not a predecessor")]);
}

#[test]
fn duplicate_phi_predecessor() {
    // Even when the predecessor branches to the block twice.
    let (m, block, phi) = phi_case(|f, seven| {
        let c = f.param_value(0);
        let j = f.create_block("j");
        f.cbr(c, j, j);
        f.set_insert_point(j);
        let phi = f.phi(Type::I32, &[(seven, b(0)), (seven, b(0))]);
        f.ret(Some(phi));
        (j, phi)
    });
    assert_eq!(errors(&m), vec![invalid_phi(&m, block, phi, "duplicate phi predecessor")]);
}

#[test]
fn phi_is_missing_a_predecessor() {
    let (m, block, phi) = phi_case(|f, seven| {
        let c = f.param_value(0);
        let (a, j) = (f.create_block("a"), f.create_block("j"));
        f.cbr(c, a, j);
        f.set_insert_point(a);
        f.br(j);
        f.set_insert_point(j);
        let phi = f.phi(Type::I32, &[(seven, b(0))]);
        f.ret(Some(phi));
        (j, phi)
    });
    assert_eq!(errors(&m), vec![invalid_phi(&m, block, phi, "phi is missing a predecessor")]);
}

#[test]
fn phi_types() {
    // Inputs must have the phi's type.
    let (m, _, phi) = phi_case(|f, seven| {
        let j = f.create_block("j");
        f.br(j);
        f.set_insert_point(j);
        let phi = f.phi(Type::I64, &[(seven, b(0))]);
        f.ret(None);
        (j, phi)
    });
    assert_eq!(
        errors(&m),
        vec![
            // Structure (the return) is checked before the CFG pass (the phi).
            VerifyError::RetTypeMismatch { func: string("f"), expected: Type::I32, got: None, inst: last(&m, b(1)) },
            VerifyError::OperandTypeMismatch {
                func: string("f"),
                value: v(1),
                expected: Type::I64,
                got: Type::I32,
                inst: def(&m, phi),
            },
        ]
    );
    // The phi's type must be storable.
    let (m, _, phi) = phi_case(|f, seven| {
        let j = f.create_block("j");
        f.br(j);
        f.set_insert_point(j);
        let phi = f.phi(Type::Void, &[(seven, b(0))]);
        f.ret(Some(seven));
        (j, phi)
    });
    assert_eq!(
        errors(&m),
        vec![VerifyError::InvalidInstructionType {
            func: string("f"),
            operation: "phi",
            ty: Type::Void,
            inst: def(&m, phi)
        }]
    );
}

// ---- tricky valid cases --------------------------------------------------------------------------------------------

#[test]
fn loop_phi_uses_a_later_defined_back_edge_value() {
    // Header and latch are different blocks; the latch is stored after the exit.
    let (m, ()) = single(&[("n", Type::I32)], Type::I32, |f| {
        let n = f.param_value(0);
        let zero = f.const_i32(0);
        let one = f.const_i32(1);
        let (head, exit, latch) = (f.create_block("head"), f.create_block("exit"), f.create_block("latch"));
        f.br(head);
        f.set_insert_point(head);
        let i = f.phi(Type::I32, &[(zero, b(0))]);
        let more = f.cmp(CmpOp::Slt, Type::I32, i, n);
        f.cbr(more, latch, exit);
        f.set_insert_point(latch);
        let next = f.add(Type::I32, i, one);
        f.add_phi_input(i, next, latch);
        f.br(head);
        f.set_insert_point(exit);
        f.ret(Some(i));
    });
    assert_valid(&m);
    // Header and latch are one block; the back-edge value is defined after the phi.
    let (m, ()) = single(&[("n", Type::U64)], Type::U64, |f| {
        let n = f.param_value(0);
        let one = f.const_u64(1);
        let (body, exit) = (f.create_block("body"), f.create_block("exit"));
        f.br(body);
        f.set_insert_point(body);
        let i = f.phi(Type::U64, &[(one, b(0)), (v(3), body)]);
        let next = f.mul(Type::U64, i, one);
        assert_eq!(next, v(3));
        let more = f.icmp(ICmpPred::Ult, Type::U64, next, n);
        f.cbr(more, body, exit);
        f.set_insert_point(exit);
        f.ret(Some(next));
    });
    assert_valid(&m);
}

#[test]
fn self_loop_phi_uses_itself() {
    let (m, ()) = single(&[("c", Type::Bool)], Type::I32, |f| {
        let c = f.param_value(0);
        let zero = f.const_i32(0);
        let (spin, exit) = (f.create_block("spin"), f.create_block("exit"));
        f.br(spin);
        f.set_insert_point(spin);
        let p = f.phi(Type::I32, &[(zero, b(0))]);
        f.add_phi_input(p, p, spin);
        // Two phis swapping values, each reading the other's previous value.
        let q = f.phi(Type::I32, &[(zero, b(0)), (v(4), spin)]);
        let r = f.phi(Type::I32, &[(zero, b(0)), (q, spin)]);
        assert_eq!(r, v(4));
        f.cbr(c, spin, exit);
        f.set_insert_point(exit);
        f.ret(Some(p));
    });
    assert_valid(&m);
}

#[test]
fn repeated_edges_need_exactly_one_phi_input() {
    let (m, ()) = single(&[("c", Type::Bool)], Type::I32, |f| {
        let c = f.param_value(0);
        let seven = f.const_i32(7);
        let j = f.create_block("j");
        f.cbr(c, j, j);
        f.set_insert_point(j);
        let phi = f.phi(Type::I32, &[(seven, b(0))]);
        f.ret(Some(phi));
    });
    assert_valid(&m);
    let (m, ()) = single(&[("x", Type::U8)], Type::U8, |f| {
        let x = f.param_value(0);
        let (k, j) = (f.create_block("k"), f.create_block("j"));
        let cases = [(ConstValue::U(1), j), (ConstValue::U(2), j), (ConstValue::U(3), k), (ConstValue::U(4), j)];
        f.switch(x, j, &cases);
        f.set_insert_point(k);
        let y = f.add(Type::U8, x, x);
        f.switch(y, j, &[(ConstValue::U(0), j)]);
        f.set_insert_point(j);
        let phi = f.phi(Type::U8, &[(x, b(0)), (y, k)]);
        f.ret(Some(phi));
    });
    assert_valid(&m);
}

#[test]
fn unreachable_blocks_are_exempt_from_dominance() {
    let (m, ()) = single(&[("c", Type::Bool)], Type::I32, |f| {
        let c = f.param_value(0);
        let (a, other, dead, dead2, dead3, join) = (
            f.create_block("a"),
            f.create_block("other"),
            f.create_block("dead"),
            f.create_block("dead2"),
            f.create_block("dead3"),
            f.create_block("join"),
        );
        f.cbr(c, a, other);
        f.set_insert_point(a);
        let x = f.const_i32(1);
        f.br(join);
        f.set_insert_point(other);
        let z = f.const_i32(2);
        f.br(join);
        // `dead` uses `x`, which does not dominate it, and branches into reachable code.
        f.set_insert_point(dead);
        let y = f.add(Type::I32, x, z);
        f.cbr(c, join, dead2);
        // `dead2` is reached only from `dead`: its phi reads `x` at the end of `dead`.
        f.set_insert_point(dead2);
        let p = f.phi(Type::I32, &[(x, dead), (v(6), dead3)]);
        f.br(dead3);
        // Values defined in an unreachable block and used only there, including a later-defined one.
        f.set_insert_point(dead3);
        let early = f.add(Type::I32, p, v(6));
        let late = f.mul(Type::I32, early, y);
        assert_eq!(late, v(6));
        f.br(dead2);
        // `join` has the unreachable `dead` as a predecessor; its input from there is exempt too.
        f.set_insert_point(join);
        let phi = f.phi(Type::I32, &[(x, a), (z, other), (y, dead)]);
        f.ret(Some(phi));
    });
    assert_valid(&m);
}

#[test]
fn every_instruction_kind_verifies_in_a_valid_module() {
    let mut mb = builder();
    let sig = FunctionSignature::whale(vec![Type::I32], Type::I32);
    let id = mb.declare_function("id", sig, Linkage::Internal, None).unwrap();
    let mut f = mb.begin_declared_function(id, vec![string("x")]).unwrap();
    let x = f.param_value(0);
    let slot = f.alloca_in_entry(Type::array(Type::I32, 4), 16);
    let zero = f.const_i64(0);
    let two = f.const_i64(2);
    let element = f.gep(Type::ptr(Type::I32), slot, &[zero, two]);
    f.uninit(Type::I32, element, 4);
    f.store(Type::I32, x, element, 4);
    let loaded = f.load(Type::I32, element, 4);
    let bytes = f.cast(CastOp::Bitcast, element, Type::ptr(Type::U8));
    let len = f.const_u64(4);
    let byte = f.const_u8(0);
    f.memset(bytes, byte, len, 4);
    f.memcpy(bytes, bytes, len, 1);
    let moved = f.mov(Type::I32, loaded);
    let negated = f.not(Type::I32, moved);
    let sum = f.checked(CheckedOp::SAdd, Type::I32, negated, x);
    let overflow = f.extract(Type::Tuple(vec![Type::I32, Type::Bool]), Type::Bool, sum, 1);
    f.trap_if(overflow, "overflow");
    let value = f.extract(Type::Tuple(vec![Type::I32, Type::Bool]), Type::I32, sum, 0);
    let float = f.cast(CastOp::ItofS, value, Type::F64);
    let half = f.const_f64(0.5);
    let scaled = f.fmul(Type::F64, float, half);
    let ordered = f.fcmp(FCmpPred::Ord, Type::F64, scaled, scaled);
    let back = f.cast(CastOp::FtoiS, scaled, Type::I32);
    let chosen = f.select(Type::I32, ordered, back, x);
    let recursive = f.call(Callee::Direct(id), vec![chosen]).unwrap().unwrap();
    f.ret(Some(recursive));
    f.finish();
    assert_valid(&mb.finish());
}

// ---- verifier properties -------------------------------------------------------------------------------------------

#[test]
fn verification_does_not_mutate_the_module() {
    let (valid, ()) = single(&[("c", Type::Bool)], Type::I32, |f| {
        let c = f.param_value(0);
        let seven = f.const_i32(7);
        let j = f.create_block("j");
        f.cbr(c, j, j);
        f.set_insert_point(j);
        let p = f.phi(Type::I32, &[(seven, b(0))]);
        f.ret(Some(p));
    });
    let (invalid, ()) = single(&[("c", Type::Bool)], Type::I32, |f| {
        let u = f.undef(Type::I64);
        let j = f.create_block("j");
        f.cbr(u, j, b(9));
        f.set_insert_point(j);
        f.const_decl("k", ConstExpr::literal(Type::I8, ConstValue::I(1)), ConstValue::I(2));
        f.ret(Some(u));
        f.ret(None);
    });
    for m in [valid, invalid] {
        let before = m.clone();
        let text = ir::print_module(&m);
        let first = verify_module(&m);
        let all = verify_module_all(&m);
        assert_eq!(m, before);
        assert_eq!(ir::print_module(&m), text);
        // Verification is deterministic.
        assert_eq!(verify_module(&m), first);
        assert_eq!(verify_module_all(&m), all);
    }
}

#[test]
fn verify_module_returns_the_first_error_of_verify_module_all() {
    let mut mb = ModuleBuilder::new(TARGET, DataLayout { pointer_bits: 32, endian: Endian::Little });
    mb.add_global("g", Type::I8, ConstValue::I(1), 3);
    let mut f = mb.begin_function("f", vec![], Type::I32);
    let u = f.undef(Type::I32);
    f.ret(None);
    f.finish();
    let m = mb.finish();
    let all = verify_module_all(&m).unwrap_err();
    assert!(all.len() >= 4, "{all:#?}");
    assert_eq!(verify_module(&m), Err(all[0].clone()));
    // Pass order (whale-upstream §d.1): forbidden undef, target, globals, then the function body.
    assert!(matches!(all[0], VerifyError::ForbiddenUndef { value, .. } if value == u));
    assert!(matches!(all[1], VerifyError::Target(TargetError::LayoutMismatch { .. })));
    assert!(matches!(all[2], VerifyError::InvalidGlobalAlignment { align: 3, .. }));
    assert!(matches!(all[3], VerifyError::RetTypeMismatch { got: None, .. }));
    assert_eq!(verify_module_all(&builder().finish()), Ok(()));
    assert_eq!(verify_module(&builder().finish()), Ok(()));
}

/// Verification splits large modules between threads; the errors and their
/// order are those of a sequential run, whatever the number of threads.
#[test]
fn parallel_verification_reports_what_sequential_verification_does() {
    let mut mb = builder();
    for k in 0..400u32 {
        let mut f = mb.begin_function(&format!("f{k}"), params(&[("x", Type::I32)]), Type::I32);
        let x = f.param_value(0);
        let mut sum = x;
        for _ in 0..60 {
            sum = f.add(Type::I32, sum, x);
        }
        match k % 7 {
            // A value used before its definition, a wrong return type, a branch outside the function.
            0 => f.ret(Some(v(10_000 + k))),
            3 => {
                let wide = f.const_i64(1);
                f.ret(Some(wide));
            }
            5 => f.br(b(900_000 + k)),
            _ => f.ret(Some(sum)),
        }
        f.finish();
    }
    let m = mb.finish();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| (ir::verify_module_all(&m), ir::verify_module(&m)))
    };
    let sequential = run(1);
    assert!(matches!(&sequential.0, Err(errors) if errors.len() > 100));
    for threads in [2, 3, 8] {
        assert_eq!(run(threads), sequential, "{threads} threads");
    }
}
