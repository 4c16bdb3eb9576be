//! Acceptance tests of the text printer (whale-ir §4, whale-upstream §b.1, §b.2, §c.1): the exact format-2 text of
//! every instruction, constant, type spelling and string escape, the format-4 fallback for modules that format 2
//! cannot state exactly, `TextFormat::V4`, and determinism.

use ir::{
    print_module, print_module_with, verify_module, BinOp, Callee, CallingConvention, CastOp, CheckedOp, CmpOp,
    ConstBinOp, ConstCmpOp, ConstExpr, ConstExprKind, ConstRef, ConstValue, DataLayout, FCmpPred, FloatBits,
    FunctionSignature, GlobalId, ICmpPred, Linkage, Module, ModuleBuilder, Opcode, TextFormat, Type, ValueId,
};

const HEADER_2: &str = "module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

";

const HEADER_4: &str = "module {
  format_version 4
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

";

fn builder() -> ModuleBuilder {
    ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
}

fn params(list: &[(&str, Type)]) -> Vec<(String, Type)> {
    list.iter().map(|(name, ty)| (name.to_string(), ty.clone())).collect()
}

fn sysv64(params: Vec<Type>, ret: Type) -> FunctionSignature {
    FunctionSignature { params, ret, convention: CallingConvention::SysV64, variadic: false }
}

fn global(ty: Type, id: u32) -> Box<ConstExpr> {
    Box::new(ConstExpr { ty, kind: ConstExprKind::Reference(ConstRef::Global(GlobalId::from_u32(id))) })
}

fn local(ty: Type, value: ValueId) -> Box<ConstExpr> {
    Box::new(ConstExpr { ty, kind: ConstExprKind::Reference(ConstRef::Local(value)) })
}

fn lit(ty: Type, value: ConstValue) -> Box<ConstExpr> {
    Box::new(ConstExpr::literal(ty, value))
}

fn binary(op: ConstBinOp, ty: Type, lhs: Box<ConstExpr>, rhs: Box<ConstExpr>) -> Box<ConstExpr> {
    Box::new(ConstExpr { ty, kind: ConstExprKind::Binary { op, lhs, rhs } })
}

fn compare(op: ConstCmpOp, lhs: Box<ConstExpr>, rhs: Box<ConstExpr>) -> Box<ConstExpr> {
    Box::new(ConstExpr { ty: Type::Bool, kind: ConstExprKind::Compare { op, lhs, rhs } })
}

/// Prints `m` and checks that printing is deterministic and that `TextFormat::V2` agrees with `Auto`.
fn print(m: &Module) -> String {
    let text = print_module(m);
    assert_eq!(print_module(m), text);
    assert_eq!(print_module_with(m, TextFormat::Auto), text);
    assert_eq!(print_module_with(m, TextFormat::V2), text);
    text
}

