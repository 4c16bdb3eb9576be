//! Function bodies: the `vops` stream, decoded once, VOP by VOP, into instructions (`fr2e.md` C4, C5, C8 in reverse).
//!
//! Each body is a small state machine over its VOPs: a `LABEL` opens a block; ordinary VOPs become instructions;
//! consecutive `X_PHI`s with one destination fold into one phi (C8); the terminator shapes of C5 (`JMP`,
//! `JCMP_ZERO JMP`, `JCMP+ JMP`, `JMPTAB`, `RET`, `RETV`, `X_TRAP`) close the block, and the next VOP must be a
//! `LABEL`. Branch targets are labels, which may be defined later in the function, so instructions first carry the
//! label number in place of the block, and [`ModuleAssembler::resolve_block_operands`](ir::ModuleAssembler) rewrites
//! them when the body ends. Every field a VOP restates (the operand type of a compare, a cast's source type, a call's
//! return type) is checked against the value it restates, as the text reader checks restated annotations.

use ir::{BlockId, ConstExpr, ConstValue, InstData, Opcode, PackedOption, Resource, StrId, TypeId, ValueId};

use super::{BodyInfo, GbldEntry, Lift};
use crate::error::{Error, LiftErrorKind};
use crate::format::immediate::Immediate;
use crate::format::register::Register;
use crate::format::tlv::Chunk;
use crate::format::vop::{opcode as op, Vop, VopDecoder};
use crate::format::{ErrorKind, FormatError};
use crate::profile::{self, class};

/// Field sets of A8.1 (the mask without its opn/opr bits) that each Whale opcode takes (C5).
mod fields {
    pub const IMM: u32 = 0x40;
    pub const TYPE_DST: u32 = 0x0C;
    pub const TYPE_DST_A: u32 = 0x1C;
    pub const TYPE_DST_A_B: u32 = 0x3C;
    pub const TYPE_DST_A_IMM: u32 = 0x5C;
    pub const TYPE_A: u32 = 0x14;
    pub const TYPE_A_IMM: u32 = 0x54;
    pub const TYPE_A_B_IMM: u32 = 0x74;
    pub const SELECT: u32 = 0x33C;
    pub const CONV: u32 = 0x11C;
    pub const BULK: u32 = 0x230;
    pub const NONE: u32 = 0;
}

/// The value of a Temporary or Arg register of `scope` (C3); used by constant-expression references too.
pub(super) fn scope_value(scope: &BodyInfo, register: Register, at: u64) -> Result<ValueId, Error> {
    value_of(scope, register, "reference", at).map(|(v, _)| v)
}

#[inline(always)]
fn value_of(scope: &BodyInfo, register: Register, field: &'static str, at: u64) -> Result<(ValueId, TypeId), Error> {
    let (kind, base, seq) = match register {
        Register::Temporary { base, seq } => ("temporary", base, seq),
        Register::Arg { base, seq } => ("argument", base, seq),
        _ => return Err(Error::lift(LiftErrorKind::RegisterKind { field }, at)),
    };
    if seq != 0 {
        return Err(Error::lift(LiftErrorKind::Sequence, at));
    }
    let found = if kind == "temporary" {
        scope.temps.get(base as usize).copied()
    } else {
        scope.params.get(base as usize).map(|&(v, _, t)| (v, t))
    };
    found.ok_or_else(|| Error::lift(LiftErrorKind::UndeclaredRegister { kind, index: base }, at))
}

/// Where a body is in its block structure.
enum Shape {
    /// Before the first `LABEL`.
    Start,
    /// Inside a block that has no terminator yet.
    Open,
    /// After `JCMP_ZERO`: the `JMP` of a `cbr` must follow.
    Cbr { cond: ValueId, taken: u32, at: u64 },
    /// After one or more `JCMP`s: more of them, or the `JMP` of a `switch`.
    Switch { arg: ValueId, ty: TypeId, cases: Vec<u32>, at: u64 },
    /// After a terminator: the next VOP must be a `LABEL`.
    Closed,
}

/// A phi being gathered from consecutive `X_PHI`s.
struct PendingPhi {
    temporary: u32,
    value: ValueId,
    ty: TypeId,
    at: u64,
}

/// The growable tables of a body, kept from one body to the next so that a module of many small functions does not
/// allocate them per function.
#[derive(Default)]
pub(super) struct BodyTables {
    defined: Vec<bool>,
    /// The label of each block so far, and its id.
    blocks: Vec<(u32, BlockId)>,
    /// Every branch target and phi predecessor, with the offset of its VOP.
    targets: Vec<(u32, u64)>,
    /// `(value, predecessor label)` pairs of the phi being gathered.
    phi_pairs: Vec<u32>,
}

/// A body being read.
struct BodyState {
    info: BodyInfo,
    tables: BodyTables,
    shape: Shape,
    phi: Option<PendingPhi>,
    const_decls_used: usize,
    /// The field bits of the VOP being read (its mask without the opn/opr form).
    fields: u32,
}

