//! The text reader: formats 2, 3 and 4 (whale-ir §1, §3, §4; whale-upstream §g.4).
//!
//! [`parse_module`] reads exactly what [`crate::print_module`] writes, so
//! `parse(print(m))` rebuilds `m` — ids, names, types, constants, attributes,
//! order — and `print(parse(t)) == t` for printed text. (The rebuilt module's
//! interning order of strings and types and its operand-pool layout follow the
//! text, not the builder calls that made `m`, so the guarantee is structural;
//! two reads of one text are `==`.) It also reads upstream's formats 3 and 4
//! (explicit `%vN`/`%bN`/`@fN`/`@gN` identities, quoted names; `uninit` is in
//! our format 2 and in format 4, not in format 3). The lexer (`lexer.rs`) walks bytes and hands out
//! `(kind, span)` tokens; the parser (`parser.rs`) is recursive descent with one
//! token of lookahead that fills the module's tables directly, then runs the
//! full verifier. A fast path (`fast.rs`) reads lines spelled exactly as the
//! printer writes them straight from the bytes and leaves everything else to
//! the token rules, with the same results and errors. Every limit of
//! [`IrLimits`] is checked before the allocation or recursion it guards, so no
//! input can crash the reader. `docs/text-format.md` gives the grammar.

mod error;
mod lexer;
#[allow(clippy::module_inception)]
mod parser;

pub use error::{ParseError, ParseErrorKind, SourceLocation};

use crate::limits::IrLimits;
use crate::module::Module;

/// The text format version a module text declares in its header
/// (`module { format_version N`), without reading the rest; `None` when the
/// text does not start that way. Tools use it to keep a text's format family
/// when they print it back (whale-ir §3).
///
/// ```
/// assert_eq!(ir::parser::text_format_version("module {\n  format_version 4\n"), Some(4));
/// assert_eq!(ir::parser::text_format_version("{}"), None);
/// ```
pub fn text_format_version(text: &str) -> Option<u32> {
    let mut lexer = lexer::Lexer::new(text, 8);
    let mut word = |expected: Option<&str>| {
        let token = lexer.next_token();
        let spelled = text.get(token.span.start as usize..token.span.end as usize)?;
        match expected {
            Some(e) => (spelled == e).then_some(token),
            None => Some(token),
        }
    };
    word(Some("module"))?;
    word(Some("{"))?;
    word(Some("format_version"))?;
    let version = word(None)?;
    (version.num != lexer::NO_NUMBER).then_some(version.num)
}

/// Reads a module from text (format 2, 3 or 4) with the default [`IrLimits`],
/// then verifies it.
///
/// ```
/// let text = "\
/// module {
///   format_version 2
///   semantics_version 1
///   target \"x86_64-whale-linux\"
///   datalayout { ptr=64, endian=little }
///
///   declare @f0 \"id\": whale (i32) -> i32, linkage internal
///
///   fn @id(x: i32) -> i32, id @f0 {
///   entry:
///     ret i32 %v0
///   }
///
/// }
/// ";
/// let module = ir::parse_module(text).unwrap();
/// assert_eq!(ir::print_module(&module), text);
/// ```
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    parse_module_with_limits(text, IrLimits::default())
}

/// Reads a module from text under `limits`, then verifies it. Exceeding a
/// limit is a [`ParseErrorKind::ResourceLimit`] error; a module that reads but
/// does not verify is a [`ParseErrorKind::Verification`] error located at the
/// offending item.
pub fn parse_module_with_limits(text: &str, limits: IrLimits) -> Result<Module, ParseError> {
    parser::parse(text, limits, true)
}

/// [`parse_module_with_limits`] without the reader's fast path for printed
/// instruction lines: every token goes through the general grammar rules. The
/// two must agree on every input (results and errors); this is the reference
/// the tests compare against. Not part of the supported API.
#[doc(hidden)]
pub fn parse_module_reference(text: &str, limits: IrLimits) -> Result<Module, ParseError> {
    parser::parse(text, limits, false)
}

/// Runs the lexer alone over `text` and counts its tokens (for the tokenizer
/// benchmark; not part of the supported API). A lexical error is returned
/// located like a parse error.
#[doc(hidden)]
pub fn tokenize_count(text: &str) -> Result<usize, ParseError> {
    let mut lexer = lexer::Lexer::new(text, u64::MAX);
    let mut count = 0;
    loop {
        match lexer.next_token().kind {
            lexer::TokenKind::Eof => return Ok(count),
            lexer::TokenKind::Error => return Err(located(text, *lexer.take_error())),
            _ => count += 1,
        }
    }
}

/// `error` with its line and column in `text` (kept out of the lexer's loop).
#[cold]
#[inline(never)]
fn located(text: &str, mut error: ParseError) -> ParseError {
    error.location = SourceLocation::of_offset(text, error.location.byte_offset);
    error
}