/// A valid module with one instance of every opcode except `undef` (which semantics 1 forbids).
fn every_instruction() -> Module {
    let mut mb = builder();
    mb.add_global("limit", Type::I32, ConstValue::I(7), 4);
    let twice = binary(ConstBinOp::Mul, Type::I32, global(Type::I32, 0), lit(Type::I32, ConstValue::I(2)));
    mb.add_global_const("twice", *twice, ConstValue::I(14), 4);
    let puts_sig = sysv64(vec![Type::ptr(Type::U8)], Type::I32);
    let puts = mb.declare_function("puts", puts_sig.clone(), Linkage::External, Some("puts".into())).unwrap();
    let log_sig = sysv64(vec![Type::I64], Type::Void);
    let log = mb.declare_function("log", log_sig, Linkage::External, Some("whale_log".into())).unwrap();
    let list = [("a", Type::I32), ("b", Type::I32), ("u", Type::U64), ("x", Type::F64), ("p", Type::ptr(Type::I32))];
    let mut f = mb.begin_function("every", params(&list), Type::I32);
    let [a, b, u, x, p] = [0, 1, 2, 3, 4].map(|i| f.param_value(i));
    let (empty_switch, head, exit, dead) =
        (f.create_block("empty_switch"), f.create_block("loop"), f.create_block("exit"), f.create_block("dead"));
    for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Sdiv, BinOp::Srem] {
        f.bin(op, Type::I32, a, b);
    }
    f.udiv(Type::U64, u, u);
    f.urem(Type::U64, u, u);
    f.and(Type::I32, a, b);
    f.or(Type::I32, a, b);
    f.xor(Type::I32, a, b);
    f.shl(Type::I32, a, b);
    f.lshr(Type::I32, a, b);
    f.ashr(Type::I32, a, b);
    f.fadd(Type::F64, x, x);
    f.fsub(Type::F64, x, x);
    f.fmul(Type::F64, x, x);
    f.fdiv(Type::F64, x, x);
    f.frem(Type::F64, x, x);
    f.not(Type::I32, a);
    f.mov(Type::I32, a);
    let less = f.cmp(CmpOp::Slt, Type::I32, a, b);
    f.icmp(ICmpPred::Uge, Type::U64, u, u);
    f.fcmp(FCmpPred::Uno, Type::F64, x, x);
    f.select(Type::I32, less, a, b);
    let wide = f.cast(CastOp::Sext, a, Type::I64);
    f.cast(CastOp::Zext, a, Type::U64);
    f.cast(CastOp::Trunc, u, Type::U8);
    let single = f.cast(CastOp::Ftrunc, x, Type::F32);
    f.cast(CastOp::Fext, single, Type::F64);
    f.cast(CastOp::ItofS, a, Type::F64);
    f.cast(CastOp::ItofU, u, Type::F32);
    f.cast(CastOp::FtoiS, x, Type::I64);
    f.cast(CastOp::FtoiU, x, Type::U16);
    f.cast(CastOp::Bitcast, x, Type::U64);
    f.cast(CastOp::Ptrtoint, p, Type::U64);
    let bytes = f.cast(CastOp::Inttoptr, u, Type::ptr(Type::U8));
    let sum = f.checked(CheckedOp::SAdd, Type::I32, a, b);
    f.checked(CheckedOp::SSub, Type::I32, a, b);
    f.checked(CheckedOp::SMul, Type::I32, a, b);
    f.checked(CheckedOp::UAdd, Type::U64, u, u);
    f.checked(CheckedOp::USub, Type::U64, u, u);
    f.checked(CheckedOp::UMul, Type::U64, u, u);
    let pair = Type::Tuple(vec![Type::I32, Type::Bool]);
    let value = f.extract(pair.clone(), Type::I32, sum, 0);
    let overflow = f.extract(pair, Type::Bool, sum, 1);
    let array = f.alloca(Type::array(Type::I32, 4), 16);
    let loaded = f.load(Type::I32, p, 4);
    f.store(Type::I32, loaded, p, 4);
    let len = f.const_u64(16);
    let buffer = f.alloca(Type::U8, 1);
    f.memcpy(buffer, bytes, len, 1);
    let zero_byte = f.const_u8(0);
    f.memset(buffer, zero_byte, len, 1);
    let zero = f.const_i64(0);
    let two = f.const_i64(2);
    f.gep(Type::ptr(Type::I32), array, &[zero, two]);
    f.null_function(puts_sig).unwrap();
    let address = f.function_addr(puts).unwrap();
    f.call(Callee::Direct(puts), vec![buffer]).unwrap();
    let result = f.call(Callee::Indirect(address), vec![buffer]).unwrap().unwrap();
    assert_eq!(f.call(Callee::Direct(log), vec![wide]), Ok(None));
    f.trap_if(overflow, "overflow");
    f.switch(a, empty_switch, &[(ConstValue::I(0), head), (ConstValue::I(-1), exit)]);
    f.set_insert_point(empty_switch);
    f.switch(b, head, &[]);
    f.set_insert_point(head);
    let phi = f.phi(Type::I32, &[(a, f.entry_block()), (b, empty_switch)]);
    let next = f.add(Type::I32, phi, value);
    f.add_phi_input(phi, next, head);
    f.cbr(less, head, exit);
    f.set_insert_point(exit);
    f.ret(Some(result));
    f.set_insert_point(dead);
    f.trap("unreachable");
    f.finish();
    let mut g = mb.begin_function("nothing", vec![], Type::Void);
    let end = g.create_block("end");
    g.br(end);
    g.set_insert_point(end);
    g.ret(None);
    g.finish();
    mb.finish()
}

