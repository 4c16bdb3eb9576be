//! Loading a module from any supported input, detected from its content:
//! an FR2E image (a DWORD+FOURCC `FR2E` root header) is read as binary IR; LLVM
//! 1.x bytecode (the `llvm` magic) is read through the LLVM 1.3 mapping; AST
//! JSON (starts with `{`) is decoded and lowered at O0 for the default target;
//! anything else is read as IR text (formats 2, 3 and 4). Only text inputs go
//! through the UTF-8 check.

use std::path::Path;

use ir::Module;

use crate::cli_error::CliError;
use crate::io::{input_name, max_input_bytes, read_input};

/// The default target of lowering.
pub const DEFAULT_TARGET: &str = "x86_64-whale-linux";

/// What the input bytes are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InputKind {
    /// AST JSON (format 2).
    AstJson,
    /// Whale IR text.
    IrText,
    /// An FR2E image (binary IR).
    Fr2e,
    /// LLVM 1.x bytecode.
    Llvm13,
}

/// Detects the kind of `bytes`: an FR2E root header, else the first significant byte.
pub fn detect(bytes: &[u8]) -> InputKind {
    // fr2e.md A3: the image is one `FR2E` chunk, so it starts with a DWORD+FOURCC header (low bits 10) naming it;
    // neither JSON nor IR text can start that way.
    if bytes.len() >= 8 && bytes[0] & 3 == 2 && &bytes[4..8] == b"FR2E" {
        return InputKind::Fr2e;
    }
    // llvm13.md §3: uncompressed bytecode starts with the magic `llvm`, which is neither JSON nor IR text.
    if bytes.starts_with(b"llvm") {
        return InputKind::Llvm13;
    }
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
    match first {
        Some(b'{') | Some(b'[') => InputKind::AstJson,
        _ => InputKind::IrText,
    }
}

/// Reads `path` and builds its module (lowering AST JSON for `target`), verifying
/// unless `verify` is false (IR text is always verified by the reader).
pub fn load_module(path: &Path, target: &str, verify: bool) -> Result<Module, CliError> {
    load_module_in_family(path, target, verify).map(|(module, _)| module)
}

/// [`load_module`], with the text layout that keeps the input's family when
/// the module is printed (whale-ir §3): format-3/4 text prints as format 4,
/// everything else as [`ir::print_module`] decides.
pub fn load_module_in_family(path: &Path, target: &str, verify: bool) -> Result<(Module, ir::TextFormat), CliError> {
    let bytes = read_input(path)?;
    let module = load_module_from_bytes(&bytes, path, target, verify)?;
    let explicit_ids = detect(&bytes) == InputKind::IrText
        && std::str::from_utf8(&bytes).ok().and_then(ir::parser::text_format_version).is_some_and(|v| v >= 3);
    Ok((module, if explicit_ids { ir::TextFormat::V4 } else { ir::TextFormat::Auto }))
}

/// Builds the module of input `bytes` read from `path` (see [`load_module`]).
pub fn load_module_from_bytes(bytes: &[u8], path: &Path, target: &str, verify: bool) -> Result<Module, CliError> {
    let name = input_name(path);
    match detect(bytes) {
        // The readers verify what they read; FR2E errors carry the byte offset.
        InputKind::Fr2e => {
            let mut limits = fr2e::ReadLimits::default();
            if let Some(bytes) = max_input_bytes() {
                limits.ir = ir::IrLimits::for_input_bytes(bytes);
            }
            fr2e::read_module_with_limits(bytes, &limits).map_err(|e| CliError::failed(format!("{name}: {e}")))
        }
        InputKind::Llvm13 => llvm13::read_whale(bytes).map_err(|e| CliError::failed(format!("{name}: {e}"))),
        InputKind::IrText => parse_text(utf8(bytes, &name)?, &name),
        InputKind::AstJson => {
            let module = lower_json(utf8(bytes, &name)?, target)?;
            if verify {
                ir::verify_module(&module).map_err(|e| CliError::failed(format!("verify failed: {e}")))?;
            }
            Ok(module)
        }
    }
}

/// The text of a text input.
fn utf8<'b>(bytes: &'b [u8], name: &str) -> Result<&'b str, CliError> {
    std::str::from_utf8(bytes).map_err(|e| {
        CliError::failed(format!("{name}: input is not UTF-8 (invalid byte at offset {})", e.valid_up_to()))
    })
}

#[cfg(feature = "socket-cli")]
fn lower_json(text: &str, target: &str) -> Result<Module, CliError> {
    use ir::lower_ast::{JsonLowerError, DEFAULT_MAX_INPUT_BYTES};
    let layout = ir::Target::lookup(target).map_err(|e| CliError::failed(e.to_string()))?.data_layout();
    let limit = max_input_bytes().unwrap_or(DEFAULT_MAX_INPUT_BYTES);
    ir::lower_ast::lower_json(text, limit, target, layout).map_err(|e| match e {
        JsonLowerError::Decode(e) => {
            let detail = e.line_column().map(|(line, column)| crate::diagnostics::excerpt(text, line, column));
            CliError::with_detail(format!("Failed to parse socket JSON: {e}"), detail)
        }
        JsonLowerError::Lower(e) => CliError::failed(format!("lower_o0 failed: {e}")),
    })
}

#[cfg(not(feature = "socket-cli"))]
fn lower_json(_text: &str, _target: &str) -> Result<Module, CliError> {
    Err(CliError::MissingFeature(vec![
        "Error: AST JSON input requires feature 'socket-cli'.".to_string(),
        "Build/run with: cargo run -p whale --features socket-cli -- ir ...".to_string(),
    ]))
}

/// Reads IR text (formats 2, 3 and 4); errors render as `FILE:LINE:COL: message`
/// with the source line and a caret below.
fn parse_text(text: &str, name: &str) -> Result<Module, CliError> {
    let limits = max_input_bytes().map_or_else(ir::IrLimits::default, ir::IrLimits::for_input_bytes);
    ir::parse_module_with_limits(text, limits).map_err(|e| {
        let rendered = e.render(text, name);
        let (message, detail) = match rendered.split_once('\n') {
            Some((first, rest)) => (first.to_string(), Some(format!("{rest}\n").replace("\n\n", "\n"))),
            None => (rendered, None),
        };
        CliError::with_detail(message, detail)
    })
}
