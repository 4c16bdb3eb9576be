//! Constant-expression trees (`const_decl` and global `init_expr`) and their
//! evaluation (whale-upstream §b.3).
//!
//! A tree is evaluated left to right, post-order, with integer add/sub/mul
//! wrapping to the width and float arithmetic done in host `f64` then rounded
//! to the width with NaN normalised. There is no constant division, shift or
//! cast. Evaluation recurses, so it takes a depth budget and fails with
//! [`ConstEvalError::ResourceLimit`] instead of overflowing the stack.

use std::fmt;

use crate::constant::{ConstValue, FloatBits};
use crate::entity::{GlobalId, ValueId};
use crate::types::{scalar_id, Type};

/// Default nesting budget for evaluating a constant expression.
pub const DEFAULT_CONST_EXPR_DEPTH: usize = 128;

/// A typed constant expression.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ConstExpr {
    /// The expression's type.
    pub ty: Type,
    /// What it computes.
    pub kind: ConstExprKind,
}

/// The node kinds of a constant expression.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ConstExprKind {
    /// A literal payload.
    Literal(ConstValue),
    /// The value of a global or of a local constant.
    Reference(ConstRef),
    /// `add(a, b)`, `sub(a, b)`, `mul(a, b)`.
    Binary {
        /// Operation.
        op: ConstBinOp,
        /// Left operand.
        lhs: Box<ConstExpr>,
        /// Right operand.
        rhs: Box<ConstExpr>,
    },
    /// `eq(a, b)` … `ge(a, b)`, of type `bool`.
    Compare {
        /// Comparison.
        op: ConstCmpOp,
        /// Left operand.
        lhs: Box<ConstExpr>,
        /// Right operand.
        rhs: Box<ConstExpr>,
    },
}

/// What a constant-expression reference names.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ConstRef {
    /// A module global.
    Global(GlobalId),
    /// A `const` or `const_decl` result of the same function.
    Local(ValueId),
}

/// Constant arithmetic.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ConstBinOp {
    /// Wrapping addition.
    Add,
    /// Wrapping subtraction.
    Sub,
    /// Wrapping multiplication.
    Mul,
}

/// Constant comparisons (signedness from the operand type).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ConstCmpOp {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Less than.
    Lt,
    /// Less or equal.
    Le,
    /// Greater than.
    Gt,
    /// Greater or equal.
    Ge,
}

impl ConstBinOp {
    /// The printed name.
    pub const fn name(self) -> &'static str {
        match self {
            ConstBinOp::Add => "add",
            ConstBinOp::Sub => "sub",
            ConstBinOp::Mul => "mul",
        }
    }
    /// The operation with this printed name.
    pub fn from_name(name: &str) -> Option<Self> {
        [ConstBinOp::Add, ConstBinOp::Sub, ConstBinOp::Mul].into_iter().find(|op| op.name() == name)
    }
}

impl ConstCmpOp {
    /// The printed name.
    pub const fn name(self) -> &'static str {
        match self {
            ConstCmpOp::Eq => "eq",
            ConstCmpOp::Ne => "ne",
            ConstCmpOp::Lt => "lt",
            ConstCmpOp::Le => "le",
            ConstCmpOp::Gt => "gt",
            ConstCmpOp::Ge => "ge",
        }
    }
    /// The comparison with this printed name.
    pub fn from_name(name: &str) -> Option<Self> {
        [ConstCmpOp::Eq, ConstCmpOp::Ne, ConstCmpOp::Lt, ConstCmpOp::Le, ConstCmpOp::Gt, ConstCmpOp::Ge]
            .into_iter()
            .find(|op| op.name() == name)
    }
}

impl ConstExpr {
    /// A literal of type `ty`.
    pub fn literal(ty: Type, value: ConstValue) -> Self {
        Self { ty, kind: ConstExprKind::Literal(value) }
    }
}

/// Writes the printed form: `T v`, `T @gK`, `T %vN`, `add(E1, E2)`, `eq(E1, E2)`.
impl fmt::Display for ConstExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ConstExprKind::Literal(v) => write!(f, "{} {}", self.ty, v),
            ConstExprKind::Reference(ConstRef::Global(g)) => write!(f, "{} {}", self.ty, g),
            ConstExprKind::Reference(ConstRef::Local(v)) => write!(f, "{} {}", self.ty, v),
            ConstExprKind::Binary { op, lhs, rhs } => write!(f, "{}({}, {})", op.name(), lhs, rhs),
            ConstExprKind::Compare { op, lhs, rhs } => write!(f, "{}({}, {})", op.name(), lhs, rhs),
        }
    }
}

