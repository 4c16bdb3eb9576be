//! AST types, signatures, literals and constant expressions as IR values
//! (whale-upstream §f.2, §f.3).
//!
//! Lowering keeps types as [`TypeId`]s of its own [`TypeTable`] ([`Types`]): a
//! type is then a `Copy` handle, equality is `==`, and "is this a signed
//! integer?" is a range check, where the [`Type`] view would clone and drop
//! trees on every value. Scalars have the same fixed ids in every table, so the
//! builder still gets exactly the `Type`s it got before; compound ids never
//! leave the lowering.
//!
//! Literal text is checked here, in upstream's order: the shape of the digits,
//! then the 128-bit range of the signedness, then the declared width. Constant
//! expressions are built as [`ConstExpr`] trees and evaluated by
//! [`crate::const_expr::evaluate`], the verifier's own evaluator, so a lowered
//! `const_decl` or global always re-evaluates to the value recorded beside it.

use crate::builder::FunctionBuilder;
use crate::const_expr::{self, ConstBinOp, ConstCmpOp, ConstEvalError, ConstExpr, ConstExprKind, ConstRef};
use crate::constant::{ConstValue, FloatBits};
use crate::entity::{EntityRef, SigId, TypeId};
use crate::layout::{allocation_align, LayoutError};
use crate::module;
use crate::types::{CallingConvention, FunctionSignature, SigKey, Type, TypeKey, TypeTable};

use super::error::LowerError;
use super::tree as ast;
use super::MAX_NESTING;

/// Fails when `depth` is beyond [`MAX_NESTING`].
#[inline]
pub(super) fn check_depth(depth: usize) -> Result<(), LowerError> {
    if depth > MAX_NESTING {
        Err(LowerError::NestingLimit { limit: MAX_NESTING })
    } else {
        Ok(())
    }
}

/// The [`Type`] of a scalar id (every table interns the scalars at these ids).
fn scalar_type(id: TypeId) -> Type {
    debug_assert!(id.is_scalar(), "{id:?} is not a scalar");
    match id {
        TypeId::BOOL => Type::Bool,
        TypeId::I1 => Type::I1,
        TypeId::I8 => Type::I8,
        TypeId::I16 => Type::I16,
        TypeId::I32 => Type::I32,
        TypeId::I64 => Type::I64,
        TypeId::I128 => Type::I128,
        TypeId::U1 => Type::U1,
        TypeId::U8 => Type::U8,
        TypeId::U16 => Type::U16,
        TypeId::U32 => Type::U32,
        TypeId::U64 => Type::U64,
        TypeId::U128 => Type::U128,
        TypeId::F16 => Type::F16,
        TypeId::F32 => Type::F32,
        TypeId::F64 => Type::F64,
        _ => Type::Void,
    }
}

/// The types of one lowering, interned in a table of its own, with the
/// allocation alignment of each type computed once.
pub(super) struct Types {
    table: TypeTable,
    /// `allocation_align` by type id, once computed.
    aligns: Vec<Option<u32>>,
    /// The module's id of each compound type, once interned there.
    module_ids: Vec<Option<TypeId>>,
}

impl Types {
    pub(super) fn new() -> Self {
        Types { table: TypeTable::new(), aligns: Vec::new(), module_ids: Vec::new() }
    }

    /// The id of `id`'s type in the module `fb` builds. Scalars have the same
    /// id in every table; a compound type is interned there on first use.
    #[inline]
    pub(super) fn module_id(&mut self, id: TypeId, fb: &mut FunctionBuilder<'_>) -> TypeId {
        if id.is_scalar() {
            return id;
        }
        if let Some(&Some(module_id)) = self.module_ids.get(id.index()) {
            return module_id;
        }
        let module_id = fb.intern(&self.ty(id));
        if self.module_ids.len() <= id.index() {
            self.module_ids.resize(id.index() + 1, None);
        }
        self.module_ids[id.index()] = Some(module_id);
        module_id
    }

