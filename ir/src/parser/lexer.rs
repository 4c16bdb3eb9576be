//! The text lexer: bytes in, `(kind, span)` tokens out.
//!
//! The input is a `&str`, so it is valid UTF-8 already. Every delimiter of the
//! format is ASCII, and ASCII bytes never occur inside a multi-byte sequence, so
//! the lexer walks `as_bytes()` and its cuts always land on character
//! boundaries; a `char` is decoded only to report an unexpected one. Word bytes
//! come from a 256-entry table (bytes ≥ 0x80 included: names may be Unicode).
//! A token is a kind and a span: the parser slices its text only when a rule
//! needs it, and numbers are parsed from the span where they are consumed.
//! Strings are validated here (escapes, raw control characters) and decoded on
//! demand; a string without escapes is used as a slice of the input.
//!
//! Tokens (whale-upstream §g.4): `{ } ( ) [ ] < > , : =`, `->`, `=>`, strings,
//! `%`-references (`%v7`, `%b2`), `@`-references (`@f0`, `@g1`, `@name`) and
//! words (keywords, names, numbers such as `-12` or `0x3f800000`, `...`).
//! Whitespace and `//` line comments are skipped.

use super::error::{ParseError, ParseErrorKind};
use super::parser::{fail, PResult};
use crate::limits::{LimitError, Resource};

/// A byte range of the input.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Span {
    pub start: u32,
    pub end: u32,
}

/// What a token is (four bytes, so that a [`Token`] has no padding to copy).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub(crate) enum TokenKind {
    Eof,
    /// A lexical error, kept by the lexer until the parser reports it. Every
    /// later token is an error too, so no rule can succeed past it.
    Error,
    /// A run of word bytes, possibly starting with `-`.
    Word,
    /// `%v` followed by word bytes.
    ValueRef,
    /// `%b` followed by word bytes.
    BlockRef,
    /// `%` followed by anything else.
    BadRef,
    /// `@` followed by word bytes.
    AtRef,
    /// A string without escapes.
    Str,
    /// A string with at least one (validated) escape.
    EscapedStr,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Lt,
    Gt,
    Comma,
    Colon,
    Equals,
    /// `->`.
    Arrow,
    /// `=>`.
    FatArrow,
}

/// A token: kind, span, and the number it spells (16 bytes).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub span: Span,
    /// For `%v7`, `%b7`, `@f7`, `@g7` and all-digit words: the number, parsed
    /// once here; [`NO_NUMBER`] when the text is not such a number (or is
    /// larger than `u32::MAX - 1`).
    pub num: u32,
}

/// `Token::num` of a token that spells no number.
pub(crate) const NO_NUMBER: u32 = u32::MAX;

/// Bytes that may appear in words: ASCII letters and digits, `_`, `.`, `$`, and
/// every byte of a multi-byte UTF-8 sequence.
pub(crate) static WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$' || c >= 0x80;
        b += 1;
    }
    table
};

/// The eight bytes at `pos`, if there are eight.
#[inline(always)]
fn chunk8(bytes: &[u8], pos: usize) -> Option<&[u8; 8]> {
    bytes.get(pos..pos.checked_add(8)?).and_then(|s| s.try_into().ok())
}

/// How many of the (little-endian) bytes of `word` are leading ASCII digits.
#[inline(always)]
pub(crate) fn digit_count(word: u64) -> usize {
    // A byte is a digit when it is 0x30..=0x39: its high nibble is 3 and adding
    // 6 to it does not carry into the high nibble.
    let high_nibble_ok = (word & 0xf0f0_f0f0_f0f0_f0f0) ^ 0x3030_3030_3030_3030;
    let low_nibble_ok = ((word & 0x0f0f_0f0f_0f0f_0f0f).wrapping_add(0x0606_0606_0606_0606)) & 0xf0f0_f0f0_f0f0_f0f0;
    let bad = high_nibble_ok | low_nibble_ok;
    (bad.trailing_zeros() / 8) as usize
}

/// The value of the first `digits` (1..=7) ASCII digits of `word`.
#[inline(always)]
pub(crate) fn parse_digits(word: u64, digits: usize) -> u32 {
    // Keep the digits, moved to the high end so that the low bytes are leading zeros.
    let value = (word & 0x0f0f_0f0f_0f0f_0f0f) << (8 * (8 - digits));
    let value = (value.wrapping_mul(10) + (value >> 8)) & 0x00ff_00ff_00ff_00ff;
    let value = (value.wrapping_mul(100) + (value >> 16)) & 0x0000_ffff_0000_ffff;
    let value = (value.wrapping_mul(10000) + (value >> 32)) & 0x0000_0000_ffff_ffff;
    value as u32
}

