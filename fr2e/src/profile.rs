//! The Whale profile's tables (`fr2e.md` Part C), shared by the writer ([`crate::lower`]) and the reader
//! ([`crate::lift`]): extension tags (C9), operator codes (C6), cast and checked-operation codes, constant-expression
//! codes (C7.3), type-signature letters (C1) and the constant register forms (C7).
//!
//! Every table is written once, as a pair of functions (Whale → code, code → Whale) next to each other, so the two
//! directions cannot drift apart; the unit tests below check that each pair is a bijection on its domain.

use ir::{CheckedOp, CmpOp, ConstBinOp, ConstCmpOp, ConstValue, FCmpPred, FloatBits, ICmpPred, Opcode, TypeId};

use crate::format::register::{Register, Subtype};
use crate::format::vli::fold;
use crate::format::Tag;

/// `V` in `A`/`R`: the Whale ValueId when it is not the default (C3).
pub const TAG_VALUE_ID: Tag = Tag::byte(0x10);
/// GBLD `FN`: the block table, per block its BlockId and name (C4).
pub const TAG_BLOCK_TABLE: Tag = Tag::byte(0x11);
/// GBLD `FN`: a synthesized declaration (snapshot IR only, C2).
pub const TAG_SYNTHESIZED: Tag = Tag::byte(0x12);
/// GBLD `GV`: the alignment, UVLI64 (C2).
pub const TAG_ALIGN: Tag = Tag::byte(0x13);
/// Root: the module's target, a string tag (C2).
pub const TAG_TARGET: Tag = Tag::byte(0x14);
/// Root: the data layout, UVLI32 pointer bits and UVLI32 endian (C2).
pub const TAG_DATALAYOUT: Tag = Tag::byte(0x15);
/// GBLD `GV`/`FN`: the Whale GlobalId or FunctionId when it is not positional (C2).
pub const TAG_WHALE_ID: Tag = Tag::byte(0x16);
/// GBLD `GV`: the `init_expr` tree (C7.3).
pub const TAG_INIT_EXPR: Tag = Tag::byte(0x17);
/// GBLD `FN`: the `const_decl` records (C7.3).
pub const TAG_CONST_DECLS: Tag = Tag::byte(0x18);

/// The flag string of a tuple's LITD `ST` entry (C1).
pub const TUPLE_FLAG: &str = "Utuple;";

/// How "typed" operator codes read a type (C6.1): floats, signed integers, and everything else (bool, unsigned
/// integers, pointers), which is unsigned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    /// f16, f32, f64.
    Float,
    /// i1 … i128.
    Signed,
    /// bool, u1 … u128, pointers (and, for invalid IR, anything else).
    Unsigned,
}

/// The class of `ty`.
pub fn class(ty: TypeId) -> Class {
    if ty.is_float() {
        Class::Float
    } else if ty.is_signed_int() {
        Class::Signed
    } else {
        Class::Unsigned
    }
}

/// The BINARY operator of a Whale binary opcode on result type class `class` (C6.1): the typed code when the
/// operation agrees with the class, the explicit Whale-profile code otherwise.
pub fn binary_opr(op: Opcode, class: Class) -> Option<u32> {
    use Class::*;
    Some(match op {
        Opcode::Add | Opcode::Fadd => 0x00,
        Opcode::Sub | Opcode::Fsub => 0x01,
        Opcode::Mul | Opcode::Fmul => 0x02,
        Opcode::Sdiv => {
            if class == Signed {
                0x03
            } else {
                0x0F
            }
        }
        Opcode::Udiv => {
            if class == Unsigned {
                0x03
            } else {
                0x0D
            }
        }
        Opcode::Fdiv => 0x03,
        Opcode::Srem => {
            if class == Signed {
                0x04
            } else {
                0x10
            }
        }
        Opcode::Urem => {
            if class == Unsigned {
                0x04
            } else {
                0x0E
            }
        }
        Opcode::Frem => 0x04,
        Opcode::And => 0x05,
        Opcode::Or => 0x06,
        Opcode::Xor => 0x07,
        Opcode::Shl => 0x08,
        Opcode::Ashr => {
            if class == Signed {
                0x09
            } else {
                0x11
            }
        }
        Opcode::Lshr => {
            if class == Unsigned {
                0x09
            } else {
                0x0A
            }
        }
        _ => return None,
    })
}

