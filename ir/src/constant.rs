//! Constant payloads: [`ConstValue`] and exact float bit patterns ([`FloatBits`]).
//!
//! Integers travel as `i128`/`u128` so that every width up to 128 bits is exact;
//! floats travel as their IEEE bit pattern so NaN payloads and −0 survive every
//! round trip (whale-upstream §a.3). Validity against a type is checked here and
//! used by the verifier; the builder stores whatever it is given.

use std::fmt;

use crate::entity::TypeId;

/// A float constant as its exact IEEE bit pattern.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FloatBits {
    /// binary16 bits.
    F16(u16),
    /// binary32 bits.
    F32(u32),
    /// binary64 bits.
    F64(u64),
}

/// Why a float bit string was rejected by [`FloatBits::parse`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum FloatParseError {
    /// The width is not 16, 32 or 64.
    #[error("float width must be 16, 32 or 64")]
    Width,
    /// The text lacks the lowercase `0x` prefix.
    #[error("float value must start with 0x")]
    Prefix,
    /// The digit count is not exactly the width's.
    #[error("f{width} requires exactly {digits} hexadecimal digits")]
    Digits {
        /// Float width.
        width: u32,
        /// Required digit count.
        digits: u32,
    },
}

impl FloatBits {
    /// Width in bits.
    pub const fn width(self) -> u32 {
        match self {
            FloatBits::F16(_) => 16,
            FloatBits::F32(_) => 32,
            FloatBits::F64(_) => 64,
        }
    }

    /// The bit pattern, zero-extended.
    pub const fn bits(self) -> u64 {
        match self {
            FloatBits::F16(b) => b as u64,
            FloatBits::F32(b) => b as u64,
            FloatBits::F64(b) => b,
        }
    }

    /// The float type of this width.
    pub const fn type_id(self) -> TypeId {
        match self {
            FloatBits::F16(_) => TypeId::F16,
            FloatBits::F32(_) => TypeId::F32,
            FloatBits::F64(_) => TypeId::F64,
        }
    }

    /// Builds the pattern of width `width` from the low bits of `bits`.
    pub fn from_width_bits(width: u32, bits: u64) -> Option<FloatBits> {
        match width {
            16 => Some(FloatBits::F16(bits as u16)),
            32 => Some(FloatBits::F32(bits as u32)),
            64 => Some(FloatBits::F64(bits)),
            _ => None,
        }
    }

    /// Parses `0x` followed by exactly 4/8/16 hex digits (either case).
    pub fn parse(width: u32, text: &str) -> Result<FloatBits, FloatParseError> {
        let digits = match width {
            16 => 4,
            32 => 8,
            64 => 16,
            _ => return Err(FloatParseError::Width),
        };
        let hex = text.strip_prefix("0x").ok_or(FloatParseError::Prefix)?;
        if hex.len() != digits as usize || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(FloatParseError::Digits { width, digits });
        }
        let bits = u64::from_str_radix(hex, 16).map_err(|_| FloatParseError::Digits { width, digits })?;
        FloatBits::from_width_bits(width, bits).ok_or(FloatParseError::Width)
    }

    /// Rounds a host `f64` to `width` bits (round to nearest, ties to even); NaN
    /// becomes the width's positive quiet NaN.
    pub fn from_f64(width: u32, value: f64) -> Option<FloatBits> {
        match width {
            16 => Some(FloatBits::F16(f64_to_f16_bits(value))),
            32 => Some(FloatBits::F32(if value.is_nan() { 0x7fc0_0000 } else { (value as f32).to_bits() })),
            64 => Some(FloatBits::F64(if value.is_nan() { 0x7ff8_0000_0000_0000 } else { value.to_bits() })),
            _ => None,
        }
    }
}

/// Writes `0x` plus exactly 4/8/16 lowercase hex digits.
impl fmt::Display for FloatBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FloatBits::F16(b) => write!(f, "0x{b:04x}"),
            FloatBits::F32(b) => write!(f, "0x{b:08x}"),
            FloatBits::F64(b) => write!(f, "0x{b:016x}"),
        }
    }
}

/// Rounds a host f64 directly to binary16 (one rounding, ties to even).
fn f64_to_f16_bits(value: f64) -> u16 {
    if value.is_nan() {
        return 0x7e00;
    }
    let bits = value.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let abs = value.abs();
    if abs.is_infinite() || abs >= 65520.0 {
        return sign | 0x7c00;
    }
    // Work in units of the smallest subnormal (2^-24): scale, then round to even.
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if exp < -14 {
        let scaled = abs * (1u64 << 24) as f64;
        return sign | round_half_even(scaled) as u16;
    }
    // Normal range: keep 10 fraction bits.
    let mantissa = abs / 2f64.powi(exp) - 1.0; // in [0, 1)
    let frac = round_half_even(mantissa * 1024.0);
    let (exp, frac) = if frac == 1024 { (exp + 1, 0) } else { (exp, frac) };
    if exp > 15 {
        return sign | 0x7c00;
    }
    sign | (((exp + 15) as u16) << 10) | frac as u16
}

