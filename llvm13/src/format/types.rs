//! Types: type slots, the primitive types, type definitions of the type pools, and lookups over them (`llvm13.md`
//! §4).
//!
//! A [`TypeSlot`] is the file's own type number: 0..12 are the primitives (never written), 13.. are the module type
//! pool in order, followed by the types of a function constant pool while that function is read. Definitions refer to
//! other types by slot, so recursive types are plain cycles and the reader never recurses over them. The model keeps
//! revision 3 numbering; revisions 0 and 1 (where types were values and label had id 13) are translated on reading.

use std::fmt;

use super::error::{ReadError, ReadErrorKind};
use super::limits::FIRST_DERIVED;
use super::primitives::{vec_for, write_vbr, Reader};

/// A type slot in revision 3 numbering: a primitive below 13, a pool type from 13 on.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct TypeSlot(pub u32);

impl TypeSlot {
    /// `void`.
    pub const VOID: TypeSlot = TypeSlot(0);
    /// `bool`.
    pub const BOOL: TypeSlot = TypeSlot(1);
    /// `ubyte`.
    pub const UBYTE: TypeSlot = TypeSlot(2);
    /// `sbyte`.
    pub const SBYTE: TypeSlot = TypeSlot(3);
    /// `ushort`.
    pub const USHORT: TypeSlot = TypeSlot(4);
    /// `short`.
    pub const SHORT: TypeSlot = TypeSlot(5);
    /// `uint`.
    pub const UINT: TypeSlot = TypeSlot(6);
    /// `int`.
    pub const INT: TypeSlot = TypeSlot(7);
    /// `ulong`.
    pub const ULONG: TypeSlot = TypeSlot(8);
    /// `long`.
    pub const LONG: TypeSlot = TypeSlot(9);
    /// `float`.
    pub const FLOAT: TypeSlot = TypeSlot(10);
    /// `double`.
    pub const DOUBLE: TypeSlot = TypeSlot(11);
    /// `label`.
    pub const LABEL: TypeSlot = TypeSlot(12);

    /// True for slots 0..12.
    pub fn is_primitive(self) -> bool {
        self.0 < FIRST_DERIVED
    }

    /// The index into the module type pool (then the function pool) of a derived slot.
    pub fn pool_index(self) -> Option<usize> {
        self.0.checked_sub(FIRST_DERIVED).map(|i| i as usize)
    }

    /// The slot of the `i`-th pool type.
    pub fn from_pool_index(i: usize) -> TypeSlot {
        TypeSlot(FIRST_DERIVED + i as u32)
    }
}

impl fmt::Display for TypeSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The LLVM 1.3 names of the primitive types, by slot.
pub const PRIMITIVE_NAMES: [&str; 13] =
    ["void", "bool", "ubyte", "sbyte", "ushort", "short", "uint", "int", "ulong", "long", "float", "double", "label"];

/// Type ids that start a definition (revision 3 numbering, §4.3).
pub mod type_id {
    /// A function type.
    pub const FUNCTION: u32 = 13;
    /// A struct type.
    pub const STRUCT: u32 = 14;
    /// An array type.
    pub const ARRAY: u32 = 15;
    /// A pointer type.
    pub const POINTER: u32 = 16;
    /// An opaque type.
    pub const OPAQUE: u32 = 17;
}

/// One type definition of a type pool.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeDef {
    /// `ret (params...)`, with `...` when `varargs`.
    Function {
        /// Return type.
        ret: TypeSlot,
        /// Parameter types.
        params: Vec<TypeSlot>,
        /// Takes extra arguments.
        varargs: bool,
    },
    /// `{ fields... }`.
    Struct(Vec<TypeSlot>),
    /// `[len x element]`.
    Array {
        /// Element type.
        element: TypeSlot,
        /// Number of elements.
        len: u32,
    },
    /// `pointee*`.
    Pointer(TypeSlot),
    /// `opaque`: every definition is a distinct type.
    Opaque,
    /// A pool entry that only names a primitive (the reader accepts it; the 1.3 writer never emits one).
    Primitive(TypeSlot),
}