/// The Whale opcode of BINARY operator `opr` on result type class `class` (C6.1); MULH and UMULH are outside the
/// profile.
pub fn binary_op(opr: u32, class: Class) -> Option<Opcode> {
    use Class::*;
    let float = class == Float;
    Some(match opr {
        0x00 => {
            if float {
                Opcode::Fadd
            } else {
                Opcode::Add
            }
        }
        0x01 => {
            if float {
                Opcode::Fsub
            } else {
                Opcode::Sub
            }
        }
        0x02 => {
            if float {
                Opcode::Fmul
            } else {
                Opcode::Mul
            }
        }
        0x03 => match class {
            Float => Opcode::Fdiv,
            Signed => Opcode::Sdiv,
            Unsigned => Opcode::Udiv,
        },
        0x04 => match class {
            Float => Opcode::Frem,
            Signed => Opcode::Srem,
            Unsigned => Opcode::Urem,
        },
        0x05 => Opcode::And,
        0x06 => Opcode::Or,
        0x07 => Opcode::Xor,
        0x08 => Opcode::Shl,
        0x09 => {
            if class == Signed {
                Opcode::Ashr
            } else {
                Opcode::Lshr
            }
        }
        0x0A => Opcode::Lshr,
        0x0D => Opcode::Udiv,
        0x0E => Opcode::Urem,
        0x0F => Opcode::Sdiv,
        0x10 => Opcode::Srem,
        0x11 => Opcode::Ashr,
        _ => return None,
    })
}

/// Integer predicates of `cmp` and `icmp` by name, shared by both tables.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IntPred {
    Eq,
    Ne,
    Slt,
    Sgt,
    Sle,
    Sge,
    Ult,
    Ugt,
    Ule,
    Uge,
}

/// C6.2: eq/ne are 00/01; an ordered predicate whose signedness agrees with the operand class takes 02-05 (LT GT LE
/// GE), otherwise the explicit 0A-0D (signed) or 0E-11 (unsigned).
fn int_pred_opr(pred: IntPred, class: Class) -> u32 {
    use IntPred::*;
    let (offset, signed) = match pred {
        Eq => return 0x00,
        Ne => return 0x01,
        Slt => (0, true),
        Sgt => (1, true),
        Sle => (2, true),
        Sge => (3, true),
        Ult => (0, false),
        Ugt => (1, false),
        Ule => (2, false),
        Uge => (3, false),
    };
    let agrees = if signed { class == Class::Signed } else { class == Class::Unsigned };
    match (agrees, signed) {
        (true, _) => 0x02 + offset,
        (false, true) => 0x0A + offset,
        (false, false) => 0x0E + offset,
    }
}

fn int_pred(opr: u32, class: Class) -> Option<IntPred> {
    use IntPred::*;
    const SIGNED: [IntPred; 4] = [Slt, Sgt, Sle, Sge];
    const UNSIGNED: [IntPred; 4] = [Ult, Ugt, Ule, Uge];
    Some(match opr {
        0x00 => Eq,
        0x01 => Ne,
        0x02..=0x05 if class == Class::Signed => SIGNED[(opr - 0x02) as usize],
        0x02..=0x05 => UNSIGNED[(opr - 0x02) as usize],
        0x0A..=0x0D => SIGNED[(opr - 0x0A) as usize],
        0x0E..=0x11 => UNSIGNED[(opr - 0x0E) as usize],
        _ => return None,
    })
}