const EVERY_INSTRUCTION: &str = r#"  global @limit: i32 = const i32 7, align 4, id @g0, init_expr i32 7
  global @twice: i32 = const i32 14, align 4, id @g1, init_expr mul(i32 @g0, i32 2)

  declare @f0 "puts": sysv64 (ptr<u8>) -> i32, linkage external, link_name "puts"
  declare @f1 "log": sysv64 (i64) -> void, linkage external, link_name "whale_log"
  declare @f2 "every": whale (i32, i32, u64, f64, ptr<i32>) -> i32, linkage internal
  declare @f3 "nothing": whale () -> void, linkage internal

  fn @every(a: i32, b: i32, u: u64, x: f64, p: ptr<i32>) -> i32, id @f2 {
  entry:
    %v5: i32 = add i32 %v0, %v1
    %v6: i32 = sub i32 %v0, %v1
    %v7: i32 = mul i32 %v0, %v1
    %v8: i32 = sdiv i32 %v0, %v1
    %v9: i32 = srem i32 %v0, %v1
    %v10: u64 = udiv u64 %v2, %v2
    %v11: u64 = urem u64 %v2, %v2
    %v12: i32 = and i32 %v0, %v1
    %v13: i32 = or i32 %v0, %v1
    %v14: i32 = xor i32 %v0, %v1
    %v15: i32 = shl i32 %v0, %v1
    %v16: i32 = lshr i32 %v0, %v1
    %v17: i32 = ashr i32 %v0, %v1
    %v18: f64 = fadd f64 %v3, %v3
    %v19: f64 = fsub f64 %v3, %v3
    %v20: f64 = fmul f64 %v3, %v3
    %v21: f64 = fdiv f64 %v3, %v3
    %v22: f64 = frem f64 %v3, %v3
    %v23: i32 = not i32 %v0
    %v24: i32 = mov i32 %v0
    %v25: bool = cmp slt i32 %v0, %v1
    %v26: bool = icmp uge u64 %v2, %v2
    %v27: bool = fcmp uno f64 %v3, %v3
    %v28: i32 = select bool %v25, i32 %v0, i32 %v1
    %v29: i64 = sext i32 %v0 to i64
    %v30: u64 = zext i32 %v0 to u64
    %v31: u8 = trunc u64 %v2 to u8
    %v32: f32 = ftrunc f64 %v3 to f32
    %v33: f64 = fext f32 %v32 to f64
    %v34: f64 = itof_s i32 %v0 to f64
    %v35: f32 = itof_u u64 %v2 to f32
    %v36: i64 = ftoi_s f64 %v3 to i64
    %v37: u16 = ftoi_u f64 %v3 to u16
    %v38: u64 = bitcast f64 %v3 to u64
    %v39: u64 = ptrtoint ptr<i32> %v4 to u64
    %v40: ptr<u8> = inttoptr u64 %v2 to ptr<u8>
    %v41: tuple<i32, bool> = sadd_chk i32 %v0, %v1
    %v42: tuple<i32, bool> = ssub_chk i32 %v0, %v1
    %v43: tuple<i32, bool> = smul_chk i32 %v0, %v1
    %v44: tuple<u64, bool> = uadd_chk u64 %v2, %v2
    %v45: tuple<u64, bool> = usub_chk u64 %v2, %v2
    %v46: tuple<u64, bool> = umul_chk u64 %v2, %v2
    %v47: i32 = extract %v41, 0
    %v48: bool = extract %v41, 1
    %v49: ptr<array<i32, 4>> = alloca array<i32, 4>, align 16
    %v50: i32 = load i32, ptr<i32> %v4, align 4
    store i32 %v50, ptr<i32> %v4, align 4
    %v51: u64 = const u64 16
    %v52: ptr<u8> = alloca u8, align 1
    memcpy ptr<u8> %v52, ptr<u8> %v40, u64 %v51, align 1
    %v53: u8 = const u8 0
    memset ptr<u8> %v52, u8 %v53, u64 %v51, align 1
    %v54: i64 = const i64 0
    %v55: i64 = const i64 2
    %v56: ptr<i32> = gep %v49, %v54, %v55
    %v57: fnptr<sysv64 (ptr<u8>) -> i32> = null_function
    %v58: fnptr<sysv64 (ptr<u8>) -> i32> = function_addr @f0
    %v59: i32 = call sysv64 i32 @f0(%v52)
    %v60: i32 = call sysv64 i32 indirect %v58(%v52)
    call sysv64 void @f1(%v29)
    trap_if bool %v48, reason="overflow"
    switch i32 %v0, label 1 [ 0: 2, -1: 3 ]
  empty_switch:
    switch i32 %v1, label 2 [ ]
  loop:
    %v61: i32 = phi i32 [ %v0, 0 ], [ %v1, 1 ], [ %v62, 2 ]
    %v62: i32 = add i32 %v61, %v47
    cbr bool %v25, label 2, label 3
  exit:
    ret i32 %v60
  dead:
    trap reason="unreachable"
  }

  fn @nothing() -> void, id @f3 {
  entry:
    br label 6
  end:
    ret void
  }

}
"#;

#[test]
fn every_instruction_in_format_2() {
    let m = every_instruction();
    assert_eq!(verify_module(&m), Ok(()));
    assert_eq!(print(&m), format!("{HEADER_2}{EVERY_INSTRUCTION}"));
}

/// `uninit` is the one instruction format 2 never had: a module using it
/// prints as format 4 (whale-ir §3), also when format 2 is asked for.
#[test]
fn uninit_makes_the_text_format_4() {
    let mut mb = builder();
    let mut f = mb.begin_function("f", vec![], Type::Void);
    let p = f.alloca(Type::I32, 4);
    f.uninit(Type::I32, p, 4);
    f.ret(None);
    f.finish();
    let m = mb.finish();
    assert_eq!(verify_module(&m), Ok(()));
    assert!(m.is_canonically_numbered() && !ir::format2_is_exact(&m));
    for text in [print(&m), print_module_with(&m, TextFormat::V2)] {
        assert!(text.starts_with("module {\n  format_version 4\n"), "{text}");
        assert!(text.contains("    uninit i32, ptr<i32> %v0, align 4\n"), "{text}");
    }
}