    /// The id of an AST type: unsupported widths and opaque types fail, and
    /// children are lowered left to right one level deeper.
    pub(super) fn lower(&mut self, ty: &ast::Type<'_>, depth: usize) -> Result<TypeId, LowerError> {
        check_depth(depth)?;
        let key = match *ty {
            ast::Type::Int { bits, signed } => {
                return TypeId::int(u32::from(bits), signed)
                    .ok_or_else(|| LowerError::UnsupportedType(format!("int bits={bits} signed={signed}")))
            }
            ast::Type::Float { bits } => {
                return TypeId::float(u32::from(bits))
                    .ok_or_else(|| LowerError::UnsupportedType(format!("float bits={bits}")))
            }
            ast::Type::Void => return Ok(TypeId::VOID),
            ast::Type::Bool => return Ok(TypeId::BOOL),
            ast::Type::Opaque(name) => return Err(LowerError::UnsupportedType(format!("opaque {name}"))),
            ast::Type::Ptr(pointee) => TypeKey::Ptr(self.lower(pointee, depth + 1)?),
            ast::Type::Array { elem, len } => TypeKey::Array(self.lower(elem, depth + 1)?, len),
            ast::Type::FnPtr(sig) => TypeKey::FnPtr(self.signature(sig, depth + 1)?),
        };
        Ok(self.table.intern(key))
    }

    /// The id of an AST signature (validity is the builder's to check).
    pub(super) fn signature(&mut self, sig: &ast::Signature<'_>, depth: usize) -> Result<SigId, LowerError> {
        check_depth(depth)?;
        let params = sig.params.iter().map(|p| self.lower(p, depth + 1)).collect::<Result<Box<[_]>, _>>()?;
        let ret = self.lower(&sig.ret, depth + 1)?;
        let key = SigKey { params, ret, convention: convention(sig.convention), variadic: sig.variadic };
        Ok(self.table.intern_sig(key))
    }

    /// The signature of a function definition (never variadic).
    pub(super) fn definition_signature(
        &mut self,
        params: &[TypeId],
        ret: TypeId,
        convention: ast::Convention,
    ) -> SigId {
        let key = SigKey { params: params.into(), ret, convention: self::convention(convention), variadic: false };
        self.table.intern_sig(key)
    }

    /// The result type of `sig`.
    pub(super) fn sig_ret(&self, sig: SigId) -> TypeId {
        self.table.sig(sig).ret
    }

    /// `fnptr<sig>`.
    pub(super) fn fn_ptr(&mut self, sig: SigId) -> TypeId {
        self.table.intern(TypeKey::FnPtr(sig))
    }

    /// The result type of calls through a value of type `id`, if it is a function pointer.
    pub(super) fn fn_ptr_ret(&self, id: TypeId) -> Option<TypeId> {
        self.table.fn_ptr_sig(id).map(|sig| self.table.sig(sig).ret)
    }

    /// The [`Type`] view of `id`, as the builder takes it.
    #[inline]
    pub(super) fn ty(&self, id: TypeId) -> Type {
        if id.is_scalar() {
            scalar_type(id)
        } else {
            self.table.to_type(id)
        }
    }

    /// The [`FunctionSignature`] view of `sig`.
    pub(super) fn signature_of(&self, sig: SigId) -> FunctionSignature {
        self.table.to_signature(sig)
    }

    /// [`allocation_align`] of `id`, computed once per type: computing it interns
    /// the type in a fresh table, which would dominate lowering if done per slot.
    pub(super) fn align(&mut self, id: TypeId) -> Result<u32, LayoutError> {
        if let Some(&Some(align)) = self.aligns.get(id.index()) {
            return Ok(align);
        }
        // Lowering lays out for the one target; a module naming another fails verification on its target.
        let align = allocation_align(&self.ty(id), crate::target::Target::X86_64WhaleLinux)?;
        if self.aligns.len() <= id.index() {
            self.aligns.resize(id.index() + 1, None);
        }
        self.aligns[id.index()] = Some(align);
        Ok(align)
    }

    /// `got` must be exactly `expected` (there are no implicit conversions).
    pub(super) fn expect(&self, expected: TypeId, got: TypeId) -> Result<(), LowerError> {
        if expected == got {
            Ok(())
        } else {
            Err(self.mismatch(expected, got))
        }
    }

