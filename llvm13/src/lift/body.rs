//! One LLVM function body to Whale instructions.
//!
//! Three passes over the flattened instruction list: typing (each result's plane, through the format layer's
//! operand rules) and use counts; recognition of the writer's multi-instruction forms (a sign-changing cast feeding
//! an extension, a cast to `ubyte` feeding a shift, the `select` feeding a `__whale_trap` call, the trap call before
//! `unwind`), which are folded back into one Whale instruction; then emission with value ids assigned in layout
//! order. Constants used directly as operands (files from other writers) become `const` instructions at the start of
//! the entry block, which dominates every use.

use rustc_hash::FxHashMap as HashMap;

use ir::{
    BlockId, ConstValue, FCmpPred, FunctionId, ICmpPred, InstData, Opcode as W, PackedOption, StrId, Type, TypeId,
    ValueId,
};

use super::{const_value, zero, Lift, ModuleValue};
use crate::format::typing::{analyze_into, Analysis, PointerIndex, Pointers};
use crate::format::{Constant, Function, FunctionBody, Instruction, Opcode, Operand, SymbolIndex, TypeSlot, Types};
use crate::map_error::MapError;

/// What a (plane, slot) names inside a function.
#[derive(Clone, Copy, Debug)]
enum Ref<'a> {
    Null,
    Module(ModuleValue<'a>),
    Arg(usize),
    LocalConst(&'a Constant),
    Inst(usize),
}

/// Every instruction's analysis, flattened: operand planes and struct-index flags in one list each.
#[derive(Default)]
struct Analyses {
    /// Per instruction: its first operand in `planes` and its result type.
    insts: Vec<(u32, TypeSlot)>,
    planes: Vec<Option<TypeSlot>>,
    struct_index: Vec<bool>,
}

impl Analyses {
    fn push(&mut self, a: &Analysis) {
        self.insts.push((self.planes.len() as u32, a.result));
        self.struct_index.extend((0..a.planes.len()).map(|i| a.is_struct_index(i)));
        self.planes.extend_from_slice(&a.planes);
    }

    fn result(&self, k: usize) -> TypeSlot {
        self.insts.get(k).map_or(TypeSlot::VOID, |&(_, r)| r)
    }

    fn operand_index(&self, k: usize, i: usize) -> Option<usize> {
        let start = self.insts.get(k)?.0 as usize;
        let end = self.insts.get(k + 1).map_or(self.planes.len(), |&(s, _)| s as usize);
        (start + i < end).then_some(start + i)
    }

    fn plane(&self, k: usize, i: usize) -> Option<TypeSlot> {
        self.planes.get(self.operand_index(k, i)?).copied().flatten()
    }

    fn is_struct_index(&self, k: usize, i: usize) -> bool {
        self.operand_index(k, i).and_then(|j| self.struct_index.get(j)).copied().unwrap_or(false)
    }
}

/// What the folding pass decided for an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Plain,
    /// Folded into the next instruction.
    Skip,
    /// An extension whose source is operand 0 of the previous (skipped) cast: zext or sext.
    Extend(W),
    /// A shift whose amount is operand 0 of the previous (skipped) cast.
    ShiftFolded,
    /// `trap_if`: the previous instruction was the select (condition operand 0, reason operand 1).
    TrapIf,
    /// `trap`: the next instruction is the `unwind`.
    Trap,
}

/// Key of a constant materialised at the start of the entry block.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Materialised {
    Const(TypeId, ConstValue),
    NullFunction(TypeId),
    FunctionAddr(u32),
}

struct Body<'l, 'a> {
    lift: &'l mut Lift<'a>,
    types: Types<'a>,
    insts: Vec<(usize, &'a Instruction)>,
    analyses: Analyses,
    /// Local values per canonical plane (after the module values).
    locals: HashMap<TypeSlot, Vec<Ref<'a>>>,
    roles: Vec<Role>,
    values: Vec<Option<ValueId>>,
    extra: Vec<Option<ValueId>>,
    params: Vec<ValueId>,
    materialised: Vec<(Materialised, ValueId, TypeId)>,
    /// The value of each entry of `materialised`, to find it without a scan.
    materialised_values: HashMap<Materialised, ValueId>,
    block_base: u32,
    function_name: &'l str,
    /// The function's index, for the location before any instruction (`function N (`name`)`).
    function_index: usize,
    /// The instruction being mapped, for error locations.
    at: Option<usize>,
    /// The last `const u32` of each value emitted so far, with its block: a getelementptr struct index reuses it.
    recent_u32: HashMap<u64, (usize, ValueId)>,
}

/// Buffers that mapping a body empties first and hands back at its end, so that the next body reuses them: a
/// module of many small functions then allocates little per function beyond what the mapping produces.
#[derive(Default)]
pub(super) struct BodyBuffers<'a> {
    insts: Vec<(usize, &'a Instruction)>,
    analyses: Analyses,
    locals: HashMap<TypeSlot, Vec<Ref<'a>>>,
    roles: Vec<Role>,
    values: Vec<Option<ValueId>>,
    extra: Vec<Option<ValueId>>,
    params: Vec<ValueId>,
    materialised: Vec<(Materialised, ValueId, TypeId)>,
    materialised_values: HashMap<Materialised, ValueId>,
    recent_u32: HashMap<u64, (usize, ValueId)>,
}

/// Empties `map`; a large one is dropped rather than cleared, since clearing takes time in its room and every
/// later function would pay it.
fn reset<K, V>(map: &mut HashMap<K, V>) {
    if map.capacity() > 256 {
        *map = HashMap::default();
    } else {
        map.clear();
    }
}

impl BodyBuffers<'_> {
    /// The buffers, emptied.
    fn cleared(mut self) -> Self {
        self.insts.clear();
        self.analyses.insts.clear();
        self.analyses.planes.clear();
        self.analyses.struct_index.clear();
        reset(&mut self.locals);
        self.roles.clear();
        self.values.clear();
        self.extra.clear();
        self.params.clear();
        self.materialised.clear();
        reset(&mut self.materialised_values);
        reset(&mut self.recent_u32);
        self
    }
}

