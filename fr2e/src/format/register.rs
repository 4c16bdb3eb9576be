//! Register IDs (`fr2e.md` A10): a UVLI64 word whose low bits select the kind, and for the raw constant forms one or
//! two SVLIs after it.
//!
//! [`Register`] is the *logical* register: kind, numbers and constant value, exactly what the register MTF stores
//! (A10.4, A13). Every coded form has its own variant (the `1001` integer, the `10011` long and the raw long are
//! different variants even for equal values), so the model says which form is written; choosing the form for a value
//! is the mapping layer's job (C7). The repeat tag is not a register: it is read as [`RegisterWord::Repeat`] and
//! resolved by the VOP decoder, and refused where a register ID is context-free (the GV `v` attribute, B30).

use super::error::{ErrorKind, FormatError, WriteError};
use super::limits::{INT_CONSTANT_PAYLOAD_LIMIT, LONG_CONSTANT_PAYLOAD_LIMIT, SUBTYPE_CONSTANT_PAYLOAD_LIMIT};
use super::mtf::{fold_key, MtfItem};
use super::reader::Reader;
use super::strings::{check_index, StringTable};
use super::vli::{compact, deinterleave, fold, interleave, unfold, write_svli, write_uvli64};

/// A logical register (A10.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Register {
    /// `...010`: temporary `base`, version `seq`.
    Temporary { base: u32, seq: u32 },
    /// `...100`: argument `base`, version `seq`.
    Arg { base: u32, seq: u32 },
    /// `...110`: local `base`, version `seq`.
    Local { base: u32, seq: u32 },
    /// `..0001`: a GBLD entry, the variable or function itself (B66).
    Global(u64),
    /// `..0101`: a LITD entry.
    Literal(u64),
    /// `..1001`: an `int` constant; its folded form must stay below 2^60 (A10.3).
    Int(i64),
    /// `..1101`: a string-table index, a `char *` literal.
    String(u64),
    /// `.00011`: the address of a GBLD entry (B66).
    GlobalAddress(u64),
    /// `.01011`: a constant with a 4-bit subtype; the folded value must stay below 2^55 (A10.2).
    Subtyped { subtype: Subtype, value: i64 },
    /// `.10011`: a `long long` constant inline; its folded form must stay below 2^59 (A10.3).
    Long(i64),
    /// `.11011`: a wide-string table index.
    WideString(u64),
    /// `000111`: a path inside `this`: `field`, `levels` up from the current class.
    This { field: u32, levels: u32 },
    /// `0001111` + SVLI: a raw `long long` constant.
    RawLong(i64),
    /// `0101111` + SVLI: a raw `double`, its IEEE-754 bits (B62).
    RawDouble(u64),
    /// `1001111` + SVLI low + SVLI high: a raw 128-bit integer (B16, B62).
    RawInt128 { low: i64, high: i64 },
    /// `1101111` + SVLI low + SVLI high: a raw 128-bit float.
    RawFloat128 { low: i64, high: i64 },
}

/// The 4-bit subtype of a subtyped integer constant (A10.2); 8 to 11 are reserved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Subtype {
    /// `int32_t`.
    Int32 = 0,
    /// `uint32_t`.
    UInt32 = 1,
    /// `int64_t`.
    Int64 = 2,
    /// `uint64_t`.
    UInt64 = 3,
    /// `int8_t`.
    Int8 = 4,
    /// `uint8_t`.
    UInt8 = 5,
    /// `int16_t`.
    Int16 = 6,
    /// `uint16_t`.
    UInt16 = 7,
    /// The binary32 bits of a `float`, read as an `i32`.
    Float32 = 12,
    /// The binary32 bits of a `double` that float32 holds exactly (B61).
    Float32AsDouble = 13,
    /// The binary16 bits of a `float`, read as an `i16`.
    Float16 = 14,
    /// The binary16 bits of a `double` that binary16 holds exactly.
    Float16AsDouble = 15,
}