impl<'a> Lift<'a> {
    /// Reads every body's VOPs in one pass over `vops` (see the module documentation of `lift`).
    pub(super) fn read_bodies(&mut self, vops: Option<&Chunk<'a>>, bodies: Vec<BodyInfo>) -> Result<(), Error> {
        let mut bodies: Vec<Option<BodyInfo>> = bodies.into_iter().map(Some).collect();
        // Segments in stream order: bodies by their first VOP, each body's traces in trace order.
        let mut order: Vec<usize> = (0..bodies.len()).collect();
        let first = |b: &Option<BodyInfo>| b.as_ref().and_then(|b| b.ranges.first()).map_or(0, |r| r.start);
        order.sort_by_key(|&i| first(&bodies[i]));
        let mut segments = Vec::new();
        let mut end = 0u64;
        for &i in &order {
            let Some(body) = &bodies[i] else { continue };
            if body.ranges.is_empty() {
                return Err(Error::lift(LiftErrorKind::Invalid("a function body has no VOPs"), body.offset));
            }
            for range in &body.ranges {
                if range.start < end {
                    let what = "function traces overlap or leave the stream order, which this reader does not support";
                    return Err(Error::lift(LiftErrorKind::Invalid(what), body.offset));
                }
                end = range.end;
                segments.push((i, range.clone()));
            }
        }
        let mut decoder = match vops {
            Some(chunk) => VopDecoder::new(chunk.reader(), self.strings),
            None if segments.is_empty() => return Ok(()),
            None => return Err(Error::lift(LiftErrorKind::Invalid("function traces but no `vops` chunk"), 0)),
        };
        let (mut registers, mut labels) = (Vec::new(), Vec::new());
        let mut state: Option<(usize, BodyState)> = None;
        let mut segment = 0;
        let mut position = 0u64;
        let mut vop = Vop::new(op::LABEL);
        while !decoder.is_empty() {
            let at = decoder.offset();
            registers.clear();
            labels.clear();
            let fields = decoder.next_vop_into(&mut vop, &mut registers, &mut labels)?;
            if let Some((body, range)) = segments.get(segment) {
                if position >= range.start {
                    if state.as_ref().map(|(b, _)| *b) != Some(*body) {
                        if let Some((_, finished)) = state.take() {
                            self.finish_body(finished)?;
                        }
                        let Some(info) = bodies[*body].take() else {
                            return Err(Error::lift(LiftErrorKind::Invalid("a body is read twice"), at));
                        };
                        state = Some((*body, self.begin_body(info)));
                    }
                    if let Some((_, s)) = &mut state {
                        s.fields = fields;
                        self.vop(s, &vop, &registers, &labels, at)?;
                    }
                    if position + 1 == range.end {
                        segment += 1;
                    }
                }
            }
            position += 1;
        }
        if segment < segments.len() {
            let kind = ErrorKind::TraceOutOfRange { record: segment as u64, len: position };
            return Err(FormatError::new(kind, decoder.offset()).into());
        }
        if let Some((_, finished)) = state {
            self.finish_body(finished)?;
        }
        Ok(())
    }

    fn begin_body(&mut self, info: BodyInfo) -> BodyState {
        let mut tables = std::mem::take(&mut self.spare_tables);
        tables.defined.clear();
        tables.defined.resize(info.temps.len(), false);
        tables.blocks.clear();
        tables.targets.clear();
        tables.phi_pairs.clear();
        BodyState { info, tables, shape: Shape::Start, phi: None, const_decls_used: 0, fields: 0 }
    }

    fn finish_body(&mut self, mut s: BodyState) -> Result<(), Error> {
        let at = s.info.offset;
        self.flush_phi(&mut s)?;
        if !matches!(s.shape, Shape::Closed) {
            return Err(Error::lift(LiftErrorKind::Invalid("the last block of a function lacks its terminator"), at));
        }
        if let Some(j) = s.tables.defined.iter().position(|d| !d) {
            return Err(Error::lift(LiftErrorKind::NeverDefined { temporary: j as u32 }, at));
        }
        if s.const_decls_used != s.info.const_decls.len() {
            let what = "a const_decl record names a temporary that is not a constant";
            return Err(Error::lift(LiftErrorKind::Invalid(what), at));
        }
        if let Some(table) = &s.info.blocks {
            if table.len() != s.tables.blocks.len() {
                let kind = LiftErrorKind::Count {
                    what: "block table",
                    expected: s.tables.blocks.len() as u64,
                    found: table.len() as u64,
                };
                return Err(Error::lift(kind, at));
            }
        }
        // Labels of this function, for the branch targets (control flow stays inside the function, A12).
        let blocks = &s.tables.blocks;
        let consecutive = blocks.windows(2).all(|w| w[1].0 == w[0].0.wrapping_add(1));
        let sorted = if consecutive {
            Vec::new()
        } else {
            let mut sorted = blocks.clone();
            sorted.sort_unstable_by_key(|&(label, _)| label);
            sorted
        };
        let first = blocks.first().map_or(0, |b| b.0);
        let lookup = |label: u32| -> Option<BlockId> {
            if consecutive {
                blocks.get(label.wrapping_sub(first) as usize).map(|b| b.1)
            } else {
                sorted.binary_search_by_key(&label, |b| b.0).ok().map(|i| sorted[i].1)
            }
        };
        if let Some(&(label, target_at)) = s.tables.targets.iter().find(|(label, _)| lookup(*label).is_none()) {
            return Err(Error::lift(LiftErrorKind::UnknownLabel { label }, target_at));
        }
        self.asm.resolve_block_operands(lookup).map_err(|e| Error::lift(LiftErrorKind::Assemble(e), at))?;
        self.asm.end_function().map_err(|e| Error::lift(LiftErrorKind::Assemble(e), at))?;
        self.spare_tables = s.tables;
        Ok(())
    }