/// The location of instruction `k` of `insts`, formatted only when an error needs it.
fn inst_location(function: &str, insts: &[(usize, &Instruction)], k: usize) -> String {
    match insts.get(k) {
        Some((bi, inst)) => {
            format!("function `{function}`, block {bi}, instruction {k} (`{}`)", inst.opcode.mnemonic())
        }
        None => format!("function `{function}`"),
    }
}

/// The location of function `index` named `name`: at instruction `at` of `insts`, or before any.
fn location(name: &str, index: usize, insts: &[(usize, &Instruction)], at: Option<usize>) -> String {
    match at {
        Some(k) => inst_location(name, insts, k),
        None => format!("function {index} (`{name}`)"),
    }
}

pub(super) fn lift_body<'a>(
    lift: &mut Lift<'a>,
    index: usize,
    f: &'a Function,
    body: &'a FunctionBody,
    id: FunctionId,
    name: &str,
) -> Result<(), MapError> {
    let m = lift.m;
    // Value and block ids are function-scoped; bytecode records none, so every function numbers from zero.
    (lift.next_value, lift.next_block) = (0, 0);
    let types = Types { module: &m.types, local: &body.types };
    let Some((ret, params, _)) = types.callee(f.ty) else {
        let location = location(name, index, &[], None);
        return Err(MapError::no_whale("a function whose type is not a function pointer", location));
    };
    let BodyBuffers {
        insts,
        analyses,
        locals,
        roles,
        values,
        extra,
        params: param_values,
        materialised,
        materialised_values,
        recent_u32,
    } = std::mem::take(&mut lift.body_buffers).cleared();
    let mut b = Body {
        lift,
        types,
        insts,
        analyses,
        locals,
        roles,
        values,
        extra,
        params: param_values,
        materialised,
        materialised_values,
        block_base: 0,
        function_name: name,
        function_index: index,
        at: None,
        recent_u32,
    };
    for (bi, block) in body.blocks.iter().enumerate() {
        b.insts.extend(block.instructions.iter().map(|i| (bi, i)));
    }
    // Planes: arguments, function constants, then results.
    // Each argument's index among its plane's local values, which its symbol-table slot is counted from.
    let mut arg_index = Vec::with_capacity(params.len());
    for (i, &p) in params.iter().enumerate() {
        let list = b.locals.entry(types.canon(p)).or_default();
        arg_index.push(list.len() as u32);
        list.push(Ref::Arg(i));
    }
    for plane in &body.constants {
        b.locals.entry(types.canon(plane.ty)).or_default().extend(plane.constants.iter().map(Ref::LocalConst));
    }
    let module_pointers = std::rc::Rc::clone(&b.lift.pointers);
    let local_pointers = PointerIndex::local(&types);
    let pointers = Pointers::new(&module_pointers, local_pointers.as_ref());
    let mut analysis = Analysis::default();
    for k in 0..b.insts.len() {
        b.set_location(k);
        let inst = b.insts[k].1;
        let analysed = {
            let this = &b;
            let int = |plane, slot| match this.resolve(plane, slot) {
                Some(Ref::Module(ModuleValue::Const(Constant::Unsigned(v))))
                | Some(Ref::LocalConst(Constant::Unsigned(v))) => Some(*v),
                Some(Ref::Null) => Some(0),
                _ => None,
            };
            analyze_into(&types, pointers, inst, &int, &mut analysis)
        };
        analysed.map_err(|reason| MapError::no_whale(format!("a malformed instruction ({reason})"), b.location()))?;
        if analysis.result != TypeSlot::VOID {
            b.locals.entry(analysis.result).or_default().push(Ref::Inst(k));
        }
        b.analyses.push(&analysis);
    }
    b.fold()?;

    // Value ids in layout order: parameters, then per instruction its extra cast and its result.
    let names = SymbolIndex::new(&body.symbols);
    let mut param_list = Vec::new();
    for ((i, &p), &local) in params.iter().enumerate().zip(&arg_index) {
        let parameter = || format!("{}, parameter {i}", location(name, index, &[], None));
        let ty = b.lift.ty(&types, p, &parameter)?;
        let v = b.new_value();
        b.params.push(v);
        let slot = b.lift.module_count(&types, p) + local;
        let pname = names.name_of(p, slot).map(|n| String::from_utf8_lossy(n).into_owned()).unwrap_or_default();
        param_list.push((v, b.lift.asm.intern(&pname), ty));
    }
    b.values.resize(b.insts.len(), None);
    b.extra.resize(b.insts.len(), None);
    for k in 0..b.insts.len() {
        if b.needs_amount_cast(k) {
            b.extra[k] = Some(b.new_value());
        }
        if b.roles[k] != Role::Skip && b.analyses.result(k) != TypeSlot::VOID {
            b.values[k] = Some(b.new_value());
        }
    }

    // Emission into per-block lists; materialised constants are prepended to the entry block.
    let mut blocks: Vec<Vec<Pushed>> = vec![Vec::new(); body.blocks.len()];
    b.block_base = b.lift.next_block;
    for k in 0..b.insts.len() {
        if b.roles[k] == Role::Skip {
            continue;
        }
        b.set_location(k);
        let (bi, inst) = b.insts[k];
        let data = b.inst(k, inst)?;
        let result = match (b.values[k], b.analyses.result(k)) {
            (Some(v), t) => Some((v, b.ty(t)?)),
            _ => None,
        };
        if let Some(extra) = data.1 {
            blocks[bi].push(extra);
        }
        if let Some(data) = data.0 {
            blocks[bi].push((data, result));
        }
    }
    let ret_ty = b.ty(ret)?;
    let entry = BlockId::from_u32(b.block_base);
    let fname = b.lift.asm.intern(name);
    // Errors of the assembler name the function's last instruction; the text is formatted only for one.
    let at = b.at;
    let fail = |e: ir::AssembleError| MapError::no_whale(e.to_string(), location(name, index, &b.insts, at));
    b.lift.asm.begin_function(id, fname, ret_ty, entry, &param_list).map_err(fail)?;
    for (bi, list) in blocks.into_iter().enumerate() {
        let label = names.name_of(TypeSlot::LABEL, bi as u32).map(|n| String::from_utf8_lossy(n).into_owned());
        let label = b.lift.asm.intern(label.as_deref().unwrap_or(""));
        b.lift.asm.begin_block(BlockId::from_u32(b.block_base + bi as u32), label).map_err(fail)?;
        if bi == 0 {
            for (key, v, ty) in b.materialised.drain(..) {
                let data = match key {
                    Materialised::Const(_, value) => b.lift.asm.constant(value),
                    Materialised::NullFunction(_) => {
                        InstData::FuncRef { op: W::NullFunction, func: PackedOption::NONE }
                    }
                    Materialised::FunctionAddr(f) => {
                        InstData::FuncRef { op: W::FunctionAddr, func: PackedOption::some(FunctionId::from_u32(f)) }
                    }
                };
                b.lift.asm.push(data, Some((v, ty))).map_err(fail)?;
            }
        }
        for (data, result) in list {
            b.lift.asm.push(data, result).map_err(fail)?;
        }
    }
    b.lift.asm.end_function().map_err(|e| {
        MapError::no_whale(format!("a function that cannot be assembled ({e})"), location(name, index, &[], None))
    })?;
    b.lift.next_block += body.blocks.len() as u32;
    let Body {
        lift,
        insts,
        analyses,
        locals,
        roles,
        values,
        extra,
        params,
        materialised,
        materialised_values,
        recent_u32,
        ..
    } = b;
    lift.body_buffers = BodyBuffers {
        insts,
        analyses,
        locals,
        roles,
        values,
        extra,
        params,
        materialised,
        materialised_values,
        recent_u32,
    };
    Ok(())
}

