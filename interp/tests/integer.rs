//! Integer semantics (whale-upstream §b.6, §i): wrapping arithmetic at every
//! width, division traps, shift counts modulo N, `ashr` sign-extending even on
//! unsigned types, checked arithmetic, `not`, and comparisons.

mod common;

use common::*;
use interp::{TrapReason, Value};
use ir::{BinOp, CheckedOp, CmpOp, ICmpPred, Type};
use proptest::prelude::*;

fn bin(op: BinOp, ty: Type, a: Value, b: Value) -> Value {
    eval_binary(op, ty, a, b).expect("no trap")
}

#[test]
fn numeric_operations_page_examples() {
    // Division: MIN / -1 wraps to MIN, MIN % -1 is 0, truncation toward zero.
    assert_eq!(bin(BinOp::Sdiv, Type::I8, Value::I8(-128), Value::I8(-1)), Value::I8(-128));
    assert_eq!(bin(BinOp::Srem, Type::I8, Value::I8(-128), Value::I8(-1)), Value::I8(0));
    assert_eq!(bin(BinOp::Sdiv, Type::I32, Value::I32(-7), Value::I32(3)), Value::I32(-2));
    assert_eq!(bin(BinOp::Srem, Type::I32, Value::I32(-7), Value::I32(3)), Value::I32(-1));
    assert_eq!(bin(BinOp::Sdiv, Type::I64, Value::I64(i64::MIN), Value::I64(-1)), Value::I64(i64::MIN));
    assert_eq!(bin(BinOp::Srem, Type::I64, Value::I64(i64::MIN), Value::I64(-1)), Value::I64(0));
    assert_eq!(bin(BinOp::Sdiv, Type::I128, Value::I128(i128::MIN), Value::I128(-1)), Value::I128(i128::MIN));
    assert_eq!(bin(BinOp::Srem, Type::I128, Value::I128(i128::MIN), Value::I128(-1)), Value::I128(0));
    // Wrapping add/sub/mul never trap.
    assert_eq!(bin(BinOp::Add, Type::U8, Value::U8(255), Value::U8(1)), Value::U8(0));
    assert_eq!(bin(BinOp::Add, Type::I8, Value::I8(127), Value::I8(1)), Value::I8(-128));
    assert_eq!(bin(BinOp::Sub, Type::U8, Value::U8(0), Value::U8(1)), Value::U8(255));
    assert_eq!(bin(BinOp::Mul, Type::I8, Value::I8(12), Value::I8(3)), Value::I8(36));
    assert_eq!(bin(BinOp::Mul, Type::U128, Value::U128(u128::MAX), Value::U128(u128::MAX)), Value::U128(1));
    // Shift counts: unsigned reinterpretation, then mod N. 0, 8 and 16 on 8 bits mean 0; 0xFF means 7.
    for count in [0u8, 8, 16] {
        assert_eq!(bin(BinOp::Shl, Type::U8, Value::U8(0x81), Value::U8(count)), Value::U8(0x81), "count {count}");
        assert_eq!(bin(BinOp::Lshr, Type::U8, Value::U8(0x81), Value::U8(count)), Value::U8(0x81), "count {count}");
        assert_eq!(bin(BinOp::Ashr, Type::U8, Value::U8(0x81), Value::U8(count)), Value::U8(0x81), "count {count}");
    }
    assert_eq!(bin(BinOp::Shl, Type::U8, Value::U8(1), Value::U8(0xff)), Value::U8(0x80));
    assert_eq!(bin(BinOp::Shl, Type::I8, Value::I8(-1), Value::I8(-1)), Value::I8(-128));
    assert_eq!(bin(BinOp::Lshr, Type::I8, Value::I8(-1), Value::I8(-1)), Value::I8(1));
    assert_eq!(bin(BinOp::Ashr, Type::I8, Value::I8(-128), Value::I8(-1)), Value::I8(-1));
    // ashr sign-extends from bit N-1 even on unsigned types.
    assert_eq!(bin(BinOp::Ashr, Type::U8, Value::U8(128), Value::U8(1)), Value::U8(192));
    assert_eq!(bin(BinOp::Ashr, Type::U64, Value::U64(1 << 63), Value::U64(63)), Value::U64(u64::MAX));
    assert_eq!(bin(BinOp::Ashr, Type::U32, Value::U32(0x8000_0000), Value::U32(4)), Value::U32(0xf800_0000));
    // u128::MAX lshr 2^100: the count is 2^100 mod 128 = 0.
    assert_eq!(bin(BinOp::Lshr, Type::U128, Value::U128(u128::MAX), Value::U128(1 << 100)), Value::U128(u128::MAX));
    assert_eq!(bin(BinOp::Shl, Type::I128, Value::I128(1), Value::I128(127)), Value::I128(i128::MIN));
    assert_eq!(bin(BinOp::Ashr, Type::U128, Value::U128(1 << 127), Value::U128(127)), Value::U128(u128::MAX));
    // Counts taken as unsigned: i64 shl by -1 is a shift by 63.
    assert_eq!(bin(BinOp::Shl, Type::I64, Value::I64(1), Value::I64(-1)), Value::I64(i64::MIN));
    assert_eq!(bin(BinOp::Lshr, Type::I16, Value::I16(-1), Value::I16(17)), Value::I16(0x7fff));
    // Bitwise.
    assert_eq!(bin(BinOp::And, Type::I8, Value::I8(-1), Value::I8(0x0f)), Value::I8(0x0f));
    assert_eq!(bin(BinOp::Or, Type::U16, Value::U16(0xf000), Value::U16(0x000f)), Value::U16(0xf00f));
    assert_eq!(bin(BinOp::Xor, Type::I32, Value::I32(-1), Value::I32(5)), Value::I32(!5));
}

