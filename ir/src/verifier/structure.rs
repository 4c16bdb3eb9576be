//! Per-function structure (whale-upstream §d.1 items 7–8): the entry block, one
//! terminator at the end of every block, branch targets inside the function,
//! operands defined in the function, `const` payloads, conditions, switches and
//! returns.

use rustc_hash::FxHashSet;

use super::{Ctx, VerifyError};
use crate::entity::{BlockId, ConstId, EntityRef, InstId, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::Function;

/// The entry block, block ownership, and a terminator with targets inside the
/// function at the end of every block. Returns `None` when the CFG cannot be
/// built, otherwise whether any branch targets the entry block (so the CFG
/// pass need not walk the terminators again to find out).
pub(super) fn blocks(ctx: &mut Ctx<'_>, f: &Function<'_>) -> Option<bool> {
    let m = ctx.m;
    let func = || f.name.to_string();
    let mut sound = true;
    if !f.blocks.contains(&f.entry) {
        ctx.errors.push(VerifyError::InvalidEntryBlock { func: func(), entry: f.entry });
        sound = false;
    }
    for &block in f.blocks {
        if !f.has_block(block) {
            ctx.errors.push(VerifyError::ForeignBlock { func: func(), block });
            sound = false;
        }
    }
    if !sound {
        return None;
    }
    let own_block = |b: BlockId| f.has_block(b);
    let mut entry_targeted = false;
    for &block in f.blocks {
        let (insts, _, start) = f.block_slices(block);
        match insts.last() {
            Some(data) if data.is_terminator() => {
                let inst = InstId::from_u32(start + insts.len() as u32 - 1);
                data.for_each_successor(&m.pool, |target| {
                    entry_targeted |= target == f.entry;
                    if !own_block(target) {
                        invalid_target(ctx, f, block, target, inst);
                        sound = false;
                    }
                });
            }
            _ => {
                // A terminator followed by more instructions, or none at all.
                match insts.iter().position(InstData::is_terminator) {
                    Some(i) => {
                        let inst = InstId::from_u32(start + i as u32);
                        ctx.errors.push(VerifyError::MisplacedTerminator { func: func(), block, inst });
                    }
                    None => {
                        let name = f.block_name(block).to_string();
                        ctx.errors.push(VerifyError::UnterminatedBlock { func: func(), block, name });
                    }
                }
                sound = false;
            }
        }
    }
    sound.then_some(entry_targeted)
}

#[cold]
#[inline(never)]
fn invalid_target(ctx: &mut Ctx<'_>, f: &Function<'_>, block: BlockId, target: BlockId, inst: InstId) {
    ctx.errors.push(VerifyError::InvalidBranchTarget { func: f.name.to_string(), block, target, inst });
}

/// Per instruction: a terminator only at the end, phi inputs defined in this
/// function, `const` payloads, conditions, switches and returns.
#[inline]
pub(super) fn inst(ctx: &mut Ctx<'_>, f: &Function<'_>, block: BlockId, inst: InstId, data: &InstData, is_last: bool) {
    let m = ctx.m;
    if !is_last && data.is_terminator() {
        ctx.errors.push(VerifyError::MisplacedTerminator { func: f.name.to_string(), block, inst });
    }
    // Operands of other instructions are checked for definedness together with
    // their dominance, in the same lookup (see `cfg::Scratch::inst`).
    if let InstData::Phi { .. } = data {
        data.for_each_value(&m.pool, |value| {
            if ctx.def_in(value).is_none() {
                undefined(ctx, f, value, inst);
            }
        });
    }
    if matches!(
        data,
        InstData::Const { .. }
            | InstData::ConstWide { .. }
            | InstData::Select { .. }
            | InstData::TrapIf { .. }
            | InstData::Cbr { .. }
            | InstData::Switch { .. }
            | InstData::Ret { .. }
    ) {
        values_and_terminators(ctx, f, block, inst, data);
    }
}

#[cold]
#[inline(never)]
pub(super) fn undefined(ctx: &mut Ctx<'_>, f: &Function<'_>, value: ValueId, inst: InstId) {
    ctx.errors.push(VerifyError::UseOfUndefinedValue { func: f.name.to_string(), value, inst });
}

fn values_and_terminators(
    ctx: &mut Ctx<'_>,
    f: &Function<'_>,
    block: BlockId,
    inst: crate::entity::InstId,
    data: &InstData,
) {
    let m = ctx.m;
    let func = || f.name.to_string();
    let cond = |ctx: &mut Ctx<'_>, value: ValueId| {
        if let Some(ty) = f.value_type(value) {
            if ty != TypeId::BOOL {
                ctx.errors.push(VerifyError::ConditionTypeMismatch { func: func(), value, got: m.ty(ty), inst });
            }
        }
    };
    match *data {
        InstData::Const { .. } | InstData::ConstWide { .. } => {
            let (Some(value), Some(payload)) = (f.inst_result(inst), m.const_payload(data)) else {
                return;
            };
            let Some(ty) = f.value_type(value) else {
                return;
            };
            if !payload.is_valid_for(ty) {
                ctx.errors.push(VerifyError::InvalidConstant { func: func(), value, ty: m.ty(ty), payload, inst });
            }
        }
        InstData::Select { cond: c, .. } | InstData::TrapIf { cond: c, .. } | InstData::Cbr { cond: c, .. } => {
            cond(ctx, c)
        }
        InstData::Switch { arg, cases, .. } => {
            let Some(ty) = f.value_type(arg) else { return };
            if !(ty.is_int() || ty == TypeId::BOOL) {
                ctx.errors.push(VerifyError::InvalidInstructionType {
                    func: func(),
                    operation: "switch",
                    ty: m.ty(ty),
                    inst,
                });
                return;
            }
            let mut seen = FxHashSet::default();
            for (index, pair) in m.list(cases).chunks_exact(2).enumerate() {
                let key = m.constant(ConstId::new(pair[0] as usize));
                if !key.is_valid_for(ty) {
                    ctx.errors.push(VerifyError::InvalidSwitchCase { func: func(), block, index, inst });
                } else if !seen.insert(key.bit_pattern()) {
                    ctx.errors.push(VerifyError::DuplicateSwitchCase { func: func(), block, index, inst });
                }
            }
        }
        InstData::Ret { arg } => {
            let got = arg.expand().map(|v| f.value_type(v));
            let ok = match got {
                None => f.ret == TypeId::VOID,
                // An undefined value is reported as such; it is not a `ret` without a value.
                Some(None) => true,
                Some(Some(ty)) => f.ret != TypeId::VOID && ty == f.ret,
            };
            if !ok {
                let got = got.flatten().map(|t| m.ty(t));
                ctx.errors.push(VerifyError::RetTypeMismatch { func: func(), expected: m.ty(f.ret), got, inst });
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    //! Structural errors the public builder cannot produce (it always creates the
    //! entry block, only lists a function's own blocks, and refuses to append after
    //! a terminator), checked on hand-edited modules.

    use crate::entity::{BlockId, InstId, ValueId};
    use crate::verifier::{verify_module_all, VerifyError};
    use crate::{DataLayout, Module, ModuleBuilder, Type};

    fn module(names: &[&str]) -> Module {
        let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
        for &name in names {
            let mut f = mb.begin_function(name, vec![], Type::I32);
            let one = f.const_i32(1);
            f.ret(Some(one));
            f.finish();
        }
        mb.finish()
    }

    #[test]
    fn entry_block_outside_the_function() {
        let mut m = module(&["a", "b"]);
        m.functions[0].entry = BlockId::from_u32(1);
        assert_eq!(
            verify_module_all(&m),
            Err(vec![VerifyError::InvalidEntryBlock { func: "a".into(), entry: BlockId::from_u32(1) }])
        );
        // A function without blocks has no entry block either.
        let mut m = module(&["a", "b"]);
        m.functions[1].order = crate::module::Span { start: 1, len: 0 };
        assert_eq!(
            verify_module_all(&m),
            Err(vec![VerifyError::InvalidEntryBlock { func: "b".into(), entry: BlockId::from_u32(1) }])
        );
    }

    #[test]
    fn block_of_another_function() {
        let mut m = module(&["a", "b"]);
        // `b` lists `a`'s entry block before its own.
        m.functions[1].order = crate::module::Span { start: 0, len: 2 };
        assert_eq!(
            verify_module_all(&m),
            Err(vec![VerifyError::ForeignBlock { func: "b".into(), block: BlockId::from_u32(0) }])
        );
    }

    #[test]
    fn terminator_before_the_end_of_a_block() {
        let mut m = module(&["a"]);
        // Entry is `%v0 = const i32 1; ret i32 %v0`: put the `ret` first.
        m.insts.swap(0, 1);
        m.inst_results.swap(0, 1);
        assert_eq!(m.function_at(0).inst_result(InstId::from_u32(1)), Some(ValueId::from_u32(0)));
        assert_eq!(
            verify_module_all(&m),
            Err(vec![VerifyError::MisplacedTerminator {
                func: "a".into(),
                block: BlockId::from_u32(0),
                inst: InstId::from_u32(0),
            }])
        );
    }
}
