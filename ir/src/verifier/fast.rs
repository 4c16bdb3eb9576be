//! The walk's fast path: the common instructions (constants, memory access,
//! arithmetic, comparisons, casts, selects, calls, function addresses and the
//! usual terminators) checked for being entirely valid with one lookup per operand
//! and cached type facts. It only ever answers "no error here"; anything else
//! goes through the rule sets ([`super::module_rules::forbidden_inst`],
//! [`super::structure`], [`super::cfg`], [`super::operands`]), which report
//! errors in upstream's order. The type rules themselves are shared with
//! [`super::operands`] where they are more than an equality, not restated.

use super::cfg;
use super::defs::DefTable;
use super::facts::TypeFacts;
use super::operands::{cast_accepts, compare_accepts, BinaryClass};
use crate::entity::{EntityRef, InstId, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::{Function, Module};
use crate::opcode::Opcode;

/// The function and block being walked, and the CFG pass's state, which
/// stays the same over a run of clean instructions.
pub(super) struct Site<'a, 'f> {
    pub m: &'a Module,
    pub f: &'a Function<'f>,
    pub defs: &'a DefTable,
    pub cfg: &'a cfg::Scratch,
    /// The block's index within the function.
    pub local: usize,
}

/// Whether instruction `inst` (the block's last one if `is_last`) is one of
/// the common instructions and breaks no rule of any category, the
/// forbidden/layout rules included. When it returns true the instruction has
/// been fully verified, except that the caller records in the CFG pass that
/// the walk has passed a non-phi instruction.
#[inline(always)]
pub(super) fn is_clean(
    site: &Site<'_, '_>,
    facts: &mut TypeFacts,
    inst: InstId,
    data: &InstData,
    result: Option<ValueId>,
    is_last: bool,
) -> bool {
    let m = site.m;
    let use_of = UseSite { site, at: inst.as_u32() };
    let f = site.f;
    let result_ty = || result.and_then(|r| f.value_type(r));
    let clean = match *data {
        InstData::Const { .. } | InstData::ConstWide { .. } => {
            let Some(ty) = result_ty() else { return false };
            m.const_payload(data).is_some_and(|payload| payload.is_valid_for(ty))
        }
        InstData::Memory { op, align, ty, ptr } => {
            let Some(got) = result_ty() else {
                return op == Opcode::Uninit
                    && result.is_none()
                    && align.is_power_of_two()
                    && facts.storable_and_laid(m, ty)
                    && ptr.expand().is_some_and(|p| use_of.pointer_to(p, ty));
            };
            align.is_power_of_two()
                && facts.storable_and_laid(m, ty)
                && match (op, ptr.expand()) {
                    (Opcode::Alloca, None) => m.types.pointee(got) == Some(ty),
                    (Opcode::Load, Some(p)) => got == ty && use_of.pointer_to(p, ty),
                    _ => false,
                }
        }
        InstData::Store { align, value, ptr } => {
            let Some(ty) = f.value_type(value) else { return false };
            align.is_power_of_two()
                && facts.storable_and_laid(m, ty)
                && use_of.sound(value, ty)
                && use_of.pointer_to(ptr, ty)
        }
        InstData::Binary { op, args } => {
            let Some(ty) = result_ty() else { return false };
            BinaryClass::of(op).is_some_and(|class| class.accepts(ty))
                && use_of.sound(args[0], ty)
                && use_of.sound(args[1], ty)
        }
        InstData::Compare { op, pred, args } => {
            let (Some(TypeId::BOOL), Some(ty)) = (result_ty(), f.value_type(args[0])) else {
                return false;
            };
            compare_accepts(m, op, pred, ty).is_ok() && use_of.sound(args[0], ty) && use_of.sound(args[1], ty)
        }
        InstData::Cast { op, arg } => {
            let (Some(to), Some(from)) = (result_ty(), f.value_type(arg)) else { return false };
            m.types.fn_ptr_sig(from).is_none()
                && m.types.fn_ptr_sig(to).is_none()
                && cast_accepts(m, op, from, to)
                && use_of.available(arg)
        }
        InstData::Select { cond, arms } => {
            let Some(ty) = result_ty() else { return false };
            facts.storable(m, ty)
                && use_of.sound(cond, TypeId::BOOL)
                && use_of.sound(arms[0], ty)
                && use_of.sound(arms[1], ty)
        }
        InstData::Call { callee, args } => {
            // Builder modules keep declaration k at position k; others decline.
            let Some(sig) = m.declarations.get(callee.index()).filter(|d| d.id == callee).map(|d| d.sig) else {
                return false;
            };
            if !facts.valid_signature(m, sig) {
                return false;
            }
            let key = m.types.sig(sig);
            let returns = match result {
                Some(_) => key.ret != TypeId::VOID && result_ty() == Some(key.ret),
                None => key.ret == TypeId::VOID,
            };
            let args = m.list(args);
            returns
                && key.params.len() == args.len()
                && key.params.iter().zip(args).all(|(&param, &arg)| use_of.sound(ValueId::from_u32(arg), param))
        }
        InstData::FuncRef { op: Opcode::FunctionAddr, func } => {
            let (Some(id), Some(ty)) = (func.expand(), result_ty()) else { return false };
            let sig = m.declarations.get(id.index()).filter(|d| d.id == id).map(|d| d.sig);
            sig.is_some() && m.types.fn_ptr_sig(ty) == sig
        }
        InstData::Br { .. } => is_last,
        InstData::Cbr { cond, .. } => is_last && use_of.sound(cond, TypeId::BOOL),
        InstData::Ret { arg } => {
            let ret = site.f.ret;
            is_last
                && match arg.expand() {
                    None => ret == TypeId::VOID,
                    Some(v) => ret != TypeId::VOID && use_of.sound(v, ret),
                }
        }
        _ => false,
    };
    clean
}

/// The instruction whose operands are being checked.
struct UseSite<'s, 'a, 'f> {
    site: &'s Site<'a, 'f>,
    at: u32,
}