/// The end of the word whose bytes continue at `pos` in `bytes`.
#[inline(always)]
pub(crate) fn word_end(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(&b) = bytes.get(pos) {
        if !WORD[b as usize] {
            break;
        }
        pos += 1;
    }
    pos
}

/// Scans the decimal digits at `start` (then any further word bytes): the end
/// of the word and its value, or [`NO_NUMBER`] if the word is not all digits or
/// does not fit below `u32::MAX`.
#[inline(always)]
pub(crate) fn number_end(bytes: &[u8], start: usize) -> (usize, u32) {
    if let Some(chunk) = chunk8(bytes, start) {
        let word = u64::from_le_bytes(*chunk);
        let digits = digit_count(word);
        if digits < 8 {
            let end = start + digits;
            if digits == 0 || WORD[bytes[end] as usize] {
                return (word_end(bytes, end), NO_NUMBER);
            }
            return (end, parse_digits(word, digits));
        }
    }
    // Eight or more digits, or the end of the input: the plain loop.
    let mut pos = start;
    let mut value: u64 = 0;
    while let Some(&b) = bytes.get(pos) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            if WORD[b as usize] {
                return (word_end(bytes, pos), NO_NUMBER);
            }
            break;
        }
        value = value.saturating_mul(10).saturating_add(u64::from(digit));
        pos += 1;
    }
    let num = if pos == start || value >= u64::from(NO_NUMBER) { NO_NUMBER } else { value as u32 };
    (pos, num)
}

