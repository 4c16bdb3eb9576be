//! The AST format-2 JSON envelope: strict decoding and canonical encoding
//! (whale-upstream §f.1; docs/interchange.md).
//!
//! Texts in the common forms are read by `fast_json.rs`: a hand-written
//! reader straight into a borrowed tree in a bump arena, which is then copied
//! into the owned [`Program`]. It declines every text outside the forms it can
//! check exactly (escapes in strings, unusual numbers, other versions, anything
//! invalid), and those take the strict path below, which alone reports errors.
//! The fast reader accepts only texts the strict path accepts, with the same
//! program; debug builds check this on every accepted text (they run the strict
//! path too and panic on a difference), so every test that decodes tests it.
//!
//! The strict path reads an accepted text in one pass: serde_json deserializes the
//! envelope into [`Program`] with derived, `deny_unknown_fields` types, through
//! `Strict` so that a struct is only ever read from an object. That pass alone
//! is as strict as the format: every object of the schema is either a struct,
//! whose derived visitor rejects an unknown field and a repeated known one (keys
//! are compared unescaped, so `"glob\u0061ls"` repeats `"globals"`), or an enum
//! tag, which serde_json reads as an object of exactly one key; it also finds
//! every syntax error, trailing content, and nesting beyond serde_json's
//! recursion limit of 128 (it recurses once per level, so the stack stays
//! bounded). Only then are the versions and features checked, so a format-1
//! payload that parses reports its version.
//!
//! Upstream reports errors in a fixed precedence: a syntax error, excess
//! nesting or a duplicate key *anywhere* in the text before any schema problem,
//! even one earlier in the text, which a single streaming pass cannot know
//! about when it meets the schema problem. So when the typed pass fails, a raw
//! pass decides which error is reported: it walks every value with a visitor
//! that keeps the unescaped keys of each object and rejects a repeated one
//! (serde_json's own maps would silently keep the last), and its syntax or
//! duplicate-key error wins; only a text it accepts gets the typed pass's schema
//! error. Errors cost two passes (after the fast reader's attempt); accepted texts, one.
//!
//! Large pretty-printed texts, which are mostly indentation, are first copied
//! without their layout whitespace (`whitespace.rs`), which has the same
//! tokens; errors are then reported from the original text, so positions are
//! always serde_json's line and column (both 1-based) in the caller's text.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;

use rustc_hash::FxHashSet;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::fast_json;
use super::frontend::Program;
use super::strict::Strict;
use super::tree;
use super::whitespace;
use super::AST_FORMAT_VERSION;

/// The default input size limit of [`decode`]: 8 MiB.
pub const DEFAULT_MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;

/// The only semantics version of format 2.
pub(super) const SEMANTICS_VERSION: u64 = 1;

/// Why an AST JSON text was rejected. Variants that come from the JSON reader
/// carry serde_json's 1-based `line` and `column`.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input is longer than the limit (a text exactly at the limit is accepted).
    InputTooLarge {
        /// Input length in bytes.
        len: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// Not JSON: a syntax error, trailing content, or nesting beyond the limit.
    Syntax {
        /// serde_json's description, without the position.
        message: String,
        /// Line of the error.
        line: usize,
        /// Column of the error.
        column: usize,
    },
    /// An object repeats a key (compared after unescaping).
    DuplicateKey {
        /// The repeated key, unescaped.
        key: String,
        /// Line just after the repeated key.
        line: usize,
        /// Column just after the repeated key.
        column: usize,
    },
    /// The JSON does not have the shape of the envelope or of a node kind.
    Schema {
        /// serde_json's description, without the position.
        detail: String,
        /// Line of the error.
        line: usize,
        /// Column of the error.
        column: usize,
    },
    /// `format_version` is not 2.
    FormatVersion(u64),
    /// `semantics_version` is not 1.
    SemanticsVersion(u64),
    /// `features` is not empty.
    Features(Vec<String>),
}

