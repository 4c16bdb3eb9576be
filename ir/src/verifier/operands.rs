//! Operand and result typing of every instruction (whale-upstream §b.1, §b.2,
//! §b.4 GEP, §b.5 calls, §b.7 the F3 cast table and checked arithmetic), in
//! block order, operand rules before call rules (F2 order).

use super::{Ctx, VerifyError};
use crate::build_error::CallError;
use crate::entity::{EntityRef, InstId, SigId, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::Function;
use crate::opcode::{CmpOp, FCmpPred, ICmpPred, Opcode};
use crate::signature::validate_signature;
use crate::types::{Type, TypeKey};

/// Operand and call rules of one instruction.
#[inline]
pub(super) fn inst(ctx: &mut Ctx<'_>, f: &Function<'_>, inst: InstId, result: Option<ValueId>, data: &InstData) {
    let mut c = InstCheck { ctx, f, inst, result };
    c.operands(data);
    if matches!(data, InstData::FuncRef { .. } | InstData::Call { .. } | InstData::CallIndirect { .. }) {
        c.calls(data);
    }
}

struct InstCheck<'c, 'm, 'f> {
    ctx: &'c mut Ctx<'m>,
    f: &'c Function<'f>,
    inst: InstId,
    result: Option<ValueId>,
}

