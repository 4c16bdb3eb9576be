//! [`LowerError`]: why an AST could not be lowered (whale-upstream §f.3).
//!
//! The variants are upstream's, so front ends can match on them; each names the
//! rule that failed. [`LowerError::NestingLimit`] is ours: lowering recurses over
//! statements and expressions and refuses trees deeper than
//! [`super::MAX_NESTING`] instead of overflowing the stack.

use crate::build_error::CallError;
use crate::layout::LayoutError;
use crate::target::TargetError;
use crate::types::Type;

/// Why [`super::lower_o0`] rejected a program.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LowerError {
    /// A declaration, definition, function reference or call was rejected by the
    /// builder's checked APIs (unknown function name, conflicting declaration,
    /// missing definition, invalid signature or link name, argument mismatch, …).
    #[error(transparent)]
    Call(#[from] CallError),
    /// A call to a void function appears where a value is needed.
    #[error("a call to a void function is used as a value")]
    VoidCallUsedAsValue,
    /// A numeric literal's text is malformed or exceeds the 128-bit range.
    #[error("invalid numeric literal: {0}")]
    NumericLiteral(String),
    /// The target is unknown or the data layout is not the target's.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A type that must be stored has no layout (void, too large, too deep).
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// A type lowering does not support: an integer or float width that does not
    /// exist, or an opaque type.
    #[error("unsupported type: {0}")]
    UnsupportedType(String),
    /// A name that is not a local variable, local constant or (earlier) global.
    #[error("unknown variable {0:?}")]
    UnknownVariable(String),
    /// A value has another type than the context requires.
    #[error("type mismatch: expected {expected}, got {got}")]
    TypeMismatch {
        /// The required type.
        expected: Type,
        /// The value's type.
        got: Type,
    },
    /// Declared by upstream for variables without an initializer, but never
    /// produced: such a variable lowers to `uninit` (whale-ir §6).
    #[error("variable {0:?} has no initializer")]
    MissingInit(String),
    /// A statement lowering does not support (`return` without a value in a
    /// function that returns one).
    #[error("unsupported statement")]
    UnsupportedStmt,
    /// An operation not defined on its operand type (arithmetic on `bool` or
    /// pointers, ordering of `bool`, a constant expression that cannot be
    /// evaluated).
    #[error("unsupported expression")]
    UnsupportedExpr,
    /// `Break` outside any loop.
    #[error("break outside of a loop")]
    BreakOutsideLoop,
    /// `Continue` outside any loop.
    #[error("continue outside of a loop")]
    ContinueOutsideLoop,
    /// Two globals share a name.
    #[error("duplicate global {0:?}")]
    DuplicateGlobal(String),
    /// Two function definitions share a name.
    #[error("duplicate function {0:?}")]
    DuplicateFunction(String),
    /// A function has two parameters with one name.
    #[error("function {func:?} has two parameters named {param:?}")]
    DuplicateParameter {
        /// The function.
        func: String,
        /// The repeated parameter name.
        param: String,
    },
    /// `return` with a value in a void function.
    #[error("a value is returned from a void function")]
    ValueReturnedFromVoid,
    /// An integer literal outside its type's range.
    #[error("literal {value} is out of range for {ty}")]
    InvalidLiteral {
        /// The literal's type.
        ty: Type,
        /// The literal's text.
        value: String,
    },
    /// Assignment to a local constant.
    #[error("cannot assign to constant {0:?}")]
    AssignToConst(String),
    /// A runtime value (variable, parameter, call, function address) in a
    /// constant expression.
    #[error("expression is not a compile-time constant")]
    NonConstExpr,
    /// Statements, expressions or types nest deeper than the lowering limit.
    #[error("AST nesting exceeds the lowering limit of {limit} levels")]
    NestingLimit {
        /// The limit.
        limit: usize,
    },
}