impl UseSite<'_, '_, '_> {
    /// `v` has type `ty`, is defined in this function and is available here.
    #[inline(always)]
    fn sound(&self, v: ValueId, ty: TypeId) -> bool {
        self.site.f.value_type(v) == Some(ty) && self.available(v)
    }

    /// `p` has type `ptr<pointee>`, is defined in this function and is
    /// available here.
    #[inline(always)]
    fn pointer_to(&self, p: ValueId, pointee: TypeId) -> bool {
        let m = self.site.m;
        self.site.f.value_type(p).and_then(|t| m.types.pointee(t)) == Some(pointee) && self.available(p)
    }

    #[inline(always)]
    fn available(&self, v: ValueId) -> bool {
        self.site.cfg.use_is_sound(self.site.defs, v, self.site.local, self.at)
    }
}

#[cfg(test)]
mod tests {
    //! Invalid instructions of the fast path's shapes that the builder cannot
    //! produce, on hand-edited modules: the fast path must decline them so that
    //! the full rules report them as they always have, and must not reject the
    //! unusual valid ones it leaves to those rules.

    use crate::entity::{EntityRef, InstId, PackedOption, TypeId, ValueId};
    use crate::inst::InstData;
    use crate::opcode::Opcode;
    use crate::verifier::{verify_module, verify_module_all, VerifyError};
    use crate::{Callee, DataLayout, FunctionSignature, Linkage, Module, ModuleBuilder, Type};

    fn def(m: &Module, value: ValueId) -> InstId {
        let f = m.function_at(0);
        (0..f.inst_count()).map(InstId::new).find(|&i| f.inst_result(i) == Some(value)).expect("defined")
    }

    fn last_inst(m: &Module) -> InstId {
        InstId::new(m.inst_count() - 1)
    }

    /// `f(p: ptr<i32>) -> i32 { slot = alloca i32; x = load p; store x, slot; uninit slot; ret x }`.
    fn memory() -> (Module, ValueId, ValueId) {
        let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
        let mut f = mb.begin_function("f", vec![("p".to_string(), Type::ptr(Type::I32))], Type::I32);
        let p = f.param_value(0);
        let slot = f.alloca(Type::I32, 4);
        let x = f.load(Type::I32, p, 4);
        f.store(Type::I32, x, slot, 4);
        f.uninit(Type::I32, slot, 4);
        f.ret(Some(x));
        f.finish();
        let m = mb.finish();
        assert_eq!(verify_module(&m), Ok(()));
        (m, slot, x)
    }

