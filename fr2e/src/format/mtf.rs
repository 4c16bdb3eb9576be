//! The move-to-front lists of the VOP stream (`fr2e.md` A13).
//!
//! Each list holds at most 32 entries, most recent first. A literal is pushed at the front without removing
//! duplicates, and the oldest entry falls off (B44); a repeat of index i moves entry i to the front. Entries stay in
//! 32 fixed slots and the order is a permutation of slot numbers packed into two `u128`s, so a push or a repeat of
//! any index is a handful of shifts and masks.
//!
//! Encoders must find "the most recent entry equal to this value" for every field they write (the canonical rule of
//! A13), so beside each entry the list keeps a 32-bit digest ([`MtfItem::key`]) by slot. A search compares the 32
//! digests at once into a bit mask (a loop the compiler turns into a few vector compares), confirms candidates with
//! `==`, and finds the list position of the slot in the packed order; equal values have equal digests, so a digest
//! collision costs one extra comparison and never a wrong answer. Decoders never search and use the plain [`Mtf`].

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

const ONES: u128 = u128::MAX / 0xFF;
const HIGHS: u128 = ONES << 7;

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
        if position < 8 {
            // Most repeats are of recent entries: the first eight positions in one 64-bit word.
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&self.0[..8]);
            let first = u64::from_le_bytes(bytes);
            let keep = u64::MAX.checked_shl(8 * (position as u32 + 1)).unwrap_or(0);
            let moved = (first & keep) | ((first << 8) & !keep) | slot as u64;
            self.0[..8].copy_from_slice(&moved.to_le_bytes());
            return slot;
        }
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

    /// The list position of `slot`.
    #[inline]
    fn position(&self, slot: usize) -> usize {
        // The first zero byte of `half ^ slot × ONES` (the classic "has a zero byte" test: the lowest flagged byte
        // is exact); 16 when there is none.
        let find = |half: u128| {
            let x = half ^ (ONES * slot as u128);
            (x.wrapping_sub(ONES) & !x & HIGHS).trailing_zeros() as usize / 8
        };
        match find(self.half(0)) {
            16 => 16 + find(self.half(1)),
            p => p,
        }
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

    /// The slots that hold entries: a push takes the slot at position 31, so the first 32 pushes fill slots 31
    /// down to 0.
    #[inline]
    fn live_slots(&self) -> u32 {
        if self.len >= MTF_CAPACITY {
            u32::MAX
        } else {
            !(u32::MAX >> self.len)
        }
    }
}

/// A move-to-front list that encoders can search: the entries and, by slot, their digests.
#[derive(Clone, Debug)]
pub struct SearchMtf<T: MtfItem> {
    list: Mtf<T>,
    keys: [u32; MTF_CAPACITY],
}

impl<T: MtfItem> SearchMtf<T> {
    /// An empty list; `filler` only occupies unused slots.
    pub fn new(filler: T) -> Self {
        Self { list: Mtf::new(filler), keys: [0; MTF_CAPACITY] }
    }

    /// Number of entries (at most 32).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when the list has no entries.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Entry `index` (0 = most recent), if present.
    pub fn get(&self, index: usize) -> Option<T> {
        self.list.get(index)
    }

    /// Inserts `value` at the front; the 33rd entry falls off.
    #[inline]
    pub fn push(&mut self, value: T) {
        let slot = self.list.push_slot(value);
        self.keys[slot] = value.key();
    }

    /// Moves entry `index` to the front and returns it; `None` when `index` is beyond the list.
    #[inline]
    pub fn repeat(&mut self, index: usize) -> Option<T> {
        self.list.repeat(index)
    }

    /// The index of the most recent entry equal to `value`.
    #[inline]
    pub fn position(&self, value: &T) -> Option<usize> {
        let key = value.key();
        let mut slots = 0u32;
        for (i, &k) in self.keys.iter().enumerate() {
            slots |= u32::from(k == key) << i;
        }
        let mut candidates = slots & self.list.live_slots();
        let mut best: Option<usize> = None;
        while candidates != 0 {
            let slot = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            if self.list.items[slot] == *value {
                // Several slots match only when a caller pushed a value already in the list.
                let position = self.list.order.position(slot);
                best = Some(best.map_or(position, |b| b.min(position)));
            }
        }
        best
    }

    /// [`find_or_push`](Self::find_or_push) for a caller that keeps, per value, the slot the list last gave it
    /// (`slot`, initially `u8::MAX`, updated here). Entries never change slots while in the list, so the value is in
    /// the list exactly when its slot still holds it, and no search is needed. The caller must pass the same cell on
    /// every write of the value to this list; a value that may also have been written through another method must
    /// use `find_or_push`.
    #[inline]
    pub fn find_or_push_at(&mut self, value: &T, slot: &mut u8) -> Option<usize> {
        let s = usize::from(*slot);
        if s < MTF_CAPACITY && self.list.live_slots() >> s & 1 != 0 && self.list.items[s] == *value {
            let position = self.list.order.position(s);
            self.list.order.move_to_front(position);
            return Some(position);
        }
        debug_assert_eq!(self.position(value), None, "a value was written without its slot cell");
        let new = self.list.push_slot(*value);
        self.keys[new] = value.key();
        *slot = new as u8;
        None
    }

    /// The canonical reference to `value` (A13): a repeat of its most recent entry, which moves to the front (the
    /// index is returned), or else a push (`None`).
    #[inline]
    pub fn find_or_push(&mut self, value: &T) -> Option<usize> {
        match self.position(value) {
            Some(i) => {
                self.list.order.move_to_front(i);
                Some(i)
            }
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
