//! CFG, dominators, SSA dominance and phi rules (whale-upstream §d.1 item 11).
//!
//! Edges are de-duplicated per (predecessor, successor) pair. Dominators are
//! computed by Cooper–Harvey–Kennedy iteration over reverse-postorder numbers
//! (its authors measured it faster than Lengauer–Tarjan on ordinary CFGs, with
//! far less code); unreachable blocks get none, and uses inside them are exempt
//! from dominance. Numbering the dominator tree in preorder, with each subtree's
//! largest number, makes `dominates(a, b)` two comparisons. Within a block,
//! "defined before" compares instruction indices, which are contiguous per block.
//! A phi input is used at the end of its predecessor, so a back-edge value may be
//! defined later in storage order and a self-loop phi may use itself. All graph
//! walks are iterative; all scratch lives in [`Scratch`] and is reused.
//!
//! The graph is built on demand. Most uses need none of it: a parameter, a
//! value defined earlier in the same block, or one defined in the entry block
//! (which dominates every reachable block, and uses in unreachable blocks are
//! exempt) is available wherever it is used. Code lowered at O0 keeps its
//! values in allocas placed in the entry block, so most of its functions never
//! build edges or dominators; phis, entry predecessors and other uses build
//! them when they first need them.

use super::{Ctx, DefSite, DefTable, VerifyError};
use crate::const_expr::{ConstExpr, ConstExprKind, ConstRef};
use crate::entity::{BlockId, InstId, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::{Function, VACANT};

const UNDEF: u32 = u32::MAX;

/// How much of the current function's graph is built.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Built {
    Nothing,
    Edges,
    Dominators,
}

/// Reusable per-module scratch for the CFG pass.
pub(super) struct Scratch {
    /// Local index of each block of the current function, by block id.
    local: Vec<u32>,
    /// Local index of the current function's entry block.
    entry: u32,
    built: Built,
    succ_start: Vec<u32>,
    succs: Vec<u32>,
    pred_start: Vec<u32>,
    preds: Vec<u32>,
    /// Per block: the last block whose successor list it joined (edge de-duplication).
    edge_mark: Vec<u32>,
    /// Per block: the block whose predecessors are marked, if it is one of them.
    mark: Vec<u32>,
    /// The block whose predecessors `mark` holds.
    marked: u32,
    seen: Vec<u32>,
    rpo: Vec<u32>,
    rpo_number: Vec<u32>,
    idom: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<u32>,
    pre: Vec<u32>,
    last: Vec<u32>,
    stack: Vec<(u32, u32)>,
    operands: Vec<ValueId>,
    phi_stamp: u32,
    past_phis: bool,
    fill: Vec<u32>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            local: Vec::new(),
            entry: UNDEF,
            built: Built::Nothing,
            succ_start: Vec::new(),
            succs: Vec::new(),
            pred_start: Vec::new(),
            preds: Vec::new(),
            edge_mark: Vec::new(),
            mark: Vec::new(),
            marked: UNDEF,
            seen: Vec::new(),
            rpo: Vec::new(),
            rpo_number: Vec::new(),
            idom: Vec::new(),
            child_start: Vec::new(),
            children: Vec::new(),
            pre: Vec::new(),
            last: Vec::new(),
            stack: Vec::new(),
            operands: Vec::new(),
            phi_stamp: 0,
            past_phis: false,
            fill: Vec::new(),
        }
    }
}

impl Scratch {
    /// Starts function `f` (whose blocks end in terminators with targets
    /// inside `f`): numbers its blocks; the graph is built on demand.
    pub(super) fn begin_function(&mut self, f: &Function<'_>) {
        // Indexed by the function's dense block index: every block of the
        // function is assigned, and stale entries of other functions are never
        // read, because lookups first check that the function has the block.
        if self.local.len() < f.block_slots() {
            self.local.resize(f.block_slots(), UNDEF);
        }
        for (i, &b) in f.blocks.iter().enumerate() {
            if let Some(slot) = f.block_index(b) {
                self.local[slot] = i as u32;
            }
        }
        self.entry = f.block_index(f.entry).map_or(UNDEF, |slot| self.local[slot]);
        self.built = Built::Nothing;
        self.marked = UNDEF;
        self.phi_stamp = 0;
    }

