//! The pre-resolved form a module is translated into once, before execution.
//!
//! All functions share one code array of [`Op`]s. Operands are frame-slot
//! indices (relative to the frame base); branch targets are code indices; a
//! block's phis become moves on each incoming edge (before the [`Op::JumpPhis`]
//! of a `br`, or in an *edge stub* ending in [`Op::JumpPhi`] for conditional
//! branches); constants, `const_decl`s and function addresses are not
//! executed at all — their values sit in a per-function constant template
//! copied into each new frame. Operations too rare to deserve room in an `Op`
//! keep their extra operands in side tables. Frequent combinations have ops of
//! their own, each specialised enough that the dispatch loop does not switch
//! again on a field: fused compare-and-branches and loop latches per
//! comparison ([`BranchCmp`], [`BranchKind`]), fused indexed loads and stores
//! per access width.
//!
//! Steps are charged per *segment*: the ops from a control-transfer target up
//! to the next call or terminator. Each transfer charges the whole cost of the
//! segment it enters (`entry_cost[target]`, phis of an edge stub included) with
//! one compare; the per-op side table ([`PcInfo`]) recovers, only on a trap or
//! when the budget runs out mid-segment, the exact IR operation and step count.
//! Elided instructions (constants, identity casts) are charged with the next op
//! of their block: its `cover` counts them.

use ir::{FunctionId, SigId};

use crate::error::Site;
use crate::numeric::{CheckedOp, FloatOp, FloatPred, FloatWidth, IntOp, IntTy, Norm};

/// Integer comparison predicates after operand swapping (`a > b` is `b < a`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum IntPred {
    Eq,
    Ne,
    Slt,
    Sle,
    Ult,
    Ule,
}

/// How [`Op::IntConv`] extends its operand before normalising to the result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum Extend {
    /// The operand is already the value (truncation, same-width bitcast, bool).
    Keep,
    Zero,
    Sign,
}

/// Conversions of the generic [`Op::Cast`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum CastKind {
    Zext,
    Sext,
    Trunc,
    Fext,
    Ftrunc,
    ItofS,
    ItofU,
    FtoiS,
    FtoiU,
    Bitcast,
    Ptrtoint,
    Inttoptr,
}

