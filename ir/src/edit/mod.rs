//! Rewriting function bodies: the one API passes use to change a function.
//!
//! [`Module::edit_function`] copies a function into a [`FunctionEditor`], an
//! editable form with a linked layout (blocks in order, instructions in order
//! within each block), use lists (`uses.rs`) and dense tables by id;
//! [`FunctionEditor::finish`] writes it back as compact runs of the module's
//! tables (`install.rs`), renumbering instruction ids in layout order. Every
//! operation costs O(1) or O(what it touches) — inserting, removing or
//! replacing an instruction O(its operands), replacing all uses of a value
//! O(its uses), splitting a block O(the instructions moved), removing a block
//! O(its instructions and its successors' phis) — so a pass over a
//! million-instruction function stays linear. Cranelift's `FuncCursor` and
//! `DataFlowGraph` and LLVM's `replaceAllUsesWith` are the models.
//!
//! Why an editable copy beside a compact frozen form rather than one
//! representation: the frozen form (flat runs of 16-byte records, no links) is
//! what every reader, the verifier, the printer, the codecs and the
//! interpreter read; links and use lists would cost each of them memory and
//! cache misses for the benefit of passes alone. `docs/ir-editing.md` records
//! the measurements behind the choice.
//!
//! Ids while editing: value and block ids are the function's own (new ones
//! are numbered above the highest); instruction ids are stable while the
//! editor lives and renumbered by [`FunctionEditor::finish`]. The editor keeps
//! the structure consistent (layout, use lists) but does not verify: a pass
//! runs [`crate::verify_function`] on what it produced.
//!
//! ```
//! use ir::{ConstValue, DataLayout, InstData, ModuleBuilder, Opcode, Position, Type, TypeId};
//! let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
//! let mut f = mb.begin_function("twice", vec![("x".into(), Type::I32)], Type::I32);
//! let x = f.param_value(0);
//! let sum = f.add(Type::I32, x, x);
//! f.ret(Some(sum));
//! f.finish();
//! let mut module = mb.finish();
//! // Replace `x + x` by `x << 1`.
//! let mut e = module.edit_function(0);
//! let add = e.inst_of(sum).unwrap();
//! let one_data = e.constant_data(ConstValue::I(1));
//! let (_, one) = e.insert(Position::Before(add), one_data, Some(TypeId::I32));
//! let shift = InstData::Binary { op: Opcode::Shl, args: [x, one.unwrap()] };
//! let (_, shl) = e.insert(Position::Before(add), shift, Some(TypeId::I32));
//! e.replace_all_uses(sum, shl.unwrap());
//! e.remove_inst(add);
//! e.finish();
//! ir::verify_module(&module).unwrap();
//! assert!(ir::print_module(&module).contains("%v3: i32 = shl i32 %v0, %v2"));
//! ```

mod install;
mod uses;

pub use uses::Users;

use crate::constant::ConstValue;
use crate::entity::{BlockId, EntityList, EntityRef, InstId, PackedOption, StrId, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::{encode_const, Module, Param};
use crate::types::TypeTable;
use uses::UseLists;

/// Where a value is defined.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ValueDef {
    /// Parameter `index` of the function.
    Param(usize),
    /// The result of an instruction.
    Inst(InstId),
}

/// Where [`FunctionEditor::insert`] puts an instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Position {
    /// Right before an instruction.
    Before(InstId),
    /// Right after an instruction.
    After(InstId),
    /// First in a block.
    Start(BlockId),
    /// Last in a block.
    End(BlockId),
}

/// A value with no definition (its instruction was removed, or the id was never defined).
const NO_DEF: u32 = u32::MAX;
/// A parameter's definition; the index is found in `params`.
const PARAM_DEF: u32 = u32::MAX - 1;

#[derive(Clone, Copy, Debug)]
struct ValueNode {
    ty: PackedOption<TypeId>,
    /// An instruction id, [`PARAM_DEF`] or [`NO_DEF`].
    def: u32,
}

