//! The type system: the public [`Type`] view and the per-module interner.
//!
//! Types are hash-consed per module: equal types share one [`TypeId`], so type
//! equality is `==` on a `u32`. Children are interned before parents, so a key is
//! shallow and hashing it costs O(fields), not O(tree). Scalars are pre-interned
//! in a fixed order ([`TypeId::VOID`] … [`TypeId::F64`]), so "is this an
//! integer?" is a range check. The recursive [`Type`] enum (`Type::I32`,
//! `Type::Ptr(..)`, `Type::FnPtr(..)`) is only the construction and inspection
//! view (whale-upstream §a.1).

use std::fmt;
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::entity::{EntityRef, SigId, TypeId};

/// A Whale IR type (whale-upstream §a.1).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// No value; only a return type or a pointee.
    Void,
    /// Logical `false`/`true`; the only condition type.
    Bool,
    /// Signed 1-bit integer (−1 and 0).
    I1,
    /// Signed 8-bit integer.
    I8,
    /// Signed 16-bit integer.
    I16,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
    /// Signed 128-bit integer.
    I128,
    /// Unsigned 1-bit integer (0 and 1).
    U1,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// Unsigned 128-bit integer.
    U128,
    /// IEEE binary16.
    F16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// Data pointer to the given type (`ptr<void>` is an opaque pointer).
    Ptr(Box<Type>),
    /// Callable pointer carrying its full signature.
    FnPtr(Box<FunctionSignature>),
    /// `N` elements of one type.
    Array(Box<Type>, u64),
    /// Ordered struct fields.
    Struct(Vec<Type>),
    /// Ordered tuple elements.
    Tuple(Vec<Type>),
}

/// A calling convention.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CallingConvention {
    /// Whale's own convention.
    Whale,
    /// The System V AMD64 C convention.
    SysV64,
}

impl CallingConvention {
    /// The keyword printed in signatures.
    pub const fn keyword(self) -> &'static str {
        match self {
            CallingConvention::Whale => "whale",
            CallingConvention::SysV64 => "sysv64",
        }
    }
}

/// A function signature: parameter and result types, convention, variadic flag.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FunctionSignature {
    /// Parameter types in order.
    pub params: Vec<Type>,
    /// Result type (`Type::Void` for none).
    pub ret: Type,
    /// Calling convention.
    pub convention: CallingConvention,
    /// Variadic signatures are representable but always rejected by the verifier.
    pub variadic: bool,
}

impl FunctionSignature {
    /// A non-variadic Whale-convention signature.
    pub fn whale(params: Vec<Type>, ret: Type) -> Self {
        Self { params, ret, convention: CallingConvention::Whale, variadic: false }
    }
}

impl Type {
    /// Every scalar value type (all but `void`), in the fixed interning order.
    pub const VALUE_SCALARS: [Type; 16] = [
        Type::Bool,
        Type::I1,
        Type::I8,
        Type::I16,
        Type::I32,
        Type::I64,
        Type::I128,
        Type::U1,
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::U128,
        Type::F16,
        Type::F32,
        Type::F64,
    ];

    /// `ptr<pointee>`.
    pub fn ptr(pointee: Type) -> Type {
        Type::Ptr(Box::new(pointee))
    }
    /// `array<element, len>`.
    pub fn array(element: Type, len: u64) -> Type {
        Type::Array(Box::new(element), len)
    }
    /// `fnptr<signature>`.
    pub fn fn_ptr(signature: FunctionSignature) -> Type {
        Type::FnPtr(Box::new(signature))
    }
    /// The integer type of the given width and signedness, if one exists.
    pub fn int(bits: u32, signed: bool) -> Option<Type> {
        TypeId::int(bits, signed).map(scalar_type)
    }
    /// The float type of the given width, if one exists.
    pub fn float(bits: u32) -> Option<Type> {
        TypeId::float(bits).map(scalar_type)
    }
    /// The fixed [`TypeId`] of a scalar type (every module interns scalars at
    /// the same ids), or `None` for compound types.
    pub fn scalar_type_id(&self) -> Option<TypeId> {
        scalar_id(self)
    }
}

