//! Values exchanged with the embedder: arguments, results and host-function
//! operands, plus their IR spelling (whale-ir §8) for the command line.
//!
//! Inside the interpreter values are frame slots (see [`crate::shape`]); a
//! [`Value`] exists only at the boundary, so its conversions walk the type once
//! per call, never per executed instruction.

use std::fmt;

use ir::{FloatBits, FunctionId, Module, TypeId, TypeKey, TypeTable};

use crate::program::{function_address, Decls};
use crate::shape::{Kind, Shapes};

/// A data pointer: an address and, when it came from an allocation, the
/// provenance that lets it access that allocation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Pointer {
    pub(crate) address: u64,
    pub(crate) tag: u64,
}

impl Pointer {
    /// The null pointer.
    pub const NULL: Pointer = Pointer { address: 0, tag: 0 };

    /// A pointer to `address` without provenance (like `inttoptr`): it can be
    /// compared and converted, but any access through it traps.
    pub const fn from_address(address: u64) -> Pointer {
        Pointer { address, tag: 0 }
    }

    /// The address.
    pub const fn address(self) -> u64 {
        self.address
    }

    /// Whether the pointer carries allocation provenance.
    pub const fn has_provenance(self) -> bool {
        self.tag != 0
    }

    /// The same provenance at `address + delta` (unchecked; accesses check).
    pub const fn wrapping_offset(self, delta: i64) -> Pointer {
        Pointer { address: self.address.wrapping_add_signed(delta), tag: self.tag }
    }
}

/// A function pointer value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FnPtr {
    /// `null_function`.
    Null,
    /// The address of a function of the module.
    Function(FunctionId),
    /// An address that designates no function (read from memory).
    Invalid(u64),
}