impl TypeDef {
    /// The kind, in words.
    pub fn kind_name(&self) -> &'static str {
        match self {
            TypeDef::Function { .. } => "a function type",
            TypeDef::Struct(_) => "a struct type",
            TypeDef::Array { .. } => "an array type",
            TypeDef::Pointer(_) => "a pointer type",
            TypeDef::Opaque => "an opaque type",
            TypeDef::Primitive(_) => "a primitive type",
        }
    }

    /// Every type slot the definition mentions, in order.
    pub fn children(&self) -> Vec<TypeSlot> {
        match self {
            TypeDef::Function { ret, params, .. } => std::iter::once(*ret).chain(params.iter().copied()).collect(),
            TypeDef::Struct(fields) => fields.clone(),
            TypeDef::Array { element, .. } => vec![*element],
            TypeDef::Pointer(p) => vec![*p],
            TypeDef::Opaque => Vec::new(),
            TypeDef::Primitive(p) => vec![*p],
        }
    }
}

/// How type ids and type slots are numbered in a file (§4.1, §14).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct TypeNumbering {
    /// Revisions 0 and 1: id 12 is the "type" type and every id above it is one higher than in revision 3.
    pub old: bool,
}

/// A type id or slot as read: either a type, or (revisions 0/1) the old "type" plane 12.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SlotOrTypePlane {
    Slot(TypeSlot),
    TypePlane,
}

impl TypeNumbering {
    /// Translates a raw id read from the file.
    pub fn translate(self, raw: u32) -> SlotOrTypePlane {
        match (self.old, raw) {
            (true, 12) => SlotOrTypePlane::TypePlane,
            (true, r) if r > 12 => SlotOrTypePlane::Slot(TypeSlot(r - 1)),
            (_, r) => SlotOrTypePlane::Slot(TypeSlot(r)),
        }
    }

    /// Reads a type slot or the old type plane.
    pub fn read_any(self, r: &mut Reader<'_>) -> Result<SlotOrTypePlane, ReadError> {
        Ok(self.translate(r.vbr32()?))
    }

    /// Reads a type slot; the old type plane is refused.
    pub fn read(self, r: &mut Reader<'_>) -> Result<TypeSlot, ReadError> {
        let at = r.offset();
        match self.read_any(r)? {
            SlotOrTypePlane::Slot(s) => Ok(s),
            SlotOrTypePlane::TypePlane => {
                Err(ReadError::new(ReadErrorKind::Malformed("the type plane is not a type"), at))
            }
        }
    }
}

/// Reads one type definition.
pub(crate) fn read_type_def(r: &mut Reader<'_>, numbering: TypeNumbering) -> Result<TypeDef, ReadError> {
    let at = r.offset();
    let id = match numbering.read_any(r)? {
        SlotOrTypePlane::Slot(s) => s.0,
        SlotOrTypePlane::TypePlane => return Err(ReadError::new(ReadErrorKind::InvalidTypeId { id: 12 }, at)),
    };
    Ok(match id {
        type_id::FUNCTION => {
            let ret = numbering.read(r)?;
            let count_at = r.offset();
            let n = r.count(1)?;
            let mut params = vec_for(n, count_at)?;
            for _ in 0..n {
                params.push(numbering.read(r)?);
            }
            // A varargs function type counts one extra parameter entry: the terminating void (§13 item 6).
            let varargs = params.last() == Some(&TypeSlot::VOID);
            if varargs {
                params.pop();
            }
            TypeDef::Function { ret, params, varargs }
        }
        type_id::STRUCT => {
            let mut fields = Vec::new();
            loop {
                let field = numbering.read(r)?;
                if field == TypeSlot::VOID {
                    break;
                }
                fields.push(field);
            }
            TypeDef::Struct(fields)
        }
        type_id::ARRAY => {
            let element = numbering.read(r)?;
            let len = r.vbr32()?;
            TypeDef::Array { element, len }
        }
        type_id::POINTER => TypeDef::Pointer(numbering.read(r)?),
        type_id::OPAQUE => TypeDef::Opaque,
        1..=12 => TypeDef::Primitive(TypeSlot(id)),
        _ => return Err(ReadError::new(ReadErrorKind::InvalidTypeId { id }, at)),
    })
}

