//! Compact instruction records.
//!
//! An [`InstData`] is `Copy` and 16 bytes: the variant is the operand shape and
//! carries the opcode, so operand walks, printing and building never list
//! opcodes. Everything variable-length lives out of line — operand lists in the
//! module's [`ListPool`], wide constants and switch keys in its constant table,
//! trap reasons in its string table — so no instruction owns a heap allocation.
//! Result types are stored once, on the result value.

use crate::entity::{
    BlockId, ConstDeclId, ConstId, EntityList, FunctionId, ListPool, PackedOption, StrId, TypeId, ValueId,
};
use crate::opcode::Opcode;

/// Which [`crate::ConstValue`] kind a `const` payload holds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum ConstKind {
    /// `bool`: payload 0 or 1.
    Bool,
    /// Signed integer, sign-extended from the stored 64 bits.
    I,
    /// Unsigned integer, zero-extended from the stored 64 bits.
    U,
    /// binary16 bits.
    F16,
    /// binary32 bits.
    F32,
    /// binary64 bits.
    F64,
}

/// One instruction (at most 16 bytes; see the size test).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum InstData {
    /// `undef T` (rejected by the verifier; kept so that it can be reported).
    Nullary {
        /// Opcode.
        op: Opcode,
    },
    /// `const T V` whose payload fits 64 bits (low word first).
    Const {
        /// Payload kind.
        kind: ConstKind,
        /// Payload bits.
        bits: [u32; 2],
    },
    /// `const T V` with a 128-bit payload in the constant table.
    ConstWide {
        /// Constant table entry.
        id: ConstId,
    },
    /// `const_decl "NAME" EXPR => const T V`.
    ConstDecl {
        /// Constant-declaration record.
        decl: ConstDeclId,
    },
    /// `mov`, `not`.
    Unary {
        /// Opcode.
        op: Opcode,
        /// Operand.
        arg: ValueId,
    },
    /// Arithmetic, bitwise, shifts, float arithmetic and checked arithmetic.
    Binary {
        /// Opcode.
        op: Opcode,
        /// Left and right operands.
        args: [ValueId; 2],
    },
    /// `cmp`, `icmp`, `fcmp`; `pred` is the code of the opcode's predicate enum.
    Compare {
        /// Opcode.
        op: Opcode,
        /// Predicate code ([`crate::CmpOp`], [`crate::ICmpPred`] or [`crate::FCmpPred`]).
        pred: u8,
        /// Operands.
        args: [ValueId; 2],
    },
    /// `select bool %c, T %a, T %b`.
    Select {
        /// Condition.
        cond: ValueId,
        /// Value if true, value if false.
        arms: [ValueId; 2],
    },
    /// A conversion to the result type.
    Cast {
        /// Cast opcode.
        op: Opcode,
        /// Operand.
        arg: ValueId,
    },
    /// `phi`: list of `(value, block)` slot pairs.
    Phi {
        /// Incoming pairs.
        inputs: EntityList,
    },
    /// `extract %vT, IDX`.
    Extract {
        /// Aggregate operand.
        agg: ValueId,
        /// Field index.
        index: u32,
    },
    /// `alloca T, align A` / `load T, ptr<T> %p, align A` / `uninit T, ptr<T> %p, align A`.
    Memory {
        /// Opcode.
        op: Opcode,
        /// Alignment in bytes, as written (validity is the verifier's job).
        align: u32,
        /// The accessed or allocated type.
        ty: TypeId,
        /// Pointer operand (absent for `alloca`).
        ptr: PackedOption<ValueId>,
    },
    /// `store T %v, ptr<T> %p, align A`.
    Store {
        /// Alignment in bytes.
        align: u32,
        /// Stored value.
        value: ValueId,
        /// Destination pointer.
        ptr: ValueId,
    },
    /// `memcpy`/`memset`: three operands in the pool.
    Bulk {
        /// Opcode.
        op: Opcode,
        /// Alignment in bytes.
        align: u32,
        /// Operands (destination, source or byte, length).
        args: EntityList,
    },
    /// `gep %base, %i0, ...`.
    Gep {
        /// Base pointer.
        base: ValueId,
        /// Indices.
        indices: EntityList,
    },
    /// `null_function` / `function_addr @fK`.
    FuncRef {
        /// Opcode.
        op: Opcode,
        /// Function for `function_addr`.
        func: PackedOption<FunctionId>,
    },
    /// Direct call through the declaration table.
    Call {
        /// Callee identity.
        callee: FunctionId,
        /// Arguments.
        args: EntityList,
    },
    /// Indirect call through a `fnptr` value.
    CallIndirect {
        /// Function pointer.
        callee: ValueId,
        /// Arguments.
        args: EntityList,
    },
    /// `trap_if bool %c, reason="TEXT"`.
    TrapIf {
        /// Condition.
        cond: ValueId,
        /// Reason.
        reason: StrId,
    },
    /// `trap reason="TEXT"`.
    Trap {
        /// Reason.
        reason: StrId,
    },
    /// `br label B`.
    Br {
        /// Destination.
        dest: BlockId,
    },
    /// `cbr bool %c, label T, label F`.
    Cbr {
        /// Condition.
        cond: ValueId,
        /// True and false destinations.
        dests: [BlockId; 2],
    },
    /// `switch T %v, label D [ K: B, ... ]`; cases are `(ConstId, BlockId)` slot pairs.
    Switch {
        /// Scrutinee.
        arg: ValueId,
        /// Default destination.
        default: BlockId,
        /// Cases.
        cases: EntityList,
    },
    /// `ret T %v` / `ret void`.
    Ret {
        /// Returned value.
        arg: PackedOption<ValueId>,
    },
}