/// Writes `ty` in IR spelling (`ptr<i32>`, `fnptr<whale (i32) -> i32>`, …).
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Ptr(t) => write!(f, "ptr<{t}>"),
            Type::FnPtr(sig) => write!(f, "fnptr<{sig}>"),
            Type::Array(t, n) => write!(f, "array<{t}, {n}>"),
            Type::Struct(fields) => {
                f.write_str("struct{")?;
                write_list(f, fields)?;
                f.write_str("}")
            }
            Type::Tuple(fields) => {
                f.write_str("tuple<")?;
                write_list(f, fields)?;
                f.write_str(">")
            }
            scalar => f.write_str(scalar_name(scalar)),
        }
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, items: &[Type]) -> fmt::Result {
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{t}")?;
    }
    Ok(())
}

/// Writes `CONV (P1, P2) -> R` with `, ...` for variadic signatures.
impl fmt::Display for FunctionSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (", self.convention.keyword())?;
        write_list(f, &self.params)?;
        if self.variadic {
            f.write_str(if self.params.is_empty() { "..." } else { ", ..." })?;
        }
        write!(f, ") -> {}", self.ret)
    }
}

/// Scalar types in their fixed interning order; `TypeId(i)` is `SCALARS[i]`.
const SCALARS: [(&str, TypeKey); 17] = [
    ("void", TypeKey::Void),
    ("bool", TypeKey::Bool),
    ("i1", TypeKey::Int { signed: true, bits: 1 }),
    ("i8", TypeKey::Int { signed: true, bits: 8 }),
    ("i16", TypeKey::Int { signed: true, bits: 16 }),
    ("i32", TypeKey::Int { signed: true, bits: 32 }),
    ("i64", TypeKey::Int { signed: true, bits: 64 }),
    ("i128", TypeKey::Int { signed: true, bits: 128 }),
    ("u1", TypeKey::Int { signed: false, bits: 1 }),
    ("u8", TypeKey::Int { signed: false, bits: 8 }),
    ("u16", TypeKey::Int { signed: false, bits: 16 }),
    ("u32", TypeKey::Int { signed: false, bits: 32 }),
    ("u64", TypeKey::Int { signed: false, bits: 64 }),
    ("u128", TypeKey::Int { signed: false, bits: 128 }),
    ("f16", TypeKey::Float { bits: 16 }),
    ("f32", TypeKey::Float { bits: 32 }),
    ("f64", TypeKey::Float { bits: 64 }),
];

fn scalar_name(ty: &Type) -> &'static str {
    match scalar_id(ty) {
        Some(id) => SCALARS[id.index()].0,
        None => unreachable!("compound types are written by Display"),
    }
}

pub(crate) fn scalar_id(ty: &Type) -> Option<TypeId> {
    Some(match ty {
        Type::Void => TypeId::VOID,
        Type::Bool => TypeId::BOOL,
        Type::I1 => TypeId::I1,
        Type::I8 => TypeId::I8,
        Type::I16 => TypeId::I16,
        Type::I32 => TypeId::I32,
        Type::I64 => TypeId::I64,
        Type::I128 => TypeId::I128,
        Type::U1 => TypeId::U1,
        Type::U8 => TypeId::U8,
        Type::U16 => TypeId::U16,
        Type::U32 => TypeId::U32,
        Type::U64 => TypeId::U64,
        Type::U128 => TypeId::U128,
        Type::F16 => TypeId::F16,
        Type::F32 => TypeId::F32,
        Type::F64 => TypeId::F64,
        _ => return None,
    })
}

fn scalar_type(id: TypeId) -> Type {
    match id.as_u32() {
        0 => Type::Void,
        1 => Type::Bool,
        2 => Type::I1,
        3 => Type::I8,
        4 => Type::I16,
        5 => Type::I32,
        6 => Type::I64,
        7 => Type::I128,
        8 => Type::U1,
        9 => Type::U8,
        10 => Type::U16,
        11 => Type::U32,
        12 => Type::U64,
        13 => Type::U128,
        14 => Type::F16,
        15 => Type::F32,
        16 => Type::F64,
        _ => unreachable!("only the pre-interned scalar ids are scalar"),
    }
}

