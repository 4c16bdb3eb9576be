//! AST types, signatures, literals and constant expressions as IR values
//! (whale-upstream §f.2, §f.3).
//!
//! Literal text is checked here, in upstream's order: the shape of the digits,
//! then the 128-bit range of the signedness, then the declared width. Constant
//! expressions are built as [`ConstExpr`] trees and evaluated by
//! [`crate::const_expr::evaluate`], the verifier's own evaluator, so a lowered
//! `const_decl` or global always re-evaluates to the value recorded beside it.

use crate::const_expr::{self, ConstBinOp, ConstCmpOp, ConstEvalError, ConstExpr, ConstExprKind, ConstRef};
use crate::constant::{ConstValue, FloatBits};
use crate::entity::TypeId;
use crate::module;
use crate::types::{CallingConvention, FunctionSignature, Type};

use super::error::LowerError;
use super::frontend as ast;
use super::MAX_NESTING;

/// Fails when `depth` is beyond [`MAX_NESTING`].
pub(super) fn check_depth(depth: usize) -> Result<(), LowerError> {
    if depth > MAX_NESTING {
        Err(LowerError::NestingLimit { limit: MAX_NESTING })
    } else {
        Ok(())
    }
}

/// The IR type of an AST type.
pub(super) fn lower_type(ty: &ast::Type, depth: usize) -> Result<Type, LowerError> {
    check_depth(depth)?;
    Ok(match ty {
        ast::Type::Int { bits, signed } => Type::int(u32::from(*bits), *signed)
            .ok_or_else(|| LowerError::UnsupportedType(format!("int bits={bits} signed={signed}")))?,
        ast::Type::Float { bits } => {
            Type::float(u32::from(*bits)).ok_or_else(|| LowerError::UnsupportedType(format!("float bits={bits}")))?
        }
        ast::Type::Ptr(pointee) => Type::ptr(lower_type(pointee, depth + 1)?),
        ast::Type::Array { elem, len } => Type::array(lower_type(elem, depth + 1)?, *len),
        ast::Type::Opaque(name) => return Err(LowerError::UnsupportedType(format!("opaque {name}"))),
        ast::Type::Void => Type::Void,
        ast::Type::Bool => Type::Bool,
        ast::Type::FnPtr(sig) => Type::fn_ptr(lower_signature(sig, depth + 1)?),
    })
}

/// The IR signature of an AST signature (validity is the builder's to check).
pub(super) fn lower_signature(sig: &ast::Signature, depth: usize) -> Result<FunctionSignature, LowerError> {
    check_depth(depth)?;
    let params = sig.params.iter().map(|p| lower_type(p, depth + 1)).collect::<Result<Vec<_>, _>>()?;
    Ok(FunctionSignature {
        params,
        ret: lower_type(&sig.ret, depth + 1)?,
        convention: convention(sig.convention),
        variadic: sig.variadic,
    })
}

/// The IR calling convention.
pub(super) fn convention(convention: ast::Convention) -> CallingConvention {
    match convention {
        ast::Convention::Whale => CallingConvention::Whale,
        ast::Convention::SysV64 => CallingConvention::SysV64,
    }
}

/// The IR linkage.
pub(super) fn linkage(linkage: ast::Linkage) -> module::Linkage {
    match linkage {
        ast::Linkage::Internal => module::Linkage::Internal,
        ast::Linkage::External => module::Linkage::External,
    }
}

/// The type and payload of a literal.
pub(super) fn literal(lit: &ast::Literal) -> Result<(Type, ConstValue), LowerError> {
    match lit {
        ast::Literal::Bool(b) => Ok((Type::Bool, ConstValue::Bool(*b))),
        ast::Literal::Int { bits, signed, value } => {
            let ty = lower_type(&ast::Type::Int { bits: *bits, signed: *signed }, 0)?;
            let payload = int_literal(*signed, value)?;
            let valid = TypeId::int(u32::from(*bits), *signed).is_some_and(|id| payload.is_valid_for(id));
            if !valid {
                return Err(LowerError::InvalidLiteral { ty, value: value.clone() });
            }
            Ok((ty, payload))
        }
        ast::Literal::Float { bits, value } => {
            let bits =
                FloatBits::parse(u32::from(*bits), value).map_err(|e| LowerError::NumericLiteral(e.to_string()))?;
            let ty = match bits {
                FloatBits::F16(_) => Type::F16,
                FloatBits::F32(_) => Type::F32,
                FloatBits::F64(_) => Type::F64,
            };
            Ok((ty, ConstValue::F(bits)))
        }
    }
}

