//! Immediates (`fr2e.md` A11): a UVLI64 word whose low four bits are a tag, and for argument lists and jump tables
//! the data that follows.
//!
//! [`Immediate`] is the logical value. Tags 1 and 2 are one variant, [`Immediate::Int`]: negative values take tag 1,
//! the others tag 2 (a tag-1 zero reads as 0 and is never written, B69). Argument lists and jump tables keep their
//! registers and labels in the pools of their [`VopStream`](super::vop::VopStream), so a VOP stays a fixed-size,
//! allocation-free value. Decoding and encoding happen in the VOP codec, which owns the MTF lists (A13).

use super::mtf::{fold_key, MtfItem};
use super::vli::{deinterleave_wide, interleave_wide};

/// A logical immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Immediate {
    /// Tags 1 and 2: an integer with magnitude below 2^60.
    Int(i64),
    /// Tag 3: a label ID (B71).
    Label(u32),
    /// Tag 4: a string-table index; 0 and 1 are allowed (B74).
    String(u32),
    /// Tag 5: an argument list, registers `start..start + len` of the register pool.
    ArgList { start: u32, len: u32 },
    /// Tag 6: a jump table (B72): labels `start..start + len` of the label pool, `len >= 1`; entry j is the target of
    /// `base + j` and the last label is the default.
    JumpTable { base: i64, start: u32, len: u32 },
    /// Tag 7: a structure field: LITD index `literal`, field `field`.
    Field { literal: u64, field: u64 },
}

impl MtfItem for Immediate {
    #[inline]
    fn key(&self) -> u32 {
        let (kind, payload) = match *self {
            Immediate::Int(v) => (0, v as u64),
            Immediate::Label(l) => (1, u64::from(l)),
            Immediate::String(i) => (2, u64::from(i)),
            Immediate::ArgList { start, len } => (3, u64::from(start) | u64::from(len) << 32),
            Immediate::JumpTable { base, start, len } => (4, base as u64 ^ u64::from(start) ^ u64::from(len) << 32),
            Immediate::Field { literal, field } => (5, literal ^ field.rotate_left(29)),
        };
        fold_key(payload) ^ (kind as u32) << 29
    }
}

impl Immediate {
    /// True for the tags the immediate MTF holds: 1, 2, 3, 4 and 7 (B68).
    pub const fn in_mtf(&self) -> bool {
        !matches!(self, Immediate::ArgList { .. } | Immediate::JumpTable { .. })
    }
}

/// The interleaved tag-7 payload `interleave(field, literal)` if the canonical choice is the interleaved form: not 0,
/// and below 2^60 (A11, B70).
pub(crate) fn field_interleaved(literal: u64, field: u64) -> Option<u64> {
    let merged = interleave_wide(field, literal);
    (merged != 0 && merged < super::limits::FIELD_INTERLEAVE_LIMIT).then_some(merged as u64)
}

/// Splits an interleaved tag-7 payload into `(literal, field)`.
pub(crate) fn field_split(merged: u64) -> (u64, u64) {
    let (field, literal) = deinterleave_wide(u128::from(merged));
    (literal, field)
}