impl InstCheck<'_, '_, '_> {
    fn func(&self) -> String {
        self.f.name.to_string()
    }

    fn ty_of(&self, v: ValueId) -> TypeId {
        self.f.value_type(v).unwrap_or(TypeId::VOID)
    }

    fn result_ty(&self) -> TypeId {
        self.result.map_or(TypeId::VOID, |v| self.ty_of(v))
    }

    #[cold]
    #[inline(never)]
    fn invalid_type(&mut self, operation: &'static str, ty: TypeId) {
        let e =
            VerifyError::InvalidInstructionType { func: self.func(), operation, ty: self.ctx.ty(ty), inst: self.inst };
        self.ctx.errors.push(e);
    }

    /// `value` must have type `expected`.
    #[inline]
    fn expect(&mut self, value: ValueId, expected: TypeId) -> bool {
        let got = self.ty_of(value);
        if got == expected {
            return true;
        }
        self.operand_mismatch(value, expected, got);
        false
    }

    #[cold]
    #[inline(never)]
    fn operand_mismatch(&mut self, value: ValueId, expected: TypeId, got: TypeId) {
        let e = VerifyError::OperandTypeMismatch {
            func: self.func(),
            value,
            expected: self.ctx.ty(expected),
            got: self.ctx.ty(got),
            inst: self.inst,
        };
        self.ctx.errors.push(e);
    }

    /// `value` must have type `ptr<pointee>`. The message spells that type even when
    /// the module never interned it.
    fn expect_ptr(&mut self, value: ValueId, pointee: TypeId) {
        let got = self.ty_of(value);
        if self.ctx.m.types.pointee(got) == Some(pointee) {
            return;
        }
        let e = VerifyError::OperandTypeMismatch {
            func: self.func(),
            value,
            expected: Type::ptr(self.ctx.ty(pointee)),
            got: self.ctx.ty(got),
            inst: self.inst,
        };
        self.ctx.errors.push(e);
    }

    /// The result must have the type its instruction implies.
    fn expect_result(&mut self, implied: TypeId) {
        let Some(value) = self.result else { return };
        let got = self.ty_of(value);
        if got != implied {
            self.result_mismatch(value, self.ctx.ty(implied), got);
        }
    }

    fn result_mismatch(&mut self, value: ValueId, expected: Type, got: TypeId) {
        let e = VerifyError::ValueTypeMismatch {
            func: self.func(),
            value,
            expected,
            got: self.ctx.ty(got),
            inst: self.inst,
        };
        self.ctx.errors.push(e);
    }

    fn alignment(&mut self, align: u32) {
        if !align.is_power_of_two() {
            self.ctx.errors.push(VerifyError::InvalidMemoryAlignment { func: self.func(), align, inst: self.inst });
        }
    }

    fn storable(&self, ty: TypeId) -> bool {
        self.ctx.m.types.is_storable(ty)
    }

    fn ptr_to(&mut self, pointee: TypeId) -> TypeId {
        // Pointer types the module never interned cannot match any operand.
        self.ctx.m.types.lookup(&TypeKey::Ptr(pointee)).unwrap_or(TypeId::VOID)
    }

    fn operands(&mut self, data: &InstData) {
        let m = self.ctx.m;
        match *data {
            InstData::Unary { op, arg } => {
                let ty = self.result_ty();
                let ok = match op {
                    Opcode::Mov => self.storable(ty),
                    _ => ty.is_int(),
                };
                if !ok {
                    self.invalid_type(if op == Opcode::Mov { "mov" } else { "not" }, ty);
                    return;
                }
                self.expect(arg, ty);
            }
            InstData::Binary { op, args } if op.is_checked() => {
                let tuple = self.result_ty();
                let operand = match m.types.get(tuple) {
                    Some(TypeKey::Tuple(fields)) if fields.len() == 2 && fields[1] == TypeId::BOOL => fields[0],
                    _ => {
                        self.invalid_type("checked arithmetic", tuple);
                        return;
                    }
                };
                let signed = matches!(op, Opcode::SaddChk | Opcode::SsubChk | Opcode::SmulChk);
                if !(if signed { operand.is_signed_int() } else { operand.is_unsigned_int() }) {
                    self.invalid_type("checked arithmetic", operand);
                    return;
                }
                self.expect(args[0], operand);
                self.expect(args[1], operand);
            }
            InstData::Binary { op, args } => {
                let ty = self.result_ty();
                let Some(class) = BinaryClass::of(op) else {
                    // Another shape's opcode in a binary record (`FunctionBuilder::bin`
                    // takes any opcode): it is not an operation on two values.
                    self.invalid_type(op.mnemonic(), ty);
                    return;
                };
                if !class.accepts(ty) {
                    self.invalid_type("binary operation", ty);
                    return;
                }
                self.expect(args[0], ty);
                self.expect(args[1], ty);
            }
            InstData::Compare { op, pred, args } => {
                self.expect_result(TypeId::BOOL);
                let ty = self.ty_of(args[0]);
                if !self.expect(args[1], ty) {
                    return;
                }
                if let Err(operation) = compare_accepts(m, op, pred, ty) {
                    self.invalid_type(operation, ty);
                }
            }
            InstData::Select { arms, .. } => {
                let ty = self.result_ty();
                if !self.storable(ty) {
                    self.invalid_type("select", ty);
                    return;
                }
                self.expect(arms[0], ty);
                self.expect(arms[1], ty);
            }
            InstData::Cast { op, arg } => self.cast(op, arg),
            InstData::Extract { agg, index } => {
                let ty = self.ty_of(agg);
                let field = match m.types.get(ty) {
                    Some(TypeKey::Tuple(fields)) => fields.get(index as usize).copied(),
                    _ => None,
                };
                if field != Some(self.result_ty()) {
                    self.invalid_type("extract", ty);
                }
            }
            InstData::Memory { op, align, ty, ptr } => {
                self.alignment(align);
                let operation = op.mnemonic();
                if !self.storable(ty) {
                    self.invalid_type(operation, ty);
                    return;
                }
                match op {
                    Opcode::Alloca => {
                        if let Some(value) = self.result {
                            let got = self.ty_of(value);
                            if m.types.pointee(got) != Some(ty) {
                                self.result_mismatch(value, Type::ptr(self.ctx.ty(ty)), got);
                            }
                        }
                    }
                    Opcode::Load => {
                        self.expect_result(ty);
                        if let Some(p) = ptr.expand() {
                            self.expect_ptr(p, ty);
                        }
                    }
                    _ => {
                        if let Some(p) = ptr.expand() {
                            self.expect_ptr(p, ty);
                        }
                    }
                }
            }
            InstData::Store { align, value, ptr } => {
                self.alignment(align);
                let ty = self.ty_of(value);
                if !self.storable(ty) {
                    self.invalid_type("store", ty);
                    return;
                }
                self.expect_ptr(ptr, ty);
            }
            InstData::Bulk { op, align, args } => {
                self.alignment(align);
                // memcpy: ptr<u8> destination, ptr<u8> source, u64 length;
                // memset: ptr<u8> destination, u8 byte, u64 length.
                for (position, &raw) in m.list(args).iter().enumerate().take(3) {
                    let value = ValueId::from_u32(raw);
                    match position {
                        1 if op == Opcode::Memset => {
                            self.expect(value, TypeId::U8);
                        }
                        2 => {
                            self.expect(value, TypeId::U64);
                        }
                        _ => self.expect_ptr(value, TypeId::U8),
                    }
                }
            }
            InstData::Gep { base, indices } => self.gep(base, m.list(indices)),
            _ => {}
        }
    }

    fn cast(&mut self, op: Opcode, arg: ValueId) {
        let m = self.ctx.m;
        let (source, destination) = (self.ty_of(arg), self.result_ty());
        let is_fn = |t: TypeId| m.types.fn_ptr_sig(t).is_some();
        if is_fn(source) || is_fn(destination) {
            let reason = CallError::ForbiddenFunctionPointerCast;
            self.ctx.errors.push(VerifyError::Call { func: self.func(), reason, inst: Some(self.inst) });
            return;
        }
        if !cast_accepts(m, op, source, destination) {
            let e = VerifyError::InvalidCast {
                func: self.func(),
                value: super::result_or(self.f, self.inst, arg),
                op,
                from: m.ty(source),
                to: m.ty(destination),
                inst: self.inst,
            };
            self.ctx.errors.push(e);
        }
    }

    fn gep(&mut self, base: ValueId, indices: &[u32]) {
        let m = self.ctx.m;
        let value = super::result_or(self.f, self.inst, base);
        let fail = |this: &mut Self, index: Option<usize>, reason: &'static str| {
            let e = VerifyError::InvalidGep { func: this.func(), value, index, reason, inst: this.inst };
            this.ctx.errors.push(e);
        };
        let Some(mut selected) = m.types.pointee(self.ty_of(base)) else {
            return fail(self, None, "base must be a pointer");
        };
        if !indices.is_empty() && !self.storable(selected) {
            return fail(self, None, "element addressing requires a concrete stored type");
        }
        for (position, &raw) in indices.iter().enumerate() {
            let index = ValueId::from_u32(raw);
            if !self.ty_of(index).is_int() {
                return fail(self, Some(position), "index must be an integer");
            }
            if position == 0 {
                continue;
            }
            selected = match m.types.key(selected) {
                TypeKey::Array(elem, _) => *elem,
                TypeKey::Struct(fields) | TypeKey::Tuple(fields) => {
                    let Some(field) = self.constant_index(index) else {
                        return fail(self, Some(position), "field index must be a nonnegative integer constant");
                    };
                    match usize::try_from(field).ok().and_then(|i| fields.get(i)) {
                        Some(&t) => t,
                        None => return fail(self, Some(position), "field index is outside the aggregate type"),
                    }
                }
                _ => {
                    return fail(
                        self,
                        Some(position),
                        "further indices require an array, struct, or tuple; GEP does not load pointers",
                    )
                }
            };
        }
        let expected = self.ptr_to(selected);
        if self.result_ty() != expected || expected == TypeId::VOID {
            let got = self.result_ty();
            let e = VerifyError::OperandTypeMismatch {
                func: self.func(),
                value,
                expected: Type::ptr(m.ty(selected)),
                got: m.ty(got),
                inst: self.inst,
            };
            self.ctx.errors.push(e);
        }
    }

    /// The non-negative payload of a `const`/`const_decl` of this function.
    fn constant_index(&self, v: ValueId) -> Option<u128> {
        let m = self.ctx.m;
        let def = self.ctx.def_in(v)?;
        if def.inst == crate::module::VACANT {
            return None;
        }
        let data = self.f.inst(InstId::new(def.inst as usize));
        let payload = match *data {
            InstData::ConstDecl { decl } => Some(m.const_decl(decl).value),
            _ => m.const_payload(data),
        }?;
        match payload {
            crate::ConstValue::I(x) => u128::try_from(x).ok(),
            crate::ConstValue::U(x) => Some(x),
            _ => None,
        }
    }

    fn call_error(&mut self, reason: CallError) {
        self.ctx.errors.push(VerifyError::Call { func: self.func(), reason, inst: Some(self.inst) });
    }

    fn calls(&mut self, data: &InstData) {
        let m = self.ctx.m;
        match *data {
            InstData::FuncRef { op: Opcode::NullFunction, .. } => match m.types.fn_ptr_sig(self.result_ty()) {
                Some(sig) => {
                    if let Err(e) = validate_signature(&m.types, sig) {
                        self.call_error(e);
                    }
                }
                None => self.invalid_type("null_function", self.result_ty()),
            },
            InstData::FuncRef { func, .. } => {
                let Some(id) = func.expand() else { return };
                match m.declaration(id) {
                    None => self.call_error(CallError::UnknownFunction(id)),
                    Some(d) => {
                        if m.types.fn_ptr_sig(self.result_ty()) != Some(d.sig) {
                            self.call_error(CallError::AddressTypeMismatch);
                        }
                    }
                }
            }
            InstData::Call { callee, args } => {
                let Some(d) = m.declaration(callee) else {
                    return self.call_error(CallError::UnknownFunction(callee));
                };
                self.call_signature(d.sig, m.list(args));
            }
            InstData::CallIndirect { callee, args } => {
                let Some(sig) = m.types.fn_ptr_sig(self.ty_of(callee)) else {
                    return self.call_error(CallError::NotFunctionPointer(callee));
                };
                self.call_signature(sig, m.list(args));
            }
            _ => {}
        }
    }

    fn call_signature(&mut self, sig: SigId, args: &[u32]) {
        let m = self.ctx.m;
        if let Err(e) = validate_signature(&m.types, sig) {
            return self.call_error(e);
        }
        let key = m.types.sig(sig);
        match self.result {
            Some(_) if key.ret == TypeId::VOID => return self.call_error(CallError::ResultPresence),
            None if key.ret != TypeId::VOID => return self.call_error(CallError::ResultPresence),
            Some(v) => {
                let got = self.ty_of(v);
                if got != key.ret {
                    return self.call_error(CallError::ReturnType { expected: m.ty(key.ret), got: m.ty(got) });
                }
            }
            None => {}
        }
        if key.params.len() != args.len() {
            return self.call_error(CallError::ArgumentCount { expected: key.params.len(), got: args.len() });
        }
        for (index, (&param, &arg)) in key.params.iter().zip(args).enumerate() {
            let got = self.ty_of(ValueId::from_u32(arg));
            if got != param {
                return self.call_error(CallError::ArgumentType { index, expected: m.ty(param), got: m.ty(got) });
            }
        }
    }
}

