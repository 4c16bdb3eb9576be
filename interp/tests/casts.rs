//! Conversions (whale-upstream §b.6, §b.7, §i): extension, truncation,
//! reinterpretation, round-to-nearest-even numeric conversions, float-to-int
//! truncation with traps, and pointer/integer casts without provenance.

mod common;

use common::*;
use interp::{MemoryTrap, TrapReason, Value};
use ir::{CastOp, Type};

fn cast(op: CastOp, from: Type, to: Type, v: Value) -> Result<Value, interp::ExecError> {
    let t = to.clone();
    let m = function(&[from], to, |f, p| Some(f.cast(op, p[0], t)));
    run(&m, &[v]).map(|o| o.value.expect("a value"))
}

fn ok(op: CastOp, from: Type, to: Type, v: Value) -> Value {
    cast(op, from, to, v).expect("no trap")
}

fn trap_of(op: CastOp, from: Type, to: Type, v: Value) -> TrapReason {
    cast(op, from, to, v).expect_err("a trap").as_trap().expect("a trap").reason.clone()
}

#[test]
fn extension_truncation_and_reinterpretation() {
    // 0xFF zero-extended to 16 bits is 0x00FF, sign-extended 0xFFFF.
    assert_eq!(ok(CastOp::Zext, Type::U8, Type::U16, Value::U8(0xff)), Value::U16(0x00ff));
    assert_eq!(ok(CastOp::Sext, Type::U8, Type::U16, Value::U8(0xff)), Value::U16(0xffff));
    assert_eq!(ok(CastOp::Zext, Type::I8, Type::I32, Value::I8(-1)), Value::I32(255));
    assert_eq!(ok(CastOp::Sext, Type::I8, Type::I64, Value::I8(-2)), Value::I64(-2));
    assert_eq!(ok(CastOp::Sext, Type::I1, Type::I8, Value::I1(-1)), Value::I8(-1));
    assert_eq!(ok(CastOp::Zext, Type::I1, Type::U8, Value::I1(-1)), Value::U8(1));
    assert_eq!(ok(CastOp::Sext, Type::I64, Type::I128, Value::I64(i64::MIN)), Value::I128(i128::from(i64::MIN)));
    assert_eq!(ok(CastOp::Zext, Type::I64, Type::U128, Value::I64(-1)), Value::U128(u128::from(u64::MAX)));
    assert_eq!(ok(CastOp::Sext, Type::U32, Type::U128, Value::U32(0x8000_0000)), Value::U128(u128::MAX << 31));
    assert_eq!(ok(CastOp::Trunc, Type::I32, Type::I8, Value::I32(0x1ff)), Value::I8(-1));
    assert_eq!(ok(CastOp::Trunc, Type::U128, Type::U8, Value::U128(0x1234)), Value::U8(0x34));
    assert_eq!(ok(CastOp::Trunc, Type::I128, Type::I64, Value::I128(-1)), Value::I64(-1));
    assert_eq!(ok(CastOp::Trunc, Type::U16, Type::U1, Value::U16(3)), Value::U1(1));
    assert_eq!(ok(CastOp::Trunc, Type::U16, Type::I1, Value::U16(1)), Value::I1(-1));
    // Bool zero-extends to 0/1 (never to i1).
    assert_eq!(ok(CastOp::Zext, Type::Bool, Type::U8, Value::Bool(true)), Value::U8(1));
    assert_eq!(ok(CastOp::Zext, Type::Bool, Type::I32, Value::Bool(true)), Value::I32(1));
    assert_eq!(ok(CastOp::Zext, Type::Bool, Type::U1, Value::Bool(true)), Value::U1(1));
    assert_eq!(ok(CastOp::Zext, Type::Bool, Type::I128, Value::Bool(false)), Value::I128(0));
    // Same-width bitcasts keep the bits.
    assert_eq!(ok(CastOp::Bitcast, Type::I32, Type::U32, Value::I32(-1)), Value::U32(u32::MAX));
    assert_eq!(ok(CastOp::Bitcast, Type::U64, Type::I64, Value::U64(1 << 63)), Value::I64(i64::MIN));
    assert_eq!(ok(CastOp::Bitcast, Type::F32, Type::I32, Value::F32(-0.0)), Value::I32(i32::MIN));
    assert_eq!(ok(CastOp::Bitcast, Type::I16, Type::F16, Value::I16(-1)), Value::f16_bits(0xffff));
    assert_eq!(ok(CastOp::Bitcast, Type::U64, Type::F64, Value::U64(0x3ff0_0000_0000_0000)), Value::F64(1.0));
    assert_eq!(ok(CastOp::Bitcast, Type::F16, Type::U16, Value::f16_bits(0x3c00)), Value::U16(0x3c00));
    assert_eq!(ok(CastOp::Bitcast, Type::U128, Type::I128, Value::U128(u128::MAX)), Value::I128(-1));
}