#[derive(Clone, Copy, Debug)]
struct InstNode {
    /// The block holding the instruction; none once removed.
    block: PackedOption<BlockId>,
    prev: PackedOption<InstId>,
    next: PackedOption<InstId>,
}

const DETACHED: InstNode = InstNode { block: PackedOption::NONE, prev: PackedOption::NONE, next: PackedOption::NONE };

#[derive(Clone, Copy, Debug)]
struct BlockNode {
    /// The block's name; none for an id no block has.
    name: PackedOption<StrId>,
    /// Whether the block is in the layout.
    live: bool,
    first: PackedOption<InstId>,
    last: PackedOption<InstId>,
    prev: PackedOption<BlockId>,
    next: PackedOption<BlockId>,
}

const NO_BLOCK: BlockNode = BlockNode {
    name: PackedOption::NONE,
    live: false,
    first: PackedOption::NONE,
    last: PackedOption::NONE,
    prev: PackedOption::NONE,
    next: PackedOption::NONE,
};

/// An editable copy of one function body (see the module documentation).
pub struct FunctionEditor<'m> {
    m: &'m mut Module,
    index: usize,
    entry: BlockId,
    params: Vec<Param>,
    insts: Vec<InstData>,
    results: Vec<PackedOption<ValueId>>,
    links: Vec<InstNode>,
    values: Vec<ValueNode>,
    value_base: u32,
    blocks: Vec<BlockNode>,
    block_base: u32,
    first_block: PackedOption<BlockId>,
    last_block: PackedOption<BlockId>,
    uses: UseLists,
}

impl Module {
    /// Opens the function at storage index `index` for editing (panics when
    /// out of range, like indexing); [`FunctionEditor::finish`] writes it back.
    pub fn edit_function(&mut self, index: usize) -> FunctionEditor<'_> {
        FunctionEditor::new(self, index)
    }
}

impl<'m> FunctionEditor<'m> {
    fn new(m: &'m mut Module, index: usize) -> Self {
        let f = m.function_at(index);
        let (entry, params, insts) = (f.entry, f.params.to_vec(), f.insts().to_vec());
        let results: Vec<PackedOption<ValueId>> =
            (0..f.inst_count()).map(|i| f.inst_result(InstId::new(i)).into()).collect();
        let values: Vec<ValueNode> =
            (0..f.value_slots()).map(|i| ValueNode { ty: f.value_type(f.value_at(i)).into(), def: NO_DEF }).collect();
        let blocks: Vec<BlockNode> = (0..f.block_slots())
            .map(|i| BlockNode { name: f.block_name_id(f.block_at(i)).into(), ..NO_BLOCK })
            .collect();
        let layout: Vec<(BlockId, Vec<InstId>)> = f.blocks.iter().map(|&b| (b, f.block_insts(b).collect())).collect();
        let (value_base, block_base) = (f.value_base(), f.block_at(0).as_u32());
        let mut e = FunctionEditor {
            m,
            index,
            entry,
            params,
            links: vec![DETACHED; insts.len()],
            insts,
            results,
            values,
            value_base,
            blocks,
            block_base,
            first_block: PackedOption::NONE,
            last_block: PackedOption::NONE,
            uses: UseLists::default(),
        };
        e.uses.grow_values(e.values.len());
        for i in 0..e.params.len() {
            if let Some(s) = e.value_slot(e.params[i].value) {
                e.values[s].def = PARAM_DEF;
            }
        }
        for (b, insts) in layout {
            if e.block_slot(b).is_none_or(|s| e.blocks[s].live) {
                continue; // listed twice, or not a block of the function: the verifier's to report
            }
            e.link_block_after(b, e.last_block.expand());
            for inst in insts {
                e.attach(inst, Position::End(b));
                e.define_result(inst);
                e.link_uses(inst);
            }
        }
        e
    }

    // ---- tables ------------------------------------------------------------------------------

    #[inline]
    fn value_slot(&self, v: ValueId) -> Option<usize> {
        let s = v.as_u32().wrapping_sub(self.value_base) as usize;
        (s < self.values.len()).then_some(s)
    }

