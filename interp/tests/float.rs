//! Float semantics (whale-upstream §b.6, §i): IEEE arithmetic at the declared
//! width with round-to-nearest-even, one canonical positive quiet NaN per width
//! for arithmetic results, exact bit preservation by moves, selects, phis,
//! loads, stores and bitcasts, and every comparison predicate.

mod common;

use common::*;
use interp::Value;
use ir::{BinOp, CastOp, CmpOp, FCmpPred, Type};
use proptest::prelude::*;

fn f16(bits: u16) -> Value {
    Value::f16_bits(bits)
}

fn bits(v: &Value) -> u64 {
    match v {
        Value::F16(x) => u64::from(x.to_bits()),
        Value::F32(x) => u64::from(x.to_bits()),
        Value::F64(x) => x.to_bits(),
        other => panic!("not a float: {other:?}"),
    }
}

fn fbin(op: BinOp, ty: Type, a: Value, b: Value) -> u64 {
    bits(&eval_binary(op, ty, a, b).expect("floats never trap"))
}

#[test]
fn arithmetic_at_each_width() {
    // The literals example: f16 1.0 + 0.5 = 1.5.
    assert_eq!(fbin(BinOp::Fadd, Type::F16, f16(0x3c00), f16(0x3800)), 0x3e00);
    assert_eq!(fbin(BinOp::Fmul, Type::F32, Value::f32_bits(0x40490fdb), Value::F32(2.0)), 0x40c90fdb);
    assert_eq!(fbin(BinOp::Fdiv, Type::F64, Value::F64(1.0), Value::F64(3.0)), (1.0f64 / 3.0).to_bits());
    assert_eq!(fbin(BinOp::Fsub, Type::F64, Value::F64(0.1), Value::F64(0.3)), (0.1f64 - 0.3).to_bits());
    // frem is fmod: the sign of the dividend, exact.
    assert_eq!(fbin(BinOp::Frem, Type::F64, Value::F64(5.5), Value::F64(2.0)), 1.5f64.to_bits());
    assert_eq!(fbin(BinOp::Frem, Type::F64, Value::F64(-5.5), Value::F64(2.0)), (-1.5f64).to_bits());
    assert_eq!(fbin(BinOp::Frem, Type::F16, f16(0x4580), f16(0x4000)), 0x3e00); // 5.5 % 2 = 1.5
                                                                                // Ties round to even at the declared width: 2048 + 1 is halfway between 2048 and 2050 in f16.
    assert_eq!(fbin(BinOp::Fadd, Type::F16, f16(0x6800), f16(0x3c00)), 0x6800);
    // 2050 + 1 = 2051 is halfway between 2050 and 2052: rounds to 2052 (even mantissa).
    assert_eq!(fbin(BinOp::Fadd, Type::F16, f16(0x6801), f16(0x3c00)), 0x6802);
    // f32: 2^24 + 1 rounds to 2^24.
    assert_eq!(
        fbin(BinOp::Fadd, Type::F32, Value::F32(16_777_216.0), Value::F32(1.0)),
        u64::from(16_777_216f32.to_bits())
    );
    // Overflow to infinity, underflow to subnormals (no flush to zero).
    assert_eq!(fbin(BinOp::Fmul, Type::F16, f16(0x7bff), f16(0x4000)), 0x7c00);
    assert_eq!(fbin(BinOp::Fmul, Type::F16, f16(0x0400), f16(0x3800)), 0x0200);
    assert_eq!(fbin(BinOp::Fmul, Type::F32, Value::f32_bits(0x0080_0000), Value::F32(0.5)), 0x0040_0000);
    assert_eq!(fbin(BinOp::Fdiv, Type::F64, Value::F64(1.0), Value::F64(0.0)), f64::INFINITY.to_bits());
    // Signed zeros.
    assert_eq!(fbin(BinOp::Fsub, Type::F64, Value::F64(-0.0), Value::F64(0.0)), (-0.0f64).to_bits());
    assert_eq!(fbin(BinOp::Fadd, Type::F32, Value::F32(-0.0), Value::F32(0.0)), 0);
    assert_eq!(fbin(BinOp::Fmul, Type::F16, f16(0x8000), f16(0x3c00)), 0x8000);
}