const _: () = assert!(std::mem::size_of::<InstData>() <= 16);

impl InstData {
    /// The opcode of this instruction.
    pub fn opcode(&self) -> Opcode {
        match *self {
            InstData::Nullary { op }
            | InstData::Unary { op, .. }
            | InstData::Binary { op, .. }
            | InstData::Compare { op, .. }
            | InstData::Cast { op, .. }
            | InstData::Memory { op, .. }
            | InstData::Bulk { op, .. }
            | InstData::FuncRef { op, .. } => op,
            InstData::Const { .. } | InstData::ConstWide { .. } => Opcode::Const,
            InstData::ConstDecl { .. } => Opcode::ConstDecl,
            InstData::Select { .. } => Opcode::Select,
            InstData::Phi { .. } => Opcode::Phi,
            InstData::Extract { .. } => Opcode::Extract,
            InstData::Store { .. } => Opcode::Store,
            InstData::Gep { .. } => Opcode::Gep,
            InstData::Call { .. } | InstData::CallIndirect { .. } => Opcode::Call,
            InstData::TrapIf { .. } => Opcode::TrapIf,
            InstData::Trap { .. } => Opcode::Trap,
            InstData::Br { .. } => Opcode::Br,
            InstData::Cbr { .. } => Opcode::Cbr,
            InstData::Switch { .. } => Opcode::Switch,
            InstData::Ret { .. } => Opcode::Ret,
        }
    }