/// A value of any IR type.
///
/// Floats compare by bit pattern (so NaN payloads and −0 are distinguished).
/// `I1` holds −1 or 0 and `U1` holds 0 or 1. Arrays, structs and tuples are
/// [`Value::Aggregate`]s of their elements or fields in order.
#[derive(Clone, Debug)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// `i1` (−1 or 0).
    I1(i8),
    /// `i8`.
    I8(i8),
    /// `i16`.
    I16(i16),
    /// `i32`.
    I32(i32),
    /// `i64`.
    I64(i64),
    /// `i128`.
    I128(i128),
    /// `u1` (0 or 1).
    U1(u8),
    /// `u8`.
    U8(u8),
    /// `u16`.
    U16(u16),
    /// `u32`.
    U32(u32),
    /// `u64`.
    U64(u64),
    /// `u128`.
    U128(u128),
    /// `f16`.
    F16(half::f16),
    /// `f32`.
    F32(f32),
    /// `f64`.
    F64(f64),
    /// `ptr<T>`.
    Ptr(Pointer),
    /// `fnptr<SIG>`.
    FnPtr(FnPtr),
    /// `array<T, N>`, `struct{..}`, `tuple<..>`.
    Aggregate(Vec<Value>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Bool(a), Bool(b)) => a == b,
            (I1(a), I1(b)) | (I8(a), I8(b)) => a == b,
            (I16(a), I16(b)) => a == b,
            (I32(a), I32(b)) => a == b,
            (I64(a), I64(b)) => a == b,
            (I128(a), I128(b)) => a == b,
            (U1(a), U1(b)) | (U8(a), U8(b)) => a == b,
            (U16(a), U16(b)) => a == b,
            (U32(a), U32(b)) => a == b,
            (U64(a), U64(b)) => a == b,
            (U128(a), U128(b)) => a == b,
            (F16(a), F16(b)) => a.to_bits() == b.to_bits(),
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            (Ptr(a), Ptr(b)) => a == b,
            (FnPtr(a), FnPtr(b)) => a == b,
            (Aggregate(a), Aggregate(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl Value {
    /// An `f16` from its bit pattern.
    pub fn f16_bits(bits: u16) -> Value {
        Value::F16(half::f16::from_bits(bits))
    }

    /// An `f32` from its bit pattern.
    pub fn f32_bits(bits: u32) -> Value {
        Value::F32(f32::from_bits(bits))
    }

    /// An `f64` from its bit pattern.
    pub fn f64_bits(bits: u64) -> Value {
        Value::F64(f64::from_bits(bits))
    }

    /// The value of a scalar constant of type `ty` (`None` if the payload does not fit it).
    pub fn from_const(value: ir::ConstValue, ty: TypeId) -> Option<Value> {
        if !value.is_valid_for(ty) {
            return None;
        }
        let kind = Kind::of_scalar(ty)?;
        let [lo, hi] = crate::compile::const_slots(value, kind);
        Some(scalar_value(kind, lo, hi))
    }

    /// An integer value as `i128` (unsigned values that fit), for tests and hosts.
    pub fn as_i128(&self) -> Option<i128> {
        Some(match *self {
            Value::I1(v) | Value::I8(v) => i128::from(v),
            Value::I16(v) => i128::from(v),
            Value::I32(v) => i128::from(v),
            Value::I64(v) => i128::from(v),
            Value::I128(v) => v,
            Value::U1(v) | Value::U8(v) => i128::from(v),
            Value::U16(v) => i128::from(v),
            Value::U32(v) => i128::from(v),
            Value::U64(v) => i128::from(v),
            Value::U128(v) => i128::try_from(v).ok()?,
            _ => return None,
        })
    }
}

/// The value of a scalar (not pointer) kind from its canonical slots.
pub(crate) fn scalar_value(kind: Kind, lo: u64, hi: u64) -> Value {
    let wide = u128::from(lo) | (u128::from(hi) << 64);
    match kind {
        Kind::Bool => Value::Bool(lo != 0),
        Kind::I1 => Value::I1(lo as i8),
        Kind::I8 => Value::I8(lo as i8),
        Kind::I16 => Value::I16(lo as i16),
        Kind::I32 => Value::I32(lo as i32),
        Kind::I64 => Value::I64(lo as i64),
        Kind::I128 => Value::I128(wide as i128),
        Kind::U1 => Value::U1(lo as u8),
        Kind::U8 => Value::U8(lo as u8),
        Kind::U16 => Value::U16(lo as u16),
        Kind::U32 => Value::U32(lo as u32),
        Kind::U64 => Value::U64(lo),
        Kind::U128 => Value::U128(wide),
        Kind::F16 => Value::F16(half::f16::from_bits(lo as u16)),
        Kind::F32 => Value::F32(f32::from_bits(lo as u32)),
        Kind::F64 => Value::F64(f64::from_bits(lo)),
        Kind::Ptr => Value::Ptr(Pointer { address: lo, tag: hi }),
        Kind::FnPtr => Value::FnPtr(FnPtr::Invalid(lo)),
    }
}

/// Appends the slots of `value` as a value of type `ty`; `false` if it is not one.
pub(crate) fn to_slots(types: &TypeTable, shapes: &Shapes, ty: TypeId, value: &Value, out: &mut Vec<u64>) -> bool {
    if let Some(kind) = shapes.kind(ty) {
        let slots: [u64; 2] = match (kind, value) {
            (Kind::Bool, Value::Bool(b)) => [u64::from(*b), 0],
            (Kind::I1, Value::I1(v)) if *v == 0 || *v == -1 => [*v as i64 as u64, 0],
            (Kind::I8, Value::I8(v)) => [*v as i64 as u64, 0],
            (Kind::I16, Value::I16(v)) => [*v as i64 as u64, 0],
            (Kind::I32, Value::I32(v)) => [*v as i64 as u64, 0],
            (Kind::I64, Value::I64(v)) => [*v as u64, 0],
            (Kind::I128, Value::I128(v)) => [*v as u64, (*v as u128 >> 64) as u64],
            (Kind::U1, Value::U1(v)) if *v <= 1 => [u64::from(*v), 0],
            (Kind::U8, Value::U8(v)) => [u64::from(*v), 0],
            (Kind::U16, Value::U16(v)) => [u64::from(*v), 0],
            (Kind::U32, Value::U32(v)) => [u64::from(*v), 0],
            (Kind::U64, Value::U64(v)) => [*v, 0],
            (Kind::U128, Value::U128(v)) => [*v as u64, (*v >> 64) as u64],
            (Kind::F16, Value::F16(v)) => [u64::from(v.to_bits()), 0],
            (Kind::F32, Value::F32(v)) => [u64::from(v.to_bits()), 0],
            (Kind::F64, Value::F64(v)) => [v.to_bits(), 0],
            (Kind::Ptr, Value::Ptr(p)) => [p.address, p.tag],
            (Kind::FnPtr, Value::FnPtr(f)) => [
                match *f {
                    FnPtr::Null => 0,
                    FnPtr::Function(id) => function_address(id),
                    FnPtr::Invalid(a) => a,
                },
                0,
            ],
            _ => return false,
        };
        out.extend_from_slice(&slots[..kind.slots() as usize]);
        return true;
    }
    let Value::Aggregate(items) = value else { return false };
    match types.get(ty) {
        Some(TypeKey::Array(elem, n)) => {
            items.len() as u64 == *n && items.iter().all(|v| to_slots(types, shapes, *elem, v, out))
        }
        Some(TypeKey::Struct(fields) | TypeKey::Tuple(fields)) => {
            items.len() == fields.len()
                && items.iter().zip(fields.iter()).all(|(v, &f)| to_slots(types, shapes, f, v, out))
        }
        _ => false,
    }
}

/// Rebuilds a value of type `ty` from `slots`, advancing `at`.
pub(crate) fn from_slots(
    types: &TypeTable,
    shapes: &Shapes,
    decls: &Decls,
    ty: TypeId,
    slots: &[u64],
    at: &mut usize,
) -> Value {
    let mut take = || {
        let v = slots.get(*at).copied().unwrap_or(0);
        *at += 1;
        v
    };
    if let Some(kind) = shapes.kind(ty) {
        let lo = take();
        let hi = if kind.slots() == 2 { take() } else { 0 };
        return match kind {
            Kind::FnPtr if lo == 0 => Value::FnPtr(FnPtr::Null),
            Kind::FnPtr => match decls.decode(lo).and_then(|d| decls.get(d)) {
                Some(d) => Value::FnPtr(FnPtr::Function(d.id)),
                None => Value::FnPtr(FnPtr::Invalid(lo)),
            },
            _ => scalar_value(kind, lo, hi),
        };
    }
    match types.get(ty) {
        Some(TypeKey::Array(elem, n)) => {
            let elem = *elem;
            // Arrays of zero-slot elements can be long; their values are all alike.
            let n = usize::try_from(*n).unwrap_or(usize::MAX).min(crate::shape::MAX_VALUE_SLOTS as usize);
            Value::Aggregate((0..n).map(|_| from_slots(types, shapes, decls, elem, slots, at)).collect())
        }
        Some(TypeKey::Struct(fields) | TypeKey::Tuple(fields)) => {
            Value::Aggregate(fields.iter().map(|&f| from_slots(types, shapes, decls, f, slots, at)).collect())
        }
        _ => Value::Aggregate(Vec::new()),
    }
}

/// Writes the value part of the IR spelling (whale-ir §8): `-7`, `true`,
/// `0x3fe0000000000000`, `0x1000` for pointers, `@f3`/`null` for function
/// pointers, `{ 1, true }` for aggregates.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(v) => write!(f, "{v}"),
            Value::I1(v) | Value::I8(v) => write!(f, "{v}"),
            Value::I16(v) => write!(f, "{v}"),
            Value::I32(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::I128(v) => write!(f, "{v}"),
            Value::U1(v) | Value::U8(v) => write!(f, "{v}"),
            Value::U16(v) => write!(f, "{v}"),
            Value::U32(v) => write!(f, "{v}"),
            Value::U64(v) => write!(f, "{v}"),
            Value::U128(v) => write!(f, "{v}"),
            Value::F16(v) => write!(f, "{}", FloatBits::F16(v.to_bits())),
            Value::F32(v) => write!(f, "{}", FloatBits::F32(v.to_bits())),
            Value::F64(v) => write!(f, "{}", FloatBits::F64(v.to_bits())),
            Value::Ptr(p) => write!(f, "{:#x}", p.address),
            Value::FnPtr(FnPtr::Null) => f.write_str("null"),
            Value::FnPtr(FnPtr::Function(id)) => write!(f, "{id}"),
            Value::FnPtr(FnPtr::Invalid(a)) => write!(f, "{a:#x}"),
            Value::Aggregate(items) => {
                f.write_str("{")?;
                for (i, v) in items.iter().enumerate() {
                    f.write_str(if i == 0 { " " } else { ", " })?;
                    write!(f, "{v}")?;
                }
                f.write_str(" }")
            }
        }
    }
}