impl TypeId {
    /// `void`.
    pub const VOID: TypeId = TypeId::from_u32(0);
    /// `bool`.
    pub const BOOL: TypeId = TypeId::from_u32(1);
    /// `i1`.
    pub const I1: TypeId = TypeId::from_u32(2);
    /// `i8`.
    pub const I8: TypeId = TypeId::from_u32(3);
    /// `i16`.
    pub const I16: TypeId = TypeId::from_u32(4);
    /// `i32`.
    pub const I32: TypeId = TypeId::from_u32(5);
    /// `i64`.
    pub const I64: TypeId = TypeId::from_u32(6);
    /// `i128`.
    pub const I128: TypeId = TypeId::from_u32(7);
    /// `u1`.
    pub const U1: TypeId = TypeId::from_u32(8);
    /// `u8`.
    pub const U8: TypeId = TypeId::from_u32(9);
    /// `u16`.
    pub const U16: TypeId = TypeId::from_u32(10);
    /// `u32`.
    pub const U32: TypeId = TypeId::from_u32(11);
    /// `u64`.
    pub const U64: TypeId = TypeId::from_u32(12);
    /// `u128`.
    pub const U128: TypeId = TypeId::from_u32(13);
    /// `f16`.
    pub const F16: TypeId = TypeId::from_u32(14);
    /// `f32`.
    pub const F32: TypeId = TypeId::from_u32(15);
    /// `f64`.
    pub const F64: TypeId = TypeId::from_u32(16);

    /// Whether this is a scalar integer type (signed or unsigned; not `bool`).
    #[inline]
    pub fn is_int(self) -> bool {
        (2..=13).contains(&self.as_u32())
    }
    /// Whether this is a signed integer type.
    #[inline]
    pub fn is_signed_int(self) -> bool {
        (2..=7).contains(&self.as_u32())
    }
    /// Whether this is an unsigned integer type.
    #[inline]
    pub fn is_unsigned_int(self) -> bool {
        (8..=13).contains(&self.as_u32())
    }
    /// Whether this is a float type.
    #[inline]
    pub fn is_float(self) -> bool {
        (14..=16).contains(&self.as_u32())
    }
    /// Whether this is one of the pre-interned scalar types (including `void`).
    #[inline]
    pub fn is_scalar(self) -> bool {
        self.as_u32() <= 16
    }
    /// Bit width of an integer or float type.
    pub fn scalar_bits(self) -> Option<u32> {
        match SCALARS.get(self.index())?.1 {
            TypeKey::Int { bits, .. } | TypeKey::Float { bits } => Some(u32::from(bits)),
            TypeKey::Bool => Some(1),
            _ => None,
        }
    }
    /// The integer type of the given width and signedness.
    pub fn int(bits: u32, signed: bool) -> Option<TypeId> {
        let offset = match bits {
            1 => 0,
            8 => 1,
            16 => 2,
            32 => 3,
            64 => 4,
            128 => 5,
            _ => return None,
        };
        Some(TypeId::from_u32(if signed { 2 } else { 8 } + offset))
    }
    /// The float type of the given width.
    pub fn float(bits: u32) -> Option<TypeId> {
        match bits {
            16 => Some(TypeId::F16),
            32 => Some(TypeId::F32),
            64 => Some(TypeId::F64),
            _ => None,
        }
    }
    /// The spelling of a scalar type (`"i32"`), or `None` for compound types.
    pub fn scalar_name(self) -> Option<&'static str> {
        SCALARS.get(self.index()).map(|s| s.0)
    }
}