    #[inline]
    fn block_slot(&self, b: BlockId) -> Option<usize> {
        let s = b.as_u32().wrapping_sub(self.block_base) as usize;
        (s < self.blocks.len() && self.blocks[s].name.is_some()).then_some(s)
    }

    fn block_node(&self, b: BlockId) -> Option<&BlockNode> {
        self.block_slot(b).map(|s| &self.blocks[s])
    }

    fn define_result(&mut self, inst: InstId) {
        if let Some(s) = self.results[inst.index()].expand().and_then(|v| self.value_slot(v)) {
            self.values[s].def = inst.as_u32();
        }
    }

    fn link_uses(&mut self, inst: InstId) {
        let (values, base) = (self.values.len(), self.value_base);
        let slot = move |v: ValueId| {
            let s = v.as_u32().wrapping_sub(base) as usize;
            (s < values).then_some(s)
        };
        self.uses.link(inst, &self.insts[inst.index()], &self.m.pool, slot);
    }

    fn unlink_uses(&mut self, inst: InstId) {
        let (values, base) = (self.values.len(), self.value_base);
        self.uses.unlink(inst, move |v: ValueId| {
            let s = v.as_u32().wrapping_sub(base) as usize;
            (s < values).then_some(s)
        });
    }

    /// A fresh value id of type `ty` (above every id of the function).
    fn new_value(&mut self, ty: TypeId, def: u32) -> ValueId {
        if self.values.is_empty() {
            // The function has no value yet: number from the first id above its parameters, if any.
            self.value_base = self.params.iter().map(|p| p.value.as_u32() + 1).max().unwrap_or(0);
        }
        let v = ValueId::from_u32(self.value_base + self.values.len() as u32);
        self.values.push(ValueNode { ty: PackedOption::some(ty), def });
        self.uses.grow_values(self.values.len());
        v
    }

    // ---- layout ------------------------------------------------------------------------------

    fn link_block_after(&mut self, b: BlockId, after: Option<BlockId>) {
        let Some(s) = self.block_slot(b) else { return };
        let next = match after {
            Some(a) => self.block_node(a).and_then(|n| n.next.expand()),
            None => self.first_block.expand(),
        };
        {
            let node = &mut self.blocks[s];
            node.live = true;
            node.prev = after.into();
            node.next = next.into();
        }
        match after.and_then(|a| self.block_slot(a)) {
            Some(a) => self.blocks[a].next = PackedOption::some(b),
            None => self.first_block = PackedOption::some(b),
        }
        match next.and_then(|n| self.block_slot(n)) {
            Some(n) => self.blocks[n].prev = PackedOption::some(b),
            None => self.last_block = PackedOption::some(b),
        }
    }

    fn unlink_block(&mut self, b: BlockId) {
        let Some(s) = self.block_slot(b) else { return };
        let BlockNode { prev, next, .. } = self.blocks[s];
        match prev.expand().and_then(|p| self.block_slot(p)) {
            Some(p) => self.blocks[p].next = next,
            None => self.first_block = next,
        }
        match next.expand().and_then(|n| self.block_slot(n)) {
            Some(n) => self.blocks[n].prev = prev,
            None => self.last_block = prev,
        }
        let node = &mut self.blocks[s];
        (node.live, node.prev, node.next) = (false, PackedOption::NONE, PackedOption::NONE);
    }

