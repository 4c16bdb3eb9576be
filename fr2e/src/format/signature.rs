//! Type signature strings (`fr2e.md` A7.1-A7.2): a parser and a printer for the grammar.
//!
//! Every alternative of the grammar starts with its own character, so the parser is recursive descent with one
//! character of lookahead (two after `A` and `U`). Nesting is bounded by [`Limits::max_signature_depth`]: the
//! parser fails instead of recursing deeper, so the recursive printer and `Drop` of a parsed signature are bounded
//! too. The printer is the inverse of the parser: `parse(print(s)) == s` and `print(parse(t)) == t` for every valid
//! text, because the grammar has exactly one spelling per tree (sizes have no leading zeros, B35).
//!
//! The Whale-profile calling-convention marker `Ucc.NAME;` (B41) is part of [`Signature::Function`]; a `U` name that
//! starts with `cc.` anywhere else is an error.

use std::fmt;

use super::limits::Limits;

/// A parsed type signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Signature {
    /// A one-letter primitive: `a`-`z` except the reserved `q` (L200-L225).
    Primitive(u8),
    /// `C` + a letter: the extended primitives of L226-L251 (`Cl` and `Ct` are reserved, B37).
    CExtended(u8),
    /// `D` + one of `a i j n z` (L252-L256).
    DExtended(u8),
    /// `A{size};{sig}`: an array of `size` elements (B35).
    Array { size: u64, element: Box<Signature> },
    /// `A{modifier}{sig}`: a pointer/array class modifier applied to a type (B36).
    Modified { modifier: ClassModifier, inner: Box<Signature> },
    /// `L{qname};`: a tag class.
    TagClass(String),
    /// `P{sig}`: a pointer.
    Pointer(Box<Signature>),
    /// `Q{sig}`: a tag array.
    TagArray(Box<Signature>),
    /// `R{sig}`: a reference.
    Reference(Box<Signature>),
    /// `U{name};`: an extended type; the name does not start with `cc.`.
    Extended(String),
    /// `W{sig}`: a wide pointer.
    WidePointer(Box<Signature>),
    /// `X{name};`: a struct or union named by a LITD entry.
    Named(String),
    /// `[Ucc.{convention};]({params}){ret}`: a function type (B40, B41).
    Function { convention: Option<String>, params: Vec<Signature>, ret: Box<Signature> },
}

/// The pointer/array class modifiers of L268-L275.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClassModifier {
    /// `Ab`: packed, big-endian.
    BigEndian,
    /// `Af`: far.
    Far,
    /// `Al`: packed, little-endian.
    LittleEndian,
    /// `An`: near.
    Near,
    /// `Ap`: packed.
    Packed,
    /// `Aw`: "wide" (the seed's meaning carries a question mark).
    Wide,
}

impl ClassModifier {
    const fn letter(self) -> u8 {
        match self {
            ClassModifier::BigEndian => b'b',
            ClassModifier::Far => b'f',
            ClassModifier::LittleEndian => b'l',
            ClassModifier::Near => b'n',
            ClassModifier::Packed => b'p',
            ClassModifier::Wide => b'w',
        }
    }

    const fn from_letter(letter: u8) -> Option<ClassModifier> {
        Some(match letter {
            b'b' => ClassModifier::BigEndian,
            b'f' => ClassModifier::Far,
            b'l' => ClassModifier::LittleEndian,
            b'n' => ClassModifier::Near,
            b'p' => ClassModifier::Packed,
            b'w' => ClassModifier::Wide,
            _ => return None,
        })
    }
}

/// A signature or flag string that does not follow its grammar, with the byte position of the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("position {position}: {kind}")]
pub struct TextError {
    /// What is wrong.
    pub kind: TextErrorKind,
    /// Byte position in the string.
    pub position: usize,
}