/// The COMPARE operator of a `cmp` predicate on operand class `class` (C6.2).
pub fn cmp_opr(pred: CmpOp, class: Class) -> u32 {
    let int = |p| int_pred_opr(p, class);
    match pred {
        CmpOp::Eq => int(IntPred::Eq),
        CmpOp::Ne => int(IntPred::Ne),
        CmpOp::Slt => int(IntPred::Slt),
        CmpOp::Sgt => int(IntPred::Sgt),
        CmpOp::Sle => int(IntPred::Sle),
        CmpOp::Sge => int(IntPred::Sge),
        CmpOp::Ult => int(IntPred::Ult),
        CmpOp::Ugt => int(IntPred::Ugt),
        CmpOp::Ule => int(IntPred::Ule),
        CmpOp::Uge => int(IntPred::Uge),
        CmpOp::Feq => 0x00,
        CmpOp::Fne => 0x01,
        CmpOp::Flt => 0x02,
        CmpOp::Fgt => 0x03,
        CmpOp::Fle => 0x04,
        CmpOp::Fge => 0x05,
    }
}

/// The `cmp` predicate of COMPARE operator `opr` on operand class `class`: float operands read 00-05 as the float
/// predicates (C6.2).
pub fn cmp_pred(opr: u32, class: Class) -> Option<CmpOp> {
    if class == Class::Float {
        const FLOAT: [CmpOp; 6] = [CmpOp::Feq, CmpOp::Fne, CmpOp::Flt, CmpOp::Fgt, CmpOp::Fle, CmpOp::Fge];
        if let Some(&p) = FLOAT.get(opr as usize) {
            return Some(p);
        }
    }
    Some(match int_pred(opr, class)? {
        IntPred::Eq => CmpOp::Eq,
        IntPred::Ne => CmpOp::Ne,
        IntPred::Slt => CmpOp::Slt,
        IntPred::Sgt => CmpOp::Sgt,
        IntPred::Sle => CmpOp::Sle,
        IntPred::Sge => CmpOp::Sge,
        IntPred::Ult => CmpOp::Ult,
        IntPred::Ugt => CmpOp::Ugt,
        IntPred::Ule => CmpOp::Ule,
        IntPred::Uge => CmpOp::Uge,
    })
}

/// The X_ICMP operator of an `icmp` predicate (C6.2).
pub fn icmp_opr(pred: ICmpPred, class: Class) -> u32 {
    let p = match pred {
        ICmpPred::Eq => IntPred::Eq,
        ICmpPred::Ne => IntPred::Ne,
        ICmpPred::Slt => IntPred::Slt,
        ICmpPred::Sgt => IntPred::Sgt,
        ICmpPred::Sle => IntPred::Sle,
        ICmpPred::Sge => IntPred::Sge,
        ICmpPred::Ult => IntPred::Ult,
        ICmpPred::Ugt => IntPred::Ugt,
        ICmpPred::Ule => IntPred::Ule,
        ICmpPred::Uge => IntPred::Uge,
    };
    int_pred_opr(p, class)
}

/// The `icmp` predicate of X_ICMP operator `opr` (C6.2).
pub fn icmp_pred(opr: u32, class: Class) -> Option<ICmpPred> {
    Some(match int_pred(opr, class)? {
        IntPred::Eq => ICmpPred::Eq,
        IntPred::Ne => ICmpPred::Ne,
        IntPred::Slt => ICmpPred::Slt,
        IntPred::Sgt => ICmpPred::Sgt,
        IntPred::Sle => ICmpPred::Sle,
        IntPred::Sge => ICmpPred::Sge,
        IntPred::Ult => ICmpPred::Ult,
        IntPred::Ugt => ICmpPred::Ugt,
        IntPred::Ule => ICmpPred::Ule,
        IntPred::Uge => ICmpPred::Uge,
    })
}

