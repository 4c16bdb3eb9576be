//! Errors of the text reader and their rendering.
//!
//! A [`ParseError`] is a [`SourceLocation`] plus a [`ParseErrorKind`] whose
//! fields carry the context (what was expected, what was found, which id or
//! type); `Display` builds the sentence as `LINE:COL: message`. While parsing,
//! only the byte offset is known: line and column are computed once, on the
//! error path, by counting newlines before the offset and Unicode scalars since
//! the line start (whale-upstream §g.4). [`ParseError::render`] adds the file
//! name, the source line and a caret line for the CLI (STYLE §8).

use std::fmt;

use crate::constant::FloatParseError;
use crate::limits::LimitError;
use crate::opcode::Opcode;
use crate::verifier::VerifyError;

/// A position in the source text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct SourceLocation {
    /// Offset in bytes from the start of the text.
    pub byte_offset: usize,
    /// Line number, from 1.
    pub line: u32,
    /// Column in Unicode scalar values, from 1.
    pub column: u32,
}

impl SourceLocation {
    /// The location of byte `offset` of `source` (clamped to the text, and moved
    /// back to a character boundary).
    pub fn of_offset(source: &str, offset: usize) -> SourceLocation {
        let mut offset = offset.min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &source.as_bytes()[..offset];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let column = 1 + source[line_start..offset].chars().count();
        SourceLocation {
            byte_offset: offset,
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }
}

/// Why text could not be read as a module.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A different token was required here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar requires (for example "`,` after the first operand").
        expected: &'static str,
        /// What the text has (a quoted token, "a string" or "end of input").
        found: String,
    },
    /// A byte that starts no token.
    #[error("unexpected character {0:?}")]
    UnexpectedCharacter(char),
    /// A string runs to the end of the input.
    #[error("unterminated string")]
    UnterminatedString,
    /// A string holds an escape other than `\" \\ \n \r \t \0 \u{1-6 hex}`, or
    /// a `\u{..}` that is not a Unicode scalar value.
    #[error("invalid escape in string: {0}")]
    InvalidEscape(&'static str),
    /// A string holds a raw control character (or U+2028/U+2029).
    #[error("raw control character {0:?} in string; write it as an escape")]
    ControlCharacterInString(char),
    /// The mnemonic names no instruction.
    #[error("unknown instruction")]
    UnknownInstruction {
        /// The mnemonic as written.
        name: String,
    },
    /// The word names no type.
    #[error("unknown type `{0}`")]
    UnknownType(String),
    /// A number, id or keyword is malformed.
    #[error("invalid {what} `{text}`")]
    Invalid {
        /// What was being read ("integer", "value id", …).
        what: &'static str,
        /// The text as written.
        text: String,
    },
    /// An integer literal does not fit its type.
    #[error("integer literal {text} is out of range for {ty}")]
    LiteralOutOfRange {
        /// The literal's type.
        ty: String,
        /// The literal as written.
        text: String,
    },
    /// A float literal is not an exact-width bit string.
    #[error("{0}")]
    InvalidFloat(FloatParseError),
    /// Constants of this type cannot be written.
    #[error("type {0} has no literal constants")]
    NoLiteral(String),
    /// A restated type disagrees with the type stored for the value.
    #[error("conflicting type annotations: {annotated} here, but {subject} is {stored}")]
    ConflictingTypeAnnotations {
        /// The type written here.
        annotated: String,
        /// What the annotation restates (`%v3`, "the result", "the function's return type", …).
        subject: String,
        /// The stored type.
        stored: String,
    },
    /// A result is written for an instruction that has none, or is missing.
    #[error("incorrect result presence: {op} {}", if *has_result { "defines no value" } else { "requires a result `%vN: T =`" })]
    ResultPresence {
        /// The instruction.
        op: Opcode,
        /// Whether the text wrote a result.
        has_result: bool,
    },
    /// `format_version` is not 2, 3 or 4.
    #[error("unsupported IR format version {0}; supported versions are 2, 3 and 4")]
    UnsupportedFormatVersion(String),
    /// `semantics_version` is not 1.
    #[error("unsupported semantics version {0}; expected 1")]
    UnsupportedSemanticsVersion(String),
    /// `uninit` in format 3 text (format 3 predates it; our format 2 has it).
    #[error("uninit requires typed IR format 4")]
    UninitRequiresFormat4,
    /// An id is defined twice (`%v3`, `%b1`, `@g0`).
    #[error("{0} is defined twice")]
    DuplicateDefinition(String),
    /// A format-2 value id collides with a parameter id inferred by the canonical
    /// numbering (whale-ir §3).
    #[error("{value} contradicts the canonical numbering of format 2: it is the id of parameter `{param}`")]
    NonCanonicalId {
        /// The value as written.
        value: String,
        /// The parameter the numbering gives that id.
        param: String,
    },
    /// An instruction follows its block's terminator.
    #[error("instruction after the terminator of block {0}")]
    InstructionAfterTerminator(String),
    /// A resource limit was exceeded.
    #[error("{0}")]
    ResourceLimit(LimitError),
    /// The text was read, but the module is not valid IR.
    #[error("{0}")]
    Verification(Box<VerifyError>),
}

