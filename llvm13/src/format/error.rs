//! Errors of the format layer.
//!
//! Reading fails with a [`ReadError`]: a [`ReadErrorKind`] plus the absolute byte offset (from the start of the file)
//! of the item that is wrong. Kinds carry the numbers a message needs as fields; `Display` builds the sentence.
//! Writing a model that the format cannot express fails with a [`WriteError`] that names the item.

/// A read error: what went wrong, and at which byte of the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("offset {offset:#x}: {kind}")]
pub struct ReadError {
    /// What went wrong.
    pub kind: ReadErrorKind,
    /// Absolute byte offset of the item that is wrong.
    pub offset: u64,
}

impl ReadError {
    /// Makes an error of `kind` at `offset`.
    #[cold]
    pub fn new(kind: ReadErrorKind, offset: u64) -> Self {
        Self { kind, offset }
    }
}

/// The reason a read failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    // Bytes, numbers, blocks.
    #[error("ran out of data ({needed} more bytes needed)")]
    UnexpectedEof { needed: u64 },
    #[error("not LLVM bytecode (magic {found:02x?})")]
    BadMagic { found: [u8; 4] },
    #[error("module block declares {declared} bytes but {actual} follow its header")]
    ModuleSize { declared: u64, actual: u64 },
    #[error("format revision {revision} is not supported (0 to 3 are)")]
    UnsupportedRevision { revision: u32 },
    #[error("the module block has id {id}, expected 1")]
    NotAModule { id: u32 },
    #[error("block id 0 is reserved")]
    ReservedBlockId,
    #[error("unknown long block id {id:#x}")]
    UnknownLongBlockId { id: u32 },
    #[error("block of {size} bytes exceeds the {available} bytes left in its parent")]
    BlockOverrun { size: u64, available: u64 },
    #[error("{block} block is not allowed inside {parent}")]
    MisplacedBlock { block: &'static str, parent: &'static str },
    #[error("second {block} block in {parent}")]
    DuplicateBlock { block: &'static str, parent: &'static str },
    #[error("{block} block must come {rule}")]
    BlockOrder { block: &'static str, rule: &'static str },
    #[error("missing {block} block")]
    MissingBlock { block: &'static str },
    #[error("{count} bytes left over at the end of the {what}")]
    TrailingBytes { what: &'static str, count: u64 },
    #[error("alignment padding runs past the end of the enclosing block")]
    PaddingOverrun,
    #[error("variable-length number longer than {max} bytes")]
    VbrTooLong { max: u8 },
    #[error("variable-length number does not fit {bits} bits")]
    VbrOverflow { bits: u8 },
    #[error("count {count} exceeds the {remaining} bytes that remain")]
    CountTooLarge { count: u64, remaining: u64 },
    #[error("{what}: {count} exceeds the limit of {limit}")]
    LimitExceeded { what: &'static str, count: u64, limit: u64 },
    #[error("cannot allocate room for {count} items of {item_bytes} bytes")]
    OutOfMemory { count: u64, item_bytes: u64 },

    // Types.
    #[error("type slot {slot} is not defined")]
    TypeSlotOutOfRange { slot: u32 },
    #[error("type id {id} cannot start a type definition")]
    InvalidTypeId { id: u32 },
    #[error("type slot {slot} is {found}, expected {expected}")]
    WrongType { slot: u32, expected: &'static str, found: &'static str },
    #[error("no pointer type to type slot {pointee} exists")]
    MissingPointerType { pointee: u32 },

    // Values and constants.
    #[error("linkage {value} is not defined")]
    InvalidLinkage { value: u32 },
    #[error("global variable has type slot 0")]
    GlobalTypeZero,
    #[error("value slot {slot} of type plane {plane} is not defined")]
    ValueSlotOutOfRange { plane: u32, slot: u32 },
    #[error("basic block {block} does not exist ({count} blocks)")]
    BlockOutOfRange { block: u32, count: u32 },
    #[error("integer constant {value} is out of range for type slot {plane}")]
    IntegerOutOfRange { plane: u32, value: i128 },
    #[error("boolean constant {value} is neither 0 nor 1")]
    InvalidBool { value: u64 },
    #[error("constants of type slot {plane} ({kind}) cannot be encoded")]
    UnencodableConstant { plane: u32, kind: &'static str },
    #[error("constant string of type slot {plane} is not an array of sbyte or ubyte")]
    InvalidStringType { plane: u32 },
    #[error("{0}")]
    InvalidConstantExpr(&'static str),
    #[error("pointer constant names slot {slot}, which is not an earlier global of its plane")]
    InvalidGlobalReference { slot: u32 },
    #[error("{0}")]
    Malformed(&'static str),

    // Instructions.
    #[error("opcode {opcode} is not an LLVM 1.3 opcode")]
    InvalidOpcode { opcode: u32 },
    #[error("format 0 instruction with zero operands")]
    NoOperands,
    #[error("`{opcode}` cannot take {count} operands")]
    OperandCount { opcode: &'static str, count: usize },
    #[error("`{opcode}`: {reason}")]
    InvalidOperands { opcode: &'static str, reason: &'static str },
    #[error("instruction list ends inside a basic block (no terminator)")]
    MissingTerminator,
    #[error("getelementptr struct index is not a constant")]
    NonConstantStructIndex,
    #[error("getelementptr struct index {index} is beyond the {count} fields")]
    StructIndexOutOfRange { index: u64, count: usize },

    // Compaction tables and symbol tables.
    #[error("compaction entry {slot} of plane {plane} is not a module-level value")]
    InvalidCompactionEntry { plane: u32, slot: u32 },
    #[error("a function may not have both a compaction table and a constant pool")]
    CompactionAndConstantPool,
}

/// A model that the format cannot express, or that does not read back as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    #[error("the writer produces revision 3 only; the model has revision {revision}")]
    Revision { revision: u32 },
    #[error("{block} block is {size} bytes, above the 2^27 - 1 bytes of a short header")]
    BlockTooLarge { block: &'static str, size: u64 },
    #[error("{what}: {reason}")]
    Invalid { what: String, reason: &'static str },
}

impl WriteError {
    /// Shorthand for [`WriteError::Invalid`].
    pub(crate) fn invalid(what: impl Into<String>, reason: &'static str) -> Self {
        Self::Invalid { what: what.into(), reason }
    }
}
