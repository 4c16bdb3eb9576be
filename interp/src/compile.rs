//! Translation of a verified module into the pre-resolved [`Program`] form.
//!
//! Each function is translated once. Values get frame slots: parameters first,
//! then the constants (whose slots form the frame's constant template), then
//! every other result, then scratch slots for phi moves. Two kinds of values
//! share another value's slot instead: a value used only as a phi input on a
//! `br` edge, where the phi is dead once the value exists (computed straight
//! into the phi's slot, see [`Compiler::coalesce`]), and the result of a cast
//! that is the identity on canonical slots ([`Compiler::aliases`]). Each other
//! instruction becomes one [`Op`] with its operands resolved to slots; a
//! compare whose only use is the next `cbr` fuses with it (one op per
//! comparison, [`BranchCmp`]), and an indexed `gep` whose only use is the next
//! scalar load or store fuses with it (with ops of their own for bytes and
//! 8-byte scalars). Edges into blocks with phis get moves — inline before a
//! `br`, in a stub for `cbr`/`switch` — and a `br` into a loop header's
//! compare-and-branch becomes a latch doing both, together with up to two
//! `add`s just before it (the loop's increment and an accumulator's,
//! [`BranchKind`]).
//! Parallel-move hazards (a phi source that another move of the edge
//! overwrites) go through scratch slots. Finally the segments' step costs and
//! the per-op error tables are computed (see [`crate::program`]) and every
//! operand is checked to lie inside the frame.
//!
//! Translation relies on the verifier's guarantees (operand types, phi inputs,
//! constant gep field indices) but never panics when they do not hold: a
//! function it cannot translate is recorded as unsupported with the reason, and
//! calling it reports [`crate::ExecError::Unsupported`].

use ir::layout::layout_of_id;
use ir::{
    BlockId, CmpOp, ConstValue, FCmpPred, Function, ICmpPred, InstData, InstId, Module, Opcode, TypeId, TypeKey,
    ValueId,
};

use crate::error::Site;
use crate::numeric::{CheckedOp, FloatOp, FloatPred, IntOp, IntTy, Norm};
use crate::program::{
    function_address, AggLayout, Branch, BranchCmp, BranchKind, CallSite, CastKind, DeclInfo, Extend, FuncInfo,
    GepIndex, GepInfo, GepTerm, IntPred, LatchInfo, Leaf, Op, PcInfo, Program, SwitchTable,
};
use crate::shape::{Kind, Shapes, MAX_DEPTH};

/// Largest frame, in slots.
const MAX_FRAME_SLOTS: u64 = 1 << 24;
const NONE: u32 = u32::MAX;
/// Marks, during slot assignment, a value that will share its phi's slot.
const COALESCED: u32 = u32::MAX - 1;
/// `NotExecutable` codes.
pub(crate) const NOT_EXEC_UNDEF: u8 = 0;
pub(crate) const NOT_EXEC_PHI: u8 = 1;

type Fail = String;

/// Translates `m` (which must have passed the verifier).
pub(crate) fn compile(m: &Module, shapes: &Shapes) -> Program {
    let mut p = Program::default();
    let bodies: Vec<(u32, u32)> = {
        let mut v: Vec<(u32, u32)> = m.functions().map(|f| (f.id.as_u32(), f.index as u32)).collect();
        v.sort_unstable();
        v
    };
    for d in m.declarations() {
        let body = bodies.binary_search_by_key(&d.id.as_u32(), |&(id, _)| id).ok().map(|i| bodies[i].1);
        p.decls.list.push(DeclInfo {
            id: d.id,
            sig: d.sig,
            name: d.name.to_string(),
            link_name: d.link_name.map(str::to_string),
            body,
            host: None,
        });
    }
    let mut by_id: Vec<(u32, u32)> = p.decls.list.iter().enumerate().map(|(i, d)| (d.id.as_u32(), i as u32)).collect();
    by_id.sort_unstable();
    p.decls.by_id = by_id;
    let mut cx = Compiler {
        m,
        shapes,
        p,
        func: None,
        slot_of: Vec::new(),
        uses: Vec::new(),
        block_local: Vec::new(),
        stamp: Vec::new(),
    };
    for f in m.functions() {
        cx.function(&f);
    }
    cx.p.max_frame = cx.p.funcs.iter().map(|f| f.frame_slots).max().unwrap_or(0);
    cx.p
}

struct Compiler<'a> {
    m: &'a Module,
    shapes: &'a Shapes,
    p: Program,
    /// The function being translated (value, block and instruction ids are scoped to it).
    func: Option<Function<'a>>,
    /// Scratch tables by raw value and block id, grown to cover each function's
    /// ids and reset after it.
    slot_of: Vec<u32>,
    uses: Vec<u32>,
    block_local: Vec<u32>,
    stamp: Vec<u32>,
}

/// Per-function translation state.
struct FnState {
    func_index: u32,
    id: ir::FunctionId,
    const_slot: u32,
    template: Vec<u64>,
    temps: u32,
    blocks: Vec<BlockId>,
    block_pc: Vec<u32>,
    block_site: Vec<u32>,
    phi_count: Vec<u32>,
    /// Pending branch targets: (pc, which target, successor local index).
    fixups: Vec<(u32, u8, u32)>,
    /// Switch tables whose targets are still local block indices: (table, predecessor).
    switch_fixups: Vec<(u32, u32)>,
    /// Edge stubs: (predecessor, successor, pc).
    stubs: Vec<(u32, u32, u32)>,
    values: Vec<ValueId>,
    /// Cast results sharing their operand's slot (sorted): never executed.
    aliased: Vec<ValueId>,
}