fn constants() -> Module {
    let mut mb = builder();
    mb.add_global("base", Type::I32, ConstValue::I(40), 4);
    mb.add_global("big", Type::U128, ConstValue::U(u128::MAX), 16);
    mb.add_global("neg", Type::I128, ConstValue::I(i128::MIN), 16);
    mb.add_global("pi", Type::F64, ConstValue::F(FloatBits::F64(std::f64::consts::PI.to_bits())), 8);
    let check = compare(
        ConstCmpOp::Ge,
        binary(ConstBinOp::Sub, Type::I8, lit(Type::I8, ConstValue::I(0)), lit(Type::I8, ConstValue::I(3))),
        lit(Type::I8, ConstValue::I(-3)),
    );
    mb.add_global_const("check", *check, ConstValue::Bool(true), 1);
    let mut f = mb.begin_function("consts", vec![], Type::Void);
    f.const_bool(true);
    f.const_bool(false);
    f.const_i1(-1);
    f.const_i1(0);
    f.const_i8(i8::MIN);
    f.const_i8(i8::MAX);
    f.const_i16(i16::MIN);
    f.const_i32(i32::MIN);
    f.const_int(Type::I32, i32::MAX.into());
    let i64_min = f.const_i64(i64::MIN);
    f.const_i64(i64::MAX);
    f.const_i128(i128::MIN);
    f.const_i128(i128::MAX);
    f.const_u1(1);
    f.const_u8(u8::MAX);
    f.const_u16(u16::MAX);
    f.const_u32(u32::MAX);
    f.const_u64(u64::MAX);
    f.const_u128(u128::MAX);
    f.const_uint(Type::U128, 0);
    f.const_f16_bits(0x7e00);
    f.const_float(Type::F16, 1.5);
    f.const_f32(-0.0);
    let one = f.const_f32(1.0);
    f.const_f64(f64::INFINITY);
    f.const_float(Type::F64, std::f64::consts::PI);
    f.const_float_bits(Type::F64, FloatBits::F64(1));
    let two = f.const_i32(2);
    let answer = binary(
        ConstBinOp::Add,
        Type::I32,
        global(Type::I32, 0),
        binary(ConstBinOp::Mul, Type::I32, local(Type::I32, two), lit(Type::I32, ConstValue::I(-3))),
    );
    f.const_decl("answer", *answer, ConstValue::I(34));
    let negative = compare(ConstCmpOp::Lt, local(Type::I64, i64_min), lit(Type::I64, ConstValue::I(0)));
    f.const_decl("is \"negative\"", *negative, ConstValue::Bool(true));
    let sum = binary(
        ConstBinOp::Add,
        Type::F32,
        local(Type::F32, one),
        lit(Type::F32, ConstValue::F(FloatBits::F32(0x3f80_0000))),
    );
    f.const_decl("sum", *sum, ConstValue::F(FloatBits::F32(0x4000_0000)));
    f.ret(None);
    f.finish();
    mb.finish()
}

#[test]
fn constants_of_every_scalar_type_and_constant_expressions() {
    let m = constants();
    assert_eq!(verify_module(&m), Ok(()));
    let expected = r#"  global @base: i32 = const i32 40, align 4, id @g0, init_expr i32 40
  global @big: u128 = const u128 340282366920938463463374607431768211455, align 16, id @g1, init_expr u128 340282366920938463463374607431768211455
  global @neg: i128 = const i128 -170141183460469231731687303715884105728, align 16, id @g2, init_expr i128 -170141183460469231731687303715884105728
  global @pi: f64 = const f64 0x400921fb54442d18, align 8, id @g3, init_expr f64 0x400921fb54442d18
  global @check: bool = const bool true, align 1, id @g4, init_expr ge(sub(i8 0, i8 3), i8 -3)

  declare @f0 "consts": whale () -> void, linkage internal

  fn @consts() -> void, id @f0 {
  entry:
    %v0: bool = const bool true
    %v1: bool = const bool false
    %v2: i1 = const i1 -1
    %v3: i1 = const i1 0
    %v4: i8 = const i8 -128
    %v5: i8 = const i8 127
    %v6: i16 = const i16 -32768
    %v7: i32 = const i32 -2147483648
    %v8: i32 = const i32 2147483647
    %v9: i64 = const i64 -9223372036854775808
    %v10: i64 = const i64 9223372036854775807
    %v11: i128 = const i128 -170141183460469231731687303715884105728
    %v12: i128 = const i128 170141183460469231731687303715884105727
    %v13: u1 = const u1 1
    %v14: u8 = const u8 255
    %v15: u16 = const u16 65535
    %v16: u32 = const u32 4294967295
    %v17: u64 = const u64 18446744073709551615
    %v18: u128 = const u128 340282366920938463463374607431768211455
    %v19: u128 = const u128 0
    %v20: f16 = const f16 0x7e00
    %v21: f16 = const f16 0x3e00
    %v22: f32 = const f32 0x80000000
    %v23: f32 = const f32 0x3f800000
    %v24: f64 = const f64 0x7ff0000000000000
    %v25: f64 = const f64 0x400921fb54442d18
    %v26: f64 = const f64 0x0000000000000001
    %v27: i32 = const i32 2
    %v28: i32 = const_decl "answer" add(i32 @g0, mul(i32 %v27, i32 -3)) => const i32 34
    %v29: bool = const_decl "is \"negative\"" lt(i64 %v9, i64 0) => const bool true
    %v30: f32 = const_decl "sum" add(f32 %v23, f32 0x3f800000) => const f32 0x40000000
    ret void
  }

}
"#;
    assert_eq!(print(&m), format!("{HEADER_2}{expected}"));
}