/// The X_FCMP operators of C6.5, as (predicate, operator) pairs.
const FCMP: [(FCmpPred, u32); 14] = [
    (FCmpPred::Oeq, 0x00),
    (FCmpPred::Une, 0x01),
    (FCmpPred::Olt, 0x02),
    (FCmpPred::Ogt, 0x03),
    (FCmpPred::Ole, 0x04),
    (FCmpPred::Oge, 0x05),
    (FCmpPred::One, 0x12),
    (FCmpPred::Ord, 0x13),
    (FCmpPred::Uno, 0x14),
    (FCmpPred::Ueq, 0x15),
    (FCmpPred::Ult, 0x16),
    (FCmpPred::Ugt, 0x17),
    (FCmpPred::Ule, 0x18),
    (FCmpPred::Uge, 0x19),
];

/// The X_FCMP operator of an `fcmp` predicate (C6.5).
pub fn fcmp_opr(pred: FCmpPred) -> u32 {
    FCMP.iter().find(|(p, _)| *p == pred).map_or(0, |&(_, opr)| opr)
}

/// The `fcmp` predicate of X_FCMP operator `opr` (C6.5).
pub fn fcmp_pred(opr: u32) -> Option<FCmpPred> {
    FCMP.iter().find(|(_, o)| *o == opr).map(|&(p, _)| p)
}

/// Cast opcodes in CONV operator order 01-0C (C6.3).
const CASTS: [Opcode; 12] = [
    Opcode::Zext,
    Opcode::Sext,
    Opcode::Trunc,
    Opcode::Fext,
    Opcode::Ftrunc,
    Opcode::ItofS,
    Opcode::ItofU,
    Opcode::FtoiS,
    Opcode::FtoiU,
    Opcode::Bitcast,
    Opcode::Ptrtoint,
    Opcode::Inttoptr,
];

/// The CONV operator of a cast opcode (C6.3).
pub fn cast_opr(op: Opcode) -> Option<u32> {
    CASTS.iter().position(|&c| c == op).map(|i| i as u32 + 1)
}

/// The cast opcode of CONV operator `opr` (01-0C; 00 is resolved by the caller from the types).
pub fn cast_op(opr: u32) -> Option<Opcode> {
    CASTS.get((opr as usize).wrapping_sub(1)).copied()
}

/// Checked operations in X_CHECKED operator order 01-06 (C6.4).
const CHECKED: [CheckedOp; 6] =
    [CheckedOp::UAdd, CheckedOp::USub, CheckedOp::UMul, CheckedOp::SAdd, CheckedOp::SSub, CheckedOp::SMul];

/// The X_CHECKED operator of a checked opcode (C6.4).
pub fn checked_opr(op: Opcode) -> Option<u32> {
    CHECKED.iter().position(|c| c.opcode() == op).map(|i| i as u32 + 1)
}

/// The checked opcode of X_CHECKED operator `opr`.
pub fn checked_op(opr: u32) -> Option<Opcode> {
    CHECKED.get((opr as usize).wrapping_sub(1)).map(|c| c.opcode())
}

/// Constant-expression arithmetic codes (C7.3: the BINARY operators 00-02).
pub fn const_bin_code(op: ConstBinOp) -> u32 {
    match op {
        ConstBinOp::Add => 0,
        ConstBinOp::Sub => 1,
        ConstBinOp::Mul => 2,
    }
}

/// The constant-expression arithmetic of code `code`.
pub fn const_bin_op(code: u32) -> Option<ConstBinOp> {
    [ConstBinOp::Add, ConstBinOp::Sub, ConstBinOp::Mul].get(code as usize).copied()
}

/// Constant-expression comparison codes (C7.3: the COMPARE operators 00-05, EQ NE LT GT LE GE).
const CONST_CMP: [ConstCmpOp; 6] =
    [ConstCmpOp::Eq, ConstCmpOp::Ne, ConstCmpOp::Lt, ConstCmpOp::Gt, ConstCmpOp::Le, ConstCmpOp::Ge];

/// The code of a constant-expression comparison.
pub fn const_cmp_code(op: ConstCmpOp) -> u32 {
    CONST_CMP.iter().position(|&c| c == op).map_or(0, |i| i as u32)
}

