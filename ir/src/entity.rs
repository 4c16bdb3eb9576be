//! Typed `u32` ids and the tables they index.
//!
//! Every IR object lives in a vector owned by the module and is named by a small
//! newtype id (`ValueId`, `BlockId`, …). Ids cannot be mixed up, are 4 bytes,
//! `Copy` and lifetime-free, and their creation order gives deterministic output;
//! they are also exactly the slots both binary formats number. `u32::MAX` is
//! reserved so that [`PackedOption`] can store "none" in the same 4 bytes.
//!
//! [`ListPool`] keeps variable-length operand lists (call arguments, phi inputs,
//! gep indices, switch cases) for a whole module in one `Vec<u32>`, so no
//! instruction owns a heap allocation of its own.

use std::fmt;
use std::marker::PhantomData;

/// A typed index into an entity table.
pub trait EntityRef: Copy + Eq {
    /// Builds the id for table index `index`; panics past `u32::MAX - 1`
    /// entities, which no table reaches because inputs are limited first.
    fn new(index: usize) -> Self;
    /// The table index this id names.
    fn index(self) -> usize;
    /// The id with raw number `n`, which the caller knows is not `u32::MAX`.
    fn from_raw(n: u32) -> Self;
}

macro_rules! entity {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            /// The id with raw number `n` (as printed after the sigil).
            pub const fn from_u32(n: u32) -> Self {
                Self(n)
            }
            /// The raw number of this id.
            pub const fn as_u32(self) -> u32 {
                self.0
            }
        }

        impl EntityRef for $name {
            #[inline]
            fn new(index: usize) -> Self {
                match u32::try_from(index) {
                    Ok(n) if n != u32::MAX => Self(n),
                    _ => panic!(concat!("too many ", stringify!($name), " entities")),
                }
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
            #[inline]
            fn from_raw(n: u32) -> Self {
                Self(n)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// An SSA value: a function parameter or an instruction result, printed `%vN`.
    ValueId,
    "%v"
);
entity!(
    /// A basic block, printed `%bN` (format 4) or as its bare number (format 2).
    BlockId,
    "%b"
);
entity!(
    /// A function identity (declaration index), printed `@fN`.
    FunctionId,
    "@f"
);
entity!(
    /// A module global, printed `@gN`.
    GlobalId,
    "@g"
);
entity!(
    /// An instruction's position in the module's instruction table.
    InstId,
    "inst"
);
entity!(
    /// An interned type of one module.
    TypeId,
    "type"
);
entity!(
    /// An interned function signature of one module.
    SigId,
    "sig"
);
entity!(
    /// An interned string (names, trap reasons, link names) of one module.
    StrId,
    "str"
);
entity!(
    /// An entry of a module's constant table (wide payloads and switch keys).
    ConstId,
    "const"
);
entity!(
    /// A `const_decl` record (name, expression tree, cached value) of one module.
    ConstDeclId,
    "const_decl"
);

/// An `Option<T>` in the 4 bytes of `T`, using the reserved `u32::MAX`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackedOption<T: EntityRef>(u32, PhantomData<T>);

impl<T: EntityRef> PackedOption<T> {
    /// The empty option.
    pub const NONE: Self = Self(u32::MAX, PhantomData);

    /// Packs `value`.
    #[inline]
    pub fn some(value: T) -> Self {
        Self(value.index() as u32, PhantomData)
    }

    /// Unpacks into a plain `Option`.
    #[inline]
    pub fn expand(self) -> Option<T> {
        if self.0 == u32::MAX {
            None
        } else {
            Some(T::from_raw(self.0))
        }
    }

    /// Whether this holds a value.
    #[inline]
    pub fn is_some(self) -> bool {
        self.0 != u32::MAX
    }
}

impl<T: EntityRef> From<Option<T>> for PackedOption<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::NONE, Self::some)
    }
}

impl<T: EntityRef + fmt::Debug> fmt::Debug for PackedOption<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.expand().fmt(f)
    }
}

impl<T: EntityRef> Default for PackedOption<T> {
    fn default() -> Self {
        Self::NONE
    }
}