    /// [`LowerError::TypeMismatch`] between two ids.
    #[cold]
    pub(super) fn mismatch(&self, expected: TypeId, got: TypeId) -> LowerError {
        LowerError::TypeMismatch { expected: self.ty(expected), got: self.ty(got) }
    }
}

/// The IR calling convention.
pub(super) fn convention(convention: ast::Convention) -> CallingConvention {
    match convention {
        ast::Convention::Whale => CallingConvention::Whale,
        ast::Convention::SysV64 => CallingConvention::SysV64,
    }
}

/// The IR linkage.
pub(super) fn linkage(linkage: ast::Linkage) -> module::Linkage {
    match linkage {
        ast::Linkage::Internal => module::Linkage::Internal,
        ast::Linkage::External => module::Linkage::External,
    }
}

/// The (scalar) type and payload of a literal.
pub(super) fn literal(lit: &ast::Literal<'_>) -> Result<(TypeId, ConstValue), LowerError> {
    match *lit {
        ast::Literal::Bool(b) => Ok((TypeId::BOOL, ConstValue::Bool(b))),
        ast::Literal::Int { bits, signed, value } => {
            let ty = TypeId::int(u32::from(bits), signed)
                .ok_or_else(|| LowerError::UnsupportedType(format!("int bits={bits} signed={signed}")))?;
            let payload = int_literal(signed, value)?;
            if !payload.is_valid_for(ty) {
                return Err(LowerError::InvalidLiteral { ty: scalar_type(ty), value: value.to_string() });
            }
            Ok((ty, payload))
        }
        ast::Literal::Float { bits, value } => {
            let bits =
                FloatBits::parse(u32::from(bits), value).map_err(|e| LowerError::NumericLiteral(e.to_string()))?;
            Ok((bits.type_id(), ConstValue::F(bits)))
        }
    }
}

/// Parses decimal digits with an optional `-` (signed only) into a 128-bit
/// payload, with the messages of upstream's `str::parse` calls.
fn int_literal(signed: bool, text: &str) -> Result<ConstValue, LowerError> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) if signed => (true, digits),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LowerError::NumericLiteral("expected decimal digits with an optional signed minus".into()));
    }
    let magnitude = decimal(digits.as_bytes());
    if signed {
        // i128::MIN's magnitude is one more than i128::MAX's.
        let value =
            magnitude.and_then(|m| if negative { 0i128.checked_sub_unsigned(m) } else { i128::try_from(m).ok() });
        value.map(ConstValue::I).ok_or_else(|| LowerError::NumericLiteral("integer exceeds i128 range".into()))
    } else {
        magnitude.map(ConstValue::U).ok_or_else(|| LowerError::NumericLiteral("integer exceeds u128 range".into()))
    }
}

/// The value of ASCII decimal digits, `None` beyond `u128`.
fn decimal(digits: &[u8]) -> Option<u128> {
    // Nineteen digits always fit a `u64`, whose arithmetic is cheaper.
    if digits.len() <= 19 {
        let value = digits.iter().fold(0u64, |value, &d| value * 10 + u64::from(d - b'0'));
        return Some(u128::from(value));
    }
    digits.iter().try_fold(0u128, |value, &d| value.checked_mul(10)?.checked_add(u128::from(d - b'0')))
}

/// What a name denotes inside a constant expression.
pub(super) enum ConstName {
    /// A runtime variable or parameter: not constant.
    Runtime,
    /// A constant (local `const_decl` or global) of this type.
    Constant(ConstRef, Type),
    /// Nothing of that name is visible.
    Unknown,
}

