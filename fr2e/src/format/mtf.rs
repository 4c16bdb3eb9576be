//! The move-to-front lists of the VOP stream (`fr2e.md` A13).
//!
//! Each list holds at most 32 entries, most recent first. A literal is pushed at the front without removing
//! duplicates, and the oldest entry falls off (B44); a repeat of index i moves entry i to the front. The list is a
//! ring buffer, so a push is O(1) and a repeat of index i costs i moves; encoders search it linearly, which is cheap
//! for 32 entries and is exactly the canonical rule ("if the value is in the list, repeat it").

use super::limits::MTF_CAPACITY;

/// A move-to-front list of at most [`MTF_CAPACITY`] entries.
#[derive(Clone, Debug)]
pub struct Mtf<T: Copy + PartialEq> {
    items: [T; MTF_CAPACITY],
    head: usize,
    len: usize,
}

impl<T: Copy + PartialEq> Mtf<T> {
    /// An empty list; `filler` only occupies unused slots.
    pub fn new(filler: T) -> Self {
        Self { items: [filler; MTF_CAPACITY], head: 0, len: 0 }
    }

    /// Number of entries (at most 32).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the list has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot(&self, index: usize) -> usize {
        (self.head + index) % MTF_CAPACITY
    }

    /// Entry `index` (0 = most recent), if present.
    pub fn get(&self, index: usize) -> Option<T> {
        (index < self.len).then(|| self.items[self.slot(index)])
    }

    /// Inserts `value` at the front; the 33rd entry falls off.
    pub fn push(&mut self, value: T) {
        self.head = (self.head + MTF_CAPACITY - 1) % MTF_CAPACITY;
        self.items[self.head] = value;
        self.len = (self.len + 1).min(MTF_CAPACITY);
    }

    /// Moves entry `index` to the front and returns it; `None` when `index` is beyond the list.
    pub fn repeat(&mut self, index: usize) -> Option<T> {
        let value = self.get(index)?;
        for k in (1..=index).rev() {
            self.items[self.slot(k)] = self.items[self.slot(k - 1)];
        }
        self.items[self.head] = value;
        Some(value)
    }

    /// The index of the most recent entry equal to `value`.
    pub fn position(&self, value: &T) -> Option<usize> {
        (0..self.len).find(|&i| self.items[self.slot(i)] == *value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(m: &Mtf<u32>) -> Vec<u32> {
        (0..m.len()).map(|i| m.get(i).unwrap()).collect()
    }

    #[test]
    fn push_repeat_and_capacity() {
        let mut m = Mtf::new(0u32);
        assert_eq!(m.get(0), None);
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
        for v in 100..140 {
            m.push(v);
        }
        assert_eq!(m.len(), 32);
        assert_eq!(m.get(0), Some(139));
        assert_eq!(m.get(31), Some(108));
        assert_eq!(m.repeat(31), Some(108));
        assert_eq!(m.get(1), Some(139));
        assert_eq!(m.get(31), Some(109));
    }
}
