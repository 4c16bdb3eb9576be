//! LLVM 1.3 bytecode for Whale.
//!
//! The [`format`](mod@format) layer reads bytecode of format revisions 0..3 (LLVM 1.0 to 1.3) into a plain [`Module`] that
//! mirrors the file one-to-one, and writes revision 3 the way the LLVM 1.3 writer did (`llvm13.md`, the spec with the
//! facts the original document omits). [`disasm`] writes a module in LLVM 1.3 assembly syntax, like that era's
//! `llvm-dis`; [`dump`] writes a file's blocks and instructions with their offsets, like `llvm-bcanalyzer -dump`,
//! and on a malformed file the listing up to the problem before the reader's error. Both stream their text to an
//! `io::Write` in bounded pieces.
//!
//! The mapping layer sits on top and is the only part that knows Whale IR: [`write_whale`] lowers a verified
//! `ir::Module` to a model numbered the way the LLVM 1.3 slot calculator numbers it and writes it;
//! [`read_whale`] reads bytecode, maps the model to an `ir::Module` and verifies it. The mapping, its conventions
//! (traps, constants, conventions) and its normalisations are tabulated in `docs/llvm13.md`, "Whale mapping".

#![forbid(unsafe_code)]

mod disasm;
mod dump;
mod dump_error;
pub mod format;
mod lift;
mod lower;
mod map_error;
mod repeats;
mod sink;

pub use disasm::{disasm, disasm_to_string};
pub use dump::dump;
pub use dump_error::DumpError;
pub use format::{read_module, write_module, Module, ReadError, WriteError};
pub use lift::{model_to_whale, read_whale};
pub use lower::{whale_to_model, write_whale, TRAP_FUNCTION};
pub use map_error::MapError;