#[test]
fn undef_prints_its_type() {
    let mut mb = builder();
    let mut f = mb.begin_function("legacy", vec![], Type::I64);
    let u = f.undef(Type::I64);
    f.ret(Some(u));
    f.finish();
    let expected = r#"  declare @f0 "legacy": whale () -> i64, linkage internal

  fn @legacy() -> i64, id @f0 {
  entry:
    %v0: i64 = undef i64
    ret i64 %v0
  }

}
"#;
    assert_eq!(print(&mb.finish()), format!("{HEADER_2}{expected}"));
}

#[test]
fn ret_without_a_value_in_a_non_void_function_is_marked() {
    // Only invalid IR can contain it; the printer still says what the model holds.
    let mut mb = builder();
    let mut f = mb.begin_function("f", vec![], Type::I32);
    f.ret(None);
    f.finish();
    let text = print(&mb.finish());
    assert!(text.contains("\n  entry:\n    ret i32 <missing>\n  }\n"), "{text}");
}

#[test]
fn every_opcode_is_printed_by_these_tests() {
    let mut undef = builder();
    let mut f = undef.begin_function("u", vec![], Type::I8);
    let u = f.undef(Type::I8);
    f.ret(Some(u));
    f.finish();
    let mut uninit = builder();
    let mut f = uninit.begin_function("uninit", vec![], Type::Void);
    let p = f.alloca(Type::I32, 4);
    f.uninit(Type::I32, p, 4);
    f.ret(None);
    f.finish();
    let texts = [print(&every_instruction()), print(&constants()), print(&undef.finish()), print(&uninit.finish())];
    let mnemonics: Vec<&str> = texts
        .iter()
        .flat_map(|t| t.lines())
        .filter(|line| line.starts_with("    "))
        .filter_map(|line| {
            let inst = line.split_once(" = ").map_or(line.trim_start(), |(_, rhs)| rhs);
            inst.split(' ').next()
        })
        .collect();
    for op in Opcode::ALL {
        assert!(mnemonics.contains(&op.mnemonic()), "{} is never printed", op.mnemonic());
    }
}

