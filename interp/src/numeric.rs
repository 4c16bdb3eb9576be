//! Numeric semantics of semantics version 1 (whale-upstream §b.6 and §i).
//!
//! Integers live in frame slots in a *canonical* form: a value of an N-bit type
//! (N ≤ 64) occupies one `u64`, sign-extended from bit N−1 for signed types and
//! zero-extended for unsigned ones; 128-bit values occupy two slots. Because
//! every slot is canonical, comparisons never look at the width, `and`/`or`/
//! `xor` and unsigned division need no re-normalisation, and only operations
//! that can carry out of the N-bit pattern (`add`, `sub`, `mul`, shifts, `sdiv`,
//! `not`) re-normalise their result with a [`Norm`]. The generic paths work on
//! `u128` with an [`IntTy`] and serve 128-bit types, checked arithmetic and
//! conversions.
//!
//! Floats are held as their exact IEEE bit patterns. Arithmetic and conversions
//! round to nearest, ties to even, at the declared width and replace any NaN
//! result by the width's one positive quiet NaN; moves, loads and stores never
//! look at the bits, so payloads survive them. binary16 arithmetic is computed in
//! binary32 and rounded once to binary16: binary32 has 24 ≥ 2·11 + 2 significand
//! bits, so the double rounding is innocuous for `+ − × ÷`, and `frem` is exact
//! in any precision. Conversions to binary16 always go through an exact binary64
//! value and one correctly rounded step of our own ([`f64_to_f16`]), never
//! through the `half` crate's f64 path, which rounds twice on hosts with F16C.

use crate::error::TrapReason;

/// How to re-normalise an N-bit integer (1 ≤ N ≤ 64) held in a `u64` slot:
/// the low 7 bits are `64 − N`, the high bit says whether the type is signed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Norm(u8);

impl Norm {
    /// The normalisation of a `bits`-wide integer type (1 ≤ bits ≤ 64).
    pub(crate) const fn new(bits: u32, signed: bool) -> Norm {
        let shift = 64u32.saturating_sub(bits) & 0x3f;
        Norm(shift as u8 | if signed { 0x80 } else { 0 })
    }

    #[inline(always)]
    pub(crate) const fn shift(self) -> u32 {
        (self.0 & 0x3f) as u32
    }

    #[inline(always)]
    pub(crate) const fn signed(self) -> bool {
        self.0 & 0x80 != 0
    }

    /// The width N.
    #[inline(always)]
    pub(crate) const fn bits(self) -> u32 {
        64 - self.shift()
    }

    /// The canonical slot form of the low N bits of `x`.
    #[inline(always)]
    pub(crate) const fn apply(self, x: u64) -> u64 {
        let s = self.shift();
        if self.signed() {
            ((x << s) as i64 >> s) as u64
        } else {
            (x << s) >> s
        }
    }

    /// The low N bits of `x`, sign-extended from bit N−1.
    #[inline(always)]
    pub(crate) const fn sext(self, x: u64) -> u64 {
        let s = self.shift();
        ((x << s) as i64 >> s) as u64
    }

    /// The low N bits of `x`, zero-extended.
    #[inline(always)]
    pub(crate) const fn zext(self, x: u64) -> u64 {
        let s = self.shift();
        (x << s) >> s
    }

    /// The shift count of a shift by `count`: its N-bit pattern taken as
    /// unsigned, modulo N (N is a power of two, so a mask).
    #[inline(always)]
    pub(crate) const fn shift_count(self, count: u64) -> u32 {
        (count & (self.bits() as u64 - 1)) as u32
    }
}

/// An integer type: width 1, 8, 16, 32, 64 or 128 and signedness.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct IntTy {
    pub bits: u8,
    pub signed: bool,
}

impl IntTy {
    #[inline]
    pub(crate) fn norm(self) -> Norm {
        Norm::new(u32::from(self.bits).min(64), self.signed)
    }

    /// The canonical `u128` form of the low N bits of `x`.
    #[inline]
    pub(crate) fn apply(self, x: u128) -> u128 {
        if self.bits >= 128 {
            return x;
        }
        let s = 128 - u32::from(self.bits);
        if self.signed {
            ((x << s) as i128 >> s) as u128
        } else {
            (x << s) >> s
        }
    }

    fn sext(self, x: u128) -> u128 {
        IntTy { bits: self.bits, signed: true }.apply(x)
    }

    fn zext(self, x: u128) -> u128 {
        IntTy { bits: self.bits, signed: false }.apply(x)
    }

