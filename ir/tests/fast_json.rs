//! The fast JSON reader agrees with the strict decoder on texts near the valid
//! ones: the example programs rewritten with keys in random order, random
//! layout and small structural edits (a key repeated, dropped, added or
//! escaped, a scalar or a number swapped), and under random byte edits.
//!
//! The reader is private; `decode` tries it first and, in debug builds, also
//! runs the strict decoder and panics unless both give the same program, so
//! every case here checks the reader wherever it accepts. Fixed seeds and small
//! case counts keep the file deterministic and quick in debug builds.
#![cfg(feature = "socket")]

use std::sync::OnceLock;

use ir::lower_ast::interchange::decode;
use ir::lower_ast::Program;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::Value;

/// A fixed seed keeps runs deterministic; no regression files are written.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0xfa57_0150),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// The example programs: their texts, parsed values and decoded programs.
fn examples() -> &'static [(String, Value, Program)] {
    static EXAMPLES: OnceLock<Vec<(String, Value, Program)>> = OnceLock::new();
    EXAMPLES.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .expect("examples directory")
            .map(|entry| entry.expect("directory entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        assert!(!paths.is_empty());
        paths
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path).expect("example text");
                let value = serde_json::from_str(&text).expect("example JSON");
                let program = decode(&text).expect("example program");
                (text, value, program)
            })
            .collect()
    })
}

/// xorshift64: the choices of one rewrite, from one proptest-chosen seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Writes JSON values with keys shuffled, random layout between tokens, and
/// at most one structural edit: at the `edit_at`-th place one could be made.
struct Writer {
    rng: Rng,
    out: String,
    /// Places an edit could have been made so far.
    places: usize,
    edit_at: Option<usize>,
}

const LAYOUT: [&str; 8] = ["", "", "", " ", "\n", "\t", "\r\n    ", "        "];
const SCALARS: [&str; 16] =
    ["null", "true", "false", "0", "-0", "08", "1e1", "1.0", "65536", "\"\"", "\"Void\"", "[]", "{}", "8", "-1", "2"];

/// The unit variants of the node kinds; the example programs use none of them as a name.
const UNIT_VARIANTS: [&str; 15] = [
    "Whale", "SysV64", "Internal", "External", "Void", "Bool", "Add", "Sub", "Mul", "Eq", "Ne", "Lt", "Ge", "Break",
    "Continue",
];

impl Writer {
    fn layout(&mut self) {
        let blank = LAYOUT[self.rng.below(LAYOUT.len())];
        self.out.push_str(blank);
    }

    fn edit(&mut self) -> bool {
        self.places += 1;
        self.edit_at == Some(self.places - 1)
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for (i, c) in s.chars().enumerate() {
            // An escaped character reads the same to serde, and the reader declines it.
            if i == 0 && self.edit() {
                self.out.push_str(&format!("\\u{:04x}", u32::from(c) & 0xffff));
                continue;
            }
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                c if u32::from(c) < 0x20 => self.out.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn value(&mut self, value: &Value) {
        self.layout();
        if self.edit() {
            let scalar = SCALARS[self.rng.below(SCALARS.len())];
            self.out.push_str(scalar);
            self.layout();
            return;
        }
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => {
                let n = n.to_string();
                if self.edit() {
                    // Other spellings of the number, which serde reads otherwise or not at all.
                    let variant = match self.rng.below(6) {
                        0 => format!("0{n}"),
                        1 => format!("-{n}"),
                        2 => format!("{n}.0"),
                        3 => format!("{n}e0"),
                        4 => format!("{n}0000000000000000000"),
                        _ => format!("{n}99999"),
                    };
                    self.out.push_str(&variant);
                } else {
                    self.out.push_str(&n);
                }
            }
            Value::String(s) if UNIT_VARIANTS.contains(&s.as_str()) && self.rng.below(2) == 0 => {
                // The object form of a unit variant, with a payload other than `null` as the edit.
                let payload = if self.edit() { SCALARS[self.rng.below(SCALARS.len())] } else { "null" };
                self.out.push('{');
                self.string(s);
                self.layout();
                self.out.push(':');
                self.layout();
                self.out.push_str(payload);
                self.layout();
                self.out.push('}');
            }
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                }
                if items.is_empty() || self.edit() {
                    self.layout();
                }
                self.out.push(']');
            }
            Value::Object(map) => {
                let mut fields: Vec<(&String, &Value)> = map.iter().collect();
                for i in (1..fields.len()).rev() {
                    fields.swap(i, self.rng.below(i + 1));
                }
                if self.edit() && !fields.is_empty() {
                    // A key repeated, or dropped.
                    let at = self.rng.below(fields.len());
                    if self.rng.below(2) == 0 {
                        fields.push(fields[at]);
                    } else {
                        fields.remove(at);
                    }
                }
                self.out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.layout();
                    self.string(key);
                    self.layout();
                    self.out.push(':');
                    self.value(value);
                }
                if self.edit() {
                    self.out.push_str(if fields.is_empty() { "\"extra\": 1" } else { ", \"extra\": 1" });
                }
                self.layout();
                self.out.push('}');
            }
        }
        self.layout();
    }
}

/// `value` rewritten from `seed`, with one structural edit if `edit`.
fn rewrite(value: &Value, seed: u64, edit: bool) -> String {
    let mut writer = Writer { rng: Rng(seed | 1), out: String::new(), places: 0, edit_at: None };
    writer.value(value);
    if !edit {
        return writer.out;
    }
    // The same choices again, now with an edit at one of the places counted.
    let edit_at = Rng(seed.rotate_left(32) | 1).below(writer.places.max(1));
    let mut writer = Writer { rng: Rng(seed | 1), out: String::new(), places: 0, edit_at: Some(edit_at) };
    writer.value(value);
    writer.out
}

/// Bytes inserted by the byte edits: JSON punctuation, layout, and pieces of
/// numbers, literals and keys.
const PIECES: [&str; 24] = [
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    " ",
    "\n",
    "0",
    "1",
    "-",
    ".",
    "e",
    "null",
    "true",
    "x",
    "\u{1}",
    "\u{e9}",
    "\"name\": \"n\", ",
    "\"Break\"",
    "\\u0061",
    "{\"Void\": null}",
];

proptest! {
    #![proptest_config(config(400))]

    /// Keys in any order and any layout: the same program, read by the fast reader.
    #[test]
    fn reordered_and_relaid_out(example in 0..8usize, seed in any::<u64>()) {
        let (_, value, program) = &examples()[example % examples().len()];
        let text = rewrite(value, seed, false);
        let decoded = decode(&text);
        prop_assert_eq!(decoded.as_ref(), Ok(program));
    }

    /// Small structural edits: whatever `decode` answers, the fast reader did
    /// not contradict the strict decoder (the cross-check inside `decode`).
    #[test]
    fn structural_edits(example in 0..8usize, seed in any::<u64>()) {
        let (_, value, _) = &examples()[example % examples().len()];
        let _ = decode(&rewrite(value, seed, true));
    }

    /// Random byte edits of the example texts.
    #[test]
    fn byte_edits(example in 0..8usize, edits in vec((any::<prop::sample::Index>(), 0..PIECES.len() + 1), 1..4)) {
        let mut text = examples()[example % examples().len()].0.clone();
        for (at, piece) in edits {
            let mut at = at.index(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            match PIECES.get(piece) {
                Some(piece) => text.insert_str(at, piece),
                // Past the pieces: delete one character.
                None => {
                    if let Some(c) = text[at..].chars().next() {
                        text.replace_range(at..at + c.len_utf8(), "");
                    }
                }
            }
        }
        let _ = decode(&text);
    }
}