/// Why a constant expression could not be evaluated.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ConstEvalError {
    /// The tree is nested deeper than the budget.
    #[error("constant expression nesting limit exceeded")]
    ResourceLimit,
    /// A literal's payload does not fit its type.
    #[error("literal {value} is not a valid {ty} constant")]
    InvalidLiteral {
        /// Literal type.
        ty: Type,
        /// Payload.
        value: ConstValue,
    },
    /// Operand or result types disagree.
    #[error("type mismatch: expected {expected}, found {found}")]
    TypeMismatch {
        /// Expected type.
        expected: Type,
        /// Actual type.
        found: Type,
    },
    /// The operation is not defined on the type.
    #[error("{op} is not supported on {ty}")]
    UnsupportedOperation {
        /// Operation name.
        op: &'static str,
        /// Operand type.
        ty: Type,
    },
    /// The reference names nothing known.
    #[error("unknown reference {0}")]
    UnknownReference(String),
    /// A referenced constant is defined twice.
    #[error("duplicate definition of {0}")]
    DuplicateDefinition(String),
    /// References form a cycle.
    #[error("cyclic reference through {0}")]
    CyclicReference(String),
    /// The evaluated value differs from the cached one.
    #[error("evaluates to {evaluated}, but the recorded value is {recorded}")]
    ResultMismatch {
        /// Value computed from the tree.
        evaluated: ConstValue,
        /// Value stored beside the tree.
        recorded: ConstValue,
    },
}

/// Evaluates `expr`, resolving references with `resolve` (which returns the
/// referenced constant's type and value, or an error).
pub fn evaluate(
    expr: &ConstExpr,
    depth: usize,
    resolve: &mut dyn FnMut(ConstRef) -> Result<(Type, ConstValue), ConstEvalError>,
) -> Result<ConstValue, ConstEvalError> {
    if depth == 0 {
        return Err(ConstEvalError::ResourceLimit);
    }
    match &expr.kind {
        ConstExprKind::Literal(value) => {
            let ty_ok = scalar_id(&expr.ty).is_some_and(|id| value.is_valid_for(id));
            if !ty_ok {
                return Err(ConstEvalError::InvalidLiteral { ty: expr.ty.clone(), value: *value });
            }
            Ok(*value)
        }
        ConstExprKind::Reference(r) => {
            let (ty, value) = resolve(*r)?;
            if ty != expr.ty {
                return Err(ConstEvalError::TypeMismatch { expected: expr.ty.clone(), found: ty });
            }
            Ok(value)
        }
        ConstExprKind::Binary { op, lhs, rhs } => {
            let a = evaluate(lhs, depth - 1, resolve)?;
            let b = evaluate(rhs, depth - 1, resolve)?;
            same_type(&lhs.ty, &rhs.ty)?;
            same_type(&expr.ty, &lhs.ty)?;
            binary(*op, &expr.ty, a, b)
        }
        ConstExprKind::Compare { op, lhs, rhs } => {
            let a = evaluate(lhs, depth - 1, resolve)?;
            let b = evaluate(rhs, depth - 1, resolve)?;
            same_type(&lhs.ty, &rhs.ty)?;
            same_type(&Type::Bool, &expr.ty)?;
            compare(*op, &lhs.ty, a, b)
        }
    }
}

fn same_type(expected: &Type, found: &Type) -> Result<(), ConstEvalError> {
    if expected == found {
        Ok(())
    } else {
        Err(ConstEvalError::TypeMismatch { expected: expected.clone(), found: found.clone() })
    }
}

/// Wraps a 128-bit result to the width of integer type `ty`.
fn wrap_int(ty: &Type, raw: u128) -> Option<ConstValue> {
    let id = scalar_id(ty)?;
    let bits = id.scalar_bits()?;
    let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
    let low = raw & mask;
    if id.is_signed_int() {
        let shift = 128 - bits;
        Some(ConstValue::I(((low << shift) as i128) >> shift))
    } else if id.is_unsigned_int() {
        Some(ConstValue::U(low))
    } else {
        None
    }
}

fn as_f64(bits: FloatBits) -> f64 {
    match bits {
        FloatBits::F16(b) => f16_to_f64(b),
        FloatBits::F32(b) => f64::from(f32::from_bits(b)),
        FloatBits::F64(b) => f64::from_bits(b),
    }
}

/// Exact binary16 → f64 conversion.
pub(crate) fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (bits >> 10) & 0x1f;
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        0x1f if frac == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f64.powi(i32::from(e) - 15),
    }
}