#[test]
fn nan_results_are_normalised() {
    let nan16 = [0x7e01u16, 0xfe00, 0x7c01, 0xffff];
    for n in nan16 {
        assert_eq!(fbin(BinOp::Fadd, Type::F16, f16(n), f16(0x3c00)), 0x7e00, "{n:#x}");
    }
    for n in [0x7fa0_0001u32, 0xffc0_0000, 0x7f80_0001] {
        assert_eq!(fbin(BinOp::Fmul, Type::F32, Value::f32_bits(n), Value::F32(1.0)), 0x7fc0_0000, "{n:#x}");
    }
    for n in [0x7ff0_0000_0000_0001u64, 0xfff8_0000_0000_0000, 0x7ff8_dead_beef_0000] {
        assert_eq!(fbin(BinOp::Fsub, Type::F64, Value::f64_bits(n), Value::F64(1.0)), 0x7ff8_0000_0000_0000, "{n:#x}");
    }
    // Invalid operations produce the canonical NaN too.
    assert_eq!(
        fbin(BinOp::Fsub, Type::F64, Value::F64(f64::INFINITY), Value::F64(f64::INFINITY)),
        0x7ff8_0000_0000_0000
    );
    assert_eq!(fbin(BinOp::Fdiv, Type::F32, Value::F32(0.0), Value::F32(0.0)), 0x7fc0_0000);
    assert_eq!(fbin(BinOp::Frem, Type::F16, f16(0x3c00), f16(0x0000)), 0x7e00);
    // Conversions normalise as well.
    let fext = function(&[Type::F32], Type::F64, |f, p| Some(f.cast(CastOp::Fext, p[0], Type::F64)));
    assert_eq!(bits(&value(&fext, &[Value::f32_bits(0xffa0_0001)])), 0x7ff8_0000_0000_0000);
    let ftrunc = function(&[Type::F64], Type::F16, |f, p| Some(f.cast(CastOp::Ftrunc, p[0], Type::F16)));
    assert_eq!(bits(&value(&ftrunc, &[Value::f64_bits(0x7ff0_0000_0000_0001)])), 0x7e00);
}

#[test]
fn moves_selects_phis_loads_stores_and_bitcasts_preserve_bits() {
    let payload = 0x7ff4_0000_0000_abcdu64; // a signalling NaN with a payload
    let m = function(&[Type::F64, Type::Bool], Type::F64, |f, p| {
        let moved = f.mov(Type::F64, p[0]);
        let other = f.const_f64(1.0);
        let chosen = f.select(Type::F64, p[1], moved, other);
        let slot = f.alloca(Type::F64, 8);
        f.store(Type::F64, chosen, slot, 8);
        let loaded = f.load(Type::F64, slot, 8);
        let as_int = f.cast(CastOp::Bitcast, loaded, Type::U64);
        let back = f.cast(CastOp::Bitcast, as_int, Type::F64);
        let entry = f.current_block();
        let next = f.create_block("next");
        f.br(next);
        f.set_insert_point(next);
        let merged = f.phi(Type::F64, &[(back, entry)]);
        Some(merged)
    });
    assert_eq!(bits(&value(&m, &[Value::f64_bits(payload), Value::Bool(true)])), payload);
    assert_eq!(bits(&value(&m, &[Value::F64(-0.0), Value::Bool(true)])), (-0.0f64).to_bits());
    // f16 and f32 payloads through memory and bitcasts.
    let m = function(&[Type::F16], Type::U16, |f, p| {
        let slot = f.alloca(Type::F16, 2);
        f.store(Type::F16, p[0], slot, 2);
        let loaded = f.load(Type::F16, slot, 2);
        Some(f.cast(CastOp::Bitcast, loaded, Type::U16))
    });
    assert_eq!(value(&m, &[f16(0xfd01)]), Value::U16(0xfd01));
    let m = function(&[Type::I32], Type::F32, |f, p| Some(f.cast(CastOp::Bitcast, p[0], Type::F32)));
    assert_eq!(bits(&value(&m, &[Value::I32(0x7f80_0001)])), 0x7f80_0001);
    assert_eq!(bits(&value(&m, &[Value::I32(i32::MIN)])), 0x8000_0000);
}

