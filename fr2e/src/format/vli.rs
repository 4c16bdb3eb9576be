//! Variable-length integers (`fr2e.md` A4): UVLI in its 32-, 64- and 128-bit flavours, SVLI, OpVLI, and the
//! `yxyxyxyx` bit interleave.
//!
//! UVLIs are a UTF-8-like prefix code, **big-endian** (B13): the number of leading one bits of the first byte is the
//! number of bytes that follow. Decoders accept overlong forms and decode them to the same value (B17); encoders
//! always emit the shortest form, so `write(read(b)) == b` holds exactly for canonical input. The printed bounds of
//! the seed's UVLI64 table are wrong (B14, D1); the rows are defined by their bit patterns, as here.
//!
//! The one-byte case of every decoder stays inline; longer forms take a `#[cold]` path.

use super::error::{ErrorKind, FormatError};
use super::reader::Reader;

impl Reader<'_> {
    /// Reads a UVLI64 (A4.1).
    #[inline]
    pub fn uvli64(&mut self) -> Result<u64, FormatError> {
        let first = self.u8()?;
        if first < 0x80 {
            Ok(u64::from(first))
        } else {
            self.uvli64_slow(first)
        }
    }

    /// The codes of two to nine bytes: one big-endian load of the eight bytes after the first when they are there
    /// (a register or a temporary's number usually takes two to five bytes), else byte by byte.
    #[inline]
    fn uvli64_slow(&mut self, first: u8) -> Result<u64, FormatError> {
        let extra = first.leading_ones() as usize;
        if let Some(&window) = self.rest().first_chunk::<8>() {
            let tail = u64::from_be_bytes(window);
            self.skip(extra);
            // For 1..=7 extra bytes the first byte keeps 7 - extra value bits; for 8 it keeps none (A4.1).
            return Ok(if extra == 8 {
                tail
            } else {
                (u64::from(first & (0x7F >> extra)) << (8 * extra)) | (tail >> (64 - 8 * extra))
            });
        }
        self.uvli64_short(first, extra)
    }

    /// [`uvli64_slow`](Self::uvli64_slow) near the end of the data (chunk payloads often hold one short UVLI).
    fn uvli64_short(&mut self, first: u8, extra: usize) -> Result<u64, FormatError> {
        let tail = self.take(extra)?;
        // For 1..=7 extra bytes the first byte keeps 7 - extra value bits; for 8 it keeps none (A4.1).
        let mut value = u64::from(first) & (0x7F >> extra);
        for &b in tail {
            value = (value << 8) | u64::from(b);
        }
        Ok(value)
    }

    /// Reads a UVLI32 (A4.2): the UVLI64 code limited to values up to `u32::MAX`.
    #[inline]
    pub fn uvli32(&mut self) -> Result<u32, FormatError> {
        let start = self.offset();
        let value = self.uvli64()?;
        u32::try_from(value).map_err(|_| FormatError::new(ErrorKind::Uvli32Overflow { value }, start))
    }

    /// Reads an SVLI (A4.5): a zigzag-folded 64-bit value in UVLI64 form.
    #[inline]
    pub fn svli(&mut self) -> Result<i64, FormatError> {
        Ok(unfold(self.uvli64()?))
    }

    /// Reads a UVLI128 (A4.3), the pure prefix code. No FR2E field uses it (B16); it is here for completeness.
    pub fn uvli128(&mut self) -> Result<u128, FormatError> {
        let start = self.offset();
        // Count the prefix: n - 1 leading ones, then a zero, possibly spanning bytes.
        let mut ones = 0usize;
        let mut byte = self.u8()?;
        while byte == 0xFF {
            ones += 8;
            byte = self.u8()?;
        }
        let in_byte = byte.leading_ones() as usize;
        ones += in_byte;
        let total = ones + 1; // bytes in the code
        let consumed = ones / 8 + 1; // bytes read so far, the one holding the terminating zero included
        let tail = self.take(total.saturating_sub(consumed))?;
        // Value bits: the bits of `byte` after the terminating zero, then every byte of `tail`.
        let first_bits = 8 - (ones % 8) - 1;
        let mut value = u128::from(byte) & ((1u128 << first_bits) - 1);
        for &b in tail {
            if value >> 120 != 0 {
                return Err(FormatError::new(ErrorKind::Uvli128Overflow, start));
            }
            value = (value << 8) | u128::from(b);
        }
        Ok(value)
    }

    /// Reads an OpVLI (A4.6). No FR2E field uses it (B18); prefixes `FD`-`FF` are reserved.
    pub fn opvli(&mut self) -> Result<u32, FormatError> {
        let start = self.offset();
        let first = self.u8()?;
        let (extra, bits) = match first {
            0x00..=0xDF => return Ok(u32::from(first)),
            0xE0..=0xEF => (1, 0x0F),
            0xF0..=0xF7 => (2, 0x07),
            0xF8..=0xFB => (3, 0x03),
            0xFC => (4, 0x00),
            _ => return Err(FormatError::new(ErrorKind::ReservedOpVli { byte: first }, start)),
        };
        let mut value = u32::from(first & bits);
        for &b in self.take(extra)? {
            value = (value << 8) | u32::from(b);
        }
        Ok(value)
    }
}

