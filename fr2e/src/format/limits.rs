//! Every limit of the FR2E format layer, in one place.
//!
//! Two kinds live here. *Format constants* are fixed by the specification (`fr2e.md` A2, A8, A13) and only named
//! here so that no other file repeats a number. *Reader limits* bound what hostile input may make the reader allocate
//! or recurse over; they are fields of [`Limits`], so a caller such as a fuzz target can tighten them. Every count read
//! from the input is also checked against the bytes that remain before anything is allocated for it, so the
//! allocations of a read stay within a small multiple of the input size, except for `strz` (LZ4 may expand a block up
//! to about 255 times, see [`Limits::max_string_data`]).

/// Largest total length of any chunk, header included: 30 length bits (`fr2e.md` A2.1, B12).
pub const MAX_CHUNK_LEN: u32 = (1 << 30) - 1;
/// Largest total length of a small BYTE-tag chunk: 5 length bits (A2.1).
pub const MAX_SMALL_LEN: u32 = 31;
/// Largest total length of a WORD+TWOCC chunk: 14 length bits (A2.1).
pub const MAX_WORD_LEN: u32 = (1 << 14) - 1;
/// Largest payload of a small BYTE-tag chunk: 31 minus the 2-byte header (B2).
pub const MAX_SMALL_PAYLOAD: usize = 29;

/// Capacity of each of the four move-to-front lists (masks, types, registers, immediates; A13).
pub const MTF_CAPACITY: usize = 32;
/// Mask bits 11 and up are reserved (A8.1, B48).
pub const VOP_MASK_BITS: u32 = 11;
/// Deepest pointer level of a simple Type ID: four bits (A9, B55).
pub const MAX_SIMPLE_TYPE_LEVEL: u8 = 15;

/// Largest `zz` payload of the `1001` integer-constant register form (A10.3).
pub const INT_CONSTANT_PAYLOAD_LIMIT: u64 = 1 << 60;
/// Largest `zz` payload of the `10011` inline long-constant register form (A10.3).
pub const LONG_CONSTANT_PAYLOAD_LIMIT: u64 = 1 << 59;
/// Largest `zz` payload of the `01011` subtyped integer-constant register form (A10.2).
pub const SUBTYPE_CONSTANT_PAYLOAD_LIMIT: u64 = 1 << 55;
/// Bound of the interleaved form of immediate tag 7 (A11): at and above it the pair form is used.
pub const FIELD_INTERLEAVE_LIMIT: u128 = 1 << 60;

/// The canonical string-tag choice puts texts of 1 to this many M-UTF-8 bytes inline (A5.5, B25).
pub const MAX_CANONICAL_INLINE_STRING: usize = 7;

/// The largest nesting depth a [`Limits`] configuration may set; nesting is walked recursively, so larger settings
/// are refused by [`Limits::validate`].
pub const MAX_CONFIGURABLE_DEPTH: u32 = 256;

/// LZ4 cannot expand a block by more than this factor (a match of 255 + n bytes costs about one byte), so a `strz`
/// whose declared size exceeds this multiple of its compressed size is malformed, whatever the limits say.
pub const LZ4_MAX_EXPANSION: u64 = 255;

/// Limits for reading one untrusted image.
///
/// ```
/// let limits = fr2e::format::Limits::default();
/// assert_eq!(limits.max_tlv_depth, 32);
/// assert!(limits.validate().is_ok());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Limits {
    /// Deepest TLV nesting, the root chunk counting as depth 1 (default 32). The Whale profile needs 5
    /// (`FR2E` / `GBLD` / `FN` / `A` / `V`); deeper trees only occur inside unknown compound tags.
    pub max_tlv_depth: u32,
    /// Deepest type-signature nesting accepted by the signature parser (default 128, like the text reader's types).
    pub max_signature_depth: u32,
    /// Largest string data, in bytes, that a `strz` may declare as its decompressed size (default 64 MiB). A plain
    /// `strs` is bounded by the input itself. Raising it, even to `u64::MAX`, is safe: a declared size is checked
    /// against what the LZ4 block decodes to before a buffer is allocated, and the buffer is reserved fallibly
    /// ([`ErrorKind::OutOfMemory`](super::ErrorKind::OutOfMemory) instead of an abort).
    pub max_string_data: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_tlv_depth: 32, max_signature_depth: 128, max_string_data: 64 << 20 }
    }
}

impl Limits {
    /// Checks the configuration itself: a depth of 0 or above [`MAX_CONFIGURABLE_DEPTH`] is refused.
    pub fn validate(&self) -> Result<(), InvalidLimits> {
        let depth_ok = |d: u32| (1..=MAX_CONFIGURABLE_DEPTH).contains(&d);
        if depth_ok(self.max_tlv_depth) && depth_ok(self.max_signature_depth) {
            Ok(())
        } else {
            Err(InvalidLimits)
        }
    }
}

/// A [`Limits`] configuration that [`Limits::validate`] refuses.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
#[error("nesting limits must lie between 1 and {MAX_CONFIGURABLE_DEPTH}")]
pub struct InvalidLimits;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_match_the_header_fields() {
        assert_eq!(MAX_SMALL_LEN as usize - 2, MAX_SMALL_PAYLOAD);
        assert_eq!(MAX_WORD_LEN, 16383);
        assert!(Limits { max_tlv_depth: 0, ..Limits::default() }.validate().is_err());
        assert!(Limits { max_signature_depth: 257, ..Limits::default() }.validate().is_err());
    }
}
