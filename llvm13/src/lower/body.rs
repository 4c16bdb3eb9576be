//! Whale function bodies to draft instructions, one Whale instruction to one LLVM instruction where LLVM 1.3 has
//! it, plus the documented conventions (`docs/llvm13.md`, "Whale mapping"): `const`/`const_decl`/`mov`/
//! `function_addr`/`null_function` as same-type casts, `not` as `xor` with all ones, shifts and extensions whose
//! LLVM form needs a cast first, and traps as calls of `__whale_trap`.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use ir::{BlockId, CmpOp, ConstValue, FCmpPred, FunctionId, ICmpPred, InstData, Opcode as W, TypeId, ValueId};

use super::draft::{DraftBlock, DraftBody, DraftConst, DraftInst, DraftOperand, DraftTy, DraftValue};
use super::Lower;
use crate::format::{IndexKind, Opcode, TypeSlot};
use crate::map_error::MapError;

struct Body<'l, 'm> {
    l: &'l mut Lower<'m>,
    /// The function being lowered (value and block ids are scoped to it).
    f: ir::Function<'m>,
    index: &'l HashMap<FunctionId, usize>,
    blocks: HashMap<BlockId, u32>,
    /// Constant results of this function, for getelementptr struct indices.
    consts: HashMap<ValueId, ConstValue>,
    out: DraftBody,
    at: At<'m>,
}

/// Where the lowering is, formatted only when an error needs it.
#[derive(Clone, Copy)]
struct At<'m> {
    f: ir::Function<'m>,
    /// Block position, block, instruction index in the block and opcode.
    inst: Option<(usize, BlockId, usize, W)>,
}

impl At<'_> {
    fn describe(&self) -> String {
        match self.inst {
            None => format!("function @{}", self.f.name),
            Some((bi, b, k, op)) => format!(
                "function @{}, block {bi} (`{}`), instruction {k} (`{}`)",
                self.f.name,
                self.f.block_name(b),
                op.mnemonic()
            ),
        }
    }
}

fn signed_slot(t: DraftTy) -> bool {
    matches!(TypeSlot(t), TypeSlot::SBYTE | TypeSlot::SHORT | TypeSlot::INT | TypeSlot::LONG)
}

fn int_slot(t: DraftTy) -> bool {
    (TypeSlot::UBYTE.0..=TypeSlot::LONG.0).contains(&t)
}

/// The integer type of the same width and the other signedness (ubyte 2 <-> sbyte 3, ...).
fn flip_sign(t: DraftTy) -> DraftTy {
    if t % 2 == 0 {
        t + 1
    } else {
        t - 1
    }
}

/// The draft value of Whale value `v` of `f`: its index in the function's dense value table (`u32::MAX`, which no
/// table reaches, for an id the function does not define).
fn whale_value(f: &ir::Function<'_>, v: ValueId) -> DraftValue {
    DraftValue::Whale(f.value_index(v).map_or(u32::MAX, |i| i as u32))
}

pub(crate) fn lower_body<'m>(
    l: &mut Lower<'m>,
    index: &HashMap<FunctionId, usize>,
    f: ir::Function<'m>,
) -> Result<DraftBody, MapError> {
    let m = l.m;
    let mut order: Vec<BlockId> = vec![f.entry];
    order.extend(f.blocks.iter().copied().filter(|&b| b != f.entry));
    let blocks = order.iter().enumerate().map(|(i, &b)| (b, i as u32)).collect();
    let mut body = Body {
        l,
        f,
        index,
        blocks,
        consts: HashMap::default(),
        out: DraftBody { whale_values: f.value_slots() as u32, ..DraftBody::default() },
        at: At { f, inst: None },
    };
    let mut names: HashSet<(DraftTy, &str)> = HashSet::default();
    for p in f.params {
        let location = format!("function @{}, parameter %v{}", f.name, p.value.as_u32());
        let Some(tid) = f.value_type(p.value) else {
            return Err(MapError::no_llvm("a parameter without a type", location));
        };
        let t = body.l.first_class(tid, &|| location.clone())?;
        let name = m.str(p.name);
        let name = (!name.is_empty() && names.insert((t, name))).then(|| name.as_bytes().to_vec());
        body.out.params.push((whale_value(&f, p.value), t, name));
    }
    for (bi, &b) in order.iter().enumerate() {
        let name = f.block_name(b);
        let name = (!name.is_empty() && names.insert((TypeSlot::LABEL.0, name))).then(|| name.as_bytes().to_vec());
        body.out.blocks.push(DraftBlock { name, insts: Vec::new() });
        for (k, i) in f.block_insts(b).enumerate() {
            let data = *f.inst(i);
            body.at.inst = Some((bi, b, k, data.opcode()));
            body.inst(data, f.inst_result(i))?;
        }
    }
    Ok(body.out)
}

