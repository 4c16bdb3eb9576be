//! Initialisation state of tracked memory: one bit per byte of the arena (bit
//! `i & 7` of byte `i >> 3`), so the state costs an eighth of the memory it
//! describes.
//!
//! Short ranges (up to [`SHORT`] bits, every scalar access) are read and written
//! through one unaligned 64-bit window: the bitmap keeps [`PAD`] spare bytes
//! after the last arena byte so the window never leaves it.

use std::collections::TryReserveError;

/// The longest range the window operations handle.
pub(crate) const SHORT: usize = 57;
/// Spare bytes after the last byte that describes the arena.
const PAD: usize = 8;

/// One bit per arena byte: set when the byte is initialised.
#[derive(Default)]
pub(crate) struct InitBits {
    bits: Vec<u8>,
}

#[inline(always)]
fn mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

impl InitBits {
    /// Makes room for an arena of `arena_len` bytes (new bytes uninitialised).
    pub(crate) fn try_grow(&mut self, arena_len: usize) -> Result<(), TryReserveError> {
        let needed = arena_len.div_ceil(8) + PAD;
        if self.bits.len() < needed {
            self.bits.try_reserve(needed - self.bits.len())?;
            self.bits.resize(needed, 0);
        }
        Ok(())
    }

    /// Bytes of bookkeeping held.
    #[cfg(test)]
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.bits.capacity()
    }

    #[inline(always)]
    fn window(&self, off: usize) -> u64 {
        let at = off >> 3;
        match self.bits.get(at..at + 8) {
            Some(w) => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]) >> (off & 7),
            None => 0,
        }
    }

    #[inline(always)]
    fn update_window(&mut self, off: usize, n: usize, set: bool) {
        let at = off >> 3;
        if let Some(w) = self.bits.get_mut(at..at + 8) {
            let old = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            let m = mask(n) << (off & 7);
            let new = if set { old | m } else { old & !m };
            w.copy_from_slice(&new.to_le_bytes());
        }
    }

    /// Whether the `n ≤ SHORT` bytes at `off` are all initialised.
    #[inline(always)]
    pub(crate) fn all_set_short(&self, off: usize, n: usize) -> bool {
        let m = mask(n);
        self.window(off) & m == m
    }

    /// Whether byte `off` is initialised.
    #[inline(always)]
    pub(crate) fn is_set(&self, off: usize) -> bool {
        self.bits.get(off >> 3).is_some_and(|b| b >> (off & 7) & 1 != 0)
    }

    /// Marks byte `off` initialised.
    #[inline(always)]
    pub(crate) fn set(&mut self, off: usize) {
        if let Some(b) = self.bits.get_mut(off >> 3) {
            *b |= 1 << (off & 7);
        }
    }

    /// The first uninitialised byte of `off..off + n`, if any.
    pub(crate) fn first_clear(&self, off: usize, n: usize) -> Option<usize> {
        let mut i = 0;
        while i < n {
            let k = (n - i).min(SHORT);
            let missing = !self.window(off + i) & mask(k);
            if missing != 0 {
                return Some(off + i + missing.trailing_zeros() as usize);
            }
            i += k;
        }
        None
    }

    /// Marks the `n ≤ SHORT` bytes at `off` initialised.
    #[inline(always)]
    pub(crate) fn set_short(&mut self, off: usize, n: usize) {
        self.update_window(off, n, true);
    }

    /// Marks `off..off + n` initialised (`set`) or uninitialised.
    pub(crate) fn set_range(&mut self, off: usize, n: usize, set: bool) {
        let end = off + n;
        let head_end = off.next_multiple_of(8).min(end);
        self.update_window(off, head_end - off, set);
        let (full_start, full_end) = (head_end >> 3, end >> 3);
        if full_end > full_start {
            if let Some(bytes) = self.bits.get_mut(full_start..full_end) {
                bytes.fill(if set { 0xFF } else { 0 });
            }
            self.update_window(full_end << 3, end & 7, set);
        } else if end > head_end {
            self.update_window(head_end, end - head_end, set);
        }
    }

    /// Copies the state of `src..src + n` to `dst..dst + n`; the ranges do not overlap.
    pub(crate) fn copy(&mut self, src: usize, dst: usize, n: usize) {
        let mut i = 0;
        while i < n {
            let k = (n - i).min(SHORT);
            let state = self.window(src + i) & mask(k);
            // Clear then set: the window's other bits are written back unchanged.
            self.update_window(dst + i, k, false);
            let at = (dst + i) >> 3;
            if let Some(w) = self.bits.get_mut(at..at + 8) {
                let old = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
                w.copy_from_slice(&(old | state << ((dst + i) & 7)).to_le_bytes());
            }
            i += k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every operation agrees with a plain `Vec<bool>`.
        #[test]
        fn agrees_with_a_bool_per_byte(ops in prop::collection::vec((0u8..4, 0usize..300, 0usize..140, 0usize..300), 1..40)) {
            const LEN: usize = 600;
            let mut bits = InitBits::default();
            bits.try_grow(LEN).unwrap();
            let mut model = vec![false; LEN];
            for (op, a, n, b) in ops {
                let n = n.min(LEN - a);
                match op {
                    0 => {
                        bits.set_range(a, n, true);
                        model[a..a + n].fill(true);
                    }
                    1 => {
                        bits.set_range(a, n, false);
                        model[a..a + n].fill(false);
                    }
                    2 => {
                        let short = n.min(SHORT);
                        bits.set_short(a, short);
                        model[a..a + short].fill(true);
                    }
                    _ => {
                        let n = n.min(LEN - b);
                        if a + n <= b || b + n <= a {
                            bits.copy(a, b, n);
                            let state = model[a..a + n].to_vec();
                            model[b..b + n].copy_from_slice(&state);
                        }
                    }
                }
                for (i, &expected) in model.iter().enumerate() {
                    prop_assert_eq!(bits.is_set(i), expected, "byte {}", i);
                }
                let short = n.min(SHORT);
                prop_assert_eq!(bits.all_set_short(a, short), model[a..a + short].iter().all(|&x| x));
                prop_assert_eq!(bits.first_clear(a, n), model[a..a + n].iter().position(|&x| !x).map(|i| a + i));
            }
        }
    }
}
