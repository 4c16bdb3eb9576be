//! How values of each IR type occupy frame slots and memory.
//!
//! A value is a sequence of 64-bit slots: one for `bool`, integers up to 64
//! bits, floats and function pointers; two for 128-bit integers (low, high) and
//! data pointers (address, provenance tag); aggregates are the concatenation of
//! their members' slots (their *leaves*). The table is computed once per module
//! by walking type ids in interning order — children are interned before their
//! parents — so no step recurses over a type. Types whose values would exceed
//! [`MAX_VALUE_SLOTS`] slots or nest deeper than [`MAX_DEPTH`] are marked
//! unsupported; a function using them as values cannot be executed (pointers to
//! them are fine).

use ir::{TypeId, TypeKey, TypeTable};

use crate::numeric::{FloatWidth, IntTy};

/// Largest number of slots one value may occupy.
pub(crate) const MAX_VALUE_SLOTS: u64 = 1 << 16;
/// Deepest type nesting the interpreter converts values of.
pub(crate) const MAX_DEPTH: u32 = 256;

/// A scalar's kind; the discriminant is its code in compiled operations.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum Kind {
    Bool,
    I1,
    I8,
    I16,
    I32,
    I64,
    I128,
    U1,
    U8,
    U16,
    U32,
    U64,
    U128,
    F16,
    F32,
    F64,
    Ptr,
    FnPtr,
}

impl Kind {
    const ALL: [Kind; 18] = [
        Kind::Bool,
        Kind::I1,
        Kind::I8,
        Kind::I16,
        Kind::I32,
        Kind::I64,
        Kind::I128,
        Kind::U1,
        Kind::U8,
        Kind::U16,
        Kind::U32,
        Kind::U64,
        Kind::U128,
        Kind::F16,
        Kind::F32,
        Kind::F64,
        Kind::Ptr,
        Kind::FnPtr,
    ];

    /// The kind of a scalar type id (`bool` … `f64`).
    pub(crate) fn of_scalar(id: TypeId) -> Option<Kind> {
        let n = id.as_u32().checked_sub(1)? as usize;
        if n < 16 {
            Kind::ALL.get(n).copied()
        } else {
            None
        }
    }

    /// The integer type of an integer kind.
    pub(crate) fn int(self) -> Option<IntTy> {
        let (bits, signed) = match self {
            Kind::I1 => (1, true),
            Kind::I8 => (8, true),
            Kind::I16 => (16, true),
            Kind::I32 => (32, true),
            Kind::I64 => (64, true),
            Kind::I128 => (128, true),
            Kind::U1 => (1, false),
            Kind::U8 => (8, false),
            Kind::U16 => (16, false),
            Kind::U32 => (32, false),
            Kind::U64 => (64, false),
            Kind::U128 => (128, false),
            _ => return None,
        };
        Some(IntTy { bits, signed })
    }

    /// The width of a float kind.
    pub(crate) fn float(self) -> Option<FloatWidth> {
        match self {
            Kind::F16 => Some(FloatWidth::F16),
            Kind::F32 => Some(FloatWidth::F32),
            Kind::F64 => Some(FloatWidth::F64),
            _ => None,
        }
    }

    /// Storage size in bytes.
    pub(crate) fn size(self) -> u64 {
        match self {
            Kind::Bool | Kind::I1 | Kind::I8 | Kind::U1 | Kind::U8 => 1,
            Kind::I16 | Kind::U16 | Kind::F16 => 2,
            Kind::I32 | Kind::U32 | Kind::F32 => 4,
            Kind::I64 | Kind::U64 | Kind::F64 | Kind::Ptr | Kind::FnPtr => 8,
            Kind::I128 | Kind::U128 => 16,
        }
    }

    /// Frame slots.
    pub(crate) fn slots(self) -> u32 {
        match self {
            Kind::I128 | Kind::U128 | Kind::Ptr => 2,
            _ => 1,
        }
    }

    /// The kind with code `code`.
    #[inline]
    pub(crate) fn from_code(code: u8) -> Kind {
        Kind::ALL.get(usize::from(code)).copied().unwrap_or(Kind::Bool)
    }
}

/// Per-type facts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Info {
    /// Slots of one value, or `None` when too large (or `void`).
    pub slots: Option<u32>,
    /// Nesting depth (scalars: 0).
    pub depth: u32,
    /// The scalar kind, for scalar types.
    pub kind: Option<Kind>,
}

/// The slot facts of every type of a module.
pub(crate) struct Shapes {
    infos: Vec<Info>,
}

const UNSUPPORTED: Info = Info { slots: None, depth: u32::MAX, kind: None };