    fn max_unsigned(self) -> u128 {
        if self.bits >= 128 {
            u128::MAX
        } else {
            (1u128 << self.bits) - 1
        }
    }

    fn signed_range(self) -> (i128, i128) {
        if self.bits >= 128 {
            (i128::MIN, i128::MAX)
        } else {
            (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1)
        }
    }
}

/// Integer binary operations of the generic path.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum IntOp {
    Add,
    Sub,
    Mul,
    Sdiv,
    Udiv,
    Srem,
    Urem,
    And,
    Or,
    Xor,
    Shl,
    Lshr,
    Ashr,
}

/// `a OP b` on canonical `u128` operands of type `ty`.
pub(crate) fn int_binary(op: IntOp, ty: IntTy, a: u128, b: u128) -> Result<u128, TrapReason> {
    let count = || (ty.zext(b) & (u128::from(ty.bits) - 1)) as u32;
    Ok(match op {
        IntOp::Add => ty.apply(a.wrapping_add(b)),
        IntOp::Sub => ty.apply(a.wrapping_sub(b)),
        IntOp::Mul => ty.apply(a.wrapping_mul(b)),
        IntOp::Sdiv => {
            if b == 0 {
                return Err(TrapReason::DivisionByZero);
            }
            ty.apply((a as i128).wrapping_div(b as i128) as u128)
        }
        IntOp::Srem => {
            if b == 0 {
                return Err(TrapReason::RemainderByZero);
            }
            ty.apply((a as i128).wrapping_rem(b as i128) as u128)
        }
        IntOp::Udiv => {
            if b == 0 {
                return Err(TrapReason::DivisionByZero);
            }
            a / b
        }
        IntOp::Urem => {
            if b == 0 {
                return Err(TrapReason::RemainderByZero);
            }
            a % b
        }
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Shl => ty.apply(a << count()),
        IntOp::Lshr => ty.apply(ty.zext(a) >> count()),
        IntOp::Ashr => ty.apply((ty.sext(a) as i128 >> count()) as u128),
    })
}

/// Checked arithmetic operations.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum CheckedOp {
    Add,
    Sub,
    Mul,
}

/// The wrapped result and the overflow flag of a checked operation on canonical
/// operands of type `ty` (signedness from the type, as the verifier requires).
pub(crate) fn checked(op: CheckedOp, ty: IntTy, a: u128, b: u128) -> (u128, bool) {
    if ty.signed {
        let (x, y) = (a as i128, b as i128);
        let (exact, overflowed) = match op {
            CheckedOp::Add => x.overflowing_add(y),
            CheckedOp::Sub => x.overflowing_sub(y),
            CheckedOp::Mul => x.overflowing_mul(y),
        };
        let (min, max) = ty.signed_range();
        let overflow = if ty.bits >= 128 { overflowed } else { exact < min || exact > max };
        (ty.apply(exact as u128), overflow)
    } else {
        let (exact, overflowed) = match op {
            CheckedOp::Add => a.overflowing_add(b),
            CheckedOp::Sub => (a.wrapping_sub(b), a < b),
            CheckedOp::Mul => a.overflowing_mul(b),
        };
        let overflow = if ty.bits >= 128 || op == CheckedOp::Sub { overflowed } else { exact > ty.max_unsigned() };
        (ty.apply(exact), overflow)
    }
}

// ---- floats -------------------------------------------------------------------

/// Float widths.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum FloatWidth {
    F16,
    F32,
    F64,
}

/// Float binary operations.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

pub(crate) const F16_NAN: u16 = 0x7e00;
pub(crate) const F32_NAN: u32 = 0x7fc0_0000;
pub(crate) const F64_NAN: u64 = 0x7ff8_0000_0000_0000;

#[inline]
pub(crate) fn canon_f32(x: f32) -> u64 {
    if x.is_nan() {
        u64::from(F32_NAN)
    } else {
        u64::from(x.to_bits())
    }
}

#[inline]
pub(crate) fn canon_f64(x: f64) -> u64 {
    if x.is_nan() {
        F64_NAN
    } else {
        x.to_bits()
    }
}

/// The exact value of a binary16 pattern.
#[inline]
pub(crate) fn f16_to_f64(bits: u64) -> f64 {
    f64::from(half::f16::from_bits(bits as u16).to_f32())
}

/// The exact value of a pattern of width `w`.
#[inline]
pub(crate) fn to_f64(w: FloatWidth, bits: u64) -> f64 {
    match w {
        FloatWidth::F16 => f16_to_f64(bits),
        FloatWidth::F32 => f64::from(f32::from_bits(bits as u32)),
        FloatWidth::F64 => f64::from_bits(bits),
    }
}

