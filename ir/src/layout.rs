//! Storage layout per target (whale-upstream §a.2); `x86_64-whale-linux` is the
//! one target, and the layout functions take it as upstream's do.
//!
//! Sizes and alignments are natural (C-like structs and tuples: each field
//! aligned up, total rounded to the largest field alignment). Every addition and
//! multiplication is checked, so a type that would not fit the address space is
//! an error, never a wrapped size. Nesting is bounded by a budget of aggregate
//! levels (128 by default; scalars and pointers take none, since a pointee is
//! never laid out) so hostile types cannot exhaust the stack.

use crate::entity::TypeId;
use crate::target::Target;
use crate::types::{Type, TypeKey, TypeTable};

/// Default nesting budget of [`layout_of`].
pub const DEFAULT_LAYOUT_DEPTH: usize = 128;

/// Size, alignment and member offsets of a type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TypeLayout {
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u32,
    /// Field offsets (structs and tuples only; empty otherwise).
    pub field_offsets: Vec<u64>,
    /// Element stride (arrays only).
    pub element_stride: Option<u64>,
}

/// Why a type has no layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, thiserror::Error)]
pub enum LayoutError {
    /// `void` has no storage.
    #[error("void has no storage layout")]
    Void,
    /// Some size or offset exceeds the 64-bit address space.
    #[error("type layout exceeds the target address space")]
    Overflow,
    /// The type nests deeper than the budget.
    #[error("type layout nesting limit exceeded")]
    DepthLimit,
    /// Pointer arithmetic over a zero-sized pointee.
    #[error("zero-sized pointee arithmetic is unsupported")]
    ZeroSizedPointerArithmetic,
}

/// The layout of `ty` on `target`.
///
/// ```
/// use ir::{layout_of, Target, Type};
/// let s = Type::Struct(vec![Type::U8, Type::U64, Type::U16]);
/// let l = layout_of(&s, Target::X86_64WhaleLinux).unwrap();
/// assert_eq!((l.size, l.align, l.field_offsets.clone()), (24, 8, vec![0, 8, 16]));
/// ```
pub fn layout_of(ty: &Type, target: Target) -> Result<TypeLayout, LayoutError> {
    layout_of_with_limit(ty, target, DEFAULT_LAYOUT_DEPTH)
}

/// The layout of `ty` on `target` with a budget of `depth` aggregate levels
/// (arrays, structs and tuples; scalars take none).
///
/// ```
/// use ir::{layout_of_with_limit, LayoutError, Target, Type};
/// let nested = Type::array(Type::array(Type::U8, 1), 1);
/// assert_eq!(layout_of_with_limit(&nested, Target::X86_64WhaleLinux, 2).unwrap().size, 1);
/// assert_eq!(layout_of_with_limit(&nested, Target::X86_64WhaleLinux, 1), Err(LayoutError::DepthLimit));
/// assert!(layout_of_with_limit(&Type::U8, Target::X86_64WhaleLinux, 0).is_ok());
/// ```
pub fn layout_of_with_limit(ty: &Type, target: Target, depth: usize) -> Result<TypeLayout, LayoutError> {
    let Target::X86_64WhaleLinux = target; // the one target, whose layout is the one below
    let mut types = TypeTable::new();
    let id = types.intern_type(ty);
    layout_of_id(&types, id, depth)
}

/// The layout of interned type `id` with a budget of `depth` aggregate levels.
pub fn layout_of_id(types: &TypeTable, id: TypeId, depth: usize) -> Result<TypeLayout, LayoutError> {
    let scalar =
        |size: u64| Ok(TypeLayout { size, align: size as u32, field_offsets: Vec::new(), element_stride: None });
    match types.key(id) {
        TypeKey::Void => Err(LayoutError::Void),
        TypeKey::Bool => scalar(1),
        TypeKey::Int { bits, .. } => scalar(u64::from(*bits).div_ceil(8).max(1)),
        TypeKey::Float { bits } => scalar(u64::from(*bits) / 8),
        TypeKey::Ptr(_) | TypeKey::FnPtr(_) => scalar(8),
        TypeKey::Array(..) | TypeKey::Struct(_) | TypeKey::Tuple(_) if depth == 0 => Err(LayoutError::DepthLimit),
        TypeKey::Array(elem, n) => {
            let e = layout_of_id(types, *elem, depth - 1)?;
            let size = e.size.checked_mul(*n).ok_or(LayoutError::Overflow)?;
            Ok(TypeLayout { size, align: e.align, field_offsets: Vec::new(), element_stride: Some(e.size) })
        }
        TypeKey::Struct(fields) | TypeKey::Tuple(fields) => {
            let mut offset = 0u64;
            let mut align = 1u32;
            let mut offsets = Vec::with_capacity(fields.len());
            for &f in fields.iter() {
                let l = layout_of_id(types, f, depth - 1)?;
                offset = align_up(offset, l.align)?;
                offsets.push(offset);
                offset = offset.checked_add(l.size).ok_or(LayoutError::Overflow)?;
                align = align.max(l.align);
            }
            let size = align_up(offset, align)?;
            Ok(TypeLayout { size, align, field_offsets: offsets, element_stride: None })
        }
    }
}

