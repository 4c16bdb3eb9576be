//! Compaction tables (`llvm13.md` §12): a function-local renumbering of types and module values.
//!
//! The model never shows local numbers: the reader translates every slot of a function with a table back to the
//! uncompacted numbering, and the writer decides per function, with the 1.3 writer's thresholds, whether a table pays
//! and translates the other way. Both directions use one `Compaction`.
//!
//! Writer decision (§12, confidence M): the type list is kept only when the module has a first-class (pointer) type at global
//! slot 64 or above; a value plane is kept unless (null + module values + function values) < 64, or the function
//! defines no values in it and every module slot it references is below 64; the block is written when a type list or
//! a plane survives. Entries, types and planes are ordered by first use: argument types, then per instruction its
//! result type, its type field and its operands, then the function symbol table.

use rustc_hash::FxHashMap as HashMap;

use super::error::{ReadError, ReadErrorKind};
use super::planes::Planes;
use super::primitives::{vec_for, write_vbr, Reader};
use super::types::{SlotOrTypePlane, TypeNumbering, TypeSlot, Types};

/// Where a slot's plane was compacted: the global slots listed for it, and their inverse.
#[derive(Clone, Debug, Default)]
pub(crate) struct CompactPlane {
    /// The plane (canonical global type slot).
    pub plane: TypeSlot,
    /// Global slots, counting the null (0 = null, k = k-th module value).
    pub entries: Vec<u32>,
    local: HashMap<u32, u32>,
}

/// A function's compaction table.
#[derive(Clone, Debug, Default)]
pub(crate) struct Compaction {
    /// Global type slots; local slot 13 + i is `types[i]`.
    pub types: Vec<TypeSlot>,
    type_local: HashMap<TypeSlot, u32>,
    /// Compacted planes in table order.
    pub planes: Vec<CompactPlane>,
    plane_index: HashMap<TypeSlot, usize>,
}

impl Compaction {
    /// True when the table compacts nothing.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty() && self.planes.is_empty()
    }

    fn add_type(&mut self, t: TypeSlot) {
        if !t.is_primitive() && !self.type_local.contains_key(&t) {
            self.type_local.insert(t, 13 + self.types.len() as u32);
            self.types.push(t);
        }
    }

    fn add_plane(&mut self, plane: TypeSlot, entries: Vec<u32>) -> bool {
        if self.plane_index.contains_key(&plane) {
            return false;
        }
        let local = entries.iter().enumerate().map(|(i, &e)| (e, i as u32)).collect();
        self.plane_index.insert(plane, self.planes.len());
        self.planes.push(CompactPlane { plane, entries, local });
        true
    }

    /// The global type of local type slot `t`.
    pub fn type_to_global(&self, t: u32) -> Option<TypeSlot> {
        if self.types.is_empty() || t < 13 {
            Some(TypeSlot(t))
        } else {
            self.types.get((t - 13) as usize).copied()
        }
    }

    /// The local number of global type `t`.
    pub fn type_to_local(&self, t: TypeSlot) -> Option<u32> {
        if self.types.is_empty() || t.is_primitive() {
            Some(t.0)
        } else {
            self.type_local.get(&t).copied()
        }
    }

    /// The uncompacted slot of local slot `s` of `plane`, whose null offset is `base` and which has `module`
    /// module-level values.
    pub fn value_to_global(&self, plane: TypeSlot, s: u32, base: u32, module: u32) -> u32 {
        match self.plane_index.get(&plane) {
            Some(&i) if s >= base => {
                let entries = &self.planes[i].entries;
                match entries.get((s - base) as usize) {
                    Some(&e) => e,
                    None => s.saturating_sub(entries.len() as u32).saturating_add(module),
                }
            }
            _ => s,
        }
    }

    /// The local slot of uncompacted slot `s` of `plane`; `None` for a module value the table does not list.
    pub fn value_to_local(&self, plane: TypeSlot, s: u32, base: u32, module: u32) -> Option<u32> {
        match self.plane_index.get(&plane) {
            Some(&i) if s >= base => {
                let p = &self.planes[i];
                if s < base + module {
                    p.local.get(&s).map(|&k| base + k)
                } else {
                    Some(s - module + p.entries.len() as u32)
                }
            }
            _ => Some(s),
        }
    }

    /// Reads a table. `types` are the module types, `module` the module planes.
    pub fn read(
        r: &mut Reader<'_>,
        numbering: TypeNumbering,
        types: &Types<'_>,
        module: &Planes,
        revision: u32,
    ) -> Result<Compaction, ReadError> {
        let mut c = Compaction::default();
        let check_type = |t: TypeSlot, at: u64| {
            if types.contains(t) {
                Ok(t)
            } else {
                Err(ReadError::new(ReadErrorKind::TypeSlotOutOfRange { slot: t.0 }, at))
            }
        };
        if !numbering.old {
            let n = r.count(1)?;
            for _ in 0..n {
                let at = r.offset();
                let t = check_type(numbering.read(r)?, at)?;
                c.types.push(t);
            }
        }
        while !r.is_empty() {
            let at = r.offset();
            let x = r.vbr32()?;
            let (count, plane) =
                if x & 3 == 3 { (x >> 2, numbering.read_any(r)?) } else { (x & 3, numbering.translate(x >> 2)) };
            if count as usize > r.remaining() {
                let kind = ReadErrorKind::CountTooLarge { count: u64::from(count), remaining: r.remaining() as u64 };
                return Err(ReadError::new(kind, at));
            }
            match plane {
                SlotOrTypePlane::TypePlane => {
                    for _ in 0..count {
                        let tat = r.offset();
                        let t = match numbering.read_any(r)? {
                            SlotOrTypePlane::Slot(t) => check_type(t, tat)?,
                            SlotOrTypePlane::TypePlane => {
                                return Err(ReadError::new(ReadErrorKind::InvalidTypeId { id: 12 }, tat))
                            }
                        };
                        c.types.push(t);
                    }
                }
                SlotOrTypePlane::Slot(local) => {
                    let global = c
                        .type_to_global(local.0)
                        .filter(|&g| types.contains(g))
                        .ok_or_else(|| ReadError::new(ReadErrorKind::TypeSlotOutOfRange { slot: local.0 }, at))?;
                    let plane = types.canon(global);
                    let base = u32::from(types.has_null(plane, revision));
                    let mut entries = vec_for(count as usize, at)?;
                    for _ in 0..count {
                        let eat = r.offset();
                        let e = r.vbr32()?;
                        if e >= base + module.count(plane) {
                            let kind = ReadErrorKind::InvalidCompactionEntry { plane: plane.0, slot: e };
                            return Err(ReadError::new(kind, eat));
                        }
                        entries.push(e);
                    }
                    if !c.add_plane(plane, entries) {
                        return Err(ReadError::new(
                            ReadErrorKind::Malformed("compaction table lists a plane twice"),
                            at,
                        ));
                    }
                }
            }
        }
        for (i, &t) in c.types.iter().enumerate() {
            c.type_local.insert(t, 13 + i as u32);
        }
        Ok(c)
    }

    /// Appends the table (revision 3 layout).
    pub fn write(&self, out: &mut Vec<u8>) {
        write_vbr(out, self.types.len() as u64);
        for t in &self.types {
            write_vbr(out, u64::from(t.0));
        }
        for p in &self.planes {
            let local = self.type_to_local(p.plane).unwrap_or(p.plane.0);
            let count = p.entries.len() as u64;
            if count <= 2 {
                write_vbr(out, u64::from(local) << 2 | count);
            } else {
                write_vbr(out, count << 2 | 3);
                write_vbr(out, u64::from(local));
            }
            for &e in &p.entries {
                write_vbr(out, u64::from(e));
            }
        }
    }
}