    #[inline(always)]
    fn push(&mut self, data: InstData, result: Option<(ValueId, TypeId)>, at: u64) -> Result<(), Error> {
        self.asm.push(data, result).map_err(|e| Error::lift(LiftErrorKind::Assemble(e), at))?;
        if self.record_offsets {
            self.inst_offsets.push(at);
        }
        Ok(())
    }

    #[inline(always)]
    fn flush_phi(&mut self, s: &mut BodyState) -> Result<(), Error> {
        if let Some(phi) = s.phi.take() {
            let inputs = self.asm.make_list(&s.tables.phi_pairs);
            self.push(InstData::Phi { inputs }, Some((phi.value, phi.ty)), phi.at)?;
        }
        Ok(())
    }

    #[inline(always)]
    fn ty(&mut self, vop: &Vop, at: u64) -> Result<TypeId, Error> {
        match vop.ty {
            Some(t) => self.vop_type(t, at),
            None => Err(Error::lift(LiftErrorKind::Missing { what: "VOP type" }, at)),
        }
    }

    fn stype(&mut self, vop: &Vop, at: u64) -> Result<TypeId, Error> {
        match vop.stype {
            Some(t) => self.vop_type(t, at),
            None => Err(Error::lift(LiftErrorKind::Missing { what: "VOP source type" }, at)),
        }
    }

    fn block_label(vop: &Vop, at: u64) -> Result<u32, Error> {
        match vop.imm {
            Some(Immediate::Label(label)) => Ok(label),
            _ => Err(Error::lift(LiftErrorKind::Invalid("a label immediate is expected"), at)),
        }
    }

    fn reason(&mut self, vop: &Vop, at: u64) -> Result<StrId, Error> {
        let Some(Immediate::String(index)) = vop.imm else {
            return Err(Error::lift(LiftErrorKind::Invalid("a string immediate is expected"), at));
        };
        let strings = self.strings;
        let bytes = match strings.bytes(index.into()) {
            Some(bytes) => bytes,
            None => return Err(Error::lift(LiftErrorKind::Invalid("a trap reason is NULL"), at)),
        };
        self.intern_name(Some(bytes), at)
    }

    /// The register of an optional field, or a "missing" error.
    #[inline(always)]
    fn field(register: Option<Register>, what: &'static str, at: u64) -> Result<Register, Error> {
        register.ok_or_else(|| Error::lift(LiftErrorKind::Missing { what }, at))
    }

    #[inline(always)]
    fn operand(
        s: &BodyState,
        register: Option<Register>,
        field: &'static str,
        at: u64,
    ) -> Result<(ValueId, TypeId), Error> {
        value_of(&s.info, Self::field(register, field, at)?, field, at)
    }

    /// Defines the Temporary in `dst` (exactly once, C3).
    #[inline(always)]
    fn define(s: &mut BodyState, vop: &Vop, at: u64) -> Result<(u32, ValueId, TypeId), Error> {
        let temporary = match vop.dst {
            Some(Register::Temporary { base, seq: 0 }) => base,
            Some(Register::Temporary { .. }) => return Err(Error::lift(LiftErrorKind::Sequence, at)),
            Some(_) => return Err(Error::lift(LiftErrorKind::RegisterKind { field: "dst" }, at)),
            None => return Err(Error::lift(LiftErrorKind::Missing { what: "dst" }, at)),
        };
        let Some(&(value, ty)) = s.info.temps.get(temporary as usize) else {
            return Err(Error::lift(LiftErrorKind::UndeclaredRegister { kind: "temporary", index: temporary }, at));
        };
        if std::mem::replace(&mut s.tables.defined[temporary as usize], true) {
            return Err(Error::lift(LiftErrorKind::Redefinition { temporary }, at));
        }
        Ok((temporary, value, ty))
    }

    #[inline(always)]
    fn same(found: TypeId, expected: TypeId, field: &'static str, subject: &'static str, at: u64) -> Result<(), Error> {
        if found == expected {
            Ok(())
        } else {
            Err(Error::lift(LiftErrorKind::TypeMismatch { field, subject }, at))
        }
    }

    #[inline(always)]
    fn check_fields(fields: u32, expected: u32, at: u64) -> Result<(), Error> {
        if fields == expected {
            Ok(())
        } else {
            Err(Error::lift(LiftErrorKind::Invalid("a VOP has fields its opcode does not take"), at))
        }
    }

    fn args(&mut self, s: &BodyState, vop: &Vop, registers: &[Register], at: u64) -> Result<ir::EntityList, Error> {
        let Some(Immediate::ArgList { start, len }) = vop.imm else {
            return Err(Error::lift(LiftErrorKind::Invalid("an argument-list immediate is expected"), at));
        };
        let slice = registers.get(start as usize..start as usize + len as usize).unwrap_or_default();
        let mut values = Vec::with_capacity(slice.len());
        for &r in slice {
            values.push(value_of(&s.info, r, "argument list", at)?.0.as_u32());
        }
        Ok(self.asm.make_list(&values))
    }

