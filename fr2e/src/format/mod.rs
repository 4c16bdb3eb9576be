//! The FR2E format layer: bytes to a plain model and back, with no knowledge of Whale IR.
//!
//! Each file implements one encoding of `fr2e.md` Part A with the resolutions of Part B folded in, and cites the
//! resolution ids where a rule comes from one:
//!
//! | file | encoding |
//! | --- | --- |
//! | `tlv.rs` | TLV chunks: header forms, tag values and promotion, the case rule (A2) |
//! | `vli.rs` | UVLI32/64/128, SVLI, OpVLI, bit interleave (A4) |
//! | `mutf8.rs`, `strings.rs`, `strz.rs` | M-UTF-8, the string table `strs`/`strz`/`stri`, string tags (A5) |
//! | `entry.rs` | LITD/GBLD entries, attributes, variable lists, keyed attributes (A6) |
//! | `signature.rs`, `flags.rs` | signature and flag strings: parsers and printers (A7) |
//! | `type_id.rs` | Type IDs (A9) |
//! | `register.rs` | Register IDs (A10) |
//! | `immediate.rs` | Immediates (A11) |
//! | `mtf.rs`, `vop.rs` | VOPs: mask, opn/opr forms, the four MTF lists, the `vops` stream (A8, A13) |
//! | `trace.rs` | traces and function-body headers (A12) |
//! | `image.rs` | the image root: chunk order, duplicates, extensions, cross-checks (A3, A14) |
//!
//! Reading is zero-copy where the format allows it: [`Reader`] is a bounds-checked cursor over the input and
//! [`Chunk`] borrows its payload. Every error is a [`FormatError`], a kind plus the absolute byte offset. No input
//! makes a reader panic, recurse without a depth limit, or allocate for a count that the remaining bytes cannot back;
//! every limit is in [`limits`]. Writers emit the canonical form of `fr2e.md` A14, so `write(read(b)) == b` for
//! canonical bytes and `read(write(m)) == m` for every model that writes.

pub mod entry;
pub mod error;
pub mod flags;
pub mod image;
pub mod immediate;
pub mod limits;
pub mod mtf;
pub mod mutf8;
pub mod reader;
pub mod register;
pub mod signature;
pub mod strings;
mod strz;
pub mod tlv;
pub mod trace;
pub mod type_id;
pub mod vli;
pub mod vop;

pub use entry::{Entry, EntryData, EntryKind, Extensions, KeyedAttribute, KeyedValue, Table, Variable, VariableList};
pub use error::{ErrorKind, FormatError, WriteError};
pub use flags::Flags;
pub use image::Image;
pub use immediate::Immediate;
pub use limits::Limits;
pub use reader::Reader;
pub use register::{Register, RegisterWord, Subtype};
pub use signature::{ClassModifier, Signature, TextError, TextErrorKind};
pub use strings::{StringTable, StringTableBuilder, StringTag, StringValue};
pub use tlv::{read_chunk, write_chunk, write_data_chunk, Chunk, Chunks, HeaderForm, Tag, TagWidth};
pub use trace::TraceRecord;
pub use type_id::VopType;
pub use vop::{opcode, Vop, VopDecoder, VopEncoder, VopStream};