impl Subtype {
    /// The subtype with code `code`, or `None` for the reserved codes 8-11 and codes above 15.
    pub const fn from_code(code: u8) -> Option<Subtype> {
        Some(match code {
            0 => Subtype::Int32,
            1 => Subtype::UInt32,
            2 => Subtype::Int64,
            3 => Subtype::UInt64,
            4 => Subtype::Int8,
            5 => Subtype::UInt8,
            6 => Subtype::Int16,
            7 => Subtype::UInt16,
            12 => Subtype::Float32,
            13 => Subtype::Float32AsDouble,
            14 => Subtype::Float16,
            15 => Subtype::Float16AsDouble,
            _ => return None,
        })
    }
}

/// A decoded register word: a repeat of the register MTF, or a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterWord {
    /// `...000`: entry `index` of the register MTF.
    Repeat(u64),
    /// Any other form.
    Register(Register),
}

impl RegisterWord {
    /// Reads one register word and, for the raw forms, the SVLIs after it. String indices are checked against
    /// `strings`.
    #[inline]
    pub fn read(r: &mut Reader<'_>, strings: &StringTable) -> Result<RegisterWord, FormatError> {
        let at = r.offset();
        let w = r.uvli64()?;
        // The common words inline: repeats and unversioned temporaries and arguments.
        let odd_bits = (w >> 3) & 0xAAAA_AAAA_AAAA_AAAA;
        match w & 7 {
            0 => return Ok(RegisterWord::Repeat(w >> 3)),
            2 if odd_bits == 0 => {
                return Ok(RegisterWord::Register(Register::Temporary { base: compact(w >> 3), seq: 0 }))
            }
            4 if odd_bits == 0 => return Ok(RegisterWord::Register(Register::Arg { base: compact(w >> 3), seq: 0 })),
            _ => {}
        }
        Self::decode(w, r, strings, at).map(RegisterWord::Register)
    }

    /// The register of any word but a repeat (`w & 7 != 0`), read at `at`; raw constants read their SVLIs from `r`.
    pub(crate) fn decode(w: u64, r: &mut Reader<'_>, strings: &StringTable, at: u64) -> Result<Register, FormatError> {
        let fail = |kind| Err(FormatError::new(kind, at));
        let sequenced = |w: u64| {
            let (seq, base) = deinterleave(w >> 3);
            (base, seq)
        };
        let register = match w & 7 {
            2 => {
                let (base, seq) = sequenced(w);
                Register::Temporary { base, seq }
            }
            4 => {
                let (base, seq) = sequenced(w);
                Register::Arg { base, seq }
            }
            6 => {
                let (base, seq) = sequenced(w);
                Register::Local { base, seq }
            }
            _ => match w & 0xF {
                0x0 | 0x8 => return fail(ErrorKind::ReservedRegister { word: w }),
                0x1 => Register::Global(w >> 4),
                0x5 => Register::Literal(w >> 4),
                0x9 => Register::Int(unfold(w >> 4)),
                0xD => {
                    let index = w >> 4;
                    if !strings.contains(index) {
                        return fail(ErrorKind::StringIndexOutOfRange { index, count: strings.count() });
                    }
                    Register::String(index)
                }
                0x3 | 0xB => match w & 0x1F {
                    0x03 => Register::GlobalAddress(w >> 5),
                    0x0B => {
                        let code = ((w >> 5) & 0xF) as u8;
                        let Some(subtype) = Subtype::from_code(code) else {
                            return fail(ErrorKind::ReservedSubtype { subtype: code });
                        };
                        Register::Subtyped { subtype, value: unfold(w >> 9) }
                    }
                    0x13 => Register::Long(unfold(w >> 5)),
                    _ => Register::WideString(w >> 5),
                },
                0x7 => match w & 0x3F {
                    0x07 => {
                        let (levels, field) = deinterleave(w >> 6);
                        Register::This { field, levels }
                    }
                    _ => return fail(ErrorKind::ReservedRegister { word: w }),
                },
                _ => {
                    // Low four bits 1111: raw constants, with bit 4 clear and nothing above bit 6 (B62, B63).
                    if w & 0x10 != 0 {
                        return fail(ErrorKind::ReservedRegister { word: w });
                    }
                    if w >> 7 != 0 {
                        return fail(ErrorKind::RawRegisterHighBits { word: w });
                    }
                    match w >> 5 {
                        0 => Register::RawLong(r.svli()?),
                        1 => Register::RawDouble(r.svli()? as u64),
                        2 => Register::RawInt128 { low: r.svli()?, high: r.svli()? },
                        _ => Register::RawFloat128 { low: r.svli()?, high: r.svli()? },
                    }
                }
            },
        };
        Ok(register)
    }
}