/// `TYPE VALUE` as `ir run` prints a result (`i32 -7`, `void` for none).
pub fn format_result(module: &Module, ty: TypeId, value: Option<&Value>) -> String {
    match value {
        None => "void".to_string(),
        Some(v) => format!("{} {v}", crate::shape::type_label(module.types(), ty)),
    }
}

/// A literal that is not a constant of the expected type.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("`{text}` is not a {ty} literal in range")]
pub struct LiteralError {
    /// The expected type in IR spelling.
    pub ty: String,
    /// The literal.
    pub text: String,
}

/// Parses `text` as a value of type `ty`, spelled as an IR constant (whale-ir
/// §8): decimal integers, `true`/`false`, floats as exact-width hex bit strings
/// (`0x3fe0000000000000`), `null` or `0xADDR` for pointers (without
/// provenance), `null` or `@fN` for function pointers, `{ v, ... }` for
/// aggregates.
pub fn parse_value(module: &Module, ty: TypeId, text: &str) -> Result<Value, LiteralError> {
    let types = module.types();
    let error = || LiteralError { ty: crate::shape::type_label(module.types(), ty), text: text.to_string() };
    parse_in(module, types, ty, text.trim(), 0).ok_or_else(error)
}

fn parse_in(module: &Module, types: &TypeTable, ty: TypeId, text: &str, depth: u32) -> Option<Value> {
    if depth > crate::shape::MAX_DEPTH {
        return None;
    }
    match types.get(ty)? {
        TypeKey::Bool => match text {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        TypeKey::Int { signed, .. } => {
            let valid = |v: ir::ConstValue| Value::from_const(v, ty);
            let digits = text.strip_prefix('-').unwrap_or(text);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            if *signed {
                valid(ir::ConstValue::I(text.parse::<i128>().ok()?))
            } else {
                valid(ir::ConstValue::U(text.parse::<u128>().ok()?))
            }
        }
        TypeKey::Float { bits } => {
            let bits = FloatBits::parse(u32::from(*bits), text).ok()?;
            Value::from_const(ir::ConstValue::F(bits), ty)
        }
        TypeKey::Ptr(_) => match text {
            "null" => Some(Value::Ptr(Pointer::NULL)),
            _ => {
                let hex = text.strip_prefix("0x")?;
                Some(Value::Ptr(Pointer::from_address(u64::from_str_radix(hex, 16).ok()?)))
            }
        },
        TypeKey::FnPtr(_) => match text {
            "null" => Some(Value::FnPtr(FnPtr::Null)),
            _ => {
                let n = text.strip_prefix("@f")?;
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let id = FunctionId::from_u32(n.parse().ok()?);
                module.declaration(id).map(|_| Value::FnPtr(FnPtr::Function(id)))
            }
        },
        TypeKey::Array(elem, n) => {
            let items = split_aggregate(text)?;
            if items.len() as u64 != *n {
                return None;
            }
            items
                .iter()
                .map(|t| parse_in(module, types, *elem, t, depth + 1))
                .collect::<Option<Vec<_>>>()
                .map(Value::Aggregate)
        }
        TypeKey::Struct(fields) | TypeKey::Tuple(fields) => {
            let items = split_aggregate(text)?;
            if items.len() != fields.len() {
                return None;
            }
            items
                .iter()
                .zip(fields.iter())
                .map(|(t, &f)| parse_in(module, types, f, t, depth + 1))
                .collect::<Option<Vec<_>>>()
                .map(Value::Aggregate)
        }
        TypeKey::Void => None,
    }
}

/// Splits `{ a, { b, c }, d }` into its top-level items.
fn split_aggregate(text: &str) -> Option<Vec<&str>> {
    let inner = text.strip_prefix('{')?.strip_suffix('}')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, b) in inner.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.checked_sub(1)?,
            b',' if depth == 0 => {
                items.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return None;
    }
    items.push(inner[start..].trim());
    Some(items)
}