/// The shallow, interned form of a type: children are already `TypeId`s.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeKey {
    /// `void`.
    Void,
    /// `bool`.
    Bool,
    /// `iN` / `uN`.
    Int {
        /// Signedness.
        signed: bool,
        /// Width: 1, 8, 16, 32, 64 or 128.
        bits: u8,
    },
    /// `fN`.
    Float {
        /// Width: 16, 32 or 64.
        bits: u8,
    },
    /// `ptr<T>`.
    Ptr(TypeId),
    /// `fnptr<SIG>`.
    FnPtr(SigId),
    /// `array<T, N>`.
    Array(TypeId, u64),
    /// `struct{..}`.
    Struct(Box<[TypeId]>),
    /// `tuple<..>`.
    Tuple(Box<[TypeId]>),
}

/// The shallow, interned form of a signature.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SigKey {
    /// Parameter types.
    pub params: Box<[TypeId]>,
    /// Result type.
    pub ret: TypeId,
    /// Calling convention.
    pub convention: CallingConvention,
    /// Variadic flag.
    pub variadic: bool,
}

/// A module's type and signature pool.
#[derive(Clone)]
pub struct TypeTable {
    keys: Vec<TypeKey>,
    index: HashTable<TypeId>,
    sigs: Vec<SigKey>,
    sig_index: HashTable<SigId>,
    hasher: FxBuildHasher,
}

impl Default for TypeTable {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for TypeTable {
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys && self.sigs == other.sigs
    }
}

impl Eq for TypeTable {}

impl fmt::Debug for TypeTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypeTable({} types, {} signatures)", self.keys.len(), self.sigs.len())
    }
}

impl TypeTable {
    /// A table holding the scalar types at their fixed ids.
    pub fn new() -> Self {
        let mut table = Self {
            keys: Vec::new(),
            index: HashTable::new(),
            sigs: Vec::new(),
            sig_index: HashTable::new(),
            hasher: FxBuildHasher,
        };
        for (_, key) in SCALARS {
            table.intern(key);
        }
        table
    }

    /// The id of `key`, adding it if new.
    pub fn intern(&mut self, key: TypeKey) -> TypeId {
        let Self { keys, index, hasher, .. } = self;
        let hash = hasher.hash_one(&key);
        if let Some(&id) = index.find(hash, |&id| keys[id.index()] == key) {
            return id;
        }
        let id = TypeId::new(keys.len());
        keys.push(key);
        index.insert_unique(hash, id, |&id| hasher.hash_one(&keys[id.index()]));
        id
    }

    /// The id of `key` if it was interned.
    pub fn lookup(&self, key: &TypeKey) -> Option<TypeId> {
        let hash = self.hasher.hash_one(key);
        self.index.find(hash, |&id| self.keys[id.index()] == *key).copied()
    }

    /// The id of `key`, adding it if new.
    pub fn intern_sig(&mut self, key: SigKey) -> SigId {
        let Self { sigs, sig_index, hasher, .. } = self;
        let hash = hasher.hash_one(&key);
        if let Some(&id) = sig_index.find(hash, |&id| sigs[id.index()] == key) {
            return id;
        }
        let id = SigId::new(sigs.len());
        sigs.push(key);
        sig_index.insert_unique(hash, id, |&id| hasher.hash_one(&sigs[id.index()]));
        id
    }

    /// Interns a [`Type`] tree bottom-up (scalars take no hashing).
    pub fn intern_type(&mut self, ty: &Type) -> TypeId {
        if let Some(id) = scalar_id(ty) {
            return id;
        }
        let key = match ty {
            Type::Ptr(t) => TypeKey::Ptr(self.intern_type(t)),
            Type::FnPtr(sig) => TypeKey::FnPtr(self.intern_signature(sig)),
            Type::Array(t, n) => TypeKey::Array(self.intern_type(t), *n),
            Type::Struct(fields) => TypeKey::Struct(fields.iter().map(|t| self.intern_type(t)).collect()),
            Type::Tuple(fields) => TypeKey::Tuple(fields.iter().map(|t| self.intern_type(t)).collect()),
            _ => unreachable!("scalars returned above"),
        };
        self.intern(key)
    }

