//! The verifier: small linear passes over a [`Module`] in upstream's order
//! (whale-upstream §d.1), so the first error reported is upstream's fail-fast one.
//!
//! Order: builder errors → forbidden `undef` and memory layouts → target →
//! globals and their constant expressions → declarations and definitions → per
//! function: structure (entry, terminators, branch targets, operand
//! definedness, constants, conditions, switches, returns) → local constant
//! expressions → CFG, dominance and phis → operand types and calls.
//!
//! Each pass pushes every error it finds and goes on; a function whose structure
//! is broken skips the later passes (they would index garbage). Dominators use
//! Cooper–Harvey–Kennedy over reverse postorder with O(1) dominance queries
//! (see [`cfg`]). Verification never mutates the module; scratch tables are
//! allocated once per module.

mod cfg;
mod consts;
mod error;
mod module_rules;
mod operands;
mod structure;

pub use error::VerifyError;

use crate::entity::{EntityRef, InstId, ValueId};
use crate::module::{Module, VACANT};
use crate::types::Type;

/// Checks `module`; returns the first error in upstream's order.
pub fn verify_module(module: &Module) -> Result<(), VerifyError> {
    match run(module).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Checks `module`; returns every error found, in pass order.
pub fn verify_module_all(module: &Module) -> Result<(), Vec<VerifyError>> {
    let errors = run(module);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Where a value is defined: function storage index, block id (or [`VACANT`]
/// for a parameter) and instruction index.
#[derive(Clone, Copy)]
pub(crate) struct DefSite {
    pub func: u32,
    pub block: u32,
    pub inst: u32,
}

const UNDEFINED: DefSite = DefSite { func: VACANT, block: VACANT, inst: VACANT };

pub(crate) struct Ctx<'m> {
    pub m: &'m Module,
    pub errors: Vec<VerifyError>,
    pub defs: Vec<DefSite>,
}

impl<'m> Ctx<'m> {
    pub fn ty(&self, id: crate::entity::TypeId) -> Type {
        self.m.ty(id)
    }

    /// The definition of `v` if it is defined in function `func`.
    #[inline]
    pub fn def_in(&self, v: ValueId, func: usize) -> Option<DefSite> {
        self.defs.get(v.index()).copied().filter(|d| d.func as usize == func)
    }
}

fn run(m: &Module) -> Vec<VerifyError> {
    let mut ctx = Ctx { m, errors: Vec::new(), defs: Vec::new() };
    ctx.errors.extend(m.build_errors().iter().cloned().map(VerifyError::Build));
    record_definitions(&mut ctx);
    module_rules::forbidden_and_layout(&mut ctx);
    module_rules::target(&mut ctx);
    module_rules::globals(&mut ctx);
    module_rules::declarations(&mut ctx);
    let mut cfg = cfg::Scratch::default();
    for index in 0..m.function_count() {
        let f = m.function_at(index);
        if !structure::check(&mut ctx, &f) {
            continue;
        }
        consts::check(&mut ctx, &f);
        cfg.check(&mut ctx, &f);
        operands::check(&mut ctx, &f);
    }
    ctx.errors
}

/// Fills the def-site table: one linear walk over parameters and results.
fn record_definitions(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    let mut defs = vec![UNDEFINED; m.value_id_bound()];
    for f in m.functions() {
        for p in f.params {
            if let Some(d) = defs.get_mut(p.value.index()) {
                *d = DefSite { func: f.index as u32, block: VACANT, inst: VACANT };
            }
        }
        for &b in f.blocks {
            if m.block_function(b) != Some(f.index) {
                continue;
            }
            let (_, results, start) = m.block_slices(b);
            for (i, result) in results.iter().enumerate() {
                if let Some(v) = result.expand() {
                    if let Some(d) = defs.get_mut(v.index()) {
                        *d = DefSite { func: f.index as u32, block: b.as_u32(), inst: start + i as u32 };
                    }
                }
            }
        }
    }
    ctx.defs = defs;
}

/// The first result-carrying value of an instruction, for error messages.
pub(crate) fn result_or(m: &Module, inst: InstId, fallback: ValueId) -> ValueId {
    m.inst_result(inst).unwrap_or(fallback)
}
