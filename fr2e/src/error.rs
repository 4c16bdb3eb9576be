//! Errors of the Whale mapping: [`Error`] when an image cannot be read as a Whale module, [`LowerError`] when a
//! module cannot be written.
//!
//! Every read error carries the absolute byte offset of the item it concerns: the format layer's own offset, the
//! start of the chunk or VOP that breaks a profile rule, or, for verifier errors, the first VOP of the offending
//! instruction (the LABEL of the offending block, or 0 when the error concerns the module as a whole).

use ir::{AssembleError, LimitError, ValueId, VerifyError};

use crate::format::{FormatError, Tag, TextError, WriteError};

/// Why an image could not be read as a Whale module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes do not follow the FR2E format.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Well-formed FR2E that is not a Whale-profile module (`fr2e.md` C10).
    #[error("offset {offset:#x}: {kind}")]
    Lift {
        /// What is wrong.
        kind: LiftErrorKind,
        /// Absolute byte offset of the chunk, attribute or VOP concerned.
        offset: u64,
    },
    /// The module read from the image does not verify.
    #[error("offset {offset:#x}: {error}")]
    Verify {
        /// The first verifier error.
        error: Box<VerifyError>,
        /// Offset of the first VOP of the instruction (or LABEL of the block) concerned, 0 when unknown.
        offset: u64,
    },
}

impl Error {
    /// The absolute byte offset the error concerns.
    pub fn offset(&self) -> u64 {
        match self {
            Error::Format(e) => e.offset,
            Error::Lift { offset, .. } | Error::Verify { offset, .. } => *offset,
        }
    }

    #[cold]
    pub(crate) fn lift(kind: LiftErrorKind, offset: u64) -> Self {
        Error::Lift { kind, offset }
    }
}

/// The reason a well-formed image is not a Whale-profile module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LiftErrorKind {
    /// A VOP opcode outside the Whale profile (C5, C9).
    #[error("opcode {opn:#x} is not in the Whale profile")]
    Opcode {
        /// The opcode number.
        opn: u32,
    },
    /// An operator code outside its opcode's table (C6).
    #[error("operator {opr:#x} of opcode {opn:#x} is not in the Whale profile")]
    Operator {
        /// The opcode number.
        opn: u32,
        /// The operator number.
        opr: u32,
    },
    /// A LITD or GBLD entry kind the profile does not map (C2, C10).
    #[error("{tag} entries are not in the Whale profile")]
    EntryKind {
        /// The entry's tag.
        tag: Tag,
    },
    /// A signature string that does not follow the grammar.
    #[error("malformed signature: {0}")]
    Signature(TextError),
    /// A signature construct outside the profile's table (C1).
    #[error("signature construct is not in the Whale profile")]
    SignatureNotInProfile,
    /// `X{name};` names no LITD entry.
    #[error("the signature names no LITD entry")]
    UnknownStruct,
    /// Two LITD entries share a name.
    #[error("two LITD entries share a name")]
    DuplicateStructName,
    /// A struct that contains itself.
    #[error("a LITD entry contains itself")]
    RecursiveStruct,
    /// A required attribute is missing.
    #[error("missing {what}")]
    Missing {
        /// The attribute.
        what: &'static str,
    },
    /// A fixed reason (the message says which rule is broken).
    #[error("{0}")]
    Invalid(&'static str),
    /// A VOP field holds a register of the wrong kind.
    #[error("{field} holds a register kind that is not allowed there")]
    RegisterKind {
        /// The field (`dst`, `srca`, …).
        field: &'static str,
    },
    /// A Temporary, Arg or Local register outside its variable list (C3).
    #[error("{kind} register {index} is not declared")]
    UndeclaredRegister {
        /// `temporary`, `argument` or `local`.
        kind: &'static str,
        /// Its base index.
        index: u32,
    },
    /// A register with a sequence number other than 0 (B64).
    #[error("register sequence numbers must be 0")]
    Sequence,
    /// A predicated VOP (B50).
    #[error("predicated VOPs are not in the Whale profile")]
    Predicated,
    /// A VOP `type` or `stype` that disagrees with the operand or result it restates.
    #[error("the {field} of the VOP disagrees with {subject}")]
    TypeMismatch {
        /// `type` or `stype`.
        field: &'static str,
        /// What it restates.
        subject: &'static str,
    },
    /// A register that is not a constant of the expected type (C7).
    #[error("the register is not a constant of its type")]
    BadConstant,
    /// A temporary defined by more than one instruction.
    #[error("temporary {temporary} is defined twice")]
    Redefinition {
        /// Its base index.
        temporary: u32,
    },
    /// A temporary that no instruction defines.
    #[error("temporary {temporary} is never defined")]
    NeverDefined {
        /// Its base index.
        temporary: u32,
    },
    /// A label defined twice in the image (B71).
    #[error("label {label} is defined twice")]
    DuplicateLabel {
        /// The label.
        label: u32,
    },
    /// A branch to a label its function does not define.
    #[error("label {label} is not a block of this function")]
    UnknownLabel {
        /// The label.
        label: u32,
    },
    /// A count that disagrees with another (argument list vs signature, block table vs blocks).
    #[error("{what}: {found} entries, expected {expected}")]
    Count {
        /// What is counted.
        what: &'static str,
        /// The expected count.
        expected: u64,
        /// The count found.
        found: u64,
    },
    /// A reader limit.
    #[error(transparent)]
    Limit(LimitError),
    /// An id defined twice or above the id limit.
    #[error(transparent)]
    Assemble(AssembleError),
}

/// Why a module cannot be written as an FR2E image. A module that passes [`ir::verify_module`] always writes,
/// unless the image would exceed a size limit of the format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LowerError {
    /// The format cannot hold the image (a chunk above 2^30 - 1 bytes, a number out of range).
    #[error(transparent)]
    Format(#[from] WriteError),
    /// The module is not valid Whale IR in a way the mapping cannot express.
    #[error("function {func}: {what}")]
    Invalid {
        /// The function concerned (empty at module level).
        func: String,
        /// The rule broken.
        what: &'static str,
    },
    /// An operand without a type, or not defined in its function.
    #[error("function {func}: {value} is not a value of the function")]
    UndefinedValue {
        /// The function.
        func: String,
        /// The value.
        value: ValueId,
    },
}
