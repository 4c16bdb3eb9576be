//! The LLVM 1.3 slot calculator (`llvm13.md` §5.3, §8, §9): numbers a [`Draft`]'s types and values and produces the
//! format model, so that the written bytes are the ones LLVM 1.3 would write for the same module.
//!
//! Types: a derived type is numbered when the first value of that type is; it takes the next slot, then every type
//! reachable from it that has none yet, in post-order (children left to right). With 64 or more types in all, the
//! derived types are stably partitioned, pointers first (§5.3 [M]); planes follow their types. Module values: the
//! globals, the functions, each global's initializer (operands before the constant), then per instruction of every
//! function its constant operands and its result type. Slot 0 of every plane is the null, which is never written;
//! strings are written in the string section and come first in their (array) planes. Inside a function: the
//! parameters, then each block's non-void results. Symbol tables use the crate's documented order
//! ([`SymbolTable::sort`]).

use rustc_hash::FxHashMap as HashMap;

use super::draft::{Draft, DraftConst, DraftInst, DraftOperand, DraftTy, DraftType, DraftValue};
use crate::format::{
    BasicBlock, Constant, ConstantOperand, ConstantPlane, ConstantPool, Endianness, Function, FunctionBody, GlobalVar,
    Instruction, Module, Operand, PointerSize, StringConstant, Symbol, SymbolPlane, SymbolTable, TypeDef, TypeSlot,
};

const NONE: u32 = u32::MAX;

struct Numbering<'d> {
    draft: &'d Draft,
    /// Numbering position of each derived type, or NONE.
    type_order: Vec<u32>,
    derived: Vec<DraftTy>,
    /// Values per plane (keyed by draft type), nulls included.
    planes: HashMap<DraftTy, u32>,
    const_slot: Vec<u32>,
    /// Non-null, non-string constants in numbering order.
    const_order: Vec<u32>,
    strings: Vec<u32>,
}

impl Numbering<'_> {
    fn number_type(&mut self, root: DraftTy) {
        if root < 13 || self.type_order[root as usize] != NONE {
            return;
        }
        self.assign_type(root);
        // Post-order over the types reachable from `root`, each visited once.
        let mut stack: Vec<(DraftTy, usize)> = vec![(root, 0)];
        while let Some(&mut (t, ref mut next)) = stack.last_mut() {
            let children = self.draft.types.get(t).children();
            if let Some(&c) = children.get(*next) {
                *next += 1;
                if c >= 13 && self.type_order[c as usize] == NONE && !stack.iter().any(|&(s, _)| s == c) {
                    stack.push((c, 0));
                }
                continue;
            }
            stack.pop();
            if t != root && self.type_order[t as usize] == NONE {
                self.assign_type(t);
            }
        }
    }

    fn assign_type(&mut self, t: DraftTy) {
        self.type_order[t as usize] = self.derived.len() as u32;
        self.derived.push(t);
    }

    /// Gives the next slot of `plane` (slot 0 being the null).
    fn push(&mut self, plane: DraftTy) -> u32 {
        self.number_type(plane);
        let count = self.planes.entry(plane).or_insert(1);
        *count += 1;
        *count - 1
    }

    fn number_value(&mut self, v: DraftValue) {
        if let DraftValue::Const(c) = v {
            self.number_const(c);
        }
    }

    fn number_const(&mut self, c: u32) {
        if self.const_slot[c as usize] != NONE {
            return;
        }
        let constant = &self.draft.consts[c as usize];
        if let DraftConst::Expr { operands, .. } = constant {
            for &o in operands {
                self.number_value(o);
            }
        }
        let ty = self.draft.const_type(c);
        let slot = match constant {
            DraftConst::Null(_) => {
                self.number_type(ty);
                self.planes.entry(ty).or_insert(1);
                0
            }
            DraftConst::String(..) => {
                self.strings.push(c);
                self.push(ty)
            }
            _ => {
                self.const_order.push(c);
                self.push(ty)
            }
        };
        self.const_slot[c as usize] = slot;
    }

    fn plane_size(&self, plane: DraftTy) -> u32 {
        self.planes.get(&plane).copied().unwrap_or(if plane == 0 || plane == TypeSlot::LABEL.0 { 0 } else { 1 })
    }
}

/// A symbol table being built: one plane per type, found by a lookup rather than a scan of the planes.
#[derive(Default)]
struct TableBuilder {
    table: SymbolTable,
    plane_of: HashMap<TypeSlot, usize>,
}