    #[test]
    fn load_result_of_another_type() {
        let (mut m, slot, x) = memory();
        m.value_types[x.index()] = PackedOption::some(TypeId::I64);
        let (load, store) = (def(&m, x), InstId::new(def(&m, x).index() + 1));
        assert_eq!(
            verify_module_all(&m),
            Err(vec![
                VerifyError::RetTypeMismatch {
                    func: "f".into(),
                    expected: Type::I32,
                    got: Some(Type::I64),
                    inst: last_inst(&m)
                },
                VerifyError::ValueTypeMismatch {
                    func: "f".into(),
                    value: x,
                    expected: Type::I32,
                    got: Type::I64,
                    inst: load
                },
                VerifyError::OperandTypeMismatch {
                    func: "f".into(),
                    value: slot,
                    expected: Type::ptr(Type::I64),
                    got: Type::ptr(Type::I32),
                    inst: store
                },
            ])
        );
    }

    #[test]
    fn alloca_result_that_is_not_a_pointer_to_its_type() {
        let (mut m, slot, _) = memory();
        m.value_types[slot.index()] = PackedOption::some(TypeId::I32);
        let alloca = def(&m, slot);
        let mismatch = |inst: InstId| VerifyError::OperandTypeMismatch {
            func: "f".into(),
            value: slot,
            expected: Type::ptr(Type::I32),
            got: Type::I32,
            inst,
        };
        assert_eq!(
            verify_module_all(&m),
            Err(vec![
                VerifyError::ValueTypeMismatch {
                    func: "f".into(),
                    value: slot,
                    expected: Type::ptr(Type::I32),
                    got: Type::I32,
                    inst: alloca
                },
                mismatch(InstId::new(alloca.index() + 2)),
                mismatch(InstId::new(alloca.index() + 3)),
            ])
        );
    }

    #[test]
    fn memory_records_with_unexpected_operands_or_results() {
        // An alloca with a pointer operand: the operand is still a use.
        let (mut m, slot, _) = memory();
        let alloca = def(&m, slot);
        let stray = ValueId::new(m.value_types.len() + 5);
        m.insts[alloca.index()] =
            InstData::Memory { op: Opcode::Alloca, align: 4, ty: TypeId::I32, ptr: PackedOption::some(stray) };
        assert_eq!(
            verify_module_all(&m),
            Err(vec![VerifyError::UseOfUndefinedValue { func: "f".into(), value: stray, inst: alloca }])
        );
        // An `uninit` with a result breaks no rule.
        let (mut m, slot, _) = memory();
        let uninit = InstId::new(def(&m, slot).index() + 3);
        let extra = ValueId::new(m.value_types.len());
        m.value_types.push(PackedOption::some(TypeId::I32));
        m.inst_results[uninit.index()] = PackedOption::some(extra);
        assert_eq!(verify_module_all(&m), Ok(()));
        // A load without a result only reads its pointer.
        let (mut m, _, x) = memory();
        let load = def(&m, x);
        m.inst_results[load.index()] = PackedOption::NONE;
        let errors = verify_module_all(&m).unwrap_err();
        assert!(errors.iter().all(|e| matches!(e, VerifyError::UseOfUndefinedValue { value, .. } if *value == x)));
    }

    #[test]
    fn calls_and_addresses_of_declarations_stored_out_of_order() {
        let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
        let sig = FunctionSignature::whale(vec![Type::I32], Type::I32);
        let g = mb.declare_function("g", sig, Linkage::External, Some("g".to_string())).unwrap();
        let mut f = mb.begin_function("f", vec![("a".to_string(), Type::I32)], Type::I32);
        let a = f.param_value(0);
        let r = f.call(Callee::Direct(g), vec![a]).unwrap().unwrap();
        f.function_addr(g).unwrap();
        f.ret(Some(r));
        f.finish();
        let mut m = mb.finish();
        assert_eq!(verify_module(&m), Ok(()));
        // Declarations found by a scan rather than at their own index.
        m.declarations.swap(0, 1);
        assert_eq!(verify_module_all(&m), Ok(()));
        // A call whose result type differs from the callee's return type.
        m.value_types[r.index()] = PackedOption::some(TypeId::I64);
        let errors = verify_module_all(&m).unwrap_err();
        assert_eq!(
            errors[1],
            VerifyError::Call {
                func: "f".into(),
                reason: crate::CallError::ReturnType { expected: Type::I32, got: Type::I64 },
                inst: Some(def(&m, r)),
            }
        );
    }
}