/// Whether cast `op` converts `source` to `destination` (the F3 cast table,
/// whale-upstream §b.7); function pointers are refused before this is asked.
#[inline]
pub(super) fn cast_accepts(m: &crate::Module, op: Opcode, source: TypeId, destination: TypeId) -> bool {
    let bits = |t: TypeId| t.scalar_bits().unwrap_or(0);
    let (s, d) = (source, destination);
    match op {
        Opcode::Zext => {
            (s.is_int() && d.is_int() && bits(d) > bits(s)) || (s == TypeId::BOOL && d.is_int() && d != TypeId::I1)
        }
        Opcode::Sext => s.is_int() && d.is_int() && bits(d) > bits(s),
        Opcode::Trunc => s.is_int() && d.is_int() && bits(d) < bits(s),
        Opcode::Fext => s.is_float() && d.is_float() && bits(d) > bits(s),
        Opcode::Ftrunc => s.is_float() && d.is_float() && bits(d) < bits(s),
        Opcode::ItofS => s.is_signed_int() && d.is_float(),
        Opcode::ItofU => s.is_unsigned_int() && d.is_float(),
        Opcode::FtoiS => s.is_float() && d.is_signed_int(),
        Opcode::FtoiU => s.is_float() && d.is_unsigned_int(),
        Opcode::Bitcast => {
            let numeric = |t: TypeId| t.is_int() || t.is_float();
            (numeric(s) && numeric(d) && bits(s) == bits(d)) || (m.types.is_ptr(s) && m.types.is_ptr(d))
        }
        Opcode::Ptrtoint => m.types.is_ptr(s) && d.is_int(),
        Opcode::Inttoptr => s.is_int() && m.types.is_ptr(d),
        _ => false,
    }
}