impl MtfItem for Register {
    #[inline]
    fn key(&self) -> u32 {
        let (kind, payload) = match *self {
            Register::Temporary { base, seq } => (0, u64::from(base) | u64::from(seq) << 32),
            Register::Arg { base, seq } => (1, u64::from(base) | u64::from(seq) << 32),
            Register::Local { base, seq } => (2, u64::from(base) | u64::from(seq) << 32),
            Register::Global(i) => (3, i),
            Register::Literal(i) => (4, i),
            Register::Int(v) => (5, v as u64),
            Register::String(i) => (6, i),
            Register::GlobalAddress(i) => (7, i),
            Register::Subtyped { subtype, value } => (8 + subtype as u64, value as u64),
            Register::Long(v) => (24, v as u64),
            Register::WideString(i) => (25, i),
            Register::This { field, levels } => (26, u64::from(field) | u64::from(levels) << 32),
            Register::RawLong(v) => (27, v as u64),
            Register::RawDouble(bits) => (28, bits),
            Register::RawInt128 { low, high } => (29, (low ^ high.rotate_left(17)) as u64),
            Register::RawFloat128 { low, high } => (30, (low ^ high.rotate_left(17)) as u64),
        };
        // The kind in the top bits keeps small numbers of different kinds apart.
        fold_key(payload) ^ (kind as u32) << 27
    }
}

/// `SPREAD[b]`: the bits of byte `b` moved to the even bits of 16, for [`spread_base`].
const SPREAD: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = interleave(0, b as u32) as u16;
        b += 1;
    }
    table
};

/// `interleave(0, base)`, the word of an unversioned register, by table: four lookups instead of five
/// shift-and-mask rounds (writers produce one per register literal).
#[inline(always)]
fn spread_base(base: u32) -> u64 {
    let [b0, b1, b2, b3] = base.to_le_bytes();
    let word = u64::from(SPREAD[usize::from(b0)])
        | u64::from(SPREAD[usize::from(b1)]) << 16
        | u64::from(SPREAD[usize::from(b2)]) << 32
        | u64::from(SPREAD[usize::from(b3)]) << 48;
    debug_assert_eq!(word, interleave(0, base));
    word
}

impl Register {
    /// Reads a context-free register ID (outside `vops`): the repeat tag is an error there (A10.4, B30).
    pub fn read_context_free(r: &mut Reader<'_>, strings: &StringTable) -> Result<Register, FormatError> {
        let at = r.offset();
        match RegisterWord::read(r, strings)? {
            RegisterWord::Register(register) => Ok(register),
            RegisterWord::Repeat(_) => Err(FormatError::new(ErrorKind::RepeatOutsideVops, at)),
        }
    }

    /// Appends the register's own form (never a repeat), checking every payload limit of A10.2-A10.3 and string
    /// indices against `strings`.
    #[inline(always)]
    pub fn write(&self, out: &mut Vec<u8>, strings: &StringTable) -> Result<(), WriteError> {
        match self.write_common_word() {
            Some(word) => write_uvli64(out, word),
            None => return self.write_other(out, strings),
        }
        Ok(())
    }

    /// The UVLI64 word [`write`](Self::write) appends for the common registers, unversioned temporaries and
    /// arguments (`interleave(0, base) << 3 | tag`); `None` for every other register.
    #[inline(always)]
    pub fn write_common_word(&self) -> Option<u64> {
        match *self {
            Register::Temporary { base, seq: 0 } if base < 1 << 31 => Some(spread_base(base) << 3 | 2),
            Register::Arg { base, seq: 0 } if base < 1 << 31 => Some(spread_base(base) << 3 | 4),
            _ => None,
        }
    }

