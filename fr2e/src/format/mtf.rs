//! The move-to-front lists of the VOP stream (`fr2e.md` A13).
//!
//! Each list holds at most 32 entries, most recent first. A literal is pushed at the front without removing
//! duplicates, and the oldest entry falls off (B44); a repeat of index i moves entry i to the front. Entries stay in
//! 32 fixed slots and the order is a permutation of slot numbers packed into two `u128`s, so a push or a repeat of
//! any index is a handful of shifts and masks.
//!
//! Encoders must find "the most recent entry equal to this value" for every field they write (the canonical rule of
//! A13), so [`SearchMtf`] keeps beside each entry a 32-bit digest ([`MtfItem::key`]) by slot, and keeps the order as
//! each slot's list *position*, one byte per slot: the position of an entry is one load, and moving the entry at
//! position p to the front adds one to the 32 positions below p, a loop the compiler turns into a few vector
//! operations (no population count, which the baseline x86-64 target lacks, and no renumbering of any kind).
//! A search compares the 32 digests at once into a bit mask (a loop the compiler turns into a few vector compares)
//! and confirms candidates with `==`; equal values have equal digests, so a digest collision costs one extra
//! comparison and never a wrong answer. Decoders never search and use the plain [`Mtf`].

use super::limits::MTF_CAPACITY;

/// A value that an MTF list can hold: `Copy`, comparable, with a digest that equal values share.
pub trait MtfItem: Copy + PartialEq {
    /// A digest of the value: `a == b` implies `a.key() == b.key()`.
    fn key(&self) -> u32;
}

impl MtfItem for u32 {
    #[inline]
    fn key(&self) -> u32 {
        *self
    }
}

/// Folds a 64-bit digest to 32 bits; equal inputs stay equal, and small numbers stay distinct.
#[inline]
pub(crate) fn fold_key(x: u64) -> u32 {
    (x ^ (x >> 32).wrapping_mul(0x9E37_79B9)) as u32
}

const _: () = assert!(MTF_CAPACITY == 32, "the order is two u128s and the search masks are u32");

/// The order of a list: a permutation of the 32 slots, one byte per list position. Entries never move; moving one
/// to the front shifts bytes of the order, done on the two 16-byte halves as `u128`s (position k of a half is its
/// byte k, bits 8k to 8k + 7).
#[derive(Clone, Copy, Debug)]
struct Order([u8; MTF_CAPACITY]);

/// `KEEP[k]`: the bytes of a half above position k, which a move of position k leaves in place.
const KEEP: [u128; 16] = {
    let mut keep = [0u128; 16];
    let mut k = 0;
    while k < 15 {
        keep[k] = u128::MAX << (8 * (k + 1));
        k += 1;
    }
    keep
};

impl Order {
    /// Position k holds slot k.
    const IDENTITY: Order = {
        let mut order = [0u8; MTF_CAPACITY];
        let mut k = 0;
        while k < MTF_CAPACITY {
            order[k] = k as u8;
            k += 1;
        }
        Order(order)
    };

    #[inline]
    fn half(&self, which: usize) -> u128 {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&self.0[16 * which..16 * which + 16]);
        u128::from_le_bytes(bytes)
    }

    #[inline]
    fn set_half(&mut self, which: usize, value: u128) {
        self.0[16 * which..16 * which + 16].copy_from_slice(&value.to_le_bytes());
    }

    /// The slot at list position `position` (below 32).
    #[inline]
    fn slot(&self, position: usize) -> usize {
        usize::from(self.0[position % MTF_CAPACITY])
    }

    /// Moves the slot at `position` to position 0, shifting positions `0..position` up by one; returns the slot.
    #[inline]
    fn move_to_front(&mut self, position: usize) -> usize {
        let slot = self.slot(position);
        let lo = self.half(0);
        if position < 16 {
            let keep = KEEP[position];
            self.set_half(0, (lo & keep) | ((lo << 8) & !keep) | slot as u128);
        } else {
            let hi = self.half(1);
            self.set_half(0, (lo << 8) | slot as u128);
            let keep = KEEP[(position - 16) % 16];
            self.set_half(1, (hi & keep) | (((hi << 8) | (lo >> 120)) & !keep));
        }
        slot
    }

    /// Moves the last slot (position 31) to the front, as a push does; returns the slot.
    #[inline]
    fn rotate_last_to_front(&mut self) -> usize {
        let slot = self.slot(MTF_CAPACITY - 1);
        let (lo, hi) = (self.half(0), self.half(1));
        self.set_half(0, (lo << 8) | slot as u128);
        self.set_half(1, (hi << 8) | (lo >> 120));
        slot
    }
}

