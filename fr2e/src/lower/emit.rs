//! The writer's emitter: one Whale instruction to its logical VOPs ([`Lvop`]), the one description of what is
//! written that every pass of the writer consumes (see the parent module).

use ir::{BlockId, EntityList, FunctionId, InstData, Module, Opcode, StrId, TypeId, ValueId};

use crate::error::LowerError;
use crate::format::vop::opcode as op;
use crate::profile::{self, class};

/// A logical VOP operand.
#[derive(Clone, Copy, Debug)]
pub(super) enum Operand {
    None,
    Value(ValueId),
    /// Local m: the storage of the m-th alloca.
    Local(u32),
    /// Global Index of a function's FN entry (direct callee).
    Function(FunctionId),
    /// Global Address of a function's FN entry (`function_addr`).
    FunctionAddress(FunctionId),
    /// The payload of a `const`, `const_wide` or `const_decl` instruction (kept as a handle: a `ConstValue` is 32
    /// bytes, and logical VOPs are copied around).
    ConstInst(ir::InstId),
    /// An entry of the constant table (a switch key).
    ConstKey(ir::ConstId),
    /// The integer 0 (`null_function`).
    Zero,
}

/// A logical immediate.
#[derive(Clone, Copy, Debug)]
pub(super) enum Imm {
    None,
    Int(i64),
    Label(BlockId),
    Reason(StrId),
    /// An argument list: the values of a pool list.
    Args(EntityList),
    /// The empty switch's jump table: no entries, only the default.
    EmptyTable(BlockId),
}

/// A logical VOP: what the encoder writes, with types and operands still in IR terms.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lvop {
    pub(super) opn: u32,
    pub(super) opr: u32,
    pub(super) ty: Option<TypeId>,
    pub(super) stype: Option<TypeId>,
    pub(super) dst: Operand,
    pub(super) srca: Operand,
    pub(super) srcb: Operand,
    pub(super) srcc: Operand,
    pub(super) imm: Imm,
}

impl Lvop {
    const fn new(opn: u32) -> Self {
        Lvop {
            opn,
            opr: 0,
            ty: None,
            stype: None,
            dst: Operand::None,
            srca: Operand::None,
            srcb: Operand::None,
            srcc: Operand::None,
            imm: Imm::None,
        }
    }
}

/// Turns one function body into logical VOPs (C4, C5, C8).
pub(super) struct Emitter<'m> {
    m: &'m Module,
    func: ir::Function<'m>,
    /// Allocas emitted so far: the next Local number.
    allocas: u32,
}

/// The blocks of `f` in emission order: the entry first, then the others in storage order (C4).
pub(super) fn emission_order<'m>(f: &ir::Function<'m>) -> impl Iterator<Item = BlockId> + 'm {
    let entry = f.entry;
    std::iter::once(entry).chain(f.blocks.iter().copied().filter(move |&b| b != entry))
}

impl<'m> Emitter<'m> {
    pub(super) fn new(m: &'m Module, func: ir::Function<'m>) -> Self {
        Emitter { m, func, allocas: 0 }
    }

    pub(super) fn invalid(&self, what: &'static str) -> LowerError {
        LowerError::Invalid { func: self.func.name.to_string(), what }
    }

    pub(super) fn ty(&self, value: ValueId) -> Result<TypeId, LowerError> {
        self.func
            .value_type(value)
            .ok_or_else(|| LowerError::UndefinedValue { func: self.func.name.to_string(), value })
    }

    /// Emits the whole body through `sink`.
    #[inline]
    pub(super) fn body(&mut self, sink: &mut impl FnMut(&Lvop) -> Result<(), LowerError>) -> Result<(), LowerError> {
        let f = self.func;
        if !f.blocks.contains(&f.entry) {
            return Err(self.invalid("the entry block is not a block of the function"));
        }
        for block in emission_order(&f) {
            if !f.has_block(block) {
                return Err(self.invalid("a block of the function belongs to another function"));
            }
            sink(&Lvop { imm: Imm::Label(block), ..Lvop::new(op::LABEL) })?;
            for inst in f.block_insts(block) {
                self.inst(inst, f.inst(inst), f.inst_result(inst), sink)?;
            }
        }
        Ok(())
    }

