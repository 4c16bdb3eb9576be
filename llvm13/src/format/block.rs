//! Blocks: identifiers, the long and short header forms, and writing with a back-patched header (`llvm13.md` §2).
//!
//! Revision 3 uses the long form (id word, size word) for the module block only and the short form (one word:
//! id in bits 0..4, size in bits 5..31) for every other block; revisions 0..2 use the long form with the old ids
//! everywhere. A size counts the content after the header, including padding inside it, but not the padding that
//! follows the block.

use super::error::{ReadError, ReadErrorKind};
use super::limits::MAX_SHORT_BLOCK_SIZE;
use super::primitives::{pad, Reader};
use super::WriteError;

/// The kind of a block, independent of the id numbering of its revision.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BlockId {
    /// The module block (id 1; long id 0x01).
    Module,
    /// A function block (id 2; long id 0x11).
    Function,
    /// A module or function constant pool (id 3; long id 0x12).
    ConstantPool,
    /// A module or function symbol table (id 4; long id 0x13).
    SymbolTable,
    /// The module global info block (id 5; long id 0x14).
    GlobalInfo,
    /// The global type pool (id 6; long id 0x15).
    TypePool,
    /// A function's instruction list (id 7; long id 0x32).
    InstructionList,
    /// A function's compaction table (id 8; long id 0x33).
    CompactionTable,
    /// A basic block of an LLVM 1.0 file (long id 0x31 only).
    BasicBlock,
    /// An id with no meaning in LLVM 1.3; such blocks are skipped (short ids 9..31, long id 0x16).
    Unknown(u32),
}

impl BlockId {
    /// The short-header id of revision 3 (none for the 1.0 basic-block block).
    pub fn short_id(self) -> Option<u32> {
        Some(match self {
            BlockId::Module => 1,
            BlockId::Function => 2,
            BlockId::ConstantPool => 3,
            BlockId::SymbolTable => 4,
            BlockId::GlobalInfo => 5,
            BlockId::TypePool => 6,
            BlockId::InstructionList => 7,
            BlockId::CompactionTable => 8,
            BlockId::BasicBlock => return None,
            BlockId::Unknown(id) => id,
        })
    }

    /// Maps a revision 3 short id; 0 is reserved.
    pub fn from_short(id: u32) -> Option<BlockId> {
        Some(match id {
            0 => return None,
            1 => BlockId::Module,
            2 => BlockId::Function,
            3 => BlockId::ConstantPool,
            4 => BlockId::SymbolTable,
            5 => BlockId::GlobalInfo,
            6 => BlockId::TypePool,
            7 => BlockId::InstructionList,
            8 => BlockId::CompactionTable,
            other => BlockId::Unknown(other),
        })
    }

    /// Maps a revision 0..2 long id; ids the 1.3 `Format.h` does not define are refused.
    pub fn from_long(id: u32) -> Option<BlockId> {
        Some(match id {
            0x01 => BlockId::Module,
            0x11 => BlockId::Function,
            0x12 => BlockId::ConstantPool,
            0x13 => BlockId::SymbolTable,
            0x14 => BlockId::GlobalInfo,
            0x15 => BlockId::TypePool,
            0x16 => BlockId::Unknown(0x16),
            0x31 => BlockId::BasicBlock,
            0x32 => BlockId::InstructionList,
            0x33 => BlockId::CompactionTable,
            _ => return None,
        })
    }

    /// A short English name, for messages and dumps.
    pub fn name(self) -> &'static str {
        match self {
            BlockId::Module => "module",
            BlockId::Function => "function",
            BlockId::ConstantPool => "constant pool",
            BlockId::SymbolTable => "symbol table",
            BlockId::GlobalInfo => "global info",
            BlockId::TypePool => "type pool",
            BlockId::InstructionList => "instruction list",
            BlockId::CompactionTable => "compaction table",
            BlockId::BasicBlock => "basic block",
            BlockId::Unknown(_) => "unknown",
        }
    }
}

/// How a block header was written.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum HeaderForm {
    /// Id word then size word (8 bytes).
    Long,
    /// One word: id in bits 0..4, size in bits 5..31 (4 bytes).
    Short,
}

/// A block header as read: its kind, content size, form and the offset of the header.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BlockHeader {
    /// The kind of block.
    pub id: BlockId,
    /// The raw id as written.
    pub raw_id: u32,
    /// Content bytes after the header.
    pub size: u32,
    /// Header form.
    pub form: HeaderForm,
    /// File offset of the header.
    pub offset: u64,
}

/// Reads a block header of `form` and splits off the block content as a reader of its own.
pub fn read_block<'a>(r: &mut Reader<'a>, form: HeaderForm) -> Result<(BlockHeader, Reader<'a>), ReadError> {
    let offset = r.offset();
    let (raw_id, size, id) = match form {
        HeaderForm::Short => {
            let w = r.u32_le()?;
            let id =
                BlockId::from_short(w & 0x1F).ok_or_else(|| ReadError::new(ReadErrorKind::ReservedBlockId, offset))?;
            (w & 0x1F, w >> 5, id)
        }
        HeaderForm::Long => {
            let raw = r.u32_le()?;
            let size = r.u32_le()?;
            let id = match raw {
                0 => return Err(ReadError::new(ReadErrorKind::ReservedBlockId, offset)),
                _ => BlockId::from_long(raw)
                    .ok_or_else(|| ReadError::new(ReadErrorKind::UnknownLongBlockId { id: raw }, offset))?,
            };
            (raw, size, id)
        }
    };
    if size as usize > r.remaining() {
        let kind = ReadErrorKind::BlockOverrun { size: u64::from(size), available: r.remaining() as u64 };
        return Err(ReadError::new(kind, offset));
    }
    let content = r.sub(size as usize)?;
    Ok((BlockHeader { id, raw_id, size, form, offset }, content))
}

/// Starts a short-header block: reserves the header and returns its position for [`end_block`].
pub fn begin_block(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    at
}

/// Finishes the block begun at `at`: patches the header with `id` and the content size, then pads.
pub fn end_block(out: &mut Vec<u8>, at: usize, id: BlockId) -> Result<(), WriteError> {
    let size = (out.len() - at - 4) as u64;
    if size > MAX_SHORT_BLOCK_SIZE {
        return Err(WriteError::BlockTooLarge { block: id.name(), size });
    }
    let word = id.short_id().unwrap_or(0) | (size as u32) << 5;
    out[at..at + 4].copy_from_slice(&word.to_le_bytes());
    pad(out);
    Ok(())
}

/// Finishes the block begun at `at` if anything was written into it, or removes it ("omit if empty", §2.2).
pub fn end_block_or_omit(out: &mut Vec<u8>, at: usize, id: BlockId) -> Result<(), WriteError> {
    if out.len() == at + 4 {
        out.truncate(at);
        Ok(())
    } else {
        end_block(out, at, id)
    }
}