    fn open_block(&mut self, s: &mut BodyState, vop: &Vop, at: u64) -> Result<(), Error> {
        Self::check_fields(s.fields, fields::IMM, at)?;
        let label = Self::block_label(vop, at)?;
        let k = s.tables.blocks.len();
        let (id, name) = match &s.info.blocks {
            Some(table) => *table.get(k).ok_or_else(|| {
                let kind =
                    LiftErrorKind::Count { what: "block table", expected: k as u64 + 1, found: table.len() as u64 };
                Error::lift(kind, at)
            })?,
            None => (BlockId::from_u32(k as u32), self.asm.intern("")),
        };
        let assemble = |e| Error::lift(LiftErrorKind::Assemble(e), at);
        if k == 0 {
            let info = &s.info;
            self.asm.begin_function(info.id, info.name, info.ret, id, &info.params).map_err(assemble)?;
            if self.record_offsets {
                self.body_starts.push((self.inst_offsets.len(), self.block_offsets.len()));
            }
        }
        self.count(Resource::Blocks, 1, at)?;
        self.asm.begin_block(id, name).map_err(assemble)?;
        if !self.labels.insert(label) {
            return Err(Error::lift(LiftErrorKind::DuplicateLabel { label }, at));
        }
        if self.record_offsets {
            self.block_offsets.push((id, at));
        }
        s.tables.blocks.push((label, id));
        s.shape = Shape::Open;
        Ok(())
    }

    /// One VOP of the body.
    fn vop(
        &mut self,
        s: &mut BodyState,
        vop: &Vop,
        registers: &[Register],
        labels: &[u32],
        at: u64,
    ) -> Result<(), Error> {
        if vop.prd.is_some() {
            return Err(Error::lift(LiftErrorKind::Predicated, at));
        }
        if vop.opn == op::X_PHI {
            return self.phi(s, vop, at);
        }
        self.flush_phi(s)?;
        // Most VOPs are instructions inside an open block: only the other shapes need taking apart.
        let inside = matches!(s.shape, Shape::Open) && vop.opn != op::LABEL;
        if !inside {
            return self.shape_vop(s, vop, at);
        }
        self.instruction(s, vop, registers, labels, at)
    }

    /// A VOP outside an open block, or a LABEL: a block start, or the rest of a `cbr` or `switch` terminator.
    fn shape_vop(&mut self, s: &mut BodyState, vop: &Vop, at: u64) -> Result<(), Error> {
        let invalid = |what| Err(Error::lift(LiftErrorKind::Invalid(what), at));
        match std::mem::replace(&mut s.shape, Shape::Closed) {
            Shape::Start | Shape::Closed if vop.opn == op::LABEL => self.open_block(s, vop, at),
            Shape::Start => invalid("the first VOP of a function must be LABEL"),
            Shape::Closed => invalid("only a LABEL may follow a terminator"),
            Shape::Cbr { cond, taken, at: start } => {
                if vop.opn != op::JMP {
                    return invalid("JCMP_ZERO must be followed by JMP");
                }
                Self::check_fields(s.fields, fields::IMM, at)?;
                let other = Self::block_label(vop, at)?;
                s.tables.targets.push((other, at));
                let dests = [BlockId::from_u32(taken), BlockId::from_u32(other)];
                self.push(InstData::Cbr { cond, dests }, None, start)
            }
            Shape::Switch { arg, ty, mut cases, at: start } => match vop.opn {
                op::JCMP => {
                    let (x, key, label) = self.switch_case(s, vop, at)?;
                    if x != arg || vop.ty.map(|t| self.vop_type(t, at)).transpose()? != Some(ty) {
                        return invalid("a JCMP chain must test one value");
                    }
                    cases.extend([key, label]);
                    s.shape = Shape::Switch { arg, ty, cases, at: start };
                    Ok(())
                }
                op::JMP => {
                    Self::check_fields(s.fields, fields::IMM, at)?;
                    let default = Self::block_label(vop, at)?;
                    s.tables.targets.push((default, at));
                    let cases = self.asm.make_list(&cases);
                    self.push(InstData::Switch { arg, default: BlockId::from_u32(default), cases }, None, start)
                }
                _ => invalid("a JCMP chain must end with JMP"),
            },
            Shape::Open => {
                s.shape = Shape::Open;
                invalid("a block lacks its terminator")
            }
        }
    }