/// A move-to-front list of at most [`MTF_CAPACITY`] entries, for decoders: push, repeat and get.
///
/// Entries sit in 32 fixed slots and the list order is a byte permutation of them, so a push or a repeat costs a
/// few shifts whatever the index, and no entry is ever copied. The list is the first `len` positions of the order;
/// the slot at position 31 is the one a push reuses (the oldest entry, or a free slot).
#[derive(Clone, Debug)]
pub struct Mtf<T: Copy> {
    items: [T; MTF_CAPACITY],
    order: Order,
    len: usize,
}

impl<T: Copy> Mtf<T> {
    /// An empty list; `filler` only occupies unused slots.
    pub fn new(filler: T) -> Self {
        Self { items: [filler; MTF_CAPACITY], order: Order::IDENTITY, len: 0 }
    }

    /// Number of entries (at most 32).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the list has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entry `index` (0 = most recent), if present.
    #[inline]
    pub fn get(&self, index: usize) -> Option<T> {
        if index < self.len {
            self.items.get(self.order.slot(index)).copied()
        } else {
            None
        }
    }

    /// Inserts `value` at the front; the 33rd entry falls off. Returns the slot used.
    #[inline(always)]
    fn push_slot(&mut self, value: T) -> usize {
        let slot = self.order.rotate_last_to_front();
        self.items[slot % MTF_CAPACITY] = value;
        self.len = (self.len + 1).min(MTF_CAPACITY);
        slot
    }

    /// Inserts `value` at the front; the 33rd entry falls off.
    #[inline(always)]
    pub fn push(&mut self, value: T) {
        self.push_slot(value);
    }

    /// Moves entry `index` to the front and returns it; `None` when `index` is beyond the list.
    #[inline(always)]
    pub fn repeat(&mut self, index: usize) -> Option<T> {
        if index >= self.len {
            return None;
        }
        let slot = self.order.move_to_front(index);
        self.items.get(slot).copied()
    }
}

/// A caller-kept reference to one value's entry in a [`SearchMtf`] (see [`SearchMtf::find_or_push_at`]): the
/// number of the push that stored the value, and the slot it took. A later push into that slot changes the slot's
/// cell, so a cell matches exactly while its entry is in the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MtfCell(u64);

impl MtfCell {
    /// The cell of a value not written yet: it matches no slot.
    pub const EMPTY: MtfCell = MtfCell(u64::MAX);
}

impl Default for MtfCell {
    fn default() -> Self {
        MtfCell::EMPTY
    }
}

/// The position of a free [`SearchMtf`] slot: above every list position, so moving an entry to the front, which
/// moves back the entries at positions below it, leaves free slots alone.
const FREE: u8 = u8::MAX;

/// A move-to-front list that encoders can search: the entries, their digests and their list positions by slot (see
/// the module documentation).
///
/// Slots `0..len` hold entries; a push takes the next free slot, or, in a full list, the slot of the oldest entry.
#[derive(Clone, Debug)]
pub struct SearchMtf<T: MtfItem> {
    items: [T; MTF_CAPACITY],
    keys: [u32; MTF_CAPACITY],
    /// The list position of each slot's entry (0 = most recent), [`FREE`] for free slots.
    positions: [u8; MTF_CAPACITY],
    /// The cell of each slot's current entry (see [`MtfCell`]); 0 for free slots.
    cells: [u64; MTF_CAPACITY],
    /// The number of pushes so far.
    pushes: u64,
    len: usize,
}

impl<T: MtfItem> SearchMtf<T> {
    /// An empty list; `filler` only occupies unused slots.
    pub fn new(filler: T) -> Self {
        Self {
            items: [filler; MTF_CAPACITY],
            keys: [0; MTF_CAPACITY],
            positions: [FREE; MTF_CAPACITY],
            cells: [0; MTF_CAPACITY],
            pushes: 0,
            len: 0,
        }
    }

    /// Number of entries (at most 32).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the list has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The list position of the entry in `slot` (below `len`).
    #[inline(always)]
    fn position_of_slot(&self, slot: usize) -> usize {
        usize::from(self.positions[slot % MTF_CAPACITY])
    }

