//! Writing an edited function back into its module, and compacting the
//! module's tables afterwards.
//!
//! The function's new body is appended as fresh runs of the module's tables —
//! instructions in layout order (ids renumbered), its blocks and values as
//! dense runs from their lowest live id to their highest — and its record
//! points at them. The old runs stay behind as garbage until
//! [`Module::compact`] copies every live run into new tables; installing
//! compacts by itself once the garbage outgrows the live instructions, so
//! editing every function of a module once costs O(module) overall.

use super::{FunctionEditor, NO_DEF};
use crate::entity::{EntityList, EntityRef, ListPool, PackedOption, StrId, TypeId};
use crate::inst::InstData;
use crate::module::{BlockData, Module, Span};

pub(super) fn install(e: FunctionEditor<'_>) {
    let order = e.blocks();
    let FunctionEditor {
        m, index, entry, params, insts, results, links, values, value_base, blocks, block_base, ..
    } = e;
    let old = m.functions[index].clone();
    m.garbage += old.insts.len as usize;

    // Instructions in layout order; each block a run of them.
    let inst_start = m.insts.len();
    let mut block_runs = Vec::with_capacity(order.len());
    for &b in &order {
        let start = (m.insts.len() - inst_start) as u32;
        let slot = (b.as_u32() - block_base) as usize;
        let mut at = blocks[slot].first.expand();
        while let Some(inst) = at {
            m.insts.push(insts[inst.index()]);
            m.inst_results.push(results[inst.index()]);
            at = links[inst.index()].next.expand();
        }
        let name = blocks[slot].name.expand().unwrap_or(StrId::from_u32(u32::MAX));
        block_runs.push((b, BlockData { name, start, end: (m.insts.len() - inst_start) as u32 }));
    }

    // Blocks: a dense run over the live ids.
    let low = block_runs.iter().map(|(b, _)| b.as_u32()).min().unwrap_or(0);
    let high = block_runs.iter().map(|(b, _)| b.as_u32() + 1).max().unwrap_or(0);
    let block_start = m.blocks.len();
    m.blocks.resize(block_start + (high - low) as usize, BlockData::VACANT);
    for (b, data) in &block_runs {
        m.blocks[block_start + (b.as_u32() - low) as usize] = *data;
    }

    // Values: a dense run over the ids still defined (parameters and live results).
    let defined: Vec<usize> = values.iter().enumerate().filter(|(_, v)| v.def != NO_DEF).map(|(s, _)| s).collect();
    let (vlow, vhigh) = match (defined.first(), defined.last()) {
        (Some(&a), Some(&b)) => (a, b + 1),
        _ => (0, 0),
    };
    let value_start = m.value_types.len();
    m.value_types.resize(value_start + (vhigh - vlow), PackedOption::NONE);
    for s in defined {
        m.value_types[value_start + s - vlow] = values[s].ty;
    }

    let param_start = m.params.len();
    m.params.extend_from_slice(&params);
    let order_start = m.block_order.len();
    m.block_order.extend_from_slice(&order);
    let f = &mut m.functions[index];
    f.entry = entry;
    f.params = Span::until(param_start, m.params.len());
    f.order = Span::until(order_start, m.block_order.len());
    f.blocks = Span::until(block_start, m.blocks.len());
    f.block_base = low;
    f.insts = Span::until(inst_start, m.insts.len());
    f.values = Span::until(value_start, m.value_types.len());
    f.value_base = value_base + vlow as u32;

    if m.garbage > m.insts.len() / 2 + 1024 {
        m.compact();
    }
}

impl Module {
    /// Copies every function's runs into fresh tables (and every operand list
    /// into a fresh pool), dropping what edited functions left behind.
    /// [`crate::FunctionEditor::finish`] does it by itself when the garbage
    /// outgrows the live instructions.
    pub fn compact(&mut self) {
        let mut params = Vec::with_capacity(self.params.len());
        let mut order = Vec::with_capacity(self.block_order.len());
        let mut blocks = Vec::with_capacity(self.blocks.len());
        let mut insts = Vec::with_capacity(self.insts.len() - self.garbage.min(self.insts.len()));
        let mut results = Vec::with_capacity(insts.capacity());
        let mut value_types: Vec<PackedOption<TypeId>> = Vec::with_capacity(self.value_types.len());
        let mut pool = ListPool::new();
        fn copy<T: Clone>(from: &[T], to: &mut Vec<T>) -> Span {
            let start = to.len();
            to.extend_from_slice(from);
            Span::until(start, to.len())
        }
        for f in &mut self.functions {
            f.params = copy(&self.params[f.params.range()], &mut params);
            f.order = copy(&self.block_order[f.order.range()], &mut order);
            f.blocks = copy(&self.blocks[f.blocks.range()], &mut blocks);
            f.values = copy(&self.value_types[f.values.range()], &mut value_types);
            let start = insts.len();
            for (data, result) in self.insts[f.insts.range()].iter().zip(&self.inst_results[f.insts.range()]) {
                insts.push(relocate_lists(*data, &self.pool, &mut pool));
                results.push(*result);
            }
            f.insts = Span::until(start, insts.len());
        }
        (self.params, self.block_order, self.blocks) = (params, order, blocks);
        (self.insts, self.inst_results, self.value_types, self.pool) = (insts, results, value_types, pool);
        self.garbage = 0;
    }
}

/// `data` with its operand list, if any, copied from `from` into `to`.
fn relocate_lists(data: InstData, from: &ListPool, to: &mut ListPool) -> InstData {
    let mut copy = |list: EntityList| to.make(from.get(list));
    match data {
        InstData::Phi { inputs } => InstData::Phi { inputs: copy(inputs) },
        InstData::Bulk { op, align, args } => InstData::Bulk { op, align, args: copy(args) },
        InstData::Gep { base, indices } => InstData::Gep { base, indices: copy(indices) },
        InstData::Call { callee, args } => InstData::Call { callee, args: copy(args) },
        InstData::CallIndirect { callee, args } => InstData::CallIndirect { callee, args: copy(args) },
        InstData::Switch { arg, default, cases } => InstData::Switch { arg, default, cases: copy(cases) },
        other => other,
    }
}