impl Body<'_, '_> {
    fn fail<T>(&self, construct: impl Into<String>) -> Result<T, MapError> {
        Err(MapError::no_llvm(construct, self.at.describe()))
    }

    fn ty(&mut self, id: TypeId) -> Result<DraftTy, MapError> {
        let at = self.at;
        self.l.first_class(id, &|| at.describe())
    }

    fn value_ty(&mut self, v: ValueId) -> Result<DraftTy, MapError> {
        match self.f.value_type(v) {
            Some(id) => self.ty(id),
            None => self.fail(format!("undefined value {v:?}")),
        }
    }

    fn block(&self, b: BlockId) -> Result<DraftOperand, MapError> {
        match self.blocks.get(&b) {
            Some(&i) => Ok(DraftOperand::Block(i)),
            None => self.fail(format!("a branch to block {b:?} of another function")),
        }
    }

    fn push(
        &mut self,
        opcode: Opcode,
        ty: DraftTy,
        operands: Vec<DraftOperand>,
        result: Option<(DraftValue, DraftTy)>,
    ) {
        let inst = DraftInst { opcode, ty, operands, result };
        if let Some(b) = self.out.blocks.last_mut() {
            b.insts.push(inst);
        }
    }

    fn synthetic(&mut self) -> DraftValue {
        self.out.synthetic += 1;
        DraftValue::Synthetic(self.out.synthetic - 1)
    }

    fn check_align(&self, align: u32, ty: TypeId) -> Result<(), MapError> {
        let natural = ir::allocation_align(&self.l.m.ty(ty), ir::Target::X86_64WhaleLinux).unwrap_or(0);
        if align != natural {
            return self.fail(format!("alignment {align} (LLVM 1.3 has only the natural alignment, {natural})"));
        }
        Ok(())
    }