    /// Builds the edges (and resets the phi marks) if they are not built yet.
    fn edges(&mut self, m: &crate::Module, f: &Function<'_>) {
        if self.built >= Built::Edges {
            return;
        }
        self.build_edges(m, f);
        let n = f.blocks.len();
        reset(&mut self.mark, n, UNDEF);
        reset(&mut self.seen, n, UNDEF);
        self.marked = UNDEF;
        self.built = Built::Edges;
    }

    /// Builds the edges, reverse postorder, dominators and their numbering if
    /// they are not built yet.
    fn dominators(&mut self, m: &crate::Module, f: &Function<'_>) {
        if self.built >= Built::Dominators {
            return;
        }
        self.edges(m, f);
        self.reverse_postorder(f);
        self.compute_idoms();
        self.dominator_tree_numbers();
        self.built = Built::Dominators;
    }

    fn local_of(&self, f: &Function<'_>, b: BlockId) -> Option<u32> {
        f.block_index(b).filter(|_| f.has_block(b)).map(|slot| self.local[slot])
    }

    fn build_edges(&mut self, m: &crate::Module, f: &Function<'_>) {
        let n = f.blocks.len();
        reset(&mut self.edge_mark, n, UNDEF);
        self.succ_start.clear();
        self.succs.clear();
        for (i, &b) in f.blocks.iter().enumerate() {
            self.succ_start.push(self.succs.len() as u32);
            if let Some(term) = f.block_insts(b).next_back() {
                let local = &self.local;
                let mark = &mut self.edge_mark;
                let succs = &mut self.succs;
                f.inst(term).for_each_successor(&m.pool, |s| {
                    let j = f.block_index(s).map_or(UNDEF, |slot| local[slot]);
                    if mark[j as usize] != i as u32 {
                        mark[j as usize] = i as u32;
                        succs.push(j);
                    }
                });
            }
        }
        self.succ_start.push(self.succs.len() as u32);
        // Predecessors: counting sort of the edges by target.
        reset(&mut self.pred_start, n + 1, 0);
        for &s in &self.succs {
            self.pred_start[s as usize + 1] += 1;
        }
        for i in 0..n {
            self.pred_start[i + 1] += self.pred_start[i];
        }
        reset(&mut self.preds, self.succs.len(), 0);
        let fill = &mut self.fill;
        fill.clear();
        fill.extend_from_slice(&self.pred_start);
        for b in 0..n {
            for k in self.succ_start[b]..self.succ_start[b + 1] {
                let s = self.succs[k as usize] as usize;
                self.preds[fill[s] as usize] = b as u32;
                fill[s] += 1;
            }
        }
    }

    fn preds_of(&self, b: usize) -> &[u32] {
        &self.preds[self.pred_start[b] as usize..self.pred_start[b + 1] as usize]
    }

    /// Reports every predecessor of the entry block; `entry_targeted` says
    /// whether any branch targets it, so the edges need not be built when none does.
    pub(super) fn entry_predecessors(&mut self, ctx: &mut Ctx<'_>, f: &Function<'_>, entry_targeted: bool) {
        let m = ctx.m;
        if self.built == Built::Nothing && !entry_targeted {
            return;
        }
        self.edges(m, f);
        let entry = self.entry as usize;
        for &p in self.preds_of(entry) {
            ctx.errors.push(VerifyError::EntryHasPredecessor {
                func: f.name.to_string(),
                entry: f.entry,
                predecessor: f.blocks[p as usize],
            });
        }
    }

    fn reverse_postorder(&mut self, f: &Function<'_>) {
        let n = f.blocks.len();
        let entry = self.entry;
        reset(&mut self.rpo_number, n, UNDEF);
        self.rpo.clear();
        self.stack.clear();
        // rpo_number doubles as the visited mark during the walk.
        self.rpo_number[entry as usize] = 0;
        self.stack.push((entry, self.succ_start[entry as usize]));
        while let Some(&mut (b, ref mut next)) = self.stack.last_mut() {
            if *next < self.succ_start[b as usize + 1] {
                let s = self.succs[*next as usize];
                *next += 1;
                if self.rpo_number[s as usize] == UNDEF {
                    self.rpo_number[s as usize] = 0;
                    self.stack.push((s, self.succ_start[s as usize]));
                }
            } else {
                self.rpo.push(b);
                self.stack.pop();
            }
        }
        self.rpo.reverse();
        for (i, &b) in self.rpo.iter().enumerate() {
            self.rpo_number[b as usize] = i as u32;
        }
    }