#[test]
fn every_type_spelling() {
    let mut mb = builder();
    let scalars = [
        ("a", Type::Bool),
        ("b", Type::I1),
        ("c", Type::I8),
        ("d", Type::I16),
        ("e", Type::I32),
        ("f", Type::I64),
        ("g", Type::I128),
        ("h", Type::U1),
        ("i", Type::U8),
        ("j", Type::U16),
        ("k", Type::U32),
        ("l", Type::U64),
        ("m", Type::U128),
        ("n", Type::F16),
        ("o", Type::F32),
        ("p", Type::F64),
    ];
    let mut f = mb.begin_function("scalars", params(&scalars), Type::Void);
    f.ret(None);
    f.finish();
    let callback = Type::fn_ptr(sysv64(vec![Type::I32, Type::ptr(Type::U8)], Type::Void));
    let producer = Type::fn_ptr(FunctionSignature::whale(vec![], Type::I32));
    let empty_struct = Type::Struct(vec![]);
    let empty_tuple = Type::Tuple(vec![]);
    let nested = Type::array(
        Type::Struct(vec![
            Type::ptr(Type::Tuple(vec![Type::U8, Type::array(Type::F32, 2)])),
            Type::fn_ptr(FunctionSignature::whale(vec![empty_struct.clone()], empty_tuple.clone())),
        ]),
        3,
    );
    let compound = [
        ("a", Type::ptr(Type::Void)),
        ("b", callback),
        ("c", producer),
        ("d", Type::array(Type::I32, 4)),
        ("e", Type::Struct(vec![Type::U8, Type::U64])),
        ("g", Type::Tuple(vec![Type::I32, Type::Bool])),
        ("h", empty_struct),
        ("i", empty_tuple),
        ("j", nested),
        ("k", Type::ptr(Type::ptr(Type::F16))),
        ("l", Type::array(Type::array(Type::U1, 0), u64::MAX)),
    ];
    let ret = Type::Struct(vec![Type::I8]);
    let mut f = mb.begin_function("compound", params(&compound), ret.clone());
    let variadic = FunctionSignature { variadic: true, ..FunctionSignature::whale(vec![Type::I32], Type::Void) };
    f.alloca(Type::fn_ptr(variadic), 8);
    let only_dots = FunctionSignature { variadic: true, ..sysv64(vec![], Type::Void) };
    f.alloca(Type::fn_ptr(only_dots), 8);
    let s = f.alloca(ret.clone(), 1);
    let loaded = f.load(ret, s, 1);
    f.ret(Some(loaded));
    f.finish();
    let expected = r#"  declare @f0 "scalars": whale (bool, i1, i8, i16, i32, i64, i128, u1, u8, u16, u32, u64, u128, f16, f32, f64) -> void, linkage internal
  declare @f1 "compound": whale (ptr<void>, fnptr<sysv64 (i32, ptr<u8>) -> void>, fnptr<whale () -> i32>, array<i32, 4>, struct{u8, u64}, tuple<i32, bool>, struct{}, tuple<>, array<struct{ptr<tuple<u8, array<f32, 2>>>, fnptr<whale (struct{}) -> tuple<>>}, 3>, ptr<ptr<f16>>, array<array<u1, 0>, 18446744073709551615>) -> struct{i8}, linkage internal

  fn @scalars(a: bool, b: i1, c: i8, d: i16, e: i32, f: i64, g: i128, h: u1, i: u8, j: u16, k: u32, l: u64, m: u128, n: f16, o: f32, p: f64) -> void, id @f0 {
  entry:
    ret void
  }

  fn @compound(a: ptr<void>, b: fnptr<sysv64 (i32, ptr<u8>) -> void>, c: fnptr<whale () -> i32>, d: array<i32, 4>, e: struct{u8, u64}, g: tuple<i32, bool>, h: struct{}, i: tuple<>, j: array<struct{ptr<tuple<u8, array<f32, 2>>>, fnptr<whale (struct{}) -> tuple<>>}, 3>, k: ptr<ptr<f16>>, l: array<array<u1, 0>, 18446744073709551615>) -> struct{i8}, id @f1 {
  entry:
    %v27: ptr<fnptr<whale (i32, ...) -> void>> = alloca fnptr<whale (i32, ...) -> void>, align 8
    %v28: ptr<fnptr<sysv64 (...) -> void>> = alloca fnptr<sysv64 (...) -> void>, align 8
    %v29: ptr<struct{i8}> = alloca struct{i8}, align 1
    %v30: struct{i8} = load struct{i8}, ptr<struct{i8}> %v29, align 1
    ret struct{i8} %v30
  }

}
"#;
    assert_eq!(print(&mb.finish()), format!("{HEADER_2}{expected}"));
}

/// Control characters, quotes, backslashes and line/paragraph separators.
const NASTY: &str = "q\"b\\ n\n r\r t\t z\0 c\u{1}\u{1b}\u{7f}\u{85} ls\u{2028} ps\u{2029} é✓";
const NASTY_QUOTED: &str = r#""q\"b\\ n\n r\r t\t z\0 c\u{1}\u{1b}\u{7f}\u{85} ls\u{2028} ps\u{2029} é✓""#;
/// Link names cannot contain NUL.
const LINK: &str = "l\"i\\n\tk\u{1f}\u{2028}";
const LINK_QUOTED: &str = r#""l\"i\\n\tk\u{1f}\u{2028}""#;

#[test]
fn strings_use_one_escaping_everywhere() {
    let mut mb = builder();
    let sig = FunctionSignature::whale(vec![], Type::Void);
    mb.declare_function(NASTY, sig.clone(), Linkage::External, Some(LINK.into())).unwrap();
    mb.declare_function("plain", sig, Linkage::External, Some("\u{2028}\\".into())).unwrap();
    let mut f = mb.begin_function("f", params(&[("c", Type::Bool)]), Type::Void);
    let c = f.param_value(0);
    f.trap_if(c, NASTY);
    f.const_decl(NASTY, ConstExpr::literal(Type::U8, ConstValue::U(1)), ConstValue::U(1));
    f.trap(NASTY);
    f.finish();
    let m = mb.finish();
    assert_eq!(verify_module(&m), Ok(()));
    let expected = format!(
        r#"  declare @f0 {NASTY_QUOTED}: whale () -> void, linkage external, link_name {LINK_QUOTED}
  declare @f1 "plain": whale () -> void, linkage external, link_name "\u{{2028}}\\"
  declare @f2 "f": whale (bool) -> void, linkage internal

  fn @f(c: bool) -> void, id @f2 {{
  entry:
    trap_if bool %v0, reason={NASTY_QUOTED}
    %v1: u8 = const_decl {NASTY_QUOTED} u8 1 => const u8 1
    trap reason={NASTY_QUOTED}
  }}

}}
"#
    );
    assert_eq!(print(&m), format!("{HEADER_2}{expected}"));
}

