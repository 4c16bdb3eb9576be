//! Value planes: how many values each type plane holds at module level and inside a function, and the values of
//! the integer constants a getelementptr struct index may name (`llvm13.md` §5.1).
//!
//! A plane is keyed by its canonical type slot (a pool entry that only names a primitive shares the primitive's
//! plane). Slot 0 is the implicit null except in void and label planes (and, in revision 0, primitive planes, whose
//! zeros are written explicitly and counted here like any constant).

use rustc_hash::FxHashMap as HashMap;

use super::constant::Constant;
use super::module::Module;
use super::types::{TypeDef, TypeSlot, Types};

/// Value counts per plane, not counting implicit nulls, plus the plain `ubyte`/`uint` constants by slot.
#[derive(Clone, Debug, Default)]
pub(crate) struct Planes {
    counts: HashMap<TypeSlot, u32>,
    ints: HashMap<(TypeSlot, u32), u64>,
}

impl Planes {
    /// Forgets every value, keeping the room of small tables (clearing a table takes time in its room, so a large
    /// one is dropped rather than cleared for every later function).
    pub fn clear(&mut self) {
        const KEEP: usize = 256;
        if self.counts.capacity() > KEEP || self.ints.capacity() > KEEP {
            *self = Self::default();
        } else {
            self.counts.clear();
            self.ints.clear();
        }
    }

    /// Number of values in `plane` (canonical), nulls not counted.
    pub fn count(&self, plane: TypeSlot) -> u32 {
        self.counts.get(&plane).copied().unwrap_or(0)
    }

    /// Appends a value to `plane` (canonical) and returns its index among the plane's values.
    pub fn push(&mut self, plane: TypeSlot) -> u32 {
        let c = self.counts.entry(plane).or_insert(0);
        *c += 1;
        *c - 1
    }

    /// Records that slot `slot` of `plane` is the plain integer `value`.
    pub fn set_int(&mut self, plane: TypeSlot, slot: u32, value: u64) {
        self.ints.insert((plane, slot), value);
    }

    /// The plain integer at slot `slot` of `plane`, if it is one.
    pub fn int(&self, plane: TypeSlot, slot: u32) -> Option<u64> {
        self.ints.get(&(plane, slot)).copied()
    }
}

/// Integer planes whose constants a getelementptr struct index may name.
pub(crate) fn is_index_plane(plane: TypeSlot) -> bool {
    plane == TypeSlot::UINT || plane == TypeSlot::UBYTE
}

/// Adds one constant of `plane` to `planes`, recording plain struct-index integers.
pub(crate) fn push_constant(planes: &mut Planes, types: &Types<'_>, revision: u32, plane: TypeSlot, c: &Constant) {
    let canon = types.canon(plane);
    let index = planes.push(canon);
    if is_index_plane(canon) {
        if let Constant::Unsigned(v) = c {
            let slot = index + u32::from(types.has_null(canon, revision));
            planes.set_int(canon, slot, *v);
        }
    }
}

/// The module-level planes of `m`: globals, functions, strings and module constants.
pub(crate) fn module_planes(m: &Module) -> Planes {
    let types = Types::module(&m.types);
    let mut planes = Planes::default();
    for g in &m.globals {
        planes.push(types.canon(g.ty));
    }
    for f in &m.functions {
        planes.push(types.canon(f.ty));
    }
    for s in &m.constants.strings {
        planes.push(types.canon(s.ty));
    }
    for p in &m.constants.planes {
        for c in &p.constants {
            push_constant(&mut planes, &types, m.revision, p.ty, c);
        }
    }
    planes
}

/// Every (plane, slot) a constant of `plane` refers to.
pub(crate) fn constant_refs(types: &Types<'_>, plane: TypeSlot, c: &Constant) -> Vec<(TypeSlot, u32)> {
    match (c, types.get(plane)) {
        (Constant::Array(elements), Some(super::types::Ty::Def(TypeDef::Array { element, .. }))) => {
            elements.iter().map(|&e| (*element, e)).collect()
        }
        (Constant::Struct(values), Some(super::types::Ty::Def(TypeDef::Struct(fields)))) => {
            fields.iter().copied().zip(values.iter().copied()).collect()
        }
        (Constant::Expr { operands, .. }, _) => operands.iter().map(|o| (o.ty, o.slot)).collect(),
        _ => Vec::new(),
    }
}