impl<'a> Compiler<'a> {
    /// The function being translated.
    fn f(&self) -> Result<Function<'a>, Fail> {
        self.func.ok_or_else(|| "no function is being translated".to_string())
    }

    fn function(&mut self, f: &Function<'a>) {
        self.func = Some(*f);
        let values = f.value_base() as usize + f.value_slots();
        if self.slot_of.len() < values {
            self.slot_of.resize(values, NONE);
            self.uses.resize(values, 0);
        }
        let blocks = f.blocks.iter().map(|b| b.as_u32() as usize + 1).max().unwrap_or(0);
        if self.block_local.len() < blocks {
            self.block_local.resize(blocks, NONE);
        }
        let func_index = self.p.funcs.len() as u32;
        let code_start = self.p.code.len();
        self.p.funcs.push(FuncInfo {
            id: f.id,
            entry_pc: code_start as u32,
            frame_slots: 0,
            const_slot: 0,
            template: (0, 0),
            unsupported: None,
        });
        let mut st = FnState {
            func_index,
            id: f.id,
            const_slot: 0,
            template: Vec::new(),
            temps: 0,
            blocks: f.blocks.to_vec(),
            block_pc: Vec::new(),
            block_site: Vec::new(),
            phi_count: Vec::new(),
            fixups: Vec::new(),
            switch_fixups: Vec::new(),
            stubs: Vec::new(),
            values: Vec::new(),
            aliased: Vec::new(),
        };
        let result = self.try_function(f, &mut st);
        // Reset the scratch tables (by raw id, shared by all functions) this function touched.
        for v in st.values.drain(..) {
            if let Some(s) = self.slot_of.get_mut(ix(v)) {
                *s = NONE;
            }
            if let Some(u) = self.uses.get_mut(ix(v)) {
                *u = 0;
            }
        }
        for b in &st.blocks {
            if let Some(l) = self.block_local.get_mut(b.as_u32() as usize) {
                *l = NONE;
            }
        }
        if let Err(reason) = result {
            self.p.code.truncate(code_start);
            self.p.pc_info.truncate(code_start);
            self.p.entry_cost.truncate(code_start);
            let pc = self.p.code.len() as u32;
            let site = self.p.sites.len() as u32;
            self.p.sites.push(Site { function: f.id, block: f.entry, inst: 0, value: None });
            self.emit(Op::Unsupported { func: func_index }, 0, site);
            if let Some(fi) = self.p.funcs.get_mut(func_index as usize) {
                fi.entry_pc = pc;
                fi.frame_slots = 0;
                fi.unsupported = Some(reason);
            }
        }
    }

    fn emit(&mut self, op: Op, cover: u32, site: u32) -> u32 {
        let pc = self.p.code.len() as u32;
        self.p.code.push(op);
        self.p.pc_info.push(PcInfo { site, cover, after: 0 });
        self.p.entry_cost.push(0);
        pc
    }

    fn ty(&self, v: ValueId) -> Result<TypeId, Fail> {
        self.f()?.value_type(v).ok_or_else(|| format!("{v} has no type"))
    }

    fn slot(&self, v: ValueId) -> Result<u32, Fail> {
        match self.slot_of.get(ix(v)) {
            Some(&s) if s != NONE && s != COALESCED => Ok(s),
            _ => Err(format!("{v} is not defined in this function")),
        }
    }

    fn slots(&self, ty: TypeId) -> Result<u32, Fail> {
        self.shapes
            .slots(ty)
            .ok_or_else(|| format!("values of type {} are not supported", crate::shape::type_label(self.m.types(), ty)))
    }

    fn kind(&self, ty: TypeId) -> Result<Kind, Fail> {
        self.shapes
            .kind(ty)
            .ok_or_else(|| format!("{} is not a scalar type", crate::shape::type_label(self.m.types(), ty)))
    }

    fn int(&self, ty: TypeId) -> Result<IntTy, Fail> {
        self.kind(ty)?
            .int()
            .ok_or_else(|| format!("{} is not an integer type", crate::shape::type_label(self.m.types(), ty)))
    }

    fn try_function(&mut self, f: &Function<'_>, st: &mut FnState) -> Result<(), Fail> {
        let m = self.m;
        for (local, &b) in f.blocks.iter().enumerate() {
            if !f.has_block(b) {
                return Err(format!("block {b} does not belong to the function"));
            }
            if let Some(l) = self.block_local.get_mut(b.as_u32() as usize) {
                *l = local as u32;
            }
        }
        // ---- slots -------------------------------------------------------------
        for &b in f.blocks {
            for inst in f.block_insts(b) {
                f.inst(inst).for_each_value(m.pool(), |v| {
                    if let Some(u) = self.uses.get_mut(ix(v)) {
                        *u = u.saturating_add(1);
                    }
                });
            }
        }
        let coalesced = self.coalesce(f, st)?;
        let aliases = self.aliases(f, st, &coalesced)?;
        let mut next: u64 = 0;
        for p in f.params {
            let ty = self.ty(p.value)?;
            self.assign(st, p.value, ty, &mut next)?;
        }
        st.const_slot = next as u32;
        for &b in f.blocks {
            for inst in f.block_insts(b) {
                if is_constant(f.inst(inst)) {
                    if let Some(v) = f.inst_result(inst) {
                        let ty = self.ty(v)?;
                        self.assign(st, v, ty, &mut next)?;
                    }
                }
            }
        }
        let const_end = next;
        let mut max_phi_slots = 0u64;
        for &b in f.blocks {
            let mut phi_slots = 0u64;
            for inst in f.block_insts(b) {
                let data = f.inst(inst);
                if is_constant(data) {
                    continue;
                }
                if let Some(v) = f.inst_result(inst) {
                    let ty = self.ty(v)?;
                    if matches!(data, InstData::Phi { .. }) {
                        phi_slots += u64::from(self.slots(ty)?);
                    }
                    if self.slot_of.get(ix(v)) == Some(&COALESCED) {
                        continue;
                    }
                    self.assign(st, v, ty, &mut next)?;
                }
            }
            max_phi_slots = max_phi_slots.max(phi_slots);
        }
        for &(value, shared) in coalesced.iter().chain(&aliases) {
            let slot = self.slot(shared)?;
            if let Some(s) = self.slot_of.get_mut(ix(value)) {
                *s = slot;
            }
        }
        st.temps = next as u32;
        next += max_phi_slots;
        if next > MAX_FRAME_SLOTS {
            return Err(format!("the frame needs {next} slots (limit {MAX_FRAME_SLOTS})"));
        }
        st.template = vec![0; (const_end - u64::from(st.const_slot)) as usize];
        for &b in f.blocks {
            for inst in f.block_insts(b) {
                self.constant(st, inst)?;
            }
        }
        // ---- code ----------------------------------------------------------------
        st.phi_count = f
            .blocks
            .iter()
            .map(|&b| f.block_insts(b).take_while(|&i| matches!(f.inst(i), InstData::Phi { .. })).count() as u32)
            .collect();
        for (local, &b) in f.blocks.iter().enumerate() {
            self.block(st, local as u32, b)?;
        }
        let stubs_start = self.p.code.len() as u32;
        self.resolve_targets(st)?;
        // ---- segment costs ---------------------------------------------------------
        for local in 0..st.blocks.len() {
            let start = st.block_pc[local];
            let end = st.block_pc.get(local + 1).copied().unwrap_or(stubs_start);
            self.segments(start, end);
        }
        for &(_, succ, pc) in &st.stubs.clone() {
            let target_cost = self.p.entry_cost.get(st.block_pc[succ as usize] as usize).copied().unwrap_or(0);
            let phis = st.phi_count[succ as usize];
            let cost = phis + target_cost;
            let mut at = pc as usize;
            while let Some(op) = self.p.code.get(at) {
                let last = matches!(op, Op::JumpPhi { .. });
                if let Some(info) = self.p.pc_info.get_mut(at) {
                    info.after = if last { target_cost } else { cost };
                }
                if last {
                    break;
                }
                at += 1;
            }
            if let Some(c) = self.p.entry_cost.get_mut(pc as usize) {
                *c = cost;
            }
        }
        self.latches(code_start_of(st, stubs_start), stubs_start as usize);
        self.validate(code_start_of(st, stubs_start), self.p.code.len(), next as u32)?;
        let entry_local = self.local(f.entry)?;
        let template_start = self.p.templates.len() as u32;
        self.p.templates.extend_from_slice(&st.template);
        if let Some(fi) = self.p.funcs.get_mut(st.func_index as usize) {
            fi.entry_pc = st.block_pc[entry_local as usize];
            fi.frame_slots = next as u32;
            fi.const_slot = st.const_slot;
            fi.template = (template_start, st.template.len() as u32);
        }
        Ok(())
    }

    /// Chooses values that can be computed straight into the slot of the phi
    /// they feed, so the edge needs no move: a value `v` defined by an ordinary
    /// instruction in block `b` whose terminator is `br h`, used only as phi
    /// `p`'s input from `b`, where `p` is not used after `v`'s definition (nor
    /// by another phi input on that edge). Then `p`'s old value is dead when `v`
    /// is written, and every other value sharing `p`'s slot lives in another
    /// block. Operations read all operands before writing, so `v`'s own
    /// instruction may read `p`.
    fn coalesce(&mut self, f: &Function<'_>, st: &mut FnState) -> Result<Vec<(ValueId, ValueId)>, Fail> {
        let m = self.m;
        let mut chosen = Vec::new();
        for &b in f.blocks {
            let insts: Vec<InstId> = f.block_insts(b).collect();
            let Some(&last) = insts.last() else { continue };
            let InstData::Br { dest } = *f.inst(last) else { continue };
            let phis: Vec<(ValueId, ValueId)> = f
                .block_insts(dest)
                .map_while(|i| match *f.inst(i) {
                    InstData::Phi { inputs } => Some((i, inputs)),
                    _ => None,
                })
                .filter_map(|(i, inputs)| {
                    let input = m.list(inputs).chunks_exact(2).find(|pair| pair[1] == b.as_u32())?[0];
                    Some((f.inst_result(i)?, ValueId::from_u32(input)))
                })
                .collect();
            for &(phi, value) in &phis {
                if self.uses.get(ix(value)) != Some(&1) {
                    continue;
                }
                let Some(def) = insts.iter().position(|&i| f.inst_result(i) == Some(value)) else { continue };
                let data = f.inst(insts[def]);
                if is_constant(data) || matches!(data, InstData::Phi { .. }) {
                    continue;
                }
                let mut used_later = phis.iter().any(|&(other, input)| other != phi && input == phi);
                for &i in &insts[def + 1..] {
                    f.inst(i).for_each_value(m.pool(), |v| used_later |= v == phi);
                }
                if used_later || self.ty(phi)? != self.ty(value)? {
                    continue;
                }
                if let Some(s) = self.slot_of.get_mut(ix(value)) {
                    *s = COALESCED;
                }
                st.values.push(value);
                chosen.push((value, phi));
            }
        }
        Ok(chosen)
    }

    /// Chooses casts that are the identity on canonical slots — `zext` from an
    /// unsigned type or `bool`, `sext` between signed types, same-slot bitcasts
    /// of 64/128-bit integers and of pointers — whose result can share its
    /// operand's slot, so no operation runs. The operand must be written only by
    /// its own definition: not a phi, not a value sharing a phi's slot, not
    /// itself shared.
    fn aliases(
        &mut self,
        f: &Function<'_>,
        st: &mut FnState,
        coalesced: &[(ValueId, ValueId)],
    ) -> Result<Vec<(ValueId, ValueId)>, Fail> {
        // Values whose slot is written by something other than their definition.
        let mut rewritten: Vec<ValueId> = coalesced.iter().flat_map(|&(v, p)| [v, p]).collect();
        for &b in f.blocks {
            for inst in f.block_insts(b) {
                if let (InstData::Phi { .. }, Some(v)) = (f.inst(inst), f.inst_result(inst)) {
                    rewritten.push(v);
                }
            }
        }
        rewritten.sort_unstable();
        let mut chosen = Vec::new();
        for &b in f.blocks {
            for inst in f.block_insts(b) {
                let InstData::Cast { op, arg } = *f.inst(inst) else { continue };
                let Some(result) = f.inst_result(inst) else { continue };
                if rewritten.binary_search(&arg).is_ok() || self.slot_of.get(ix(result)) != Some(&NONE) {
                    continue;
                }
                if self.slot_of.get(ix(arg)) == Some(&COALESCED) {
                    continue;
                }
                let (from, to) = (self.kind(self.ty(arg)?)?, self.kind(self.ty(result)?)?);
                let int = |k: Kind| k.int();
                let identity = match op {
                    Opcode::Zext => (from == Kind::Bool || int(from).is_some_and(|t| !t.signed)) && int(to).is_some(),
                    Opcode::Sext => int(from).is_some_and(|t| t.signed) && int(to).is_some_and(|t| t.signed),
                    Opcode::Bitcast => {
                        (from == Kind::Ptr && to == Kind::Ptr)
                            || (int(from).is_some_and(|t| t.bits >= 64) && int(to).is_some_and(|t| t.bits >= 64))
                    }
                    _ => false,
                };
                if identity && from.slots() == to.slots() {
                    chosen.push((result, arg));
                }
            }
        }
        // An alias of an alias would read a slot not yet resolved: keep chains out.
        let mut results: Vec<ValueId> = chosen.iter().map(|&(r, _)| r).collect();
        results.sort_unstable();
        chosen.retain(|&(_, arg)| results.binary_search(&arg).is_err());
        for &(result, _) in &chosen {
            if let Some(s) = self.slot_of.get_mut(ix(result)) {
                *s = COALESCED;
            }
            st.values.push(result);
        }
        st.aliased.extend(chosen.iter().map(|&(r, _)| r));
        st.aliased.sort_unstable();
        Ok(chosen)
    }

    fn assign(&mut self, st: &mut FnState, v: ValueId, ty: TypeId, next: &mut u64) -> Result<(), Fail> {
        let n = self.slots(ty)?;
        let slot = self.slot_of.get_mut(ix(v)).ok_or_else(|| format!("{v} is out of range"))?;
        if *slot != NONE && *slot != COALESCED {
            return Err(format!("{v} is defined twice"));
        }
        *slot = *next as u32;
        *next += u64::from(n);
        if *next > MAX_FRAME_SLOTS {
            return Err(format!("the frame needs more than {MAX_FRAME_SLOTS} slots"));
        }
        st.values.push(v);
        Ok(())
    }

    fn local(&self, b: BlockId) -> Result<u32, Fail> {
        match self.block_local.get(b.as_u32() as usize) {
            Some(&l) if l != NONE => Ok(l),
            _ => Err(format!("block {b} is not in this function")),
        }
    }

    /// Writes the template slots of a constant-like instruction.
    fn constant(&mut self, st: &mut FnState, inst: InstId) -> Result<(), Fail> {
        let (m, f) = (self.m, self.f()?);
        let data = f.inst(inst);
        let Some(v) = f.inst_result(inst) else { return Ok(()) };
        let slots = match *data {
            InstData::Const { .. } | InstData::ConstWide { .. } => {
                let value = m.const_payload(data).ok_or("missing constant payload")?;
                const_slots(value, self.kind(self.ty(v)?)?)
            }
            InstData::ConstDecl { decl } => const_slots(m.const_decl(decl).value, self.kind(self.ty(v)?)?),
            InstData::FuncRef { func, .. } => [func.expand().map_or(0, function_address), 0],
            _ => return Ok(()),
        };
        let n = self.slots(self.ty(v)?)? as usize;
        let at = (self.slot(v)? - st.const_slot) as usize;
        if let Some(dst) = st.template.get_mut(at..at + n) {
            dst.copy_from_slice(&slots[..n]);
        }
        Ok(())
    }

    /// The constant integer value of `v` if a constant of this function defines it
    /// (constant slots are exactly the template's range).
    fn const_int(&self, st: &FnState, v: ValueId) -> Option<i128> {
        let int = self.shapes.kind(self.func?.value_type(v)?)?.int()?;
        let at = self.slot(v).ok()?.checked_sub(st.const_slot)? as usize;
        let lo = *st.template.get(at)?;
        Some(if int.bits == 128 {
            let raw = u128::from(lo) | (u128::from(*st.template.get(at + 1)?) << 64);
            if int.signed {
                raw as i128
            } else {
                i128::try_from(raw).ok()?
            }
        } else if int.signed {
            i128::from(lo as i64)
        } else {
            i128::from(lo)
        })
    }

    fn block(&mut self, st: &mut FnState, local: u32, b: BlockId) -> Result<(), Fail> {
        let f = self.f()?;
        st.block_pc.push(self.p.code.len() as u32);
        let site_base = self.p.sites.len() as u32;
        st.block_site.push(site_base);
        let insts: Vec<InstId> = f.block_insts(b).collect();
        for (k, &inst) in insts.iter().enumerate() {
            self.p.sites.push(Site { function: st.id, block: b, inst: k as u32, value: f.inst_result(inst) });
        }
        let phis = st.phi_count.get(local as usize).copied().unwrap_or(0) as usize;
        let mut pending = 0u32;
        // The last emitted op, if it is a fusable compare or gep: (pc, its cover, result).
        let mut last_cmp: Option<(u32, u32, ValueId)> = None;
        let mut last_gep: Option<(u32, u32, ValueId)> = None;
        for (k, &inst) in insts.iter().enumerate().skip(phis) {
            let data = *f.inst(inst);
            let site = site_base + k as u32;
            if is_constant(&data) || f.inst_result(inst).is_some_and(|v| st.aliased.binary_search(&v).is_ok()) {
                pending += 1;
                continue;
            }
            if let (InstData::Cbr { cond, dests }, Some((pc, cover, value))) = (data, last_cmp) {
                if value == cond && self.uses.get(ix(cond)) == Some(&1) {
                    if let Some(Op::Cmp { pred, a, b, .. }) = self.p.code.get(pc as usize).copied() {
                        let (cmp, a, b, swap) = BranchCmp::of(pred, a, b);
                        let (then_l, else_l) = (self.local(dests[0])?, self.local(dests[1])?);
                        let (then_l, else_l) = if swap { (else_l, then_l) } else { (then_l, else_l) };
                        self.p.branches.push(Branch::default());
                        let info = self.p.branches.len() as u32 - 1;
                        self.p.code[pc as usize] = Op::compare_branch(BranchKind::Branch, cmp, a, b, info);
                        self.p.pc_info[pc as usize] = PcInfo { site, cover: cover + pending + 1, after: 0 };
                        st.fixups.push((pc, 0, then_l));
                        st.fixups.push((pc, 1, else_l));
                        pending = 0;
                        continue;
                    }
                }
            }
            if let (Some((pc, cover, gep)), 0) = (last_gep, pending) {
                if self.uses.get(ix(gep)) == Some(&1) {
                    if let Some(op) = self.fuse_access(pc, gep, &data, f.inst_result(inst))? {
                        self.p.code[pc as usize] = op;
                        self.p.pc_info[pc as usize] = PcInfo { site, cover: cover + 1, after: 0 };
                        last_gep = None;
                        last_cmp = None;
                        continue;
                    }
                }
            }
            if let InstData::Br { dest } = data {
                let succ = self.local(dest)?;
                let count = st.phi_count.get(succ as usize).copied().unwrap_or(0);
                if count > 0 {
                    // The phi moves run at the end of this block; the jump charges
                    // their steps together with the target's first segment.
                    self.edge_moves(st, local, succ, site)?;
                    let pc = self.emit(Op::JumpPhis { target: 0, count, site: 0 }, pending + 1, site);
                    st.fixups.push((pc, 2, succ));
                    pending = 0;
                    continue;
                }
            }
            let fixups_from = st.fixups.len();
            let op = self.inst(st, local, inst, &data)?;
            let cover = pending + 1;
            pending = 0;
            let pc = self.emit(op, cover, site);
            last_cmp = match op {
                Op::Cmp { .. } => f.inst_result(inst).map(|v| (pc, cover, v)),
                _ => None,
            };
            last_gep = match op {
                Op::GepIndex { .. } => f.inst_result(inst).map(|v| (pc, cover, v)),
                _ => None,
            };
            // Branch targets recorded by `inst` learn their op's pc now.
            for fix in st.fixups.get_mut(fixups_from..).unwrap_or(&mut []) {
                fix.0 = pc;
            }
        }
        Ok(())
    }

    /// A load or store through the result of the [`Op::GepIndex`] at `pc` (its
    /// only use), fused with it; `None` if `data` is not such an access. The
    /// access's size and alignment join the gep's [`GepIndex`], which no other
    /// op shares.
    fn fuse_access(
        &mut self,
        pc: u32,
        gep: ValueId,
        data: &InstData,
        result: Option<ValueId>,
    ) -> Result<Option<Op>, Fail> {
        let Some(Op::GepIndex { index, info, .. }) = self.p.code.get(pc as usize).copied() else {
            return Ok(None);
        };
        let wide = |k: Kind| matches!(k, Kind::I64 | Kind::U64 | Kind::F64 | Kind::FnPtr);
        let (op, kind, align) = match *data {
            InstData::Memory { op: Opcode::Load, align, ty, ptr } if ptr.expand() == Some(gep) => {
                let (Some(kind), Some(result)) = (self.shapes.kind(ty), result) else { return Ok(None) };
                let dst = self.slot(result)?;
                let op = match kind {
                    Kind::U8 => Op::LoadElemU8 { dst, index, info },
                    k if wide(k) => Op::LoadElem64 { dst, index, info },
                    _ => Op::LoadElem { kind: kind as u8, dst, index, info },
                };
                (op, kind, align)
            }
            InstData::Store { align, value, ptr } if ptr == gep && value != gep => {
                let Some(kind) = self.shapes.kind(self.ty(value)?) else { return Ok(None) };
                let src = self.slot(value)?;
                let op = match kind {
                    Kind::U8 | Kind::I8 | Kind::U1 | Kind::Bool => Op::StoreElemByte { src, index, info },
                    k if wide(k) => Op::StoreElem64 { src, index, info },
                    _ => Op::StoreElem { kind: kind as u8, src, index, info },
                };
                (op, kind, align)
            }
            _ => return Ok(None),
        };
        let Some(g) = self.p.gep_index.get_mut(info as usize) else { return Ok(None) };
        g.size = kind.size();
        g.align_mask = (1u64 << log2(align)) - 1;
        Ok(Some(op))
    }

    fn inst(&mut self, st: &mut FnState, local: u32, inst: InstId, data: &InstData) -> Result<Op, Fail> {
        let m = self.m;
        let result = self.f()?.inst_result(inst);
        let dst = match result {
            Some(v) => self.slot(v)?,
            None => 0,
        };
        let result_ty = match result {
            Some(v) => self.ty(v)?,
            None => TypeId::VOID,
        };
        Ok(match *data {
            InstData::Nullary { .. } => Op::NotExecutable { what: NOT_EXEC_UNDEF },
            InstData::Const { .. } | InstData::ConstWide { .. } | InstData::ConstDecl { .. } | InstData::Phi { .. } => {
                return Err("internal: constant or phi emitted as an operation".into())
            }
            InstData::Unary { op: Opcode::Mov, arg } => mov(dst, self.slot(arg)?, self.slots(result_ty)?),
            InstData::Unary { arg, .. } => {
                let int = self.int(result_ty)?;
                if int.bits == 128 {
                    Op::Not128 { dst, a: self.slot(arg)? }
                } else {
                    Op::Not { dst, a: self.slot(arg)?, norm: int.norm() }
                }
            }
            InstData::Binary { op, args } => self.binary(op, dst, result_ty, args)?,
            InstData::Compare { op, pred, args } => self.compare(op, pred, dst, args)?,
            InstData::Select { cond, arms } => {
                let n = self.slots(result_ty)?;
                let (cond, a, b) = (self.slot(cond)?, self.slot(arms[0])?, self.slot(arms[1])?);
                self.p.selects.push((a, b, n));
                Op::Select { dst, cond, info: self.p.selects.len() as u32 - 1 }
            }
            InstData::Cast { op, arg } => self.cast(op, dst, result_ty, arg)?,
            InstData::Extract { agg, index } => {
                let agg_ty = self.ty(agg)?;
                let fields = match m.types().get(agg_ty) {
                    Some(TypeKey::Tuple(f) | TypeKey::Struct(f)) => f.clone(),
                    _ => return Err("extract of a non-tuple".into()),
                };
                let mut offset = 0u32;
                for &f in fields.iter().take(index as usize) {
                    offset += self.slots(f)?;
                }
                let field = fields.get(index as usize).ok_or("extract index out of range")?;
                mov(dst, self.slot(agg)? + offset, self.slots(*field)?)
            }
            InstData::Memory { op: Opcode::Alloca, align, ty, .. } => {
                let layout = self.layout(ty)?;
                let mut natural = u64::from(layout.align);
                if matches!(m.types().get(ty), Some(TypeKey::Array(..))) && layout.size >= 16 {
                    natural = natural.max(16);
                }
                let align = natural.max(u64::from(align.max(1))).next_power_of_two();
                self.p.allocas.push((layout.size, align));
                Op::Alloca { dst, info: self.p.allocas.len() as u32 - 1 }
            }
            InstData::Memory { op: Opcode::Load, align, ty, ptr } => {
                let ptr = self.slot(ptr.expand().ok_or("load without a pointer")?)?;
                match self.shapes.kind(ty) {
                    Some(kind) => Op::Load { kind: kind as u8, align_log2: log2(align), dst, ptr },
                    None => Op::LoadAgg { dst, ptr, layout: self.agg_layout(ty, align)? },
                }
            }
            InstData::Memory { ty, ptr, align, .. } => {
                let ptr = self.slot(ptr.expand().ok_or("uninit without a pointer")?)?;
                Op::Uninit { ptr, layout: self.agg_layout(ty, align)? }
            }
            InstData::Store { align, value, ptr } => {
                let ty = self.ty(value)?;
                let (src, ptr) = (self.slot(value)?, self.slot(ptr)?);
                match self.shapes.kind(ty) {
                    Some(kind) => Op::Store { kind: kind as u8, align_log2: log2(align), src, ptr },
                    None => Op::StoreAgg { src, ptr, layout: self.agg_layout(ty, align)? },
                }
            }
            InstData::Bulk { op, align, args } => {
                let list = m.list(args);
                let [a, b, c] = [0, 1, 2].map(|i| list.get(i).map(|&v| ValueId::from_u32(v)));
                let (Some(a), Some(b), Some(c)) = (a, b, c) else {
                    return Err("bulk operation needs three operands".into());
                };
                let (a, b, c) = (self.slot(a)?, self.slot(b)?, self.slot(c)?);
                if op == Opcode::Memcpy {
                    Op::Memcpy { align_log2: log2(align), dst: a, src: b, len: c }
                } else {
                    Op::Memset { align_log2: log2(align), dst: a, byte: b, len: c }
                }
            }
            InstData::Gep { base, indices } => self.gep(st, dst, base, m.list(indices))?,
            InstData::FuncRef { .. } => return Err("internal: function reference emitted as an operation".into()),
            InstData::Call { callee, args } => {
                let index = self.p.decls.index(callee).ok_or_else(|| format!("call of unknown function {callee}"))?;
                let body = self.p.decls.get(index).and_then(|d| d.body);
                let sig = self.p.decls.get(index).map(|d| d.sig).ok_or("unknown declaration")?;
                let site = self.call_site(body.unwrap_or(index as u32), 0, sig, m.list(args), dst, result_ty)?;
                match body {
                    Some(_) => Op::CallBody { site },
                    None => Op::CallExternal { site },
                }
            }
            InstData::CallIndirect { callee, args } => {
                let sig = m.types().fn_ptr_sig(self.ty(callee)?).ok_or("indirect call through a non-pointer")?;
                let fptr = self.slot(callee)?;
                let site = self.call_site(0, fptr, sig, m.list(args), dst, result_ty)?;
                Op::CallIndirect { site }
            }
            InstData::TrapIf { cond, reason } => {
                self.p.reasons.push(m.str(reason).to_string());
                Op::TrapIf { cond: self.slot(cond)?, reason: self.p.reasons.len() as u32 - 1 }
            }
            InstData::Trap { reason } => {
                self.p.reasons.push(m.str(reason).to_string());
                Op::Trap { reason: self.p.reasons.len() as u32 - 1 }
            }
            InstData::Br { dest } => {
                st.fixups.push((NONE, 0, self.local(dest)?));
                Op::Jump { target: 0 }
            }
            InstData::Cbr { cond, dests } => {
                st.fixups.push((NONE, 0, self.local(dests[0])?));
                st.fixups.push((NONE, 1, self.local(dests[1])?));
                Op::BrIf { cond: self.slot(cond)?, then_pc: 0, else_pc: 0 }
            }
            InstData::Switch { arg, default, cases } => {
                let ty = self.ty(arg)?;
                let kind = self.kind(ty)?;
                let mut table = SwitchTable { default: self.local(default)?, cases: Vec::new() };
                for pair in m.list(cases).chunks_exact(2) {
                    let key = m.constant(ir::ConstId::from_u32(pair[0]));
                    let [lo, hi] = const_slots(key, kind);
                    let key = if kind.slots() == 2 { u128::from(lo) | (u128::from(hi) << 64) } else { u128::from(lo) };
                    table.cases.push((key, self.local(BlockId::from_u32(pair[1]))?));
                }
                // Duplicate keys are rejected by the verifier; keep the first.
                table.cases.sort_by_key(|&(k, _)| k);
                table.cases.dedup_by_key(|&mut (k, _)| k);
                self.p.switches.push(table);
                let index = self.p.switches.len() as u32 - 1;
                st.switch_fixups.push((index, local));
                if kind.slots() == 2 {
                    Op::Switch128 { arg: self.slot(arg)?, table: index }
                } else {
                    Op::Switch { arg: self.slot(arg)?, table: index }
                }
            }
            InstData::Ret { arg } => match arg.expand() {
                Some(v) => Op::Ret { src: self.slot(v)?, n: self.slots(self.ty(v)?)? },
                None => Op::Ret { src: 0, n: 0 },
            },
        })
    }

    fn binary(&mut self, op: Opcode, dst: u32, ty: TypeId, args: [ValueId; 2]) -> Result<Op, Fail> {
        let (a, b) = (self.slot(args[0])?, self.slot(args[1])?);
        if op.is_checked() {
            let operand = self.int(self.ty(args[0])?)?;
            let op = match op {
                Opcode::UaddChk | Opcode::SaddChk => CheckedOp::Add,
                Opcode::UsubChk | Opcode::SsubChk => CheckedOp::Sub,
                _ => CheckedOp::Mul,
            };
            return Ok(Op::Checked { op, ty: operand, dst, a, b });
        }
        let kind = self.kind(ty)?;
        if let Some(width) = kind.float() {
            let op = match op {
                Opcode::Fadd => FloatOp::Add,
                Opcode::Fsub => FloatOp::Sub,
                Opcode::Fmul => FloatOp::Mul,
                Opcode::Fdiv => FloatOp::Div,
                Opcode::Frem => FloatOp::Rem,
                _ => return Err(format!("{op} on a float type")),
            };
            return Ok(Op::Float { op, width, dst, a, b });
        }
        let int = kind.int().ok_or_else(|| format!("{op} on a non-integer type"))?;
        let int_op = match op {
            Opcode::Add => IntOp::Add,
            Opcode::Sub => IntOp::Sub,
            Opcode::Mul => IntOp::Mul,
            Opcode::Sdiv => IntOp::Sdiv,
            Opcode::Udiv => IntOp::Udiv,
            Opcode::Srem => IntOp::Srem,
            Opcode::Urem => IntOp::Urem,
            Opcode::And => IntOp::And,
            Opcode::Or => IntOp::Or,
            Opcode::Xor => IntOp::Xor,
            Opcode::Shl => IntOp::Shl,
            Opcode::Lshr => IntOp::Lshr,
            Opcode::Ashr => IntOp::Ashr,
            _ => return Err(format!("{op} on an integer type")),
        };
        if int.bits == 128 {
            return Ok(Op::Int128 { op: int_op, dst, a, b });
        }
        let norm = int.norm();
        let full = int.bits == 64;
        Ok(match int_op {
            IntOp::Add if full => Op::Add { dst, a, b },
            IntOp::Sub if full => Op::Sub { dst, a, b },
            IntOp::Mul if full => Op::Mul { dst, a, b },
            IntOp::Sdiv if full => Op::Sdiv64 { dst, a, b },
            IntOp::Shl if full => Op::Shl64 { dst, a, b },
            IntOp::Lshr if full => Op::Lshr64 { dst, a, b },
            IntOp::Ashr if full => Op::Ashr64 { dst, a, b },
            IntOp::Add => Op::AddN { dst, a, b, norm },
            IntOp::Sub => Op::SubN { dst, a, b, norm },
            IntOp::Mul => Op::MulN { dst, a, b, norm },
            IntOp::Sdiv => Op::SdivN { dst, a, b, norm },
            IntOp::Shl => Op::ShlN { dst, a, b, norm },
            IntOp::Lshr => Op::LshrN { dst, a, b, norm },
            IntOp::Ashr => Op::AshrN { dst, a, b, norm },
            IntOp::And => Op::And { dst, a, b },
            IntOp::Or => Op::Or { dst, a, b },
            IntOp::Xor => Op::Xor { dst, a, b },
            IntOp::Udiv => Op::Udiv { dst, a, b },
            IntOp::Urem => Op::Urem { dst, a, b },
            IntOp::Srem => Op::Srem { dst, a, b },
        })
    }

    fn compare(&mut self, op: Opcode, pred: u8, dst: u32, args: [ValueId; 2]) -> Result<Op, Fail> {
        let ty = self.ty(args[0])?;
        let (a, b) = (self.slot(args[0])?, self.slot(args[1])?);
        enum P {
            Int(IntPred, bool),
            Float(FloatPred),
        }
        let p = match op {
            Opcode::Cmp => match CmpOp::from_code(pred).ok_or("unknown predicate")? {
                CmpOp::Eq => P::Int(IntPred::Eq, false),
                CmpOp::Ne => P::Int(IntPred::Ne, false),
                CmpOp::Slt => P::Int(IntPred::Slt, false),
                CmpOp::Sle => P::Int(IntPred::Sle, false),
                CmpOp::Sgt => P::Int(IntPred::Slt, true),
                CmpOp::Sge => P::Int(IntPred::Sle, true),
                CmpOp::Ult => P::Int(IntPred::Ult, false),
                CmpOp::Ule => P::Int(IntPred::Ule, false),
                CmpOp::Ugt => P::Int(IntPred::Ult, true),
                CmpOp::Uge => P::Int(IntPred::Ule, true),
                CmpOp::Feq => P::Float(FloatPred::Oeq),
                CmpOp::Fne => P::Float(FloatPred::Une),
                CmpOp::Flt => P::Float(FloatPred::Olt),
                CmpOp::Fle => P::Float(FloatPred::Ole),
                CmpOp::Fgt => P::Float(FloatPred::Ogt),
                CmpOp::Fge => P::Float(FloatPred::Oge),
            },
            Opcode::Icmp => match ICmpPred::from_code(pred).ok_or("unknown predicate")? {
                ICmpPred::Eq => P::Int(IntPred::Eq, false),
                ICmpPred::Ne => P::Int(IntPred::Ne, false),
                ICmpPred::Slt => P::Int(IntPred::Slt, false),
                ICmpPred::Sle => P::Int(IntPred::Sle, false),
                ICmpPred::Sgt => P::Int(IntPred::Slt, true),
                ICmpPred::Sge => P::Int(IntPred::Sle, true),
                ICmpPred::Ult => P::Int(IntPred::Ult, false),
                ICmpPred::Ule => P::Int(IntPred::Ule, false),
                ICmpPred::Ugt => P::Int(IntPred::Ult, true),
                ICmpPred::Uge => P::Int(IntPred::Ule, true),
            },
            _ => {
                let p = FCmpPred::from_code(pred).ok_or("unknown predicate")?;
                P::Float(FloatPred::ALL.get(p as usize).copied().ok_or("unknown predicate")?)
            }
        };
        let kind = self.kind(ty)?;
        Ok(match p {
            P::Float(pred) => {
                Op::FloatCmp { pred, width: kind.float().ok_or("float compare of a non-float")?, dst, a, b }
            }
            P::Int(pred, swap) => {
                let (a, b) = if swap { (b, a) } else { (a, b) };
                match kind {
                    Kind::Ptr => match pred {
                        IntPred::Eq => Op::PtrCmp { equal: true, dst, a, b },
                        IntPred::Ne => Op::PtrCmp { equal: false, dst, a, b },
                        _ => return Err("ordered comparison of pointers".into()),
                    },
                    Kind::I128 | Kind::U128 => Op::Cmp128 { pred, dst, a, b },
                    _ => Op::Cmp { pred, dst, a, b },
                }
            }
        })
    }

    fn cast(&mut self, op: Opcode, dst: u32, to_ty: TypeId, arg: ValueId) -> Result<Op, Fail> {
        let from = self.kind(self.ty(arg)?)?;
        let to = self.kind(to_ty)?;
        let a = self.slot(arg)?;
        let kind = match op {
            Opcode::Zext => CastKind::Zext,
            Opcode::Sext => CastKind::Sext,
            Opcode::Trunc => CastKind::Trunc,
            Opcode::Fext => CastKind::Fext,
            Opcode::Ftrunc => CastKind::Ftrunc,
            Opcode::ItofS => CastKind::ItofS,
            Opcode::ItofU => CastKind::ItofU,
            Opcode::FtoiS => CastKind::FtoiS,
            Opcode::FtoiU => CastKind::FtoiU,
            Opcode::Bitcast => CastKind::Bitcast,
            Opcode::Ptrtoint => CastKind::Ptrtoint,
            Opcode::Inttoptr => CastKind::Inttoptr,
            _ => return Err(format!("{op} is not a cast")),
        };
        // Integer-to-integer conversions up to 64 bits (and zext of bool) take the fast path.
        let narrow = |k: Kind| k == Kind::Bool || k.int().is_some_and(|i| i.bits <= 64);
        let int_to_int = matches!(kind, CastKind::Zext | CastKind::Sext | CastKind::Trunc | CastKind::Bitcast);
        if int_to_int && narrow(from) && to.int().is_some_and(|i| i.bits <= 64) {
            let from_norm = from.int().map_or(Norm::new(1, false), |i| i.norm());
            let extend = match kind {
                CastKind::Zext if from != Kind::Bool => Extend::Zero,
                CastKind::Sext => Extend::Sign,
                _ => Extend::Keep,
            };
            let to_norm = to.int().map_or(Norm::new(64, false), |i| i.norm());
            return Ok(Op::IntConv { dst, a, extend, from: from_norm, to: to_norm });
        }
        if kind == CastKind::Bitcast && from == Kind::Ptr && to == Kind::Ptr {
            return Ok(Op::Mov2 { dst, src: a });
        }
        Ok(Op::Cast { kind, from: from as u8, to: to as u8, dst, a })
    }

    fn gep(&mut self, st: &FnState, dst: u32, base: ValueId, indices: &[u32]) -> Result<Op, Fail> {
        let m = self.m;
        let base_slot = self.slot(base)?;
        if indices.is_empty() {
            return Ok(Op::Mov2 { dst, src: base_slot });
        }
        let mut current = m.types().pointee(self.ty(base)?).ok_or("gep base is not a pointer")?;
        let mut constant = Some(0i128);
        let terms_start = self.p.gep_terms.len() as u32;
        for (position, &raw) in indices.iter().enumerate() {
            let index = ValueId::from_u32(raw);
            let kind = self.kind(self.ty(index)?)?;
            let stride = if position == 0 {
                self.layout(current)?.size
            } else {
                match m.types().get(current) {
                    Some(TypeKey::Array(elem, _)) => {
                        let elem = *elem;
                        current = elem;
                        self.layout(elem)?.size
                    }
                    Some(TypeKey::Struct(fields) | TypeKey::Tuple(fields)) => {
                        let fields = fields.clone();
                        let field = self.const_int(st, index).ok_or("gep field index is not a constant")?;
                        let field = usize::try_from(field).map_err(|_| "negative gep field index")?;
                        let offsets = self.layout(current)?.field_offsets;
                        let offset = offsets.get(field).copied().ok_or("gep field index out of range")?;
                        current = *fields.get(field).ok_or("gep field index out of range")?;
                        constant = constant.and_then(|c| c.checked_add(i128::from(offset)));
                        continue;
                    }
                    _ => return Err("gep steps into a non-aggregate".into()),
                }
            };
            match self.const_int(st, index) {
                Some(value) => {
                    constant = constant.and_then(|c| c.checked_add(value.checked_mul(i128::from(stride))?));
                }
                None => {
                    if stride != 0 {
                        self.p.gep_terms.push(GepTerm { slot: self.slot(index)?, kind: kind as u8, stride });
                    }
                }
            }
        }
        let terms = (terms_start, self.p.gep_terms.len() as u32 - terms_start);
        if let (Some(constant), 1) = (constant, terms.1) {
            if let Some(term) = self.p.gep_terms.pop() {
                if let Some(ty) = Kind::from_code(term.kind).int().filter(|t| t.bits <= 64) {
                    self.p.gep_index.push(GepIndex::new(base_slot, ty.signed, term.stride, constant));
                    let info = self.p.gep_index.len() as u32 - 1;
                    return Ok(Op::GepIndex { dst, index: term.slot, info });
                }
                self.p.gep_terms.push(term);
            }
        }
        self.p.geps.push(GepInfo { constant, terms });
        Ok(Op::Gep { dst, base: base_slot, info: self.p.geps.len() as u32 - 1 })
    }

    fn call_site(
        &mut self,
        callee: u32,
        fptr: u32,
        sig: ir::SigId,
        args: &[u32],
        dst: u32,
        result_ty: TypeId,
    ) -> Result<u32, Fail> {
        let start = self.p.arg_slots.len() as u32;
        for &raw in args {
            let v = ValueId::from_u32(raw);
            let (slot, n) = (self.slot(v)?, self.slots(self.ty(v)?)?);
            self.p.arg_slots.extend(slot..slot + n);
        }
        let nargs = self.p.arg_slots.len() as u32 - start;
        let ret_slots = if result_ty == TypeId::VOID { 0 } else { self.slots(result_ty)? };
        self.p.call_sites.push(CallSite { callee, fptr, sig, args: start, nargs, dst, ret_slots });
        Ok(self.p.call_sites.len() as u32 - 1)
    }

    fn layout(&self, ty: TypeId) -> Result<ir::TypeLayout, Fail> {
        layout_of_id(self.m.types(), ty, MAX_DEPTH as usize)
            .map_err(|e| format!("type {} has no layout: {e}", crate::shape::type_label(self.m.types(), ty)))
    }

    /// The memory layout (size, access alignment, leaves) of `ty`.
    fn agg_layout(&mut self, ty: TypeId, align: u32) -> Result<u32, Fail> {
        let size = self.layout(ty)?.size;
        let start = self.p.leaves.len() as u32;
        if self.shapes.slots(ty).is_some() {
            self.flatten(ty, 0, 0, MAX_DEPTH)?;
        }
        let len = self.p.leaves.len() as u32 - start;
        self.p.layouts.push(AggLayout { size, align: u64::from(align.max(1)), leaves: (start, len) });
        Ok(self.p.layouts.len() as u32 - 1)
    }

    fn flatten(&mut self, ty: TypeId, offset: u64, slot: u32, depth: u32) -> Result<(), Fail> {
        if depth == 0 {
            return Err("type nests too deeply".into());
        }
        if let Some(kind) = self.shapes.kind(ty) {
            self.p.leaves.push(Leaf { offset, kind: kind as u8, slot });
            return Ok(());
        }
        match self.m.types().get(ty) {
            Some(TypeKey::Array(elem, n)) => {
                let (elem, n) = (*elem, *n);
                let elem_slots = self.slots(elem)?;
                if elem_slots == 0 {
                    return Ok(());
                }
                let stride = self.layout(elem)?.size;
                for i in 0..n {
                    let off = i.checked_mul(stride).and_then(|o| o.checked_add(offset)).ok_or("layout overflow")?;
                    self.flatten(elem, off, slot + (i as u32) * elem_slots, depth - 1)?;
                }
                Ok(())
            }
            Some(TypeKey::Struct(fields) | TypeKey::Tuple(fields)) => {
                let fields = fields.clone();
                let offsets = self.layout(ty)?.field_offsets;
                let mut s = slot;
                for (&f, &off) in fields.iter().zip(offsets.iter()) {
                    self.flatten(f, offset + off, s, depth - 1)?;
                    s += self.slots(f)?;
                }
                Ok(())
            }
            _ => Err(format!("values of type {} are not supported", crate::shape::type_label(self.m.types(), ty))),
        }
    }

    /// Resolves branch targets, creating edge stubs for successors with phis.
    fn resolve_targets(&mut self, st: &mut FnState) -> Result<(), Fail> {
        let fixups = std::mem::take(&mut st.fixups);
        for (pc, which, succ) in fixups {
            if which == 2 {
                let target = st.block_pc.get(succ as usize).copied().ok_or("branch to an unknown block")?;
                let first_phi = st.block_site.get(succ as usize).copied().ok_or("branch to an unknown block")?;
                if let Some(Op::JumpPhis { target: t, site, .. }) = self.p.code.get_mut(pc as usize) {
                    *t = target;
                    *site = first_phi;
                }
                continue;
            }
            let pred = self.block_of_pc(st, pc);
            let target = self.edge(st, pred, succ)?;
            let branch = self.p.code.get(pc as usize).and_then(|op| op.as_compare_branch());
            if let Some((BranchKind::Branch, _, _, _, info)) = branch {
                if let Some(b) = self.p.branches.get_mut(info as usize) {
                    if which == 0 {
                        b.then_pc = target
                    } else {
                        b.else_pc = target
                    }
                }
            }
            if let Some(op) = self.p.code.get_mut(pc as usize) {
                match op {
                    Op::Jump { target: t } => *t = target,
                    Op::BrIf { then_pc, else_pc, .. } => {
                        if which == 0 {
                            *then_pc = target
                        } else {
                            *else_pc = target
                        }
                    }
                    _ => {}
                }
            }
        }
        let switch_fixups = std::mem::take(&mut st.switch_fixups);
        for (table, pred) in switch_fixups {
            let Some(t) = self.p.switches.get(table as usize).cloned() else { continue };
            let default = self.edge(st, pred, t.default)?;
            let mut cases = Vec::with_capacity(t.cases.len());
            for (key, succ) in t.cases {
                cases.push((key, self.edge(st, pred, succ)?));
            }
            if let Some(slot) = self.p.switches.get_mut(table as usize) {
                *slot = SwitchTable { default, cases };
            }
        }
        Ok(())
    }

    fn block_of_pc(&self, st: &FnState, pc: u32) -> u32 {
        st.block_pc.partition_point(|&start| start <= pc).saturating_sub(1) as u32
    }

    /// The code index control enters when going from `pred` to `succ`.
    fn edge(&mut self, st: &mut FnState, pred: u32, succ: u32) -> Result<u32, Fail> {
        let phis = st.phi_count.get(succ as usize).copied().unwrap_or(0);
        let block_pc = st.block_pc.get(succ as usize).copied().ok_or("branch to an unknown block")?;
        if phis == 0 {
            return Ok(block_pc);
        }
        if let Some(&(_, _, pc)) = st.stubs.iter().find(|&&(p, s, _)| p == pred && s == succ) {
            return Ok(pc);
        }
        let site_base = st.block_site.get(succ as usize).copied().ok_or("unknown successor")?;
        let stub = self.p.code.len() as u32;
        self.edge_moves(st, pred, succ, site_base)?;
        self.emit(Op::JumpPhi { target: block_pc }, phis, site_base + phis - 1);
        st.stubs.push((pred, succ, stub));
        Ok(stub)
    }

    /// Emits the moves that assign `succ`'s phis on the edge from `pred` (cover
    /// 0: their steps are charged when control enters `succ`).
    fn edge_moves(&mut self, st: &FnState, pred: u32, succ: u32, site: u32) -> Result<(), Fail> {
        let (m, f) = (self.m, self.f()?);
        let phis = st.phi_count.get(succ as usize).copied().unwrap_or(0);
        let pred_block = *st.blocks.get(pred as usize).ok_or("unknown predecessor")?;
        let succ_block = *st.blocks.get(succ as usize).ok_or("unknown successor")?;
        let mut moves: Vec<(u32, u32)> = Vec::new();
        let mut missing = false;
        for inst in f.block_insts(succ_block).take(phis as usize) {
            let InstData::Phi { inputs } = *f.inst(inst) else { continue };
            let Some(result) = f.inst_result(inst) else { continue };
            let input = m.list(inputs).chunks_exact(2).find(|pair| pair[1] == pred_block.as_u32()).map(|p| p[0]);
            let Some(input) = input else {
                missing = true;
                continue;
            };
            let (dst, src) = (self.slot(result)?, self.slot(ValueId::from_u32(input))?);
            let n = self.slots(self.ty(result)?)?;
            moves.extend((0..n).map(|i| (dst + i, src + i)));
        }
        if missing {
            self.emit(Op::NotExecutable { what: NOT_EXEC_PHI }, 0, site);
        }
        moves.retain(|&(d, s)| d != s);
        // A hazard: some source is overwritten by an earlier move of this edge.
        let mark = self.p.code.len() as u32 + 1;
        let frame = st.temps as usize + moves.len() + 1;
        if self.stamp.len() < frame {
            self.stamp.resize(frame, 0);
        }
        for &(d, _) in &moves {
            if let Some(s) = self.stamp.get_mut(d as usize) {
                *s = mark;
            }
        }
        let hazard = moves.iter().any(|&(_, s)| self.stamp.get(s as usize) == Some(&mark));
        for &(d, _) in &moves {
            if let Some(s) = self.stamp.get_mut(d as usize) {
                *s = 0;
            }
        }
        if hazard {
            for (i, &(_, s)) in moves.iter().enumerate() {
                self.emit(Op::Mov { dst: st.temps + i as u32, src: s }, 0, site);
            }
            for (i, &(d, _)) in moves.iter().enumerate() {
                self.emit(Op::Mov { dst: d, src: st.temps + i as u32 }, 0, site);
            }
        } else {
            for &(d, s) in &moves {
                self.emit(Op::Mov { dst: d, src: s }, 0, site);
            }
        }
        Ok(())
    }

    /// Turns each `br` to a block that starts with a fused compare-and-branch
    /// (a loop header's test) into a latch doing both ([`BranchKind::Latch`]),
    /// absorbing up to two `add`s right before the jump.
    fn latches(&mut self, start: usize, end: usize) {
        // First the compare-and-branches learn the costs of their targets.
        for pc in start..end {
            if let Some((BranchKind::Branch, _, _, _, info)) = self.p.code[pc].as_compare_branch() {
                let entry = |pc: u32| u64::from(self.p.entry_cost.get(pc as usize).copied().unwrap_or(0));
                if let Some(&Branch { then_pc, else_pc, .. }) = self.p.branches.get(info as usize) {
                    let (then_cost, else_cost) = (entry(then_pc), entry(else_pc));
                    if let Some(b) = self.p.branches.get_mut(info as usize) {
                        b.then_cost = then_cost;
                        b.else_cost = else_cost;
                    }
                }
            }
        }
        for pc in start..end {
            let (target, count, site) = match self.p.code[pc] {
                Op::Jump { target } => (target, 0, 0),
                Op::JumpPhis { target, count, site } => (target, count, site),
                _ => continue,
            };
            let Some((BranchKind::Branch, cmp, a, b, info)) =
                self.p.code.get(target as usize).and_then(|op| op.as_compare_branch())
            else {
                continue;
            };
            let Some(&Branch { then_pc, else_pc, .. }) = self.p.branches.get(info as usize) else { continue };
            let entry = |pc: u32| u64::from(self.p.entry_cost.get(pc as usize).copied().unwrap_or(0));
            let cost = u64::from(count) + entry(target);
            let (then_cost, else_cost) = (cost + entry(then_pc), cost + entry(else_pc));
            let mut latch = LatchInfo {
                header: target,
                count,
                site,
                then_pc,
                else_pc,
                then_cost,
                else_cost,
                add: [0; 3],
                first_add: [0; 3],
            };
            let info = self.p.latches.len() as u32;
            self.p.code[pc] = Op::compare_branch(BranchKind::Latch, cmp, a, b, info);
            // An `add` right before the jump (a loop's increment) joins the latch:
            // the fused op covers both and the latch left behind is never reached.
            if let (true, Some(Op::Add { dst, a: x, b: y })) =
                (pc > start, self.p.code.get(pc.wrapping_sub(1)).copied())
            {
                latch.add = [dst, x, y];
                let (add, jump) = (self.p.pc_info[pc - 1], self.p.pc_info[pc]);
                self.p.code[pc - 1] = Op::compare_branch(BranchKind::LatchAdd, cmp, a, b, info);
                self.p.pc_info[pc - 1] = PcInfo { site: jump.site, cover: add.cover + jump.cover, after: 0 };
                // A second `add` before that (an accumulator's) joins too. Neither
                // add is a block's first op: ops before them end blocks.
                if let (true, Some(Op::Add { dst, a: x, b: y })) =
                    (pc - 1 > start, self.p.code.get(pc.wrapping_sub(2)).copied())
                {
                    latch.first_add = [dst, x, y];
                    let first = self.p.pc_info[pc - 2];
                    self.p.code[pc - 2] = Op::compare_branch(BranchKind::LatchAdd2, cmp, a, b, info);
                    self.p.pc_info[pc - 2] =
                        PcInfo { site: jump.site, cover: first.cover + add.cover + jump.cover, after: 0 };
                }
            }
            self.p.latches.push(latch);
        }
    }

    /// Computes entry costs and `after` counts of the segments in `start..end`.
    fn segments(&mut self, start: u32, end: u32) {
        let mut seg_start = start as usize;
        let end = end as usize;
        while seg_start < end {
            let mut seg_end = seg_start;
            let mut cost = 0u32;
            while seg_end < end {
                cost = cost.saturating_add(self.p.pc_info.get(seg_end).map_or(0, |i| i.cover));
                let is_call = matches!(
                    self.p.code.get(seg_end),
                    Some(Op::CallBody { .. } | Op::CallExternal { .. } | Op::CallIndirect { .. })
                );
                seg_end += 1;
                if is_call {
                    break;
                }
            }
            let mut done = 0u32;
            for pc in seg_start..seg_end {
                if let Some(info) = self.p.pc_info.get_mut(pc) {
                    done += info.cover;
                    info.after = cost - done;
                }
            }
            if let Some(c) = self.p.entry_cost.get_mut(seg_start) {
                *c = cost;
            }
            seg_start = seg_end;
        }
    }
}

