//! Verification errors (whale-upstream §d.2, plus F3/F4 additions).
//!
//! Every variant carries the function name for the message and the ids that
//! locate it (`inst`, `block`, `value`), so a reader with a source map can point
//! at the offending text. Some upstream variants cannot arise from this model
//! and are absent: types are stored once on values (no value-type table, hence
//! no `DuplicateValueType`/`MissingValueType`/`UnexpectedValueType`), and values
//! and blocks are stored by id (no `DuplicateValue`/`DuplicateBlock`).

use crate::build_error::{BuildError, CallError};
use crate::const_expr::ConstEvalError;
use crate::constant::ConstValue;
use crate::entity::{BlockId, InstId, ValueId};
use crate::layout::LayoutError;
use crate::opcode::Opcode;
use crate::target::TargetError;
use crate::types::Type;

/// A reason a module is not valid IR.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// Builder misuse recorded while building.
    #[error("{0}")]
    Build(BuildError),
    /// `undef` is not a value of semantics 1.
    #[error("function {func}: {value} is undef, which semantics version 1 forbids")]
    ForbiddenUndef {
        /// Function name.
        func: String,
        /// The undef value.
        value: ValueId,
        /// The instruction.
        inst: InstId,
    },
    /// A memory operation's type has no storage layout.
    #[error("function {func}: {operation} type has no storage layout: {reason}")]
    InvalidMemoryLayout {
        /// Function name.
        func: String,
        /// Operation name.
        operation: &'static str,
        /// Why.
        reason: LayoutError,
        /// The instruction.
        inst: InstId,
    },
    /// Unknown target or mismatching layout.
    #[error("{0}")]
    Target(TargetError),
    /// Two globals share a name.
    #[error("duplicate global @{name}")]
    DuplicateGlobal {
        /// Global name.
        name: String,
    },
    /// A global's stored value is not a constant of its type.
    #[error("global @{name}: {payload} is not a valid {ty} initializer")]
    InvalidGlobalInitializer {
        /// Global name.
        name: String,
        /// Global type.
        ty: Type,
        /// Stored value.
        payload: ConstValue,
    },
    /// A global's alignment is not a power of two.
    #[error("global @{name}: alignment {align} is not a power of two")]
    InvalidGlobalAlignment {
        /// Global name.
        name: String,
        /// Alignment.
        align: u32,
    },
    /// A constant expression is invalid or disagrees with its recorded value.
    #[error("constant {declaration} in {scope}: {reason}")]
    InvalidConstExpression {
        /// `module` or the function name.
        scope: String,
        /// Global or constant name.
        declaration: String,
        /// Why (boxed: the largest payload, and errors are cold).
        reason: Box<ConstEvalError>,
    },
    /// Two function bodies share a name.
    #[error("duplicate function @{name}")]
    DuplicateFunction {
        /// Function name.
        name: String,
    },
    /// A declaration, definition or call rule is broken.
    #[error("function {func}: {reason}")]
    Call {
        /// Function (or declaration) name.
        func: String,
        /// Why.
        reason: CallError,
        /// The instruction, for errors inside a body.
        inst: Option<InstId>,
    },
    /// A parameter has type `void`.
    #[error("function {func}: parameter {param} has type void")]
    VoidParameter {
        /// Function name.
        func: String,
        /// Parameter index.
        param: usize,
    },
    /// The entry block is not a block of the function (or there are none).
    #[error("function {func}: entry block {entry} is not a block of the function")]
    InvalidEntryBlock {
        /// Function name.
        func: String,
        /// Entry id.
        entry: BlockId,
    },
    /// A block of the function belongs to another function.
    #[error("function {func}: block {block} belongs to another function")]
    ForeignBlock {
        /// Function name.
        func: String,
        /// The block.
        block: BlockId,
    },
    /// A block does not end with a terminator.
    #[error("function {func}: block {name} ({block}) has no terminator")]
    UnterminatedBlock {
        /// Function name.
        func: String,
        /// Block id.
        block: BlockId,
        /// Block name.
        name: String,
    },
    /// A terminator is followed by more instructions.
    #[error("function {func}: block {block} has instructions after its terminator")]
    MisplacedTerminator {
        /// Function name.
        func: String,
        /// Block id.
        block: BlockId,
        /// The terminator.
        inst: InstId,
    },
    /// A branch goes to a block outside the function.
    #[error("function {func}: branch in block {block} targets {target}, which is not a block of this function")]
    InvalidBranchTarget {
        /// Function name.
        func: String,
        /// Branching block.
        block: BlockId,
        /// Target.
        target: BlockId,
        /// The terminator.
        inst: InstId,
    },
    /// An operand is not defined in this function.
    #[error("function {func}: use of undefined value {value}")]
    UseOfUndefinedValue {
        /// Function name.
        func: String,
        /// The operand.
        value: ValueId,
        /// The using instruction.
        inst: InstId,
    },
    /// A `const` payload is not valid for its type.
    #[error("function {func}: {value} = const {payload} is not a valid {ty} constant")]
    InvalidConstant {
        /// Function name.
        func: String,
        /// The constant.
        value: ValueId,
        /// Its type.
        ty: Type,
        /// Its payload.
        payload: ConstValue,
        /// The instruction.
        inst: InstId,
    },
    /// A condition is not `bool`.
    #[error("function {func}: condition {value} has type {got}, expected bool")]
    ConditionTypeMismatch {
        /// Function name.
        func: String,
        /// The condition.
        value: ValueId,
        /// Its type.
        got: Type,
        /// The instruction.
        inst: InstId,
    },
    /// The operation is not defined on the type.
    #[error("function {func}: {operation} is not defined on {ty}")]
    InvalidInstructionType {
        /// Function name.
        func: String,
        /// Operation name.
        operation: &'static str,
        /// The offending type.
        ty: Type,
        /// The instruction.
        inst: InstId,
    },
    /// An operand has the wrong type.
    #[error("function {func}: {value} has type {got}, expected {expected}")]
    OperandTypeMismatch {
        /// Function name.
        func: String,
        /// The operand.
        value: ValueId,
        /// Required type.
        expected: Type,
        /// Actual type.
        got: Type,
        /// The instruction.
        inst: InstId,
    },
    /// A result's type differs from the type its instruction implies.
    #[error("function {func}: {value} is declared {got}, but its instruction produces {expected}")]
    ValueTypeMismatch {
        /// Function name.
        func: String,
        /// The result.
        value: ValueId,
        /// Implied type.
        expected: Type,
        /// Declared type.
        got: Type,
        /// The instruction.
        inst: InstId,
    },
    /// An alignment is not a power of two.
    #[error("function {func}: alignment {align} is not a power of two")]
    InvalidMemoryAlignment {
        /// Function name.
        func: String,
        /// Alignment.
        align: u32,
        /// The instruction.
        inst: InstId,
    },
    /// A switch case key is not a constant of the switch type.
    #[error("function {func}: switch case {index} in block {block} is not a valid constant of the switch type")]
    InvalidSwitchCase {
        /// Function name.
        func: String,
        /// Block.
        block: BlockId,
        /// Case position.
        index: usize,
        /// The switch.
        inst: InstId,
    },
    /// Two switch cases have the same key.
    #[error("function {func}: switch case {index} in block {block} repeats an earlier key")]
    DuplicateSwitchCase {
        /// Function name.
        func: String,
        /// Block.
        block: BlockId,
        /// Case position.
        index: usize,
        /// The switch.
        inst: InstId,
    },
    /// A `ret` disagrees with the function's return type.
    #[error("function {func}: ret {}, expected {expected}", got.as_ref().map_or_else(|| "without a value".to_string(), |t| format!("of {t}")))]
    RetTypeMismatch {
        /// Function name.
        func: String,
        /// Return type.
        expected: Type,
        /// Returned value's type, if any.
        got: Option<Type>,
        /// The `ret`.
        inst: InstId,
    },
    /// A cast between types its opcode does not convert.
    #[error("function {func}: {op} cannot convert {from} to {to} ({value})")]
    InvalidCast {
        /// Function name.
        func: String,
        /// The result.
        value: ValueId,
        /// Cast opcode.
        op: Opcode,
        /// Source type.
        from: Type,
        /// Destination type.
        to: Type,
        /// The instruction.
        inst: InstId,
    },
    /// A `gep` breaks an addressing rule.
    #[error("function {func}: gep {value}: {reason}")]
    InvalidGep {
        /// Function name.
        func: String,
        /// The result.
        value: ValueId,
        /// Index position, when an index is at fault.
        index: Option<usize>,
        /// Why.
        reason: &'static str,
        /// The instruction.
        inst: InstId,
    },
    /// The entry block has an incoming edge.
    #[error("function {func}: entry block {entry} has predecessor {predecessor}")]
    EntryHasPredecessor {
        /// Function name.
        func: String,
        /// Entry block.
        entry: BlockId,
        /// A block branching to it.
        predecessor: BlockId,
    },
    /// A use is not dominated by its definition.
    #[error("function {func}: use of {value} in block {block} is not dominated by its definition")]
    NonDominatingValue {
        /// Function name.
        func: String,
        /// The value.
        value: ValueId,
        /// Block of the use.
        block: BlockId,
        /// The using instruction.
        inst: InstId,
    },
    /// A phi rule is broken.
    #[error("function {func}: phi {value} in block {block}: {reason}")]
    InvalidPhi {
        /// Function name.
        func: String,
        /// Block.
        block: BlockId,
        /// The phi.
        value: ValueId,
        /// One of the fixed reasons ("phi is missing a predecessor", …).
        reason: &'static str,
        /// The phi instruction.
        inst: InstId,
    },
}