#[test]
fn ordered_and_unordered_predicates() {
    use FCmpPred::*;
    let nan = f64::NAN;
    // (pred, [1<2, 2<1... cases]: (a, b) → expected)
    let cases: [(f64, f64); 4] = [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (nan, 1.0)];
    let table: [(FCmpPred, [bool; 4]); 14] = [
        (Oeq, [false, false, true, false]),
        (One, [true, true, false, false]),
        (Olt, [true, false, false, false]),
        (Ole, [true, false, true, false]),
        (Ogt, [false, true, false, false]),
        (Oge, [false, true, true, false]),
        (Ord, [true, true, true, false]),
        (Uno, [false, false, false, true]),
        (Ueq, [false, false, true, true]),
        (Une, [true, true, false, true]),
        (Ult, [true, false, false, true]),
        (Ule, [true, false, true, true]),
        (Ugt, [false, true, false, true]),
        (Uge, [false, true, true, true]),
    ];
    for ty in [Type::F16, Type::F32, Type::F64] {
        for (pred, expected) in table {
            let t = ty.clone();
            let m = function(&[ty.clone(), ty.clone()], Type::Bool, |f, p| Some(f.fcmp(pred, t, p[0], p[1])));
            for ((a, b), want) in cases.iter().zip(expected) {
                let conv = |x: f64| match ty {
                    Type::F16 => Value::F16(half::f16::from_f64(x)),
                    Type::F32 => Value::F32(x as f32),
                    _ => Value::F64(x),
                };
                assert_eq!(value(&m, &[conv(*a), conv(*b)]), Value::Bool(want), "{pred:?} {ty} {a} {b}");
            }
        }
    }
    // -0 equals +0.
    let m = function(&[Type::F64, Type::F64], Type::Bool, |f, p| Some(f.fcmp(Oeq, Type::F64, p[0], p[1])));
    assert_eq!(value(&m, &[Value::F64(-0.0), Value::F64(0.0)]), Value::Bool(true));
}

#[test]
fn cmp_float_predicates() {
    // feq/flt/fle/fgt/fge are ordered; fne is true for unordered operands (the
    // literals example: NaN fne NaN is true).
    let check = |op: CmpOp, a: f64, b: f64| {
        let m = function(&[Type::F64, Type::F64], Type::Bool, |f, p| Some(f.cmp(op, Type::F64, p[0], p[1])));
        value(&m, &[Value::F64(a), Value::F64(b)]) == Value::Bool(true)
    };
    let nan = f64::from_bits(0x7ff8_0000_0000_0001);
    assert!(check(CmpOp::Fne, nan, nan));
    assert!(!check(CmpOp::Feq, nan, nan));
    assert!(!check(CmpOp::Flt, nan, 1.0));
    assert!(!check(CmpOp::Fge, nan, 1.0));
    assert!(check(CmpOp::Feq, 2.0, 2.0));
    assert!(check(CmpOp::Flt, 1.0, 2.0));
    assert!(check(CmpOp::Fle, 2.0, 2.0));
    assert!(check(CmpOp::Fgt, 3.0, 2.0));
    assert!(check(CmpOp::Fge, 2.0, 2.0));
    assert!(!check(CmpOp::Fne, 2.0, 2.0));
}

fn canon32(x: f32) -> u32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        x.to_bits()
    }
}

fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        x.to_bits()
    }
}

const FOPS: [BinOp; 5] = [BinOp::Fadd, BinOp::Fsub, BinOp::Fmul, BinOp::Fdiv, BinOp::Frem];

proptest! {
    #[test]
    fn f32_and_f64_match_ieee(op in 0..5usize, a in any::<u64>(), b in any::<u64>()) {
        let op = FOPS[op];
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let expected = canon64(match op {
            BinOp::Fadd => x + y, BinOp::Fsub => x - y, BinOp::Fmul => x * y, BinOp::Fdiv => x / y, _ => x % y,
        });
        prop_assert_eq!(fbin(op, Type::F64, Value::F64(x), Value::F64(y)), expected);
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let expected = canon32(match op {
            BinOp::Fadd => x + y, BinOp::Fsub => x - y, BinOp::Fmul => x * y, BinOp::Fdiv => x / y, _ => x % y,
        });
        prop_assert_eq!(fbin(op, Type::F32, Value::F32(x), Value::F32(y)), u64::from(expected));
    }

    #[test]
    fn f16_matches_exact_arithmetic_rounded_once(op in 0..3usize, a in any::<u16>(), b in any::<u16>()) {
        // For + − × the exact result of two binary16 values is representable in
        // binary64, so rounding it once to binary16 is the IEEE result.
        let op = FOPS[op];
        let (x, y) = (half::f16::from_bits(a).to_f64(), half::f16::from_bits(b).to_f64());
        let exact = match op { BinOp::Fadd => x + y, BinOp::Fsub => x - y, _ => x * y };
        let expected = if exact.is_nan() { 0x7e00 } else { ir::FloatBits::from_f64(16, exact).unwrap().bits() };
        prop_assert_eq!(fbin(op, Type::F16, f16(a), f16(b)), expected);
    }
}