/// An instruction to push and the value it defines.
type Pushed = (InstData, Option<(ValueId, TypeId)>);

/// The instruction an LLVM instruction becomes, and an extra one to push before it.
type Emitted = (Option<InstData>, Option<Pushed>);

impl<'a> Body<'_, 'a> {
    fn set_location(&mut self, k: usize) {
        self.at = Some(k);
    }

    fn location(&self) -> String {
        location(self.function_name, self.function_index, &self.insts, self.at)
    }

    fn fail<T>(&self, construct: impl Into<String>) -> Result<T, MapError> {
        Err(MapError::no_whale(construct, self.location()))
    }

    fn new_value(&mut self) -> ValueId {
        let v = ValueId::from_u32(self.lift.next_value);
        self.lift.next_value += 1;
        v
    }

    fn ty(&mut self, slot: TypeSlot) -> Result<TypeId, MapError> {
        let types = self.types;
        if let Some(&t) = self.lift.type_cache.get(&slot) {
            return Ok(t);
        }
        let (name, index, insts, at) = (self.function_name, self.function_index, &self.insts, self.at);
        self.lift.ty(&types, slot, &|| location(name, index, insts, at))
    }

    fn resolve(&self, plane: TypeSlot, slot: u32) -> Option<Ref<'a>> {
        let plane = self.types.canon(plane);
        let count = self.lift.module_count(&self.types, plane);
        if slot < count {
            return self.lift.module_value(&self.types, plane, slot).map(|v| v.map_or(Ref::Null, Ref::Module));
        }
        self.locals.get(&plane)?.get((slot - count) as usize).copied()
    }

    /// The (plane, slot) of operand `i` of instruction `k`.
    fn operand(&self, k: usize, i: usize) -> Option<(TypeSlot, u32)> {
        let plane = self.analyses.plane(k, i)?;
        match self.insts[k].1.operands.get(i)? {
            Operand::Value(slot) | Operand::Index { slot, .. } | Operand::VarArg { slot, .. } => Some((plane, *slot)),
            _ => None,
        }
    }

    fn operand_ref(&self, k: usize, i: usize) -> Option<Ref<'a>> {
        let (plane, slot) = self.operand(k, i)?;
        self.resolve(plane, slot)
    }

    fn is_trap_call(&self, k: usize) -> bool {
        let inst = self.insts[k].1;
        inst.opcode == Opcode::Call
            && matches!(self.operand_ref(k, 0), Some(Ref::Module(ModuleValue::Function(f))) if Some(f) == self.lift.trap_function)
    }

    /// The reason text of a `getelementptr` constant expression into a string global.
    fn reason(&self, r: Option<Ref<'a>>) -> Option<&str> {
        let Some(Ref::Module(ModuleValue::Const(Constant::Expr { opcode: Opcode::GetElementPtr, operands }))) = r
        else {
            return None;
        };
        let base = operands.first()?;
        match self.lift.module_value(&self.types, base.ty, base.slot)? {
            Some(ModuleValue::Global(g)) => self.lift.reasons.get(&g).map(String::as_str),
            _ => None,
        }
    }

    // `k` indexes several parallel tables and looks at `k + 1`.
    #[allow(clippy::needless_range_loop)]
    fn fold(&mut self) -> Result<(), MapError> {
        let n = self.insts.len();
        let mut uses = vec![0u32; n];
        for k in 0..n {
            for i in 0..self.insts[k].1.operands.len() {
                if let Some(Ref::Inst(j)) = self.operand_ref(k, i) {
                    uses[j] += 1;
                }
            }
        }
        self.roles.clear();
        self.roles.resize(n, Role::Plain);
        let int = |t: TypeSlot| (TypeSlot::UBYTE.0..=TypeSlot::LONG.0).contains(&t.0);
        let signed = |t: TypeSlot| int(t) && t.0 % 2 == 1;
        for k in 0..n {
            if self.roles[k] != Role::Plain {
                continue;
            }
            let (bk, inst) = self.insts[k];
            let next = self.insts.get(k + 1).filter(|(bn, _)| *bn == bk).map(|(_, i)| *i);
            let feeds_next = uses[k] == 1
                && next.is_some()
                && (0..next.map_or(0, |i| i.operands.len()))
                    .any(|i| matches!(self.operand_ref(k + 1, i), Some(Ref::Inst(j)) if j == k));
            if inst.opcode == Opcode::Call && self.is_trap_call(k) {
                if self.reason(self.operand_ref(k, 1)).is_some() && next.is_some_and(|i| i.opcode == Opcode::Unwind) {
                    self.roles[k] = Role::Trap;
                    self.roles[k + 1] = Role::Skip;
                    continue;
                }
                self.set_location(k);
                return self.fail(format!("a call of `{}` outside the trap convention", super::TRAP_FUNCTION));
            }
            let (Some(next), true) = (next, feeds_next) else { continue };
            let s = self.types.canon(inst.ty);
            let result = self.analyses.result(k);
            match (inst.opcode, next.opcode) {
                (Opcode::Cast, Opcode::Cast) if int(s) && int(result) && s.0 / 2 == result.0 / 2 && s != result => {
                    let d = self.analyses.result(k + 1);
                    if int(d) && d.0 / 2 > result.0 / 2 {
                        self.roles[k] = Role::Skip;
                        self.roles[k + 1] = Role::Extend(if signed(s) { W::Zext } else { W::Sext });
                    }
                }
                (Opcode::Cast, Opcode::Shl | Opcode::Shr)
                    if int(s)
                        && s != TypeSlot::UBYTE
                        && result == TypeSlot::UBYTE
                        && self.types.canon(next.ty) == s
                        && matches!(self.operand_ref(k + 1, 1), Some(Ref::Inst(j)) if j == k) =>
                {
                    self.roles[k] = Role::Skip;
                    self.roles[k + 1] = Role::ShiftFolded;
                }
                (Opcode::Select, Opcode::Call)
                    if self.is_trap_call(k + 1)
                        && self.reason(self.operand_ref(k, 1)).is_some()
                        && matches!(self.operand_ref(k, 2), Some(Ref::Null)) =>
                {
                    self.roles[k] = Role::Skip;
                    self.roles[k + 1] = Role::TrapIf;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether shift `k` needs a Whale cast of its `ubyte` amount to the shifted type.
    fn needs_amount_cast(&self, k: usize) -> bool {
        let inst = self.insts[k].1;
        matches!(inst.opcode, Opcode::Shl | Opcode::Shr)
            && self.roles[k] == Role::Plain
            && self.types.canon(inst.ty) != TypeSlot::UBYTE
            && matches!(self.operand_ref(k, 1), Some(Ref::Inst(_) | Ref::Arg(_)))
    }

    /// The Whale value of operand `i` of instruction `k`, materialising module constants.
    fn value(&mut self, k: usize, i: usize) -> Result<ValueId, MapError> {
        let Some((plane, slot)) = self.operand(k, i) else { return self.fail(format!("operand {i} is not a value")) };
        match self.resolve(plane, slot) {
            Some(Ref::Inst(j)) => match self.values.get(j).copied().flatten() {
                Some(v) => Ok(v),
                None => self.fail(format!("operand {i} names a value without a Whale equivalent")),
            },
            Some(Ref::Arg(a)) => match self.params.get(a) {
                Some(&v) => Ok(v),
                None => self.fail(format!("operand {i} names a missing argument")),
            },
            Some(r) => {
                let ty = self.ty(plane)?;
                self.materialise(r, ty)
            }
            None => self.fail(format!("operand {i} names no value")),
        }
    }

    fn materialise(&mut self, r: Ref<'a>, ty: TypeId) -> Result<ValueId, MapError> {
        let whale_ty = self.lift.asm.types().to_type(ty);
        let key = match r {
            Ref::Null if matches!(whale_ty, Type::FnPtr(_)) => Materialised::NullFunction(ty),
            Ref::Null if whale_ty.scalar_type_id().is_some() => Materialised::Const(ty, zero(&whale_ty)),
            Ref::Module(ModuleValue::Function(f)) => match self.lift.functions.get(f).copied().flatten() {
                Some(id) => Materialised::FunctionAddr(id.as_u32()),
                None => return self.fail("the address of the trap function"),
            },
            Ref::Module(ModuleValue::Const(c)) | Ref::LocalConst(c) => match const_value(c, &whale_ty) {
                Some(v) => Materialised::Const(ty, v),
                None => {
                    return self.fail(format!(
                        "a constant operand of type {whale_ty} (constant expressions and aggregates are not mapped)"
                    ))
                }
            },
            Ref::Null => return self.fail(format!("a null constant of type {whale_ty}")),
            Ref::Module(ModuleValue::Global(_) | ModuleValue::String(_)) => {
                return self.fail("the address of a global variable (Whale globals have no address)")
            }
            Ref::Arg(_) | Ref::Inst(_) => return self.fail("a local value where a constant was expected"),
        };
        Ok(self.materialised_value(key, ty))
    }

    fn block(&self, k: usize, i: usize) -> Result<BlockId, MapError> {
        match self.insts[k].1.operands.get(i) {
            Some(Operand::Block(b)) => Ok(BlockId::from_u32(self.block_base + b)),
            _ => self.fail(format!("operand {i} is not a block")),
        }
    }

    fn natural_align(&self, ty: TypeId) -> u32 {
        ir::allocation_align(&self.lift.asm.types().to_type(ty), ir::Target::X86_64WhaleLinux).unwrap_or(1)
    }

    fn list(&mut self, items: &[u32]) -> ir::EntityList {
        self.lift.asm.make_list(items)
    }

    fn inst(&mut self, k: usize, inst: &'a Instruction) -> Result<Emitted, MapError> {
        let t = self.types.canon(inst.ty);
        let n = inst.operands.len();
        let int = |t: TypeSlot| (TypeSlot::UBYTE.0..=TypeSlot::LONG.0).contains(&t.0);
        let signed = |t: TypeSlot| int(t) && t.0 % 2 == 1;
        let float = |t: TypeSlot| t == TypeSlot::FLOAT || t == TypeSlot::DOUBLE;
        let data = match inst.opcode {
            Opcode::Ret if n == 0 => InstData::Ret { arg: PackedOption::NONE },
            Opcode::Ret => InstData::Ret { arg: PackedOption::some(self.value(k, 0)?) },
            Opcode::Br if n == 1 => InstData::Br { dest: self.block(k, 0)? },
            Opcode::Br => InstData::Cbr { cond: self.value(k, 2)?, dests: [self.block(k, 0)?, self.block(k, 1)?] },
            Opcode::Switch => {
                let arg = self.value(k, 0)?;
                let default = self.block(k, 1)?;
                let ty = self.ty(t)?;
                let whale_ty = self.lift.asm.types().to_type(ty);
                let mut cases = Vec::new();
                for i in (2..n).step_by(2) {
                    let value = match self.operand_ref(k, i) {
                        Some(Ref::Null) => zero(&whale_ty),
                        Some(Ref::Module(ModuleValue::Const(c)) | Ref::LocalConst(c)) => {
                            match const_value(c, &whale_ty) {
                                Some(v) => v,
                                None => return self.fail("a switch case that is not a plain constant"),
                            }
                        }
                        _ => return self.fail("a switch case that is not a constant"),
                    };
                    let id = self.lift.asm.push_constant(value);
                    cases.push(id.as_u32());
                    cases.push(self.block(k, i + 1)?.as_u32());
                }
                InstData::Switch { arg, default, cases: self.list(&cases) }
            }
            op if op.is_comparison() => {
                let args = [self.value(k, 0)?, self.value(k, 1)?];
                let ty = self.ty(t)?;
                let is_ptr = self.lift.asm.types().is_ptr(ty);
                if float(t) {
                    let pred = match op {
                        Opcode::SetEq => FCmpPred::Oeq,
                        Opcode::SetNe => FCmpPred::Une,
                        Opcode::SetLt => FCmpPred::Olt,
                        Opcode::SetLe => FCmpPred::Ole,
                        Opcode::SetGt => FCmpPred::Ogt,
                        _ => FCmpPred::Oge,
                    };
                    InstData::Compare { op: W::Fcmp, pred: pred as u8, args }
                } else {
                    let pred = match (op, signed(t)) {
                        (Opcode::SetEq, _) => ICmpPred::Eq,
                        (Opcode::SetNe, _) => ICmpPred::Ne,
                        _ if !int(t) => {
                            let what = if is_ptr { "pointers" } else { "bool" };
                            return self.fail(format!("an ordered comparison `{}` of {what}", op.mnemonic()));
                        }
                        (Opcode::SetLt, true) => ICmpPred::Slt,
                        (Opcode::SetLe, true) => ICmpPred::Sle,
                        (Opcode::SetGt, true) => ICmpPred::Sgt,
                        (Opcode::SetGe, true) => ICmpPred::Sge,
                        (Opcode::SetLt, false) => ICmpPred::Ult,
                        (Opcode::SetLe, false) => ICmpPred::Ule,
                        (Opcode::SetGt, false) => ICmpPred::Ugt,
                        _ => ICmpPred::Uge,
                    };
                    InstData::Compare { op: W::Icmp, pred: pred as u8, args }
                }
            }
            Opcode::Xor if int(t) || t == TypeSlot::BOOL => {
                let ones = match self.operand_ref(k, 1) {
                    Some(Ref::Module(ModuleValue::Const(c))) => match c {
                        Constant::Bool(true) => true,
                        Constant::Signed(-1) => signed(t),
                        Constant::Unsigned(v) => !signed(t) && *v == u64::MAX >> (64 - 8 * (1u32 << ((t.0 - 2) / 2))),
                        _ => false,
                    },
                    _ => false,
                };
                if ones {
                    InstData::Unary { op: W::Not, arg: self.value(k, 0)? }
                } else {
                    InstData::Binary { op: W::Xor, args: [self.value(k, 0)?, self.value(k, 1)?] }
                }
            }
            op @ (Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Div
            | Opcode::Rem
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor) => {
                let op = match (op, float(t), signed(t)) {
                    (Opcode::Add, false, _) => W::Add,
                    (Opcode::Sub, false, _) => W::Sub,
                    (Opcode::Mul, false, _) => W::Mul,
                    (Opcode::Add, true, _) => W::Fadd,
                    (Opcode::Sub, true, _) => W::Fsub,
                    (Opcode::Mul, true, _) => W::Fmul,
                    (Opcode::Div, true, _) => W::Fdiv,
                    (Opcode::Rem, true, _) => W::Frem,
                    (Opcode::Div, false, true) => W::Sdiv,
                    (Opcode::Div, false, false) => W::Udiv,
                    (Opcode::Rem, false, true) => W::Srem,
                    (Opcode::Rem, false, false) => W::Urem,
                    (Opcode::And, ..) => W::And,
                    (Opcode::Or, ..) => W::Or,
                    _ => W::Xor,
                };
                InstData::Binary { op, args: [self.value(k, 0)?, self.value(k, 1)?] }
            }
            Opcode::Shl | Opcode::Shr => {
                let op = match (inst.opcode, signed(t)) {
                    (Opcode::Shl, _) => W::Shl,
                    (_, true) => W::Ashr,
                    _ => W::Lshr,
                };
                let x = self.value(k, 0)?;
                let ty = self.ty(t)?;
                let mut extra = None;
                let amount = if self.roles[k] == Role::ShiftFolded {
                    let prev = self.insts[k - 1].1;
                    let Some(&Operand::Value(slot)) = prev.operands.first() else {
                        return self.fail("a shift amount cast without operand");
                    };
                    match self.resolve(self.types.canon(prev.ty), slot) {
                        Some(Ref::Inst(j)) => self.values[j].map_or_else(|| self.fail("a folded shift amount"), Ok)?,
                        Some(Ref::Arg(a)) => self.params[a],
                        Some(r) => self.materialise(r, ty)?,
                        None => return self.fail("a shift amount that names no value"),
                    }
                } else if t == TypeSlot::UBYTE {
                    self.value(k, 1)?
                } else if let Some(v) = self.extra[k] {
                    let amount = self.value(k, 1)?;
                    let cast = if t == TypeSlot::SBYTE { W::Bitcast } else { W::Zext };
                    extra = Some((InstData::Cast { op: cast, arg: amount }, Some((v, ty))));
                    v
                } else {
                    let value = match self.operand_ref(k, 1) {
                        Some(Ref::Null) => 0,
                        Some(
                            Ref::Module(ModuleValue::Const(Constant::Unsigned(v)))
                            | Ref::LocalConst(Constant::Unsigned(v)),
                        ) => *v,
                        _ => return self.fail("a shift amount that is not a ubyte"),
                    };
                    let payload =
                        if signed(t) { ConstValue::I(i128::from(value)) } else { ConstValue::U(u128::from(value)) };
                    self.materialise_value(ty, payload)
                };
                return Ok((Some(InstData::Binary { op, args: [x, amount] }), extra));
            }
            Opcode::Select => {
                InstData::Select { cond: self.value(k, 0)?, arms: [self.value(k, 1)?, self.value(k, 2)?] }
            }
            Opcode::Alloca => {
                let one = match self.operand_ref(k, 0) {
                    None => n == 0,
                    Some(
                        Ref::Module(ModuleValue::Const(Constant::Unsigned(1))) | Ref::LocalConst(Constant::Unsigned(1)),
                    ) => true,
                    _ => false,
                };
                if !one {
                    return self.fail("an alloca of more than one element");
                }
                let Some(pointee) = self.types.pointee(t) else { return self.fail("an alloca of a non-pointer type") };
                let ty = self.ty(pointee)?;
                InstData::Memory { op: W::Alloca, align: self.natural_align(ty), ty, ptr: PackedOption::NONE }
            }
            Opcode::Load => {
                let Some(pointee) = self.types.pointee(t) else { return self.fail("a load through a non-pointer") };
                let ty = self.ty(pointee)?;
                let ptr = self.value(k, 0)?;
                InstData::Memory { op: W::Load, align: self.natural_align(ty), ty, ptr: PackedOption::some(ptr) }
            }
            Opcode::Store => {
                let Some(pointee) = self.types.pointee(t) else { return self.fail("a store through a non-pointer") };
                let ty = self.ty(pointee)?;
                let (value, ptr) = (self.value(k, 0)?, self.value(k, 1)?);
                InstData::Store { align: self.natural_align(ty), value, ptr }
            }
            Opcode::GetElementPtr => {
                let base = self.value(k, 0)?;
                let mut indices = Vec::new();
                for i in 1..n {
                    let v = if self.analyses.is_struct_index(k, i) {
                        let field = match self.operand_ref(k, i) {
                            Some(Ref::Null) => 0,
                            Some(
                                Ref::Module(ModuleValue::Const(Constant::Unsigned(v)))
                                | Ref::LocalConst(Constant::Unsigned(v)),
                            ) => *v,
                            _ => return self.fail("a getelementptr struct index that is not a constant"),
                        };
                        match self.recent_u32.get(&field) {
                            // The `const u32` the writer's input used, when it is the last such one in this block.
                            Some(&(block, v)) if block == self.insts[k].0 => v,
                            _ => self.materialise_value(TypeId::U32, ConstValue::U(u128::from(field))),
                        }
                    } else {
                        self.value(k, i)?
                    };
                    indices.push(v.as_u32());
                }
                InstData::Gep { base, indices: self.list(&indices) }
            }
            Opcode::Phi => {
                let mut pairs = Vec::new();
                for i in (0..n).step_by(2) {
                    pairs.push(self.value(k, i)?.as_u32());
                    pairs.push(self.block(k, i + 1)?.as_u32());
                }
                InstData::Phi { inputs: self.list(&pairs) }
            }
            Opcode::Cast => {
                let d = self.analyses.result(k);
                if let Role::Extend(op) = self.roles[k] {
                    let prev = self.insts[k - 1].1;
                    let Some(&Operand::Value(slot)) = prev.operands.first() else {
                        return self.fail("an extension cast without operand");
                    };
                    let plane = self.types.canon(prev.ty);
                    let arg = match self.resolve(plane, slot) {
                        Some(Ref::Inst(j)) => self.values[j].map_or_else(|| self.fail("a folded cast source"), Ok)?,
                        Some(Ref::Arg(a)) => self.params[a],
                        Some(r) => {
                            let ty = self.ty(plane)?;
                            self.materialise(r, ty)?
                        }
                        None => return self.fail("a cast source that names no value"),
                    };
                    return Ok((Some(InstData::Cast { op, arg }), None));
                }
                if t == d {
                    let ty = self.ty(t)?;
                    if t == TypeSlot::UINT {
                        let value = match self.operand_ref(k, 0) {
                            Some(Ref::Null) => Some(0),
                            Some(
                                Ref::Module(ModuleValue::Const(Constant::Unsigned(v)))
                                | Ref::LocalConst(Constant::Unsigned(v)),
                            ) => Some(*v),
                            _ => None,
                        };
                        if let (Some(value), Some(v)) = (value, self.values[k]) {
                            self.recent_u32.insert(value, (self.insts[k].0, v));
                        }
                    }
                    return Ok((
                        Some(match self.operand_ref(k, 0) {
                            Some(Ref::Inst(_) | Ref::Arg(_)) => InstData::Unary { op: W::Mov, arg: self.value(k, 0)? },
                            Some(Ref::Null) if matches!(self.lift.asm.types().to_type(ty), Type::FnPtr(_)) => {
                                InstData::FuncRef { op: W::NullFunction, func: PackedOption::NONE }
                            }
                            Some(Ref::Null) => {
                                let whale_ty = self.lift.asm.types().to_type(ty);
                                if whale_ty.scalar_type_id().is_none() {
                                    return self.fail(format!("a null constant of type {whale_ty}"));
                                }
                                self.lift.asm.constant(zero(&whale_ty))
                            }
                            Some(Ref::Module(ModuleValue::Function(f))) => {
                                match self.lift.functions.get(f).copied().flatten() {
                                    Some(id) => InstData::FuncRef { op: W::FunctionAddr, func: PackedOption::some(id) },
                                    None => return self.fail("the address of the trap function"),
                                }
                            }
                            Some(Ref::Module(ModuleValue::Const(c)) | Ref::LocalConst(c)) => {
                                let whale_ty = self.lift.asm.types().to_type(ty);
                                match const_value(c, &whale_ty) {
                                    Some(v) => self.lift.asm.constant(v),
                                    None => return self.fail(format!("a constant operand of type {whale_ty}")),
                                }
                            }
                            _ => return self.fail("the address of a global variable (Whale globals have no address)"),
                        }),
                        None,
                    ));
                }
                let arg = self.value(k, 0)?;
                let (sty, dty) = (self.ty(t)?, self.ty(d)?);
                let types = self.lift.asm.types();
                let (sp, dp) = (types.is_ptr(sty), types.is_ptr(dty));
                let (sf, df) = (types.fn_ptr_sig(sty).is_some(), types.fn_ptr_sig(dty).is_some());
                let width = |t: TypeSlot| 8u32 << ((t.0 - 2) / 2);
                let op = if sf || df {
                    return self.fail("a cast of a function pointer");
                } else if int(t) && int(d) {
                    match width(t).cmp(&width(d)) {
                        std::cmp::Ordering::Less if signed(t) => W::Sext,
                        std::cmp::Ordering::Less => W::Zext,
                        std::cmp::Ordering::Greater => W::Trunc,
                        std::cmp::Ordering::Equal => W::Bitcast,
                    }
                } else if t == TypeSlot::BOOL && int(d) {
                    W::Zext
                } else if float(t) && float(d) {
                    if t == TypeSlot::FLOAT {
                        W::Fext
                    } else {
                        W::Ftrunc
                    }
                } else if int(t) && float(d) {
                    if signed(t) {
                        W::ItofS
                    } else {
                        W::ItofU
                    }
                } else if float(t) && int(d) {
                    if signed(d) {
                        W::FtoiS
                    } else {
                        W::FtoiU
                    }
                } else if sp && dp {
                    W::Bitcast
                } else if sp && int(d) {
                    W::Ptrtoint
                } else if int(t) && dp {
                    W::Inttoptr
                } else {
                    return self.fail(format!("a cast from type slot {t} to type slot {d}"));
                };
                InstData::Cast { op, arg }
            }
            Opcode::Call => {
                if self.roles[k] == Role::Trap {
                    let Some(reason) = self.reason(self.operand_ref(k, 1)).map(str::to_string) else {
                        return self.fail("a trap without reason");
                    };
                    let reason: StrId = self.lift.asm.intern(&reason);
                    return Ok((Some(InstData::Trap { reason }), None));
                }
                if self.roles[k] == Role::TrapIf {
                    let select = k - 1;
                    let Some(reason) = self.reason(self.operand_ref(select, 1)).map(str::to_string) else {
                        return self.fail("a trap_if without reason");
                    };
                    let cond = self.value(select, 0)?;
                    let reason = self.lift.asm.intern(&reason);
                    return Ok((Some(InstData::TrapIf { cond, reason }), None));
                }
                if inst.operands.iter().any(|o| matches!(o, Operand::VarArg { .. })) {
                    return self.fail("a varargs call");
                }
                let mut args = Vec::new();
                for i in 1..n {
                    args.push(self.value(k, i)?.as_u32());
                }
                let args = self.list(&args);
                match self.operand_ref(k, 0) {
                    Some(Ref::Module(ModuleValue::Function(f))) => {
                        match self.lift.functions.get(f).copied().flatten() {
                            Some(callee) => InstData::Call { callee, args },
                            None => return self.fail("a call of the trap function"),
                        }
                    }
                    _ => InstData::CallIndirect { callee: self.value(k, 0)?, args },
                }
            }
            other => return self.fail(format!("instruction `{}`", describe(other))),
        };
        Ok((Some(data), None))
    }

    fn materialise_value(&mut self, ty: TypeId, value: ConstValue) -> ValueId {
        self.materialised_value(Materialised::Const(ty, value), ty)
    }

    /// The value of the constant `key` at the start of the entry block, added on its first use.
    fn materialised_value(&mut self, key: Materialised, ty: TypeId) -> ValueId {
        if let Some(&v) = self.materialised_values.get(&key) {
            return v;
        }
        let v = self.new_value();
        self.materialised.push((key, v, ty));
        self.materialised_values.insert(key, v);
        v
    }
}

fn describe(op: Opcode) -> &'static str {
    match op {
        Opcode::VolatileLoad => "volatile load",
        Opcode::VolatileStore => "volatile store",
        other => other.mnemonic(),
    }
}