    /// Whether this instruction ends a block.
    #[inline]
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstData::Br { .. }
                | InstData::Cbr { .. }
                | InstData::Switch { .. }
                | InstData::Ret { .. }
                | InstData::Trap { .. }
        )
    }

    /// Every value operand in printed order. Phi inputs are included (their
    /// blocks are not); `const_decl` local references are not (they are walked
    /// by the constant-expression checker). A plain iterator, so a caller's
    /// loop body is compiled once rather than at every operand shape.
    #[inline(always)]
    pub fn values<'p>(&self, pool: &'p ListPool) -> Values<'p> {
        let none = ValueId::from_u32(0);
        let (head, head_len, tail, stride): ([ValueId; 3], u8, &[u32], usize) = match *self {
            InstData::Nullary { .. }
            | InstData::Const { .. }
            | InstData::ConstWide { .. }
            | InstData::ConstDecl { .. }
            | InstData::FuncRef { .. }
            | InstData::Trap { .. }
            | InstData::Br { .. } => ([none; 3], 0, &[], 1),
            InstData::Unary { arg, .. }
            | InstData::Cast { arg, .. }
            | InstData::Extract { agg: arg, .. }
            | InstData::TrapIf { cond: arg, .. }
            | InstData::Cbr { cond: arg, .. }
            | InstData::Switch { arg, .. } => ([arg, none, none], 1, &[], 1),
            InstData::Binary { args, .. } | InstData::Compare { args, .. } => ([args[0], args[1], none], 2, &[], 1),
            InstData::Select { cond, arms } => ([cond, arms[0], arms[1]], 3, &[], 1),
            InstData::Store { value, ptr, .. } => ([value, ptr, none], 2, &[], 1),
            InstData::Memory { ptr: arg, .. } | InstData::Ret { arg } => match arg.expand() {
                Some(v) => ([v, none, none], 1, &[], 1),
                None => ([none; 3], 0, &[], 1),
            },
            InstData::Phi { inputs } => {
                let pairs = pool.get(inputs);
                ([none; 3], 0, &pairs[..pairs.len() & !1], 2)
            }
            InstData::Bulk { args, .. } | InstData::Call { args, .. } => ([none; 3], 0, pool.get(args), 1),
            InstData::Gep { base: first, indices: args } | InstData::CallIndirect { callee: first, args } => {
                ([first, none, none], 1, pool.get(args), 1)
            }
        };
        Values { head, head_len, head_pos: 0, tail, stride }
    }

    /// Calls `f` with every value operand, in the order of [`InstData::values`].
    #[inline]
    pub fn for_each_value(&self, pool: &ListPool, f: impl FnMut(ValueId)) {
        self.values(pool).for_each(f)
    }

    /// Calls `f` with every branch destination, in printed order (a block may
    /// appear more than once).
    #[inline]
    pub fn for_each_successor(&self, pool: &ListPool, mut f: impl FnMut(BlockId)) {
        match *self {
            InstData::Br { dest } => f(dest),
            InstData::Cbr { dests, .. } => {
                f(dests[0]);
                f(dests[1]);
            }
            InstData::Switch { default, cases, .. } => {
                f(default);
                for pair in pool.get(cases).chunks_exact(2) {
                    f(BlockId::from_u32(pair[1]));
                }
            }
            _ => {}
        }
    }
}

impl InstData {
    /// Rewrites every value operand (those of [`InstData::values`]) with `f`;
    /// operands in pool lists are rewritten in place.
    pub fn map_values(&mut self, pool: &mut ListPool, mut f: impl FnMut(ValueId) -> ValueId) {
        let list = |pool: &mut ListPool, list: EntityList, stride: usize, f: &mut dyn FnMut(ValueId) -> ValueId| {
            for slot in pool.get_mut(list).iter_mut().step_by(stride) {
                *slot = f(ValueId::from_u32(*slot)).as_u32();
            }
        };
        match self {
            InstData::Nullary { .. }
            | InstData::Const { .. }
            | InstData::ConstWide { .. }
            | InstData::ConstDecl { .. }
            | InstData::FuncRef { .. }
            | InstData::Trap { .. }
            | InstData::Br { .. } => {}
            InstData::Unary { arg, .. }
            | InstData::Cast { arg, .. }
            | InstData::Extract { agg: arg, .. }
            | InstData::TrapIf { cond: arg, .. }
            | InstData::Cbr { cond: arg, .. }
            | InstData::Switch { arg, .. } => *arg = f(*arg),
            InstData::Binary { args, .. } | InstData::Compare { args, .. } => {
                args[0] = f(args[0]);
                args[1] = f(args[1]);
            }
            InstData::Select { cond, arms } => {
                *cond = f(*cond);
                arms[0] = f(arms[0]);
                arms[1] = f(arms[1]);
            }
            InstData::Store { value, ptr, .. } => {
                *value = f(*value);
                *ptr = f(*ptr);
            }
            InstData::Memory { ptr: arg, .. } | InstData::Ret { arg } => {
                if let Some(v) = arg.expand() {
                    *arg = PackedOption::some(f(v));
                }
            }
            InstData::Phi { inputs } => list(pool, *inputs, 2, &mut f),
            InstData::Bulk { args, .. } | InstData::Call { args, .. } => list(pool, *args, 1, &mut f),
            InstData::Gep { base: first, indices: args } | InstData::CallIndirect { callee: first, args } => {
                *first = f(*first);
                list(pool, *args, 1, &mut f);
            }
        }
    }