/// The constant-expression comparison of code `code`.
pub fn const_cmp_op(code: u32) -> Option<ConstCmpOp> {
    CONST_CMP.get(code as usize).copied()
}

/// Constant-expression node kinds (C7.3).
pub mod expr_kind {
    #![allow(missing_docs)]
    pub const LITERAL: u32 = 0;
    pub const REFERENCE: u32 = 1;
    pub const BINARY: u32 = 2;
    pub const COMPARE: u32 = 3;
}

/// The signature of a scalar type (C1): fixed-width letters, `Ui1;`/`Uu1;` for the 1-bit integers.
pub fn scalar_signature(ty: TypeId) -> Option<&'static str> {
    const SIGS: [&str; 17] =
        ["v", "b", "Ui1;", "a", "s", "i", "x", "n", "Uu1;", "h", "t", "j", "y", "o", "k", "f", "d"];
    SIGS.get(ty.as_u32() as usize).copied()
}

/// The scalar type of a one-letter primitive signature (C1), or `None` for letters outside the profile.
pub fn primitive_type(letter: u8) -> Option<TypeId> {
    Some(match letter {
        b'v' => TypeId::VOID,
        b'b' => TypeId::BOOL,
        b'a' => TypeId::I8,
        b'h' => TypeId::U8,
        b's' => TypeId::I16,
        b't' => TypeId::U16,
        b'i' => TypeId::I32,
        b'j' => TypeId::U32,
        b'x' => TypeId::I64,
        b'y' => TypeId::U64,
        b'n' => TypeId::I128,
        b'o' => TypeId::U128,
        b'k' => TypeId::F16,
        b'f' => TypeId::F32,
        b'd' => TypeId::F64,
        _ => return None,
    })
}

/// The scalar type of an extended `U{name};` signature (C1: `i1`, `u1`).
pub fn extended_type(name: &str) -> Option<TypeId> {
    match name {
        "i1" => Some(TypeId::I1),
        "u1" => Some(TypeId::U1),
        _ => None,
    }
}

/// The register of an integer (or bool) constant's mathematical value (C7.1): the `1001` form for 32-bit values,
/// the inline long form while its payload fits, raw long up to 64 bits, raw int128 beyond.
pub fn int_register(value: i128) -> Register {
    if let Ok(v) = i32::try_from(value) {
        return Register::Int(v.into());
    }
    if let Ok(v) = i64::try_from(value) {
        return if fold(v) < crate::format::limits::LONG_CONSTANT_PAYLOAD_LIMIT {
            Register::Long(v)
        } else {
            Register::RawLong(v)
        };
    }
    wide_register(value as u128)
}

fn wide_register(bits: u128) -> Register {
    Register::RawInt128 { low: bits as u64 as i64, high: (bits >> 64) as u64 as i64 }
}

/// The register of a constant payload (C7): integers by value, floats by exact bit pattern.
pub fn const_register(value: ConstValue) -> Register {
    match value {
        ConstValue::Bool(b) => Register::Int(i64::from(b)),
        ConstValue::I(v) => int_register(v),
        ConstValue::U(v) => match i128::try_from(v) {
            Ok(v) => int_register(v),
            Err(_) => wide_register(v),
        },
        ConstValue::F(FloatBits::F16(bits)) => {
            Register::Subtyped { subtype: Subtype::Float16, value: (bits as i16).into() }
        }
        ConstValue::F(FloatBits::F32(bits)) => {
            Register::Subtyped { subtype: Subtype::Float32, value: (bits as i32).into() }
        }
        ConstValue::F(FloatBits::F64(bits)) => {
            // C7.2: the binary32 form only when it is exact, and never for NaNs (their payloads must survive).
            let x = f64::from_bits(bits);
            let narrow = x as f32;
            if !x.is_nan() && f64::from(narrow).to_bits() == bits {
                Register::Subtyped { subtype: Subtype::Float32AsDouble, value: (narrow.to_bits() as i32).into() }
            } else {
                Register::RawDouble(bits)
            }
        }
    }
}