/// A table that creates its keys: `push` returns the new entity's id.
#[derive(Clone, PartialEq, Eq)]
pub struct PrimaryMap<K: EntityRef, V> {
    items: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    /// An empty table.
    pub const fn new() -> Self {
        Self { items: Vec::new(), _key: PhantomData }
    }
    /// Appends `value` and returns its id.
    #[inline]
    pub fn push(&mut self, value: V) -> K {
        let key = K::new(self.items.len());
        self.items.push(value);
        key
    }
    /// The entry for `key`, if it exists.
    #[inline]
    pub fn get(&self, key: K) -> Option<&V> {
        self.items.get(key.index())
    }
    /// The entry for `key`, mutably.
    #[inline]
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        self.items.get_mut(key.index())
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The id the next `push` will return.
    pub fn next_key(&self) -> K {
        K::new(self.items.len())
    }
    /// Entries with their ids, in id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (K, &V)> + '_ {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// Entries in id order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.items.iter()
    }
    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
    }
    /// Heap bytes held by this table (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<V>()
    }
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V> std::ops::Index<K> for PrimaryMap<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, key: K) -> &V {
        &self.items[key.index()]
    }
}

impl<K: EntityRef, V> std::ops::IndexMut<K> for PrimaryMap<K, V> {
    #[inline]
    fn index_mut(&mut self, key: K) -> &mut V {
        &mut self.items[key.index()]
    }
}

impl<K: EntityRef + fmt::Debug, V: fmt::Debug> fmt::Debug for PrimaryMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A side table keyed by ids of another table; absent keys read as the default.
#[derive(Clone)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    items: Vec<V>,
    default: V,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// An empty map whose absent entries read as `default`.
    pub fn with_default(default: V) -> Self {
        Self { items: Vec::new(), default, _key: PhantomData }
    }
    /// The entry for `key` (the default when never set).
    #[inline]
    pub fn get(&self, key: K) -> &V {
        self.items.get(key.index()).unwrap_or(&self.default)
    }
    /// Sets the entry for `key`, growing the table as needed.
    #[inline]
    pub fn set(&mut self, key: K, value: V) {
        let i = key.index();
        if i >= self.items.len() {
            self.items.resize(i + 1, self.default.clone());
        }
        self.items[i] = value;
    }
    /// Resets every entry to the default, keeping the allocation.
    pub fn clear(&mut self) {
        self.items.clear();
    }
    /// Grows the table so that `len` keys are stored densely.
    pub fn resize(&mut self, len: usize) {
        self.items.resize(len, self.default.clone());
    }
}

/// A handle to a list of `u32`s in a [`ListPool`]: the index of its first element,
/// whose preceding slot holds the length. `0` is the empty list.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct EntityList(u32);

impl EntityList {
    /// The empty list.
    pub const EMPTY: Self = Self(0);

    /// Whether this is the empty list.
    pub fn is_empty_handle(self) -> bool {
        self.0 == 0
    }
}

/// Storage for many variable-length `u32` lists.
///
/// Blocks come in power-of-two size classes (4, 8, 16, … slots including the
/// length slot); a list that outgrows its block moves to the next class and its
/// old block joins that class's free list, so pushing is amortised O(1) and freed
/// space is reused.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ListPool {
    data: Vec<u32>,
    free: Vec<u32>,
}

const MIN_CLASS_LOG2: u32 = 2;