    /// Cooper–Harvey–Kennedy; `idom` is indexed by RPO number, entry = 0.
    fn compute_idoms(&mut self) {
        let count = self.rpo.len();
        reset(&mut self.idom, count, UNDEF);
        if count == 0 {
            return;
        }
        self.idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for r in 1..count {
                let b = self.rpo[r] as usize;
                let mut new = UNDEF;
                for &p in &self.preds[self.pred_start[b] as usize..self.pred_start[b + 1] as usize] {
                    let pr = self.rpo_number[p as usize];
                    if pr == UNDEF || self.idom[pr as usize] == UNDEF {
                        continue;
                    }
                    new = if new == UNDEF { pr } else { intersect(&self.idom, new, pr) };
                }
                if new != self.idom[r] {
                    self.idom[r] = new;
                    changed = true;
                }
            }
        }
    }

    /// Preorder numbers of the dominator tree, by local block index.
    fn dominator_tree_numbers(&mut self) {
        let count = self.rpo.len();
        let n = self.rpo_number.len();
        reset(&mut self.pre, n, UNDEF);
        reset(&mut self.last, n, UNDEF);
        if count == 0 {
            return;
        }
        reset(&mut self.child_start, count + 1, 0);
        for r in 1..count {
            self.child_start[self.idom[r] as usize + 1] += 1;
        }
        for r in 0..count {
            self.child_start[r + 1] += self.child_start[r];
        }
        reset(&mut self.children, count.saturating_sub(1), 0);
        let fill = &mut self.fill;
        fill.clear();
        fill.extend_from_slice(&self.child_start);
        for r in 1..count {
            let parent = self.idom[r] as usize;
            self.children[fill[parent] as usize] = r as u32;
            fill[parent] += 1;
        }
        let mut number = 0u32;
        self.stack.clear();
        self.stack.push((0, self.child_start[0]));
        self.pre[self.rpo[0] as usize] = number;
        while let Some(&mut (r, ref mut next)) = self.stack.last_mut() {
            if *next < self.child_start[r as usize + 1] {
                let c = self.children[*next as usize];
                *next += 1;
                number += 1;
                self.pre[self.rpo[c as usize] as usize] = number;
                self.stack.push((c, self.child_start[c as usize]));
            } else {
                self.last[self.rpo[r as usize] as usize] = number;
                self.stack.pop();
            }
        }
    }

    fn dominance(&self) -> Dominance<'_> {
        Dominance { pre: &self.pre, last: &self.last }
    }

    /// Enters the next block of the walk.
    pub(super) fn begin_block(&mut self) {
        self.past_phis = false;
    }

    /// Marks the predecessors of local block `local` for the phi rules.
    fn mark_predecessors(&mut self, local: usize) {
        if self.marked == local as u32 {
            return;
        }
        for k in self.pred_start[local]..self.pred_start[local + 1] {
            let p = self.preds[k as usize];
            self.mark[p as usize] = local as u32;
        }
        self.marked = local as u32;
    }

    /// Whether `def` is available at instruction `at` of local block `local`
    /// when that follows from where it is defined alone: `None` when it takes
    /// the dominator tree (or, for a later definition in the same block,
    /// whether the block is reachable).
    #[inline(always)]
    fn available_without_graph(&self, def: DefSite, local: usize, at: u32) -> Option<bool> {
        if def.block == VACANT || (def.block == self.entry && def.block as usize != local) {
            // A parameter; or defined in the entry block, which dominates every
            // reachable block (uses in unreachable ones are exempt).
            return Some(true);
        }
        (def.block as usize == local && def.inst < at).then_some(true)
    }

    /// Whether a use of `def` at instruction `at` of local block `local`
    /// passes the dominance rule (uses in unreachable blocks are exempt),
    /// building the dominator tree if that takes it.
    fn use_dominated(&mut self, m: &crate::Module, f: &Function<'_>, def: DefSite, local: usize, at: u32) -> bool {
        if let Some(available) = self.available_without_graph(def, local, at) {
            return available;
        }
        self.dominators(m, f);
        self.pre[local] == UNDEF || self.dominance().available(def, local, Some(at))
    }

    /// Whether `value`, used by instruction `at` of local block `local`, is
    /// defined in this function and (in a reachable block) available there:
    /// the [`Scratch::inst`] rules for one operand, without reporting. False
    /// also when the answer would take a graph not built yet.
    #[inline(always)]
    pub(super) fn use_is_sound(&self, defs: &DefTable, value: ValueId, local: usize, at: u32) -> bool {
        let Some(def) = defs.get(value) else { return false };
        match self.available_without_graph(def, local, at) {
            Some(available) => available,
            None => {
                self.built == Built::Dominators
                    && (self.pre[local] == UNDEF || self.dominance().available(def, local, Some(at)))
            }
        }
    }

    /// Records that the walk has passed a non-phi instruction of the block.
    #[inline]
    pub(super) fn passed_non_phi(&mut self) {
        self.past_phis = true;
    }

    /// For a phi, the phi rules; otherwise each operand must be defined in the
    /// function (reported to `structure`, the structure pass's errors) and, in a
    /// reachable block, dominate the instruction.
    #[inline]
    pub(super) fn inst(
        &mut self,
        ctx: &mut Ctx<'_>,
        structure: &mut Vec<VerifyError>,
        f: &Function<'_>,
        (local, block): (usize, BlockId),
        inst: InstId,
        data: &InstData,
    ) {
        let m = ctx.m;
        if let InstData::Phi { inputs } = *data {
            self.dominators(m, f);
            self.mark_predecessors(local);
            self.phi_stamp += 1;
            let pred_count = self.preds_of(local).len();
            self.phi(ctx, f, (local, block), inst, m.list(inputs), self.past_phis, pred_count, self.phi_stamp);
            return;
        }
        self.past_phis = true;
        let at = inst.as_u32();
        for value in data.values(&m.pool) {
            match ctx.def_in(value) {
                None => super::structure::undefined(&mut Ctx { m, errors: structure, defs: ctx.defs }, f, value, inst),
                Some(def) => {
                    if !self.use_dominated(m, f, def, local, at) {
                        non_dominating(ctx, f, value, block, inst);
                    }
                }
            }
        }
        if let InstData::ConstDecl { decl } = *data {
            let mut operands = std::mem::take(&mut self.operands);
            operands.clear();
            local_references(m.const_decl(decl).expr, &mut operands);
            for &v in &operands {
                // Local references are ordinary uses for dominance; their
                // existence is the constant-expression checker's business.
                if let Some(def) = ctx.def_in(v) {
                    if !self.use_dominated(m, f, def, local, at) {
                        non_dominating(ctx, f, v, block, inst);
                    }
                }
            }
            self.operands = operands;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn phi(
        &mut self,
        ctx: &mut Ctx<'_>,
        f: &Function<'_>,
        (local, block): (usize, BlockId),
        inst: InstId,
        inputs: &[u32],
        past_phis: bool,
        pred_count: usize,
        stamp: u32,
    ) {
        let m = ctx.m;
        let Some(value) = f.inst_result(inst) else {
            return;
        };
        let invalid =
            |reason: &'static str| VerifyError::InvalidPhi { func: f.name.to_string(), block, value, reason, inst };
        let phi_ty = f.value_type(value).unwrap_or(TypeId::VOID);
        if !m.types.is_storable(phi_ty) {
            ctx.errors.push(VerifyError::InvalidInstructionType {
                func: f.name.to_string(),
                operation: "phi",
                ty: m.ty(phi_ty),
                inst,
            });
            return;
        }
        let reason = if past_phis {
            Some("phi must precede non-phi instructions")
        } else if block == f.entry {
            Some("function entry has no incoming SSA value")
        } else if inputs.is_empty() {
            Some("phi requires incoming values")
        } else {
            None
        };
        if let Some(reason) = reason {
            ctx.errors.push(invalid(reason));
            return;
        }
        let mut matched = 0usize;
        for pair in inputs.chunks_exact(2) {
            let (v, pb) = (ValueId::from_u32(pair[0]), BlockId::from_u32(pair[1]));
            let Some(p) = self.local_of(f, pb) else {
                ctx.errors.push(invalid("phi names an unknown predecessor"));
                return;
            };
            let p = p as usize;
            if self.mark[p] != local as u32 {
                ctx.errors.push(invalid("phi input is not a predecessor"));
                return;
            }
            if self.seen[p] == stamp {
                ctx.errors.push(invalid("duplicate phi predecessor"));
                return;
            }
            self.seen[p] = stamp;
            matched += 1;
            if let Some(got) = f.value_type(v) {
                if got != phi_ty {
                    ctx.errors.push(VerifyError::OperandTypeMismatch {
                        func: f.name.to_string(),
                        value: v,
                        expected: m.ty(phi_ty),
                        got: m.ty(got),
                        inst,
                    });
                }
            }
            // Used at the end of the predecessor; uses from unreachable blocks are exempt.
            if self.pre[p] != UNDEF {
                if let Some(def) = ctx.def_in(v) {
                    if !self.dominance().available(def, p, None) {
                        ctx.errors.push(VerifyError::NonDominatingValue {
                            func: f.name.to_string(),
                            value: v,
                            block: pb,
                            inst,
                        });
                    }
                }
            }
        }
        if matched < pred_count {
            ctx.errors.push(invalid("phi is missing a predecessor"));
        }
    }
}

/// O(1) dominance queries over the preorder numbering of the dominator tree.
struct Dominance<'s> {
    pre: &'s [u32],
    last: &'s [u32],
}

