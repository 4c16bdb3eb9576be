//! Every limit of the LLVM 1.3 format layer, in one place.
//!
//! *Format constants* are fixed by the format (`llvm13.md` §2.2, §10.1) and only named here so that no other file
//! repeats a number. *Reader limits* bound what hostile input may make the reader allocate; they are fields of
//! [`Limits`]. Besides these, every count read from the input is checked against the bytes that remain before
//! anything is allocated for it (each counted item takes at least one byte), so a read allocates within a small
//! multiple of the input size; and the room for counted items is reserved fallibly, so an allocator that refuses it
//! gives [`ReadErrorKind::OutOfMemory`](super::ReadErrorKind::OutOfMemory), not an abort. Nothing in the reader recurses over input-defined structure: blocks nest at most three
//! deep by construction (module, function, function sub-block), unknown blocks are skipped by size, and type walks
//! are iterative.

/// Largest size a short block header can carry: 27 bits (`llvm13.md` §2.2).
pub const MAX_SHORT_BLOCK_SIZE: u64 = (1 << 27) - 1;
/// The first derived type slot; slots below it are the primitive types (§4.2).
pub const FIRST_DERIVED: u32 = 13;
/// Operand value of format 1 meaning "no operands" (§10.1).
pub const FORMAT1_NO_OPERAND: u32 = 4095;
/// The latest revision this crate reads and the only one it writes.
pub const REVISION: u32 = 3;

/// Limits for reading one untrusted file.
///
/// ```
/// let limits = llvm13::format::Limits::default();
/// assert_eq!(limits.max_types, 1 << 20);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Limits {
    /// Most type definitions in the module type pool plus one function constant pool (default 2^20).
    pub max_types: u32,
    /// Accept bytes after the end of the module block (default false: the 1.3 reader refuses them, `llvm13.md`
    /// §15 question 6).
    pub allow_trailing_bytes: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_types: 1 << 20, allow_trailing_bytes: false }
    }
}
