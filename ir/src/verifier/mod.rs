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
//! is broken skips the later passes (they would index garbage). The three
//! per-instruction passes of a function share one walk over its instructions
//! (one pass over memory instead of three), with their errors kept apart so the
//! reported order is still upstream's. Dominators use
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

/// What every check reads and where it reports. The fused per-function walk
/// makes one `Ctx` per error category so that each category keeps its place
/// in the reported order.
pub(crate) struct Ctx<'a> {
    pub m: &'a Module,
    pub errors: &'a mut Vec<VerifyError>,
    pub defs: &'a [DefSite],
}

impl Ctx<'_> {
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
    let mut errors: Vec<VerifyError> = m.build_errors().iter().cloned().map(VerifyError::Build).collect();
    let defs = record_definitions(m);
    let mut ctx = Ctx { m, errors: &mut errors, defs: &defs };
    module_rules::forbidden_and_layout(&mut ctx);
    module_rules::target(&mut ctx);
    module_rules::globals(&mut ctx);
    module_rules::declarations(&mut ctx);
    let mut scratch = FunctionScratch::default();
    for index in 0..m.function_count() {
        let f = m.function_at(index);
        verify_function(&mut ctx, &f, &mut scratch);
    }
    errors
}

/// Per-module scratch for the function walk, reused across functions.
#[derive(Default)]
struct FunctionScratch {
    cfg: cfg::Scratch,
    structure: Vec<VerifyError>,
    dominance: Vec<VerifyError>,
    types: Vec<VerifyError>,
}

/// One function: block structure, then the CFG, then a single walk over the
/// instructions that checks definedness and values (structure), dominance and
/// phis (CFG) and operand types and calls at once. Errors are kept per category
/// and reported in upstream's pass order; a function with structural errors
/// reports only those, because the later rules would judge garbage.
fn verify_function(ctx: &mut Ctx<'_>, f: &crate::module::Function<'_>, s: &mut FunctionScratch) {
    let (m, defs) = (ctx.m, ctx.defs);
    if !structure::blocks(ctx, f) {
        return;
    }
    s.cfg.graph(m, f);
    s.structure.clear();
    s.dominance.clear();
    s.types.clear();
    s.cfg.begin_uses(f);
    for (local, &block) in f.blocks.iter().enumerate() {
        s.cfg.begin_block(local);
        let (insts, results, start) = m.block_slices(block);
        let last = insts.len().saturating_sub(1);
        for (i, (data, result)) in insts.iter().zip(results).enumerate() {
            let inst = InstId::from_u32(start + i as u32);
            structure::inst(&mut Ctx { m, errors: &mut s.structure, defs }, f, block, inst, data, i == last);
            s.cfg.inst(&mut Ctx { m, errors: &mut s.dominance, defs }, &mut s.structure, f, (local, block), inst, data);
            operands::inst(&mut Ctx { m, errors: &mut s.types, defs }, f, inst, result.expand(), data);
        }
    }
    // Undefined operands and misplaced terminators make the later rules judge
    // garbage; value errors (constants, conditions, switches, returns) do not.
    let unsound = s
        .structure
        .iter()
        .any(|e| matches!(e, VerifyError::UseOfUndefinedValue { .. } | VerifyError::MisplacedTerminator { .. }));
    ctx.errors.append(&mut s.structure);
    if unsound {
        return;
    }
    consts::check(ctx, f);
    s.cfg.entry_predecessors(ctx, f);
    ctx.errors.append(&mut s.dominance);
    ctx.errors.append(&mut s.types);
}

/// The def-site table: one linear walk over parameters and results.
fn record_definitions(m: &Module) -> Vec<DefSite> {
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
    defs
}

/// The first result-carrying value of an instruction, for error messages.
pub(crate) fn result_or(m: &Module, inst: InstId, fallback: ValueId) -> ValueId {
    m.inst_result(inst).unwrap_or(fallback)
}