/// Builds the constant-expression tree of `expr`, resolving names with `lookup`.
pub(super) fn const_expr(
    expr: &ast::Expr<'_>,
    depth: usize,
    lookup: &dyn Fn(&str) -> ConstName,
) -> Result<ConstExpr, LowerError> {
    check_depth(depth)?;
    match *expr {
        ast::Expr::Var(name) => match lookup(name) {
            ConstName::Constant(reference, ty) => Ok(ConstExpr { ty, kind: ConstExprKind::Reference(reference) }),
            ConstName::Runtime => Err(LowerError::NonConstExpr),
            ConstName::Unknown => Err(LowerError::UnknownVariable(name.to_string())),
        },
        ast::Expr::Lit(lit) => {
            let (ty, value) = literal(&lit)?;
            Ok(ConstExpr::literal(scalar_type(ty), value))
        }
        ast::Expr::Binary { left, op, right } => {
            let (lhs, rhs) = const_operands(left, right, depth, lookup)?;
            let op = match op {
                ast::BinaryOp::Add => ConstBinOp::Add,
                ast::BinaryOp::Sub => ConstBinOp::Sub,
                ast::BinaryOp::Mul => ConstBinOp::Mul,
            };
            Ok(ConstExpr { ty: lhs.ty.clone(), kind: ConstExprKind::Binary { op, lhs, rhs } })
        }
        ast::Expr::Cmp { left, op, right } => {
            let (lhs, rhs) = const_operands(left, right, depth, lookup)?;
            let op = match op {
                ast::CmpOp::Eq => ConstCmpOp::Eq,
                ast::CmpOp::Ne => ConstCmpOp::Ne,
                ast::CmpOp::Lt => ConstCmpOp::Lt,
                ast::CmpOp::Le => ConstCmpOp::Le,
                ast::CmpOp::Gt => ConstCmpOp::Gt,
                ast::CmpOp::Ge => ConstCmpOp::Ge,
            };
            Ok(ConstExpr { ty: Type::Bool, kind: ConstExprKind::Compare { op, lhs, rhs } })
        }
        ast::Expr::FunctionRef(_) | ast::Expr::Call { .. } | ast::Expr::NullFunction(_) => {
            Err(LowerError::NonConstExpr)
        }
    }
}

type Operands = (Box<ConstExpr>, Box<ConstExpr>);

fn const_operands(
    left: &ast::Expr<'_>,
    right: &ast::Expr<'_>,
    depth: usize,
    lookup: &dyn Fn(&str) -> ConstName,
) -> Result<Operands, LowerError> {
    let lhs = const_expr(left, depth + 1, lookup)?;
    let rhs = const_expr(right, depth + 1, lookup)?;
    if lhs.ty != rhs.ty {
        return Err(LowerError::TypeMismatch { expected: lhs.ty, got: rhs.ty });
    }
    Ok((Box::new(lhs), Box::new(rhs)))
}