// ---- format 4 ------------------------------------------------------------------------------------------------------

#[test]
fn a_name_that_cannot_be_printed_bare_selects_format_4() {
    let mut mb = builder();
    let mut f = mb.begin_function("f", params(&[("x", Type::I32)]), Type::I32);
    let x = f.param_value(0);
    let spaced = f.create_block("a b");
    f.br(spaced);
    f.set_insert_point(spaced);
    let phi = f.phi(Type::I32, &[(x, f.entry_block())]);
    f.ret(Some(phi));
    f.finish();
    let m = mb.finish();
    assert!(m.is_canonically_numbered());
    assert!(!ir::format2_is_exact(&m));
    let expected = r#"  declare @f0 "f": whale (i32) -> i32, linkage internal

  fn @f0 "f"(%v0 "x": i32) -> i32, entry %b0 {
  %b0 "entry":
    br label %b1
  %b1 "a b":
    %v1: i32 = phi i32 [ %v0, %b0 ]
    ret i32 %v1
  }

}
"#;
    assert_eq!(print(&m), format!("{HEADER_4}{expected}"));
}

#[test]
fn names_are_quoted_and_escaped_in_format_4() {
    let mut mb = builder();
    mb.add_global("g x", Type::U8, ConstValue::U(1), 1);
    let mut f = mb.begin_function("my \"fn\"", params(&[("", Type::I8)]), Type::I8);
    let p = f.param_value(0);
    let tab = f.create_block("tab\there");
    f.br(tab);
    f.set_insert_point(tab);
    f.ret(Some(p));
    f.finish();
    let expected = r#"  global @g0 "g x": u8 = const u8 1, align 1, init_expr u8 1

  declare @f0 "my \"fn\"": whale (i8) -> i8, linkage internal

  fn @f0 "my \"fn\""(%v0 "": i8) -> i8, entry %b0 {
  %b0 "entry":
    br label %b1
  %b1 "tab\there":
    ret i8 %v0
  }

}
"#;
    assert_eq!(print(&mb.finish()), format!("{HEADER_4}{expected}"));
    // Each kind of name alone forces format 4.
    let (global_only, function_only, param_only) = {
        let mut a = builder();
        a.add_global("a.b$c", Type::U8, ConstValue::U(1), 1);
        a.add_global("-", Type::U8, ConstValue::U(1), 1);
        let mut b = builder();
        let mut f = b.begin_function("f()", vec![], Type::Void);
        f.ret(None);
        f.finish();
        let mut c = builder();
        let mut f = c.begin_function("f", params(&[("x:", Type::I8)]), Type::Void);
        f.ret(None);
        f.finish();
        (a.finish(), b.finish(), c.finish())
    };
    for m in [global_only, function_only, param_only] {
        assert!(print(&m).starts_with(HEADER_4), "{}", print(&m));
    }
    // Unicode letters and digits, `_`, `.` and `$` are bare.
    let mut mb = builder();
    let mut f = mb.begin_function("tên_hàm.2$", params(&[("biến", Type::I8)]), Type::Void);
    let next = f.create_block("if.then");
    f.br(next);
    f.set_insert_point(next);
    f.ret(None);
    f.finish();
    let text = print(&mb.finish());
    assert!(text.starts_with(HEADER_2), "{text}");
    assert!(
        text.contains("\n  fn @tên_hàm.2$(biến: i8) -> void, id @f0 {\n  entry:\n    br label 1\n  if.then:\n"),
        "{text}"
    );
}

#[test]
fn a_module_that_is_not_canonically_numbered_prints_in_format_4() {
    // A rejected instruction consumes a value id that is defined nowhere, so the next function's parameter does not
    // follow the previous function's values: format 2, which omits parameter ids, could not state it.
    let mut mb = builder();
    let mut f = mb.begin_function("first", vec![], Type::Void);
    f.ret(None);
    let lost = f.const_i32(1);
    assert_eq!(lost, ValueId::from_u32(0));
    f.finish();
    let mut g = mb.begin_function("second", params(&[("y", Type::I64)]), Type::I64);
    let y = g.param_value(0);
    assert_eq!(y, ValueId::from_u32(1));
    g.ret(Some(y));
    g.finish();
    let m = mb.finish();
    assert!(!m.is_canonically_numbered());
    let expected = r#"  declare @f0 "first": whale () -> void, linkage internal
  declare @f1 "second": whale (i64) -> i64, linkage internal

  fn @f0 "first"() -> void, entry %b0 {
  %b0 "entry":
    ret void
  }

  fn @f1 "second"(%v1 "y": i64) -> i64, entry %b1 {
  %b1 "entry":
    ret i64 %v1
  }

}
"#;
    assert_eq!(print(&m), format!("{HEADER_4}{expected}"));
}