/// One compiled operation. Slot fields are frame-relative; `*_pc` fields and
/// `target` are code indices.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    // ---- control -------------------------------------------------------------
    /// `br`: charges the target segment.
    Jump {
        target: u32,
    },
    /// The end of an edge stub: its charge already covered the target segment.
    JumpPhi {
        target: u32,
    },
    /// `br` to a block with `count` phis (moved just before): charges the phis,
    /// whose sites start at `site`, and the target segment.
    JumpPhis {
        target: u32,
        count: u32,
        site: u32,
    },
    /// `cmp`/`icmp` fused with the `cbr` that is its only use, branching on
    /// `a == b` (targets in [`Program::branches`]).
    BrEq {
        a: u32,
        b: u32,
        info: u32,
    },
    /// [`Op::BrEq`] on signed `a < b`.
    BrSlt {
        a: u32,
        b: u32,
        info: u32,
    },
    /// [`Op::BrEq`] on unsigned `a < b`.
    BrUlt {
        a: u32,
        b: u32,
        info: u32,
    },
    /// A `br` (after its phi moves) to a block whose first op is a fused
    /// compare-and-branch: charges the phis and that block's segment, then
    /// compares `a == b` and branches as that op would ([`Program::latches`]).
    LatchEq {
        a: u32,
        b: u32,
        info: u32,
    },
    /// [`Op::LatchEq`] on signed `a < b`.
    LatchSlt {
        a: u32,
        b: u32,
        info: u32,
    },
    /// [`Op::LatchEq`] on unsigned `a < b`.
    LatchUlt {
        a: u32,
        b: u32,
        info: u32,
    },
    /// A 64-bit `add` (operands in the latch info), then [`Op::LatchEq`].
    LatchAddEq {
        a: u32,
        b: u32,
        info: u32,
    },
    /// [`Op::LatchAddEq`] on signed `a < b`.
    LatchAddSlt {
        a: u32,
        b: u32,
        info: u32,
    },
    /// [`Op::LatchAddEq`] on unsigned `a < b`.
    LatchAddUlt {
        a: u32,
        b: u32,
        info: u32,
    },
    /// Two 64-bit `add`s (an accumulator's and the loop's increment, operands
    /// in the latch info), then [`Op::LatchEq`].
    LatchAdd2Eq {
        a: u32,
        b: u32,
        info: u32,
    },
    /// [`Op::LatchAdd2Eq`] on signed `a < b`.
    LatchAdd2Slt {
        a: u32,
        b: u32,
        info: u32,
    },
    /// [`Op::LatchAdd2Eq`] on unsigned `a < b`.
    LatchAdd2Ult {
        a: u32,
        b: u32,
        info: u32,
    },
    /// `cbr`.
    BrIf {
        cond: u32,
        then_pc: u32,
        else_pc: u32,
    },
    /// `switch` on a one-slot scrutinee (table in [`Program::switches`]).
    Switch {
        arg: u32,
        table: u32,
    },
    /// `switch` on a 128-bit scrutinee.
    Switch128 {
        arg: u32,
        table: u32,
    },
    /// `ret` of `n` slots at `src`.
    Ret {
        src: u32,
        n: u32,
    },
    /// `trap`.
    Trap {
        reason: u32,
    },
    /// `trap_if`.
    TrapIf {
        cond: u32,
        reason: u32,
    },
    /// An instruction without semantics (rejected by the verifier).
    NotExecutable {
        what: u8,
    },
    /// The entry of a function that could not be translated.
    Unsupported {
        func: u32,
    },
    /// A direct call of a function with a body.
    CallBody {
        site: u32,
    },
    /// A direct call of an external declaration without a body.
    CallExternal {
        site: u32,
    },
    /// An indirect call.
    CallIndirect {
        site: u32,
    },
    /// Patched over the operation at which the step budget runs out.
    StepLimit,

    // ---- moves and selection ---------------------------------------------------
    Mov {
        dst: u32,
        src: u32,
    },
    Mov2 {
        dst: u32,
        src: u32,
    },
    MovN {
        dst: u32,
        src: u32,
        n: u32,
    },
    /// `select` (arms and slot count in [`Program::selects`]).
    Select {
        dst: u32,
        cond: u32,
        info: u32,
    },

    // ---- integers up to 64 bits (canonical slots) ---------------------------------
    Add {
        dst: u32,
        a: u32,
        b: u32,
    },
    Sub {
        dst: u32,
        a: u32,
        b: u32,
    },
    Mul {
        dst: u32,
        a: u32,
        b: u32,
    },
    And {
        dst: u32,
        a: u32,
        b: u32,
    },
    Or {
        dst: u32,
        a: u32,
        b: u32,
    },
    Xor {
        dst: u32,
        a: u32,
        b: u32,
    },
    Udiv {
        dst: u32,
        a: u32,
        b: u32,
    },
    Urem {
        dst: u32,
        a: u32,
        b: u32,
    },
    Srem {
        dst: u32,
        a: u32,
        b: u32,
    },
    Sdiv64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Shl64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Lshr64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Ashr64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    AddN {
        dst: u32,
        a: u32,
        b: u32,
        norm: Norm,
    },
    SubN {
        dst: u32,
        a: u32,
        b: u32,
        norm: Norm,
    },
    MulN {
        dst: u32,
        a: u32,
        b: u32,
        norm: Norm,
    },
    SdivN {
        dst: u32,
        a: u32,
        b: u32,
        norm: Norm,
    },
    ShlN {
        dst: u32,
        a: u32,
        b: u32,
        norm: Norm,
    },
    LshrN {
        dst: u32,
        a: u32,
        b: u32,
        norm: Norm,
    },
    AshrN {
        dst: u32,
        a: u32,
        b: u32,
        norm: Norm,
    },
    Not {
        dst: u32,
        a: u32,
        norm: Norm,
    },
    Cmp {
        pred: IntPred,
        dst: u32,
        a: u32,
        b: u32,
    },
    IntConv {
        dst: u32,
        a: u32,
        extend: Extend,
        from: Norm,
        to: Norm,
    },

    // ---- generic paths -----------------------------------------------------------------
    Int128 {
        op: IntOp,
        dst: u32,
        a: u32,
        b: u32,
    },
    Not128 {
        dst: u32,
        a: u32,
    },
    Cmp128 {
        pred: IntPred,
        dst: u32,
        a: u32,
        b: u32,
    },
    Checked {
        op: CheckedOp,
        ty: IntTy,
        dst: u32,
        a: u32,
        b: u32,
    },
    PtrCmp {
        equal: bool,
        dst: u32,
        a: u32,
        b: u32,
    },
    Float {
        op: FloatOp,
        width: FloatWidth,
        dst: u32,
        a: u32,
        b: u32,
    },
    FloatCmp {
        pred: FloatPred,
        width: FloatWidth,
        dst: u32,
        a: u32,
        b: u32,
    },
    Cast {
        kind: CastKind,
        from: u8,
        to: u8,
        dst: u32,
        a: u32,
    },

    // ---- memory --------------------------------------------------------------------------
    Alloca {
        dst: u32,
        info: u32,
    },
    Load {
        kind: u8,
        align_log2: u8,
        dst: u32,
        ptr: u32,
    },
    Store {
        kind: u8,
        align_log2: u8,
        src: u32,
        ptr: u32,
    },
    LoadAgg {
        dst: u32,
        ptr: u32,
        layout: u32,
    },
    StoreAgg {
        src: u32,
        ptr: u32,
        layout: u32,
    },
    Uninit {
        ptr: u32,
        layout: u32,
    },
    Memcpy {
        align_log2: u8,
        dst: u32,
        src: u32,
        len: u32,
    },
    Memset {
        align_log2: u8,
        dst: u32,
        byte: u32,
        len: u32,
    },
    /// `gep` with one runtime index of at most 64 bits ([`Program::gep_index`]).
    GepIndex {
        dst: u32,
        index: u32,
        info: u32,
    },
    /// A [`Op::GepIndex`] fused with the scalar load that is its only use
    /// (access size and alignment in the [`GepIndex`]).
    LoadElem {
        kind: u8,
        dst: u32,
        index: u32,
        info: u32,
    },
    /// A [`Op::GepIndex`] fused with the scalar store that is its only use.
    StoreElem {
        kind: u8,
        src: u32,
        index: u32,
        info: u32,
    },
    /// [`Op::LoadElem`] of a `u8`.
    LoadElemU8 {
        dst: u32,
        index: u32,
        info: u32,
    },
    /// [`Op::LoadElem`] of an 8-byte integer, float or function pointer.
    LoadElem64 {
        dst: u32,
        index: u32,
        info: u32,
    },
    /// [`Op::StoreElem`] of a `u8`, `i8`, `u1` or `bool` (the slot's low byte).
    StoreElemByte {
        src: u32,
        index: u32,
        info: u32,
    },
    /// [`Op::StoreElem`] of an 8-byte integer, float or function pointer.
    StoreElem64 {
        src: u32,
        index: u32,
        info: u32,
    },
    Gep {
        dst: u32,
        base: u32,
        info: u32,
    },
}

