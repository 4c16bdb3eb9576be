//! Errors of the format layer.
//!
//! Reading fails with a [`FormatError`]: a small `Copy` [`ErrorKind`] plus the absolute byte offset (from the start of
//! the image, or of the buffer handed to the reader) where the offending item starts. Kinds carry the numbers a
//! message needs as fields; `Display` builds the sentence. Writing a model that the format cannot express fails with
//! a [`WriteError`] that names the item.

use super::tlv::Tag;

/// A read error: what went wrong, and at which byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("offset {offset:#x}: {kind}")]
pub struct FormatError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Absolute byte offset of the item that is wrong.
    pub offset: u64,
}

impl FormatError {
    /// Makes an error of `kind` at `offset`.
    #[cold]
    pub fn new(kind: ErrorKind, offset: u64) -> Self {
        Self { kind, offset }
    }
}

/// The reason a read failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    // Bytes and numbers.
    #[error("unexpected end of data ({needed} more bytes needed)")]
    UnexpectedEof { needed: u64 },
    #[error("{count} unexpected bytes after the end of the {what}")]
    TrailingBytes { what: &'static str, count: u64 },
    #[error("value {value} is too large for a 32-bit field")]
    Uvli32Overflow { value: u64 },
    #[error("reserved OpVLI prefix {byte:#04x}")]
    ReservedOpVli { byte: u8 },
    #[error("UVLI128 value does not fit 128 bits")]
    Uvli128Overflow,

    // TLV.
    #[error("reserved TLV header form (first byte {byte:#04x})")]
    ReservedHeaderForm { byte: u8 },
    #[error("chunk length {length} is shorter than its {header}-byte header")]
    ChunkTooShort { length: u32, header: u8 },
    #[error("chunk length {length} exceeds the {available} bytes left in its parent")]
    ChunkOverrun { length: u32, available: u64 },
    #[error("tag 0 is reserved")]
    ReservedTag,
    #[error("tag {tag} has a character outside printable ASCII")]
    InvalidTagCharacter { tag: Tag },
    #[error("duplicate tag {tag}")]
    DuplicateTag { tag: Tag },
    #[error("tag {tag} is not allowed in {context}")]
    MisplacedTag { tag: Tag, context: Tag },
    #[error("TLV nesting deeper than {limit}")]
    NestingTooDeep { limit: u32 },
    #[error("the image does not start with an FR2E chunk (found {tag})")]
    NotAnImage { tag: Tag },

    // Strings.
    #[error("invalid M-UTF-8")]
    InvalidMutf8,
    #[error("string is not terminated by NUL")]
    UnterminatedString,
    #[error("string index {index} is out of range ({count} strings)")]
    StringIndexOutOfRange { index: u64, count: u64 },
    #[error("reserved string tag value {value}")]
    ReservedStringTag { value: i64 },
    #[error("string offset {offset} lies outside the {len}-byte string data")]
    StringOffsetOutOfRange { offset: u64, len: u64 },
    #[error("string offset {offset} does not start a character")]
    StringOffsetInsideCharacter { offset: u64 },
    #[error("string data does not end with NUL")]
    UnterminatedStringData,
    #[error("an image holds both `strs` and `strz`")]
    StrsAndStrz,
    #[error("`strz` declares {size} bytes, more than the limit of {limit}")]
    StringDataTooLarge { size: u64, limit: u64 },
    #[error("`strz` block does not decompress to its declared size")]
    BadLz4Block,
    #[error("out of memory while allocating {bytes} bytes for {what}")]
    OutOfMemory { what: &'static str, bytes: u64 },

    // Entries.
    #[error("`L`, `R` and `S` lists need a function body (`t`)")]
    ListWithoutBody,

    // VOPs, types, registers, immediates.
    #[error("reserved VOP mask bits in {mask:#x}")]
    ReservedMaskBits { mask: u32 },
    #[error("{list} repeat index {index} is beyond the {len} entries of the list")]
    RepeatOutOfRange { list: &'static str, index: u64, len: u8 },
    #[error("VOP opcode number 0 is reserved")]
    ReservedOpcode,
    #[error("reserved simple type {code:#x}")]
    ReservedSimpleType { code: u32 },
    #[error("type string index {index} is not a table string")]
    InvalidTypeIndex { index: u64 },
    #[error("reserved register tag in {word:#x}")]
    ReservedRegister { word: u64 },
    #[error("raw constant register {word:#x} has bits set above bit 6")]
    RawRegisterHighBits { word: u64 },
    #[error("reserved integer-constant subtype {subtype}")]
    ReservedSubtype { subtype: u8 },
    #[error("register repeat outside `vops`")]
    RepeatOutsideVops,
    #[error("reserved immediate tag {tag}")]
    ReservedImmediate { tag: u8 },
    #[error("label {value} does not fit 32 bits")]
    LabelOutOfRange { value: u64 },
    #[error("count {count} exceeds the {remaining} bytes that remain")]
    CountTooLarge { count: u64, remaining: u64 },

    // Traces.
    #[error("trace record has negative flags {flags}")]
    NegativeTraceFlags { flags: i64 },
    #[error("function header fields must be negative (a <= 0, b < 0, c < 0)")]
    InvalidFunctionHeader,
    #[error("trace record {record} is not a function-body header")]
    NotAFunctionHeader { record: u64 },
    #[error("function-body header names GBLD entry {found}, expected {expected}")]
    HeaderGlobalMismatch { expected: u64, found: u64 },
    #[error("trace record {record} is out of range or not a normal trace")]
    InvalidHeaderTrace { record: u64 },
    #[error("trace record {record} has a start of the wrong sign")]
    TraceStartSign { record: u64 },
    #[error("trace record {record} covers VOPs outside the {len}-VOP stream")]
    TraceOutOfRange { record: u64, len: u64 },
}

/// A model that the format cannot express.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    #[error("chunk {tag} is {len} bytes long, above the 2^30 - 1 byte limit")]
    ChunkTooLarge { tag: Tag, len: u64 },
    #[error("tag {tag} is not a valid tag value")]
    InvalidTag { tag: Tag },
    #[error("tag {tag} cannot be an extension in {context}: it has a defined meaning there")]
    ReservedExtension { tag: Tag, context: Tag },
    #[error("{what} {value} is out of range")]
    OutOfRange { what: &'static str, value: i128 },
    #[error("string index {index} is out of range ({count} strings)")]
    StringIndexOutOfRange { index: u64, count: u64 },
    #[error("string data is malformed: {0}")]
    StringTable(ErrorKind),
    #[error("`L`, `R` and `S` lists need a function body (`t`)")]
    ListWithoutBody,
    #[error("VOP {vop}: {reason}")]
    Vop { vop: usize, reason: &'static str },
    #[error("traces: {0}")]
    Trace(ErrorKind),
    #[error("argument list or jump table range {start}..{end} is outside the pool")]
    PoolRange { start: u64, end: u64 },
}