/// Parses decimal digits with an optional `-` (signed only) into a 128-bit payload.
fn int_literal(signed: bool, text: &str) -> Result<ConstValue, LowerError> {
    let digits = if signed { text.strip_prefix('-').unwrap_or(text) } else { text };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LowerError::NumericLiteral("expected decimal digits with an optional signed minus".into()));
    }
    if signed {
        let v = text.parse::<i128>().map_err(|_| LowerError::NumericLiteral("integer exceeds i128 range".into()))?;
        Ok(ConstValue::I(v))
    } else {
        let v = text.parse::<u128>().map_err(|_| LowerError::NumericLiteral("integer exceeds u128 range".into()))?;
        Ok(ConstValue::U(v))
    }
}

/// What a name denotes inside a constant expression.
pub(super) enum ConstName {
    /// A runtime variable or parameter: not constant.
    Runtime,
    /// A constant (local `const_decl` or global) of this type.
    Constant(ConstRef, Type),
    /// Nothing of that name is visible.
    Unknown,
}

/// Builds the constant-expression tree of `expr`, resolving names with `lookup`.
pub(super) fn const_expr(
    expr: &ast::Expr,
    depth: usize,
    lookup: &dyn Fn(&str) -> ConstName,
) -> Result<ConstExpr, LowerError> {
    check_depth(depth)?;
    match expr {
        ast::Expr::Var(name) => match lookup(name) {
            ConstName::Constant(reference, ty) => Ok(ConstExpr { ty, kind: ConstExprKind::Reference(reference) }),
            ConstName::Runtime => Err(LowerError::NonConstExpr),
            ConstName::Unknown => Err(LowerError::UnknownVariable(name.clone())),
        },
        ast::Expr::Lit(lit) => {
            let (ty, value) = literal(lit)?;
            Ok(ConstExpr::literal(ty, value))
        }
        ast::Expr::Binary { left, op, right } => {
            let (lhs, rhs) = const_operands(left, right, depth, lookup)?;
            let op = match op {
                ast::BinaryOp::Add => ConstBinOp::Add,
                ast::BinaryOp::Sub => ConstBinOp::Sub,
                ast::BinaryOp::Mul => ConstBinOp::Mul,
            };
            Ok(ConstExpr { ty: lhs.ty.clone(), kind: ConstExprKind::Binary { op, lhs, rhs } })
        }
        ast::Expr::Cmp { left, op, right } => {
            let (lhs, rhs) = const_operands(left, right, depth, lookup)?;
            let op = match op {
                ast::CmpOp::Eq => ConstCmpOp::Eq,
                ast::CmpOp::Ne => ConstCmpOp::Ne,
                ast::CmpOp::Lt => ConstCmpOp::Lt,
                ast::CmpOp::Le => ConstCmpOp::Le,
                ast::CmpOp::Gt => ConstCmpOp::Gt,
                ast::CmpOp::Ge => ConstCmpOp::Ge,
            };
            Ok(ConstExpr { ty: Type::Bool, kind: ConstExprKind::Compare { op, lhs, rhs } })
        }
        ast::Expr::FunctionRef(_) | ast::Expr::Call { .. } | ast::Expr::NullFunction(_) => {
            Err(LowerError::NonConstExpr)
        }
    }
}

type Operands = (Box<ConstExpr>, Box<ConstExpr>);

fn const_operands(
    left: &ast::Expr,
    right: &ast::Expr,
    depth: usize,
    lookup: &dyn Fn(&str) -> ConstName,
) -> Result<Operands, LowerError> {
    let lhs = const_expr(left, depth + 1, lookup)?;
    let rhs = const_expr(right, depth + 1, lookup)?;
    if lhs.ty != rhs.ty {
        return Err(LowerError::TypeMismatch { expected: lhs.ty, got: rhs.ty });
    }
    Ok((Box::new(lhs), Box::new(rhs)))
}