/// Rounds a binary64 value to binary16 in one step, ties to even; NaN becomes
/// the canonical binary16 NaN.
pub(crate) fn f64_to_f16(x: f64) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let man = bits & ((1u64 << 52) - 1);
    if exp == 0x7ff {
        return if man != 0 { F16_NAN } else { sign | 0x7c00 };
    }
    if exp == 0 {
        // Zero or a binary64 subnormal, far below half the smallest binary16 subnormal.
        return sign;
    }
    let e = exp - 1023;
    if e > 15 {
        return sign | 0x7c00;
    }
    let full = man | (1u64 << 52);
    // Round `full` right by `shift` bits, ties to even.
    let round = |shift: u32| -> u64 {
        if shift >= 64 {
            return 0;
        }
        let kept = full >> shift;
        let rest = full & ((1u64 << shift) - 1);
        let half_way = 1u64 << (shift - 1);
        if rest > half_way || (rest == half_way && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    if e >= -14 {
        let mut m = round(42);
        let mut e = e;
        if m == 2048 {
            m = 1024;
            e += 1;
        }
        if e > 15 {
            return sign | 0x7c00;
        }
        sign | (((e + 15) as u16) << 10) | (m as u16 & 0x3ff)
    } else {
        // Subnormal result in units of 2^-24; a carry into 1024 is exactly the
        // smallest normal encoding.
        let shift = (28 - e) as u32;
        sign | round(shift) as u16
    }
}

/// Rounds an exact binary64 value to width `w`, normalising NaN.
#[inline]
pub(crate) fn from_f64(w: FloatWidth, x: f64) -> u64 {
    match w {
        FloatWidth::F16 => u64::from(f64_to_f16(x)),
        FloatWidth::F32 => canon_f32(x as f32),
        FloatWidth::F64 => canon_f64(x),
    }
}

/// `a OP b` at width `w` on bit patterns.
pub(crate) fn float_binary(op: FloatOp, w: FloatWidth, a: u64, b: u64) -> u64 {
    fn apply32(op: FloatOp, x: f32, y: f32) -> f32 {
        match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
            FloatOp::Div => x / y,
            FloatOp::Rem => x % y,
        }
    }
    match w {
        FloatWidth::F64 => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            canon_f64(match op {
                FloatOp::Add => x + y,
                FloatOp::Sub => x - y,
                FloatOp::Mul => x * y,
                FloatOp::Div => x / y,
                FloatOp::Rem => x % y,
            })
        }
        FloatWidth::F32 => canon_f32(apply32(op, f32::from_bits(a as u32), f32::from_bits(b as u32))),
        FloatWidth::F16 => {
            let x = half::f16::from_bits(a as u16).to_f32();
            let y = half::f16::from_bits(b as u16).to_f32();
            u64::from(f64_to_f16(f64::from(apply32(op, x, y))))
        }
    }
}

/// Float comparison predicates (the `fcmp` set; `cmp`'s float predicates map
/// onto the ordered ones except `fne`, which is unordered-or-unequal).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum FloatPred {
    Oeq,
    One,
    Olt,
    Ole,
    Ogt,
    Oge,
    Ord,
    Uno,
    Ueq,
    Une,
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl FloatPred {
    pub(crate) const ALL: [FloatPred; 14] = [
        FloatPred::Oeq,
        FloatPred::One,
        FloatPred::Olt,
        FloatPred::Ole,
        FloatPred::Ogt,
        FloatPred::Oge,
        FloatPred::Ord,
        FloatPred::Uno,
        FloatPred::Ueq,
        FloatPred::Une,
        FloatPred::Ult,
        FloatPred::Ule,
        FloatPred::Ugt,
        FloatPred::Uge,
    ];
}

/// Evaluates a float predicate on exact values.
pub(crate) fn float_compare(pred: FloatPred, x: f64, y: f64) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let order = x.partial_cmp(&y);
    match pred {
        FloatPred::Oeq => order == Some(Equal),
        FloatPred::One => matches!(order, Some(Less | Greater)),
        FloatPred::Olt => order == Some(Less),
        FloatPred::Ole => matches!(order, Some(Less | Equal)),
        FloatPred::Ogt => order == Some(Greater),
        FloatPred::Oge => matches!(order, Some(Greater | Equal)),
        FloatPred::Ord => order.is_some(),
        FloatPred::Uno => order.is_none(),
        FloatPred::Ueq => matches!(order, None | Some(Equal)),
        FloatPred::Une => order != Some(Equal),
        FloatPred::Ult => matches!(order, None | Some(Less)),
        FloatPred::Ule => matches!(order, None | Some(Less | Equal)),
        FloatPred::Ugt => matches!(order, None | Some(Greater)),
        FloatPred::Uge => matches!(order, None | Some(Greater | Equal)),
    }
}

