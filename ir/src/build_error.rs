//! Errors of IR construction: builder misuse ([`BuildError`]) and the checked
//! declaration and call APIs ([`CallError`]).

use crate::entity::{BlockId, FunctionId, ValueId};
use crate::opcode::Opcode;
use crate::types::Type;

/// Builder misuse, recorded in the module and reported first by
/// [`crate::verify_module`]; the `try_*` builder methods return it at once.
/// The offending instruction is never added.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A terminator was added to a block that already has one.
    #[error("function {func}: block {block} already has a terminator; the second {op} was not added")]
    SecondTerminator {
        /// Function name.
        func: String,
        /// The terminated block.
        block: BlockId,
        /// The rejected terminator.
        op: Opcode,
    },
    /// An ordinary instruction was appended after a block's terminator.
    #[error("function {func}: {op} appended after the terminator of block {block} was not added")]
    InstructionAfterTerminator {
        /// Function name.
        func: String,
        /// The terminated block.
        block: BlockId,
        /// The rejected instruction.
        op: Opcode,
    },
    /// The insertion point was set to a block of another function.
    #[error("function {func}: {block} is not a block of this function")]
    ForeignBlock {
        /// Function name.
        func: String,
        /// The rejected block.
        block: BlockId,
    },
    /// A phi input was added to a value that is not a phi of this function.
    #[error("function {func}: {value} is not a phi of this function")]
    NotAPhi {
        /// Function name.
        func: String,
        /// The value given as a phi.
        value: ValueId,
    },
    /// A restated operand type disagrees with the operand's actual type.
    #[error("function {func}: {op} is annotated {annotated} but operand {value} has type {actual}")]
    AnnotationMismatch {
        /// Function name.
        func: String,
        /// The instruction.
        op: Opcode,
        /// The operand.
        value: ValueId,
        /// The annotation given to the builder.
        annotated: Type,
        /// The operand's type.
        actual: Type,
    },
}

/// Errors of declarations, definitions and calls (whale-upstream §b.5, §c.4).
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// No declaration has this identity.
    #[error("unknown function {0}")]
    UnknownFunction(FunctionId),
    /// No declaration has this name.
    #[error("unknown function name {0:?}")]
    UnknownFunctionName(String),
    /// A declaration with this name (or identity) exists with other properties.
    #[error("conflicting declaration of {0:?}")]
    ConflictingDeclaration(String),
    /// The function already has a body.
    #[error("duplicate definition of {0}")]
    DuplicateDefinition(FunctionId),
    /// The link name is missing, empty, contains NUL, or is given for an internal function.
    #[error("invalid link name for {0:?}: external functions need a non-empty link name without NUL; internal functions have none")]
    InvalidLinkName(String),
    /// Two declarations share an external link name.
    #[error("link name {0:?} is used by two declarations")]
    LinkNameCollision(String),
    /// The signature is not supported.
    #[error("invalid signature: {0}")]
    InvalidSignature(String),
    /// The body does not match its declaration (name, parameters or return type).
    #[error("definition of {0} does not match its declaration")]
    DefinitionMismatch(FunctionId),
    /// An internal declaration has no body.
    #[error("internal function {0} has no definition")]
    MissingDefinition(FunctionId),
    /// The indirect callee or an argument is not a defined value.
    #[error("unknown value {0}")]
    UnknownValue(ValueId),
    /// The indirect callee is not a function pointer.
    #[error("{0} is not a function pointer")]
    NotFunctionPointer(ValueId),
    /// Wrong number of arguments.
    #[error("call expects {expected} arguments, got {got}")]
    ArgumentCount {
        /// Parameter count.
        expected: usize,
        /// Argument count.
        got: usize,
    },
    /// An argument has the wrong type.
    #[error("argument {index} has type {got}, expected {expected}")]
    ArgumentType {
        /// Argument position.
        index: usize,
        /// Parameter type.
        expected: Type,
        /// Argument type.
        got: Type,
    },
    /// The call's result type differs from the callee's return type.
    #[error("call result has type {got}, expected {expected}")]
    ReturnType {
        /// Callee return type.
        expected: Type,
        /// Result type.
        got: Type,
    },
    /// A void call has a result, or a non-void call has none.
    #[error("call result presence does not match the callee's return type")]
    ResultPresence,
    /// `function_addr` annotated with another signature than the declaration's.
    #[error("function address type does not match the declaration's signature")]
    AddressTypeMismatch,
    /// A cast converts to or from a function pointer.
    #[error("casts to or from function pointers are forbidden")]
    ForbiddenFunctionPointerCast,
}
