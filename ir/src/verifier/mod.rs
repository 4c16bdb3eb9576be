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
//! reported order is still upstream's; the most common instructions first try
//! a fast path that only confirms validity (see `fast.rs`). Dominators use
//! Cooper–Harvey–Kennedy over reverse postorder with O(1) dominance queries
//! (see [`cfg`]). Verification never mutates the module; scratch tables are
//! allocated once per module, and each function's rules run back to back so
//! its instructions are read from cache rather than memory.

mod cfg;
mod consts;
mod defs;
mod error;
mod facts;
mod fast;
mod module_rules;
mod operands;
mod structure;

pub use error::VerifyError;

use defs::{DefSite, DefTable};
use facts::TypeFacts;

use crate::entity::{InstId, ValueId};
use crate::inst::InstData;
use crate::module::Module;
use crate::types::Type;

/// Checks `module`; returns the first error in upstream's order.
pub fn verify_module(module: &Module) -> Result<(), VerifyError> {
    match run(module).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Checks the body of the function at storage index `index` of `module`: every
/// rule that concerns one body (forbidden instructions and layouts, block
/// structure, definedness, constants, the CFG, dominance, phis, operand types
/// and calls), in upstream's order, without the module-wide rules (target,
/// globals, declarations and definitions) — what a pass that rewrote one
/// function needs to check. Returns the first error.
///
/// ```
/// use ir::{DataLayout, ModuleBuilder, Type};
/// let mut module = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
/// let mut f = module.begin_function("seven", vec![], Type::I32);
/// let seven = f.const_i32(7);
/// f.ret(Some(seven));
/// f.finish();
/// let module = module.finish();
/// assert!(ir::verify_function(&module, 0).is_ok());
/// ```
pub fn verify_function(module: &Module, index: usize) -> Result<(), VerifyError> {
    let Some(f) = (index < module.function_count()).then(|| module.function_at(index)) else {
        return Ok(());
    };
    let mut errors = Vec::new();
    let mut scratch = FunctionScratch::new(module);
    let mut defs = DefTable::default();
    defs.record(&f);
    verify_function_body(&mut Ctx { m: module, errors: &mut errors, defs: &defs }, &f, &mut scratch);
    match scratch.forbidden.into_iter().chain(errors).next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The storage index of the function whose body `error` (an error of
/// [`verify_module`]) concerns, if it concerns one: the first function whose
/// own first error it is. Instruction and block ids are scoped to their
/// function, so readers that point at the source of an error find it first.
pub fn function_of_error(module: &Module, error: &VerifyError) -> Option<usize> {
    (0..module.function_count()).find(|&i| verify_function(module, i).err().as_ref() == Some(error))
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

/// What every check reads and where it reports. The fused per-function walk
/// makes one `Ctx` per error category so that each category keeps its place
/// in the reported order.
pub(crate) struct Ctx<'a> {
    pub m: &'a Module,
    pub errors: &'a mut Vec<VerifyError>,
    pub defs: &'a DefTable,
}

impl Ctx<'_> {
    pub fn ty(&self, id: crate::entity::TypeId) -> Type {
        self.m.ty(id)
    }

    /// The definition of `v` if the function being verified defines it.
    #[inline]
    pub fn def_in(&self, v: ValueId) -> Option<DefSite> {
        self.defs.get(v)
    }
}

fn run(m: &Module) -> Vec<VerifyError> {
    let mut errors: Vec<VerifyError> = m.build_errors().iter().cloned().map(VerifyError::Build).collect();
    let mut module_rules = Vec::new();
    let none = DefTable::default();
    let mut ctx = Ctx { m, errors: &mut module_rules, defs: &none };
    module_rules::target(&mut ctx);
    module_rules::globals(&mut ctx);
    module_rules::declarations(&mut ctx);
    // Functions are independent: chunks of them are verified on several
    // threads when that pays, each chunk with its own scratch, and the errors
    // are put together in function order, so the result is the sequential one.
    let chunks = crate::parallel::chunks(m);
    let run_chunk = |range: std::ops::Range<usize>| {
        let mut scratch = FunctionScratch::new(m);
        let mut defs = DefTable::default();
        let mut body = Vec::new();
        for index in range {
            let f = m.function_at(index);
            defs.record(&f);
            verify_function_body(&mut Ctx { m, errors: &mut body, defs: &defs }, &f, &mut scratch);
        }
        (scratch.forbidden, body)
    };
    let results: Vec<(Vec<VerifyError>, Vec<VerifyError>)> = if chunks.len() > 1 {
        use rayon::prelude::*;
        chunks.into_par_iter().map(run_chunk).collect()
    } else {
        chunks.into_iter().map(run_chunk).collect()
    };
    // Upstream's order: builder errors, the forbidden/layout rules of every
    // function, the module rules, then each function's other rules.
    let mut bodies = Vec::new();
    for (forbidden, body) in results {
        errors.extend(forbidden);
        bodies.extend(body);
    }
    errors.extend(module_rules);
    errors.extend(bodies);
    errors
}

/// Per-module scratch for the function walk, reused across functions.
struct FunctionScratch {
    cfg: cfg::Scratch,
    structure: Vec<VerifyError>,
    dominance: Vec<VerifyError>,
    types: Vec<VerifyError>,
    /// The forbidden/layout rules' errors of every function so far.
    forbidden: Vec<VerifyError>,
    facts: TypeFacts,
    /// The function's `const_decl` instructions, in order.
    const_decls: Vec<InstId>,
    consts: consts::Scratch,
}

impl FunctionScratch {
    fn new(m: &Module) -> Self {
        FunctionScratch {
            cfg: cfg::Scratch::default(),
            structure: Vec::new(),
            dominance: Vec::new(),
            types: Vec::new(),
            forbidden: Vec::new(),
            facts: TypeFacts::new(m),
            const_decls: Vec::new(),
            consts: consts::Scratch::default(),
        }
    }
}

/// One function: block structure, then the CFG, then a single walk over the
/// instructions that checks the forbidden/layout rules, definedness and values
/// (structure), dominance and phis (CFG) and operand types and calls at once.
/// Errors are kept per category and reported in upstream's pass order; a
/// function with structural errors reports only those (and the
/// forbidden/layout ones), because the later rules would judge garbage.
fn verify_function_body(ctx: &mut Ctx<'_>, f: &crate::module::Function<'_>, s: &mut FunctionScratch) {
    let (m, defs) = (ctx.m, ctx.defs);
    let Some(entry_targeted) = structure::blocks(ctx, f) else {
        let mut forbidden = Ctx { m, errors: &mut s.forbidden, defs };
        module_rules::forbidden_and_layout(&mut forbidden, f, &mut s.facts);
        return;
    };
    s.cfg.begin_function(f);
    s.structure.clear();
    s.dominance.clear();
    s.types.clear();
    s.const_decls.clear();
    for (local, &block) in f.blocks.iter().enumerate() {
        s.cfg.begin_block();
        let (insts, results, start) = f.block_slices(block);
        let last = insts.len().saturating_sub(1);
        let mut i = 0;
        while i < insts.len() {
            // A run of clean instructions leaves the CFG pass's state alone,
            // so the fast path reads it without re-borrowing per instruction.
            let run = i;
            let site = fast::Site { m, f, defs, cfg: &s.cfg, local };
            while let (Some(data), Some(result)) = (insts.get(i), results.get(i)) {
                let inst = InstId::from_u32(start + i as u32);
                if !fast::is_clean(&site, &mut s.facts, inst, data, result.expand(), i == last) {
                    break;
                }
                i += 1;
            }
            if i > run {
                s.cfg.passed_non_phi();
                // Debug builds (every test) confirm the fast path with the full rules.
                #[cfg(debug_assertions)]
                for k in run..i {
                    let (inst, data, result) = (InstId::from_u32(start + k as u32), &insts[k], results[k].expand());
                    let mut errors = Vec::new();
                    let mut ctx = Ctx { m, errors: &mut errors, defs };
                    module_rules::forbidden_inst(&mut ctx, f, inst, data, result, &mut s.facts);
                    structure::inst(&mut ctx, f, block, inst, data, k == last);
                    s.cfg.inst(&mut ctx, &mut Vec::new(), f, (local, block), inst, data);
                    operands::inst(&mut ctx, f, inst, result, data);
                    debug_assert!(errors.is_empty(), "fast path passed {inst:?}: {errors:?}");
                }
            }
            let (Some(data), Some(result)) = (insts.get(i), results.get(i)) else {
                break;
            };
            let (inst, result) = (InstId::from_u32(start + i as u32), result.expand());
            if module_rules::has_forbidden_rules(data) {
                let mut forbidden = Ctx { m, errors: &mut s.forbidden, defs };
                module_rules::forbidden_inst(&mut forbidden, f, inst, data, result, &mut s.facts);
            }
            if let InstData::ConstDecl { .. } = data {
                s.const_decls.push(inst);
            }
            structure::inst(&mut Ctx { m, errors: &mut s.structure, defs }, f, block, inst, data, i == last);
            s.cfg.inst(&mut Ctx { m, errors: &mut s.dominance, defs }, &mut s.structure, f, (local, block), inst, data);
            operands::inst(&mut Ctx { m, errors: &mut s.types, defs }, f, inst, result, data);
            i += 1;
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
    consts::check(ctx, f, &s.const_decls, &mut s.consts);
    s.cfg.entry_predecessors(ctx, f, entry_targeted);
    ctx.errors.append(&mut s.dominance);
    ctx.errors.append(&mut s.types);
}

/// The first result-carrying value of an instruction, for error messages.
pub(crate) fn result_or(f: &crate::module::Function<'_>, inst: InstId, fallback: ValueId) -> ValueId {
    f.inst_result(inst).unwrap_or(fallback)
}