    fn inst(&mut self, data: InstData, result: Option<ValueId>) -> Result<(), MapError> {
        use DraftOperand::{Type as Ty, Value as V};
        let m = self.l.m;
        if data.opcode().is_checked() {
            // Named before its `tuple<T, bool>` result type, which has no LLVM 1.3 equivalent as a value either.
            return self.fail(format!("instruction `{}`", data.opcode().mnemonic()));
        }
        let result = match result {
            Some(r) => Some((whale_value(&self.f, r), self.value_ty(r)?, r)),
            None => None,
        };
        let def = result.map(|(v, t, _)| (v, t));
        let f = self.f;
        let whale = |v: ValueId| V(whale_value(&f, v));
        match data {
            InstData::Const { .. } | InstData::ConstWide { .. } | InstData::ConstDecl { .. } => {
                let value = match data {
                    InstData::ConstDecl { decl } => m.const_decl(decl).value,
                    _ => match m.const_payload(&data) {
                        Some(v) => v,
                        None => return self.fail("a constant without a payload"),
                    },
                };
                let Some((_, t, r)) = result else { return Ok(()) };
                self.consts.insert(r, value);
                let c = self.l.constant(t, value);
                self.push(Opcode::Cast, t, vec![V(c), Ty(t)], def);
            }
            InstData::Nullary { op } => return self.fail(format!("instruction `{}`", op.mnemonic())),
            InstData::Unary { op, arg } => {
                let t = self.value_ty(arg)?;
                if op == W::Mov {
                    self.push(Opcode::Cast, t, vec![whale(arg), Ty(t)], def);
                } else {
                    let ones = match TypeSlot(t) {
                        TypeSlot::BOOL => ConstValue::Bool(true),
                        _ if signed_slot(t) => ConstValue::I(-1),
                        _ if int_slot(t) => ConstValue::U(u128::MAX >> (128 - 8 * (1 << ((t - 2) / 2)))),
                        _ => {
                            return self.fail(format!(
                                "instruction `not` on {}",
                                m.type_name(self.f.value_type(arg).unwrap_or(TypeId::VOID))
                            ))
                        }
                    };
                    let c = self.l.constant(t, ones);
                    self.push(Opcode::Xor, t, vec![whale(arg), V(c)], def);
                }
            }
            InstData::Binary { op, args } => {
                let t = self.value_ty(args[0])?;
                let opcode = match op {
                    W::Add | W::Fadd => Opcode::Add,
                    W::Sub | W::Fsub => Opcode::Sub,
                    W::Mul | W::Fmul => Opcode::Mul,
                    W::Sdiv | W::Udiv | W::Fdiv => Opcode::Div,
                    W::Srem | W::Urem | W::Frem => Opcode::Rem,
                    W::And => Opcode::And,
                    W::Or => Opcode::Or,
                    W::Xor => Opcode::Xor,
                    W::Shl | W::Lshr | W::Ashr => {
                        if (op == W::Lshr && signed_slot(t)) || (op == W::Ashr && !signed_slot(t)) {
                            let kind = if op == W::Lshr { "a signed" } else { "an unsigned" };
                            return self.fail(format!("instruction `{}` on {kind} type", op.mnemonic()));
                        }
                        let opcode = if op == W::Shl { Opcode::Shl } else { Opcode::Shr };
                        // LLVM 1.3 shifts by a ubyte: other amount types are cast first.
                        let amount = if t == TypeSlot::UBYTE.0 {
                            whale(args[1])
                        } else {
                            let s = self.synthetic();
                            let ubyte = TypeSlot::UBYTE.0;
                            self.push(Opcode::Cast, t, vec![whale(args[1]), Ty(ubyte)], Some((s, ubyte)));
                            V(s)
                        };
                        self.push(opcode, t, vec![whale(args[0]), amount], def);
                        return Ok(());
                    }
                    _ => return self.fail(format!("instruction `{}`", op.mnemonic())),
                };
                self.push(opcode, t, vec![whale(args[0]), whale(args[1])], def);
            }
            InstData::Compare { op, pred, args } => {
                let t = self.value_ty(args[0])?;
                let opcode = match op {
                    W::Cmp => CmpOp::from_code(pred).map(|p| match p {
                        CmpOp::Eq | CmpOp::Feq => Opcode::SetEq,
                        CmpOp::Ne | CmpOp::Fne => Opcode::SetNe,
                        CmpOp::Slt | CmpOp::Ult | CmpOp::Flt => Opcode::SetLt,
                        CmpOp::Sle | CmpOp::Ule | CmpOp::Fle => Opcode::SetLe,
                        CmpOp::Sgt | CmpOp::Ugt | CmpOp::Fgt => Opcode::SetGt,
                        CmpOp::Sge | CmpOp::Uge | CmpOp::Fge => Opcode::SetGe,
                    }),
                    W::Icmp => ICmpPred::from_code(pred).map(|p| match p {
                        ICmpPred::Eq => Opcode::SetEq,
                        ICmpPred::Ne => Opcode::SetNe,
                        ICmpPred::Slt | ICmpPred::Ult => Opcode::SetLt,
                        ICmpPred::Sle | ICmpPred::Ule => Opcode::SetLe,
                        ICmpPred::Sgt | ICmpPred::Ugt => Opcode::SetGt,
                        ICmpPred::Sge | ICmpPred::Uge => Opcode::SetGe,
                    }),
                    _ => match FCmpPred::from_code(pred) {
                        Some(FCmpPred::Oeq) => Some(Opcode::SetEq),
                        Some(FCmpPred::Une) => Some(Opcode::SetNe),
                        Some(FCmpPred::Olt) => Some(Opcode::SetLt),
                        Some(FCmpPred::Ole) => Some(Opcode::SetLe),
                        Some(FCmpPred::Ogt) => Some(Opcode::SetGt),
                        Some(FCmpPred::Oge) => Some(Opcode::SetGe),
                        Some(p) => {
                            return self
                                .fail(format!("predicate `fcmp {}` (LLVM 1.3 has no setcc for it)", p.keyword()))
                        }
                        None => None,
                    },
                };
                let Some(opcode) = opcode else { return self.fail("an unknown comparison predicate") };
                self.push(opcode, t, vec![whale(args[0]), whale(args[1])], def);
            }
            InstData::Select { cond, arms } => {
                let t = self.value_ty(arms[0])?;
                self.push(Opcode::Select, t, vec![whale(cond), whale(arms[0]), whale(arms[1])], def);
            }
            InstData::Cast { op, arg } => {
                let s = self.value_ty(arg)?;
                let Some((_, d, _)) = result else { return Ok(()) };
                let extend_from_other_sign = match op {
                    W::Zext => signed_slot(s),
                    W::Sext => int_slot(s) && !signed_slot(s),
                    W::Bitcast if !(int_slot(s) && int_slot(d)) && (s == TypeSlot::FLOAT.0 || s == TypeSlot::DOUBLE.0 || d == TypeSlot::FLOAT.0 || d == TypeSlot::DOUBLE.0) => {
                        return self.fail("instruction `bitcast` between an integer and a float (an LLVM 1.3 cast converts the value)")
                    }
                    _ => false,
                };
                let source = if extend_from_other_sign {
                    // LLVM 1.3 extends by the source's signedness: first reinterpret with the other signedness.
                    let v = self.synthetic();
                    let flipped = flip_sign(s);
                    self.push(Opcode::Cast, s, vec![whale(arg), Ty(flipped)], Some((v, flipped)));
                    (V(v), flipped)
                } else {
                    (whale(arg), s)
                };
                self.push(Opcode::Cast, source.1, vec![source.0, Ty(d)], def);
            }
            InstData::Phi { inputs } => {
                let Some((_, t, _)) = result else { return Ok(()) };
                let mut operands = Vec::new();
                for pair in m.list(inputs).chunks_exact(2) {
                    operands.push(whale(ValueId::from_u32(pair[0])));
                    operands.push(self.block(BlockId::from_u32(pair[1]))?);
                }
                self.push(Opcode::Phi, t, operands, def);
            }
            InstData::Extract { .. } => return self.fail("instruction `extract`"),
            InstData::Memory { op, align, ty, ptr } => {
                self.check_align(align, ty)?;
                match (op, ptr.expand()) {
                    (W::Alloca, _) => {
                        let Some((_, t, _)) = result else { return Ok(()) };
                        let one = self.l.constant(TypeSlot::UINT.0, ConstValue::U(1));
                        self.push(Opcode::Alloca, t, vec![V(one)], def);
                    }
                    (W::Load, Some(p)) => {
                        let pt = self.value_ty(p)?;
                        self.push(Opcode::Load, pt, vec![whale(p)], def);
                    }
                    // LLVM has no initialisation tracking: `uninit` is dropped.
                    (W::Uninit, _) => {}
                    _ => return self.fail(format!("instruction `{}`", op.mnemonic())),
                }
            }
            InstData::Store { align, value, ptr } => {
                if let Some(t) = self.f.value_type(value) {
                    self.check_align(align, t)?;
                }
                let pt = self.value_ty(ptr)?;
                self.push(Opcode::Store, pt, vec![whale(value), whale(ptr)], None);
            }
            InstData::Bulk { op, .. } => return self.fail(format!("instruction `{}`", op.mnemonic())),
            InstData::Gep { base, indices } => {
                let pt = self.value_ty(base)?;
                let mut operands = vec![whale(base)];
                let mut current = self.f.value_type(base).unwrap_or(TypeId::VOID);
                for (position, &raw) in m.list(indices).iter().enumerate() {
                    let index = ValueId::from_u32(raw);
                    let key = m.types().key(current).clone();
                    let sequential = match key {
                        ir::TypeKey::Ptr(p) if position == 0 => Some(p),
                        ir::TypeKey::Array(e, _) if position > 0 => Some(e),
                        _ => None,
                    };
                    if let Some(next) = sequential {
                        let kind = match TypeSlot(self.value_ty(index)?) {
                            TypeSlot::INT => IndexKind::Int,
                            TypeSlot::UINT => IndexKind::Uint,
                            TypeSlot::LONG => IndexKind::Long,
                            TypeSlot::ULONG => IndexKind::Ulong,
                            _ => {
                                let ty = m.type_name(self.f.value_type(index).unwrap_or(TypeId::VOID));
                                return self.fail(format!("a getelementptr index of type {ty} (LLVM 1.3 indexes with int, uint, long or ulong)"));
                            }
                        };
                        operands.push(DraftOperand::Index(kind, whale_value(&self.f, index)));
                        current = next;
                        continue;
                    }
                    let (ir::TypeKey::Struct(fields) | ir::TypeKey::Tuple(fields)) = key else {
                        return self.fail("a getelementptr index into a non-aggregate type");
                    };
                    let field = match self.consts.get(&index) {
                        Some(ConstValue::I(v)) => u32::try_from(*v).ok(),
                        Some(ConstValue::U(v)) => u32::try_from(*v).ok(),
                        _ => None,
                    };
                    let Some(field) = field.filter(|&f| (f as usize) < fields.len()) else {
                        return self.fail("a getelementptr struct index that is not a constant of this function");
                    };
                    let c = self.l.constant(TypeSlot::UINT.0, ConstValue::U(u128::from(field)));
                    operands.push(DraftOperand::Index(IndexKind::Uint, c));
                    current = fields[field as usize];
                }
                self.push(Opcode::GetElementPtr, pt, operands, def);
            }
            InstData::FuncRef { op, func } => {
                let Some((_, t, _)) = result else { return Ok(()) };
                let operand = match func.expand() {
                    Some(id) if op == W::FunctionAddr => match self.index.get(&id) {
                        Some(&i) => DraftValue::Function(i as u32),
                        None => return self.fail(format!("the address of undeclared function {id:?}")),
                    },
                    _ => self.l.draft.constant(DraftConst::Null(t)),
                };
                self.push(Opcode::Cast, t, vec![V(operand), Ty(t)], def);
            }
            InstData::Call { callee, args } => {
                let Some(&i) = self.index.get(&callee) else {
                    return self.fail(format!("a call of undeclared function {callee:?}"));
                };
                let pointer = self.l.draft.functions[i].pointer;
                let mut operands = vec![V(DraftValue::Function(i as u32))];
                operands.extend(m.list(args).iter().map(|&a| whale(ValueId::from_u32(a))));
                self.push(Opcode::Call, pointer, operands, def);
            }
            InstData::CallIndirect { callee, args } => {
                let pointer = self.value_ty(callee)?;
                let mut operands = vec![whale(callee)];
                operands.extend(m.list(args).iter().map(|&a| whale(ValueId::from_u32(a))));
                self.push(Opcode::Call, pointer, operands, def);
            }
            InstData::TrapIf { cond, reason } => {
                let text = m.str(reason).to_string();
                let reason = self.l.reason(&text);
                let sbyte_ptr = self.l.draft.types.pointer(TypeSlot::SBYTE.0);
                let null = self.l.draft.constant(DraftConst::Null(sbyte_ptr));
                let s = self.synthetic();
                self.push(Opcode::Select, sbyte_ptr, vec![whale(cond), V(reason), V(null)], Some((s, sbyte_ptr)));
                self.trap_call(V(s))?;
            }
            InstData::Trap { reason } => {
                let text = m.str(reason).to_string();
                let reason = self.l.reason(&text);
                self.trap_call(V(reason))?;
                self.push(Opcode::Unwind, TypeSlot::VOID.0, Vec::new(), None);
            }
            InstData::Br { dest } => {
                let dest = self.block(dest)?;
                self.push(Opcode::Br, TypeSlot::LABEL.0, vec![dest], None);
            }
            InstData::Cbr { cond, dests } => {
                let operands = vec![self.block(dests[0])?, self.block(dests[1])?, whale(cond)];
                self.push(Opcode::Br, TypeSlot::LABEL.0, operands, None);
            }
            InstData::Switch { arg, default, cases } => {
                let t = self.value_ty(arg)?;
                let mut operands = vec![whale(arg), self.block(default)?];
                for pair in m.list(cases).chunks_exact(2) {
                    let value = m.constant(ir::ConstId::from_u32(pair[0]));
                    operands.push(V(self.l.constant(t, value)));
                    operands.push(self.block(BlockId::from_u32(pair[1]))?);
                }
                self.push(Opcode::Switch, t, operands, None);
            }
            InstData::Ret { arg } => match arg.expand() {
                Some(v) => {
                    let t = self.value_ty(v)?;
                    self.push(Opcode::Ret, t, vec![whale(v)], None);
                }
                None => self.push(Opcode::Ret, TypeSlot::VOID.0, Vec::new(), None),
            },
        }
        Ok(())
    }

    fn trap_call(&mut self, reason: DraftOperand) -> Result<(), MapError> {
        let Some(i) = self.l.trap_function else { return self.fail("a trap without the trap function") };
        let pointer = self.l.draft.functions[i as usize].pointer;
        self.push(Opcode::Call, pointer, vec![DraftOperand::Value(DraftValue::Function(i)), reason], None);
        Ok(())
    }
}
