//! FR2E images for Whale.
//!
//! FR2E is Whale's binary IR format: a TLV-packaged three-address-code image (`fr2e.md`, the "Whale profile" of the
//! preliminary FRBC2E specification). The crate has two layers (DESIGN.md): [`format`](mod@format) reads and writes the byte
//! format into a plain Rust model that mirrors the specification one-to-one and knows nothing of Whale IR; the mapping
//! between that model and `ir::Module` builds on it: [`write_module`] (the canonical writer, `fr2e.md` A14 and Part C)
//! and [`read_module`] (the exact reader, C10), with [`try_write_module`] and [`read_module_with_limits`] for callers
//! that need errors instead of panics or tighter limits.
//!
//! Every verified module survives `read_module(&write_module(&m))` with identical printed text, and writing the
//! result again gives identical bytes (project decision 4).

#![forbid(unsafe_code)]

mod dump;
mod error;
pub mod format;
mod lift;
mod lower;
mod profile;

pub use dump::{dump, DumpError};
pub use error::{Error, LiftErrorKind, LowerError};
pub use lift::{read_module, read_module_unverified, read_module_with_limits, ReadLimits};
pub use lower::{try_write_module, try_write_module_with, write_module, WriteOptions};