#[test]
fn text_format_v4_forces_format_4() {
    let mut mb = builder();
    mb.add_global("limit", Type::I32, ConstValue::I(-7), 4);
    let mut f = mb.begin_function("pick", params(&[("c", Type::Bool), ("k", Type::U8)]), Type::U8);
    let (c, k) = (f.param_value(0), f.param_value(1));
    let (left, right, join) = (f.create_block("left"), f.create_block("right"), f.create_block("join"));
    f.cbr(c, left, right);
    f.set_insert_point(left);
    f.switch(k, join, &[(ConstValue::U(1), right), (ConstValue::U(255), join)]);
    f.set_insert_point(right);
    f.br(join);
    f.set_insert_point(join);
    let phi = f.phi(Type::U8, &[(k, left), (k, right)]);
    f.ret(Some(phi));
    f.finish();
    let m = mb.finish();
    assert_eq!(verify_module(&m), Ok(()));
    let v4 = r#"  global @g0 "limit": i32 = const i32 -7, align 4, init_expr i32 -7

  declare @f0 "pick": whale (bool, u8) -> u8, linkage internal

  fn @f0 "pick"(%v0 "c": bool, %v1 "k": u8) -> u8, entry %b0 {
  %b0 "entry":
    cbr bool %v0, label %b1, label %b2
  %b1 "left":
    switch u8 %v1, label %b3 [ 1: %b2, 255: %b3 ]
  %b2 "right":
    br label %b3
  %b3 "join":
    %v2: u8 = phi u8 [ %v1, %b1 ], [ %v1, %b2 ]
    ret u8 %v2
  }

}
"#;
    assert_eq!(print_module_with(&m, TextFormat::V4), format!("{HEADER_4}{v4}"));
    // The same module is canonical, so by default it prints in format 2.
    let v2 = r#"  global @limit: i32 = const i32 -7, align 4, id @g0, init_expr i32 -7

  declare @f0 "pick": whale (bool, u8) -> u8, linkage internal

  fn @pick(c: bool, k: u8) -> u8, id @f0 {
  entry:
    cbr bool %v0, label 1, label 2
  left:
    switch u8 %v1, label 3 [ 1: 2, 255: 3 ]
  right:
    br label 3
  join:
    %v2: u8 = phi u8 [ %v1, 1 ], [ %v1, 2 ]
    ret u8 %v2
  }

}
"#;
    assert_eq!(print(&m), format!("{HEADER_2}{v2}"));
}

#[test]
fn empty_module() {
    let m = builder().finish();
    assert_eq!(print(&m), format!("{HEADER_2}}}\n"));
    assert_eq!(print_module_with(&m, TextFormat::V4), format!("{HEADER_4}}}\n"));
}

#[test]
fn printing_is_deterministic() {
    // Building the same module twice gives the same text, byte for byte, in both formats.
    for format in [TextFormat::Auto, TextFormat::V4] {
        let texts: Vec<String> = (0..3).map(|_| print_module_with(&every_instruction(), format)).collect();
        assert!(texts.windows(2).all(|w| w[0] == w[1]));
        let texts: Vec<String> = (0..3).map(|_| print_module_with(&constants(), format)).collect();
        assert!(texts.windows(2).all(|w| w[0] == w[1]));
    }
}

/// Printing splits large multi-function modules between threads; the text is
/// the sequential one, through `print_module` and streamed through `write_module`.
#[test]
fn parallel_printing_writes_the_sequential_text() {
    let mut mb = builder();
    for k in 0..500 {
        let mut f = mb.begin_function(&format!("f{k}"), vec![("x".into(), Type::I64)], Type::I64);
        let x = f.param_value(0);
        let mut v = x;
        for j in 0..60 {
            let c = f.const_i64(j);
            v = f.add(Type::I64, v, c);
        }
        f.ret(Some(v));
        f.finish();
    }
    let m = mb.finish();
    let print = |threads: usize, format: TextFormat| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut streamed = Vec::new();
            ir::write_module(&m, format, &mut streamed).unwrap();
            (print_module_with(&m, format), String::from_utf8(streamed).unwrap())
        })
    };
    for format in [TextFormat::Auto, TextFormat::V4] {
        let (text, streamed) = print(1, format);
        assert_eq!(streamed, text);
        for threads in [2, 4] {
            assert_eq!(print(threads, format), (text.clone(), text.clone()), "{threads} threads");
        }
    }
}