fn align_up(offset: u64, align: u32) -> Result<u64, LayoutError> {
    let a = u64::from(align.max(1));
    offset.checked_add(a - 1).map(|x| x / a * a).ok_or(LayoutError::Overflow)
}

/// Alignment for a standalone allocation (local or global) on `target`:
/// natural, except that an array of 16 bytes or more gets at least 16 (the
/// SysV rule).
///
/// ```
/// use ir::{allocation_align, Target, Type};
/// assert_eq!(allocation_align(&Type::array(Type::U8, 16), Target::X86_64WhaleLinux), Ok(16));
/// assert_eq!(allocation_align(&Type::array(Type::U8, 15), Target::X86_64WhaleLinux), Ok(1));
/// ```
pub fn allocation_align(ty: &Type, target: Target) -> Result<u32, LayoutError> {
    let layout = layout_of(ty, target)?;
    Ok(match ty {
        Type::Array(..) if layout.size >= 16 => layout.align.max(16),
        _ => layout.align,
    })
}

/// The byte stride of pointer arithmetic over `ty`; zero-sized types are refused.
pub fn pointer_stride(ty: &Type) -> Result<u64, LayoutError> {
    match layout_of(ty, Target::X86_64WhaleLinux)?.size {
        0 => Err(LayoutError::ZeroSizedPointerArithmetic),
        size => Ok(size),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Target = Target::X86_64WhaleLinux;

    fn s(fields: Vec<Type>) -> Type {
        Type::Struct(fields)
    }

    #[test]
    fn scalars() {
        for (ty, size) in [
            (Type::Bool, 1),
            (Type::I1, 1),
            (Type::U8, 1),
            (Type::I16, 2),
            (Type::F16, 2),
            (Type::U32, 4),
            (Type::F32, 4),
            (Type::I64, 8),
            (Type::F64, 8),
            (Type::I128, 16),
            (Type::ptr(Type::Void), 8),
        ] {
            let l = layout_of(&ty, T).unwrap();
            assert_eq!((l.size, u64::from(l.align)), (size, size), "{ty}");
        }
        assert_eq!(layout_of(&Type::Void, T), Err(LayoutError::Void));
    }

    #[test]
    fn worked_values() {
        let inner = s(vec![Type::U8, Type::U64, Type::U16]);
        let l = layout_of(&inner, T).unwrap();
        assert_eq!((l.size, l.align, l.field_offsets), (24, 8, vec![0, 8, 16]));

        let arr = Type::array(inner.clone(), 3);
        let l = layout_of(&arr, T).unwrap();
        assert_eq!((l.size, l.align, l.element_stride), (72, 8, Some(24)));
        assert_eq!(allocation_align(&arr, T), Ok(16));

        let t = Type::Tuple(vec![Type::Bool, arr, Type::U32]);
        let l = layout_of(&t, T).unwrap();
        assert_eq!((l.size, l.align, l.field_offsets), (88, 8, vec![0, 8, 80]));

        let l = layout_of(&s(vec![Type::U8, Type::array(Type::U8, 16), Type::U8]), T).unwrap();
        assert_eq!((l.size, l.align, l.field_offsets), (18, 1, vec![0, 1, 17]));

        let l = layout_of(&s(vec![Type::U8, Type::I128, Type::U8]), T).unwrap();
        assert_eq!((l.size, l.align, l.field_offsets), (48, 16, vec![0, 16, 32]));
    }

    #[test]
    fn edge_cases() {
        let empty = layout_of(&s(vec![]), T).unwrap();
        assert_eq!((empty.size, empty.align), (0, 1));
        let l = layout_of(&Type::array(Type::U64, 0), T).unwrap();
        assert_eq!((l.size, l.align, l.element_stride), (0, 8, Some(8)));
        assert_eq!(layout_of(&Type::array(s(vec![]), u64::MAX), T).unwrap().size, 0);
        assert_eq!(allocation_align(&Type::array(Type::U8, 16), T), Ok(16));
        assert_eq!(allocation_align(&Type::array(Type::U8, 15), T), Ok(1));
        assert_eq!(layout_of(&Type::array(Type::U64, u64::MAX), T), Err(LayoutError::Overflow));
        assert_eq!(layout_of(&s(vec![Type::array(Type::U8, u64::MAX), Type::U8]), T), Err(LayoutError::Overflow));
        assert_eq!(pointer_stride(&s(vec![])), Err(LayoutError::ZeroSizedPointerArithmetic));
        assert_eq!(pointer_stride(&Type::I32), Ok(4));
        let mut deep = Type::I8;
        for _ in 0..200 {
            deep = Type::array(deep, 1);
        }
        assert_eq!(layout_of(&deep, T), Err(LayoutError::DepthLimit));
        assert!(layout_of_with_limit(&deep, T, 300).is_ok());
    }
}
