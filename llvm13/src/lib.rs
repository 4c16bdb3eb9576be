//! LLVM 1.3 bytecode for Whale.
//!
//! The [`format`](mod@format) layer reads bytecode of format revisions 0..3 (LLVM 1.0 to 1.3) into a plain [`Module`] that
//! mirrors the file one-to-one, and writes revision 3 the way the LLVM 1.3 writer did (`llvm13.md`, the spec with the
//! facts the original document omits). [`disasm`] prints a module in LLVM 1.3 assembly syntax, like that era's
//! `llvm-dis`; [`dump`] lists a file's blocks and instructions with their offsets, like `llvm-bcanalyzer -dump`.
//! The mapping between this model and Whale IR builds on top of these.

#![forbid(unsafe_code)]

mod disasm;
mod dump;
pub mod format;

pub use disasm::disasm;
pub use dump::dump;
pub use format::{read_module, write_module, Module, ReadError, WriteError};
