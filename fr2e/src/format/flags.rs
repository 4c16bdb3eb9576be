//! Flag strings (`fr2e.md` A7.3): a parser and a canonical printer.
//!
//! A flag string is a **set** (B42): order carries no meaning and duplicates count once, so the model is three
//! bitsets and a sorted set of named flags, and the printer emits the canonical order: single letters alphabetically,
//! then `C?`, then `D?` (each sorted), then `U…;` flags sorted by text. Readers keep flags they do not know, the
//! reserved `u` and `z` included (B37).

use std::collections::BTreeSet;
use std::fmt;

use super::signature::{parse_name, TextError, TextErrorKind};

/// A parsed flag string.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// Bit i set: single letter `'a' + i`.
    pub letters: u32,
    /// Bit i set: `C` + `'a' + i`.
    pub c_letters: u32,
    /// Bit i set: `D` + `'a' + i`.
    pub d_letters: u32,
    /// `U{name};` flags.
    pub named: BTreeSet<String>,
}

impl Flags {
    /// Parses a flag string; any order, duplicates allowed.
    pub fn parse(text: &str) -> Result<Flags, TextError> {
        let bytes = text.as_bytes();
        let mut flags = Flags::default();
        let mut pos = 0;
        while let Some(&c) = bytes.get(pos) {
            let unexpected = |at: usize| match text[at..].chars().next() {
                Some(c) => TextError { kind: TextErrorKind::UnexpectedChar(c), position: at },
                None => TextError { kind: TextErrorKind::UnexpectedEnd, position: at },
            };
            match c {
                b'a'..=b'z' => {
                    flags.letters |= 1 << (c - b'a');
                    pos += 1;
                }
                b'C' | b'D' => {
                    let letter =
                        bytes.get(pos + 1).copied().filter(u8::is_ascii_lowercase).ok_or(unexpected(pos + 1))?;
                    let set = if c == b'C' { &mut flags.c_letters } else { &mut flags.d_letters };
                    *set |= 1 << (letter - b'a');
                    pos += 2;
                }
                b'U' => {
                    pos += 1;
                    flags.named.insert(parse_name(text, &mut pos)?);
                }
                _ => return Err(unexpected(pos)),
            }
        }
        Ok(flags)
    }

    /// True when single-letter flag `letter` is set.
    pub fn has(&self, letter: u8) -> bool {
        letter.is_ascii_lowercase() && self.letters & (1 << (letter - b'a')) != 0
    }

    /// Sets single-letter flag `letter` (a lower-case ASCII letter; others are ignored).
    pub fn insert(&mut self, letter: u8) {
        if letter.is_ascii_lowercase() {
            self.letters |= 1 << (letter - b'a');
        }
    }

    /// True when no flag is set.
    pub fn is_empty(&self) -> bool {
        self.letters == 0 && self.c_letters == 0 && self.d_letters == 0 && self.named.is_empty()
    }
}

impl fmt::Display for Flags {
    /// The canonical spelling (A7.3).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (prefix, set) in [("", self.letters), ("C", self.c_letters), ("D", self.d_letters)] {
            for i in 0..26u8 {
                if set & (1 << i) != 0 {
                    write!(f, "{prefix}{}", char::from(b'a' + i))?;
                }
            }
        }
        for name in &self.named {
            write!(f, "U{name};")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_print_canonically() {
        let flags = Flags::parse("Utuple;sCtDeeaCbUa b;ss").unwrap();
        assert_eq!(flags.to_string(), "aesCbCtDeUa b;Utuple;");
        assert!(flags.has(b's') && flags.has(b'e') && !flags.has(b'k'));
        assert_eq!(Flags::parse(&flags.to_string()).unwrap(), flags);
        assert!(Flags::parse("").unwrap().is_empty());
        // Unknown and reserved flags are kept (B37).
        assert_eq!(Flags::parse("zuCqDz").unwrap().to_string(), "uzCqDz");
        let mut f = Flags::default();
        f.insert(b'e');
        f.insert(b's');
        assert_eq!(f.to_string(), "es");
    }

    #[test]
    fn grammar_errors() {
        let err = |text: &str| Flags::parse(text).unwrap_err();
        assert_eq!(err("sX"), TextError { kind: TextErrorKind::UnexpectedChar('X'), position: 1 });
        assert_eq!(err("C"), TextError { kind: TextErrorKind::UnexpectedEnd, position: 1 });
        assert_eq!(err("CA"), TextError { kind: TextErrorKind::UnexpectedChar('A'), position: 1 });
        assert_eq!(err("U;"), TextError { kind: TextErrorKind::EmptyName, position: 1 });
        assert_eq!(err("Uabc"), TextError { kind: TextErrorKind::UnexpectedEnd, position: 4 });
        assert_eq!(err("1"), TextError { kind: TextErrorKind::UnexpectedChar('1'), position: 0 });
    }
}