/// The reason a signature or flag string was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TextErrorKind {
    #[error("unexpected end of the string")]
    UnexpectedEnd,
    #[error("unexpected character {0:?}")]
    UnexpectedChar(char),
    #[error("reserved code {0:?}")]
    ReservedCode(char),
    #[error("empty name")]
    EmptyName,
    #[error("name contains U+0000")]
    NulInName,
    #[error("array size is not a decimal number without leading zeros that fits 64 bits")]
    BadArraySize,
    #[error("signature nested deeper than {0}")]
    TooDeep(u32),
    #[error("characters after the end of the signature")]
    TrailingCharacters,
    #[error("`z` may only be the last parameter")]
    VarargsNotLast,
    #[error("`v` cannot be a parameter")]
    VoidParameter,
    #[error("a calling-convention marker must be followed by `(`")]
    ConventionWithoutFunction,
}

/// Primitive letters: `a`-`z` except `q` (B37).
const fn is_primitive(b: u8) -> bool {
    b.is_ascii_lowercase() && b != b'q'
}

/// Second letters after `C`: every lower-case letter except the blank `l` and `t` (B37).
const fn is_c_extended(b: u8) -> bool {
    b.is_ascii_lowercase() && b != b'l' && b != b't'
}

/// Second letters after `D`.
const fn is_d_extended(b: u8) -> bool {
    matches!(b, b'a' | b'i' | b'j' | b'n' | b'z')
}

impl Signature {
    /// Parses a whole signature string with the default nesting limit.
    pub fn parse(text: &str) -> Result<Signature, TextError> {
        Self::parse_with_limits(text, &Limits::default())
    }

    /// Parses a whole signature string: exactly one `sig`, nothing after it (A7.1).
    pub fn parse_with_limits(text: &str, limits: &Limits) -> Result<Signature, TextError> {
        let mut p = Parser { text, pos: 0, max_depth: limits.max_signature_depth };
        let sig = p.sig(1)?;
        if p.pos != text.len() {
            return Err(p.error(TextErrorKind::TrailingCharacters));
        }
        Ok(sig)
    }