    /// The first slot whose position is `position`, if any: eight positions at a time, a byte equal to `position`
    /// found as a zero byte of the difference (exact here: positions are at most 32 or [`FREE`]).
    #[inline(always)]
    fn first_slot_at(&self, position: u8) -> Option<usize> {
        const LOW: u64 = 0x7F7F_7F7F_7F7F_7F7F;
        for (k, chunk) in self.positions.chunks_exact(8).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(chunk);
            let x = u64::from_le_bytes(bytes) ^ (u64::from(position) * 0x0101_0101_0101_0101);
            let zero = !(((x & LOW) + LOW) | x) & !LOW;
            if zero != 0 {
                return Some(8 * k + zero.trailing_zeros() as usize / 8);
            }
        }
        None
    }

    /// The slot of the entry at list position `index`, if there is one.
    fn slot_at(&self, index: usize) -> Option<usize> {
        if index >= self.len {
            return None;
        }
        self.first_slot_at(index as u8)
    }

    /// Moves the entry in `slot` from `position` (its list position, or [`FREE`] for a slot being filled) to the
    /// front: every entry before it moves back one.
    #[inline(always)]
    fn move_to_front(&mut self, slot: usize, position: u8) {
        for p in &mut self.positions {
            *p += u8::from(*p < position);
        }
        self.positions[slot % MTF_CAPACITY] = 0;
    }

    /// Moves the entry in `slot` to the front; returns its previous list position.
    #[inline(always)]
    fn move_slot_to_front(&mut self, slot: usize) -> usize {
        let position = self.positions[slot % MTF_CAPACITY];
        if position != 0 {
            self.move_to_front(slot, position);
        }
        usize::from(position)
    }

    /// Inserts `value` at the front, in a free slot or the oldest entry's; returns the slot.
    #[inline(always)]
    fn push_slot(&mut self, value: T) -> usize {
        let slot = if self.len < MTF_CAPACITY {
            self.len += 1;
            let slot = self.len - 1;
            self.move_to_front(slot, FREE);
            slot
        } else {
            self.push_back_all()
        };
        self.items[slot] = value;
        self.keys[slot] = value.key();
        self.pushes += 1;
        self.cells[slot] = self.pushes << 5 | slot as u64;
        slot
    }

    /// In a full list, moves every entry back one and returns the slot of the one that falls off (the oldest), now
    /// at the front: one pass finds it and moves the others, where a search for the oldest entry would be another.
    #[inline(always)]
    fn push_back_all(&mut self) -> usize {
        for p in &mut self.positions {
            *p += 1;
        }
        // Exactly one entry was at the last position; the fallback only keeps the index in range.
        let slot = self.first_slot_at(MTF_CAPACITY as u8).unwrap_or(0) % MTF_CAPACITY;
        self.positions[slot] = 0;
        slot
    }

    /// Entry `index` (0 = most recent), if present.
    pub fn get(&self, index: usize) -> Option<T> {
        self.slot_at(index).map(|slot| self.items[slot])
    }

    /// Inserts `value` at the front; the 33rd entry falls off.
    #[inline]
    pub fn push(&mut self, value: T) {
        self.push_slot(value);
    }

    /// Moves entry `index` to the front and returns it; `None` when `index` is beyond the list.
    #[inline]
    pub fn repeat(&mut self, index: usize) -> Option<T> {
        let slot = self.slot_at(index)?;
        self.move_slot_to_front(slot);
        Some(self.items[slot])
    }

    /// The slot of the most recent entry equal to `value`.
    #[inline]
    fn find_slot(&self, value: &T) -> Option<usize> {
        let key = value.key();
        let mut slots = 0u32;
        for (i, &k) in self.keys.iter().enumerate() {
            slots |= u32::from(k == key) << i;
        }
        let used = if self.len >= MTF_CAPACITY { u32::MAX } else { (1u32 << self.len) - 1 };
        let mut candidates = slots & used;
        let mut best: Option<usize> = None;
        while candidates != 0 {
            let slot = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            // Several slots match only when a caller pushed a value already in the list; the most recent wins.
            if self.items[slot] == *value && best.is_none_or(|b| self.positions[slot] < self.positions[b]) {
                best = Some(slot);
            }
        }
        best
    }

    /// The index of the most recent entry equal to `value`.
    #[inline]
    pub fn position(&self, value: &T) -> Option<usize> {
        self.find_slot(value).map(|slot| self.position_of_slot(slot))
    }

    /// [`find_or_push`](Self::find_or_push) for a caller that keeps, per value, the [`MtfCell`] the list last gave
    /// it (initially [`MtfCell::EMPTY`], updated here). The value is in the list exactly when its cell still matches
    /// its slot, so neither a search nor a comparison is needed. The caller must pass the same cell on every write of
    /// the value to this list; a value that may also have been written through another method must use
    /// `find_or_push`.
    #[inline(always)]
    pub fn find_or_push_at(&mut self, value: &T, cell: &mut MtfCell) -> Option<usize> {
        let slot = (cell.0 & 31) as usize;
        if self.cells[slot] == cell.0 {
            debug_assert!(self.items[slot] == *value, "a cell was used for two values");
            return Some(self.move_slot_to_front(slot));
        }
        debug_assert_eq!(self.position(value), None, "a value was written without its cell");
        let slot = self.push_slot(*value);
        *cell = MtfCell(self.cells[slot]);
        None
    }

    /// The canonical reference to `value` (A13): a repeat of its most recent entry, which moves to the front (the
    /// index is returned), or else a push (`None`).
    #[inline]
    pub fn find_or_push(&mut self, value: &T) -> Option<usize> {
        match self.find_slot(value) {
            Some(slot) => Some(self.move_slot_to_front(slot)),
            None => {
                self.push(*value);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(m: &SearchMtf<u32>) -> Vec<u32> {
        (0..m.len()).map(|i| m.get(i).unwrap()).collect()
    }

    #[test]
    fn push_repeat_and_capacity() {
        let mut m = SearchMtf::new(0u32);
        assert_eq!(m.get(0), None);
        assert_eq!(m.position(&0), None);
        for v in 1..=3 {
            m.push(v);
        }
        assert_eq!(contents(&m), [3, 2, 1]);
        assert_eq!(m.repeat(2), Some(1));
        assert_eq!(contents(&m), [1, 3, 2]);
        assert_eq!(m.repeat(3), None);
        // Duplicates are not removed (B44).
        m.push(3);
        assert_eq!(contents(&m), [3, 1, 3, 2]);
        assert_eq!(m.position(&3), Some(0));
        assert_eq!(m.position(&2), Some(3));
        for v in 100..140 {
            m.push(v);
        }
        assert_eq!(m.len(), 32);
        assert_eq!(m.get(0), Some(139));
        assert_eq!(m.get(31), Some(108));
        assert_eq!(m.position(&108), Some(31));
        assert_eq!(m.position(&107), None);
        assert_eq!(m.repeat(31), Some(108));
        assert_eq!(m.get(1), Some(139));
        assert_eq!(m.get(31), Some(109));
        assert_eq!(m.position(&108), Some(0));
    }

    /// A value type whose digests always collide: the search must still confirm with `==`.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Colliding(u8);

    impl MtfItem for Colliding {
        fn key(&self) -> u32 {
            7
        }
    }

    #[test]
    fn colliding_digests_are_confirmed() {
        let mut m = SearchMtf::new(Colliding(0));
        for v in 1..=40 {
            m.push(Colliding(v));
        }
        assert_eq!(m.position(&Colliding(40)), Some(0));
        assert_eq!(m.position(&Colliding(9)), Some(31));
        assert_eq!(m.position(&Colliding(8)), None);
        m.repeat(5);
        assert_eq!(m.position(&Colliding(35)), Some(0));
        assert_eq!(m.position(&Colliding(40)), Some(1));
    }

    /// Against a plain `Vec` model of A13, over a long mixed sequence of pushes, repeats and searches.
    #[test]
    fn matches_a_vector_model() {
        let mut m = SearchMtf::new(0u32);
        let mut model: Vec<u32> = Vec::new();
        let mut x = 12345u32;
        for _ in 0..5000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let v = (x >> 16) % 48;
            match (x >> 8) % 3 {
                0 => {
                    m.push(v);
                    model.insert(0, v);
                    model.truncate(32);
                }
                1 => {
                    let i = (v % 34) as usize;
                    let expected = (i < model.len()).then(|| {
                        let e = model.remove(i);
                        model.insert(0, e);
                        e
                    });
                    assert_eq!(m.repeat(i), expected);
                }
                _ => assert_eq!(m.position(&v), model.iter().position(|&e| e == v)),
            }
            assert_eq!(contents(&m), model);
        }
    }
}
