//! Type IDs in VOPs (`fr2e.md` A9): a UVLI32 word that is a string index (a signature), a simple type (pointer level
//! and base code), or a repeat of the type MTF.
//!
//! The type MTF holds signature *text*, so both spellings of one type are one entry (B56). The model therefore keeps
//! types normalised: a string index whose text has a simple form is decoded as [`VopType::Simple`], and the writer
//! emits the simple form whenever there is one (canonical, A9). Two table strings with the same text are distinct
//! [`VopType::Signature`]s; canonical tables have no duplicates, so this only matters for foreign tables, where the
//! encoder may then write a literal where a repeat was possible (still decoding to the same type).

use super::error::{ErrorKind, FormatError, WriteError};
use super::limits::MAX_SIMPLE_TYPE_LEVEL;
use super::mtf::MtfItem;
use super::reader::Reader;
use super::strings::StringTable;
use super::vli::write_uvli32;

/// A type operand of a VOP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VopType {
    /// `level` pointer levels (0-15) over the primitive with base code `base` (A9 table, B54, B55).
    Simple { level: u8, base: u8 },
    /// A string index (at least 2): the text is a type signature with no simple form.
    Signature(u32),
}

/// The signature letters of the simple base codes (A9, B54); `None` marks reserved codes.
const SIMPLE_BASES: [Option<&str>; 0x18] = [
    Some("i"),
    Some("x"),
    Some("f"),
    Some("d"),
    None,
    Some("v"),
    None,
    Some("l"),
    Some("a"),
    Some("h"),
    Some("s"),
    Some("t"),
    Some("j"),
    Some("y"),
    Some("m"),
    None,
    Some("n"),
    Some("o"),
    Some("g"),
    Some("k"),
    Some("r"),
    Some("z"),
    Some("Dz"),
    Some("u"),
];

/// The signature of simple base `code`, or `None` for reserved codes.
pub fn simple_base_signature(code: u8) -> Option<&'static str> {
    SIMPLE_BASES.get(usize::from(code)).copied().flatten()
}

/// Base code + 1 of each one-letter simple base, by letter; 0 for letters that are not one.
const LETTER_CODES: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut code = 0;
    while code < SIMPLE_BASES.len() {
        if let Some(s) = SIMPLE_BASES[code] {
            if s.len() == 1 {
                table[s.as_bytes()[0] as usize] = code as u8 + 1;
            }
        }
        code += 1;
    }
    table
};

/// The simple form `(level, base)` of a signature text, if it has one: up to 15 `P`s and a base letter.
#[inline]
pub fn simple_form(text: &[u8]) -> Option<(u8, u8)> {
    let level = text.iter().take_while(|&&b| b == b'P').count();
    if level > usize::from(MAX_SIMPLE_TYPE_LEVEL) {
        return None;
    }
    let code = match &text[level..] {
        &[letter] => LETTER_CODES.get(usize::from(letter)).copied().filter(|&c| c != 0)? - 1,
        b"Dz" => 0x16,
        _ => return None,
    };
    Some((level as u8, code))
}

impl MtfItem for VopType {
    #[inline]
    fn key(&self) -> u32 {
        match *self {
            VopType::Simple { level, base } => (u32::from(level) << 8 | u32::from(base)) << 1 | 1,
            VopType::Signature(i) => i << 1,
        }
    }
}

impl VopType {
    /// The signature text of the type: `"P" × level + base` for simple types, the table string otherwise.
    pub fn signature(&self, strings: &StringTable) -> Option<String> {
        match *self {
            VopType::Simple { level, base } => Some("P".repeat(usize::from(level)) + simple_base_signature(base)?),
            VopType::Signature(i) => {
                strings.bytes(u64::from(i)).and_then(|b| std::str::from_utf8(b).ok()).map(str::to_owned)
            }
        }
    }

    /// The type in normal form: a signature with a simple form becomes [`VopType::Simple`].
    pub fn normalize(self, strings: &StringTable) -> VopType {
        match self {
            VopType::Signature(i) => match strings.bytes(u64::from(i)).and_then(simple_form) {
                Some((level, base)) => VopType::Simple { level, base },
                None => self,
            },
            simple => simple,
        }
    }

    /// Appends the literal form of a normalised type.
    pub(crate) fn write(&self, out: &mut Vec<u8>, strings: &StringTable) -> Result<(), WriteError> {
        match *self {
            VopType::Simple { level, base } => {
                if level > MAX_SIMPLE_TYPE_LEVEL || simple_base_signature(base).is_none() {
                    return Err(WriteError::OutOfRange {
                        what: "simple type",
                        value: i128::from(level) << 8 | i128::from(base),
                    });
                }
                write_uvli32(out, (u32::from(level) << 8 | u32::from(base)) << 2 | 1);
            }
            VopType::Signature(i) => {
                if i < 2 || !strings.contains(u64::from(i)) || i >= 1 << 31 {
                    return Err(WriteError::StringIndexOutOfRange { index: i.into(), count: strings.count() });
                }
                write_uvli32(out, i << 1);
            }
        }
        Ok(())
    }

