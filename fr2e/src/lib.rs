//! FR2E images for Whale.
//!
//! FR2E is Whale's binary IR format: a TLV-packaged three-address-code image (`fr2e.md`, the "Whale profile" of the
//! preliminary FRBC2E specification). The crate has two layers (DESIGN.md): [`format`](mod@format) reads and writes the byte
//! format into a plain Rust model that mirrors the specification one-to-one and knows nothing of Whale IR; the mapping
//! between that model and `ir::Module` builds on it.

#![forbid(unsafe_code)]

pub mod format;
