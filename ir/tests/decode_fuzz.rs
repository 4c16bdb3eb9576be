//! AST format 2 decoding never panics: arbitrary bytes (read as lossy UTF-8),
//! strings over JSON's punctuation, JSON trees over the schema's vocabulary, and
//! the example programs under random byte edits all give `Ok` or `Err`. Whatever
//! decodes also lowers and verifies without panicking, and re-encodes to itself.
//!
//! Fixed seeds and small case counts keep the file deterministic and quick in
//! debug builds; failures are not persisted.
#![cfg(feature = "socket")]

use std::sync::OnceLock;

use ir::lower_ast::interchange::{decode, encode, DecodeError};
use ir::lower_ast::{lower_o0, Program};
use ir::DataLayout;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestCaseError};

const TARGET: &str = "x86_64-whale-linux";

/// A fixed seed keeps runs deterministic; no regression files are written.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0xdec0_de42),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Decodes `src`; an error must render and point inside the text, a program
/// must lower (or fail to) and verify (or fail to) without panicking, and
/// encode to a text that decodes back to it.
fn check(src: &str) -> Result<(), TestCaseError> {
    match decode(src) {
        Err(e) => check_error(src, &e),
        Ok(program) => check_program(&program),
    }
}

fn check_error(src: &str, e: &DecodeError) -> Result<(), TestCaseError> {
    prop_assert!(!e.to_string().is_empty());
    if let Some((line, column)) = e.line_column() {
        let text = src.split('\n').nth(line - 1);
        prop_assert!(text.is_some(), "{e}: line {line} of {}", src.split('\n').count());
        let len = text.map_or(0, str::len);
        prop_assert!(column <= len + 1, "{e}: column {column} of a {len}-byte line");
    }
    Ok(())
}

fn check_program(program: &Program) -> Result<(), TestCaseError> {
    let text = encode(program);
    let back = decode(&text);
    prop_assert_eq!(back.as_ref(), Ok(program));
    if let Ok(module) = lower_o0(program, TARGET, DataLayout::default_64bit_le()) {
        let _ = ir::verify_module(&module);
    }
    Ok(())
}

// ---- the example programs and their mutations -----------------------------------------

/// The example files (name, bytes), read once.
fn examples() -> &'static [(String, Vec<u8>)] {
    static EXAMPLES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    EXAMPLES.get_or_init(read_examples)
}

fn read_examples() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no examples in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.file_name().unwrap().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

/// A byte edit; positions and lengths are reduced modulo the current length.
/// `lines` widens a range to whole lines, which in the pretty-printed examples
/// are whole fields and elements, so the result is more often still JSON.
/// `Retype` replaces the first ASCII letter or digit (only digits with `digit`)
/// at or after `at` by another of its class, so literals, widths, keys and names
/// change but the text stays JSON.
#[derive(Debug, Clone)]
enum Edit {
    Delete { at: u32, len: u8, lines: bool },
    Insert { at: u32, bytes: Vec<u8> },
    Replace { at: u32, byte: u8 },
    Retype { at: u32, pick: u8, digit: bool },
    Duplicate { from: u32, len: u16, to: u32, lines: bool },
    Truncate { at: u32 },
}

/// Bytes worth inserting: JSON punctuation, digits, quotes, escapes, and now
/// and then anything (including invalid UTF-8).
fn edit_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => proptest::sample::select(b"{}[]\":,0123456789-+.eE \n\\tnul".to_vec()),
        1 => any::<u8>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<u32>(), 1..16u8, any::<bool>()).prop_map(|(at, len, lines)| Edit::Delete { at, len, lines }),
        2 => (any::<u32>(), vec(edit_byte(), 1..6)).prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
        2 => (any::<u32>(), edit_byte()).prop_map(|(at, byte)| Edit::Replace { at, byte }),
        4 => (any::<u32>(), any::<u8>(), any::<bool>()).prop_map(|(at, pick, digit)| Edit::Retype { at, pick, digit }),
        3 => (any::<u32>(), 1..512u16, any::<u32>(), any::<bool>())
            .prop_map(|(from, len, to, lines)| Edit::Duplicate { from, len, to, lines }),
        1 => any::<u32>().prop_map(|at| Edit::Truncate { at }),
    ]
}