    /// Puts detached instruction `inst` at `at`.
    fn attach(&mut self, inst: InstId, at: Position) {
        let (block, prev, next) = match at {
            Position::Before(i) => {
                let n = self.links[i.index()];
                (n.block, n.prev, PackedOption::some(i))
            }
            Position::After(i) => {
                let n = self.links[i.index()];
                (n.block, PackedOption::some(i), n.next)
            }
            Position::Start(b) => {
                let first = self.block_node(b).map_or(PackedOption::NONE, |n| n.first);
                (PackedOption::some(b), PackedOption::NONE, first)
            }
            Position::End(b) => {
                let last = self.block_node(b).map_or(PackedOption::NONE, |n| n.last);
                (PackedOption::some(b), last, PackedOption::NONE)
            }
        };
        let Some(s) = block.expand().and_then(|b| self.block_slot(b)) else { return };
        self.links[inst.index()] = InstNode { block, prev, next };
        match prev.expand() {
            Some(p) => self.links[p.index()].next = PackedOption::some(inst),
            None => self.blocks[s].first = PackedOption::some(inst),
        }
        match next.expand() {
            Some(n) => self.links[n.index()].prev = PackedOption::some(inst),
            None => self.blocks[s].last = PackedOption::some(inst),
        }
    }

    /// Takes `inst` out of the layout (its record and result stay).
    fn detach(&mut self, inst: InstId) {
        let InstNode { block, prev, next } = self.links[inst.index()];
        let Some(s) = block.expand().and_then(|b| self.block_slot(b)) else { return };
        match prev.expand() {
            Some(p) => self.links[p.index()].next = next,
            None => self.blocks[s].first = next,
        }
        match next.expand() {
            Some(n) => self.links[n.index()].prev = prev,
            None => self.blocks[s].last = prev,
        }
        self.links[inst.index()] = DETACHED;
    }

    // ---- inspection --------------------------------------------------------------------------

    /// The module (types, strings, constants, declarations).
    pub fn module(&self) -> &Module {
        self.m
    }

    /// The module's type table, to intern types for new instructions.
    pub fn types_mut(&mut self) -> &mut TypeTable {
        &mut self.m.types
    }

    /// Interns a block name or trap reason in the module's string table.
    pub fn intern(&mut self, text: &str) -> StrId {
        self.m.strings.intern(text)
    }

    /// Stores an operand list (call arguments, gep indices, phi `(value, block)`
    /// pairs, switch `(constant, block)` pairs, `memcpy`/`memset` operands).
    pub fn make_list(&mut self, items: &[u32]) -> EntityList {
        self.m.pool.make(items)
    }

    /// The elements of an operand list.
    pub fn list(&self, list: EntityList) -> &[u32] {
        self.m.pool.get(list)
    }

    /// The record of `const T value`, for [`FunctionEditor::insert`] (its result type is `T`).
    pub fn constant_data(&mut self, value: ConstValue) -> InstData {
        match encode_const(value) {
            Some((kind, bits)) => InstData::Const { kind, bits },
            None => {
                let id = crate::entity::ConstId::new(self.m.consts.len());
                self.m.consts.push(value);
                InstData::ConstWide { id }
            }
        }
    }

    /// The function's parameters.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The entry block.
    pub fn entry(&self) -> BlockId {
        self.entry
    }

    /// Makes `block` the entry block.
    pub fn set_entry(&mut self, block: BlockId) {
        self.entry = block;
    }

    /// The blocks in layout order.
    pub fn blocks(&self) -> Vec<BlockId> {
        let mut out = Vec::new();
        let mut at = self.first_block.expand();
        while let Some(b) = at {
            out.push(b);
            at = self.block_node(b).and_then(|n| n.next.expand());
        }
        out
    }

    /// Whether `block` is a block of the function (in its layout).
    pub fn has_block(&self, block: BlockId) -> bool {
        self.block_node(block).is_some_and(|n| n.live)
    }

    /// The name of `block` (empty when it has none).
    pub fn block_name(&self, block: BlockId) -> &str {
        self.block_node(block).and_then(|n| n.name.expand()).map_or("", |s| self.m.str(s))
    }