impl Dominance<'_> {
    /// Whether local block `a` dominates local block `b` (both reachable).
    #[inline]
    fn dominates(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (self.pre[a], self.pre[b]);
        pa != UNDEF && pb != UNDEF && pa <= pb && pb <= self.last[a]
    }

    /// Whether `def` is available at instruction `at` of local block `block`
    /// (`at == None`: at the end of the block).
    #[inline]
    fn available(&self, def: DefSite, block: usize, at: Option<u32>) -> bool {
        if def.block == VACANT {
            return true; // a parameter
        }
        let def_local = def.block as usize;
        if def_local == block {
            return at.is_none_or(|i| def.inst < i);
        }
        self.dominates(def_local, block)
    }
}

#[cold]
#[inline(never)]
fn non_dominating(ctx: &mut Ctx<'_>, f: &Function<'_>, value: ValueId, block: BlockId, inst: InstId) {
    ctx.errors.push(VerifyError::NonDominatingValue { func: f.name.to_string(), value, block, inst });
}

fn intersect(idom: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = idom[a as usize];
        }
        while b > a {
            b = idom[b as usize];
        }
    }
    a
}

fn reset(v: &mut Vec<u32>, len: usize, fill: u32) {
    v.clear();
    v.resize(len, fill);
}

/// Local references of a constant expression, walked iteratively, left
/// operands first. A right operand waits on a stack only while its left
/// operand is itself an operation, so the usual shapes (an operation on
/// leaves, right-leaning chains) never allocate.
fn local_references(expr: &ConstExpr, out: &mut Vec<ValueId>) {
    fn operands(e: &ConstExpr) -> Option<(&ConstExpr, &ConstExpr)> {
        match &e.kind {
            ConstExprKind::Binary { lhs, rhs, .. } | ConstExprKind::Compare { lhs, rhs, .. } => Some((lhs, rhs)),
            _ => None,
        }
    }
    let mut leaf = |e: &ConstExpr| {
        if let ConstExprKind::Reference(ConstRef::Local(v)) = e.kind {
            out.push(v);
        }
    };
    let mut pending = Vec::new();
    let mut next = Some(expr);
    while let Some(e) = next.take().or_else(|| pending.pop()) {
        match operands(e) {
            None => leaf(e),
            Some((lhs, rhs)) if operands(lhs).is_none() => {
                leaf(lhs);
                next = Some(rhs);
            }
            Some((lhs, rhs)) => {
                pending.push(rhs);
                next = Some(lhs);
            }
        }
    }
}