/// Appends the shortest UVLI64 form of `value` (A4.1).
#[inline]
pub fn write_uvli64(out: &mut Vec<u8>, value: u64) {
    if value < 0x80 {
        out.push(value as u8);
    } else if value < 0x4000 {
        // `10` and 14 bits.
        out.extend_from_slice(&(value as u16 | 0x8000).to_be_bytes());
    } else {
        write_uvli64_slow(out, value);
    }
}

/// `UVLI64_LEN[z]`: the length of the shortest UVLI64 form of a value with `z` leading zero bits.
const UVLI64_LEN: [u8; 65] = {
    let mut table = [0u8; 65];
    let mut zeros = 0;
    while zeros <= 64 {
        let bits = 64 - zeros;
        table[zeros] = if bits > 56 {
            9
        } else if bits == 0 {
            1
        } else {
            bits.div_ceil(7) as u8
        };
        zeros += 1;
    }
    table
};

#[inline(never)]
fn write_uvli64_slow(out: &mut Vec<u8>, value: u64) {
    let bytes = usize::from(UVLI64_LEN[value.leading_zeros() as usize % 65]);
    debug_assert_eq!(bytes, uvli64_len(value));
    if bytes == 9 {
        out.push(0xFF);
        out.extend_from_slice(&value.to_be_bytes());
        return;
    }
    // Appending a fixed eight bytes and cutting the unused ones is cheaper than a variable-length copy.
    let at = out.len();
    out.extend_from_slice(&uvli64_word(value, bytes).to_be_bytes());
    out.truncate(at + bytes);
}

/// The shortest UVLI64 form of a `value` below 2^56 as a big-endian word and its length: the form's `len` bytes first,
/// then zeros, for writers that store a fixed eight bytes and advance by `len`.
#[inline(always)]
pub fn write_uvli64_word(value: u64) -> (u64, usize) {
    debug_assert!(value < 1 << 56);
    let bytes = usize::from(UVLI64_LEN[value.leading_zeros() as usize % 65]);
    (uvli64_word(value, bytes), bytes)
}

/// The `bytes`-byte UVLI64 form of `value` (below 9 bytes), aligned to the top of a word: `bytes - 1` leading ones,
/// then a zero (A4.1), above the value's big-endian bytes.
#[inline(always)]
fn uvli64_word(value: u64, bytes: usize) -> u64 {
    let marker = u64::from((0xFF00u16 >> (bytes - 1)) as u8) << (8 * (bytes - 1));
    (value | marker) << (8 * (8 - bytes))
}

/// Number of bytes of the shortest UVLI64 form of `value`.
pub fn uvli64_len(value: u64) -> usize {
    let bits = 64 - value.leading_zeros() as usize;
    if bits > 56 {
        9
    } else {
        bits.div_ceil(7).max(1)
    }
}

/// Appends the shortest UVLI32 form of `value` (A4.2); it is the UVLI64 form of the same number.
#[inline]
pub fn write_uvli32(out: &mut Vec<u8>, value: u32) {
    write_uvli64(out, u64::from(value));
}

/// Appends the SVLI form of `value` (A4.5).
#[inline]
pub fn write_svli(out: &mut Vec<u8>, value: i64) {
    write_uvli64(out, fold(value));
}

/// Appends the shortest UVLI128 form of `value` (A4.3).
pub fn write_uvli128(out: &mut Vec<u8>, value: u128) {
    let bits = 128 - value.leading_zeros() as usize;
    let bytes = bits.div_ceil(7).max(1);
    // Bit i of the code, counting from the most significant bit of the first byte.
    let code_bit = |i: usize| -> bool {
        if i + 1 < bytes {
            true
        } else if i + 1 == bytes {
            false
        } else {
            let value_bit = 7 * bytes - 1 - (i - bytes);
            value_bit < 128 && (value >> value_bit) & 1 == 1
        }
    };
    for byte in 0..bytes {
        let mut b = 0u8;
        for bit in 0..8 {
            b = (b << 1) | u8::from(code_bit(byte * 8 + bit));
        }
        out.push(b);
    }
}