    /// The instructions of `block` in order.
    pub fn block_insts(&self, block: BlockId) -> BlockInsts<'_> {
        BlockInsts { links: &self.links, at: self.block_node(block).and_then(|n| n.first.expand()) }
    }

    /// The first instruction of `block`.
    pub fn first_inst(&self, block: BlockId) -> Option<InstId> {
        self.block_node(block).and_then(|n| n.first.expand())
    }

    /// The last instruction of `block` (its terminator in well-formed IR).
    pub fn last_inst(&self, block: BlockId) -> Option<InstId> {
        self.block_node(block).and_then(|n| n.last.expand())
    }

    /// The instruction after `inst` in its block.
    pub fn next_inst(&self, inst: InstId) -> Option<InstId> {
        self.links.get(inst.index()).and_then(|n| n.next.expand())
    }

    /// The instruction before `inst` in its block.
    pub fn prev_inst(&self, inst: InstId) -> Option<InstId> {
        self.links.get(inst.index()).and_then(|n| n.prev.expand())
    }

    /// The block holding `inst`; none once it was removed.
    pub fn inst_block(&self, inst: InstId) -> Option<BlockId> {
        self.links.get(inst.index()).and_then(|n| n.block.expand())
    }

    /// The record of `inst` (panics for an id the editor never gave out, like indexing).
    pub fn inst(&self, inst: InstId) -> &InstData {
        &self.insts[inst.index()]
    }

    /// The value `inst` defines.
    pub fn inst_result(&self, inst: InstId) -> Option<ValueId> {
        self.results.get(inst.index()).and_then(|r| r.expand())
    }

    /// The type of value `v`.
    pub fn value_type(&self, v: ValueId) -> Option<TypeId> {
        self.value_slot(v).and_then(|s| self.values[s].ty.expand())
    }

    /// Where `v` is defined, if anywhere.
    pub fn value_def(&self, v: ValueId) -> Option<ValueDef> {
        match self.values[self.value_slot(v)?].def {
            NO_DEF => None,
            PARAM_DEF => self.params.iter().position(|p| p.value == v).map(ValueDef::Param),
            inst => Some(ValueDef::Inst(InstId::from_u32(inst))),
        }
    }

    /// The instruction defining `v`, if an instruction does.
    pub fn inst_of(&self, v: ValueId) -> Option<InstId> {
        match self.value_def(v)? {
            ValueDef::Inst(i) => Some(i),
            ValueDef::Param(_) => None,
        }
    }

    /// The instructions using `v`, once per use (`add %x, %x` twice).
    pub fn users(&self, v: ValueId) -> Users<'_> {
        self.uses.users(self.value_slot(v).unwrap_or(usize::MAX))
    }

    /// The number of uses of `v`.
    pub fn use_count(&self, v: ValueId) -> usize {
        self.value_slot(v).map_or(0, |s| self.uses.count(s))
    }

    /// The blocks the terminator of `block` branches to, in order (a block may repeat).
    pub fn successors(&self, block: BlockId) -> Vec<BlockId> {
        let mut out = Vec::new();
        if let Some(t) = self.last_inst(block) {
            self.insts[t.index()].for_each_successor(&self.m.pool, |s| out.push(s));
        }
        out
    }

    /// The leading phis of `block`.
    pub fn phis(&self, block: BlockId) -> Vec<InstId> {
        self.block_insts(block).take_while(|&i| matches!(self.insts[i.index()], InstData::Phi { .. })).collect()
    }

    // ---- editing instructions ---------------------------------------------------------------

    /// Inserts an instruction at `at`, defining a fresh value of type `result`
    /// if given; returns the instruction and the value.
    pub fn insert(&mut self, at: Position, data: InstData, result: Option<TypeId>) -> (InstId, Option<ValueId>) {
        let inst = InstId::new(self.insts.len());
        self.insts.push(data);
        self.links.push(DETACHED);
        let value = result.map(|ty| self.new_value(ty, inst.as_u32()));
        self.results.push(value.into());
        self.attach(inst, at);
        self.link_uses(inst);
        (inst, value)
    }

    /// Removes `inst` from its block. Its result, if any, is left without a
    /// definition: replace its uses first.
    pub fn remove_inst(&mut self, inst: InstId) {
        if self.inst_block(inst).is_none() {
            return;
        }
        self.detach(inst);
        self.unlink_uses(inst);
        if let Some(s) = self.inst_result(inst).and_then(|v| self.value_slot(v)) {
            self.values[s].def = NO_DEF;
        }
    }

    /// Replaces the record of `inst` (its result value, if any, stays, with its type).
    pub fn replace_inst(&mut self, inst: InstId, data: InstData) {
        let live = self.inst_block(inst).is_some();
        if live {
            self.unlink_uses(inst);
        }
        self.insts[inst.index()] = data;
        if live {
            self.link_uses(inst);
        }
    }

    /// Makes every use of `old` a use of `new`.
    pub fn replace_all_uses(&mut self, old: ValueId, new: ValueId) {
        let Some(from) = self.value_slot(old) else { return };
        if old == new {
            return;
        }
        let to = self.value_slot(new);
        for inst in self.uses.move_all(from, new, to) {
            self.insts[inst.index()].map_values(&mut self.m.pool, |v| if v == old { new } else { v });
        }
    }

    /// Moves `inst` to `at` (uses and result unchanged).
    pub fn move_inst(&mut self, inst: InstId, at: Position) {
        if self.inst_block(inst).is_none() || at == Position::Before(inst) || at == Position::After(inst) {
            return;
        }
        self.detach(inst);
        self.attach(inst, at);
    }

    // ---- editing blocks -----------------------------------------------------------------------

    /// A new, empty block named `name` placed after `after` (or first when `None`).
    pub fn create_block_after(&mut self, after: Option<BlockId>, name: &str) -> BlockId {
        let name = self.m.strings.intern(name);
        if self.blocks.is_empty() {
            self.block_base = 0;
        }
        let b = BlockId::from_u32(self.block_base + self.blocks.len() as u32);
        self.blocks.push(BlockNode { name: PackedOption::some(name), ..NO_BLOCK });
        self.link_block_after(b, after);
        b
    }

    /// A new, empty block named `name` at the end of the layout.
    pub fn create_block(&mut self, name: &str) -> BlockId {
        let last = self.last_block.expand();
        self.create_block_after(last, name)
    }

    /// Splits the block holding `at`: `at` and the instructions after it move
    /// to a new block named `name`, placed right after; the old block ends in
    /// `br` to it, and the phis of the moved terminator's successors now name
    /// the new block as their predecessor. Returns the new block.
    pub fn split_block(&mut self, at: InstId, name: &str) -> Option<BlockId> {
        let old = self.inst_block(at)?;
        let new = self.create_block_after(Some(old), name);
        let mut moving = Some(at);
        while let Some(inst) = moving {
            moving = self.next_inst(inst);
            self.detach(inst);
            self.attach(inst, Position::End(new));
        }
        self.insert(Position::End(old), InstData::Br { dest: new }, None);
        for succ in self.successors(new) {
            self.replace_phi_predecessor(succ, old, new);
        }
        Some(new)
    }

    /// Removes `block` and its instructions from the function, and its inputs
    /// from the phis of the blocks it branched to. Values it defined are left
    /// without definitions; branches to it must be retargeted first.
    pub fn remove_block(&mut self, block: BlockId) {
        if !self.has_block(block) {
            return;
        }
        let mut successors = self.successors(block);
        successors.sort_unstable();
        successors.dedup();
        for succ in successors {
            for phi in self.phis(succ) {
                self.remove_phi_input(phi, block);
            }
        }
        let insts: Vec<InstId> = self.block_insts(block).collect();
        for inst in insts {
            self.remove_inst(inst);
        }
        self.unlink_block(block);
    }

    /// Moves `block` to right after `after` in the layout (first when `None`).
    pub fn move_block_after(&mut self, block: BlockId, after: Option<BlockId>) {
        if !self.has_block(block) || after == Some(block) {
            return;
        }
        self.unlink_block(block);
        self.link_block_after(block, after);
    }

    /// Makes the terminator of `block` branch to `to` wherever it branched to
    /// `from`. Phis are the caller's: `from`'s inputs from `block` (see
    /// [`FunctionEditor::remove_phi_input`]) and `to`'s (see
    /// [`FunctionEditor::add_phi_input`]).
    pub fn retarget(&mut self, block: BlockId, from: BlockId, to: BlockId) {
        if let Some(t) = self.last_inst(block) {
            self.insts[t.index()].map_successors(&mut self.m.pool, |s| if s == from { to } else { s });
        }
    }

    /// Adds the input `[value, pred]` to phi `phi`.
    pub fn add_phi_input(&mut self, phi: InstId, value: ValueId, pred: BlockId) {
        let InstData::Phi { inputs } = self.insts[phi.index()] else { return };
        let inputs = self.m.pool.extend(inputs, &[value.as_u32(), pred.as_u32()]);
        self.replace_inst(phi, InstData::Phi { inputs });
    }

    /// Removes every input of phi `phi` that comes from `pred`.
    pub fn remove_phi_input(&mut self, phi: InstId, pred: BlockId) {
        let InstData::Phi { inputs } = self.insts[phi.index()] else { return };
        let pairs = self.m.pool.get_mut(inputs);
        let mut kept = 0;
        for i in (0..pairs.len() / 2).map(|k| 2 * k) {
            if pairs[i + 1] != pred.as_u32() {
                pairs.copy_within(i..i + 2, kept);
                kept += 2;
            }
        }
        if kept == pairs.len() {
            return;
        }
        self.unlink_uses(phi);
        let inputs = self.m.pool.truncate(inputs, kept);
        self.insts[phi.index()] = InstData::Phi { inputs };
        self.link_uses(phi);
    }

    /// Makes the phis of `block` name `new` wherever they named predecessor `old`.
    pub fn replace_phi_predecessor(&mut self, block: BlockId, old: BlockId, new: BlockId) {
        for phi in self.phis(block) {
            let InstData::Phi { inputs } = self.insts[phi.index()] else { continue };
            for pair in self.m.pool.get_mut(inputs).chunks_exact_mut(2) {
                if pair[1] == old.as_u32() {
                    pair[1] = new.as_u32();
                }
            }
        }
    }

    /// Heap bytes held by the editor's own tables (capacity; the module's are not counted).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.params.capacity() * size_of::<Param>()
            + self.insts.capacity() * size_of::<InstData>()
            + self.results.capacity() * 4
            + self.links.capacity() * size_of::<InstNode>()
            + self.values.capacity() * size_of::<ValueNode>()
            + self.blocks.capacity() * size_of::<BlockNode>()
            + self.uses.heap_bytes()
    }

    /// Writes the function back into the module.
    pub fn finish(self) {
        install::install(self);
    }

    /// Checks the use lists against a recount of every live instruction's
    /// operands (for tests of passes and of this editor).
    #[doc(hidden)]
    pub fn use_lists_are_exact(&self) -> bool {
        let mut counts = vec![0usize; self.values.len()];
        for b in self.blocks() {
            for inst in self.block_insts(b) {
                for v in self.insts[inst.index()].values(&self.m.pool) {
                    if let Some(s) = self.value_slot(v) {
                        counts[s] += 1;
                    }
                }
            }
        }
        counts.iter().enumerate().all(|(s, &n)| {
            let v = ValueId::from_u32(self.value_base + s as u32);
            self.uses.count(s) == n
                && self.users(v).count() == n
                && self
                    .users(v)
                    .all(|i| self.inst_block(i).is_some() && self.insts[i.index()].values(&self.m.pool).any(|x| x == v))
        })
    }
}

/// Iterator over a block's instructions ([`FunctionEditor::block_insts`]).
pub struct BlockInsts<'a> {
    links: &'a [InstNode],
    at: Option<InstId>,
}

impl Iterator for BlockInsts<'_> {
    type Item = InstId;

    fn next(&mut self) -> Option<InstId> {
        let inst = self.at?;
        self.at = self.links.get(inst.index()).and_then(|n| n.next.expand());
        Some(inst)
    }
}