impl VerifyError {
    /// The instruction the error concerns, if any.
    pub fn inst(&self) -> Option<InstId> {
        use VerifyError::*;
        match self {
            ForbiddenUndef { inst, .. }
            | InvalidMemoryLayout { inst, .. }
            | MisplacedTerminator { inst, .. }
            | InvalidBranchTarget { inst, .. }
            | UseOfUndefinedValue { inst, .. }
            | InvalidConstant { inst, .. }
            | ConditionTypeMismatch { inst, .. }
            | InvalidInstructionType { inst, .. }
            | OperandTypeMismatch { inst, .. }
            | ValueTypeMismatch { inst, .. }
            | InvalidMemoryAlignment { inst, .. }
            | InvalidSwitchCase { inst, .. }
            | DuplicateSwitchCase { inst, .. }
            | RetTypeMismatch { inst, .. }
            | InvalidCast { inst, .. }
            | InvalidGep { inst, .. }
            | NonDominatingValue { inst, .. }
            | InvalidPhi { inst, .. } => Some(*inst),
            Call { inst, .. } => *inst,
            _ => None,
        }
    }

    /// The block the error concerns, if it names one.
    pub fn block(&self) -> Option<BlockId> {
        use VerifyError::*;
        match self {
            InvalidEntryBlock { entry: block, .. }
            | ForeignBlock { block, .. }
            | UnterminatedBlock { block, .. }
            | MisplacedTerminator { block, .. }
            | InvalidBranchTarget { block, .. }
            | InvalidSwitchCase { block, .. }
            | DuplicateSwitchCase { block, .. }
            | EntryHasPredecessor { predecessor: block, .. }
            | NonDominatingValue { block, .. }
            | InvalidPhi { block, .. } => Some(*block),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::VerifyError;

    /// `Result<_, VerifyError>` stays below clippy's `result_large_err` threshold
    /// (128 bytes) for every caller; large payloads are boxed.
    #[test]
    fn errors_stay_small() {
        assert!(std::mem::size_of::<VerifyError>() < 128, "{}", std::mem::size_of::<VerifyError>());
    }
}