/// The comparison of a fused compare-and-branch. Translation reduces every
/// integer predicate to one of these by swapping targets and operands (`ne` is
/// `eq` with the targets swapped, `a ≤ b` is `b < a` with them swapped), and
/// each kind of compare-and-branch has an op per comparison, so the dispatch
/// loop never switches on a predicate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum BranchCmp {
    Eq,
    Slt,
    Ult,
}

impl BranchCmp {
    /// The comparison deciding `pred(a, b)`, its operands, and whether the
    /// targets swap (the branch goes to the `then` target when it is false).
    pub(crate) fn of(pred: IntPred, a: u32, b: u32) -> (BranchCmp, u32, u32, bool) {
        match pred {
            IntPred::Eq => (BranchCmp::Eq, a, b, false),
            IntPred::Ne => (BranchCmp::Eq, a, b, true),
            IntPred::Slt => (BranchCmp::Slt, a, b, false),
            IntPred::Sle => (BranchCmp::Slt, b, a, true),
            IntPred::Ult => (BranchCmp::Ult, a, b, false),
            IntPred::Ule => (BranchCmp::Ult, b, a, true),
        }
    }
}

/// The kinds of compare-and-branch ops: what they do before comparing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum BranchKind {
    /// Nothing: a `cbr` on a compare ([`Program::branches`]).
    Branch,
    /// A loop latch ([`Program::latches`]), after its phis' moves.
    Latch,
    /// A latch after one `add`.
    LatchAdd,
    /// A latch after two `add`s.
    LatchAdd2,
}