/// The operand types a (non-checked) binary opcode accepts.
#[derive(Clone, Copy)]
pub(super) enum BinaryClass {
    Int,
    SignedInt,
    UnsignedInt,
    Float,
}

impl BinaryClass {
    /// `None` for opcodes that are not plain binary operations.
    #[inline]
    pub(super) fn of(op: Opcode) -> Option<BinaryClass> {
        Some(match op {
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Shl
            | Opcode::Lshr
            | Opcode::Ashr => BinaryClass::Int,
            Opcode::Sdiv | Opcode::Srem => BinaryClass::SignedInt,
            Opcode::Udiv | Opcode::Urem => BinaryClass::UnsignedInt,
            Opcode::Fadd | Opcode::Fsub | Opcode::Fmul | Opcode::Fdiv | Opcode::Frem => BinaryClass::Float,
            _ => return None,
        })
    }

    #[inline]
    pub(super) fn accepts(self, ty: TypeId) -> bool {
        match self {
            BinaryClass::Int => ty.is_int(),
            BinaryClass::SignedInt => ty.is_signed_int(),
            BinaryClass::UnsignedInt => ty.is_unsigned_int(),
            BinaryClass::Float => ty.is_float(),
        }
    }
}

/// Whether comparison `op` with predicate code `pred` accepts operands of type
/// `ty`; otherwise the operation named in the error.
#[inline]
pub(super) fn compare_accepts(m: &crate::Module, op: Opcode, pred: u8, ty: TypeId) -> Result<(), &'static str> {
    let is_eq_type = || ty.is_int() || ty == TypeId::BOOL || m.types.is_ptr(ty);
    let (ok, operation) = match op {
        Opcode::Cmp => (
            match CmpOp::from_code(pred) {
                Some(CmpOp::Eq | CmpOp::Ne) => is_eq_type(),
                Some(CmpOp::Slt | CmpOp::Sle | CmpOp::Sgt | CmpOp::Sge) => ty.is_signed_int(),
                Some(CmpOp::Ult | CmpOp::Ule | CmpOp::Ugt | CmpOp::Uge) => ty.is_unsigned_int(),
                Some(_) => ty.is_float(),
                None => false,
            },
            "comparison",
        ),
        Opcode::Icmp => (
            match ICmpPred::from_code(pred) {
                Some(ICmpPred::Eq | ICmpPred::Ne) => is_eq_type(),
                Some(ICmpPred::Slt | ICmpPred::Sle | ICmpPred::Sgt | ICmpPred::Sge) => ty.is_signed_int(),
                Some(_) => ty.is_unsigned_int(),
                None => false,
            },
            "integer comparison",
        ),
        _ => (FCmpPred::from_code(pred).is_some() && ty.is_float(), "floating comparison"),
    };
    if ok {
        Ok(())
    } else {
        Err(operation)
    }
}