pub(crate) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: u64,
    max_tokens: u64,
    /// Every token takes at least one byte, so a budget of at least the input
    /// length can never run out and is not counted.
    count_tokens: bool,
    /// The error behind an `Error` token.
    error: Option<Box<ParseError>>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, max_tokens: u64) -> Self {
        let count_tokens = max_tokens < src.len() as u64;
        Lexer { src, bytes: src.as_bytes(), pos: 0, tokens: 0, max_tokens, count_tokens, error: None }
    }

    #[inline(always)]
    fn skip_trivia(&mut self) {
        let bytes = self.bytes;
        let mut pos = self.pos;
        while let Some(&b) = bytes.get(pos) {
            match b {
                b' ' | b'\n' | b'\t' | b'\r' => pos += 1,
                b'/' if bytes.get(pos + 1) == Some(&b'/') => {
                    pos = match bytes[pos..].iter().position(|&c| c == b'\n') {
                        Some(i) => pos + i + 1,
                        None => bytes.len(),
                    };
                }
                _ => break,
            }
        }
        self.pos = pos;
    }

    /// The end of the word whose bytes continue at `pos`.
    #[inline(always)]
    fn word_end(&self, pos: usize) -> usize {
        word_end(self.bytes, pos)
    }

    /// See [`number_end`].
    #[inline(always)]
    fn number_end(&self, start: usize) -> (usize, u32) {
        number_end(self.bytes, start)
    }

    /// Continues lexing at byte `pos` (a token boundary: the end of a token the
    /// parser read past the lexer, see `fast.rs`).
    #[inline]
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// Whether tokens are counted against a limit (then every token must come
    /// from this lexer).
    pub fn counts_tokens(&self) -> bool {
        self.count_tokens
    }

    /// The next token: `Eof` at the end, `Error` after a lexical error (both
    /// forever). Errors are kept for [`Lexer::take_error`], so that reading a
    /// token cannot fail and the parser checks for errors only where a token
    /// does not fit the grammar.
    ///
    /// This is the inlined fast path for the tokens that make up almost all of
    /// an instruction (words, `%` ids, single punctuation after spaces); every
    /// other case goes to [`Lexer::general_token`], which keeps strings,
    /// comments, limits and errors out of the hot frame.
    #[inline(always)]
    pub fn next_token(&mut self) -> Token {
        let bytes = self.bytes;
        let mut start = self.pos;
        while let Some(b' ' | b'\n') = bytes.get(start) {
            start += 1;
        }
        let Some(&b) = bytes.get(start) else { return self.general_token() };
        if self.count_tokens {
            return self.general_token();
        }
        let mut num = NO_NUMBER;
        let (kind, end) = if b == b'%' {
            let kind = match bytes.get(start + 1) {
                Some(b'v') => TokenKind::ValueRef,
                Some(b'b') => TokenKind::BlockRef,
                _ => return self.general_token(),
            };
            let end;
            (end, num) = self.number_end(start + 2);
            (kind, end)
        } else if WORD[b as usize] {
            if b.is_ascii_digit() {
                let end;
                (end, num) = self.number_end(start);
                (TokenKind::Word, end)
            } else {
                (TokenKind::Word, self.word_end(start + 1))
            }
        } else {
            let kind = match b {
                b',' => TokenKind::Comma,
                b':' => TokenKind::Colon,
                b'=' if bytes.get(start + 1) != Some(&b'>') => TokenKind::Equals,
                b'[' => TokenKind::LBracket,
                b']' => TokenKind::RBracket,
                b'<' => TokenKind::Lt,
                b'>' => TokenKind::Gt,
                b'(' => TokenKind::LParen,
                b')' => TokenKind::RParen,
                _ => return self.general_token(),
            };
            (kind, start + 1)
        };
        self.pos = end;
        Token { kind, span: span(start, end), num }
    }

    /// Any token, the slow way: comments, strings, `@` and `-` words, limits,
    /// errors and the end of input.
    #[inline(never)]
    fn general_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let Some(&b) = self.bytes.get(start) else {
            let kind = if self.error.is_some() { TokenKind::Error } else { TokenKind::Eof };
            return Token { kind, span: span(start, start), num: NO_NUMBER };
        };
        if self.count_tokens {
            if let Err(e) = self.count(start) {
                return self.error_token(e);
            }
        }
        let mut num = NO_NUMBER;
        let (kind, end) = match b {
            b'%' | b'@' => {
                let kind = match (b, self.bytes.get(start + 1)) {
                    (b'@', _) => TokenKind::AtRef,
                    (_, Some(b'v')) => TokenKind::ValueRef,
                    (_, Some(b'b')) => TokenKind::BlockRef,
                    _ => TokenKind::BadRef,
                };
                match self.bytes.get(start + 1) {
                    Some(&c) if WORD[c as usize] => {
                        let end;
                        (end, num) = self.number_end(start + 2);
                        (kind, end)
                    }
                    _ => (kind, start + 1),
                }
            }
            b'0'..=b'9' => {
                let end;
                (end, num) = self.number_end(start);
                (TokenKind::Word, end)
            }
            b'{' => (TokenKind::LBrace, start + 1),
            b'}' => (TokenKind::RBrace, start + 1),
            b'(' => (TokenKind::LParen, start + 1),
            b')' => (TokenKind::RParen, start + 1),
            b'[' => (TokenKind::LBracket, start + 1),
            b']' => (TokenKind::RBracket, start + 1),
            b'<' => (TokenKind::Lt, start + 1),
            b'>' => (TokenKind::Gt, start + 1),
            b',' => (TokenKind::Comma, start + 1),
            b':' => (TokenKind::Colon, start + 1),
            b'=' if self.bytes.get(start + 1) == Some(&b'>') => (TokenKind::FatArrow, start + 2),
            b'=' => (TokenKind::Equals, start + 1),
            b'-' if self.bytes.get(start + 1) == Some(&b'>') => (TokenKind::Arrow, start + 2),
            b'-' => (TokenKind::Word, self.word_end(start + 1)),
            b'"' => match self.string(start) {
                Ok(token) => token,
                Err(e) => return self.error_token(e),
            },
            _ if WORD[b as usize] => (TokenKind::Word, self.word_end(start + 1)),
            _ => return self.unexpected(start),
        };
        self.pos = end;
        Token { kind, span: span(start, end), num }
    }

    /// Records `error` and moves to the end, so that every later token is `Error`.
    #[cold]
    fn error_token(&mut self, error: Box<ParseError>) -> Token {
        let at = error.location.byte_offset;
        self.error = Some(error);
        self.pos = self.bytes.len();
        Token { kind: TokenKind::Error, span: span(at, at), num: NO_NUMBER }
    }

    /// The error behind an `Error` token.
    pub fn take_error(&mut self) -> Box<ParseError> {
        self.error.take().unwrap_or_else(|| {
            Box::new(ParseError { location: Default::default(), kind: ParseErrorKind::UnterminatedString })
        })
    }

    #[cold]
    fn count(&mut self, at: usize) -> PResult<()> {
        self.tokens += 1;
        if self.tokens > self.max_tokens {
            let limit = LimitError { resource: Resource::Tokens, limit: self.max_tokens };
            return fail(at, ParseErrorKind::ResourceLimit(limit));
        }
        Ok(())
    }

    #[cold]
    fn unexpected(&mut self, at: usize) -> Token {
        let c = self.src[at..].chars().next().unwrap_or('\u{fffd}');
        let error = fail::<()>(at, ParseErrorKind::UnexpectedCharacter(c));
        match error {
            Err(e) => self.error_token(e),
            Ok(()) => self.next_token(),
        }
    }

    /// Scans a string starting at the quote at `start`; returns its kind and end.
    fn string(&self, start: usize) -> PResult<(TokenKind, usize)> {
        let bytes = self.bytes;
        let mut pos = start + 1;
        let mut escaped = false;
        loop {
            let Some(&b) = bytes.get(pos) else {
                return fail(start, ParseErrorKind::UnterminatedString);
            };
            match b {
                b'"' => {
                    let kind = if escaped { TokenKind::EscapedStr } else { TokenKind::Str };
                    return Ok((kind, pos + 1));
                }
                b'\\' => {
                    escaped = true;
                    pos = self.escape(pos)?;
                }
                0..=0x1f | 0x7f => return fail(pos, ParseErrorKind::ControlCharacterInString(char::from(b))),
                // C1 controls (U+0080..U+009F) and U+2028/U+2029 must be escaped too.
                0xc2 if matches!(bytes.get(pos + 1), Some(0x80..=0x9f)) => {
                    return self.control_in_string(pos);
                }
                0xe2 if bytes.get(pos + 1) == Some(&0x80) && matches!(bytes.get(pos + 2), Some(0xa8 | 0xa9)) => {
                    return self.control_in_string(pos);
                }
                _ => pos += 1,
            }
        }
    }

    #[cold]
    fn control_in_string<T>(&self, at: usize) -> PResult<T> {
        let c = self.src[at..].chars().next().unwrap_or('\u{fffd}');
        fail(at, ParseErrorKind::ControlCharacterInString(c))
    }

    /// Validates the escape at `at` (a backslash); returns the position after it.
    fn escape(&self, at: usize) -> PResult<usize> {
        match self.bytes.get(at + 1) {
            Some(b'"' | b'\\' | b'n' | b'r' | b't' | b'0') => Ok(at + 2),
            Some(b'u') => match decode_unicode_escape(&self.bytes[at..]) {
                Ok((_, len)) => Ok(at + len),
                Err(reason) => fail(at, ParseErrorKind::InvalidEscape(reason)),
            },
            None => fail(at, ParseErrorKind::UnterminatedString),
            Some(_) => fail(at, ParseErrorKind::InvalidEscape("expected one of \\\" \\\\ \\n \\r \\t \\0 \\u{..}")),
        }
    }
}

