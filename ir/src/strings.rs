//! The module string table: names, trap reasons and link names, interned.
//!
//! Block names repeat constantly (`entry`, `if.then`, …), so interning keeps one
//! copy of each and gives instructions a 4-byte [`StrId`] instead of a `String`.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::entity::{EntityRef, StrId};

/// Interned strings of one module, stored back to back in one buffer.
#[derive(Clone, Default)]
pub struct StringTable {
    text: String,
    spans: Vec<(u32, u32)>,
    index: HashTable<StrId>,
    hasher: FxBuildHasher,
}

impl StringTable {
    /// The id of `s`, adding it if new.
    pub fn intern(&mut self, s: &str) -> StrId {
        let Self { text, spans, index, hasher } = self;
        let hash = hasher.hash_one(s);
        if let Some(&id) = index.find(hash, |&id| get(text, spans, id) == s) {
            return id;
        }
        let id = StrId::new(spans.len());
        let start = text.len() as u32;
        text.push_str(s);
        spans.push((start, text.len() as u32));
        index.insert_unique(hash, id, |&id| hasher.hash_one(get(text, spans, id)));
        id
    }

    /// The text of `id`.
    #[inline]
    pub fn get(&self, id: StrId) -> &str {
        let (start, end) = self.spans[id.index()];
        &self.text[start as usize..end as usize]
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether no string was interned.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.spans.shrink_to_fit();
    }

    /// Heap bytes held by the table.
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.spans.capacity() * 8 + self.index.capacity() * 4
    }
}

fn get<'t>(text: &'t str, spans: &[(u32, u32)], id: StrId) -> &'t str {
    let (start, end) = spans[id.index()];
    &text[start as usize..end as usize]
}

impl PartialEq for StringTable {
    fn eq(&self, other: &Self) -> bool {
        self.spans.len() == other.spans.len()
            && (0..self.spans.len()).all(|i| self.get(StrId::new(i)) == other.get(StrId::new(i)))
    }
}

impl Eq for StringTable {}

impl std::fmt::Debug for StringTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries((0..self.spans.len()).map(|i| self.get(StrId::new(i)))).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_dedups() {
        let mut t = StringTable::default();
        let a = t.intern("entry");
        let b = t.intern("loop");
        assert_eq!(t.intern("entry"), a);
        assert_ne!(a, b);
        assert_eq!(t.get(b), "loop");
        assert_eq!(t.intern(""), t.intern(""));
        assert_eq!(t.len(), 3);
    }
}