#[test]
fn one_bit_integers() {
    assert_eq!(bin(BinOp::Add, Type::I1, Value::I1(-1), Value::I1(-1)), Value::I1(0));
    assert_eq!(bin(BinOp::Sub, Type::I1, Value::I1(0), Value::I1(-1)), Value::I1(-1));
    assert_eq!(bin(BinOp::Add, Type::U1, Value::U1(1), Value::U1(1)), Value::U1(0));
    assert_eq!(bin(BinOp::Mul, Type::I1, Value::I1(-1), Value::I1(-1)), Value::I1(-1));
    // i1's MIN is -1: MIN / -1 = MIN, MIN % -1 = 0.
    assert_eq!(bin(BinOp::Sdiv, Type::I1, Value::I1(-1), Value::I1(-1)), Value::I1(-1));
    assert_eq!(bin(BinOp::Srem, Type::I1, Value::I1(-1), Value::I1(-1)), Value::I1(0));
    assert_eq!(bin(BinOp::Udiv, Type::U1, Value::U1(1), Value::U1(1)), Value::U1(1));
    // Every count means 0 on one bit.
    assert_eq!(bin(BinOp::Shl, Type::U1, Value::U1(1), Value::U1(1)), Value::U1(1));
    assert_eq!(bin(BinOp::Ashr, Type::I1, Value::I1(-1), Value::I1(-1)), Value::I1(-1));
    let m = function(&[Type::I1], Type::I1, |f, p| Some(f.not(Type::I1, p[0])));
    assert_eq!(value(&m, &[Value::I1(0)]), Value::I1(-1));
    let m = function(&[Type::U1], Type::U1, |f, p| Some(f.not(Type::U1, p[0])));
    assert_eq!(value(&m, &[Value::U1(1)]), Value::U1(0));
}

#[test]
fn division_by_zero_traps() {
    for (op, ty, reason) in [
        (BinOp::Sdiv, Type::I32, TrapReason::DivisionByZero),
        (BinOp::Udiv, Type::U8, TrapReason::DivisionByZero),
        (BinOp::Srem, Type::I64, TrapReason::RemainderByZero),
        (BinOp::Urem, Type::U16, TrapReason::RemainderByZero),
        (BinOp::Sdiv, Type::I128, TrapReason::DivisionByZero),
        (BinOp::Urem, Type::U128, TrapReason::RemainderByZero),
        (BinOp::Sdiv, Type::I8, TrapReason::DivisionByZero),
        (BinOp::Srem, Type::I1, TrapReason::RemainderByZero),
    ] {
        let m = binary(op, ty.clone());
        let t = trap(&m, &[typed(&ty, 5), typed(&ty, 0)]);
        assert_eq!(t.reason, reason, "{op:?} {ty}");
        // The trapping instruction is the function's first (index 0) and the first step.
        assert_eq!((t.site.inst, t.steps), (0, 1));
    }
    assert_eq!(TrapReason::DivisionByZero.to_string(), "division by zero");
    assert_eq!(TrapReason::RemainderByZero.to_string(), "remainder by zero");
}