/// The integer value of an integer-constant register, or `None` for other registers.
pub fn register_int(register: Register) -> Option<i128> {
    Some(match register {
        Register::Int(v) | Register::Long(v) | Register::RawLong(v) => v.into(),
        Register::RawInt128 { low, high } => (i128::from(high) << 64) | i128::from(low as u64),
        Register::Subtyped { subtype, value } => match subtype {
            Subtype::UInt64 => (value as u64).into(),
            Subtype::Int32
            | Subtype::UInt32
            | Subtype::Int64
            | Subtype::Int8
            | Subtype::UInt8
            | Subtype::Int16
            | Subtype::UInt16 => value.into(),
            _ => return None,
        },
        _ => return None,
    })
}

/// The constant of type `ty` that `register` holds (C7), or `None` when the register is not a constant of a form
/// the type reads (a bool must be 0 or 1; unsigned integers read the value modulo 2^128).
pub fn register_const(register: Register, ty: TypeId) -> Option<ConstValue> {
    if ty.is_float() {
        let bits = match (ty, register) {
            (TypeId::F16, Register::Subtyped { subtype: Subtype::Float16, value }) => {
                FloatBits::F16(i16::try_from(value).ok()? as u16)
            }
            (TypeId::F32, Register::Subtyped { subtype: Subtype::Float32, value }) => {
                FloatBits::F32(i32::try_from(value).ok()? as u32)
            }
            (TypeId::F64, Register::Subtyped { subtype: Subtype::Float32AsDouble, value }) => {
                FloatBits::F64(f64::from(f32::from_bits(i32::try_from(value).ok()? as u32)).to_bits())
            }
            (TypeId::F64, Register::RawDouble(bits)) => FloatBits::F64(bits),
            _ => return None,
        };
        return Some(ConstValue::F(bits));
    }
    let v = register_int(register)?;
    if ty == TypeId::BOOL {
        return match v {
            0 => Some(ConstValue::Bool(false)),
            1 => Some(ConstValue::Bool(true)),
            _ => None,
        };
    }
    if ty.is_signed_int() {
        Some(ConstValue::I(v))
    } else if ty.is_unsigned_int() {
        Some(ConstValue::U(v as u128))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_codes_round_trip() {
        let ops = [
            Opcode::Add,
            Opcode::Sub,
            Opcode::Mul,
            Opcode::Sdiv,
            Opcode::Udiv,
            Opcode::Srem,
            Opcode::Urem,
            Opcode::And,
            Opcode::Or,
            Opcode::Xor,
            Opcode::Shl,
            Opcode::Lshr,
            Opcode::Ashr,
        ];
        for class in [Class::Signed, Class::Unsigned] {
            for op in ops {
                let opr = binary_opr(op, class).unwrap();
                assert_eq!(binary_op(opr, class), Some(op), "{op:?} {class:?}");
            }
        }
        for op in [Opcode::Fadd, Opcode::Fsub, Opcode::Fmul, Opcode::Fdiv, Opcode::Frem] {
            assert_eq!(binary_op(binary_opr(op, Class::Float).unwrap(), Class::Float), Some(op));
        }
        // C6.1's explicit column for valid IR: ashr on unsigned and lshr on signed.
        assert_eq!(binary_opr(Opcode::Ashr, Class::Unsigned), Some(0x11));
        assert_eq!(binary_opr(Opcode::Lshr, Class::Signed), Some(0x0A));
        assert_eq!(binary_op(0x0B, Class::Signed), None);
    }

    #[test]
    fn predicate_codes_round_trip() {
        for class in [Class::Signed, Class::Unsigned] {
            for &p in ICmpPred::ALL {
                assert_eq!(icmp_pred(icmp_opr(p, class), class), Some(p));
            }
            for &p in &CmpOp::ALL[..10] {
                assert_eq!(cmp_pred(cmp_opr(p, class), class), Some(p));
            }
        }
        for &p in &CmpOp::ALL[10..] {
            assert_eq!(cmp_pred(cmp_opr(p, Class::Float), Class::Float), Some(p));
        }
        for &p in FCmpPred::ALL {
            assert_eq!(fcmp_pred(fcmp_opr(p)), Some(p));
        }
        // C6.2 rows: slt on unsigned is explicitly signed, ult on signed explicitly unsigned.
        assert_eq!(cmp_opr(CmpOp::Slt, Class::Unsigned), 0x0A);
        assert_eq!(cmp_opr(CmpOp::Uge, Class::Signed), 0x11);
        assert_eq!(cmp_opr(CmpOp::Sgt, Class::Signed), 0x03);
    }

    #[test]
    fn cast_and_checked_codes() {
        for op in CASTS {
            assert_eq!(cast_op(cast_opr(op).unwrap()), Some(op));
        }
        assert_eq!(cast_opr(Opcode::Zext), Some(1));
        assert_eq!(cast_opr(Opcode::Inttoptr), Some(0x0C));
        assert_eq!(cast_op(0), None);
        for c in CHECKED {
            assert_eq!(checked_op(checked_opr(c.opcode()).unwrap()), Some(c.opcode()));
        }
    }

    #[test]
    fn constants_by_value_and_bits() {
        assert_eq!(int_register(-1), Register::Int(-1));
        assert_eq!(int_register(1 << 40), Register::Long(1 << 40));
        assert_eq!(int_register(i64::MAX.into()), Register::RawLong(i64::MAX));
        assert_eq!(const_register(ConstValue::U(u64::MAX.into())), Register::RawInt128 { low: -1, high: 0 });
        assert_eq!(const_register(ConstValue::U(u128::MAX)), Register::RawInt128 { low: -1, high: -1 });
        for (value, ty) in [
            (ConstValue::I(i128::MIN), TypeId::I128),
            (ConstValue::I(i128::MAX), TypeId::I128),
            (ConstValue::U(u128::MAX), TypeId::U128),
            (ConstValue::U(u64::MAX.into()), TypeId::U64),
            (ConstValue::I(-5), TypeId::I8),
            (ConstValue::Bool(true), TypeId::BOOL),
            (ConstValue::F(FloatBits::F16(0xfc01)), TypeId::F16),
            (ConstValue::F(FloatBits::F32(0x7fc0_0001)), TypeId::F32),
            (ConstValue::F(FloatBits::F64(1.5f64.to_bits())), TypeId::F64),
            (ConstValue::F(FloatBits::F64(0x7ff8_0000_0000_0001)), TypeId::F64),
            (ConstValue::F(FloatBits::F64((-0.0f64).to_bits())), TypeId::F64),
            (ConstValue::F(FloatBits::F64(0.1f64.to_bits())), TypeId::F64),
        ] {
            assert_eq!(register_const(const_register(value), ty), Some(value), "{value:?}");
        }
        // An exactly representable double takes the binary32 form; a NaN never does.
        assert!(matches!(
            const_register(ConstValue::F(FloatBits::F64(1.5f64.to_bits()))),
            Register::Subtyped { subtype: Subtype::Float32AsDouble, .. }
        ));
        assert!(matches!(const_register(ConstValue::F(FloatBits::F64(f64::NAN.to_bits()))), Register::RawDouble(_)));
        assert_eq!(register_const(Register::Int(2), TypeId::BOOL), None);
        assert_eq!(register_const(Register::Int(2), TypeId::F32), None);
    }

    #[test]
    fn signature_letters() {
        for n in 0..17u32 {
            let ty = TypeId::from_u32(n);
            let sig = scalar_signature(ty).unwrap();
            let back = match sig.strip_prefix('U') {
                Some(rest) => extended_type(rest.trim_end_matches(';')),
                None => primitive_type(sig.as_bytes()[0]),
            };
            assert_eq!(back, Some(ty), "{sig}");
        }
    }
}