    /// Interns a [`FunctionSignature`] (its types first).
    pub fn intern_signature(&mut self, sig: &FunctionSignature) -> SigId {
        let params = sig.params.iter().map(|t| self.intern_type(t)).collect();
        let ret = self.intern_type(&sig.ret);
        self.intern_sig(SigKey { params, ret, convention: sig.convention, variadic: sig.variadic })
    }

    /// The key of `id`.
    #[inline]
    pub fn key(&self, id: TypeId) -> &TypeKey {
        &self.keys[id.index()]
    }

    /// The key of `id`, or `None` for an id not of this table.
    pub fn get(&self, id: TypeId) -> Option<&TypeKey> {
        self.keys.get(id.index())
    }

    /// The signature key of `id`.
    #[inline]
    pub fn sig(&self, id: SigId) -> &SigKey {
        &self.sigs[id.index()]
    }

    /// Number of interned types.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always false: the scalars are always present.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Number of interned signatures.
    pub fn sig_count(&self) -> usize {
        self.sigs.len()
    }

    /// All type ids in interning order.
    pub fn ids(&self) -> impl Iterator<Item = TypeId> {
        (0..self.keys.len()).map(TypeId::new)
    }

    /// Rebuilds the [`Type`] view of `id`.
    pub fn to_type(&self, id: TypeId) -> Type {
        match self.key(id) {
            TypeKey::Ptr(t) => Type::Ptr(Box::new(self.to_type(*t))),
            TypeKey::FnPtr(s) => Type::FnPtr(Box::new(self.to_signature(*s))),
            TypeKey::Array(t, n) => Type::Array(Box::new(self.to_type(*t)), *n),
            TypeKey::Struct(f) => Type::Struct(f.iter().map(|t| self.to_type(*t)).collect()),
            TypeKey::Tuple(f) => Type::Tuple(f.iter().map(|t| self.to_type(*t)).collect()),
            _ => scalar_type(id),
        }
    }

    /// Rebuilds the [`FunctionSignature`] view of `id`.
    pub fn to_signature(&self, id: SigId) -> FunctionSignature {
        let key = self.sig(id);
        FunctionSignature {
            params: key.params.iter().map(|t| self.to_type(*t)).collect(),
            ret: self.to_type(key.ret),
            convention: key.convention,
            variadic: key.variadic,
        }
    }

    /// Whether a value of this type can be stored, moved, selected or phi'd:
    /// everything but `void`, aggregates only when all members are.
    pub fn is_storable(&self, id: TypeId) -> bool {
        if id.is_scalar() {
            return id != TypeId::VOID;
        }
        if let Some(TypeKey::Ptr(_) | TypeKey::FnPtr(_)) = self.get(id) {
            return true;
        }
        // Walked with an explicit stack: type nesting depth is input-controlled.
        let mut stack = vec![id];
        while let Some(t) = stack.pop() {
            match self.get(t) {
                None | Some(TypeKey::Void) => return false,
                Some(TypeKey::Array(e, _)) => stack.push(*e),
                Some(TypeKey::Struct(f) | TypeKey::Tuple(f)) => stack.extend(f.iter().copied()),
                Some(_) => {}
            }
        }
        true
    }

    /// The pointee of a `ptr<T>`.
    pub fn pointee(&self, id: TypeId) -> Option<TypeId> {
        match self.get(id)? {
            TypeKey::Ptr(t) => Some(*t),
            _ => None,
        }
    }

    /// The signature of a `fnptr<SIG>`.
    pub fn fn_ptr_sig(&self, id: TypeId) -> Option<SigId> {
        match self.get(id)? {
            TypeKey::FnPtr(s) => Some(*s),
            _ => None,
        }
    }

    /// Whether `id` is a data pointer.
    pub fn is_ptr(&self, id: TypeId) -> bool {
        matches!(self.get(id), Some(TypeKey::Ptr(_)))
    }

