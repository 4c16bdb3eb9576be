//! A bounds-checked cursor over borrowed bytes.
//!
//! Every read goes through [`Reader::take`] or [`Reader::u8`], which check the remaining length first, so no input can
//! make the format layer index out of bounds. The cursor knows the absolute offset of its first byte (`base`), so a
//! sub-reader over a chunk payload still reports errors at image offsets (STYLE §6). The VLI decoders are methods of
//! this type too; they live in `vli.rs` beside their encoders.

use super::error::{ErrorKind, FormatError};

/// A cursor over `bytes`, whose first byte sits at absolute offset `base`.
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

    /// The bytes not yet read, without consuming them.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos..]
    }

    /// Reads one byte.
    #[inline]
    pub fn u8(&mut self) -> Result<u8, FormatError> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.eof(1)),
        }
    }

    /// Skips `n` bytes that are known to be there (at most [`remaining`](Self::remaining)).
    #[inline]
    pub(crate) fn skip(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.bytes.len());
    }

    /// Reads `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| self.eof(n))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    /// Reads a little-endian `u16`.
    pub fn u16_le(&mut self) -> Result<u16, FormatError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// Reads a little-endian `u32`.
    pub fn u32_le(&mut self) -> Result<u32, FormatError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Splits off the next `n` bytes as a reader of their own; reads from it stop at its end.
    pub fn sub(&mut self, n: usize) -> Result<Reader<'a>, FormatError> {
        let base = self.offset();
        Ok(Reader { bytes: self.take(n)?, pos: 0, base })
    }

    /// Reads bytes up to the next NUL and consumes the NUL too; returns the bytes before it.
    pub fn until_nul(&mut self) -> Result<&'a [u8], FormatError> {
        let rest = self.rest();
        match rest.iter().position(|&b| b == 0) {
            Some(len) => {
                self.pos += len + 1;
                Ok(&rest[..len])
            }
            None => Err(self.error(ErrorKind::UnterminatedString)),
        }
    }

    /// Fails with [`ErrorKind::TrailingBytes`] unless every byte has been read.
    pub fn finish(&self, what: &'static str) -> Result<(), FormatError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.error(ErrorKind::TrailingBytes { what, count: self.remaining() as u64 }))
        }
    }

    /// Checks that `count` items of at least `min_bytes` bytes each can still follow, so that nothing is allocated
    /// for a count that the remaining input cannot back.
    pub fn check_count(&self, count: u64, min_bytes: u64) -> Result<usize, FormatError> {
        let remaining = self.remaining() as u64;
        match count.checked_mul(min_bytes) {
            Some(needed) if needed <= remaining => Ok(count as usize),
            _ => Err(self.error(ErrorKind::CountTooLarge { count, remaining })),
        }
    }

    /// An error of `kind` at the current offset.
    #[cold]
    pub fn error(&self, kind: ErrorKind) -> FormatError {
        FormatError::new(kind, self.offset())
    }

    #[cold]
    fn eof(&self, needed: usize) -> FormatError {
        let needed = (needed - self.remaining().min(needed)) as u64;
        FormatError::new(ErrorKind::UnexpectedEof { needed }, self.offset())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounds_checked_and_report_absolute_offsets() {
        let mut r = Reader::new(&[1, 2, 3], 100);
        assert_eq!(r.u8().unwrap(), 1);
        let mut sub = r.sub(1).unwrap();
        assert_eq!(sub.offset(), 101);
        assert_eq!(sub.u8().unwrap(), 2);
        assert_eq!(sub.u8().unwrap_err(), FormatError::new(ErrorKind::UnexpectedEof { needed: 1 }, 102));
        assert_eq!(r.take(usize::MAX).unwrap_err().offset, 102);
        assert_eq!(r.check_count(2, 1).unwrap_err().kind, ErrorKind::CountTooLarge { count: 2, remaining: 1 });
        assert!(r.check_count(u64::MAX, 2).is_err());
        assert_eq!(r.finish("test").unwrap_err().kind, ErrorKind::TrailingBytes { what: "test", count: 1 });
    }

    #[test]
    fn until_nul_consumes_the_terminator() {
        let mut r = Reader::new(b"ab\0c", 0);
        assert_eq!(r.until_nul().unwrap(), b"ab");
        assert_eq!(r.offset(), 3);
        assert_eq!(r.until_nul().unwrap_err().kind, ErrorKind::UnterminatedString);
    }
}