#[test]
fn int_to_float_rounds_to_nearest_even() {
    // 2^53 + 1 is halfway between 2^53 and 2^53 + 2: ties to even.
    assert_eq!(ok(CastOp::ItofS, Type::I64, Type::F64, Value::I64((1 << 53) + 1)), Value::F64(9_007_199_254_740_992.0));
    assert_eq!(ok(CastOp::ItofS, Type::I64, Type::F64, Value::I64((1 << 53) + 3)), Value::F64(9_007_199_254_740_996.0));
    assert_eq!(ok(CastOp::ItofS, Type::I32, Type::F32, Value::I32((1 << 24) + 1)), Value::F32(16_777_216.0));
    assert_eq!(ok(CastOp::ItofU, Type::U64, Type::F32, Value::U64(u64::MAX)), Value::F32(18_446_744_073_709_551_616.0));
    assert_eq!(ok(CastOp::ItofS, Type::I8, Type::F32, Value::I8(-128)), Value::F32(-128.0));
    assert_eq!(ok(CastOp::ItofS, Type::I1, Type::F64, Value::I1(-1)), Value::F64(-1.0));
    assert_eq!(ok(CastOp::ItofU, Type::U128, Type::F64, Value::U128(u128::MAX)), Value::F64(2f64.powi(128)));
    assert_eq!(ok(CastOp::ItofS, Type::I128, Type::F32, Value::I128(i128::MIN)), Value::F32(-(2f32.powi(127))));
    // One rounding straight to f32 (no double rounding through f64):
    // 2^60 + 2^36 + 1 is just above the f32 midpoint 2^60 + 2^36.
    let x = (1u64 << 60) + (1 << 36) + 1;
    assert_eq!(ok(CastOp::ItofU, Type::U64, Type::F32, Value::U64(x)), Value::f32_bits(0x5d80_0001));
    // f16: 2049 is halfway between 2048 and 2050 (even); 65519 rounds to 65504; 65520 overflows.
    assert_eq!(ok(CastOp::ItofS, Type::I32, Type::F16, Value::I32(2049)), Value::f16_bits(0x6800));
    assert_eq!(ok(CastOp::ItofS, Type::I32, Type::F16, Value::I32(2051)), Value::f16_bits(0x6802));
    assert_eq!(ok(CastOp::ItofU, Type::U32, Type::F16, Value::U32(65519)), Value::f16_bits(0x7bff));
    assert_eq!(ok(CastOp::ItofU, Type::U32, Type::F16, Value::U32(65520)), Value::f16_bits(0x7c00));
    assert_eq!(ok(CastOp::ItofS, Type::I64, Type::F16, Value::I64(-70_000)), Value::f16_bits(0xfc00));
    assert_eq!(ok(CastOp::ItofU, Type::U128, Type::F16, Value::U128(u128::MAX)), Value::f16_bits(0x7c00));
}