#[cfg(test)]
mod tests {
    //! Result-type and call errors the builder cannot produce (it derives result
    //! types from the instruction and refuses ill-typed calls), checked on
    //! hand-edited modules.

    use crate::build_error::CallError;
    use crate::builder::Callee;
    use crate::entity::{EntityRef, FunctionId, InstId, PackedOption, TypeId, ValueId};
    use crate::inst::InstData;
    use crate::module::Linkage;
    use crate::opcode::{ICmpPred, Opcode};
    use crate::types::FunctionSignature;
    use crate::verifier::{verify_module_all, VerifyError};
    use crate::{DataLayout, Module, ModuleBuilder, Type};

    fn builder() -> ModuleBuilder {
        ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
    }

    fn def(m: &Module, value: ValueId) -> InstId {
        let f = m.function_at(0);
        (0..f.inst_count()).map(InstId::new).find(|&i| f.inst_result(i) == Some(value)).expect("defined")
    }

    fn set_type(m: &mut Module, value: ValueId, ty: TypeId) {
        m.value_types[value.index()] = PackedOption::some(ty);
    }

    fn call_error(reason: CallError, inst: InstId) -> VerifyError {
        VerifyError::Call { func: "f".into(), reason, inst: Some(inst) }
    }

    #[test]
    fn results_must_have_the_type_their_instruction_implies() {
        let mut mb = builder();
        let mut f = mb.begin_function("f", vec![("p".into(), Type::ptr(Type::I32))], Type::Void);
        let p = f.param_value(0);
        let one = f.const_i32(1);
        let same = f.icmp(ICmpPred::Eq, Type::I32, one, one);
        let slot = f.alloca(Type::I32, 4);
        let loaded = f.load(Type::I32, p, 4);
        f.ret(None);
        f.finish();
        let mut m = mb.finish();
        let ptr_i64 = m.types.intern_type(&Type::ptr(Type::I64));
        set_type(&mut m, same, TypeId::I32);
        set_type(&mut m, slot, ptr_i64);
        set_type(&mut m, loaded, TypeId::I64);
        let mismatch = |value, expected, got| VerifyError::ValueTypeMismatch {
            func: "f".into(),
            value,
            expected,
            got,
            inst: def(&m, value),
        };
        assert_eq!(
            verify_module_all(&m),
            Err(vec![
                mismatch(same, Type::Bool, Type::I32),
                mismatch(slot, Type::ptr(Type::I32), Type::ptr(Type::I64)),
                mismatch(loaded, Type::I32, Type::I64),
            ])
        );
    }