impl ListPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self { data: Vec::new(), free: Vec::new() }
    }

    fn class_of(slots: usize) -> u32 {
        (slots.next_power_of_two().trailing_zeros()).max(MIN_CLASS_LOG2) - MIN_CLASS_LOG2
    }

    fn alloc(&mut self, class: u32) -> usize {
        if self.data.is_empty() {
            // Slot 0 stays unused so that handle 0 can mean "empty".
            self.data.push(0);
        }
        let c = class as usize;
        if let Some(&head) = self.free.get(c) {
            if head != 0 {
                let at = head as usize;
                self.free[c] = self.data[at];
                return at;
            }
        }
        let at = self.data.len();
        self.data.resize(at + (1usize << (class + MIN_CLASS_LOG2)), 0);
        at
    }

    fn release(&mut self, at: usize, class: u32) {
        let c = class as usize;
        if self.free.len() <= c {
            self.free.resize(c + 1, 0);
        }
        self.data[at] = self.free[c];
        self.free[c] = at as u32;
    }

    /// Stores `items` as a new list.
    pub fn make(&mut self, items: &[u32]) -> EntityList {
        self.make_from(items.len(), items.iter().copied())
    }

    /// Stores the `len` items of `items` as a new list, without a staging vector.
    pub fn make_from(&mut self, len: usize, items: impl IntoIterator<Item = u32>) -> EntityList {
        if len == 0 {
            return EntityList::EMPTY;
        }
        let at = self.alloc(Self::class_of(len + 1));
        self.data[at] = len as u32;
        for (slot, item) in self.data[at + 1..at + 1 + len].iter_mut().zip(items) {
            *slot = item;
        }
        EntityList(at as u32 + 1)
    }

    /// The elements of `list`.
    #[inline]
    pub fn get(&self, list: EntityList) -> &[u32] {
        if list.0 == 0 {
            return &[];
        }
        let start = list.0 as usize;
        let len = self.data[start - 1] as usize;
        &self.data[start..start + len]
    }

    /// The elements of `list`, mutably.
    pub fn get_mut(&mut self, list: EntityList) -> &mut [u32] {
        if list.0 == 0 {
            return &mut [];
        }
        let start = list.0 as usize;
        let len = self.data[start - 1] as usize;
        &mut self.data[start..start + len]
    }

    /// Appends `items` to `list`, which may move; returns the new handle.
    pub fn extend(&mut self, list: EntityList, items: &[u32]) -> EntityList {
        if list.0 == 0 {
            return self.make(items);
        }
        let start = list.0 as usize;
        let len = self.data[start - 1] as usize;
        let new_len = len + items.len();
        let old_class = Self::class_of(len + 1);
        let new_class = Self::class_of(new_len + 1);
        if old_class == new_class {
            self.data[start + len..start + new_len].copy_from_slice(items);
            self.data[start - 1] = new_len as u32;
            return list;
        }
        let at = self.alloc(new_class);
        self.data.copy_within(start..start + len, at + 1);
        self.data[at] = new_len as u32;
        self.data[at + 1 + len..at + 1 + new_len].copy_from_slice(items);
        self.release(start - 1, old_class);
        EntityList(at as u32 + 1)
    }

    /// Shortens `list` to its first `len` elements, in place (`len` at most its length).
    pub fn truncate(&mut self, list: EntityList, len: usize) -> EntityList {
        if list.0 == 0 {
            return list;
        }
        let start = list.0 as usize;
        let old = self.data[start - 1] as usize;
        if len == 0 {
            self.release(start - 1, Self::class_of(old + 1));
            return EntityList::EMPTY;
        }
        self.data[start - 1] = len.min(old) as u32;
        list
    }

    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.data.shrink_to_fit();
    }

    /// Heap bytes held by the pool.
    pub fn heap_bytes(&self) -> usize {
        (self.data.capacity() + self.free.capacity()) * 4
    }
}

impl fmt::Debug for ListPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ListPool({} slots)", self.data.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_option_round_trips() {
        let none: PackedOption<ValueId> = PackedOption::NONE;
        assert_eq!(none.expand(), None);
        let some = PackedOption::some(ValueId::from_u32(7));
        assert_eq!(some.expand(), Some(ValueId::from_u32(7)));
        assert_eq!(std::mem::size_of::<PackedOption<ValueId>>(), 4);
    }

    #[test]
    fn ids_debug_like_the_ir() {
        assert_eq!(format!("{:?}", ValueId::from_u32(3)), "%v3");
        assert_eq!(format!("{}", FunctionId::from_u32(1)), "@f1");
    }

    #[test]
    fn list_pool_grows_moves_and_reuses() {
        let mut pool = ListPool::new();
        let a = pool.make(&[1, 2]);
        let b = pool.make(&[9]);
        let mut a2 = a;
        for i in 3..=20 {
            a2 = pool.extend(a2, &[i]);
        }
        assert_eq!(pool.get(a2), (1..=20).collect::<Vec<_>>().as_slice());
        assert_eq!(pool.get(b), &[9]);
        // The block `a` first lived in is free again and reused by a list of its class.
        let c = pool.make(&[5, 6]);
        assert_eq!(c, a);
        assert_eq!(pool.get(EntityList::EMPTY), &[] as &[u32]);
        assert_eq!(pool.extend(EntityList::EMPTY, &[]), EntityList::EMPTY);
    }

    #[test]
    fn secondary_map_defaults() {
        let mut m: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(9);
        assert_eq!(*m.get(BlockId::from_u32(4)), 9);
        m.set(BlockId::from_u32(4), 1);
        assert_eq!(*m.get(BlockId::from_u32(4)), 1);
        assert_eq!(*m.get(BlockId::from_u32(2)), 9);
    }
}