#[test]
fn float_width_changes() {
    assert_eq!(ok(CastOp::Fext, Type::F16, Type::F64, Value::f16_bits(0x0001)), Value::F64(2f64.powi(-24)));
    assert_eq!(ok(CastOp::Fext, Type::F32, Type::F64, Value::F32(0.1)), Value::F64(f64::from(0.1f32)));
    assert_eq!(ok(CastOp::Fext, Type::F16, Type::F32, Value::f16_bits(0xfc00)), Value::F32(f32::NEG_INFINITY));
    assert_eq!(ok(CastOp::Ftrunc, Type::F64, Type::F32, Value::F64(0.1)), Value::F32(0.1));
    assert_eq!(ok(CastOp::Ftrunc, Type::F64, Type::F32, Value::F64(1e300)), Value::F32(f32::INFINITY));
    assert_eq!(ok(CastOp::Ftrunc, Type::F32, Type::F16, Value::F32(65520.0)), Value::f16_bits(0x7c00));
    assert_eq!(ok(CastOp::Ftrunc, Type::F64, Type::F16, Value::F64(-0.0)), Value::f16_bits(0x8000));
    // One rounding from f64 to f16: 1 + 2^-11 + 2^-40 is just above the midpoint
    // between 1 and 1 + 2^-10, so it rounds up; rounding through f32 first would
    // land on the midpoint and then round to even (1.0).
    let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(ok(CastOp::Ftrunc, Type::F64, Type::F16, Value::F64(x)), Value::f16_bits(0x3c01));
    assert_eq!(ok(CastOp::Ftrunc, Type::F64, Type::F16, Value::F64(1.0 + 2f64.powi(-11))), Value::f16_bits(0x3c00));
    assert_eq!(ok(CastOp::Ftrunc, Type::F32, Type::F16, Value::F32(2f32.powi(-25))), Value::f16_bits(0x0000));
    assert_eq!(ok(CastOp::Ftrunc, Type::F32, Type::F16, Value::F32(3.0 * 2f32.powi(-26))), Value::f16_bits(0x0001));
}

#[test]
fn float_to_int_truncates_then_range_checks() {
    assert_eq!(ok(CastOp::FtoiS, Type::F64, Type::I8, Value::F64(127.9)), Value::I8(127));
    assert_eq!(ok(CastOp::FtoiS, Type::F64, Type::I8, Value::F64(-128.9)), Value::I8(-128));
    assert_eq!(ok(CastOp::FtoiS, Type::F32, Type::I32, Value::F32(-2.5)), Value::I32(-2));
    assert_eq!(ok(CastOp::FtoiU, Type::F64, Type::U8, Value::F64(-0.9)), Value::U8(0));
    assert_eq!(ok(CastOp::FtoiU, Type::F64, Type::U8, Value::F64(-0.0)), Value::U8(0));
    assert_eq!(ok(CastOp::FtoiU, Type::F64, Type::U8, Value::F64(255.99)), Value::U8(255));
    assert_eq!(ok(CastOp::FtoiS, Type::F64, Type::I64, Value::F64(-9_223_372_036_854_775_808.0)), Value::I64(i64::MIN));
    assert_eq!(ok(CastOp::FtoiU, Type::F64, Type::U128, Value::F64(2f64.powi(127))), Value::U128(1 << 127));
    assert_eq!(ok(CastOp::FtoiS, Type::F16, Type::I16, Value::f16_bits(0x77ff)), Value::I16(32752));
    assert_eq!(ok(CastOp::FtoiS, Type::F16, Type::I1, Value::f16_bits(0xbc00)), Value::I1(-1));
    assert_eq!(ok(CastOp::FtoiU, Type::F32, Type::U1, Value::F32(1.5)), Value::U1(1));
    for (from, to, v) in [
        (Type::F64, Type::I8, Value::F64(128.0)),
        (Type::F64, Type::I8, Value::F64(-129.0)),
        (Type::F64, Type::U8, Value::F64(-1.0)),
        (Type::F64, Type::U8, Value::F64(256.0)),
        (Type::F64, Type::I64, Value::F64(9_223_372_036_854_775_808.0)),
        (Type::F32, Type::U64, Value::F32(18_446_744_073_709_551_616.0)),
        (Type::F16, Type::I8, Value::f16_bits(0x5800)),
        (Type::F32, Type::I1, Value::F32(1.0)),
        (Type::F64, Type::U128, Value::F64(2f64.powi(128))),
    ] {
        assert_eq!(
            trap_of(ftoi_for(&to), from.clone(), to.clone(), v.clone()),
            TrapReason::FloatToIntOutOfRange,
            "{v:?} to {to}"
        );
    }
    assert_eq!(trap_of(CastOp::FtoiS, Type::F64, Type::I32, Value::F64(f64::NAN)), TrapReason::FloatToIntNaN);
    assert_eq!(trap_of(CastOp::FtoiU, Type::F16, Type::U8, Value::f16_bits(0x7e00)), TrapReason::FloatToIntNaN);
    assert_eq!(trap_of(CastOp::FtoiS, Type::F32, Type::I64, Value::F32(f32::INFINITY)), TrapReason::FloatToIntInfinite);
    assert_eq!(
        trap_of(CastOp::FtoiU, Type::F64, Type::U64, Value::F64(f64::NEG_INFINITY)),
        TrapReason::FloatToIntInfinite
    );
}