    /// Appends a repeat of type-MTF entry `index`.
    pub(crate) fn write_repeat(out: &mut Vec<u8>, index: usize) {
        write_uvli32(out, Self::repeat_word(index));
    }

    /// The type word of a repeat of type-MTF entry `index` (below 32): the repeat tag `11` (A9).
    #[inline(always)]
    pub(crate) const fn repeat_word(index: usize) -> u32 {
        (index as u32) << 2 | 3
    }
}

/// A decoded type word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeWord {
    /// `...11`: entry `index` of the type MTF.
    Repeat(u32),
    /// A string index or a simple type, normalised.
    Type(VopType),
}

impl TypeWord {
    /// Reads one type word; string indices must be table strings (B57), simple codes must be defined.
    #[inline(always)]
    pub fn read(r: &mut Reader<'_>, strings: &StringTable) -> Result<TypeWord, FormatError> {
        let at = r.offset();
        let w = r.uvli32()?;
        if Self::is_repeat(w) {
            return Ok(TypeWord::Repeat(w >> 2));
        }
        Self::decode(w, strings, at).map(TypeWord::Type)
    }

    /// Whether word `w` is a repeat (`...11`), of type-MTF entry `w >> 2`.
    #[inline(always)]
    pub(crate) fn is_repeat(w: u32) -> bool {
        w & 3 == 3
    }

    /// The type of any word but a repeat, read at `at`.
    #[inline(always)]
    pub(crate) fn decode(w: u32, strings: &StringTable, at: u64) -> Result<VopType, FormatError> {
        if w & 1 == 0 {
            return Self::string(w >> 1, strings, at);
        }
        let code = w >> 2;
        let (level, base) = ((code >> 8) as u8, code as u8);
        if code >> 12 != 0 || simple_base_signature(base).is_none() {
            return Err(FormatError::new(ErrorKind::ReservedSimpleType { code }, at));
        }
        Ok(VopType::Simple { level, base })
    }

    /// A string-index type word, read at `at`.
    fn string(index: u32, strings: &StringTable, at: u64) -> Result<VopType, FormatError> {
        if index < 2 || !strings.contains(index.into()) {
            return Err(FormatError::new(ErrorKind::InvalidTypeIndex { index: index.into() }, at));
        }
        Ok(VopType::Signature(index).normalize(strings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::StringTableBuilder;

    /// A9's examples: `i` is `01`, `x` is `05`, `Pi` is `84 01`, `PPv` is `88 15`.
    #[test]
    fn simple_examples() {
        let strings = StringTable::default();
        for (text, bytes) in [("i", &[0x01][..]), ("x", &[0x05]), ("Pi", &[0x84, 0x01]), ("PPv", &[0x88, 0x15])] {
            let (level, base) = simple_form(text.as_bytes()).unwrap();
            let ty = VopType::Simple { level, base };
            assert_eq!(ty.signature(&strings).unwrap(), text);
            let mut out = Vec::new();
            ty.write(&mut out, &strings).unwrap();
            assert_eq!(out, bytes);
            assert_eq!(TypeWord::read(&mut Reader::new(bytes, 0), &strings).unwrap(), TypeWord::Type(ty));
        }
        assert_eq!(simple_form(b"PDz"), Some((1, 0x16)));
        assert_eq!(simple_form(b"b"), None);
        assert_eq!(simple_form(b"PPPPPPPPPPPPPPPPi"), None);
        assert_eq!(simple_form(b"PPPPPPPPPPPPPPPi"), Some((15, 0)));
    }

    #[test]
    fn string_types_normalise() {
        let mut b = StringTableBuilder::new();
        assert_eq!(b.intern("b"), 2);
        assert_eq!(b.intern("Pi"), 3);
        let strings = b.finish();
        let read = |bytes: &[u8]| TypeWord::read(&mut Reader::new(bytes, 0), &strings);
        assert_eq!(read(&[0x04]).unwrap(), TypeWord::Type(VopType::Signature(2)));
        // "Pi" through the table is the same type as the simple form (B56).
        assert_eq!(read(&[0x06]).unwrap(), TypeWord::Type(VopType::Simple { level: 1, base: 0 }));
        assert_eq!(read(&[0x07]).unwrap(), TypeWord::Repeat(1));
        // Indices 0 and 1 are not types (B57); 4 is beyond the table.
        for (bytes, index) in [([0x00], 0), ([0x02], 1), ([0x08], 4)] {
            assert_eq!(read(&bytes).unwrap_err().kind, ErrorKind::InvalidTypeIndex { index });
        }
        for code in [0x04u32, 0x06, 0x0F, 0x18, 0x1000] {
            let mut bytes = Vec::new();
            write_uvli32(&mut bytes, code << 2 | 1);
            assert_eq!(read(&bytes).unwrap_err().kind, ErrorKind::ReservedSimpleType { code });
        }
    }
}