/// Appends one type definition (revision 3 numbering).
pub(crate) fn write_type_def(out: &mut Vec<u8>, def: &TypeDef) {
    let slot = |out: &mut Vec<u8>, s: TypeSlot| write_vbr(out, u64::from(s.0));
    match def {
        TypeDef::Function { ret, params, varargs } => {
            write_vbr(out, u64::from(type_id::FUNCTION));
            slot(out, *ret);
            write_vbr(out, (params.len() + usize::from(*varargs)) as u64);
            for &p in params {
                slot(out, p);
            }
            if *varargs {
                slot(out, TypeSlot::VOID);
            }
        }
        TypeDef::Struct(fields) => {
            write_vbr(out, u64::from(type_id::STRUCT));
            for &f in fields {
                slot(out, f);
            }
            slot(out, TypeSlot::VOID);
        }
        TypeDef::Array { element, len } => {
            write_vbr(out, u64::from(type_id::ARRAY));
            slot(out, *element);
            write_vbr(out, u64::from(*len));
        }
        TypeDef::Pointer(p) => {
            write_vbr(out, u64::from(type_id::POINTER));
            slot(out, *p);
        }
        TypeDef::Opaque => write_vbr(out, u64::from(type_id::OPAQUE)),
        TypeDef::Primitive(p) => slot(out, *p),
    }
}

/// A resolved type: a primitive, or a pool definition.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty<'a> {
    /// A primitive, by slot.
    Primitive(TypeSlot),
    /// A derived type.
    Def(&'a TypeDef),
}

/// The types visible at one point: the module pool, then (inside a function) its constant pool's types.
#[derive(Clone, Copy, Debug)]
pub struct Types<'a> {
    /// The module type pool.
    pub module: &'a [TypeDef],
    /// The current function's constant-pool types (empty outside functions).
    pub local: &'a [TypeDef],
}

impl<'a> Types<'a> {
    /// Module types only.
    pub fn module(module: &'a [TypeDef]) -> Self {
        Self { module, local: &[] }
    }

    /// Number of slots, primitives included.
    pub fn len(&self) -> usize {
        FIRST_DERIVED as usize + self.module.len() + self.local.len()
    }

    /// Always false: the primitives are always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// True when `slot` names a type.
    pub fn contains(&self, slot: TypeSlot) -> bool {
        (slot.0 as usize) < self.len()
    }

    /// The definition of `slot`, with primitive aliases resolved.
    pub fn get(&self, slot: TypeSlot) -> Option<Ty<'a>> {
        let Some(i) = slot.pool_index() else { return Some(Ty::Primitive(slot)) };
        let def = match self.module.get(i) {
            Some(d) => d,
            None => self.local.get(i - self.module.len())?,
        };
        Some(match def {
            TypeDef::Primitive(p) => Ty::Primitive(*p),
            d => Ty::Def(d),
        })
    }

    /// The slot that identifies `slot`'s value plane: a primitive alias maps to the primitive.
    pub fn canon(&self, slot: TypeSlot) -> TypeSlot {
        match self.get(slot) {
            Some(Ty::Primitive(p)) => p,
            _ => slot,
        }
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self, slot: TypeSlot) -> Option<TypeSlot> {
        match self.get(slot)? {
            Ty::Def(TypeDef::Pointer(p)) => Some(*p),
            _ => None,
        }
    }

    /// The function type behind a pointer-to-function type: (return, parameters, varargs).
    pub fn callee(&self, pointer: TypeSlot) -> Option<(TypeSlot, &'a [TypeSlot], bool)> {
        match self.get(self.pointee(pointer)?)? {
            Ty::Def(TypeDef::Function { ret, params, varargs }) => Some((*ret, params, *varargs)),
            _ => None,
        }
    }

    /// The first pointer type whose pointee is `pointee` (compared by plane), searching module then local types.
    pub fn pointer_to(&self, pointee: TypeSlot) -> Option<TypeSlot> {
        let want = self.canon(pointee);
        self.module.iter().chain(self.local).enumerate().find_map(|(i, d)| match d {
            TypeDef::Pointer(p) if self.canon(*p) == want => Some(TypeSlot::from_pool_index(i)),
            _ => None,
        })
    }

    /// True when values of this type have an implicit null at slot 0 (every type but void and label; in revision
    /// 0 only derived types, §5.1).
    pub fn has_null(&self, plane: TypeSlot, revision: u32) -> bool {
        let plane = self.canon(plane);
        if revision == 0 {
            !plane.is_primitive()
        } else {
            plane != TypeSlot::VOID && plane != TypeSlot::LABEL
        }
    }
}