/// `ftoi_s` or `ftoi_u` by the destination's signedness.
fn ftoi_for(to: &Type) -> CastOp {
    if int_info(to).1 {
        CastOp::FtoiS
    } else {
        CastOp::FtoiU
    }
}

#[test]
fn pointer_integer_casts() {
    // ptrtoint gives the address; inttoptr gives a pointer without provenance.
    let m = function(&[], Type::U64, |f, _| {
        let slot = f.alloca(Type::I64, 8);
        Some(f.cast(CastOp::Ptrtoint, slot, Type::U64))
    });
    let Value::U64(address) = value(&m, &[]) else { panic!("u64") };
    assert!(address >= 0x1000 && address % 8 == 0, "{address:#x}");
    let m = function(&[], Type::I64, |f, _| {
        let slot = f.alloca(Type::I64, 8);
        let seven = f.const_i64(7);
        f.store(Type::I64, seven, slot, 8);
        let address = f.cast(CastOp::Ptrtoint, slot, Type::U64);
        let raw = f.cast(CastOp::Inttoptr, address, Type::ptr(Type::I64));
        Some(f.load(Type::I64, raw, 8))
    });
    assert_eq!(reason(&m, &[]), TrapReason::Memory(MemoryTrap::MissingProvenance));
    let m = function(&[], Type::I64, |f, _| {
        let zero = f.const_u64(0);
        let null = f.cast(CastOp::Inttoptr, zero, Type::ptr(Type::I64));
        Some(f.load(Type::I64, null, 8))
    });
    assert_eq!(reason(&m, &[]), TrapReason::Memory(MemoryTrap::NullPointer));
    // A pointer-to-pointer bitcast keeps provenance.
    let m = function(&[], Type::U32, |f, _| {
        let slot = f.alloca(Type::I32, 4);
        let v = f.const_i32(-1);
        f.store(Type::I32, v, slot, 4);
        let as_u32 = f.cast(CastOp::Bitcast, slot, Type::ptr(Type::U32));
        Some(f.load(Type::U32, as_u32, 4))
    });
    assert_eq!(value(&m, &[]), Value::U32(u32::MAX));
    // ptrtoint truncates to narrow types.
    let m = function(&[], Type::U8, |f, _| {
        let slot = f.alloca(Type::I64, 8);
        Some(f.cast(CastOp::Ptrtoint, slot, Type::U8))
    });
    assert_eq!(value(&m, &[]), Value::U8((address & 0xff) as u8));
}