fn code_start_of(st: &FnState, fallback: u32) -> usize {
    st.block_pc.first().copied().unwrap_or(fallback) as usize
}

impl Compiler<'_> {
    /// Checks that every operand slot of the ops in `start..end` lies inside a
    /// frame of `frame` slots and every target inside the function's code, so
    /// that the dispatch loop's slot and code indexing cannot go out of bounds.
    fn validate(&self, start: usize, end: usize, frame: u32) -> Result<(), Fail> {
        let p = &self.p;
        let bad = || Err::<(), Fail>("internal: an operation refers outside its frame".into());
        let fits = |slot: u32, n: u32| u64::from(slot) + u64::from(n) <= u64::from(frame);
        let target = |t: u32| (start..end).contains(&(t as usize));
        let kind_slots = |k: u8| Kind::from_code(k).slots();
        for op in p.code.get(start..end).unwrap_or(&[]) {
            let ok = match *op {
                Op::Jump { target: t } | Op::JumpPhi { target: t } => target(t),
                Op::LatchEq { a, b, info }
                | Op::LatchSlt { a, b, info }
                | Op::LatchUlt { a, b, info }
                | Op::LatchAddEq { a, b, info }
                | Op::LatchAddSlt { a, b, info }
                | Op::LatchAddUlt { a, b, info }
                | Op::LatchAdd2Eq { a, b, info }
                | Op::LatchAdd2Slt { a, b, info }
                | Op::LatchAdd2Ult { a, b, info } => {
                    fits(a, 1)
                        && fits(b, 1)
                        && p.latches.get(info as usize).is_some_and(|l| {
                            l.add.iter().chain(&l.first_add).all(|&s| fits(s, 1))
                                && target(l.header)
                                && target(l.then_pc)
                                && target(l.else_pc)
                                && (u64::from(l.site) + u64::from(l.count)) <= p.sites.len() as u64
                        })
                }
                Op::JumpPhis { target: t, count, site } => {
                    target(t) && (u64::from(site) + u64::from(count)) <= p.sites.len() as u64
                }
                Op::BrIf { cond, then_pc, else_pc } => fits(cond, 1) && target(then_pc) && target(else_pc),
                Op::BrEq { a, b, info } | Op::BrSlt { a, b, info } | Op::BrUlt { a, b, info } => {
                    fits(a, 1)
                        && fits(b, 1)
                        && p.branches.get(info as usize).is_some_and(|br| target(br.then_pc) && target(br.else_pc))
                }
                Op::Switch { arg, table } | Op::Switch128 { arg, table } => {
                    let n = if matches!(op, Op::Switch128 { .. }) { 2 } else { 1 };
                    fits(arg, n)
                        && p.switches
                            .get(table as usize)
                            .is_some_and(|t| target(t.default) && t.cases.iter().all(|&(_, c)| target(c)))
                }
                Op::Ret { src, n } => fits(src, n),
                Op::Trap { reason } => (reason as usize) < p.reasons.len(),
                Op::TrapIf { cond, reason } => fits(cond, 1) && (reason as usize) < p.reasons.len(),
                Op::NotExecutable { .. } | Op::Unsupported { .. } | Op::StepLimit => true,
                Op::CallBody { site } | Op::CallExternal { site } | Op::CallIndirect { site } => {
                    p.call_sites.get(site as usize).is_some_and(|cs| {
                        let args = p.arg_slots.get(cs.args as usize..(cs.args + cs.nargs) as usize);
                        args.is_some_and(|a| a.iter().all(|&s| fits(s, 1)))
                            && fits(cs.dst, cs.ret_slots)
                            && (!matches!(op, Op::CallIndirect { .. }) || fits(cs.fptr, 1))
                    })
                }
                Op::Mov { dst, src } => fits(dst, 1) && fits(src, 1),
                Op::Mov2 { dst, src } => fits(dst, 2) && fits(src, 2),
                Op::MovN { dst, src, n } => fits(dst, n) && fits(src, n),
                Op::Select { dst, cond, info } => {
                    fits(cond, 1)
                        && p.selects
                            .get(info as usize)
                            .is_some_and(|&(a, b, n)| fits(dst, n) && fits(a, n) && fits(b, n))
                }
                Op::Add { dst, a, b }
                | Op::Sub { dst, a, b }
                | Op::Mul { dst, a, b }
                | Op::And { dst, a, b }
                | Op::Or { dst, a, b }
                | Op::Xor { dst, a, b }
                | Op::Udiv { dst, a, b }
                | Op::Urem { dst, a, b }
                | Op::Srem { dst, a, b }
                | Op::Sdiv64 { dst, a, b }
                | Op::Shl64 { dst, a, b }
                | Op::Lshr64 { dst, a, b }
                | Op::Ashr64 { dst, a, b }
                | Op::AddN { dst, a, b, .. }
                | Op::SubN { dst, a, b, .. }
                | Op::MulN { dst, a, b, .. }
                | Op::SdivN { dst, a, b, .. }
                | Op::ShlN { dst, a, b, .. }
                | Op::LshrN { dst, a, b, .. }
                | Op::AshrN { dst, a, b, .. }
                | Op::Cmp { dst, a, b, .. }
                | Op::Float { dst, a, b, .. }
                | Op::FloatCmp { dst, a, b, .. } => fits(dst, 1) && fits(a, 1) && fits(b, 1),
                Op::Not { dst, a, .. } | Op::IntConv { dst, a, .. } => fits(dst, 1) && fits(a, 1),
                Op::Int128 { dst, a, b, .. } => fits(dst, 2) && fits(a, 2) && fits(b, 2),
                Op::Not128 { dst, a } => fits(dst, 2) && fits(a, 2),
                Op::Cmp128 { dst, a, b, .. } => fits(dst, 1) && fits(a, 2) && fits(b, 2),
                Op::Checked { ty, dst, a, b, .. } => {
                    let n = if ty.bits == 128 { 2 } else { 1 };
                    fits(dst, n + 1) && fits(a, n) && fits(b, n)
                }
                Op::PtrCmp { dst, a, b, .. } => fits(dst, 1) && fits(a, 2) && fits(b, 2),
                Op::Cast { from, to, dst, a, .. } => fits(dst, kind_slots(to)) && fits(a, kind_slots(from)),
                Op::Alloca { dst, info } => fits(dst, 2) && (info as usize) < p.allocas.len(),
                Op::Load { kind, dst, ptr, .. } => fits(dst, kind_slots(kind)) && fits(ptr, 2),
                Op::Store { kind, src, ptr, .. } => fits(src, kind_slots(kind)) && fits(ptr, 2),
                Op::LoadAgg { dst: at, ptr, layout } | Op::StoreAgg { src: at, ptr, layout } => {
                    fits(ptr, 2)
                        && p.layouts.get(layout as usize).is_some_and(|l| {
                            let leaves = p.leaves.get(l.leaves.0 as usize..(l.leaves.0 + l.leaves.1) as usize);
                            leaves.is_some_and(|ls| ls.iter().all(|leaf| fits(at + leaf.slot, kind_slots(leaf.kind))))
                        })
                }
                Op::Uninit { ptr, layout } => fits(ptr, 2) && (layout as usize) < p.layouts.len(),
                Op::Memcpy { dst, src, len, .. } => fits(dst, 2) && fits(src, 2) && fits(len, 1),
                Op::Memset { dst, byte, len, .. } => fits(dst, 2) && fits(byte, 1) && fits(len, 1),
                Op::GepIndex { dst, index, info } => {
                    fits(dst, 2) && fits(index, 1) && p.gep_index.get(info as usize).is_some_and(|g| fits(g.base, 2))
                }
                Op::LoadElem { kind, dst: at, index, info, .. } | Op::StoreElem { kind, src: at, index, info, .. } => {
                    fits(at, kind_slots(kind))
                        && fits(index, 1)
                        && p.gep_index.get(info as usize).is_some_and(|g| fits(g.base, 2))
                }
                Op::LoadElemU8 { dst: at, index, info }
                | Op::LoadElem64 { dst: at, index, info }
                | Op::StoreElemByte { src: at, index, info }
                | Op::StoreElem64 { src: at, index, info } => {
                    fits(at, 1) && fits(index, 1) && p.gep_index.get(info as usize).is_some_and(|g| fits(g.base, 2))
                }
                Op::Gep { dst, base, info } => {
                    fits(dst, 2)
                        && fits(base, 2)
                        && p.geps.get(info as usize).is_some_and(|g| {
                            let terms = p.gep_terms.get(g.terms.0 as usize..(g.terms.0 + g.terms.1) as usize);
                            terms.is_some_and(|ts| ts.iter().all(|t| fits(t.slot, kind_slots(t.kind))))
                        })
                }
            };
            if !ok {
                return bad();
            }
        }
        Ok(())
    }
}

fn is_constant(data: &InstData) -> bool {
    matches!(
        data,
        InstData::Const { .. } | InstData::ConstWide { .. } | InstData::ConstDecl { .. } | InstData::FuncRef { .. }
    )
}

fn mov(dst: u32, src: u32, n: u32) -> Op {
    match n {
        1 => Op::Mov { dst, src },
        2 => Op::Mov2 { dst, src },
        _ => Op::MovN { dst, src, n },
    }
}

fn log2(align: u32) -> u8 {
    align.max(1).trailing_zeros() as u8
}

/// The canonical slots of a constant of scalar kind `kind`.
pub(crate) fn const_slots(value: ConstValue, kind: Kind) -> [u64; 2] {
    let wide = |raw: u128| -> [u64; 2] {
        let v = kind.int().map_or(raw, |i| i.apply(raw));
        [v as u64, (v >> 64) as u64]
    };
    match value {
        ConstValue::Bool(b) => [u64::from(b), 0],
        ConstValue::I(v) => wide(v as u128),
        ConstValue::U(v) => wide(v),
        ConstValue::F(bits) => [bits.bits(), 0],
    }
}

/// A value id as a table index.
#[inline]
fn ix(v: ValueId) -> usize {
    v.as_u32() as usize
}