    /// Rewrites every branch destination (those of [`InstData::for_each_successor`]) with `f`.
    pub fn map_successors(&mut self, pool: &mut ListPool, mut f: impl FnMut(BlockId) -> BlockId) {
        match self {
            InstData::Br { dest } => *dest = f(*dest),
            InstData::Cbr { dests, .. } => {
                dests[0] = f(dests[0]);
                dests[1] = f(dests[1]);
            }
            InstData::Switch { default, cases, .. } => {
                *default = f(*default);
                for pair in pool.get_mut(*cases).chunks_exact_mut(2) {
                    pair[1] = f(BlockId::from_u32(pair[1])).as_u32();
                }
            }
            _ => {}
        }
    }
}

/// Iterator over an instruction's value operands ([`InstData::values`]): up to
/// three inline operands, then a pool list read with a stride (2 for phi pairs).
#[derive(Clone, Debug)]
pub struct Values<'p> {
    head: [ValueId; 3],
    head_len: u8,
    head_pos: u8,
    tail: &'p [u32],
    stride: usize,
}

impl Iterator for Values<'_> {
    type Item = ValueId;

    #[inline]
    fn next(&mut self) -> Option<ValueId> {
        if self.head_pos < self.head_len {
            let v = self.head[self.head_pos as usize];
            self.head_pos += 1;
            return Some(v);
        }
        let (&first, _) = self.tail.split_first()?;
        self.tail = self.tail.get(self.stride..).unwrap_or(&[]);
        Some(ValueId::from_u32(first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_stay_small() {
        assert!(std::mem::size_of::<InstData>() <= 16, "{}", std::mem::size_of::<InstData>());
    }

    #[test]
    fn map_values_and_successors_visit_what_the_walks_visit() {
        let mut pool = ListPool::new();
        let (v, w) = (ValueId::from_u32(1), ValueId::from_u32(2));
        let (a, b) = (BlockId::from_u32(3), BlockId::from_u32(4));
        let mut phi = InstData::Phi { inputs: pool.make(&[1, 3, 2, 4]) };
        phi.map_values(&mut pool, |x| ValueId::from_u32(x.as_u32() + 10));
        assert_eq!(phi.values(&pool).collect::<Vec<_>>(), [ValueId::from_u32(11), ValueId::from_u32(12)]);
        let mut call = InstData::CallIndirect { callee: v, args: pool.make(&[2, 1]) };
        call.map_values(&mut pool, |x| if x == v { w } else { v });
        assert_eq!(call.values(&pool).collect::<Vec<_>>(), [w, v, w]);
        let mut switch = InstData::Switch { arg: v, default: a, cases: pool.make(&[0, 3, 1, 4]) };
        switch.map_successors(&mut pool, |x| if x == a { b } else { a });
        let mut seen = Vec::new();
        switch.for_each_successor(&pool, |x| seen.push(x));
        assert_eq!(seen, [b, b, a]);
    }

    #[test]
    fn every_shape_reports_its_opcode() {
        let v = ValueId::from_u32(1);
        assert_eq!(InstData::Binary { op: Opcode::Add, args: [v, v] }.opcode(), Opcode::Add);
        assert_eq!(InstData::Ret { arg: PackedOption::NONE }.opcode(), Opcode::Ret);
        assert!(InstData::Trap { reason: StrId::from_u32(0) }.is_terminator());
        assert!(!InstData::TrapIf { cond: v, reason: StrId::from_u32(0) }.is_terminator());
    }
}