    /// An instruction VOP inside an open block.
    fn instruction(
        &mut self,
        s: &mut BodyState,
        vop: &Vop,
        registers: &[Register],
        labels: &[u32],
        at: u64,
    ) -> Result<(), Error> {
        let operator = |opn: u32, opr: u32| Error::lift(LiftErrorKind::Operator { opn, opr }, at);
        match vop.opn {
            op::LABEL => Err(Error::lift(LiftErrorKind::Invalid("a block lacks its terminator"), at)),
            op::MOV => self.mov(s, vop, at),
            op::X_UNDEF => {
                Self::check_fields(s.fields, fields::TYPE_DST, at)?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                Self::same(self.ty(vop, at)?, rty, "type", "the result", at)?;
                self.push(InstData::Nullary { op: Opcode::Undef }, Some((v, rty)), at)
            }
            op::UNARY => {
                Self::check_fields(s.fields, fields::TYPE_DST_A, at)?;
                if vop.opr != 0x02 {
                    return Err(operator(vop.opn, vop.opr));
                }
                let (_, v, rty) = Self::define(s, vop, at)?;
                Self::same(self.ty(vop, at)?, rty, "type", "the result", at)?;
                let (arg, _) = Self::operand(s, vop.srca, "srca", at)?;
                self.push(InstData::Unary { op: Opcode::Not, arg }, Some((v, rty)), at)
            }
            op::BINARY => {
                Self::check_fields(s.fields, fields::TYPE_DST_A_B, at)?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                let ty = self.ty(vop, at)?;
                Self::same(ty, rty, "type", "the result", at)?;
                let opcode = profile::binary_op(vop.opr, class(ty)).ok_or_else(|| operator(vop.opn, vop.opr))?;
                let (a, _) = Self::operand(s, vop.srca, "srca", at)?;
                let (b, _) = Self::operand(s, vop.srcb, "srcb", at)?;
                self.push(InstData::Binary { op: opcode, args: [a, b] }, Some((v, rty)), at)
            }
            op::X_CHECKED => {
                Self::check_fields(s.fields, fields::TYPE_DST_A_B, at)?;
                let opcode = profile::checked_op(vop.opr).ok_or_else(|| operator(vop.opn, vop.opr))?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                let (a, ta) = Self::operand(s, vop.srca, "srca", at)?;
                Self::same(self.ty(vop, at)?, ta, "type", "the first operand", at)?;
                let (b, _) = Self::operand(s, vop.srcb, "srcb", at)?;
                self.push(InstData::Binary { op: opcode, args: [a, b] }, Some((v, rty)), at)
            }
            op::COMPARE | op::X_ICMP | op::X_FCMP => {
                Self::check_fields(s.fields, fields::TYPE_DST_A_B, at)?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                let (a, ta) = Self::operand(s, vop.srca, "srca", at)?;
                let ty = self.ty(vop, at)?;
                Self::same(ty, ta, "type", "the first operand", at)?;
                let (b, _) = Self::operand(s, vop.srcb, "srcb", at)?;
                let (opcode, pred) = match vop.opn {
                    op::COMPARE => (Opcode::Cmp, profile::cmp_pred(vop.opr, class(ty)).map(|p| p as u8)),
                    op::X_ICMP => (Opcode::Icmp, profile::icmp_pred(vop.opr, class(ty)).map(|p| p as u8)),
                    _ => (Opcode::Fcmp, profile::fcmp_pred(vop.opr).map(|p| p as u8)),
                };
                let pred = pred.ok_or_else(|| operator(vop.opn, vop.opr))?;
                self.push(InstData::Compare { op: opcode, pred, args: [a, b] }, Some((v, rty)), at)
            }
            op::CSELCMP_Z => {
                Self::check_fields(s.fields, fields::SELECT, at)?;
                if vop.opr != 0x01 {
                    return Err(operator(vop.opn, vop.opr));
                }
                let (_, v, rty) = Self::define(s, vop, at)?;
                Self::same(self.ty(vop, at)?, rty, "type", "the result", at)?;
                let (cond, tc) = Self::operand(s, vop.srcc, "srcc", at)?;
                Self::same(self.stype(vop, at)?, tc, "stype", "the condition", at)?;
                let (a, _) = Self::operand(s, vop.srca, "srca", at)?;
                let (b, _) = Self::operand(s, vop.srcb, "srcb", at)?;
                self.push(InstData::Select { cond, arms: [a, b] }, Some((v, rty)), at)
            }
            op::CONV => {
                Self::check_fields(s.fields, fields::CONV, at)?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                let ty = self.ty(vop, at)?;
                Self::same(ty, rty, "type", "the result", at)?;
                let (arg, ta) = Self::operand(s, vop.srca, "srca", at)?;
                let stype = self.stype(vop, at)?;
                Self::same(stype, ta, "stype", "the operand", at)?;
                let opcode = match vop.opr {
                    0 => self.implied_cast(stype, ty),
                    opr => profile::cast_op(opr),
                };
                let opcode = opcode.ok_or_else(|| operator(vop.opn, vop.opr))?;
                self.push(InstData::Cast { op: opcode, arg }, Some((v, rty)), at)
            }
            op::X_EXTRACT => {
                Self::check_fields(s.fields, fields::TYPE_DST_A_IMM, at)?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                Self::same(self.ty(vop, at)?, rty, "type", "the result", at)?;
                let (agg, _) = Self::operand(s, vop.srca, "srca", at)?;
                let index = match vop.imm {
                    Some(Immediate::Int(k)) => u32::try_from(k).ok(),
                    _ => None,
                };
                let index =
                    index.ok_or_else(|| Error::lift(LiftErrorKind::Invalid("extract needs an index immediate"), at))?;
                self.push(InstData::Extract { agg, index }, Some((v, rty)), at)
            }
            op::LDAVAR => {
                Self::check_fields(s.fields, fields::TYPE_DST_A, at)?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                let ty = self.ty(vop, at)?;
                let local = match vop.srca {
                    Some(Register::Local { base, seq: 0 }) => base,
                    Some(Register::Local { .. }) => return Err(Error::lift(LiftErrorKind::Sequence, at)),
                    _ => return Err(Error::lift(LiftErrorKind::RegisterKind { field: "srca" }, at)),
                };
                let declared = s.info.locals.get(local as usize).copied().ok_or_else(|| {
                    Error::lift(LiftErrorKind::UndeclaredRegister { kind: "local", index: local }, at)
                })?;
                Self::same(ty, declared, "type", "the local", at)?;
                let data = InstData::Memory { op: Opcode::Alloca, align: vop.opr, ty, ptr: PackedOption::NONE };
                self.push(data, Some((v, rty)), at)
            }
            op::LDIXIMM => {
                Self::check_fields(s.fields, fields::TYPE_DST_A_IMM, at)?;
                Self::zero_index(vop, at)?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                let ty = self.ty(vop, at)?;
                let (ptr, _) = Self::operand(s, vop.srca, "srca", at)?;
                let data = InstData::Memory { op: Opcode::Load, align: vop.opr, ty, ptr: PackedOption::some(ptr) };
                self.push(data, Some((v, rty)), at)
            }
            op::STIXIMM => {
                Self::check_fields(s.fields, fields::TYPE_DST_A_IMM, at)?;
                Self::zero_index(vop, at)?;
                // The stored-to pointer is in dst, as a use (A8.5).
                let (ptr, _) = Self::operand(s, vop.dst, "dst", at)?;
                let (value, tv) = Self::operand(s, vop.srca, "srca", at)?;
                Self::same(self.ty(vop, at)?, tv, "type", "the stored value", at)?;
                self.push(InstData::Store { align: vop.opr, value, ptr }, None, at)
            }
            op::X_UNINIT => {
                Self::check_fields(s.fields, fields::TYPE_A, at)?;
                let ty = self.ty(vop, at)?;
                let (ptr, _) = Self::operand(s, vop.srca, "srca", at)?;
                let data = InstData::Memory { op: Opcode::Uninit, align: vop.opr, ty, ptr: PackedOption::some(ptr) };
                self.push(data, None, at)
            }
            op::X_MEMCPY | op::X_MEMSET => {
                Self::check_fields(s.fields, fields::BULK, at)?;
                let (a, _) = Self::operand(s, vop.srca, "srca", at)?;
                let (b, _) = Self::operand(s, vop.srcb, "srcb", at)?;
                let (c, _) = Self::operand(s, vop.srcc, "srcc", at)?;
                let opcode = if vop.opn == op::X_MEMCPY { Opcode::Memcpy } else { Opcode::Memset };
                let args = self.asm.make_list(&[a.as_u32(), b.as_u32(), c.as_u32()]);
                self.push(InstData::Bulk { op: opcode, align: vop.opr, args }, None, at)
            }
            op::X_GEP => {
                Self::check_fields(s.fields, fields::TYPE_DST_A_IMM, at)?;
                let (_, v, rty) = Self::define(s, vop, at)?;
                Self::same(self.ty(vop, at)?, rty, "type", "the result", at)?;
                let (base, _) = Self::operand(s, vop.srca, "srca", at)?;
                let indices = self.args(s, vop, registers, at)?;
                self.push(InstData::Gep { base, indices }, Some((v, rty)), at)
            }
            op::CALL => self.call(s, vop, registers, at),
            op::X_TRAPIF => {
                Self::check_fields(s.fields, fields::TYPE_A_IMM, at)?;
                let (cond, tc) = Self::operand(s, vop.srca, "srca", at)?;
                Self::same(self.ty(vop, at)?, tc, "type", "the condition", at)?;
                let reason = self.reason(vop, at)?;
                self.push(InstData::TrapIf { cond, reason }, None, at)
            }
            op::X_TRAP => {
                Self::check_fields(s.fields, fields::IMM, at)?;
                let reason = self.reason(vop, at)?;
                s.shape = Shape::Closed;
                self.push(InstData::Trap { reason }, None, at)
            }
            op::JMP => {
                Self::check_fields(s.fields, fields::IMM, at)?;
                let label = Self::block_label(vop, at)?;
                s.tables.targets.push((label, at));
                s.shape = Shape::Closed;
                self.push(InstData::Br { dest: BlockId::from_u32(label) }, None, at)
            }
            op::JCMP_ZERO => {
                Self::check_fields(s.fields, fields::TYPE_A_IMM, at)?;
                if vop.opr != 0x01 {
                    return Err(operator(vop.opn, vop.opr));
                }
                let (cond, tc) = Self::operand(s, vop.srca, "srca", at)?;
                Self::same(self.ty(vop, at)?, tc, "type", "the condition", at)?;
                let taken = Self::block_label(vop, at)?;
                s.tables.targets.push((taken, at));
                s.shape = Shape::Cbr { cond, taken, at };
                Ok(())
            }
            op::JCMP => {
                let (arg, key, label) = self.switch_case(s, vop, at)?;
                let ty = self.ty(vop, at)?;
                s.shape = Shape::Switch { arg, ty, cases: vec![key, label], at };
                Ok(())
            }
            op::JMPTAB => self.jump_table(s, vop, labels, at),
            op::RET => {
                Self::check_fields(s.fields, fields::TYPE_A, at)?;
                let (value, _) = Self::operand(s, vop.srca, "srca", at)?;
                Self::same(self.ty(vop, at)?, s.info.ret, "type", "the function's return type", at)?;
                s.shape = Shape::Closed;
                self.push(InstData::Ret { arg: PackedOption::some(value) }, None, at)
            }
            op::RETV => {
                Self::check_fields(s.fields, fields::NONE, at)?;
                s.shape = Shape::Closed;
                self.push(InstData::Ret { arg: PackedOption::NONE }, None, at)
            }
            opn => Err(Error::lift(LiftErrorKind::Opcode { opn }, at)),
        }
    }