#[test]
fn not_flips_the_pattern() {
    for (ty, input, expected) in [
        (Type::I8, Value::I8(127), Value::I8(-128)),
        (Type::U8, Value::U8(0x0f), Value::U8(0xf0)),
        (Type::U32, Value::U32(0), Value::U32(u32::MAX)),
        (Type::I128, Value::I128(0), Value::I128(-1)),
        (Type::U128, Value::U128(1), Value::U128(u128::MAX - 1)),
    ] {
        let t = ty.clone();
        let m = function(&[ty], t.clone(), |f, p| Some(f.not(t, p[0])));
        assert_eq!(value(&m, &[input]), expected);
    }
}

#[test]
fn checked_arithmetic_table() {
    let checked = |op: CheckedOp, ty: Type, a: Value, b: Value| {
        let t = ty.clone();
        let tuple = Type::Tuple(vec![ty.clone(), Type::Bool]);
        let m = function(&[ty.clone(), ty], tuple, |f, p| Some(f.checked(op, t, p[0], p[1])));
        value(&m, &[a, b])
    };
    let pair = |v: Value, o: bool| Value::Aggregate(vec![v, Value::Bool(o)]);
    assert_eq!(checked(CheckedOp::UAdd, Type::U8, Value::U8(255), Value::U8(1)), pair(Value::U8(0), true));
    assert_eq!(checked(CheckedOp::SAdd, Type::I8, Value::I8(127), Value::I8(1)), pair(Value::I8(-128), true));
    assert_eq!(checked(CheckedOp::USub, Type::U8, Value::U8(0), Value::U8(1)), pair(Value::U8(255), true));
    assert_eq!(checked(CheckedOp::SMul, Type::I8, Value::I8(12), Value::I8(3)), pair(Value::I8(36), false));
    assert_eq!(checked(CheckedOp::SMul, Type::I8, Value::I8(-128), Value::I8(-1)), pair(Value::I8(-128), true));
    assert_eq!(
        checked(CheckedOp::UMul, Type::U64, Value::U64(1 << 32), Value::U64(1 << 32)),
        pair(Value::U64(0), true)
    );
    assert_eq!(
        checked(CheckedOp::UMul, Type::U128, Value::U128(u128::MAX), Value::U128(2)),
        pair(Value::U128(u128::MAX - 1), true)
    );
    assert_eq!(
        checked(CheckedOp::SSub, Type::I128, Value::I128(i128::MIN), Value::I128(1)),
        pair(Value::I128(i128::MAX), true)
    );
    assert_eq!(checked(CheckedOp::SAdd, Type::I1, Value::I1(-1), Value::I1(-1)), pair(Value::I1(0), true));
    assert_eq!(checked(CheckedOp::UAdd, Type::U1, Value::U1(1), Value::U1(0)), pair(Value::U1(1), false));
}

#[test]
fn checked_overflow_traps_only_through_trap_if() {
    // `sadd_chk` + `extract` + `trap_if`, as overflow-trapping languages lower `+`.
    let m = function(&[Type::I32, Type::I32], Type::I32, |f, p| {
        let tuple = Type::Tuple(vec![Type::I32, Type::Bool]);
        let r = f.checked(CheckedOp::SAdd, Type::I32, p[0], p[1]);
        let v = f.extract(tuple.clone(), Type::I32, r, 0);
        let o = f.extract(tuple, Type::Bool, r, 1);
        f.trap_if(o, "integer overflow");
        Some(v)
    });
    assert_eq!(value(&m, &[Value::I32(2), Value::I32(3)]), Value::I32(5));
    let t = trap(&m, &[Value::I32(i32::MAX), Value::I32(1)]);
    assert_eq!(t.reason, TrapReason::Explicit("integer overflow".into()));
    assert_eq!(t.site.inst, 3);
    assert_eq!(t.steps, 4);
    assert!(t.to_string().ends_with(": \"integer overflow\" (after 4 steps)"), "{t}");
}