/// Resolves `@fN` (a declared function identity) or a declared name.
pub fn resolve_function(module: &Module, text: &str) -> Option<FunctionId> {
    if let Some(n) = text.strip_prefix("@f") {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            let id = FunctionId::from_u32(n.parse().ok()?);
            return module.declaration(id).map(|d| d.id);
        }
    }
    module.declarations().find(|d| d.name == text).map(|d| d.id)
}

/// Why command-line arguments do not fit a function's parameters.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ArgumentError {
    /// The module declares no such function.
    #[error("no function {0}")]
    UnknownFunction(FunctionId),
    /// Wrong number of arguments.
    #[error("expected {expected} arguments, got {got}")]
    Count {
        /// Parameters of the function.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
    /// An argument is not a literal of its parameter's type.
    #[error("argument {index}: {error}")]
    Literal {
        /// 0-based argument index.
        index: usize,
        /// The literal error.
        error: LiteralError,
    },
}

/// Parses `texts` as the arguments of `function` (see [`parse_value`]); also
/// returns the function's result type.
pub fn parse_arguments(
    module: &Module,
    function: FunctionId,
    texts: &[String],
) -> Result<(Vec<Value>, TypeId), ArgumentError> {
    let decl = module.declaration(function).ok_or(ArgumentError::UnknownFunction(function))?;
    let sig = module.types().sig(decl.sig);
    if sig.params.len() != texts.len() {
        return Err(ArgumentError::Count { expected: sig.params.len(), got: texts.len() });
    }
    let values = sig
        .params
        .iter()
        .zip(texts)
        .enumerate()
        .map(|(index, (&ty, text))| {
            parse_value(module, ty, text).map_err(|error| ArgumentError::Literal { index, error })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((values, sig.ret))
}
