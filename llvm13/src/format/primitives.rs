//! The primitive encodings of `llvm13.md` §1: fixed little-endian words, vbr (uint32/uint64), the sign-in-bit-0
//! int64_vbr, length-prefixed strings, raw IEEE floats, and the 0xAB alignment padding of §2.3.
//!
//! Decoding goes through [`Reader`], a bounds-checked cursor over one block's bytes that knows the absolute file
//! offset of its first byte, so errors and alignment use file offsets. Encoders append to a `Vec<u8>` and always emit
//! the shortest form. The reader accepts overlong vbrs (as the 1.3 reader does) but refuses more bytes than the
//! writer could ever produce (5 for 32-bit values, 10 for 64-bit ones) and values that do not fit.

use super::error::{ReadError, ReadErrorKind};

/// The byte the writer pads with (`llvm13.md` §2.3); readers skip padding whatever its value.
pub const PAD_BYTE: u8 = 0xAB;

/// A cursor over `bytes`, whose first byte sits at absolute file offset `base`.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`, whose first byte is at absolute offset `base`.
    pub fn new(bytes: &'a [u8], base: u64) -> Self {
        Self { bytes, pos: 0, base }
    }

    /// Absolute offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Number of bytes not yet read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// True when every byte has been read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos == self.bytes.len()
    }

    /// An error of `kind` at the current offset.
    #[cold]
    pub fn error(&self, kind: ReadErrorKind) -> ReadError {
        ReadError::new(kind, self.offset())
    }

    #[cold]
    fn eof(&self, needed: usize) -> ReadError {
        self.error(ReadErrorKind::UnexpectedEof { needed: (needed - self.remaining().min(needed)) as u64 })
    }

    /// Reads one byte.
    #[inline]
    pub fn u8(&mut self) -> Result<u8, ReadError> {
        let b = *self.bytes.get(self.pos).ok_or_else(|| self.eof(1))?;
        self.pos += 1;
        Ok(b)
    }

    /// Reads `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| self.eof(n))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    /// Reads a 4-byte little-endian `unsigned`.
    pub fn u32_le(&mut self) -> Result<u32, ReadError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads an 8-byte little-endian word.
    pub fn u64_le(&mut self) -> Result<u64, ReadError> {
        let b = self.take(8)?;
        let mut w = [0; 8];
        w.copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
    }

    /// Returns the next 4-byte word without consuming it.
    pub fn peek_u32_le(&self) -> Result<u32, ReadError> {
        self.clone().u32_le()
    }

    /// Splits off the next `n` bytes as a reader of their own.
    pub fn sub(&mut self, n: usize) -> Result<Reader<'a>, ReadError> {
        let base = self.offset();
        Ok(Reader::new(self.take(n)?, base))
    }

    /// Skips padding up to the next multiple of 4 of the file offset; the padding must lie inside this reader.
    pub fn align(&mut self) -> Result<(), ReadError> {
        let pad = (4 - (self.offset() % 4) as usize) % 4;
        if pad > self.remaining() {
            return Err(self.error(ReadErrorKind::PaddingOverrun));
        }
        self.pos += pad;
        Ok(())
    }

    /// Reads a uint32_vbr.
    pub fn vbr32(&mut self) -> Result<u32, ReadError> {
        let start = self.offset();
        let v = self.vbr(5)?;
        u32::try_from(v).map_err(|_| ReadError::new(ReadErrorKind::VbrOverflow { bits: 32 }, start))
    }

    /// Reads a uint32_vbr used as a count of items of at least `min_item_bytes` bytes each, refusing counts the
    /// remaining bytes cannot back.
    pub fn count(&mut self, min_item_bytes: usize) -> Result<usize, ReadError> {
        let start = self.offset();
        let n = self.vbr32()? as usize;
        if n.saturating_mul(min_item_bytes) > self.remaining() {
            let kind = ReadErrorKind::CountTooLarge { count: n as u64, remaining: self.remaining() as u64 };
            return Err(ReadError::new(kind, start));
        }
        Ok(n)
    }

    /// Reads a uint64_vbr.
    pub fn vbr64(&mut self) -> Result<u64, ReadError> {
        self.vbr(10)
    }

    /// Reads an int64_vbr: the magnitude shifted left by one, the sign in bit 0 (§1; 1 decodes to `i64::MIN`).
    pub fn svbr64(&mut self) -> Result<i64, ReadError> {
        let v = self.vbr64()?;
        let magnitude = (v >> 1) as i64;
        Ok(if v & 1 == 0 {
            magnitude
        } else if magnitude == 0 {
            i64::MIN
        } else {
            -magnitude
        })
    }

    fn vbr(&mut self, max_bytes: u8) -> Result<u64, ReadError> {
        let start = self.offset();
        let mut value: u64 = 0;
        for i in 0..max_bytes {
            let b = self.u8()?;
            let bits = u64::from(b & 0x7F);
            let shift = 7 * u32::from(i);
            if shift >= 64 || (shift > 0 && bits >> (64 - shift) != 0) {
                return Err(ReadError::new(ReadErrorKind::VbrOverflow { bits: 64 }, start));
            }
            value |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ReadError::new(ReadErrorKind::VbrTooLong { max: max_bytes }, start))
    }

    /// Reads a string: vbr byte count, then the bytes.
    pub fn string(&mut self) -> Result<Vec<u8>, ReadError> {
        let n = self.count(1)?;
        Ok(self.take(n)?.to_vec())
    }
}

/// An empty vector with room for `n` items, `n` being a count read at offset `at` (and already checked against the
/// bytes that remain, so that it is backed by the input): fails with [`ReadErrorKind::OutOfMemory`] instead of
/// aborting the process when the allocator refuses the room.
pub(crate) fn vec_for<T>(n: usize, at: u64) -> Result<Vec<T>, ReadError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        let kind = ReadErrorKind::OutOfMemory { count: n as u64, item_bytes: std::mem::size_of::<T>() as u64 };
        ReadError::new(kind, at)
    })?;
    Ok(v)
}

/// Appends the vbr encoding of `v` (shortest form).
pub fn write_vbr(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends the int64_vbr encoding of `v`.
pub fn write_svbr(out: &mut Vec<u8>, v: i64) {
    let folded = if v < 0 { (v.wrapping_neg() as u64) << 1 | 1 } else { (v as u64) << 1 };
    write_vbr(out, folded);
}

/// Appends a string: vbr byte count, then the bytes.
pub fn write_string(out: &mut Vec<u8>, s: &[u8]) {
    write_vbr(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// Appends 0xAB bytes until `out.len()` (the file offset) is a multiple of 4.
pub fn pad(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(PAD_BYTE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_allocation_is_an_error() {
        let e = vec_for::<u64>(usize::MAX / 4, 7).unwrap_err();
        assert_eq!(e.offset, 7);
        assert!(matches!(e.kind, ReadErrorKind::OutOfMemory { item_bytes: 8, .. }), "{e}");
        assert_eq!(vec_for::<u64>(3, 0).unwrap().capacity(), 3);
    }
}
