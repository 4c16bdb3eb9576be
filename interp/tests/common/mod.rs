//! Helpers shared by the interpreter tests: build a one-function module, run
//! it, and pick apart the outcome.

#![allow(dead_code)]

use interp::{ExecError, Interpreter, LimitExceeded, Options, Outcome, Trap, TrapReason, Value};
use ir::{DataLayout, FunctionBuilder, Module, ModuleBuilder, Type, ValueId};

pub fn builder() -> ModuleBuilder {
    ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
}

/// A module with one function `f(params) -> ret` whose body `body` builds from
/// the parameter values; `body` returns the value to return (or `None`).
pub fn function(
    params: &[Type],
    ret: Type,
    body: impl FnOnce(&mut FunctionBuilder<'_>, &[ValueId]) -> Option<ValueId>,
) -> Module {
    let mut mb = builder();
    let named = params.iter().enumerate().map(|(i, t)| (format!("p{i}"), t.clone())).collect();
    let mut f = mb.begin_function("f", named, ret);
    let values: Vec<ValueId> = (0..params.len()).map(|i| f.param_value(i)).collect();
    let result = body(&mut f, &values);
    if !f.is_current_block_terminated() {
        f.ret(result);
    }
    f.finish();
    let m = mb.finish();
    if let Err(e) = ir::verify_module(&m) {
        panic!("test module does not verify: {e}\n{}", ir::print_module(&m));
    }
    m
}

pub fn interp(m: &Module) -> Interpreter {
    Interpreter::new(m, Options::default()).expect("module loads")
}

/// Runs `f` with default options.
pub fn run(m: &Module, args: &[Value]) -> Result<Outcome, ExecError> {
    interp(m).call("f", args)
}

/// The value `f` returns.
pub fn value(m: &Module, args: &[Value]) -> Value {
    match run(m, args) {
        Ok(Outcome { value: Some(v), .. }) => v,
        other => panic!("expected a value, got {other:?}\n{}", ir::print_module(m)),
    }
}

/// The trap `f` stops with.
pub fn trap(m: &Module, args: &[Value]) -> Trap {
    match run(m, args) {
        Err(ExecError::Trap(t)) => *t,
        other => panic!("expected a trap, got {other:?}\n{}", ir::print_module(m)),
    }
}

/// The trap reason `f` stops with.
pub fn reason(m: &Module, args: &[Value]) -> TrapReason {
    trap(m, args).reason
}

/// The limit `f` stops at under `options`.
pub fn limit(m: &Module, options: Options, args: &[Value]) -> LimitExceeded {
    let mut i = Interpreter::new(m, options).expect("module loads");
    match i.call("f", args) {
        Err(ExecError::Limit(l)) => *l,
        other => panic!("expected a limit, got {other:?}"),
    }
}

/// `f(a: ty, b: ty) -> ret { op a, b }` for a binary opcode.
pub fn binary(op: ir::BinOp, ty: Type) -> Module {
    function(&[ty.clone(), ty.clone()], ty.clone(), |f, p| Some(f.bin(op, ty, p[0], p[1])))
}

/// The result of `op a, b` at type `ty`.
pub fn eval_binary(op: ir::BinOp, ty: Type, a: Value, b: Value) -> Result<Value, ExecError> {
    let m = binary(op, ty);
    run(&m, &[a, b]).map(|o| o.value.expect("a value"))
}

/// Integer values of any type as `i128` (u128 above i128::MAX saturates).
pub fn int(v: &Value) -> i128 {
    match v {
        Value::U128(x) => i128::try_from(*x).unwrap_or(i128::MAX),
        other => other.as_i128().expect("an integer"),
    }
}

/// The value of integer type `ty` with the bit pattern of `v` (truncated).
pub fn typed(ty: &Type, v: i128) -> Value {
    match ty {
        Type::I1 => Value::I1(if v & 1 != 0 { -1 } else { 0 }),
        Type::I8 => Value::I8(v as i8),
        Type::I16 => Value::I16(v as i16),
        Type::I32 => Value::I32(v as i32),
        Type::I64 => Value::I64(v as i64),
        Type::I128 => Value::I128(v),
        Type::U1 => Value::U1((v & 1) as u8),
        Type::U8 => Value::U8(v as u8),
        Type::U16 => Value::U16(v as u16),
        Type::U32 => Value::U32(v as u32),
        Type::U64 => Value::U64(v as u64),
        Type::U128 => Value::U128(v as u128),
        other => panic!("not an integer type: {other}"),
    }
}

/// Every integer type.
pub const INT_TYPES: [Type; 12] = [
    Type::I1,
    Type::I8,
    Type::I16,
    Type::I32,
    Type::I64,
    Type::I128,
    Type::U1,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::U128,
];

/// Width and signedness of an integer type.
pub fn int_info(ty: &Type) -> (u32, bool) {
    match ty {
        Type::I1 => (1, true),
        Type::I8 => (8, true),
        Type::I16 => (16, true),
        Type::I32 => (32, true),
        Type::I64 => (64, true),
        Type::I128 => (128, true),
        Type::U1 => (1, false),
        Type::U8 => (8, false),
        Type::U16 => (16, false),
        Type::U32 => (32, false),
        Type::U64 => (64, false),
        Type::U128 => (128, false),
        other => panic!("not an integer type: {other}"),
    }
}

/// The raw N-bit pattern of an integer value, zero-extended.
pub fn pattern(v: &Value) -> u128 {
    let (raw, bits): (u128, u32) = match *v {
        Value::I1(x) => (x as u128, 1),
        Value::I8(x) => (x as u128, 8),
        Value::I16(x) => (x as u128, 16),
        Value::I32(x) => (x as u128, 32),
        Value::I64(x) => (x as u128, 64),
        Value::I128(x) => (x as u128, 128),
        Value::U1(x) => (u128::from(x), 1),
        Value::U8(x) => (u128::from(x), 8),
        Value::U16(x) => (u128::from(x), 16),
        Value::U32(x) => (u128::from(x), 32),
        Value::U64(x) => (u128::from(x), 64),
        Value::U128(x) => (x, 128),
        _ => panic!("not an integer: {v:?}"),
    };
    if bits == 128 {
        raw
    } else {
        raw & ((1u128 << bits) - 1)
    }
}