    /// LDIXIMM and STIXIMM carry index 0 (C5).
    fn zero_index(vop: &Vop, at: u64) -> Result<(), Error> {
        match vop.imm {
            Some(Immediate::Int(0)) => Ok(()),
            _ => Err(Error::lift(LiftErrorKind::Invalid("a load or store needs index immediate 0"), at)),
        }
    }

    /// `X_PHI`: one incoming edge; consecutive ones with the same dst are one phi (C8).
    fn phi(&mut self, s: &mut BodyState, vop: &Vop, at: u64) -> Result<(), Error> {
        Self::check_fields(s.fields, fields::TYPE_DST_A_IMM, at)?;
        let ty = self.ty(vop, at)?;
        let (value, _) = Self::operand(s, vop.srca, "srca", at)?;
        let label = Self::block_label(vop, at)?;
        s.tables.targets.push((label, at));
        if let (Some(phi), Some(Register::Temporary { base, seq: 0 })) = (&mut s.phi, vop.dst) {
            if phi.temporary == base {
                Self::same(ty, phi.ty, "type", "the phi", at)?;
                s.tables.phi_pairs.extend([value.as_u32(), label]);
                return Ok(());
            }
        }
        self.flush_phi(s)?;
        if !matches!(s.shape, Shape::Open) {
            return Err(Error::lift(LiftErrorKind::Invalid("X_PHI outside a block"), at));
        }
        let (temporary, result, rty) = Self::define(s, vop, at)?;
        Self::same(ty, rty, "type", "the result", at)?;
        s.tables.phi_pairs.clear();
        s.tables.phi_pairs.extend([value.as_u32(), label]);
        s.phi = Some(PendingPhi { temporary, value: result, ty: rty, at });
        Ok(())
    }