/// One use the compaction decision looks at, in first-use order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Use {
    /// A type slot used by the function.
    Type(TypeSlot),
    /// The function defines a value in this (canonical) plane.
    Defines(TypeSlot),
    /// The function references slot `1` of (canonical) plane `0`.
    Value(TypeSlot, u32),
}

/// Whether compaction tables keep a type list: the module pool has a pointer type at slot 64 or above (see the
/// module doc). It depends on the module alone, so a writer asks once, not per function.
pub(crate) fn keeps_types(module_types: &[super::types::TypeDef]) -> bool {
    module_types
        .iter()
        .enumerate()
        .any(|(i, d)| matches!(d, super::types::TypeDef::Pointer(_)) && TypeSlot::from_pool_index(i).0 >= 64)
}

/// Decides the table the 1.3 writer would write for a function with these uses (see the module doc);
/// `keep_types` is [`keeps_types`] of the module.
pub(crate) fn decide(
    uses: &[Use],
    types: &Types<'_>,
    module: &Planes,
    function: &Planes,
    revision: u32,
    keep_types: bool,
) -> Compaction {
    let mut c = Compaction::default();
    let mut order: Vec<TypeSlot> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut refs: HashMap<TypeSlot, (Vec<u32>, rustc_hash::FxHashSet<u32>)> = HashMap::default();
    for u in uses {
        let plane = match *u {
            Use::Type(t) => {
                if keep_types {
                    c.add_type(t);
                }
                continue;
            }
            Use::Defines(p) => p,
            Use::Value(p, s) => {
                let base = u32::from(types.has_null(p, revision));
                if s >= base && s < base + module.count(p) {
                    let (list, set) = refs.entry(p).or_default();
                    if set.insert(s) {
                        list.push(s);
                    }
                }
                p
            }
        };
        if keep_types {
            c.add_type(plane);
        }
        refs.entry(plane).or_default();
        if seen.insert(plane) {
            order.push(plane);
        }
    }
    for plane in order {
        let base = u32::from(types.has_null(plane, revision));
        let (list, _) = refs.remove(&plane).unwrap_or_default();
        let size = base + module.count(plane) + function.count(plane);
        let defines = function.count(plane) > 0;
        if size < 64 || (!defines && list.iter().all(|&s| s < 64)) {
            continue;
        }
        c.add_plane(plane, list);
    }
    c
}