fn binary(op: ConstBinOp, ty: &Type, a: ConstValue, b: ConstValue) -> Result<ConstValue, ConstEvalError> {
    let unsupported = || ConstEvalError::UnsupportedOperation { op: op.name(), ty: ty.clone() };
    match (a, b) {
        (ConstValue::I(_), ConstValue::I(_)) | (ConstValue::U(_), ConstValue::U(_)) => {
            let (x, y) = (a.bit_pattern(), b.bit_pattern());
            let raw = match op {
                ConstBinOp::Add => x.wrapping_add(y),
                ConstBinOp::Sub => x.wrapping_sub(y),
                ConstBinOp::Mul => x.wrapping_mul(y),
            };
            wrap_int(ty, raw).ok_or_else(unsupported)
        }
        (ConstValue::F(x), ConstValue::F(y)) if x.width() == y.width() => {
            let (x64, y64) = (as_f64(x), as_f64(y));
            let r = match op {
                ConstBinOp::Add => x64 + y64,
                ConstBinOp::Sub => x64 - y64,
                ConstBinOp::Mul => x64 * y64,
            };
            FloatBits::from_f64(x.width(), r).map(ConstValue::F).ok_or_else(unsupported)
        }
        _ => Err(unsupported()),
    }
}

fn compare(op: ConstCmpOp, ty: &Type, a: ConstValue, b: ConstValue) -> Result<ConstValue, ConstEvalError> {
    use std::cmp::Ordering;
    let ordering: Option<Ordering> = match (a, b) {
        (ConstValue::Bool(x), ConstValue::Bool(y)) => {
            if !matches!(op, ConstCmpOp::Eq | ConstCmpOp::Ne) {
                return Err(ConstEvalError::UnsupportedOperation { op: op.name(), ty: ty.clone() });
            }
            Some(x.cmp(&y))
        }
        (ConstValue::I(x), ConstValue::I(y)) => Some(x.cmp(&y)),
        (ConstValue::U(x), ConstValue::U(y)) => Some(x.cmp(&y)),
        (ConstValue::F(x), ConstValue::F(y)) => as_f64(x).partial_cmp(&as_f64(y)),
        _ => return Err(ConstEvalError::UnsupportedOperation { op: op.name(), ty: ty.clone() }),
    };
    let result = match (op, ordering) {
        (ConstCmpOp::Ne, None) => true,
        (_, None) => false,
        (ConstCmpOp::Eq, Some(o)) => o == Ordering::Equal,
        (ConstCmpOp::Ne, Some(o)) => o != Ordering::Equal,
        (ConstCmpOp::Lt, Some(o)) => o == Ordering::Less,
        (ConstCmpOp::Le, Some(o)) => o != Ordering::Greater,
        (ConstCmpOp::Gt, Some(o)) => o == Ordering::Greater,
        (ConstCmpOp::Ge, Some(o)) => o != Ordering::Less,
    };
    Ok(ConstValue::Bool(result))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(ty: Type, v: ConstValue) -> Box<ConstExpr> {
        Box::new(ConstExpr::literal(ty, v))
    }

    fn no_refs(_: ConstRef) -> Result<(Type, ConstValue), ConstEvalError> {
        Err(ConstEvalError::UnknownReference("x".into()))
    }

    #[test]
    fn integer_arithmetic_wraps() {
        let e = ConstExpr {
            ty: Type::I8,
            kind: ConstExprKind::Binary {
                op: ConstBinOp::Add,
                lhs: lit(Type::I8, ConstValue::I(127)),
                rhs: lit(Type::I8, ConstValue::I(1)),
            },
        };
        assert_eq!(evaluate(&e, 8, &mut no_refs), Ok(ConstValue::I(-128)));
        assert_eq!(e.to_string(), "add(i8 127, i8 1)");
    }

    #[test]
    fn compare_and_limits() {
        let e = ConstExpr {
            ty: Type::Bool,
            kind: ConstExprKind::Compare {
                op: ConstCmpOp::Lt,
                lhs: lit(Type::U8, ConstValue::U(1)),
                rhs: lit(Type::U8, ConstValue::U(2)),
            },
        };
        assert_eq!(evaluate(&e, 8, &mut no_refs), Ok(ConstValue::Bool(true)));
        assert_eq!(evaluate(&e, 1, &mut no_refs), Err(ConstEvalError::ResourceLimit));
        let bad = ConstExpr::literal(Type::I8, ConstValue::I(300));
        assert!(matches!(evaluate(&bad, 8, &mut no_refs), Err(ConstEvalError::InvalidLiteral { .. })));
    }

    #[test]
    fn float_arithmetic_rounds_to_width() {
        let e = ConstExpr {
            ty: Type::F32,
            kind: ConstExprKind::Binary {
                op: ConstBinOp::Add,
                lhs: lit(Type::F32, ConstValue::F(FloatBits::F32(0x3f80_0000))),
                rhs: lit(Type::F32, ConstValue::F(FloatBits::F32(0x3f80_0000))),
            },
        };
        assert_eq!(evaluate(&e, 8, &mut no_refs), Ok(ConstValue::F(FloatBits::F32(0x4000_0000))));
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
    }
}