/// Appends the shortest OpVLI form of `value` (A4.6).
pub fn write_opvli(out: &mut Vec<u8>, value: u32) {
    let be = value.to_be_bytes();
    match value {
        0..=0xDF => out.push(value as u8),
        0xE0..=0xFFF => out.extend_from_slice(&[0xE0 | be[2], be[3]]),
        0x1000..=0x7_FFFF => out.extend_from_slice(&[0xF0 | be[1], be[2], be[3]]),
        0x8_0000..=0x3FF_FFFF => out.extend_from_slice(&[0xF8 | be[0], be[1], be[2], be[3]]),
        _ => out.extend_from_slice(&[0xFC, be[0], be[1], be[2], be[3]]),
    }
}

/// Zigzag sign folding over 64-bit two's complement: 0, -1, 1, -2, … become 0, 1, 2, 3, … (A4.5, B19).
#[inline]
pub const fn fold(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// Inverse of [`fold`].
#[inline]
pub const fn unfold(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// Interleaves `y` into the odd bits and `x` into the even bits: `yxyxyxyx`, rightmost letter bit 0 (A4.7, B45).
#[inline]
pub const fn interleave(y: u32, x: u32) -> u64 {
    (spread(y) << 1) | spread(x)
}

/// Inverse of [`interleave`]: returns `(y, x)`, y from the odd bits and x from the even bits.
#[inline]
pub const fn deinterleave(value: u64) -> (u32, u32) {
    (compact(value >> 1), compact(value))
}

/// [`interleave`] for 64-bit halves (immediate tag 7 pairs, A11).
pub const fn interleave_wide(y: u64, x: u64) -> u128 {
    (spread_wide(y) << 1) | spread_wide(x)
}

/// Inverse of [`interleave_wide`]: returns `(y, x)`.
pub const fn deinterleave_wide(value: u128) -> (u64, u64) {
    (compact_wide(value >> 1), compact_wide(value))
}

const fn spread_wide(v: u64) -> u128 {
    ((spread((v >> 32) as u32) as u128) << 64) | spread(v as u32) as u128
}

const fn compact_wide(v: u128) -> u64 {
    ((compact((v >> 64) as u64) as u64) << 32) | compact(v as u64) as u64
}

/// Moves the 32 bits of `v` to the even bit positions of the result.
const fn spread(v: u32) -> u64 {
    let mut x = v as u64;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & 0x5555_5555_5555_5555
}

/// Gathers the even bits of `v` into 32 bits.
#[inline]
pub(crate) const fn compact(v: u64) -> u32 {
    let mut x = v & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    ((x | (x >> 16)) & 0xFFFF_FFFF) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        f(&mut out);
        out
    }

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect()
    }

    /// The worked examples of A4.4, byte for byte, in all three flavours.
    #[test]
    fn uvli_worked_examples() {
        let cases: &[(u128, Option<&str>, Option<&str>, &str)] = &[
            (0, Some("00"), Some("00"), "00"),
            (127, Some("7F"), Some("7F"), "7F"),
            (128, Some("80 80"), Some("80 80"), "80 80"),
            (16383, Some("BF FF"), Some("BF FF"), "BF FF"),
            (16384, Some("C0 40 00"), Some("C0 40 00"), "C0 40 00"),
            ((1 << 21) - 1, Some("DF FF FF"), Some("DF FF FF"), "DF FF FF"),
            (1 << 28, Some("F0 10 00 00 00"), Some("F0 10 00 00 00"), "F0 10 00 00 00"),
            ((1 << 32) - 1, Some("F0 FF FF FF FF"), Some("F0 FF FF FF FF"), "F0 FF FF FF FF"),
            // 2^35 fits no row of the seed's printed table (B14, D1).
            (1 << 35, None, Some("F8 08 00 00 00 00"), "F8 08 00 00 00 00"),
            (1 << 63, None, Some("FF 80 00 00 00 00 00 00 00"), "FF 80 80 00 00 00 00 00 00 00"),
            (u64::MAX as u128, None, Some("FF FF FF FF FF FF FF FF FF"), "FF 80 FF FF FF FF FF FF FF FF"),
        ];
        for &(value, u32_form, u64_form, u128_form) in cases {
            if let Some(form) = u32_form {
                let v = u32::try_from(value).unwrap();
                assert_eq!(bytes_of(|o| write_uvli32(o, v)), hex(form), "uvli32 {value}");
                assert_eq!(Reader::new(&hex(form), 0).uvli32().unwrap(), v);
            } else if let Some(form) = u64_form {
                assert_eq!(
                    Reader::new(&hex(form), 0).uvli32().unwrap_err().kind,
                    ErrorKind::Uvli32Overflow { value: value as u64 }
                );
            }
            if let Some(form) = u64_form {
                let v = u64::try_from(value).unwrap();
                assert_eq!(bytes_of(|o| write_uvli64(o, v)), hex(form), "uvli64 {value}");
                let bytes = hex(form);
                let mut r = Reader::new(&bytes, 0);
                assert_eq!(r.uvli64().unwrap(), v);
                assert!(r.is_empty());
                assert_eq!(uvli64_len(v), hex(form).len());
            }
            assert_eq!(bytes_of(|o| write_uvli128(o, value)), hex(u128_form), "uvli128 {value}");
            let bytes = hex(u128_form);
            let mut r = Reader::new(&bytes, 0);
            assert_eq!(r.uvli128().unwrap(), value);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn uvli_reads_overlong_forms() {
        // B17: 5 as a two-, five- and nine-byte form.
        for form in ["80 05", "F0 00 00 00 05", "FF 00 00 00 00 00 00 00 05"] {
            assert_eq!(Reader::new(&hex(form), 0).uvli64().unwrap(), 5);
            assert_eq!(Reader::new(&hex(form), 0).uvli32().unwrap(), 5);
        }
        assert_eq!(Reader::new(&hex("FF 80"), 0).uvli64().unwrap_err().kind, ErrorKind::UnexpectedEof { needed: 7 });
    }

    #[test]
    fn uvli128_extremes() {
        for value in [u128::MAX, 1 << 127, (1 << 126) + 3, 1 << 70] {
            let bytes = bytes_of(|o| write_uvli128(o, value));
            let mut r = Reader::new(&bytes, 0);
            assert_eq!(r.uvli128().unwrap(), value);
            assert!(r.is_empty());
        }
        assert_eq!(bytes_of(|o| write_uvli128(o, u128::MAX)).len(), 19);
        // 20 bytes of 140 value bits whose top bits are set cannot fit 128 bits.
        let mut over = vec![0xFF, 0xFF, 0b1110_1111];
        over.extend_from_slice(&[0xFF; 17]);
        assert_eq!(Reader::new(&over, 0).uvli128().unwrap_err().kind, ErrorKind::Uvli128Overflow);
    }

    /// The worked examples of A4.5.
    #[test]
    fn svli_worked_examples() {
        let cases: &[(i64, u64, &str)] = &[
            (0, 0, "00"),
            (-1, 1, "01"),
            (1, 2, "02"),
            (63, 126, "7E"),
            (-64, 127, "7F"),
            (64, 128, "80 80"),
            (-65, 129, "80 81"),
            (i64::MIN, u64::MAX, "FF FF FF FF FF FF FF FF FF"),
        ];
        for &(v, folded, form) in cases {
            assert_eq!(fold(v), folded);
            assert_eq!(unfold(folded), v);
            assert_eq!(bytes_of(|o| write_svli(o, v)), hex(form));
            assert_eq!(Reader::new(&hex(form), 0).svli().unwrap(), v);
        }
        assert_eq!(fold(i64::MAX), u64::MAX - 1);
    }

    /// The worked examples of A4.6.
    #[test]
    fn opvli_worked_examples() {
        for (value, form) in [(0xDF, "DF"), (0xE0, "E0 E0"), (0x1000, "F0 10 00"), (0xFFFF_FFFF, "FC FF FF FF FF")] {
            assert_eq!(bytes_of(|o| write_opvli(o, value)), hex(form));
            assert_eq!(Reader::new(&hex(form), 0).opvli().unwrap(), value);
        }
        for (value, form) in
            [(0xFFF, "EF FF"), (0x7_FFFF, "F7 FF FF"), (0x8_0000, "F8 08 00 00"), (0x400_0000, "FC 04 00 00 00")]
        {
            assert_eq!(bytes_of(|o| write_opvli(o, value)), hex(form));
            assert_eq!(Reader::new(&hex(form), 0).opvli().unwrap(), value);
        }
        for byte in [0xFD, 0xFE, 0xFF] {
            assert_eq!(Reader::new(&[byte, 0, 0, 0, 0], 7).opvli().unwrap_err(), {
                FormatError::new(ErrorKind::ReservedOpVli { byte }, 7)
            });
        }
    }

    /// A4.7: y takes the odd bits, x the even bits.
    #[test]
    fn interleave_puts_y_in_the_odd_bits() {
        assert_eq!(interleave(1, 0), 2);
        assert_eq!(interleave(0, 1), 1);
        assert_eq!(interleave(2, 3), 13);
        assert_eq!(interleave(u32::MAX, u32::MAX), u64::MAX);
        assert_eq!(deinterleave(13), (2, 3));
        assert_eq!(deinterleave(interleave(0xDEAD_BEEF, 0x1234_5678)), (0xDEAD_BEEF, 0x1234_5678));
        assert_eq!(interleave_wide(2, 3), 13);
        assert_eq!(interleave_wide(u64::MAX, 0), u128::MAX / 3 * 2);
    }
}
