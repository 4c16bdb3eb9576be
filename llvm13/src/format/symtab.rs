//! Symbol tables (`llvm13.md` §9): type names, then value planes of (slot, name) entries until the block end.
//!
//! The model keeps file order. Value slots are in the plane's uncompacted numbering; in the label plane (12) a slot
//! is a basic-block index. [`SymbolTable::sort`] applies the writer order this crate documents for tables it builds:
//! type names by name, planes by increasing type slot (the 1.3 writer used type-object addresses, which are not
//! reproducible, §15 question 4), entries by name bytes.
//!
//! [`SymbolTable::name_of`] and [`SymbolTable::type_name`] scan the table; whoever looks up many names (a reader
//! of a module with a name per function) builds a [`SymbolIndex`] once instead, which answers the same lookups by
//! hashing: the first entry in file order wins, as it does for the scans.

use rustc_hash::FxHashMap;

use super::types::TypeSlot;

/// A symbol table of a module or a function.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct SymbolTable {
    /// Named types.
    pub types: Vec<TypeName>,
    /// Named values, one plane per type.
    pub planes: Vec<SymbolPlane>,
}

/// A type and its name.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TypeName {
    /// The named type.
    pub ty: TypeSlot,
    /// The name, as bytes.
    pub name: Vec<u8>,
}

/// The names of values of one type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SymbolPlane {
    /// The plane's type (12 for basic blocks).
    pub ty: TypeSlot,
    /// The names.
    pub entries: Vec<Symbol>,
}

/// A value slot and its name.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Symbol {
    /// Slot in the plane (a block index in the label plane).
    pub slot: u32,
    /// The name, as bytes.
    pub name: Vec<u8>,
}

impl SymbolTable {
    /// True when the table names nothing (the writer then omits the block).
    pub fn is_empty(&self) -> bool {
        self.types.is_empty() && self.planes.is_empty()
    }

    /// Puts the table in this crate's deterministic writer order: type names sorted by name, planes by type slot
    /// with empty planes dropped, entries by name.
    pub fn sort(&mut self) {
        self.types.sort_by(|a, b| a.name.cmp(&b.name));
        self.planes.retain(|p| !p.entries.is_empty());
        self.planes.sort_by_key(|p| p.ty);
        for p in &mut self.planes {
            p.entries.sort_by(|a, b| a.name.cmp(&b.name));
        }
    }

    /// The name of value `slot` of `plane`, if any: the first such entry in file order. This scans the table;
    /// [`SymbolIndex`] answers repeated lookups in constant time.
    pub fn name_of(&self, plane: TypeSlot, slot: u32) -> Option<&[u8]> {
        self.planes
            .iter()
            .filter(|p| p.ty == plane)
            .flat_map(|p| &p.entries)
            .find(|e| e.slot == slot)
            .map(|e| e.name.as_slice())
    }

    /// The name of type `ty`, if any: the first such entry in file order. This scans the table, like
    /// [`SymbolTable::name_of`].
    pub fn type_name(&self, ty: TypeSlot) -> Option<&[u8]> {
        self.types.iter().find(|t| t.ty == ty).map(|t| t.name.as_slice())
    }
}

/// The names of a [`SymbolTable`], indexed for lookups in constant time; the first entry in file order wins, so an
/// index answers exactly what [`SymbolTable::name_of`] and [`SymbolTable::type_name`] answer.
///
/// ```
/// use llvm13::format::{Symbol, SymbolIndex, SymbolPlane, SymbolTable, TypeSlot};
/// let plane = |name: &[u8]| SymbolPlane { ty: TypeSlot::INT, entries: vec![Symbol { slot: 1, name: name.to_vec() }] };
/// let table = SymbolTable { types: Vec::new(), planes: vec![plane(b"first"), plane(b"second")] };
/// let index = SymbolIndex::new(&table);
/// assert_eq!(index.name_of(TypeSlot::INT, 1), Some(&b"first"[..]));
/// assert_eq!(index.name_of(TypeSlot::INT, 1), table.name_of(TypeSlot::INT, 1));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SymbolIndex<'a> {
    /// The names of a small table, (plane, slot, name) in file order, searched in turn: cheaper than building
    /// tables for the few names a function usually has.
    few: Vec<(TypeSlot, u32, &'a [u8])>,
    values: FxHashMap<TypeSlot, PlaneNames<'a>>,
    types: FxHashMap<TypeSlot, &'a [u8]>,
}