    /// [`write`](Self::write) for every register but the unversioned temporaries and arguments.
    #[inline(never)]
    fn write_other(&self, out: &mut Vec<u8>, strings: &StringTable) -> Result<(), WriteError> {
        let range = |what: &'static str, value: i128| WriteError::OutOfRange { what, value };
        let below = |what: &'static str, value: u64, limit: u64| {
            if value < limit {
                Ok(value)
            } else {
                Err(range(what, value.into()))
            }
        };
        let sequenced = |what: &'static str, base: u32, seq: u32, tag: u64| -> Result<u64, WriteError> {
            // The word has 61 payload bits: the sequence gets 30 and the base 31.
            if seq >= 1 << 30 || base >= 1 << 31 {
                return Err(range(what, i128::from(seq.max(base))));
            }
            Ok(interleave(seq, base) << 3 | tag)
        };
        let word = match *self {
            Register::Temporary { base, seq } => sequenced("temporary register", base, seq, 2)?,
            Register::Arg { base, seq } => sequenced("argument register", base, seq, 4)?,
            Register::Local { base, seq } => sequenced("local register", base, seq, 6)?,
            Register::Global(i) => below("global index", i, 1 << 60)? << 4 | 0x1,
            Register::Literal(i) => below("literal index", i, 1 << 60)? << 4 | 0x5,
            Register::Int(v) => below("int constant", fold(v), INT_CONSTANT_PAYLOAD_LIMIT)? << 4 | 0x9,
            Register::String(i) => {
                check_index(i, strings)?;
                i << 4 | 0xD
            }
            Register::GlobalAddress(i) => below("global address", i, 1 << 59)? << 5 | 0x03,
            Register::Subtyped { subtype, value } => {
                let zz = below("subtyped constant", fold(value), SUBTYPE_CONSTANT_PAYLOAD_LIMIT)?;
                zz << 9 | u64::from(subtype as u8) << 5 | 0x0B
            }
            Register::Long(v) => below("long constant", fold(v), LONG_CONSTANT_PAYLOAD_LIMIT)? << 5 | 0x13,
            Register::WideString(i) => below("wide-string index", i, 1 << 59)? << 5 | 0x1B,
            Register::This { field, levels } => {
                // 58 payload bits: 29 for each half.
                if field >= 1 << 29 || levels >= 1 << 29 {
                    return Err(range("'this' register", i128::from(field.max(levels))));
                }
                interleave(levels, field) << 6 | 0x07
            }
            Register::RawLong(v) => {
                out.push(0x0F);
                write_svli(out, v);
                return Ok(());
            }
            Register::RawDouble(bits) => {
                out.push(0x2F);
                write_svli(out, bits as i64);
                return Ok(());
            }
            Register::RawInt128 { low, high } | Register::RawFloat128 { low, high } => {
                out.push(if matches!(self, Register::RawInt128 { .. }) { 0x4F } else { 0x6F });
                write_svli(out, low);
                write_svli(out, high);
                return Ok(());
            }
        };
        write_uvli64(out, word);
        Ok(())
    }

    /// Appends a repeat of register-MTF entry `index`.
    #[inline]
    pub fn write_repeat(out: &mut Vec<u8>, index: usize) {
        write_uvli64(out, Self::write_repeat_word(index));
    }

    /// The UVLI64 word of a repeat of register-MTF entry `index`.
    #[inline(always)]
    pub fn write_repeat_word(index: usize) -> u64 {
        (index as u64) << 3
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::StringTableBuilder;

    fn strings() -> StringTable {
        let mut b = StringTableBuilder::new();
        for s in ["s2", "s3", "s4", "s5"] {
            b.intern(s);
        }
        b.finish()
    }

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect()
    }

    /// The examples of A10.1, byte for byte, both ways.
    #[test]
    fn worked_examples() {
        let strings = strings();
        let cases: &[(Register, &str)] = &[
            (Register::Temporary { base: 0, seq: 0 }, "02"),
            (Register::Temporary { base: 1, seq: 0 }, "0A"),
            (Register::Temporary { base: 0, seq: 1 }, "12"),
            (Register::Temporary { base: 3, seq: 2 }, "6A"),
            (Register::Arg { base: 2, seq: 0 }, "24"),
            (Register::Local { base: 1, seq: 0 }, "0E"),
            (Register::Global(3), "31"),
            (Register::Literal(2), "25"),
            (Register::Int(-1), "19"),
            (Register::Int(100), "8C 89"),
            (Register::String(5), "5D"),
            (Register::GlobalAddress(2), "43"),
            (Register::Subtyped { subtype: Subtype::Int32, value: -3 }, "8A 0B"),
            (
                Register::Subtyped { subtype: Subtype::Float32, value: 1.0f32.to_bits() as i32 as i64 },
                "F8 FE 00 00 01 8B",
            ),
            (Register::Long(1 << 40), "FC 40 00 00 00 00 13"),
            (Register::This { field: 2, levels: 1 }, "81 87"),
            (Register::RawInt128 { low: 5, high: -1 }, "4F 0A 01"),
            (Register::RawLong(-2), "0F 03"),
            (Register::RawDouble(1.0f64.to_bits()), "2F FF 7F E0 00 00 00 00 00 00"),
            (Register::RawFloat128 { low: 0, high: 1 }, "6F 00 02"),
            (Register::WideString(1), "3B"),
        ];
        for &(register, form) in cases {
            let mut out = Vec::new();
            register.write(&mut out, &strings).unwrap();
            assert_eq!(out, hex(form), "{register:?}");
            let mut r = Reader::new(&out, 0);
            assert_eq!(Register::read_context_free(&mut r, &strings).unwrap(), register);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn repeat_and_reserved_forms() {
        let strings = strings();
        let read = |bytes: &[u8]| RegisterWord::read(&mut Reader::new(bytes, 0), &strings);
        assert_eq!(read(&[0x18]).unwrap(), RegisterWord::Repeat(3));
        let mut out = Vec::new();
        Register::write_repeat(&mut out, 3);
        assert_eq!(out, [0x18]);
        assert_eq!(
            Register::read_context_free(&mut Reader::new(&[0x18], 4), &strings).unwrap_err(),
            FormatError::new(ErrorKind::RepeatOutsideVops, 4)
        );
        // B63: x010111, x100111, x110111 and the four x11111 patterns are reserved.
        for word in [0x17u8, 0x27, 0x37, 0x1F, 0x3F, 0x5F, 0x7F] {
            assert_eq!(read(&[word]).unwrap_err().kind, ErrorKind::ReservedRegister { word: word.into() });
        }
        // B62: bits above bit 6 of a raw form must be zero.
        assert_eq!(read(&[0x80, 0x8F, 0]).unwrap_err().kind, ErrorKind::RawRegisterHighBits { word: 0x8F });
        // Subtypes 8 to 11 are reserved.
        assert_eq!(read(&[0x81, 0x0B]).unwrap_err().kind, ErrorKind::ReservedSubtype { subtype: 8 });
        // String 6 is beyond the table.
        assert_eq!(read(&[0x6D]).unwrap_err().kind, ErrorKind::StringIndexOutOfRange { index: 6, count: 6 });
        assert_eq!(read(&[0x4F, 0x0A]).unwrap_err().kind, ErrorKind::UnexpectedEof { needed: 1 });
    }

    #[test]
    fn writer_refuses_payloads_that_do_not_fit() {
        let strings = strings();
        let fails = |register: Register| register.write(&mut Vec::new(), &strings).is_err();
        assert!(fails(Register::Int(1 << 59)));
        assert!(!fails(Register::Int((1 << 59) - 1)));
        assert!(!fails(Register::Int(-(1 << 59))));
        assert!(fails(Register::Long(1 << 58)));
        assert!(fails(Register::Subtyped { subtype: Subtype::UInt64, value: 1 << 54 }));
        assert!(fails(Register::Temporary { base: 0, seq: 1 << 30 }));
        assert!(!fails(Register::Temporary { base: u32::MAX >> 1, seq: (1 << 30) - 1 }));
        assert!(fails(Register::Global(1 << 60)));
        assert!(fails(Register::String(6)));
        assert!(fails(Register::This { field: 1 << 29, levels: 0 }));
    }
}