impl TableBuilder {
    /// Names value `slot` of `plane`, when there is a name.
    fn add(&mut self, plane: TypeSlot, slot: u32, name: &Option<Vec<u8>>) {
        let Some(name) = name else { return };
        let planes = &mut self.table.planes;
        let i = *self.plane_of.entry(plane).or_insert_with(|| {
            planes.push(SymbolPlane { ty: plane, entries: Vec::new() });
            planes.len() - 1
        });
        planes[i].entries.push(Symbol { slot, name: name.clone() });
    }

    /// The table in the documented order ([`SymbolTable::sort`]).
    fn finish(mut self) -> SymbolTable {
        self.table.sort();
        self.table
    }
}

/// Per-function local numbering.
struct Locals {
    whale: Vec<u32>,
    synthetic: Vec<u32>,
}

/// Numbers `draft` and builds the format model.
pub(crate) fn number(draft: &Draft) -> Module {
    let mut n = Numbering {
        draft,
        type_order: vec![NONE; draft.types.list.len()],
        derived: Vec::new(),
        planes: HashMap::default(),
        const_slot: vec![NONE; draft.consts.len()],
        const_order: Vec::new(),
        strings: Vec::new(),
    };
    let global_slots: Vec<u32> = draft.globals.iter().map(|g| n.push(g.pointer)).collect();
    let function_slots: Vec<u32> = draft.functions.iter().map(|f| n.push(f.pointer)).collect();
    for g in &draft.globals {
        n.number_const(g.init);
    }
    for f in &draft.functions {
        for inst in f.body.iter().flat_map(|b| &b.blocks).flat_map(|b| &b.insts) {
            for o in &inst.operands {
                if let DraftOperand::Value(v) | DraftOperand::Index(_, v) = *o {
                    n.number_value(v);
                }
            }
            if let Some((_, t)) = inst.result {
                n.number_type(t);
            }
        }
    }

    // The stable partition of large type tables: pointers first.
    if 13 + n.derived.len() >= 64 {
        let (pointers, others): (Vec<DraftTy>, Vec<DraftTy>) =
            n.derived.iter().partition(|&&t| matches!(draft.types.get(t), DraftType::Pointer(_)));
        n.derived = pointers.into_iter().chain(others).collect();
        for (i, &t) in n.derived.iter().enumerate() {
            n.type_order[t as usize] = i as u32;
        }
    }
    let slot_of = |t: DraftTy| if t < 13 { TypeSlot(t) } else { TypeSlot(13 + n.type_order[t as usize]) };

    let types = n
        .derived
        .iter()
        .map(|&t| match draft.types.get(t) {
            DraftType::Primitive(p) => TypeDef::Primitive(*p),
            DraftType::Pointer(p) => TypeDef::Pointer(slot_of(*p)),
            DraftType::Array(e, len) => TypeDef::Array { element: slot_of(*e), len: *len },
            DraftType::Struct(fields) => TypeDef::Struct(fields.iter().map(|&f| slot_of(f)).collect()),
            DraftType::Function { ret, params, varargs } => TypeDef::Function {
                ret: slot_of(*ret),
                params: params.iter().map(|&p| slot_of(p)).collect(),
                varargs: *varargs,
            },
        })
        .collect();

    let value_type = |v: DraftValue| match v {
        DraftValue::Global(i) => draft.globals[i as usize].pointer,
        DraftValue::Function(i) => draft.functions[i as usize].pointer,
        DraftValue::Const(c) => draft.const_type(c),
        DraftValue::Whale(_) | DraftValue::Synthetic(_) => 0,
    };
    let module_slot = |v: DraftValue| match v {
        DraftValue::Global(i) => global_slots[i as usize],
        DraftValue::Function(i) => function_slots[i as usize],
        DraftValue::Const(c) => n.const_slot[c as usize],
        DraftValue::Whale(_) | DraftValue::Synthetic(_) => 0,
    };

    let strings = n
        .strings
        .iter()
        .filter_map(|&c| match &draft.consts[c as usize] {
            DraftConst::String(t, bytes) => Some(StringConstant { ty: slot_of(*t), bytes: bytes.clone() }),
            _ => None,
        })
        .collect();
    let mut planes: Vec<ConstantPlane> = Vec::new();
    let mut by_plane: HashMap<TypeSlot, usize> = HashMap::default();
    for &c in &n.const_order {
        let ty = slot_of(draft.const_type(c));
        let constant = match &draft.consts[c as usize] {
            DraftConst::True => Constant::Bool(true),
            DraftConst::Signed(_, v) => Constant::Signed(*v),
            DraftConst::Unsigned(_, v) => Constant::Unsigned(*v),
            DraftConst::Float(bits) => Constant::Float(*bits),
            DraftConst::Double(bits) => Constant::Double(*bits),
            DraftConst::Expr { opcode, operands, .. } => Constant::Expr {
                opcode: *opcode,
                operands: operands
                    .iter()
                    .map(|&o| ConstantOperand { slot: module_slot(o), ty: slot_of(value_type(o)) })
                    .collect(),
            },
            DraftConst::Null(_) | DraftConst::String(..) => continue,
        };
        let i = *by_plane.entry(ty).or_insert_with(|| {
            planes.push(ConstantPlane { ty, constants: Vec::new() });
            planes.len() - 1
        });
        planes[i].constants.push(constant);
    }
    planes.sort_by_key(|p| p.ty);

    let globals = draft
        .globals
        .iter()
        .map(|g| GlobalVar {
            ty: slot_of(g.pointer),
            constant: true,
            linkage: g.linkage,
            initializer: Some(n.const_slot[g.init as usize]),
        })
        .collect();

    let mut symbols = TableBuilder::default();
    for (g, &slot) in draft.globals.iter().zip(&global_slots) {
        symbols.add(slot_of(g.pointer), slot, &g.name);
    }
    for (f, &slot) in draft.functions.iter().zip(&function_slots) {
        symbols.add(slot_of(f.pointer), slot, &f.name);
    }
    let symbols = symbols.finish();

    let mut locals = Locals { whale: Vec::new(), synthetic: Vec::new() };
    let mut functions = Vec::with_capacity(draft.functions.len());
    for f in &draft.functions {
        let body = f.body.as_ref().map(|body| {
            let mut counts: HashMap<DraftTy, u32> = HashMap::default();
            let mut next = |t: DraftTy| {
                let c = counts.entry(t).or_insert_with(|| n.plane_size(t));
                *c += 1;
                *c - 1
            };
            locals.synthetic.clear();
            locals.synthetic.resize(body.synthetic as usize, NONE);
            locals.whale.clear();
            locals.whale.resize(body.whale_values as usize, NONE);
            let define = |locals: &mut Locals, v: DraftValue, slot: u32| {
                let entry = match v {
                    DraftValue::Whale(i) => locals.whale.get_mut(i as usize),
                    DraftValue::Synthetic(i) => locals.synthetic.get_mut(i as usize),
                    _ => None,
                };
                if let Some(entry) = entry {
                    *entry = slot;
                }
            };
            let mut table = TableBuilder::default();
            for &(v, t, ref name) in &body.params {
                let slot = next(t);
                define(&mut locals, v, slot);
                table.add(slot_of(t), slot, name);
            }
            for (i, b) in body.blocks.iter().enumerate() {
                table.add(TypeSlot::LABEL, i as u32, &b.name);
                for inst in &b.insts {
                    if let Some((v, t)) = inst.result {
                        let slot = next(t);
                        define(&mut locals, v, slot);
                    }
                }
            }
            let table = table.finish();
            let slot = |v: DraftValue| match v {
                DraftValue::Whale(i) => locals.whale.get(i as usize).copied().unwrap_or(NONE),
                DraftValue::Synthetic(i) => locals.synthetic.get(i as usize).copied().unwrap_or(NONE),
                other => module_slot(other),
            };
            let convert = |inst: &DraftInst| Instruction {
                opcode: inst.opcode,
                ty: slot_of(inst.ty),
                operands: inst
                    .operands
                    .iter()
                    .map(|o| match *o {
                        DraftOperand::Value(v) => Operand::Value(slot(v)),
                        DraftOperand::Block(b) => Operand::Block(b),
                        DraftOperand::Type(t) => Operand::Type(slot_of(t)),
                        DraftOperand::Index(kind, v) => Operand::Index { kind, slot: slot(v) },
                    })
                    .collect(),
            };
            FunctionBody {
                types: Vec::new(),
                constants: Vec::new(),
                blocks: body
                    .blocks
                    .iter()
                    .map(|b| BasicBlock { instructions: b.insts.iter().map(convert).collect() })
                    .collect(),
                symbols: table,
            }
        });
        functions.push(Function { ty: slot_of(f.pointer), linkage: f.linkage, body });
    }

    Module {
        revision: 3,
        endianness: Endianness::Little,
        pointer_size: PointerSize::Bits64,
        types,
        globals,
        functions,
        constants: ConstantPool { strings, planes },
        symbols,
        dependent_libraries: Vec::new(),
        target_triple: draft.triple.clone(),
    }
}