/// Tables with at most this many value names are searched rather than indexed.
const FEW: usize = 16;

/// The names of one plane: in a vector by slot when the slots are dense enough (the usual case, and the one that
/// keeps a walk over the slots in order from missing the cache at every name), else hashed.
#[derive(Clone, Debug)]
enum PlaneNames<'a> {
    Dense(Vec<Option<&'a [u8]>>),
    Sparse(FxHashMap<u32, &'a [u8]>),
}

impl<'a> PlaneNames<'a> {
    /// Room for `count` names of slots up to `max`.
    fn new(count: usize, max: u32) -> Self {
        if (max as usize) < 2 * count + 64 {
            PlaneNames::Dense(vec![None; max as usize + 1])
        } else {
            PlaneNames::Sparse(FxHashMap::with_capacity_and_hasher(count, Default::default()))
        }
    }

    /// Names `slot` unless it is named already.
    fn insert(&mut self, slot: u32, name: &'a [u8]) {
        match self {
            PlaneNames::Dense(names) => {
                if let Some(entry @ None) = names.get_mut(slot as usize) {
                    *entry = Some(name);
                }
            }
            PlaneNames::Sparse(names) => {
                names.entry(slot).or_insert(name);
            }
        }
    }

    fn get(&self, slot: u32) -> Option<&'a [u8]> {
        match self {
            PlaneNames::Dense(names) => names.get(slot as usize).copied().flatten(),
            PlaneNames::Sparse(names) => names.get(&slot).copied(),
        }
    }
}

impl<'a> SymbolIndex<'a> {
    /// Indexes `table` by the planes as written.
    pub fn new(table: &'a SymbolTable) -> Self {
        Self::with_planes(table, |plane| plane)
    }

    /// Indexes `table` with every plane replaced by `plane(p)` (a caller that looks names up by canonical plane
    /// passes the canonicalisation, so planes that name the same type pool entry are searched together, in file
    /// order).
    pub fn with_planes(table: &'a SymbolTable, plane: impl Fn(TypeSlot) -> TypeSlot) -> Self {
        let types = table.types.iter().rev().map(|t| (t.ty, t.name.as_slice())).collect();
        let names = table.planes.iter().map(|p| p.entries.len()).sum::<usize>();
        if names <= FEW {
            let few = table
                .planes
                .iter()
                .flat_map(|p| p.entries.iter().map(move |e| (p.ty, e)))
                .map(|(ty, e)| (plane(ty), e.slot, e.name.as_slice()))
                .collect();
            return Self { few, values: FxHashMap::default(), types };
        }
        // First the number of names and the largest slot of each plane, then the names, the first of a slot kept.
        let mut sizes: FxHashMap<TypeSlot, (usize, u32)> = FxHashMap::default();
        for p in &table.planes {
            let (count, max) = sizes.entry(plane(p.ty)).or_insert((0, 0));
            *count += p.entries.len();
            *max = p.entries.iter().map(|e| e.slot).fold(*max, u32::max);
        }
        let mut values: FxHashMap<TypeSlot, PlaneNames<'a>> =
            sizes.into_iter().map(|(ty, (count, max))| (ty, PlaneNames::new(count, max))).collect();
        for p in &table.planes {
            if let Some(names) = values.get_mut(&plane(p.ty)) {
                for e in &p.entries {
                    names.insert(e.slot, &e.name);
                }
            }
        }
        Self { few: Vec::new(), values, types }
    }

    /// The name of value `slot` of `plane`, if any.
    pub fn name_of(&self, plane: TypeSlot, slot: u32) -> Option<&'a [u8]> {
        if let Some(&(_, _, name)) = self.few.iter().find(|&&(p, s, _)| p == plane && s == slot) {
            return Some(name);
        }
        self.values.get(&plane)?.get(slot)
    }

    /// The name of type `ty`, if any.
    pub fn type_name(&self, ty: TypeSlot) -> Option<&'a [u8]> {
        self.types.get(&ty).copied()
    }
}