/// An error of [`crate::parse_module`]: where, and what.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub struct ParseError {
    /// Where the problem was found.
    pub location: SourceLocation,
    /// What the problem is.
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.location.line, self.location.column, self.kind)
    }
}

/// Lines longer than this are not echoed under the message.
const MAX_ECHOED_LINE: usize = 512;

impl ParseError {
    /// The message without the location.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }

    /// `FILE:LINE:COL: message`, then the source line and a caret line under the
    /// offending token (STYLE §8); only the first line when the source line is
    /// very long or the location lies outside `source`.
    ///
    /// ```
    /// let text = "module {\n  format_version 9\n}\n";
    /// let error = ir::parse_module(text).unwrap_err();
    /// assert_eq!(
    ///     error.render(text, "a.wir"),
    ///     "a.wir:2:18: unsupported IR format version 9; supported versions are 2, 3 and 4\n   \
    ///      2 |   format_version 9\n     |                  ^"
    /// );
    /// ```
    pub fn render(&self, source: &str, file_name: &str) -> String {
        let SourceLocation { byte_offset, line, column } = self.location;
        let mut out = format!("{file_name}:{line}:{column}: {}", self.kind);
        if byte_offset > source.len() || !source.is_char_boundary(byte_offset) {
            return out;
        }
        let bytes = source.as_bytes();
        let start = bytes[..byte_offset].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let end = bytes[byte_offset..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| byte_offset + i);
        let text = source[start..end].trim_end_matches('\r');
        if text.len() > MAX_ECHOED_LINE {
            return out;
        }
        let expand = |s: &str| s.replace('\t', "    ");
        let prefix = expand(&source[start..byte_offset.min(start + text.len())]);
        let width = token_width(&source[byte_offset.min(end)..end]);
        let gutter = line.to_string();
        let pad = gutter.len().max(4);
        out.push_str(&format!("\n{gutter:>pad$} | {}\n{:pad$} | ", expand(text), ""));
        out.push_str(&" ".repeat(prefix.chars().count()));
        out.push_str(&"^".repeat(width.max(1)));
        out
    }
}

/// Characters of the token starting `rest` (a word, an id, a string), at least 1.
fn token_width(rest: &str) -> usize {
    let mut chars = rest.chars();
    match chars.next() {
        None => 1,
        Some('"') => {
            let mut escaped = false;
            let mut n = 1;
            for c in chars {
                n += 1;
                match c {
                    '\\' if !escaped => escaped = true,
                    '"' if !escaped => return n,
                    _ => escaped = false,
                }
            }
            1
        }
        Some(c) if is_word_char(c) || matches!(c, '%' | '@' | '-') => {
            1 + chars.take_while(|&c| is_word_char(c)).count()
        }
        Some(_) => 1,
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '$') || !c.is_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_count_scalars() {
        let text = "ab\néé x";
        let loc = SourceLocation::of_offset(text, text.find('x').unwrap());
        assert_eq!((loc.line, loc.column), (2, 4));
        assert_eq!(SourceLocation::of_offset(text, 0), SourceLocation { byte_offset: 0, line: 1, column: 1 });
        // Inside a multi-byte character: moved back to its start.
        assert_eq!(SourceLocation::of_offset(text, 4).byte_offset, 3);
    }

    #[test]
    fn render_points_at_the_token() {
        let source = "module {\n    %v3: i32 = addd i32 %v1, %v2\n}";
        let offset = source.find("addd").unwrap();
        let error = ParseError {
            location: SourceLocation::of_offset(source, offset),
            kind: ParseErrorKind::UnknownInstruction { name: "addd".into() },
        };
        assert_eq!(error.to_string(), "2:16: unknown instruction");
        assert_eq!(
            error.render(source, "add.wir"),
            "add.wir:2:16: unknown instruction\n   2 |     %v3: i32 = addd i32 %v1, %v2\n     |                ^^^^"
        );
        let long = format!("{}x", " ".repeat(600));
        let error = ParseError {
            location: SourceLocation::of_offset(&long, 600),
            kind: ParseErrorKind::UnexpectedCharacter('x'),
        };
        assert_eq!(error.render(&long, "f"), "f:1:601: unexpected character 'x'");
    }
}