/// Converts an integer value (`signed` selects the interpretation of the
/// canonical `v`) to width `w`, rounding to nearest, ties to even.
pub(crate) fn int_to_float(v: u128, signed: bool, w: FloatWidth) -> u64 {
    match w {
        FloatWidth::F64 => {
            let x = if signed { (v as i128) as f64 } else { v as f64 };
            x.to_bits()
        }
        FloatWidth::F32 => {
            let x = if signed { (v as i128) as f32 } else { v as f32 };
            u64::from(x.to_bits())
        }
        FloatWidth::F16 => {
            // Below 2^24 the value is exact in binary64 and one rounding to binary16
            // is correct; at or above it the result overflows to infinity anyway.
            let (negative, magnitude) =
                if signed && (v as i128) < 0 { (true, (v as i128).unsigned_abs()) } else { (false, v) };
            let bits = if magnitude < (1 << 24) { f64_to_f16(magnitude as f64) } else { 0x7c00 };
            u64::from(if negative { bits | 0x8000 } else { bits })
        }
    }
}

/// Converts a float of width `w` to an integer of type `ty`: truncates toward
/// zero, then traps on NaN, infinities and values outside the type's range.
pub(crate) fn float_to_int(w: FloatWidth, bits: u64, ty: IntTy) -> Result<u128, TrapReason> {
    let x = to_f64(w, bits);
    if x.is_nan() {
        return Err(TrapReason::FloatToIntNaN);
    }
    if x.is_infinite() {
        return Err(TrapReason::FloatToIntInfinite);
    }
    let t = x.trunc();
    let bits = i32::from(ty.bits);
    if ty.signed {
        let limit = 2f64.powi(bits - 1);
        if t < -limit || t >= limit {
            return Err(TrapReason::FloatToIntOutOfRange);
        }
        Ok(t as i128 as u128)
    } else {
        if t < 0.0 || t >= 2f64.powi(bits) {
            return Err(TrapReason::FloatToIntOutOfRange);
        }
        Ok(t as u128)
    }
}

/// Converts between float widths (exactly when widening, rounding once when
/// narrowing), normalising NaN.
#[inline]
pub(crate) fn float_convert(from: FloatWidth, to: FloatWidth, bits: u64) -> u64 {
    from_f64(to, to_f64(from, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_round_trips() {
        let i8n = Norm::new(8, true);
        assert_eq!(i8n.apply(0x80), (-128i64) as u64);
        assert_eq!(i8n.apply(0x17f), 127);
        let u8n = Norm::new(8, false);
        assert_eq!(u8n.apply(u64::MAX), 255);
        let i1 = Norm::new(1, true);
        assert_eq!(i1.apply(1), u64::MAX);
        assert_eq!(i1.apply(2), 0);
        assert_eq!(Norm::new(64, true).apply(u64::MAX), u64::MAX);
        assert_eq!(i8n.shift_count(u64::MAX), 7);
        assert_eq!(i8n.shift_count(16), 0);
        assert_eq!(Norm::new(1, false).shift_count(1), 0);
    }

    #[test]
    fn f16_rounding_matches_ir() {
        for x in [1.0, 65504.0, 65519.99, 65520.0, -2f64.powi(-24), 2f64.powi(-25), 3.0 * 2f64.powi(-26), 1e-30, 0.1] {
            let ours = f64_to_f16(x);
            let theirs = match ir::FloatBits::from_f64(16, x) {
                Some(ir::FloatBits::F16(b)) => b,
                _ => unreachable!(),
            };
            assert_eq!(ours, theirs, "{x}");
        }
        // 2^-25 is a tie between 0 and the smallest subnormal: rounds to even (0).
        assert_eq!(f64_to_f16(2f64.powi(-25)), 0);
        assert_eq!(f64_to_f16(2f64.powi(-25) * 1.5), 1);
        // Every binary16 value converts back to itself.
        for b in 0u16..=0xffff {
            let x = f16_to_f64(u64::from(b));
            if x.is_nan() {
                continue;
            }
            assert_eq!(f64_to_f16(x), b);
        }
    }
}