impl DecodeError {
    /// The 1-based line and column of the error, when it has a position.
    pub fn line_column(&self) -> Option<(usize, usize)> {
        match *self {
            DecodeError::Syntax { line, column, .. }
            | DecodeError::DuplicateKey { line, column, .. }
            | DecodeError::Schema { line, column, .. }
                if line > 0 =>
            {
                Some((line, column))
            }
            _ => None,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |f: &mut fmt::Formatter<'_>| match self.line_column() {
            Some((line, column)) => write!(f, " at line {line} column {column}"),
            None => Ok(()),
        };
        match self {
            DecodeError::InputTooLarge { .. } => f.write_str("AST JSON exceeds input byte limit"),
            DecodeError::Syntax { message, .. } => {
                f.write_str(message)?;
                at(f)
            }
            DecodeError::DuplicateKey { key, .. } => {
                write!(f, "duplicate JSON key {key:?}")?;
                at(f)
            }
            DecodeError::Schema { detail, .. } => {
                write!(f, "AST envelope/schema error: {detail}")?;
                at(f)?;
                f.write_str("; expected format_version 2, semantics_version 1, features [], program")
            }
            DecodeError::FormatVersion(v) => {
                write!(f, "unsupported AST format_version {v}; expected {AST_FORMAT_VERSION}")
            }
            DecodeError::SemanticsVersion(v) => {
                write!(f, "unsupported semantics_version {v}; expected {SEMANTICS_VERSION}")
            }
            DecodeError::Features(features) => {
                write!(f, "unsupported AST features: {features:?}; supported feature list is empty")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes an AST format-2 envelope of at most [`DEFAULT_MAX_INPUT_BYTES`].
///
/// ```
/// use ir::lower_ast::interchange::decode;
/// let json = r#"{"format_version": 2, "semantics_version": 1, "features": [],
///   "program": {"declarations": [], "globals": [], "functions": []}}"#;
/// assert!(decode(json).unwrap().functions.is_empty());
/// let bad = json.replace("\"format_version\": 2", "\"format_version\": 99");
/// assert_eq!(decode(&bad).unwrap_err().to_string(), "unsupported AST format_version 99; expected 2");
/// ```
pub fn decode(src: &str) -> Result<Program, DecodeError> {
    decode_with_limit(src, DEFAULT_MAX_INPUT_BYTES)
}

/// Decodes an AST format-2 envelope of at most `max_input_bytes` bytes.
pub fn decode_with_limit(src: &str, max_input_bytes: usize) -> Result<Program, DecodeError> {
    if src.len() > max_input_bytes {
        return Err(DecodeError::InputTooLarge { len: src.len(), limit: max_input_bytes });
    }
    match read_fast(src) {
        Some(program) => Ok(program),
        None => decode_with_serde(src),
    }
}

/// The program of `src` if [`fast_json`] accepts it (its arena is gone when
/// the strict path runs).
fn read_fast(src: &str) -> Option<Program> {
    let bump = fast_json::arena_for(src);
    let program = tree::to_owned(&fast_json::read(src, &bump)?);
    // Every test that decodes thereby checks the fast reader against serde.
    #[cfg(debug_assertions)]
    {
        let strict = decode_with_serde(src);
        assert!(
            strict.as_ref() == Ok(&program),
            "the fast JSON reader accepted a text that serde reads differently: {:?}",
            strict.as_ref().map(|_| "another program")
        );
    }
    Some(program)
}

/// The strict decoder: serde_json and the derived types, with the upstream
/// error precedence.
pub(super) fn decode_with_serde(src: &str) -> Result<Program, DecodeError> {
    let envelope = match whitespace::strip(src) {
        // The stripped text has the tokens of `src`; errors are reported from
        // `src`, with its positions.
        Some(stripped) => read_envelope(&stripped).or_else(|_| read_envelope(src)),
        None => read_envelope(src),
    };
    check_versions(envelope.map_err(|e| rejection(src, &e))?)
}

/// The program of an envelope with the supported versions and no features.
fn check_versions(envelope: Envelope) -> Result<Program, DecodeError> {
    if envelope.format_version != u64::from(AST_FORMAT_VERSION) {
        return Err(DecodeError::FormatVersion(envelope.format_version));
    }
    if envelope.semantics_version != SEMANTICS_VERSION {
        return Err(DecodeError::SemanticsVersion(envelope.semantics_version));
    }
    if !envelope.features.is_empty() {
        return Err(DecodeError::Features(envelope.features));
    }
    Ok(envelope.program)
}

/// Encodes `program` in its envelope: pretty-printed with a 2-space indent, keys
/// in the order of the node types (envelope: `format_version`,
/// `semantics_version`, `features`, `program`), unit variants as plain strings
/// and absent options as `null`, with no trailing newline.
/// `decode(&encode(p)) == Ok(p)`.
///
/// Serialization recurses once per AST level; programs that came from
/// [`decode`] are at most 128 JSON levels deep.
pub fn encode(program: &Program) -> String {
    let envelope =
        EnvelopeRef { format_version: AST_FORMAT_VERSION, semantics_version: SEMANTICS_VERSION, features: [], program };
    match serde_json::to_string_pretty(&envelope) {
        Ok(text) => text,
        // Strings, booleans, integers and derived structs and enums always
        // serialize; serde_json only fails on non-string map keys or I/O.
        Err(e) => unreachable!("AST values always serialize: {e}"),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    format_version: u64,
    semantics_version: u64,
    features: Vec<String>,
    program: Program,
}

#[derive(Serialize)]
struct EnvelopeRef<'a> {
    format_version: u32,
    semantics_version: u64,
    features: [String; 0],
    program: &'a Program,
}

/// The typed pass: the envelope, then nothing but whitespace.
fn read_envelope(text: &str) -> Result<Envelope, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let envelope = Envelope::deserialize(Strict(&mut de))?;
    de.end()?;
    Ok(envelope)
}

/// The error for a text the typed read rejected with `typed`: the raw pass's
/// syntax, nesting, trailing-content or duplicate-key error if the text has one
/// anywhere, else the schema error.
#[cold]
fn rejection(src: &str, typed: &serde_json::Error) -> DecodeError {
    if let Err(raw) = check_raw(src) {
        return raw;
    }
    let (detail, line, column) = split_position(typed);
    DecodeError::Schema { detail, line, column }
}

/// serde_json's message without its ` at line L column C` suffix, and the position.
fn split_position(e: &serde_json::Error) -> (String, usize, usize) {
    let (line, column) = (e.line(), e.column());
    let text = e.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = match text.strip_suffix(&suffix) {
        Some(message) if line > 0 => message.to_string(),
        _ => text,
    };
    (message, line, column)
}

/// The raw pass, run after the typed pass failed: syntax, trailing content,
/// nesting, and duplicate keys.
fn check_raw(src: &str) -> Result<(), DecodeError> {
    let duplicate = RefCell::new(None);
    let keys = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(src);
    let result = RawValue { duplicate: &duplicate, keys: &keys }.deserialize(&mut de).and_then(|()| de.end());
    result.map_err(|e| {
        let (message, line, column) = split_position(&e);
        match duplicate.into_inner() {
            Some(key) => DecodeError::DuplicateKey { key, line, column },
            None => DecodeError::Syntax { message, line, column },
        }
    })
}

/// Visits any JSON value, rejecting objects that repeat a key. The key that
/// caused the rejection is left in `duplicate`, telling it apart from syntax
/// errors without parsing messages.
///
/// Keys are borrowed from the text unless they contain escapes. The keys of the
/// objects being read share one stack, `keys`: an object owns the entries above
/// the length it found on entry and is searched linearly, until it has more than
/// [`LINEAR_KEYS`] keys and moves them to a hash set of its own.
#[derive(Clone, Copy)]
struct RawValue<'a, 'de> {
    duplicate: &'a RefCell<Option<String>>,
    keys: &'a RefCell<Vec<Cow<'de, str>>>,
}

/// Objects with at most this many keys are checked for duplicates by a linear search.
const LINEAR_KEYS: usize = 16;

impl<'de> DeserializeSeed<'de> for RawValue<'_, 'de> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RawValue<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let start = self.keys.borrow().len();
        let mut large: Option<FxHashSet<Cow<'de, str>>> = None;
        while let Some(Key(key)) = map.next_key()? {
            let repeated = match &large {
                Some(set) => set.contains(&key),
                None => self.keys.borrow()[start..].contains(&key),
            };
            if repeated {
                let error = de::Error::custom(format_args!("duplicate JSON key {key:?}"));
                *self.duplicate.borrow_mut() = Some(key.into_owned());
                return Err(error);
            }
            match &mut large {
                Some(set) => {
                    set.insert(key);
                }
                None => {
                    let mut keys = self.keys.borrow_mut();
                    keys.push(key);
                    if keys.len() - start > LINEAR_KEYS {
                        large = Some(keys.drain(start..).collect());
                    }
                }
            }
            map.next_value_seed(self)?;
        }
        self.keys.borrow_mut().truncate(start);
        Ok(())
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }

        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY: &str = r#"{"format_version":2,"semantics_version":1,"features":[],
        "program":{"declarations":[],"globals":[],"functions":[]}}"#;