fn round_half_even(x: f64) -> u64 {
    let floor = x.floor();
    let diff = x - floor;
    let base = floor as u64;
    if diff > 0.5 || (diff == 0.5 && base % 2 == 1) {
        base + 1
    } else {
        base
    }
}

/// A constant payload (whale-upstream §a.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ConstValue {
    /// A `bool`.
    Bool(bool),
    /// A signed integer payload (for `iN`).
    I(i128),
    /// An unsigned integer payload (for `uN`).
    U(u128),
    /// A float bit pattern (for `fN`).
    F(FloatBits),
}

impl ConstValue {
    /// Whether this payload is a valid constant of scalar type `ty`: matching kind,
    /// value within the width's range, float width equal to the type's.
    pub fn is_valid_for(self, ty: TypeId) -> bool {
        match self {
            ConstValue::Bool(_) => ty == TypeId::BOOL,
            ConstValue::I(v) => {
                if !ty.is_signed_int() {
                    return false;
                }
                let bits = ty.scalar_bits().unwrap_or(0);
                bits == 128 || (v >= -(1i128 << (bits - 1)) && v < (1i128 << (bits - 1)))
            }
            ConstValue::U(v) => {
                if !ty.is_unsigned_int() {
                    return false;
                }
                let bits = ty.scalar_bits().unwrap_or(0);
                bits == 128 || v < (1u128 << bits)
            }
            ConstValue::F(f) => f.type_id() == ty,
        }
    }

    /// The payload as a raw bit pattern of `bits` width (two's complement for
    /// signed values), used for bitwise comparison of switch keys.
    pub fn bit_pattern(self) -> u128 {
        match self {
            ConstValue::Bool(b) => u128::from(b),
            ConstValue::I(v) => v as u128,
            ConstValue::U(v) => v,
            ConstValue::F(f) => u128::from(f.bits()),
        }
    }
}

/// Writes `true`/`false`, a decimal integer, or the float bit string.
impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::Bool(b) => write!(f, "{b}"),
            ConstValue::I(v) => write!(f, "{v}"),
            ConstValue::U(v) => write!(f, "{v}"),
            ConstValue::F(bits) => write!(f, "{bits}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_bits_parse_and_print() {
        assert_eq!(FloatBits::parse(32, "0x7F800000"), Ok(FloatBits::F32(0x7f80_0000)));
        assert_eq!(FloatBits::F32(0x7f80_0000).to_string(), "0x7f800000");
        assert_eq!(FloatBits::F16(1).to_string(), "0x0001");
        assert_eq!(FloatBits::parse(8, "0x00"), Err(FloatParseError::Width));
        assert_eq!(FloatBits::parse(16, "0X0000"), Err(FloatParseError::Prefix));
        assert_eq!(
            FloatBits::parse(64, "0x0").map_err(|e| e.to_string()),
            Err("f64 requires exactly 16 hexadecimal digits".to_string())
        );
    }

    #[test]
    fn host_float_rounding() {
        assert_eq!(FloatBits::from_f64(16, 1.0), Some(FloatBits::F16(0x3c00)));
        assert_eq!(FloatBits::from_f64(16, 65504.0), Some(FloatBits::F16(0x7bff)));
        assert_eq!(FloatBits::from_f64(16, 65520.0), Some(FloatBits::F16(0x7c00)));
        assert_eq!(FloatBits::from_f64(16, -2.0f64.powi(-24)), Some(FloatBits::F16(0x8001)));
        assert_eq!(FloatBits::from_f64(16, f64::NAN), Some(FloatBits::F16(0x7e00)));
        // 1 + 2^-11 is a tie between 1.0 and 1 + 2^-10: rounds to even (1.0).
        assert_eq!(FloatBits::from_f64(16, 1.0 + 2f64.powi(-11)), Some(FloatBits::F16(0x3c00)));
        assert_eq!(FloatBits::from_f64(32, 0.5), Some(FloatBits::F32(0x3f00_0000)));
    }

    #[test]
    fn validity_by_width_and_kind() {
        assert!(ConstValue::I(-128).is_valid_for(TypeId::I8));
        assert!(!ConstValue::I(128).is_valid_for(TypeId::I8));
        assert!(ConstValue::I(-1).is_valid_for(TypeId::I1));
        assert!(!ConstValue::I(1).is_valid_for(TypeId::I1));
        assert!(!ConstValue::U(2).is_valid_for(TypeId::U1));
        assert!(ConstValue::U(u128::MAX).is_valid_for(TypeId::U128));
        assert!(!ConstValue::U(1).is_valid_for(TypeId::I32));
        assert!(!ConstValue::F(FloatBits::F32(0)).is_valid_for(TypeId::F64));
        assert!(ConstValue::Bool(true).is_valid_for(TypeId::BOOL));
    }
}