/// Evaluates a tree built by [`const_expr`]; `resolve` gives the type and value
/// of a referenced constant. Operations undefined on their type (bool
/// arithmetic, ordering of bools) are [`LowerError::UnsupportedExpr`].
pub(super) fn evaluate(
    expr: &ConstExpr,
    resolve: &mut dyn FnMut(ConstRef) -> Option<(Type, ConstValue)>,
) -> Result<ConstValue, LowerError> {
    let mut resolver = |r: ConstRef| resolve(r).ok_or_else(|| ConstEvalError::UnknownReference(format!("{r:?}")));
    // Trees are at most MAX_NESTING deep, within the evaluator's default budget,
    // which the verifier uses as well.
    const_expr::evaluate(expr, const_expr::DEFAULT_CONST_EXPR_DEPTH, &mut resolver).map_err(|e| match e {
        ConstEvalError::ResourceLimit => LowerError::NestingLimit { limit: MAX_NESTING },
        _ => LowerError::UnsupportedExpr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(lit: ast::Literal<'_>) -> Result<(Type, ConstValue), LowerError> {
        literal(&lit).map(|(ty, value)| (scalar_type(ty), value))
    }

    fn int(bits: u16, signed: bool, value: &str) -> Result<(Type, ConstValue), LowerError> {
        lit(ast::Literal::Int { bits, signed, value })
    }

    fn numeric(message: &str) -> Result<(Type, ConstValue), LowerError> {
        Err(LowerError::NumericLiteral(message.into()))
    }

    const SHAPE: &str = "expected decimal digits with an optional signed minus";

    #[test]
    fn integer_literal_rules() {
        assert_eq!(int(8, true, "-128"), Ok((Type::I8, ConstValue::I(-128))));
        assert_eq!(int(8, false, "007"), Ok((Type::U8, ConstValue::U(7))));
        assert_eq!(int(128, false, &u128::MAX.to_string()), Ok((Type::U128, ConstValue::U(u128::MAX))));
        assert_eq!(int(128, true, &i128::MIN.to_string()), Ok((Type::I128, ConstValue::I(i128::MIN))));
        assert_eq!(int(1, true, "-1"), Ok((Type::I1, ConstValue::I(-1))));
        for bad in ["", "-", "+1", " 1", "1 ", "1.0", "1e3", "1_000", "--1", "0x10"] {
            assert_eq!(int(32, true, bad), numeric(SHAPE), "{bad:?}");
        }
        assert_eq!(int(32, false, "-1"), numeric(SHAPE));
        let above_i128 = (i128::MAX as u128 + 1).to_string();
        assert_eq!(int(128, true, &above_i128), numeric("integer exceeds i128 range"));
        assert_eq!(int(8, true, &format!("-{above_i128}1")), numeric("integer exceeds i128 range"));
        assert_eq!(int(128, false, "340282366920938463463374607431768211456"), numeric("integer exceeds u128 range"));
        for (bits, signed, text, ty) in [
            (8, true, "128", Type::I8),
            (8, false, "256", Type::U8),
            (1, true, "1", Type::I1),
            (1, false, "2", Type::U1),
        ] {
            assert_eq!(int(bits, signed, text), Err(LowerError::InvalidLiteral { ty, value: text.into() }));
        }
        assert_eq!(int(7, true, "1"), Err(LowerError::UnsupportedType("int bits=7 signed=true".into())));
    }

    #[test]
    fn float_literal_rules() {
        let f = |bits: u16, value: &str| lit(ast::Literal::Float { bits, value });
        assert_eq!(f(16, "0x3C00"), Ok((Type::F16, ConstValue::F(FloatBits::F16(0x3c00)))));
        assert_eq!(f(64, "0x7ff8000000000001"), Ok((Type::F64, ConstValue::F(FloatBits::F64(0x7ff8_0000_0000_0001)))));
        assert_eq!(f(8, "0x00"), numeric("float width must be 16, 32 or 64"));
        assert_eq!(f(32, "3f800000"), numeric("float value must start with 0x"));
        assert_eq!(f(32, "0x3f80"), numeric("f32 requires exactly 8 hexadecimal digits"));
    }

    #[test]
    fn types_and_depth() {
        let mut types = Types::new();
        let mut lower = |ty: &ast::Type<'_>| types.lower(ty, 0).map(|id| types.ty(id));
        assert_eq!(lower(&ast::Type::Float { bits: 80 }), Err(LowerError::UnsupportedType("float bits=80".into())));
        assert_eq!(lower(&ast::Type::Opaque("FILE")), Err(LowerError::UnsupportedType("opaque FILE".into())));
        let int = |bits, signed| ast::Type::Int { bits, signed };
        let params = [int(8, true), ast::Type::Ptr(&ast::Type::Int { bits: 64, signed: false })];
        let sig = ast::Signature {
            params: &params,
            ret: ast::Type::Void,
            convention: ast::Convention::SysV64,
            variadic: false,
        };
        let fn_ptr = ast::Type::FnPtr(&sig);
        let array = ast::Type::Array { elem: &fn_ptr, len: 3 };
        let expected = Type::array(
            Type::fn_ptr(FunctionSignature {
                params: vec![Type::I8, Type::ptr(Type::U64)],
                ret: Type::Void,
                convention: CallingConvention::SysV64,
                variadic: false,
            }),
            3,
        );
        assert_eq!(lower(&array), Ok(expected));
        let bump = bumpalo::Bump::new();
        let mut deep = &*bump.alloc(ast::Type::Bool);
        for _ in 0..=MAX_NESTING {
            deep = bump.alloc(ast::Type::Ptr(deep));
        }
        assert_eq!(lower(deep), Err(LowerError::NestingLimit { limit: MAX_NESTING }));
    }

    #[test]
    fn scalar_ids_map_to_their_types() {
        let types = Types::new();
        for ty in std::iter::once(Type::Void).chain(Type::VALUE_SCALARS) {
            let id = ty.scalar_type_id().unwrap();
            assert_eq!(scalar_type(id), ty);
            assert_eq!(types.ty(id), ty);
        }
    }
}