    #[inline(always)]
    pub(super) fn inst(
        &mut self,
        inst: ir::InstId,
        data: &InstData,
        result: Option<ValueId>,
        sink: &mut impl FnMut(&Lvop) -> Result<(), LowerError>,
    ) -> Result<(), LowerError> {
        let m = self.m;
        let dst = result.map_or(Operand::None, Operand::Value);
        let rty = match result {
            Some(v) => Some(self.ty(v)?),
            None => None,
        };
        let result_ty = || rty.ok_or_else(|| self.invalid("an instruction lacks its result"));
        let value = Operand::Value;
        let vop = match *data {
            InstData::Nullary { op: Opcode::Undef } => Lvop { ty: Some(result_ty()?), dst, ..Lvop::new(op::X_UNDEF) },
            InstData::Nullary { .. } => return Err(self.invalid("unknown nullary instruction")),
            InstData::Const { .. } | InstData::ConstWide { .. } | InstData::ConstDecl { .. } => {
                Lvop { ty: Some(result_ty()?), dst, srca: Operand::ConstInst(inst), ..Lvop::new(op::MOV) }
            }
            InstData::Unary { op: Opcode::Not, arg } => {
                Lvop { opr: 0x02, ty: Some(result_ty()?), dst, srca: value(arg), ..Lvop::new(op::UNARY) }
            }
            InstData::Unary { arg, .. } => Lvop { ty: Some(result_ty()?), dst, srca: value(arg), ..Lvop::new(op::MOV) },
            InstData::Binary { op: opcode, args } if opcode.is_checked() => Lvop {
                opr: profile::checked_opr(opcode).ok_or_else(|| self.invalid("unknown checked operation"))?,
                ty: Some(self.ty(args[0])?),
                dst,
                srca: value(args[0]),
                srcb: value(args[1]),
                ..Lvop::new(op::X_CHECKED)
            },
            InstData::Binary { op: opcode, args } => {
                let ty = result_ty()?;
                Lvop {
                    opr: profile::binary_opr(opcode, class(ty))
                        .ok_or_else(|| self.invalid("unknown binary operation"))?,
                    ty: Some(ty),
                    dst,
                    srca: value(args[0]),
                    srcb: value(args[1]),
                    ..Lvop::new(op::BINARY)
                }
            }
            InstData::Compare { op: opcode, pred, args } => {
                let ty = self.ty(args[0])?;
                let bad = || self.invalid("unknown comparison predicate");
                let (opn, opr) = match opcode {
                    Opcode::Cmp => {
                        (op::COMPARE, profile::cmp_opr(ir::CmpOp::from_code(pred).ok_or_else(bad)?, class(ty)))
                    }
                    Opcode::Icmp => {
                        (op::X_ICMP, profile::icmp_opr(ir::ICmpPred::from_code(pred).ok_or_else(bad)?, class(ty)))
                    }
                    _ => (op::X_FCMP, profile::fcmp_opr(ir::FCmpPred::from_code(pred).ok_or_else(bad)?)),
                };
                Lvop { opr, ty: Some(ty), dst, srca: value(args[0]), srcb: value(args[1]), ..Lvop::new(opn) }
            }
            InstData::Select { cond, arms } => Lvop {
                opr: 0x01,
                ty: Some(result_ty()?),
                stype: Some(self.ty(cond)?),
                dst,
                srca: value(arms[0]),
                srcb: value(arms[1]),
                srcc: value(cond),
                ..Lvop::new(op::CSELCMP_Z)
            },
            InstData::Cast { op: opcode, arg } => Lvop {
                opr: profile::cast_opr(opcode).ok_or_else(|| self.invalid("unknown cast"))?,
                ty: Some(result_ty()?),
                stype: Some(self.ty(arg)?),
                dst,
                srca: value(arg),
                ..Lvop::new(op::CONV)
            },
            InstData::Phi { inputs } => {
                let pairs = m.list(inputs);
                if pairs.is_empty() {
                    return Err(self.invalid("a phi has no incoming values"));
                }
                let ty = result_ty()?;
                for pair in pairs.chunks_exact(2) {
                    sink(&Lvop {
                        ty: Some(ty),
                        dst,
                        srca: value(ValueId::from_u32(pair[0])),
                        imm: Imm::Label(BlockId::from_u32(pair[1])),
                        ..Lvop::new(op::X_PHI)
                    })?;
                }
                return Ok(());
            }
            InstData::Extract { agg, index } => Lvop {
                ty: Some(result_ty()?),
                dst,
                srca: value(agg),
                imm: Imm::Int(index.into()),
                ..Lvop::new(op::X_EXTRACT)
            },
            InstData::Memory { op: Opcode::Alloca, align, ty, .. } => {
                let local = self.allocas;
                self.allocas += 1;
                Lvop { opr: align, ty: Some(ty), dst, srca: Operand::Local(local), ..Lvop::new(op::LDAVAR) }
            }
            InstData::Memory { op: opcode, align, ty, ptr } => {
                let ptr = ptr.expand().ok_or_else(|| self.invalid("a memory access lacks its pointer"))?;
                match opcode {
                    Opcode::Load => Lvop {
                        opr: align,
                        ty: Some(ty),
                        dst,
                        srca: value(ptr),
                        imm: Imm::Int(0),
                        ..Lvop::new(op::LDIXIMM)
                    },
                    _ => Lvop { opr: align, ty: Some(ty), srca: value(ptr), ..Lvop::new(op::X_UNINIT) },
                }
            }
            InstData::Store { align, value: stored, ptr } => Lvop {
                opr: align,
                ty: Some(self.ty(stored)?),
                dst: value(ptr),
                srca: value(stored),
                imm: Imm::Int(0),
                ..Lvop::new(op::STIXIMM)
            },
            InstData::Bulk { op: opcode, align, args } => {
                let &[a, b, c] = m.list(args) else {
                    return Err(self.invalid("memcpy and memset take three operands"));
                };
                let opn = if opcode == Opcode::Memcpy { op::X_MEMCPY } else { op::X_MEMSET };
                let v = |x: u32| value(ValueId::from_u32(x));
                Lvop { opr: align, srca: v(a), srcb: v(b), srcc: v(c), ..Lvop::new(opn) }
            }
            InstData::Gep { base, indices } => {
                Lvop { ty: Some(result_ty()?), dst, srca: value(base), imm: Imm::Args(indices), ..Lvop::new(op::X_GEP) }
            }
            InstData::FuncRef { func, .. } => {
                let srca = match func.expand() {
                    Some(f) => Operand::FunctionAddress(f),
                    None => Operand::Zero,
                };
                Lvop { ty: Some(result_ty()?), dst, srca, ..Lvop::new(op::MOV) }
            }
            InstData::Call { callee, args } => Lvop {
                ty: Some(rty.unwrap_or(TypeId::VOID)),
                dst,
                srca: Operand::Function(callee),
                imm: Imm::Args(args),
                ..Lvop::new(op::CALL)
            },
            InstData::CallIndirect { callee, args } => Lvop {
                ty: Some(rty.unwrap_or(TypeId::VOID)),
                dst,
                srca: value(callee),
                imm: Imm::Args(args),
                ..Lvop::new(op::CALL)
            },
            InstData::TrapIf { cond, reason } => Lvop {
                ty: Some(self.ty(cond)?),
                srca: value(cond),
                imm: Imm::Reason(reason),
                ..Lvop::new(op::X_TRAPIF)
            },
            InstData::Trap { reason } => Lvop { imm: Imm::Reason(reason), ..Lvop::new(op::X_TRAP) },
            InstData::Br { dest } => Lvop { imm: Imm::Label(dest), ..Lvop::new(op::JMP) },
            InstData::Cbr { cond, dests } => {
                sink(&Lvop {
                    opr: 0x01,
                    ty: Some(self.ty(cond)?),
                    srca: value(cond),
                    imm: Imm::Label(dests[0]),
                    ..Lvop::new(op::JCMP_ZERO)
                })?;
                Lvop { imm: Imm::Label(dests[1]), ..Lvop::new(op::JMP) }
            }
            InstData::Switch { arg, default, cases } => {
                let ty = self.ty(arg)?;
                let cases = m.list(cases);
                if cases.is_empty() {
                    Lvop { ty: Some(ty), srca: value(arg), imm: Imm::EmptyTable(default), ..Lvop::new(op::JMPTAB) }
                } else {
                    for pair in cases.chunks_exact(2) {
                        sink(&Lvop {
                            ty: Some(ty),
                            srca: value(arg),
                            srcb: Operand::ConstKey(ir::ConstId::from_u32(pair[0])),
                            imm: Imm::Label(BlockId::from_u32(pair[1])),
                            ..Lvop::new(op::JCMP)
                        })?;
                    }
                    Lvop { imm: Imm::Label(default), ..Lvop::new(op::JMP) }
                }
            }
            InstData::Ret { arg } => match arg.expand() {
                Some(v) => Lvop { ty: Some(self.func.ret), srca: value(v), ..Lvop::new(op::RET) },
                None => Lvop::new(op::RETV),
            },
        };
        sink(&vop)
    }
}