    /// `f() -> void` calling `g(i32) -> i32` directly, `h() -> void` directly and `g` through its address.
    struct Calls {
        m: Module,
        one: ValueId,
        wide: ValueId,
        direct: ValueId,
        address: ValueId,
        indirect: ValueId,
    }

    fn calls() -> Calls {
        let mut mb = builder();
        let sig = FunctionSignature::whale(vec![Type::I32], Type::I32);
        let g = mb.declare_function("g", sig, Linkage::External, Some("g".into())).unwrap();
        let void = FunctionSignature::whale(vec![], Type::Void);
        let h = mb.declare_function("h", void, Linkage::External, Some("h".into())).unwrap();
        let mut f = mb.begin_function("f", vec![], Type::Void);
        let one = f.const_i32(1);
        let wide = f.const_i64(2);
        let direct = f.call(Callee::Direct(g), vec![one]).unwrap().unwrap();
        assert_eq!(f.call(Callee::Direct(h), vec![]), Ok(None));
        let address = f.function_addr(g).unwrap();
        let indirect = f.call(Callee::Indirect(address), vec![one]).unwrap().unwrap();
        f.ret(None);
        f.finish();
        let m = mb.finish();
        assert_eq!(verify_module_all(&m), Ok(()));
        Calls { m, one, wide, direct, address, indirect }
    }

    /// The position of the void call to `h`.
    fn void_call(m: &Module) -> InstId {
        let f = m.function_at(0);
        (0..f.inst_count())
            .map(InstId::new)
            .find(|&i| matches!(f.inst(i), InstData::Call { callee, .. } if callee.as_u32() == 1))
            .expect("the call to h")
    }

    fn set_args(m: &mut Module, inst: InstId, args: &[ValueId]) {
        let list = m.pool.make(&args.iter().map(|v| v.as_u32()).collect::<Vec<_>>());
        m.insts[inst.index()] = match m.insts[inst.index()] {
            InstData::Call { callee, .. } => InstData::Call { callee, args: list },
            InstData::CallIndirect { callee, .. } => InstData::CallIndirect { callee, args: list },
            other => panic!("not a call: {other:?}"),
        };
    }

    #[test]
    fn call_to_an_unknown_function() {
        let Calls { mut m, direct, address, .. } = calls();
        let (call, addr) = (def(&m, direct), def(&m, address));
        let InstData::Call { args, .. } = m.insts[call.index()] else { panic!() };
        m.insts[call.index()] = InstData::Call { callee: FunctionId::from_u32(9), args };
        m.insts[addr.index()] =
            InstData::FuncRef { op: Opcode::FunctionAddr, func: PackedOption::some(FunctionId::from_u32(8)) };
        let errors = verify_module_all(&m).unwrap_err();
        assert_eq!(errors[0], call_error(CallError::UnknownFunction(FunctionId::from_u32(9)), call));
        assert_eq!(errors[1], call_error(CallError::UnknownFunction(FunctionId::from_u32(8)), addr));
    }