impl Op {
    /// The compare-and-branch op of kind `kind` comparing slots `a` and `b`.
    pub(crate) fn compare_branch(kind: BranchKind, cmp: BranchCmp, a: u32, b: u32, info: u32) -> Op {
        use BranchCmp::{Eq, Slt, Ult};
        use BranchKind::{Branch, Latch, LatchAdd, LatchAdd2};
        match (kind, cmp) {
            (Branch, Eq) => Op::BrEq { a, b, info },
            (Branch, Slt) => Op::BrSlt { a, b, info },
            (Branch, Ult) => Op::BrUlt { a, b, info },
            (Latch, Eq) => Op::LatchEq { a, b, info },
            (Latch, Slt) => Op::LatchSlt { a, b, info },
            (Latch, Ult) => Op::LatchUlt { a, b, info },
            (LatchAdd, Eq) => Op::LatchAddEq { a, b, info },
            (LatchAdd, Slt) => Op::LatchAddSlt { a, b, info },
            (LatchAdd, Ult) => Op::LatchAddUlt { a, b, info },
            (LatchAdd2, Eq) => Op::LatchAdd2Eq { a, b, info },
            (LatchAdd2, Slt) => Op::LatchAdd2Slt { a, b, info },
            (LatchAdd2, Ult) => Op::LatchAdd2Ult { a, b, info },
        }
    }

    /// The parts of a compare-and-branch op: kind, comparison, operand slots
    /// and side-table index.
    pub(crate) fn as_compare_branch(self) -> Option<(BranchKind, BranchCmp, u32, u32, u32)> {
        use BranchCmp::{Eq, Slt, Ult};
        use BranchKind::{Branch, Latch, LatchAdd, LatchAdd2};
        let (kind, cmp, a, b, info) = match self {
            Op::BrEq { a, b, info } => (Branch, Eq, a, b, info),
            Op::BrSlt { a, b, info } => (Branch, Slt, a, b, info),
            Op::BrUlt { a, b, info } => (Branch, Ult, a, b, info),
            Op::LatchEq { a, b, info } => (Latch, Eq, a, b, info),
            Op::LatchSlt { a, b, info } => (Latch, Slt, a, b, info),
            Op::LatchUlt { a, b, info } => (Latch, Ult, a, b, info),
            Op::LatchAddEq { a, b, info } => (LatchAdd, Eq, a, b, info),
            Op::LatchAddSlt { a, b, info } => (LatchAdd, Slt, a, b, info),
            Op::LatchAddUlt { a, b, info } => (LatchAdd, Ult, a, b, info),
            Op::LatchAdd2Eq { a, b, info } => (LatchAdd2, Eq, a, b, info),
            Op::LatchAdd2Slt { a, b, info } => (LatchAdd2, Slt, a, b, info),
            Op::LatchAdd2Ult { a, b, info } => (LatchAdd2, Ult, a, b, info),
            _ => return None,
        };
        Some((kind, cmp, a, b, info))
    }
}