#[test]
fn comparisons() {
    let cmp = |op: CmpOp, ty: Type, a: Value, b: Value| {
        let t = ty.clone();
        let m = function(&[ty.clone(), ty], Type::Bool, |f, p| Some(f.cmp(op, t, p[0], p[1])));
        value(&m, &[a, b]) == Value::Bool(true)
    };
    let icmp = |op: ICmpPred, ty: Type, a: Value, b: Value| {
        let t = ty.clone();
        let m = function(&[ty.clone(), ty], Type::Bool, |f, p| Some(f.icmp(op, t, p[0], p[1])));
        value(&m, &[a, b]) == Value::Bool(true)
    };
    // Signed predicates read the pattern as signed; unsigned ones as unsigned.
    assert!(cmp(CmpOp::Slt, Type::I8, Value::I8(-1), Value::I8(1)));
    assert!(!cmp(CmpOp::Ult, Type::U8, Value::U8(255), Value::U8(1)));
    assert!(cmp(CmpOp::Ugt, Type::U8, Value::U8(255), Value::U8(1)));
    assert!(cmp(CmpOp::Sge, Type::I64, Value::I64(5), Value::I64(5)));
    assert!(!cmp(CmpOp::Sgt, Type::I64, Value::I64(5), Value::I64(5)));
    assert!(cmp(CmpOp::Sle, Type::I128, Value::I128(i128::MIN), Value::I128(0)));
    assert!(cmp(CmpOp::Uge, Type::U128, Value::U128(u128::MAX), Value::U128(0)));
    assert!(cmp(CmpOp::Ule, Type::U128, Value::U128(3), Value::U128(3)));
    assert!(cmp(CmpOp::Eq, Type::Bool, Value::Bool(true), Value::Bool(true)));
    assert!(cmp(CmpOp::Ne, Type::Bool, Value::Bool(true), Value::Bool(false)));
    assert!(cmp(CmpOp::Slt, Type::I1, Value::I1(-1), Value::I1(0)));
    assert!(icmp(ICmpPred::Ne, Type::U16, Value::U16(1), Value::U16(2)));
    assert!(icmp(ICmpPred::Eq, Type::I128, Value::I128(-5), Value::I128(-5)));
    assert!(icmp(ICmpPred::Ult, Type::U32, Value::U32(1), Value::U32(u32::MAX)));
    assert!(icmp(ICmpPred::Sgt, Type::I16, Value::I16(1), Value::I16(-1)));
    assert!(icmp(ICmpPred::Uge, Type::U1, Value::U1(1), Value::U1(0)));
}

/// Reference semantics on raw N-bit patterns.
fn reference(op: BinOp, bits: u32, a: u128, b: u128) -> Result<u128, TrapReason> {
    let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
    let sx = |x: u128| -> i128 {
        if bits == 128 {
            x as i128
        } else {
            ((x << (128 - bits)) as i128) >> (128 - bits)
        }
    };
    let count = (b % u128::from(bits)) as u32;
    Ok(mask
        & match op {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Shl => a << count,
            BinOp::Lshr => a >> count,
            BinOp::Ashr => (sx(a) >> count) as u128,
            BinOp::Sdiv if b == 0 => return Err(TrapReason::DivisionByZero),
            BinOp::Udiv if b == 0 => return Err(TrapReason::DivisionByZero),
            BinOp::Srem | BinOp::Urem if b == 0 => return Err(TrapReason::RemainderByZero),
            BinOp::Sdiv => sx(a).wrapping_div(sx(b)) as u128,
            BinOp::Srem => sx(a).wrapping_rem(sx(b)) as u128,
            BinOp::Udiv => a / b,
            BinOp::Urem => a % b,
            _ => unreachable!(),
        })
}

const OPS: [BinOp; 13] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::Lshr,
    BinOp::Ashr,
    BinOp::Sdiv,
    BinOp::Srem,
    BinOp::Udiv,
    BinOp::Urem,
];

/// Interesting operands: small values, powers of two, extremes, and randoms.
fn operand() -> impl Strategy<Value = u128> {
    prop_oneof![
        0u128..4,
        (0u32..128).prop_map(|k| 1u128 << k),
        (0u32..128).prop_map(|k| (1u128 << k).wrapping_sub(1)),
        Just(u128::MAX),
        any::<u128>(),
    ]
}