#[inline]
fn span(start: usize, end: usize) -> Span {
    // The reader refuses inputs of 4 GiB or more, so offsets fit in u32.
    Span { start: start as u32, end: end as u32 }
}

/// Decodes `\u{H..}` at the start of `bytes`: the character and the escape's length.
fn decode_unicode_escape(bytes: &[u8]) -> Result<(char, usize), &'static str> {
    if bytes.get(2) != Some(&b'{') {
        return Err("\\u must be followed by {");
    }
    let mut value: u32 = 0;
    let mut digits = 0;
    let mut pos = 3;
    loop {
        match bytes.get(pos) {
            Some(&b) if b.is_ascii_hexdigit() => {
                digits += 1;
                if digits > 6 {
                    return Err("\\u{..} takes 1 to 6 hexadecimal digits");
                }
                value = value * 16 + (b as char).to_digit(16).unwrap_or(0);
                pos += 1;
            }
            Some(b'}') if digits > 0 => break,
            _ => return Err("\\u{..} takes 1 to 6 hexadecimal digits"),
        }
    }
    let c = char::from_u32(value).ok_or("\\u{..} is not a Unicode scalar value")?;
    Ok((c, pos + 1))
}

/// Decodes the contents of a validated string token (quotes included in `raw`).
pub(crate) fn unescape(raw: &str, out: &mut String) {
    out.clear();
    let inner = &raw[1..raw.len() - 1];
    let bytes = inner.as_bytes();
    let mut pos = 0;
    let mut run = 0;
    while pos < bytes.len() {
        if bytes[pos] != b'\\' {
            pos += 1;
            continue;
        }
        out.push_str(&inner[run..pos]);
        let (c, len) = match bytes.get(pos + 1) {
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'0') => ('\0', 2),
            Some(b'u') => decode_unicode_escape(&bytes[pos..]).unwrap_or(('\u{fffd}', 2)),
            Some(&b) => (char::from(b), 2),
            None => ('\\', 1),
        };
        out.push(c);
        pos += len;
        run = pos;
    }
    out.push_str(&inner[run..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        let mut lexer = Lexer::new(text, u64::MAX);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            assert_ne!(t.kind, TokenKind::Error);
            if t.kind == TokenKind::Eof {
                return out;
            }
            out.push(t.kind);
        }
    }

    #[test]
    fn tokens() {
        use TokenKind::*;
        assert_eq!(
            kinds("%v1: i32 = add i32 %v0, -5 // comment\n -> => @f0 \"a\\n\" \"b\" %b2 %x"),
            [
                ValueRef, Colon, Word, Equals, Word, Word, ValueRef, Comma, Word, Arrow, FatArrow, AtRef, EscapedStr,
                Str, BlockRef, BadRef
            ]
        );
        assert_eq!(kinds("ptr<ptr<i8>>"), [Word, Lt, Word, Lt, Word, Gt, Gt]);
        assert_eq!(kinds("tên_biến: ..."), [Word, Colon, Word]);
    }

    #[test]
    fn strings() {
        let mut out = String::new();
        unescape(r#""a\"b\\c\nd\re\tf\0g\u{1}h\u{2028}é""#, &mut out);
        assert_eq!(out, "a\"b\\c\nd\re\tf\0g\u{1}h\u{2028}é");
        let error = |text: &str| {
            let mut lexer = Lexer::new(text, 10);
            assert_eq!(lexer.next_token().kind, TokenKind::Error);
            assert_eq!(lexer.next_token().kind, TokenKind::Error);
            lexer.take_error().kind
        };
        assert_eq!(error("\"abc"), ParseErrorKind::UnterminatedString);
        assert_eq!(error("\"a\nb\""), ParseErrorKind::ControlCharacterInString('\n'));
        assert_eq!(error("\"a\u{2028}\""), ParseErrorKind::ControlCharacterInString('\u{2028}'));
        assert_eq!(error("\"a\u{85}\""), ParseErrorKind::ControlCharacterInString('\u{85}'));
        assert!(matches!(error(r#""\q""#), ParseErrorKind::InvalidEscape(_)));
        assert!(matches!(error(r#""\u{d800}""#), ParseErrorKind::InvalidEscape(_)));
        assert!(matches!(error(r#""\u{1234567}""#), ParseErrorKind::InvalidEscape(_)));
        assert!(matches!(error(r#""\u{}""#), ParseErrorKind::InvalidEscape(_)));
        assert_eq!(error("#"), ParseErrorKind::UnexpectedCharacter('#'));
    }

    #[test]
    fn chunked_scans_agree_with_plain_loops() {
        let samples = [
            "0",
            "7",
            "12",
            "123",
            "1234",
            "12345",
            "123456",
            "1234567",
            "12345678",
            "123456789",
            "4294967294",
            "4294967295",
            "99999999999999999999999",
            "12a",
            "1x",
            "0x3f80",
            "007",
            "5 ",
            "5,",
            "5>",
            "12345678,",
        ];
        for sample in samples {
            for pad in ["", " ", ",        ", "abcdefghij"] {
                let text = format!("%v{sample}{pad}");
                let lexer = Lexer::new(&text, u64::MAX);
                let (end, num) = lexer.number_end(2);
                let digits = sample.bytes().take_while(u8::is_ascii_digit).count();
                let rest = &text[2 + digits..];
                let all_digits = !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
                let expected = if all_digits && digits > 0 {
                    sample[..digits]
                        .parse::<u64>()
                        .ok()
                        .filter(|&n| n < u64::from(NO_NUMBER))
                        .map_or(NO_NUMBER, |n| n as u32)
                } else {
                    NO_NUMBER
                };
                assert_eq!(num, expected, "{text:?}");
                let word_end = 2 + text[2..].bytes().take_while(|&b| WORD[b as usize]).count();
                assert_eq!(end, word_end, "{text:?}");
                assert_eq!(lexer.word_end(2), word_end, "{text:?}");
            }
        }
        let mut lexer = Lexer::new("  \n\t   // note\n        //\n x", u64::MAX);
        lexer.skip_trivia();
        assert_eq!(lexer.pos, 27);
    }

    #[test]
    fn token_limit() {
        let mut lexer = Lexer::new("a b c", 2);
        assert_eq!(lexer.next_token().kind, TokenKind::Word);
        assert_eq!(lexer.next_token().kind, TokenKind::Word);
        assert_eq!(lexer.next_token().kind, TokenKind::Error);
        let e = lexer.take_error();
        assert_eq!(e.location.byte_offset, 4);
        assert!(matches!(e.kind, ParseErrorKind::ResourceLimit(LimitError { resource: Resource::Tokens, .. })));
    }
}