    /// A pointer to `self`.
    pub fn pointer(self) -> Signature {
        Signature::Pointer(Box::new(self))
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Signature::Primitive(c) => write!(f, "{}", char::from(*c)),
            Signature::CExtended(c) => write!(f, "C{}", char::from(*c)),
            Signature::DExtended(c) => write!(f, "D{}", char::from(*c)),
            Signature::Array { size, element } => write!(f, "A{size};{element}"),
            Signature::Modified { modifier, inner } => write!(f, "A{}{inner}", char::from(modifier.letter())),
            Signature::TagClass(name) => write!(f, "L{name};"),
            Signature::Pointer(inner) => write!(f, "P{inner}"),
            Signature::TagArray(inner) => write!(f, "Q{inner}"),
            Signature::Reference(inner) => write!(f, "R{inner}"),
            Signature::Extended(name) => write!(f, "U{name};"),
            Signature::WidePointer(inner) => write!(f, "W{inner}"),
            Signature::Named(name) => write!(f, "X{name};"),
            Signature::Function { convention, params, ret } => {
                if let Some(cc) = convention {
                    write!(f, "Ucc.{cc};")?;
                }
                f.write_str("(")?;
                for p in params {
                    write!(f, "{p}")?;
                }
                write!(f, "){ret}")
            }
        }
    }
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    max_depth: u32,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn error(&self, kind: TextErrorKind) -> TextError {
        TextError { kind, position: self.pos }
    }

    /// The character at the cursor, for messages (the cursor is always on a character boundary).
    fn unexpected(&self) -> TextError {
        match self.text[self.pos..].chars().next() {
            Some(c) => self.error(TextErrorKind::UnexpectedChar(c)),
            None => self.error(TextErrorKind::UnexpectedEnd),
        }
    }

    fn bump(&mut self) -> Result<u8, TextError> {
        let b = self.peek().ok_or_else(|| self.error(TextErrorKind::UnexpectedEnd))?;
        self.pos += 1;
        Ok(b)
    }

    fn expect(&mut self, want: u8) -> Result<(), TextError> {
        if self.peek() == Some(want) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// `name ";"`: non-empty text without `;` or U+0000 (B39). Returns the name; the cursor ends after the `;`.
    fn name(&mut self) -> Result<String, TextError> {
        parse_name(self.text, &mut self.pos)
    }

    fn inner(&mut self, depth: u32) -> Result<Box<Signature>, TextError> {
        Ok(Box::new(self.sig(depth + 1)?))
    }

    fn sig(&mut self, depth: u32) -> Result<Signature, TextError> {
        if depth > self.max_depth {
            return Err(self.error(TextErrorKind::TooDeep(self.max_depth)));
        }
        let start = self.pos;
        let c = self.bump()?;
        let sig = match c {
            b'q' => return Err(TextError { kind: TextErrorKind::ReservedCode('q'), position: start }),
            c if is_primitive(c) => Signature::Primitive(c),
            b'C' | b'D' => {
                let letter = self.peek().filter(u8::is_ascii_lowercase).ok_or_else(|| self.unexpected())?;
                let ok = if c == b'C' { is_c_extended(letter) } else { is_d_extended(letter) };
                if !ok {
                    return Err(TextError { kind: TextErrorKind::ReservedCode(char::from(c)), position: start });
                }
                self.pos += 1;
                if c == b'C' {
                    Signature::CExtended(letter)
                } else {
                    Signature::DExtended(letter)
                }
            }
            b'A' => match self.peek() {
                Some(b'0'..=b'9') => {
                    let digits_at = self.pos;
                    let len = self.text.as_bytes()[digits_at..].iter().take_while(|b| b.is_ascii_digit()).count();
                    let digits = &self.text[digits_at..digits_at + len];
                    let size = digits
                        .parse::<u64>()
                        .ok()
                        .filter(|_| len == 1 || !digits.starts_with('0'))
                        .ok_or(TextError { kind: TextErrorKind::BadArraySize, position: digits_at })?;
                    self.pos += len;
                    self.expect(b';')?;
                    Signature::Array { size, element: self.inner(depth)? }
                }
                Some(letter) => match ClassModifier::from_letter(letter) {
                    Some(modifier) => {
                        self.pos += 1;
                        Signature::Modified { modifier, inner: self.inner(depth)? }
                    }
                    None => return Err(self.unexpected()),
                },
                None => return Err(self.error(TextErrorKind::UnexpectedEnd)),
            },
            b'L' => Signature::TagClass(self.name()?),
            b'P' => Signature::Pointer(self.inner(depth)?),
            b'Q' => Signature::TagArray(self.inner(depth)?),
            b'R' => Signature::Reference(self.inner(depth)?),
            b'W' => Signature::WidePointer(self.inner(depth)?),
            b'X' => Signature::Named(self.name()?),
            b'U' => {
                let name = self.name()?;
                match name.strip_prefix("cc.") {
                    Some(cc) => {
                        if cc.is_empty() {
                            return Err(TextError { kind: TextErrorKind::EmptyName, position: start + 4 });
                        }
                        if self.peek() != Some(b'(') {
                            return Err(self.error(TextErrorKind::ConventionWithoutFunction));
                        }
                        self.pos += 1;
                        self.function(Some(cc.to_owned()), depth)?
                    }
                    None => Signature::Extended(name),
                }
            }
            b'(' => self.function(None, depth)?,
            _ => {
                self.pos = start;
                return Err(self.unexpected());
            }
        };
        Ok(sig)
    }

    /// The rest of a function signature after its `(` (B40).
    fn function(&mut self, convention: Option<String>, depth: u32) -> Result<Signature, TextError> {
        let mut params = Vec::new();
        let mut varargs_at = None;
        while self.peek() != Some(b')') {
            let at = self.pos;
            if let Some(position) = varargs_at {
                return Err(TextError { kind: TextErrorKind::VarargsNotLast, position });
            }
            let param = self.sig(depth + 1)?;
            match param {
                Signature::Primitive(b'v') => {
                    return Err(TextError { kind: TextErrorKind::VoidParameter, position: at });
                }
                Signature::Primitive(b'z') => varargs_at = Some(at),
                _ => {}
            }
            params.push(param);
        }
        self.pos += 1;
        Ok(Signature::Function { convention, params, ret: self.inner(depth)? })
    }
}

