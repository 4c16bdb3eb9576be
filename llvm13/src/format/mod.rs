//! The LLVM 1.3 format layer: bytes to a plain model and back, with no knowledge of Whale IR.
//!
//! | file | concept |
//! | --- | --- |
//! | `primitives.rs` | vbr, int64_vbr, strings, words, 0xAB padding (`llvm13.md` §1, §2.3) |
//! | `block.rs` | block ids, long and short headers, back-patched writing (§2) |
//! | `types.rs` | type slots, type definitions, type lookups (§4) |
//! | `constant.rs` | constants and the constant pools (§8) |
//! | `planes.rs` | value planes and slot numbering (§5) |
//! | `opcode.rs` | the opcode table (§10.5) |
//! | `instruction.rs` | instructions and the four formats (§10.1, §10.2) |
//! | `typing.rs` | operand planes and result types per opcode (§5.2, §10.6) |
//! | `compaction.rs` | compaction tables, both directions, and the writer's decision (§12) |
//! | `symtab.rs` | symbol tables (§9) |
//! | `module.rs` | the module model (§3, §6, §7) |
//! | `read.rs`, `write.rs` | the reader (revisions 0..3) and the writer (revision 3) |
//!
//! Every read error is a [`ReadError`]: a kind plus the absolute file offset. No input makes the reader panic,
//! recurse over input-defined depth, or allocate for a count that the remaining bytes cannot back; the limits are
//! in [`limits`]. `read_module(&write_module(m)?) == m` for every consistent model ([`write_module_checked`] checks
//! it), and `write_module(&read_module(b)?) == b` for bytes the writer produced.

pub mod block;
pub mod compaction;
pub mod constant;
pub mod error;
pub mod instruction;
pub mod limits;
pub mod module;
pub mod opcode;
pub mod planes;
pub mod primitives;
pub mod read;
pub mod symtab;
pub mod types;
pub mod typing;
pub mod write;

pub use block::{read_block, BlockHeader, BlockId, HeaderForm};
pub use constant::{Constant, ConstantOperand, ConstantPlane, ConstantPool, StringConstant};
pub use error::{ReadError, ReadErrorKind, WriteError};
pub use instruction::{choose_format, read_raw, write_raw, IndexKind, Instruction, Operand, RawInstruction};
pub use limits::Limits;
pub use module::{BasicBlock, Endianness, Function, FunctionBody, GlobalVar, Linkage, Module, PointerSize};
pub use opcode::Opcode;
pub use primitives::{pad, write_string, write_svbr, write_vbr, Reader, PAD_BYTE};
pub use read::{read_module, read_module_with_limits};
pub use symtab::{Symbol, SymbolIndex, SymbolPlane, SymbolTable, TypeName};
pub use types::{Ty, TypeDef, TypeSlot, Types, PRIMITIVE_NAMES};
pub use write::{write_module, write_module_checked};