/// Edits that mostly keep the text JSON, so decoding reaches the schema, the
/// versions and lowering more often than under arbitrary edits.
fn gentle_edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<u32>(), any::<u8>()).prop_map(|(at, pick)| Edit::Retype { at, pick, digit: true }),
        2 => (any::<u32>(), any::<u8>()).prop_map(|(at, pick)| Edit::Retype { at, pick, digit: false }),
        1 => (any::<u32>(), 1..4u8).prop_map(|(at, len)| Edit::Delete { at, len, lines: true }),
        1 => (any::<u32>(), 1..8u16, any::<u32>())
            .prop_map(|(from, len, to)| Edit::Duplicate { from, len, to, lines: true }),
    ]
}

/// The byte range `at .. at + len` of `bytes` (clamped), widened to whole lines
/// when `lines` is set: `len` then counts lines.
fn range(bytes: &[u8], at: u32, len: usize, lines: bool) -> std::ops::Range<usize> {
    let n = bytes.len();
    let start = at as usize % (n + 1);
    if !lines {
        return start..(start + len).min(n);
    }
    let start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut end = start;
    for _ in 0..len.min(64) {
        end = bytes[end..].iter().position(|&b| b == b'\n').map_or(n, |i| end + i + 1);
    }
    start..end
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    let n = bytes.len();
    let pos = |at: u32| at as usize % (n + 1);
    match *edit {
        Edit::Delete { at, len, lines } => {
            bytes.drain(range(bytes, at, usize::from(len), lines));
        }
        Edit::Insert { at, bytes: ref new } => {
            let at = pos(at);
            bytes.splice(at..at, new.iter().copied());
        }
        Edit::Replace { at, byte } => {
            if n > 0 {
                bytes[at as usize % n] = byte;
            }
        }
        Edit::Retype { at, pick, digit } => {
            let start = if n > 0 { at as usize % n } else { 0 };
            let candidate = |b: &u8| if digit { b.is_ascii_digit() } else { b.is_ascii_alphanumeric() };
            if let Some(i) = bytes[start..].iter().position(candidate) {
                let b = &mut bytes[start + i];
                let class: &[u8] = match *b {
                    b'0'..=b'9' => b"0123456789",
                    b'a'..=b'z' => b"abcdefghijklmnopqrstuvwxyz",
                    _ => b"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                };
                *b = class[usize::from(pick) % class.len()];
            }
        }
        Edit::Duplicate { from, len, to, lines } => {
            let copy = bytes[range(bytes, from, usize::from(len), lines)].to_vec();
            let to = range(bytes, to, 0, lines).start;
            bytes.splice(to..to, copy);
        }
        Edit::Truncate { at } => bytes.truncate(pos(at)),
    }
}

#[test]
fn examples_pass_the_check_unmutated() {
    for (name, bytes) in examples() {
        let src = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(decode(src).is_ok(), "{name} does not decode");
        if let Err(e) = check(src) {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn edits_wrap_and_clamp() {
    let mut bytes = b"abc".to_vec();
    apply(&mut bytes, &Edit::Delete { at: 4, len: 1, lines: false });
    assert_eq!(bytes, b"bc");
    apply(&mut bytes, &Edit::Duplicate { from: 1, len: 9, to: 0, lines: false });
    assert_eq!(bytes, b"cbc");
    apply(&mut bytes, &Edit::Insert { at: 7, bytes: b"{}".to_vec() });
    assert_eq!(bytes, b"cbc{}");
    apply(&mut bytes, &Edit::Replace { at: 5, byte: b'x' });
    assert_eq!(bytes, b"xbc{}");
    apply(&mut bytes, &Edit::Retype { at: 1, pick: 0, digit: false });
    assert_eq!(bytes, b"xac{}");
    apply(&mut bytes, &Edit::Retype { at: 3, pick: 0, digit: false });
    assert_eq!(bytes, b"xac{}");
    apply(&mut bytes, &Edit::Truncate { at: 2 });
    assert_eq!(bytes, b"xa");
    apply(&mut Vec::new(), &Edit::Replace { at: 3, byte: b'x' });
    let mut digits = b"a1b2".to_vec();
    apply(&mut digits, &Edit::Retype { at: 2, pick: 7, digit: true });
    assert_eq!(digits, b"a1b7");
    apply(&mut Vec::new(), &Edit::Duplicate { from: 3, len: 2, to: 1, lines: true });

    let mut lines = b"a\nbb\nc".to_vec();
    apply(&mut lines, &Edit::Duplicate { from: 3, len: 1, to: 0, lines: true });
    assert_eq!(lines, b"bb\na\nbb\nc");
    apply(&mut lines, &Edit::Delete { at: 9, len: 2, lines: true });
    assert_eq!(lines, b"bb\na\nbb\n");
}

// ---- JSON trees over the schema's vocabulary ----------------------------------------------

/// Every key and variant name of the envelope and the node kinds, and a few values.
const WORDS: &str = "
    format_version semantics_version features program declarations globals functions name signature linkage
    link_name params ret convention variadic ty init parameters return_type body bits signed elem len value left
    op right callee args cond then_body else_body Int Float Ptr Array Opaque Void Bool FnPtr Var Lit Binary Cmp
    FunctionRef Call NullFunction Direct Indirect Return ConstDecl VarDecl Assign ExprStmt If While Break Continue
    Whale SysV64 Internal External Add Sub Mul Eq Ne Lt Le Gt Ge x main 0x3ff0000000000000 -1 42";

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => proptest::sample::select(WORDS.split_whitespace().collect::<Vec<_>>()).prop_map(String::from),
        1 => "[a-z\\\\\"]{0,4}",
    ]
}

/// `s` as a JSON string literal (words hold no control characters).
fn json_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A JSON value as text: scalars, the vocabulary as strings, arrays, and objects
/// whose keys come from the vocabulary (so duplicates and near-misses occur).
fn json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        prop_oneof![Just(1u64), Just(2), Just(8), Just(32), Just(64), Just(128), any::<u64>()]
            .prop_map(|n| n.to_string()),
        Just("-1".to_string()),
        Just("1.5e3".to_string()),
        word().prop_map(|w| json_string(&w)),
    ];
    leaf.prop_recursive(6, 64, 5, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(", "))),
            vec((word(), inner), 0..5).prop_map(|fields| {
                let fields: Vec<_> = fields.iter().map(|(k, v)| format!("{}: {v}", json_string(k))).collect();
                format!("{{{}}}", fields.join(", "))
            }),
        ]
    })
}

/// A JSON tree as the program, inside a valid envelope.
fn in_envelope(program: &str) -> String {
    format!(r#"{{"format_version": 2, "semantics_version": 1, "features": [], "program": {program}}}"#)
}

// ---- the properties -------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn arbitrary_bytes(bytes in vec(any::<u8>(), 0..512)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn jsonish_strings(src in r#"[{}\[\]":,0-9a-z\\ \t\n\r]{0,256}"#) {
        check(&src)?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn json_trees(value in json(), wrap in any::<bool>()) {
        let src = if wrap { in_envelope(&value) } else { value };
        check(&src)?;
    }

    #[test]
    fn mutated_examples(which in any::<prop::sample::Index>(), edits in vec(edit(), 1..4)) {
        let (_, original) = &examples()[which.index(examples().len())];
        let mut bytes = original.clone();
        for edit in &edits {
            apply(&mut bytes, edit);
        }
        check(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn gently_mutated_examples(which in any::<prop::sample::Index>(), edits in vec(gentle_edit(), 1..4)) {
        let (_, original) = &examples()[which.index(examples().len())];
        let mut bytes = original.clone();
        for edit in &edits {
            apply(&mut bytes, edit);
        }
        check(&String::from_utf8_lossy(&bytes))?;
    }
}