/// Parses `name ";"` at `*pos`, leaving `*pos` after the `;`.
pub(crate) fn parse_name(text: &str, pos: &mut usize) -> Result<String, TextError> {
    let start = *pos;
    let Some(len) = text[start..].find(';') else {
        return Err(TextError { kind: TextErrorKind::UnexpectedEnd, position: text.len() });
    };
    let name = &text[start..start + len];
    if name.is_empty() {
        return Err(TextError { kind: TextErrorKind::EmptyName, position: start });
    }
    if let Some(nul) = name.find('\0') {
        return Err(TextError { kind: TextErrorKind::NulInName, position: start + nul });
    }
    *pos = start + len + 1;
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(text: &str) -> Signature {
        let sig = Signature::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(sig.to_string(), text);
        sig
    }

    fn fails(text: &str, kind: TextErrorKind, position: usize) {
        assert_eq!(Signature::parse(text), Err(TextError { kind, position }), "{text}");
    }

    #[test]
    fn every_construct_round_trips() {
        for text in [
            "i",
            "v",
            "z",
            "Cs",
            "Cz",
            "Dz",
            "Dn",
            "A2;A3;i",
            "A0;i",
            "AfPi",
            "Awb",
            "Lfoo.Bar;",
            "Pi",
            "PPv",
            "Qx",
            "Rd",
            "Ui1;",
            "Uu1;",
            "Wc",
            "X$1;",
            "()v",
            "(ii)i",
            "(Pcz)i",
            "Ucc.sysv64;(x)y",
            "P(A4;i)v",
            "PUcc.sysv64;()v",
            "(P(i)v)P(x)v",
            "XUnicodé name;",
        ] {
            round(text);
        }
        assert_eq!(
            round("A2;Pi"),
            Signature::Array { size: 2, element: Box::new(Signature::Primitive(b'i').pointer()) }
        );
        assert_eq!(
            round("Ucc.sysv64;(i)v"),
            Signature::Function {
                convention: Some("sysv64".into()),
                params: vec![Signature::Primitive(b'i')],
                ret: Box::new(Signature::Primitive(b'v')),
            }
        );
    }

    #[test]
    fn grammar_errors() {
        fails("", TextErrorKind::UnexpectedEnd, 0);
        fails("q", TextErrorKind::ReservedCode('q'), 0);
        fails("Cl", TextErrorKind::ReservedCode('C'), 0);
        fails("Ct", TextErrorKind::ReservedCode('C'), 0);
        fails("Dq", TextErrorKind::ReservedCode('D'), 0);
        fails("CA", TextErrorKind::UnexpectedChar('A'), 1);
        fails("ii", TextErrorKind::TrailingCharacters, 1);
        fails("A01;i", TextErrorKind::BadArraySize, 1);
        fails("A99999999999999999999;i", TextErrorKind::BadArraySize, 1);
        fails("A2i", TextErrorKind::UnexpectedChar('i'), 2);
        fails("Aq", TextErrorKind::UnexpectedChar('q'), 1);
        fails("X;", TextErrorKind::EmptyName, 1);
        fails("Xabc", TextErrorKind::UnexpectedEnd, 4);
        fails("Xa\0b;", TextErrorKind::NulInName, 2);
        fails("(zi)v", TextErrorKind::VarargsNotLast, 1);
        fails("(iv)v", TextErrorKind::VoidParameter, 2);
        fails("(i", TextErrorKind::UnexpectedEnd, 2);
        fails("Ucc.sysv64;i", TextErrorKind::ConventionWithoutFunction, 11);
        fails("Ucc.;()v", TextErrorKind::EmptyName, 4);
        fails("E", TextErrorKind::UnexpectedChar('E'), 0);
        fails("Pé", TextErrorKind::UnexpectedChar('é'), 1);
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}i", "P".repeat(200));
        fails(&deep, TextErrorKind::TooDeep(128), 128);
        let limits = Limits { max_signature_depth: 256, ..Limits::default() };
        assert!(Signature::parse_with_limits(&deep, &limits).is_ok());
        let nested = |n: usize| format!("{}{}", "(".repeat(n), ")v".repeat(n));
        assert!(Signature::parse(&nested(100)).is_ok());
        assert_eq!(Signature::parse(&nested(200)).unwrap_err().kind, TextErrorKind::TooDeep(128));
    }
}