    /// MOV: `mov`, `const`, `const_decl`, `function_addr` or `null_function`, told apart by srca (C5 remarks).
    fn mov(&mut self, s: &mut BodyState, vop: &Vop, at: u64) -> Result<(), Error> {
        Self::check_fields(s.fields, fields::TYPE_DST_A, at)?;
        let (temporary, v, rty) = Self::define(s, vop, at)?;
        let ty = self.ty(vop, at)?;
        Self::same(ty, rty, "type", "the result", at)?;
        let source = Self::field(vop.srca, "srca", at)?;
        let data = match source {
            Register::Temporary { .. } | Register::Arg { .. } => {
                InstData::Unary { op: Opcode::Mov, arg: value_of(&s.info, source, "srca", at)?.0 }
            }
            Register::GlobalAddress(index) => match self.gbld_entry(index) {
                Some(GbldEntry::Function { id, .. }) => {
                    InstData::FuncRef { op: Opcode::FunctionAddr, func: PackedOption::some(id) }
                }
                _ => return Err(Error::lift(LiftErrorKind::RegisterKind { field: "srca" }, at)),
            },
            register if self.asm.types().fn_ptr_sig(ty).is_some() => {
                if register != Register::Int(0) {
                    return Err(Error::lift(LiftErrorKind::BadConstant, at));
                }
                InstData::FuncRef { op: Opcode::NullFunction, func: PackedOption::NONE }
            }
            register => {
                let value =
                    profile::register_const(register, ty).ok_or_else(|| Error::lift(LiftErrorKind::BadConstant, at))?;
                match s.info.const_decls.binary_search_by_key(&temporary, |d| d.0) {
                    Ok(i) => {
                        s.const_decls_used += 1;
                        let placeholder = ConstExpr::literal(ir::Type::Void, ConstValue::Bool(false));
                        let (_, name, expr) = &mut s.info.const_decls[i];
                        let expr = std::mem::replace(expr, placeholder);
                        self.asm.const_decl(*name, expr, value)
                    }
                    Err(_) => self.asm.constant(value),
                }
            }
        };
        self.push(data, Some((v, rty)), at)
    }

    fn gbld_entry(&self, index: u64) -> Option<GbldEntry> {
        let position = usize::try_from(index).ok()?.checked_sub(1)?;
        self.gbld.get(position).copied()
    }

    /// CALL: direct through a Global Index, indirect through a value; the convention comes from the callee (C5).
    fn call(&mut self, s: &mut BodyState, vop: &Vop, registers: &[Register], at: u64) -> Result<(), Error> {
        let ty = self.ty(vop, at)?;
        let void = ty == TypeId::VOID;
        Self::check_fields(s.fields, if void { fields::TYPE_A_IMM } else { fields::TYPE_DST_A_IMM }, at)?;
        let result = if void {
            None
        } else {
            let (_, v, rty) = Self::define(s, vop, at)?;
            Self::same(ty, rty, "type", "the result", at)?;
            Some((v, rty))
        };
        let callee = Self::field(vop.srca, "srca", at)?;
        let args = self.args(s, vop, registers, at)?;
        let data = match callee {
            Register::Global(index) => match self.gbld_entry(index) {
                Some(GbldEntry::Function { id, sig }) => {
                    Self::same(ty, self.asm.types().sig(sig).ret, "type", "the callee's return type", at)?;
                    InstData::Call { callee: id, args }
                }
                Some(GbldEntry::Synthesized) => {
                    let what = "calls to synthesized declarations are not in the Whale profile";
                    return Err(Error::lift(LiftErrorKind::Invalid(what), at));
                }
                _ => return Err(Error::lift(LiftErrorKind::RegisterKind { field: "srca" }, at)),
            },
            register => {
                let (pointer, tp) = value_of(&s.info, register, "srca", at)?;
                if let Some(sig) = self.asm.types().fn_ptr_sig(tp) {
                    Self::same(ty, self.asm.types().sig(sig).ret, "type", "the callee's return type", at)?;
                }
                InstData::CallIndirect { callee: pointer, args }
            }
        };
        self.push(data, result, at)
    }