proptest! {
    #[test]
    fn binary_operations_match_the_reference(op in 0..OPS.len(), ty in 0..INT_TYPES.len(), a in operand(), b in operand()) {
        let op = OPS[op];
        let ty = INT_TYPES[ty].clone();
        let (bits, signed) = int_info(&ty);
        // sdiv/srem need a signed type, udiv/urem an unsigned one.
        let op = match (op, signed) {
            (BinOp::Sdiv, false) => BinOp::Udiv,
            (BinOp::Srem, false) => BinOp::Urem,
            (BinOp::Udiv, true) => BinOp::Sdiv,
            (BinOp::Urem, true) => BinOp::Srem,
            (op, _) => op,
        };
        let (va, vb) = (typed(&ty, a as i128), typed(&ty, b as i128));
        let expected = reference(op, bits, pattern(&va), pattern(&vb));
        let got = eval_binary(op, ty.clone(), va, vb);
        match (expected, got) {
            (Ok(p), Ok(v)) => prop_assert_eq!(pattern(&v), p, "{:?} {}", op, ty),
            (Err(r), Err(e)) => prop_assert_eq!(Some(&r), e.as_trap().map(|t| &t.reason)),
            (e, g) => prop_assert!(false, "{op:?} {ty}: expected {e:?}, got {g:?}"),
        }
    }

    #[test]
    fn checked_operations_match_rust(op in 0..6usize, width in 0..5usize, a in any::<u128>(), b in any::<u128>()) {
        let signed = op >= 3;
        let (ty, bits) = [(8, 8u32), (16, 16), (32, 32), (64, 64), (128, 128)][width];
        let ty = Type::int(ty, signed).unwrap();
        let cop = [CheckedOp::UAdd, CheckedOp::USub, CheckedOp::UMul, CheckedOp::SAdd, CheckedOp::SSub, CheckedOp::SMul][op];
        let (va, vb) = (typed(&ty, a as i128), typed(&ty, b as i128));
        let (pa, pb) = (pattern(&va), pattern(&vb));
        let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
        let sx = |x: u128| if bits == 128 { x as i128 } else { ((x << (128 - bits)) as i128) >> (128 - bits) };
        let (exact_u, exact_s): (Option<u128>, Option<i128>) = match cop {
            CheckedOp::UAdd => (pa.checked_add(pb), None),
            CheckedOp::USub => (pa.checked_sub(pb), None),
            CheckedOp::UMul => (pa.checked_mul(pb), None),
            CheckedOp::SAdd => (None, sx(pa).checked_add(sx(pb))),
            CheckedOp::SSub => (None, sx(pa).checked_sub(sx(pb))),
            CheckedOp::SMul => (None, sx(pa).checked_mul(sx(pb))),
        };
        let overflow = if signed {
            exact_s.is_none_or(|x| x != sx(x as u128 & mask))
        } else {
            exact_u.is_none_or(|x| x > mask)
        };
        let wrapped = mask & match cop {
            CheckedOp::UAdd | CheckedOp::SAdd => pa.wrapping_add(pb),
            CheckedOp::USub | CheckedOp::SSub => pa.wrapping_sub(pb),
            CheckedOp::UMul | CheckedOp::SMul => pa.wrapping_mul(pb),
        };
        let t = ty.clone();
        let m = function(&[ty.clone(), ty.clone()], Type::Tuple(vec![ty.clone(), Type::Bool]), |f, p| Some(f.checked(cop, t, p[0], p[1])));
        let got = value(&m, &[va, vb]);
        let Value::Aggregate(items) = got else { panic!("a tuple") };
        prop_assert_eq!(pattern(&items[0]), wrapped);
        prop_assert_eq!(&items[1], &Value::Bool(overflow));
    }

    #[test]
    fn integer_comparisons_match_rust(ty in 0..INT_TYPES.len(), a in operand(), b in operand(), pred in 0..10usize) {
        let ty = INT_TYPES[ty].clone();
        let (bits, signed) = int_info(&ty);
        let preds = [ICmpPred::Eq, ICmpPred::Ne, ICmpPred::Slt, ICmpPred::Sle, ICmpPred::Sgt, ICmpPred::Sge, ICmpPred::Ult, ICmpPred::Ule, ICmpPred::Ugt, ICmpPred::Uge];
        // Ordered predicates must match the type's signedness: flip them if not.
        let pred = if pred >= 2 && (pred < 6) != signed { if pred < 6 { pred + 4 } else { pred - 4 } } else { pred };
        let p = preds[pred];
        let (va, vb) = (typed(&ty, a as i128), typed(&ty, b as i128));
        let (pa, pb) = (pattern(&va), pattern(&vb));
        let sx = |x: u128| if bits == 128 { x as i128 } else { ((x << (128 - bits)) as i128) >> (128 - bits) };
        let expected = match p {
            ICmpPred::Eq => pa == pb,
            ICmpPred::Ne => pa != pb,
            ICmpPred::Slt => sx(pa) < sx(pb),
            ICmpPred::Sle => sx(pa) <= sx(pb),
            ICmpPred::Sgt => sx(pa) > sx(pb),
            ICmpPred::Sge => sx(pa) >= sx(pb),
            ICmpPred::Ult => pa < pb,
            ICmpPred::Ule => pa <= pb,
            ICmpPred::Ugt => pa > pb,
            ICmpPred::Uge => pa >= pb,
        };
        let t = ty.clone();
        let m = function(&[ty.clone(), ty], Type::Bool, |f, q| Some(f.icmp(p, t, q[0], q[1])));
        prop_assert_eq!(value(&m, &[va, vb]), Value::Bool(expected));
    }
}
