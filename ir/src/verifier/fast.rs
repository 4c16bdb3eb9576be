//! The walk's fast path: the most common instructions (binary operations,
//! comparisons, selects) checked for being entirely valid in one lookup per
//! operand. It only ever answers "no error here"; anything else goes through
//! the three rule sets ([`super::structure`], [`super::cfg`],
//! [`super::operands`]), which report errors in upstream's order. The type
//! rules themselves are shared with [`super::operands`], not restated.

use super::cfg;
use super::defs::DefTable;
use super::operands::{compare_accepts, BinaryClass};
use crate::entity::{InstId, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::Module;

/// Whether instruction `inst` (of local block `local`) is a binary operation,
/// comparison or select that breaks no rule. When it returns true the
/// instruction has been fully verified.
#[inline]
pub(super) fn is_clean(
    m: &Module,
    defs: &DefTable,
    cfg: &mut cfg::Scratch,
    local: usize,
    inst: InstId,
    data: &InstData,
    result: Option<ValueId>,
) -> bool {
    let at = inst.as_u32();
    let use_of = UseSite { m, defs, cfg, local, at };
    let clean = match *data {
        InstData::Binary { op, args } => {
            let Some(ty) = result.and_then(|r| m.value_type(r)) else { return false };
            BinaryClass::of(op).is_some_and(|class| class.accepts(ty))
                && use_of.sound(args[0], ty)
                && use_of.sound(args[1], ty)
        }
        InstData::Compare { op, pred, args } => {
            let (Some(TypeId::BOOL), Some(ty)) = (result.and_then(|r| m.value_type(r)), m.value_type(args[0])) else {
                return false;
            };
            compare_accepts(m, op, pred, ty).is_ok() && use_of.sound(args[0], ty) && use_of.sound(args[1], ty)
        }
        InstData::Select { cond, arms } => {
            let Some(ty) = result.and_then(|r| m.value_type(r)) else { return false };
            m.types.is_storable(ty)
                && use_of.sound(cond, TypeId::BOOL)
                && use_of.sound(arms[0], ty)
                && use_of.sound(arms[1], ty)
        }
        _ => false,
    };
    if clean {
        cfg.passed_non_phi();
    }
    clean
}

/// The instruction whose operands are being checked.
struct UseSite<'a> {
    m: &'a Module,
    defs: &'a DefTable,
    cfg: &'a cfg::Scratch,
    local: usize,
    at: u32,
}

impl UseSite<'_> {
    /// `v` has type `ty`, is defined in this function and is available here.
    #[inline(always)]
    fn sound(&self, v: ValueId, ty: TypeId) -> bool {
        self.m.value_type(v) == Some(ty) && self.cfg.use_is_sound(self.defs, v, self.local, self.at)
    }
}
