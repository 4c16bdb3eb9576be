//! Compressed string data, `strz` (`fr2e.md` A5.4): a UVLI64 decompressed size, then one raw LZ4 block.
//!
//! `strz` is the one place where the input decides an allocation far larger than itself: LZ4 expands a block up to
//! about 255 times, and a caller may raise [`Limits::max_string_data`] as far as `u64::MAX`. So the declared size is
//! trusted for nothing. It must lie within the limit and within what the block can expand to; then the block's
//! sequences are walked without writing any output ([`decoded_len`], linear in the block and allocation-free), and
//! only a block that decodes to exactly the declared size gets a buffer. The buffer is reserved fallibly, so a size
//! the machine cannot provide is an [`ErrorKind::OutOfMemory`] error, never an abort. Checking first also keeps the
//! memory a hostile `strz` costs to what its block really produces: the buffer is zero-filled before decompression,
//! which touches every page of it.
//!
//! The alternative, decompressing into a buffer of the declared size and comparing the count afterwards, needs the
//! whole declared size up front, so a few bytes of garbage could claim the full limit.

use super::error::{ErrorKind, FormatError};
use super::limits::{Limits, LZ4_MAX_EXPANSION};
use super::tlv::Chunk;

/// LZ4's shortest match (the match length of a token counts from it).
const MIN_MATCH: u64 = 4;

/// Decompresses a `strz` payload, refusing declared sizes above the limit or above what LZ4 can produce, and blocks
/// that do not decode to exactly the declared size.
pub(crate) fn decompress(chunk: &Chunk<'_>, limits: &Limits) -> Result<Vec<u8>, FormatError> {
    let mut r = chunk.reader();
    let size_at = r.offset();
    let size = r.uvli64()?;
    let block_at = r.offset();
    let block = r.rest();
    let structural = (block.len() as u64).saturating_mul(LZ4_MAX_EXPANSION);
    let limit = limits.max_string_data.min(structural);
    if size > limit {
        return Err(FormatError::new(ErrorKind::StringDataTooLarge { size, limit }, size_at));
    }
    if decoded_len(block, size) != Some(size) {
        return Err(FormatError::new(ErrorKind::BadLz4Block, block_at));
    }
    let mut data = zeroed(size).map_err(|kind| FormatError::new(kind, size_at))?;
    match lz4_flex::block::decompress_into(block, &mut data) {
        Ok(n) if n == data.len() => Ok(data),
        _ => Err(FormatError::new(ErrorKind::BadLz4Block, block_at)),
    }
}

/// A zero-filled buffer of `size` bytes, or [`ErrorKind::OutOfMemory`] when it cannot be allocated.
fn zeroed(size: u64) -> Result<Vec<u8>, ErrorKind> {
    let out_of_memory = ErrorKind::OutOfMemory { what: "the `strz` string data", bytes: size };
    let len = usize::try_from(size).map_err(|_| out_of_memory)?;
    let mut data = Vec::new();
    data.try_reserve_exact(len).map_err(|_| out_of_memory)?;
    data.resize(len, 0);
    Ok(data)
}

/// The number of bytes the LZ4 block decodes to, found by walking its sequences without producing them; `None` when
/// the block is malformed (a sequence runs past its end, a match offset is 0 or reaches before the first byte) or
/// would decode to more than `limit` bytes. Each sequence is a token (literal length, match length), the literal
/// length's extension bytes, the literals, then, unless the block ends there, a 16-bit offset and the match length's
/// extension bytes; a length nibble of 15 continues in bytes that add up while they are 255.
fn decoded_len(block: &[u8], limit: u64) -> Option<u64> {
    let mut at = 0usize;
    let mut len = 0u64;
    loop {
        let token = *block.get(at)?;
        at += 1;
        let mut literals = u64::from(token >> 4);
        if literals == 15 {
            literals += extension(block, &mut at)?;
        }
        let remaining = (block.len() - at) as u64;
        if literals > remaining {
            return None;
        }
        // `literals` fits in the remaining bytes, so in a usize.
        at += literals as usize;
        len += literals;
        if at == block.len() {
            break;
        }
        let offset = u16::from_le_bytes([*block.get(at)?, *block.get(at + 1)?]);
        at += 2;
        if offset == 0 || u64::from(offset) > len {
            return None;
        }
        let mut matched = u64::from(token & 15) + MIN_MATCH;
        if matched == 15 + MIN_MATCH {
            matched += extension(block, &mut at)?;
        }
        len = len.checked_add(matched)?;
        if len > limit {
            return None;
        }
    }
    (len <= limit).then_some(len)
}