/// Per-op facts used only on error paths.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PcInfo {
    /// Index in [`Program::sites`] of the IR operation this op executes (for
    /// an edge stub's jump: the block's last phi).
    pub site: u32,
    /// IR operations this op accounts for: itself plus the constants elided
    /// just before it (a stub's jump: the block's phis; moves: none).
    pub cover: u32,
    /// IR operations of the segment after this op's cover.
    pub after: u32,
}

/// A function body.
#[derive(Clone, Debug)]
pub(crate) struct FuncInfo {
    pub id: FunctionId,
    pub entry_pc: u32,
    pub frame_slots: u32,
    /// First constant slot of the frame and the template range.
    pub const_slot: u32,
    pub template: (u32, u32),
    pub unsupported: Option<String>,
}

/// What calling a declaration does.
#[derive(Clone, Debug)]
pub(crate) struct DeclInfo {
    pub id: FunctionId,
    pub sig: SigId,
    pub name: String,
    pub link_name: Option<String>,
    /// Index in [`Program::funcs`] of its body.
    pub body: Option<u32>,
    /// Index of the host function bound to it.
    pub host: Option<u32>,
}

/// A call site.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallSite {
    /// Body index (`CallBody`), declaration index (`CallExternal`).
    pub callee: u32,
    /// The function pointer slot (`CallIndirect`).
    pub fptr: u32,
    /// The call's signature (`CallIndirect`).
    pub sig: SigId,
    /// Argument source slots: `arg_slots[args .. args + nargs]`, one per slot.
    pub args: u32,
    pub nargs: u32,
    /// Result slot and slot count (0 for void).
    pub dst: u32,
    pub ret_slots: u32,
}

/// A `switch` table: keys sorted, targets are code indices.
#[derive(Clone, Debug, Default)]
pub(crate) struct SwitchTable {
    pub default: u32,
    pub cases: Vec<(u128, u32)>,
}

/// A scalar leaf of an aggregate in memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leaf {
    pub offset: u64,
    pub kind: u8,
    pub slot: u32,
}

/// Memory layout of a type as used by aggregate loads/stores and `uninit`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AggLayout {
    pub size: u64,
    pub align: u64,
    /// `leaves[start .. start + len]` in [`Program::leaves`].
    pub leaves: (u32, u32),
}

/// One runtime index term of a `gep`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GepTerm {
    pub slot: u32,
    /// The index's kind code (signedness and width).
    pub kind: u8,
    pub stride: u64,
}

/// A `gep`: constant part and runtime terms.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GepInfo {
    /// `None` when the constant part alone overflows (the gep always traps).
    pub constant: Option<i128>,
    pub terms: (u32, u32),
}

/// A `gep` with one runtime index: `base + constant + index · stride`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GepIndex {
    /// The base pointer's slot.
    pub base: u32,
    /// Whether the index's type is signed.
    pub signed: bool,
    /// Whether the stride and the constant fit `i64`.
    pub small: bool,
    /// The fast path takes the indices (as `u64`) below this, those for which
    /// `index · stride + constant` cannot overflow `i64` (0, none, unless
    /// `small`); negative and larger ones take the exact `i128` path.
    pub fast_limit: u64,
    /// `stride` and `constant` as `i64` (when `small`).
    pub stride64: i64,
    pub constant64: i64,
    /// For a fused [`Op::LoadElem`] / [`Op::StoreElem`]: the access's size and
    /// alignment − 1.
    pub size: u64,
    pub align_mask: u64,
    pub stride: u64,
    pub constant: i128,
}

impl GepIndex {
    /// `base + constant + index · stride` (stride ≥ 1) for an index of
    /// signedness `signed`; no access size or alignment yet.
    pub(crate) fn new(base: u32, signed: bool, stride: u64, constant: i128) -> GepIndex {
        let (stride64, constant64) = (i64::try_from(stride).ok(), i64::try_from(constant).ok());
        // The largest index with `index · stride + constant` within i64, plus one.
        let fast_limit = match (stride64, constant64) {
            (Some(stride), Some(constant)) if stride > 0 => ((i64::MAX - constant.max(0)) / stride) as u64 + 1,
            _ => 0,
        };
        GepIndex {
            base,
            signed,
            small: stride64.is_some() && constant64.is_some(),
            fast_limit,
            stride64: stride64.unwrap_or(0),
            constant64: constant64.unwrap_or(0),
            size: 0,
            align_mask: 0,
            stride,
            constant,
        }
    }
}