/// Evaluates a tree built by [`const_expr`]; `resolve` gives the type and value
/// of a referenced constant. Operations undefined on their type (bool
/// arithmetic, ordering of bools) are [`LowerError::UnsupportedExpr`].
pub(super) fn evaluate(
    expr: &ConstExpr,
    resolve: &mut dyn FnMut(ConstRef) -> Option<(Type, ConstValue)>,
) -> Result<ConstValue, LowerError> {
    let mut resolver = |r: ConstRef| resolve(r).ok_or_else(|| ConstEvalError::UnknownReference(format!("{r:?}")));
    // Trees are at most MAX_NESTING deep, within the evaluator's default budget,
    // which the verifier uses as well.
    const_expr::evaluate(expr, const_expr::DEFAULT_CONST_EXPR_DEPTH, &mut resolver).map_err(|e| match e {
        ConstEvalError::ResourceLimit => LowerError::NestingLimit { limit: MAX_NESTING },
        _ => LowerError::UnsupportedExpr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(bits: u16, signed: bool, value: &str) -> Result<(Type, ConstValue), LowerError> {
        literal(&ast::Literal::Int { bits, signed, value: value.into() })
    }

    fn numeric(message: &str) -> Result<(Type, ConstValue), LowerError> {
        Err(LowerError::NumericLiteral(message.into()))
    }

    const SHAPE: &str = "expected decimal digits with an optional signed minus";

    #[test]
    fn integer_literal_rules() {
        assert_eq!(int(8, true, "-128"), Ok((Type::I8, ConstValue::I(-128))));
        assert_eq!(int(8, false, "007"), Ok((Type::U8, ConstValue::U(7))));
        assert_eq!(int(128, false, &u128::MAX.to_string()), Ok((Type::U128, ConstValue::U(u128::MAX))));
        assert_eq!(int(128, true, &i128::MIN.to_string()), Ok((Type::I128, ConstValue::I(i128::MIN))));
        assert_eq!(int(1, true, "-1"), Ok((Type::I1, ConstValue::I(-1))));
        for bad in ["", "-", "+1", " 1", "1 ", "1.0", "1e3", "1_000", "--1", "0x10"] {
            assert_eq!(int(32, true, bad), numeric(SHAPE), "{bad:?}");
        }
        assert_eq!(int(32, false, "-1"), numeric(SHAPE));
        let above_i128 = (i128::MAX as u128 + 1).to_string();
        assert_eq!(int(128, true, &above_i128), numeric("integer exceeds i128 range"));
        assert_eq!(int(8, true, &format!("-{above_i128}1")), numeric("integer exceeds i128 range"));
        assert_eq!(int(128, false, "340282366920938463463374607431768211456"), numeric("integer exceeds u128 range"));
        for (bits, signed, text, ty) in [
            (8, true, "128", Type::I8),
            (8, false, "256", Type::U8),
            (1, true, "1", Type::I1),
            (1, false, "2", Type::U1),
        ] {
            assert_eq!(int(bits, signed, text), Err(LowerError::InvalidLiteral { ty, value: text.into() }));
        }
        assert_eq!(int(7, true, "1"), Err(LowerError::UnsupportedType("int bits=7 signed=true".into())));
    }

    #[test]
    fn float_literal_rules() {
        let f = |bits: u16, value: &str| literal(&ast::Literal::Float { bits, value: value.into() });
        assert_eq!(f(16, "0x3C00"), Ok((Type::F16, ConstValue::F(FloatBits::F16(0x3c00)))));
        assert_eq!(f(64, "0x7ff8000000000001"), Ok((Type::F64, ConstValue::F(FloatBits::F64(0x7ff8_0000_0000_0001)))));
        assert_eq!(f(8, "0x00"), numeric("float width must be 16, 32 or 64"));
        assert_eq!(f(32, "3f800000"), numeric("float value must start with 0x"));
        assert_eq!(f(32, "0x3f80"), numeric("f32 requires exactly 8 hexadecimal digits"));
    }

    #[test]
    fn types_and_depth() {
        assert_eq!(
            lower_type(&ast::Type::Float { bits: 80 }, 0),
            Err(LowerError::UnsupportedType("float bits=80".into()))
        );
        assert_eq!(
            lower_type(&ast::Type::Opaque("FILE".into()), 0),
            Err(LowerError::UnsupportedType("opaque FILE".into()))
        );
        let mut deep = ast::Type::Bool;
        for _ in 0..=MAX_NESTING {
            deep = ast::Type::Ptr(Box::new(deep));
        }
        assert_eq!(lower_type(&deep, 0), Err(LowerError::NestingLimit { limit: MAX_NESTING }));
    }
}