/// Reads the extension bytes of a length: their sum, up to and including the first byte that is not 255.
fn extension(block: &[u8], at: &mut usize) -> Option<u64> {
    let mut sum = 0u64;
    loop {
        let byte = *block.get(*at)?;
        *at += 1;
        sum += u64::from(byte);
        if byte != 255 {
            return Some(sum);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tlv::{HeaderForm, Tag};
    use super::super::vli::write_uvli64;
    use super::*;

    fn strz(size: u64, block: &[u8]) -> Vec<u8> {
        let mut payload = Vec::new();
        write_uvli64(&mut payload, size);
        payload.extend_from_slice(block);
        payload
    }

    /// Reads a `strz` payload as the chunk at offset 0 would hold it: the payload starts at 8.
    fn read(payload: &[u8], limits: &Limits) -> Result<Vec<u8>, FormatError> {
        decompress(&Chunk { tag: Tag::STRZ, form: HeaderForm::Fourcc, offset: 0, payload }, limits)
    }

    /// The walk agrees with the decompressor on what LZ4 itself writes: literals only, short and long matches,
    /// overlapping matches, long literal runs.
    #[test]
    fn decoded_len_matches_the_compressor() {
        let mut inputs: Vec<Vec<u8>> = vec![Vec::new(), b"a".to_vec(), b"abcabcabcabcabcabcabcabc".to_vec()];
        inputs.push(vec![0; 100_000]);
        inputs.push((0..70_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect());
        inputs.push((0..5_000u32).flat_map(|i| format!("name{}\0", i % 700).into_bytes()).collect());
        for data in inputs {
            let block = lz4_flex::block::compress(&data);
            let len = data.len() as u64;
            assert_eq!(decoded_len(&block, u64::MAX), Some(len));
            assert_eq!(decoded_len(&block, len), Some(len));
            if len > 0 {
                assert_eq!(decoded_len(&block, len - 1), None);
            }
            assert_eq!(read(&strz(len, &block), &Limits::default()).unwrap(), data);
        }
    }

    #[test]
    fn malformed_blocks_have_no_length() {
        // An empty block has no token.
        assert_eq!(decoded_len(&[], 10), None);
        // Three literals announced, two present.
        assert_eq!(decoded_len(&[0x30, b'a', b'b'], 10), None);
        // One literal, then a match with offset 0, and one reaching before the first byte.
        assert_eq!(decoded_len(&[0x10, b'a', 0x00, 0x00], 10), None);
        assert_eq!(decoded_len(&[0x10, b'a', 0x02, 0x00], 10), None);
        // A match offset cut short, and a length extension that never ends.
        assert_eq!(decoded_len(&[0x10, b'a', 0x01], 10), None);
        assert_eq!(decoded_len(&[0xF0, 0xFF, 0xFF], 1000), None);
        // One literal and a 4-byte match of it, then a final empty literal run: 5 bytes.
        assert_eq!(decoded_len(&[0x10, b'a', 0x01, 0x00, 0x00], 10), Some(5));
        assert_eq!(decoded_len(&[0x10, b'a', 0x01, 0x00, 0x00], 4), None);
    }

    /// Declared sizes the block does not produce, more or fewer bytes, are refused before any buffer is allocated.
    #[test]
    fn declared_size_must_match() {
        let block = lz4_flex::block::compress(b"\0alpha\0beta\0");
        assert!(read(&strz(12, &block), &Limits::default()).is_ok());
        for size in [11, 13, 0] {
            let err = read(&strz(size, &block), &Limits::default()).unwrap_err();
            assert_eq!(err, FormatError::new(ErrorKind::BadLz4Block, 9), "declared {size}");
        }
    }

    /// With the limit raised to the maximum, a huge declared size still fails at once: against what the block can
    /// expand to, or against what it does expand to.
    #[test]
    fn raised_limits_fail_cleanly() {
        let limits = Limits { max_string_data: u64::MAX, ..Limits::default() };
        let err = read(&strz(u64::MAX, &[0x10, b'a']), &limits).unwrap_err();
        assert_eq!(err, FormatError::new(ErrorKind::StringDataTooLarge { size: u64::MAX, limit: 2 * 255 }, 8));
        let block = vec![0xFF; 1 << 16];
        let err = read(&strz(255 << 16, &block), &limits).unwrap_err();
        assert_eq!(err, FormatError::new(ErrorKind::BadLz4Block, 12));
    }

    /// A size that cannot be allocated is an error, not an abort.
    #[test]
    fn impossible_buffers_are_errors() {
        let kind = zeroed(u64::MAX).unwrap_err();
        assert_eq!(kind, ErrorKind::OutOfMemory { what: "the `strz` string data", bytes: u64::MAX });
        assert!(kind.to_string().starts_with("out of memory while allocating"));
        assert!(zeroed(isize::MAX as u64 + 1).is_err());
        assert_eq!(zeroed(3).unwrap(), [0, 0, 0]);
    }
}
