//! [`lower_json`]: decoding and O0 lowering in one step, without the owned AST.
//!
//! `lower_o0(&decode(src)?, ..)` builds a [`super::Program`] with a heap
//! allocation per name and per nested node, only to walk it once and drop it.
//! Here the fast reader builds the tree view lowering walks in an arena, with
//! names borrowed from `src`; a text the fast reader declines (an escaped string,
//! a rare spelling, or an error) takes the exact path, so results and errors are
//! always those of `decode` followed by `lower_o0`.

use crate::module::Module;
use crate::target::DataLayout;

use super::error::LowerError;
#[cfg(debug_assertions)]
use super::interchange::decode_with_limit;
use super::interchange::{decode_with_serde, DecodeError};
use super::{fast_json, o0};

/// Compact JSON takes about 33 bytes per lowered instruction and pretty JSON
/// several times more, so this reserves at most the module's tables once over;
/// capacity never written is never paged in, and `finish` returns it.
const BYTES_PER_INST: usize = 32;

/// Why [`lower_json`] failed: the text is not AST format 2, or its program does not lower.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum JsonLowerError {
    /// The text was rejected, exactly as [`super::interchange::decode_with_limit`] rejects it.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The program was rejected, exactly as [`super::lower_o0`] rejects it.
    #[error(transparent)]
    Lower(#[from] LowerError),
}

/// Decodes an AST format-2 text of at most `max_input_bytes` bytes and lowers
/// it at O0: the result of `lower_o0(&decode_with_limit(src, max_input_bytes)?,
/// target, layout)`, at a fraction of the cost. The module is not verified.
///
/// ```
/// use ir::lower_ast::{lower_json, DEFAULT_MAX_INPUT_BYTES};
/// let json = r#"{"format_version": 2, "semantics_version": 1, "features": [], "program": {
///   "declarations": [], "globals": [], "functions": [{"convention": "Whale", "linkage": "Internal",
///   "name": "unit", "parameters": [], "return_type": "Void", "body": []}]}}"#;
/// let layout = ir::DataLayout::default_64bit_le();
/// let module = lower_json(json, DEFAULT_MAX_INPUT_BYTES, "x86_64-whale-linux", layout).unwrap();
/// assert!(ir::verify_module(&module).is_ok());
/// ```
pub fn lower_json(
    src: &str,
    max_input_bytes: usize,
    target: &str,
    layout: DataLayout,
) -> Result<Module, JsonLowerError> {
    if src.len() > max_input_bytes {
        return Err(DecodeError::InputTooLarge { len: src.len(), limit: max_input_bytes }.into());
    }
    let bump = fast_json::arena_for(src);
    if let Some(program) = fast_json::read(src, &bump) {
        // Debug builds (every test) confirm the fast reader against the exact decoder.
        #[cfg(debug_assertions)]
        assert_eq!(decode_with_limit(src, max_input_bytes), Ok(super::tree::to_owned(&program)), "fast reader differs");
        return Ok(o0::lower_tree(&program, target, layout, src.len() / BYTES_PER_INST)?);
    }
    // Declined: free the arena and go the strict way (the fast reader would only decline again).
    drop(bump);
    let program = decode_with_serde(src)?;
    Ok(super::lower_o0(&program, target, layout)?)
}