    #[test]
    fn call_result_presence_and_type() {
        // A non-void call without a result.
        let Calls { mut m, direct, .. } = calls();
        let call = def(&m, direct);
        m.inst_results[call.index()] = PackedOption::NONE;
        assert_eq!(verify_module_all(&m), Err(vec![call_error(CallError::ResultPresence, call)]));
        // A void call with a result.
        let Calls { mut m, .. } = calls();
        let call = void_call(&m);
        let extra = ValueId::new(m.value_types.len());
        m.value_types.push(PackedOption::some(TypeId::I32));
        m.inst_results[call.index()] = PackedOption::some(extra);
        assert_eq!(verify_module_all(&m), Err(vec![call_error(CallError::ResultPresence, call)]));
        // A result of another type than the callee returns.
        let Calls { mut m, indirect, .. } = calls();
        set_type(&mut m, indirect, TypeId::I64);
        let reason = CallError::ReturnType { expected: Type::I32, got: Type::I64 };
        assert_eq!(verify_module_all(&m), Err(vec![call_error(reason, def(&m, indirect))]));
    }

    #[test]
    fn call_arguments() {
        let Calls { mut m, direct, indirect, one, wide, .. } = calls();
        let (first, second) = (def(&m, direct), def(&m, indirect));
        set_args(&mut m, first, &[]);
        set_args(&mut m, second, &[wide]);
        assert_eq!(
            verify_module_all(&m),
            Err(vec![
                call_error(CallError::ArgumentCount { expected: 1, got: 0 }, first),
                call_error(CallError::ArgumentType { index: 0, expected: Type::I32, got: Type::I64 }, second),
            ])
        );
        let Calls { mut m, direct, .. } = calls();
        let call = def(&m, direct);
        set_args(&mut m, call, &[one, one]);
        assert_eq!(
            verify_module_all(&m),
            Err(vec![call_error(CallError::ArgumentCount { expected: 1, got: 2 }, call)])
        );
    }

    #[test]
    fn indirect_callee_must_be_a_function_pointer() {
        let Calls { mut m, indirect, one, .. } = calls();
        let call = def(&m, indirect);
        let InstData::CallIndirect { args, .. } = m.insts[call.index()] else { panic!() };
        m.insts[call.index()] = InstData::CallIndirect { callee: one, args };
        assert_eq!(verify_module_all(&m), Err(vec![call_error(CallError::NotFunctionPointer(one), call)]));
    }

    #[test]
    fn indirect_call_through_an_invalid_signature() {
        let Calls { mut m, address, indirect, .. } = calls();
        let variadic = FunctionSignature { variadic: true, ..FunctionSignature::whale(vec![Type::I32], Type::I32) };
        let ty = m.types.intern_type(&Type::fn_ptr(variadic));
        set_type(&mut m, address, ty);
        let generic = || {
            CallError::InvalidSignature("void parameters, malformed types and variadic calls are unsupported".into())
        };
        let errors = verify_module_all(&m).unwrap_err();
        // The malformed value type, the address's type, then the call site.
        assert!(matches!(&errors[0], VerifyError::Call { reason: CallError::InvalidSignature(_), inst: None, .. }));
        assert_eq!(errors[1], call_error(CallError::AddressTypeMismatch, def(&m, address)));
        assert_eq!(errors[2], call_error(generic(), def(&m, indirect)));
        assert_eq!(errors.len(), 3);
    }

    #[test]
    fn function_address_type_must_be_the_declarations() {
        let Calls { mut m, address, .. } = calls();
        let other = m.types.intern_type(&Type::fn_ptr(FunctionSignature::whale(vec![Type::I32], Type::I64)));
        set_type(&mut m, address, other);
        let errors = verify_module_all(&m).unwrap_err();
        assert_eq!(errors[0], call_error(CallError::AddressTypeMismatch, def(&m, address)));
        // The indirect call now goes through the edited signature, whose result type differs.
        assert!(matches!(errors[1], VerifyError::Call { reason: CallError::ReturnType { .. }, .. }));
        assert_eq!(errors.len(), 2);
    }

    #[test]
    fn null_function_must_have_a_function_pointer_type() {
        let mut mb = builder();
        let mut f = mb.begin_function("f", vec![], Type::Void);
        let null = f.null_function(FunctionSignature::whale(vec![], Type::Void)).unwrap();
        f.ret(None);
        f.finish();
        let mut m = mb.finish();
        set_type(&mut m, null, TypeId::I32);
        assert_eq!(
            verify_module_all(&m),
            Err(vec![VerifyError::InvalidInstructionType {
                func: "f".into(),
                operation: "null_function",
                ty: Type::I32,
                inst: def(&m, null),
            }])
        );
    }
}