/// The targets of a [`BranchKind::Branch`] op and the steps of the segments they enter.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Branch {
    pub then_pc: u32,
    pub else_pc: u32,
    pub then_cost: u64,
    pub else_cost: u64,
}

/// A loop latch: the jump's phis and the header it skips.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LatchInfo {
    /// The header's compare-and-branch.
    pub header: u32,
    /// Phis of the header and the site of the first.
    pub count: u32,
    pub site: u32,
    pub then_pc: u32,
    pub else_pc: u32,
    /// Steps of the phis, the header's segment and the segment entered at
    /// `then_pc` / `else_pc`.
    pub then_cost: u64,
    pub else_cost: u64,
    /// For [`BranchKind::LatchAdd`] and [`BranchKind::LatchAdd2`]: the (last)
    /// `add`'s destination and operand slots.
    pub add: [u32; 3],
    /// For [`BranchKind::LatchAdd2`]: the first `add`'s.
    pub first_add: [u32; 3],
}

/// The translated module.
#[derive(Default)]
pub(crate) struct Program {
    pub code: Vec<Op>,
    /// The largest frame of any function, in slots.
    pub max_frame: u32,
    /// Steps charged when control enters a segment at this pc.
    pub entry_cost: Vec<u32>,
    pub pc_info: Vec<PcInfo>,
    pub sites: Vec<Site>,
    pub funcs: Vec<FuncInfo>,
    pub decls: Decls,
    pub templates: Vec<u64>,
    pub call_sites: Vec<CallSite>,
    pub arg_slots: Vec<u32>,
    pub switches: Vec<SwitchTable>,
    pub selects: Vec<(u32, u32, u32)>,
    pub allocas: Vec<(u64, u64)>,
    pub layouts: Vec<AggLayout>,
    pub leaves: Vec<Leaf>,
    pub geps: Vec<GepInfo>,
    pub gep_index: Vec<GepIndex>,
    pub latches: Vec<LatchInfo>,
    pub branches: Vec<Branch>,
    pub gep_terms: Vec<GepTerm>,
    pub reasons: Vec<String>,
}

/// The base of function addresses: function `@fK` lives at `FN_BASE + 16·K`.
pub(crate) const FN_BASE: u64 = 0x7f00_0000_0000;

/// The address of function `id`.
pub(crate) fn function_address(id: FunctionId) -> u64 {
    FN_BASE + 16 * u64::from(id.as_u32())
}

/// The declarations, addressable by function id and by function address.
#[derive(Default)]
pub(crate) struct Decls {
    pub list: Vec<DeclInfo>,
    /// Declaration indices sorted by function id.
    pub by_id: Vec<(u32, u32)>,
}

impl Decls {
    /// The declaration index of function `id`.
    pub(crate) fn index(&self, id: FunctionId) -> Option<usize> {
        let raw = id.as_u32();
        if let Some(d) = self.list.get(raw as usize) {
            if d.id == id {
                return Some(raw as usize);
            }
        }
        let i = self.by_id.binary_search_by_key(&raw, |&(k, _)| k).ok()?;
        self.by_id.get(i).map(|&(_, d)| d as usize)
    }

    /// The declaration index a function address designates.
    pub(crate) fn decode(&self, address: u64) -> Option<usize> {
        let rel = address.checked_sub(FN_BASE)?;
        if rel % 16 != 0 {
            return None;
        }
        let raw = u32::try_from(rel / 16).ok()?;
        self.index(FunctionId::from_u32(raw))
    }

    pub(crate) fn get(&self, index: usize) -> Option<&DeclInfo> {
        self.list.get(index)
    }
}

const _: () = assert!(std::mem::size_of::<Op>() <= 16);