impl Shapes {
    pub(crate) fn new(types: &TypeTable) -> Shapes {
        let mut infos: Vec<Info> = Vec::with_capacity(types.len());
        for id in types.ids() {
            let get = |infos: &Vec<Info>, child: TypeId| -> Info {
                // Children precede their parents; anything else is unsupported.
                if child.as_u32() < id.as_u32() {
                    infos.get(child.as_u32() as usize).copied().unwrap_or(UNSUPPORTED)
                } else {
                    UNSUPPORTED
                }
            };
            let info = match types.key(id) {
                TypeKey::Void => Info { slots: None, depth: 0, kind: None },
                TypeKey::Bool | TypeKey::Int { .. } | TypeKey::Float { .. } => match Kind::of_scalar(id) {
                    Some(kind) => Info { slots: Some(kind.slots()), depth: 0, kind: Some(kind) },
                    None => UNSUPPORTED,
                },
                TypeKey::Ptr(_) => Info { slots: Some(2), depth: 0, kind: Some(Kind::Ptr) },
                TypeKey::FnPtr(_) => Info { slots: Some(1), depth: 0, kind: Some(Kind::FnPtr) },
                TypeKey::Array(elem, n) => {
                    let e = get(&infos, *elem);
                    let slots = e
                        .slots
                        .and_then(|s| u64::from(s).checked_mul(*n))
                        .filter(|&s| s <= MAX_VALUE_SLOTS)
                        .map(|s| s as u32);
                    Info { slots, depth: e.depth.saturating_add(1), kind: None }
                }
                TypeKey::Struct(fields) | TypeKey::Tuple(fields) => {
                    let mut total = Some(0u64);
                    let mut depth = 0;
                    for &f in fields.iter() {
                        let fi = get(&infos, f);
                        total = match (total, fi.slots) {
                            (Some(t), Some(s)) => Some(t + u64::from(s)).filter(|&t| t <= MAX_VALUE_SLOTS),
                            _ => None,
                        };
                        depth = depth.max(fi.depth.saturating_add(1));
                    }
                    Info { slots: total.map(|t| t as u32), depth, kind: None }
                }
            };
            let info = if info.depth > MAX_DEPTH { Info { slots: None, ..info } } else { info };
            infos.push(info);
        }
        Shapes { infos }
    }

    #[inline]
    pub(crate) fn info(&self, id: TypeId) -> Info {
        self.infos.get(id.as_u32() as usize).copied().unwrap_or(UNSUPPORTED)
    }

    /// Slots of a value of type `id`, if representable.
    #[inline]
    pub(crate) fn slots(&self, id: TypeId) -> Option<u32> {
        self.info(id).slots
    }

    /// The scalar kind of `id`.
    #[inline]
    pub(crate) fn kind(&self, id: TypeId) -> Option<Kind> {
        self.info(id).kind
    }
}

/// Whether `ty` nests at most [`MAX_DEPTH`] levels, counting pointees and
/// signatures too (checked with an explicit stack, never by recursion).
pub(crate) fn shallow(types: &TypeTable, ty: TypeId) -> bool {
    let mut stack = vec![(ty, 0u32)];
    let mut visited = 0usize;
    while let Some((t, depth)) = stack.pop() {
        visited += 1;
        if depth > MAX_DEPTH || visited > 1 << 20 {
            return false;
        }
        let Some(key) = types.get(t) else { return false };
        match key {
            TypeKey::Ptr(inner) | TypeKey::Array(inner, _) => stack.push((*inner, depth + 1)),
            TypeKey::Struct(fields) | TypeKey::Tuple(fields) => stack.extend(fields.iter().map(|&f| (f, depth + 1))),
            TypeKey::FnPtr(sig) => {
                let s = types.sig(*sig);
                stack.extend(s.params.iter().chain(std::iter::once(&s.ret)).map(|&p| (p, depth + 1)));
            }
            _ => {}
        }
    }
    true
}

/// The IR spelling of `ty` for messages, unless it nests too deeply to print safely.
pub(crate) fn type_label(types: &TypeTable, ty: TypeId) -> String {
    if shallow(types, ty) {
        types.display(ty)
    } else {
        format!("{ty:?} (nested too deeply to print)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ir::Type;

    #[test]
    fn slots_depth_and_printable_nesting() {
        let mut types = TypeTable::new();
        let pair = types.intern_type(&Type::Tuple(vec![Type::I128, Type::Bool, Type::ptr(Type::Void)]));
        let mut deep = Type::I8;
        for _ in 0..300 {
            deep = Type::array(deep, 1);
        }
        let deep = types.intern_type(&deep);
        let mut pointers = Type::I8;
        for _ in 0..300 {
            pointers = Type::ptr(pointers);
        }
        let pointers = types.intern_type(&pointers);
        let huge = types.intern_type(&Type::array(Type::U64, 1 << 20));
        let shapes = Shapes::new(&types);
        assert_eq!(shapes.slots(pair), Some(5));
        assert_eq!(shapes.slots(deep), None);
        assert_eq!(shapes.slots(huge), None);
        assert_eq!(shapes.slots(pointers), Some(2));
        assert!(shallow(&types, pair) && !shallow(&types, deep) && !shallow(&types, pointers));
        assert!(type_label(&types, deep).contains("nested too deeply"));
    }
}
