//! AST format 2: the JSON interchange front ends use to hand Whale a program, and
//! its O0 lowering to IR (whale-upstream §f, whale-ir §6, docs/interchange.md).
//!
//! - [`frontend`]: the node kinds ([`Program`], [`Stmt`], [`Expr`], …).
//! - [`interchange`]: [`decode`] rejects anything not exactly
//!   format 2 (duplicate keys, unknown or missing fields, trailing values, other
//!   versions or features) and [`encode`] writes the
//!   canonical envelope.
//! - [`lower_o0`]: builds a [`crate::Module`] with upstream's numbering, block
//!   names and errors ([`LowerError`]); variables declared without an
//!   initializer are marked `uninit`, never `undef`.
//! - [`lower_json`]: decode and lower in one step, several times faster than the
//!   two apart, with the same results and errors.
//!
//! Integer literals travel as decimal strings and floats as exact-width hex bit
//! strings, so 128-bit values and NaN payloads survive JSON; their ranges are
//! checked by lowering.
//!
//! ```
//! use ir::lower_ast::{interchange, lower_o0};
//! let json = r#"{"format_version": 2, "semantics_version": 1, "features": [], "program": {
//!   "declarations": [], "globals": [], "functions": [{"convention": "Whale", "linkage": "Internal",
//!   "link_name": null, "name": "answer", "parameters": [],
//!   "return_type": {"Int": {"bits": 128, "signed": false}},
//!   "body": [{"Return": {"Lit": {"Int": {"bits": 128, "signed": false,
//!     "value": "340282366920938463463374607431768211455"}}}}]}]}}"#;
//! let program = interchange::decode(json).unwrap();
//! let module = lower_o0(&program, "x86_64-whale-linux", ir::DataLayout::default_64bit_le()).unwrap();
//! ir::verify_module(&module).unwrap();
//! assert!(ir::print_module(&module).contains("const u128 340282366920938463463374607431768211455"));
//! ```

mod convert;
mod error;
mod expr;
mod fast_json;
mod from_json;
pub mod frontend;
pub mod interchange;
mod o0;
mod strict;
mod tree;
mod whitespace;

pub use error::LowerError;
pub use from_json::{lower_json, JsonLowerError};
pub use frontend::{
    BinaryOp, Callee, CmpOp, Convention, Expr, Function, FunctionDeclaration, GlobalConst, Linkage, Literal, Param,
    Program, Signature, Stmt, Type,
};
pub use interchange::{decode, decode_with_limit, encode, DecodeError, DEFAULT_MAX_INPUT_BYTES};
pub use o0::lower_o0;

/// The AST interchange format version this crate reads and writes.
pub const AST_FORMAT_VERSION: u32 = 2;

/// How deeply statements, expressions and types may nest for [`lower_o0`]; deeper
/// trees fail with [`LowerError::NestingLimit`]. Decoded programs never reach it:
/// JSON nesting is limited to 128 levels and every AST level takes at least two.
pub const MAX_NESTING: usize = 128;