    #[test]
    fn empty_program_round_trips() {
        let p = decode(EMPTY).unwrap();
        assert_eq!(p, Program::default());
        let text = encode(&p);
        assert_eq!(decode(&text), Ok(p));
        assert!(text.starts_with("{\n  \"format_version\": 2,\n  \"semantics_version\": 1,\n  \"features\": [],\n"));
    }

    #[test]
    fn limit_is_inclusive() {
        assert!(decode_with_limit(EMPTY, EMPTY.len()).is_ok());
        let e = decode_with_limit(EMPTY, EMPTY.len() - 1).unwrap_err();
        assert_eq!(e, DecodeError::InputTooLarge { len: EMPTY.len(), limit: EMPTY.len() - 1 });
        assert_eq!(e.to_string(), "AST JSON exceeds input byte limit");
    }

    #[test]
    fn escaped_duplicate_key() {
        let src = EMPTY.replace(r#""globals":[]"#, r#""globals":[],"glob\u0061ls":[]"#);
        match decode(&src).unwrap_err() {
            DecodeError::DuplicateKey { key, line, .. } => assert_eq!((key.as_str(), line), ("globals", 2)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn duplicate_keys_in_large_and_nested_objects() {
        // Every value is an object, so nested keys come and go on the shared stack.
        let object = |keys: &[String]| {
            let fields: Vec<String> = keys.iter().map(|k| format!("\"{k}\": {{\"a\": 1, \"b\": 2}}")).collect();
            format!("{{{}}}", fields.join(", "))
        };
        let duplicate = |src: &str| match check_raw(src) {
            Err(DecodeError::DuplicateKey { key, .. }) => Some(key),
            Ok(()) => None,
            Err(other) => panic!("{other:?}"),
        };
        for n in [1, LINEAR_KEYS, LINEAR_KEYS + 1, 3 * LINEAR_KEYS] {
            let mut keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
            assert_eq!(duplicate(&object(&keys)), None, "{n} distinct keys");
            for repeat in [0, n / 2, n - 1] {
                keys.push(keys[repeat].clone());
                assert_eq!(duplicate(&object(&keys)), Some(keys[repeat].clone()), "{n} keys, repeat {repeat}");
                // The same key through an escape (owned, not borrowed from the text).
                let escaped = format!("\\u006b{}", &keys[repeat][1..]);
                *keys.last_mut().unwrap() = escaped;
                assert_eq!(duplicate(&object(&keys)), Some(keys[repeat].clone()), "{n} keys, escaped {repeat}");
                keys.pop();
            }
        }
        // Sibling objects and nested objects do not share keys.
        assert_eq!(duplicate(r#"[{"a": {"a": {"a": 1}}, "b": 1}, {"a": 1, "b": {"b": 2}}]"#), None);
        assert_eq!(duplicate(r#"{"a": {"b": 1}, "b": 1, "a": 2}"#), Some("a".into()));
    }

    /// `decode` without the whitespace pass: the typed pass on `src` itself.
    fn decode_unstripped(src: &str) -> Result<Program, DecodeError> {
        check_versions(read_envelope(src).map_err(|e| rejection(src, &e))?)
    }

    /// A pretty-printed program large enough for the whitespace pass, with
    /// names that need escapes and literals of every kind.
    fn large_pretty_text() -> String {
        use super::super::frontend::{Convention, Expr, Function, Linkage, Literal, Param, Stmt, Type};
        let int = |value: &str| Expr::Lit(Literal::Int { bits: 64, signed: true, value: value.into() });
        let functions = (0..80)
            .map(|i| Function {
                convention: Convention::Whale,
                linkage: Linkage::Internal,
                link_name: None,
                name: format!("f{i} \"quoted\" \\ \u{e9}\u{1F40B}"),
                parameters: vec![Param { name: "a".into(), ty: Type::Int { bits: 64, signed: true } }],
                return_type: Type::Array { elem: Box::new(Type::Bool), len: 12 },
                body: vec![
                    Stmt::VarDecl { name: "x".into(), ty: Type::Bool, init: Some(Expr::Lit(Literal::Bool(true))) },
                    Stmt::ExprStmt(Expr::Lit(Literal::Float { bits: 32, value: "0x3f800000".into() })),
                    Stmt::Return(Some(int(&format!("-{i}123")))),
                    Stmt::Break,
                ],
            })
            .collect();
        let text = encode(&Program { declarations: vec![], globals: vec![], functions });
        assert!(text.len() > 64 * 1024);
        assert!(whitespace::strip(&text).is_some_and(|stripped| stripped.len() * 2 < text.len()));
        text
    }

    #[test]
    fn stripping_whitespace_changes_no_result() {
        let text = large_pretty_text();
        assert_eq!(decode(&text), decode_unstripped(&text));
        assert!(decode(&text).is_ok());
        // Every kind of edit, anywhere: the results (values, errors and their
        // positions) are those of the text as it is.
        let edits: [&str; 18] =
            ["", " ", " ", " ", "\t", "\n ", "\r\n", "\"", "\\", "1", "x", "-", "{", "]", ",", ":", "e", "\"a\": 1, "];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..100 {
            let mut edited = text.clone();
            for _ in 0..1 + next(3) {
                let mut at = next(edited.len());
                while !edited.is_char_boundary(at) {
                    at -= 1;
                }
                let edit = edits[next(edits.len())];
                if edit.is_empty() {
                    if let Some(c) = edited[at..].chars().next() {
                        edited.replace_range(at..at + c.len_utf8(), "");
                    }
                } else {
                    edited.insert_str(at, edit);
                }
            }
            assert_eq!(decode(&edited), decode_unstripped(&edited), "{edited}");
        }
        // Errors late in the text keep their line in the original.
        let duplicated = text.replacen("\"parameters\"", "\"name\": \"again\",\n\"parameters\"", 1);
        match decode(&duplicated) {
            Err(DecodeError::DuplicateKey { key, line, .. }) => assert_eq!((key.as_str(), line), ("name", 14)),
            other => panic!("{other:?}"),
        }
        let tail = text.replacen("\"Break\"", "\"Brake\"", 1);
        assert!(matches!(decode(&tail), Err(DecodeError::Schema { line, .. }) if line > 20), "{:?}", decode(&tail));
    }

    #[test]
    fn position_is_split_off() {
        let e = decode("{\"format_version\": 2,\n  \"x\": }").unwrap_err();
        assert_eq!(e.line_column(), Some((2, 8)));
        assert_eq!(e.to_string(), "expected value at line 2 column 8");
    }
}
