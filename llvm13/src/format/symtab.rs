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
    values: FxHashMap<(TypeSlot, u32), &'a [u8]>,
    types: FxHashMap<TypeSlot, &'a [u8]>,
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
        let mut values = FxHashMap::default();
        for p in &table.planes {
            let ty = plane(p.ty);
            for e in &p.entries {
                values.entry((ty, e.slot)).or_insert(e.name.as_slice());
            }
        }
        let mut types = FxHashMap::default();
        for t in &table.types {
            types.entry(t.ty).or_insert(t.name.as_slice());
        }
        Self { values, types }
    }

    /// The name of value `slot` of `plane`, if any.
    pub fn name_of(&self, plane: TypeSlot, slot: u32) -> Option<&'a [u8]> {
        self.values.get(&(plane, slot)).copied()
    }

    /// The name of type `ty`, if any.
    pub fn type_name(&self, ty: TypeSlot) -> Option<&'a [u8]> {
        self.types.get(&ty).copied()
    }
}