    /// One JCMP(EQ) of a switch chain: the tested value, the key's constant id and the target label.
    fn switch_case(&mut self, s: &mut BodyState, vop: &Vop, at: u64) -> Result<(ValueId, u32, u32), Error> {
        Self::check_fields(s.fields, fields::TYPE_A_B_IMM, at)?;
        if vop.opr != 0x00 {
            return Err(Error::lift(LiftErrorKind::Operator { opn: vop.opn, opr: vop.opr }, at));
        }
        let (arg, ta) = Self::operand(s, vop.srca, "srca", at)?;
        let ty = self.ty(vop, at)?;
        Self::same(ty, ta, "type", "the switch operand", at)?;
        let key = Self::field(vop.srcb, "srcb", at)?;
        let key = profile::register_const(key, ty).ok_or_else(|| Error::lift(LiftErrorKind::BadConstant, at))?;
        let label = Self::block_label(vop, at)?;
        s.tables.targets.push((label, at));
        Ok((arg, self.asm.push_constant(key).as_u32(), label))
    }

    /// JMPTAB: entry j is the target of `base + j`, the last label the default (B72); the writer only emits the
    /// empty table of a switch without cases.
    fn jump_table(&mut self, s: &mut BodyState, vop: &Vop, labels: &[u32], at: u64) -> Result<(), Error> {
        Self::check_fields(s.fields, fields::TYPE_A_IMM, at)?;
        let (arg, ta) = Self::operand(s, vop.srca, "srca", at)?;
        let ty = self.ty(vop, at)?;
        Self::same(ty, ta, "type", "the switch operand", at)?;
        let Some(Immediate::JumpTable { base, start, len }) = vop.imm else {
            return Err(Error::lift(LiftErrorKind::Invalid("a jump-table immediate is expected"), at));
        };
        let table = labels.get(start as usize..start as usize + len as usize).unwrap_or_default();
        let Some((&default, entries)) = table.split_last() else {
            return Err(Error::lift(LiftErrorKind::Invalid("a jump table needs a default label"), at));
        };
        let mut cases = Vec::with_capacity(entries.len() * 2);
        for (j, &label) in entries.iter().enumerate() {
            let key = profile::register_const(profile::int_register(i128::from(base) + j as i128), ty)
                .ok_or_else(|| Error::lift(LiftErrorKind::BadConstant, at))?;
            cases.extend([self.asm.push_constant(key).as_u32(), label]);
            s.tables.targets.push((label, at));
        }
        s.tables.targets.push((default, at));
        let cases = self.asm.make_list(&cases);
        s.shape = Shape::Closed;
        self.push(InstData::Switch { arg, default: BlockId::from_u32(default), cases }, None, at)
    }

    /// CONV operator 0, "the conversion C would apply" between `from` and `to` (C6.3), for foreign producers.
    fn implied_cast(&self, from: TypeId, to: TypeId) -> Option<Opcode> {
        let types = self.asm.types();
        let int = |t: TypeId| t.is_int() || t == TypeId::BOOL;
        let bits = |t: TypeId| t.scalar_bits().unwrap_or(0);
        Some(match (from, to) {
            (f, t) if int(f) && int(t) => match bits(t).cmp(&bits(f)) {
                std::cmp::Ordering::Greater if f.is_signed_int() => Opcode::Sext,
                std::cmp::Ordering::Greater => Opcode::Zext,
                std::cmp::Ordering::Less => Opcode::Trunc,
                std::cmp::Ordering::Equal => Opcode::Bitcast,
            },
            (f, t) if int(f) && t.is_float() => {
                if f.is_signed_int() {
                    Opcode::ItofS
                } else {
                    Opcode::ItofU
                }
            }
            (f, t) if f.is_float() && int(t) => {
                if t.is_signed_int() {
                    Opcode::FtoiS
                } else {
                    Opcode::FtoiU
                }
            }
            (f, t) if f.is_float() && t.is_float() => match bits(t).cmp(&bits(f)) {
                std::cmp::Ordering::Greater => Opcode::Fext,
                std::cmp::Ordering::Less => Opcode::Ftrunc,
                std::cmp::Ordering::Equal => Opcode::Bitcast,
            },
            (f, t) if types.is_ptr(f) && int(t) => Opcode::Ptrtoint,
            (f, t) if int(f) && types.is_ptr(t) => Opcode::Inttoptr,
            (f, t) if types.is_ptr(f) && types.is_ptr(t) => Opcode::Bitcast,
            _ => return None,
        })
    }
}