    /// Writes the IR spelling of `id` into `out` without building a [`Type`].
    pub fn write(&self, out: &mut String, id: TypeId) {
        if let Some(name) = id.scalar_name() {
            out.push_str(name);
            return;
        }
        match self.key(id) {
            TypeKey::Ptr(t) => {
                out.push_str("ptr<");
                self.write(out, *t);
                out.push('>');
            }
            TypeKey::FnPtr(s) => {
                out.push_str("fnptr<");
                self.write_sig(out, *s);
                out.push('>');
            }
            TypeKey::Array(t, n) => {
                out.push_str("array<");
                self.write(out, *t);
                out.push_str(", ");
                push_u64(out, *n);
                out.push('>');
            }
            TypeKey::Struct(f) => {
                out.push_str("struct{");
                self.write_list(out, f);
                out.push('}');
            }
            TypeKey::Tuple(f) => {
                out.push_str("tuple<");
                self.write_list(out, f);
                out.push('>');
            }
            _ => unreachable!("scalars handled above"),
        }
    }

    fn write_list(&self, out: &mut String, items: &[TypeId]) {
        for (i, t) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write(out, *t);
        }
    }

    /// Writes `CONV (P, ...) -> R`.
    pub fn write_sig(&self, out: &mut String, id: SigId) {
        let key = self.sig(id);
        out.push_str(key.convention.keyword());
        out.push_str(" (");
        self.write_list(out, &key.params);
        if key.variadic {
            out.push_str(if key.params.is_empty() { "..." } else { ", ..." });
        }
        out.push_str(") -> ");
        self.write(out, key.ret);
    }

    /// The IR spelling of `id` as a new string.
    pub fn display(&self, id: TypeId) -> String {
        let mut s = String::new();
        self.write(&mut s, id);
        s
    }

    /// Heap bytes held by the table.
    pub fn heap_bytes(&self) -> usize {
        self.keys.capacity() * std::mem::size_of::<TypeKey>()
            + self.index.capacity() * 4
            + self.sigs.capacity() * std::mem::size_of::<SigKey>()
            + self.sig_index.capacity() * 4
    }
}

/// Appends the decimal spelling of `n` without allocating.
#[inline]
pub(crate) fn push_u64(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_ids_are_fixed() {
        let table = TypeTable::new();
        for (i, (name, key)) in SCALARS.iter().enumerate() {
            assert_eq!(table.lookup(key), Some(TypeId::new(i)), "{name}");
            assert_eq!(TypeId::new(i).scalar_name(), Some(*name));
        }
        assert!(TypeId::I32.is_signed_int() && TypeId::U1.is_unsigned_int() && TypeId::F16.is_float());
        assert!(!TypeId::BOOL.is_int());
    }

    #[test]
    fn equal_types_share_an_id() {
        let mut table = TypeTable::new();
        let a = table.intern_type(&Type::ptr(Type::array(Type::I32, 4)));
        let b = table.intern_type(&Type::ptr(Type::array(Type::I32, 4)));
        let c = table.intern_type(&Type::ptr(Type::array(Type::I32, 5)));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(table.to_type(a), Type::ptr(Type::array(Type::I32, 4)));
    }

    #[test]
    fn spellings() {
        let sig = FunctionSignature {
            params: vec![Type::I32, Type::Bool],
            ret: Type::I32,
            convention: CallingConvention::Whale,
            variadic: false,
        };
        let ty = Type::Tuple(vec![
            Type::ptr(Type::Void),
            Type::fn_ptr(sig),
            Type::array(Type::Struct(vec![Type::U8, Type::F64]), 3),
            Type::Struct(vec![]),
        ]);
        let expected = "tuple<ptr<void>, fnptr<whale (i32, bool) -> i32>, array<struct{u8, f64}, 3>, struct{}>";
        assert_eq!(ty.to_string(), expected);
        let mut table = TypeTable::new();
        let id = table.intern_type(&ty);
        assert_eq!(table.display(id), expected);
        let variadic = FunctionSignature {
            params: vec![Type::I8],
            ret: Type::Void,
            convention: CallingConvention::SysV64,
            variadic: true,
        };
        assert_eq!(variadic.to_string(), "sysv64 (i8, ...) -> void");
    }
}
