//! The dispatch loop.
//!
//! One `loop { match code[pc] }` over the translated program, shaped so that
//! the loop keeps little live across operations: the pc, the fuel, the code
//! and the current frame window. Everything else (side tables, memory, the
//! frame stack, host functions) sits in a [`Cx`] reached through one pointer,
//! error results are built by `#[cold]` functions, and the rare operations
//! (wide and checked integers, floats, casts, aggregates, bulk memory,
//! allocation, general `gep`s) run out of line in [`rare`]. With all of it in
//! locals of one huge function, the register allocator spilled and reloaded
//! around every dispatch, which cost more than the operations themselves.
//!
//! Calls never recurse on the Rust stack: a call pushes a [`Frame`] record and
//! moves the frame window to the callee; `ret` pops it. Operand slot indices
//! were validated against the frame size at translation time; the window
//! type ([`Window`]) makes indexing with them free of bounds checks where
//! every frame of the module fits 65,536 slots. Memory accesses try
//! [`Memory::fast`] first, which accepts exactly the accesses that pass every
//! check; anything else takes the exact checks, which find the first failing
//! one.
//!
//! Steps are charged when control enters a segment (see [`crate::program`]);
//! when the budget cannot pay for a whole segment, the operation at which it
//! runs out is found from the per-op tables and temporarily replaced by
//! [`Op::StepLimit`], so the operations before it still run (and may trap
//! first) without any per-operation fuel check.

use std::io::Write;
use std::ops::IndexMut;

use crate::error::{LimitKind, MemoryTrap, TrapReason};
use crate::host::{HostContext, HostFn};
use crate::memory::{AllocError, Memory, READ, WRITE};
use crate::numeric::{
    checked, float_binary, float_compare, float_convert, float_to_int, int_binary, int_to_float, to_f64, IntOp, IntTy,
    Norm,
};
use crate::program::{
    AggLayout, Branch, CallSite, CastKind, DeclInfo, Decls, Extend, FuncInfo, GepIndex, GepInfo, GepTerm, IntPred,
    LatchInfo, Leaf, Op, PcInfo, Program, SwitchTable,
};
use crate::shape::{Kind, Shapes};
use crate::value::{from_slots, to_slots, Value};
use crate::Interpreter;

/// Operand slots of the fast kind of frame window are below this in every
/// function of the modules that use it ([`Program::max_frame`]).
pub(crate) const WINDOW: usize = 1 << 16;

/// The view of the current frame that operations index. Operand slot indices
/// were validated against the frame size at translation; a window type makes
/// indexing cheap as well as safe. `[u64; WINDOW + 1]` (when every frame of the
/// module fits `WINDOW` slots, the value stack being kept `WINDOW + 1` slots
/// longer than the current frame's base) needs no bounds checks: slots are
/// taken modulo `WINDOW`, and the second slot of a two-slot value is the
/// masked first one plus 1. `[u64]` (the frame itself, bounds-checked) serves
/// modules with larger frames.
pub(crate) trait Window: IndexMut<usize, Output = u64> {
    /// Operand slots are masked with this (a no-op on validated slots).
    const MASK: u32;
    /// Slots the value stack needs from the base of a frame of `size` slots.
    fn extent(size: usize) -> usize;
    /// The window of the frame of `size` slots at `base`.
    fn open(regs: &mut [u64], base: usize, size: usize) -> Option<&mut Self>;
    /// The window as a slice.
    fn slots(&mut self) -> &mut [u64];
}

impl Window for [u64; WINDOW + 1] {
    const MASK: u32 = WINDOW as u32 - 1;

    #[inline(always)]
    fn extent(_: usize) -> usize {
        WINDOW + 1
    }

    #[inline(always)]
    fn open(regs: &mut [u64], base: usize, _: usize) -> Option<&mut Self> {
        regs.get_mut(base..)?.first_chunk_mut()
    }

    #[inline(always)]
    fn slots(&mut self) -> &mut [u64] {
        self
    }
}

impl Window for [u64] {
    const MASK: u32 = u32::MAX;

    #[inline(always)]
    fn extent(size: usize) -> usize {
        size
    }

    #[inline(always)]
    fn open(regs: &mut [u64], base: usize, size: usize) -> Option<&mut Self> {
        regs.get_mut(base..base.checked_add(size)?)
    }

    #[inline(always)]
    fn slots(&mut self) -> &mut [u64] {
        self
    }
}

/// A suspended caller.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    ret_pc: u32,
    ret_dst: u32,
    base: usize,
    size: usize,
    mark: (u32, u64),
}

/// Why the loop stopped early.
pub(crate) enum Stop {
    /// `pc` is the trapping op; `back` counts the IR operations of its cover
    /// after the trapping one (a fused op can trap in its first part).
    Trap { pc: usize, back: u32, reason: TrapReason },
    /// A resource limit at op `pc`.
    Limit { pc: usize, kind: LimitKind, limit: u64 },
    /// The host could not provide `bytes` bytes of `what` for op `pc`.
    OutOfMemory { pc: usize, what: &'static str, bytes: u64 },
    /// The step budget ran out before IR operation `site` (an index of `sites`).
    Steps { site: u32 },
    /// The callee could not be translated.
    Unsupported { func: u32 },
}

#[inline(always)]
fn int_pred(pred: IntPred, a: u64, b: u64) -> bool {
    match pred {
        IntPred::Eq => a == b,
        IntPred::Ne => a != b,
        IntPred::Slt => (a as i64) < (b as i64),
        IntPred::Sle => (a as i64) <= (b as i64),
        IntPred::Ult => a < b,
        IntPred::Ule => a <= b,
    }
}

#[inline(always)]
fn read128(r: &[u64], at: usize) -> u128 {
    u128::from(r[at]) | (u128::from(r[at + 1]) << 64)
}

#[inline(always)]
fn write128(r: &mut [u64], at: usize, v: u128) {
    r[at] = v as u64;
    r[at + 1] = (v >> 64) as u64;
}

/// The canonical `u128` of an integer of type `ty` at slot `at`.
#[inline]
fn read_int(r: &[u64], at: usize, ty: IntTy) -> u128 {
    if ty.bits == 128 {
        read128(r, at)
    } else if ty.signed {
        r[at] as i64 as i128 as u128
    } else {
        u128::from(r[at])
    }
}

#[inline]
fn write_int(r: &mut [u64], at: usize, ty: IntTy, v: u128) {
    if ty.bits == 128 {
        write128(r, at, v);
    } else {
        r[at] = v as u64;
    }
}

/// Loads a scalar of `kind` from checked arena offset `off` into slot `dst`.
#[inline(always)]
fn load<R: Window + ?Sized>(memory: &Memory, off: usize, kind: Kind, r: &mut R, dst: u32) -> Result<(), MemoryTrap> {
    let (lo, hi) = ((dst & R::MASK) as usize, (dst & R::MASK) as usize + 1);
    r[lo] = match kind {
        Kind::U8 => u64::from(memory.read_u8(off)?),
        Kind::I8 => memory.read_u8(off)? as i8 as u64,
        Kind::Bool => {
            let b = memory.read_u8(off)?;
            if b > 1 {
                return Err(MemoryTrap::InvalidBool { byte: b });
            }
            u64::from(b)
        }
        Kind::I1 => Norm::new(1, true).apply(u64::from(memory.read_u8(off)?)),
        Kind::U1 => Norm::new(1, false).apply(u64::from(memory.read_u8(off)?)),
        Kind::I16 => i16::from_le_bytes(memory.read::<2>(off)?) as u64,
        Kind::U16 | Kind::F16 => u64::from(u16::from_le_bytes(memory.read::<2>(off)?)),
        Kind::I32 => i32::from_le_bytes(memory.read::<4>(off)?) as u64,
        Kind::U32 | Kind::F32 => u64::from(u32::from_le_bytes(memory.read::<4>(off)?)),
        Kind::I64 | Kind::U64 | Kind::F64 | Kind::FnPtr => u64::from_le_bytes(memory.read::<8>(off)?),
        Kind::I128 | Kind::U128 => {
            let v = u128::from_le_bytes(memory.read::<16>(off)?);
            r[hi] = (v >> 64) as u64;
            v as u64
        }
        Kind::Ptr => {
            let (addr, tag) = memory.read_ptr(off)?;
            r[hi] = tag;
            addr
        }
    };
    Ok(())
}

/// Stores a scalar of `kind` from slot `src` at checked arena offset `off`. An
/// integer is stored as its N-bit pattern (an `i1` −1 is the byte 0x01).
#[inline(always)]
fn store<R: Window + ?Sized>(memory: &mut Memory, off: usize, kind: Kind, r: &R, src: u32) {
    let (lo, hi) = (r[(src & R::MASK) as usize], r[(src & R::MASK) as usize + 1]);
    match kind {
        Kind::U8 | Kind::I8 | Kind::Bool | Kind::U1 => memory.write_u8(off, lo as u8),
        Kind::I1 => memory.write_u8(off, (lo & 1) as u8),
        Kind::I16 | Kind::U16 | Kind::F16 => memory.write(off, (lo as u16).to_le_bytes()),
        Kind::I32 | Kind::U32 | Kind::F32 => memory.write(off, (lo as u32).to_le_bytes()),
        Kind::I64 | Kind::U64 | Kind::F64 | Kind::FnPtr => memory.write(off, lo.to_le_bytes()),
        Kind::I128 | Kind::U128 => memory.write(off, (u128::from(lo) | (u128::from(hi) << 64)).to_le_bytes()),
        Kind::Ptr => memory.write_ptr(off, lo, hi),
    }
}

/// The generic conversions (`Op::Cast`). Reads the operand before writing the
/// result, so `dst` may equal `a`.
fn cast(kind: CastKind, from: Kind, to: Kind, r: &mut [u64], dst: usize, a: usize) -> Result<(), TrapReason> {
    let lo = r[a];
    let hi = if from.slots() == 2 { r[a + 1] } else { 0 };
    let split = |v: u128| [v as u64, (v >> 64) as u64];
    // The operand as a canonical integer (float and pointer operands: their bits/address).
    let value = match from.int() {
        Some(ty) if ty.bits == 128 => u128::from(lo) | (u128::from(hi) << 64),
        Some(ty) if ty.signed => lo as i64 as i128 as u128,
        _ => u128::from(lo),
    };
    let out = match kind {
        CastKind::Zext | CastKind::Sext | CastKind::Trunc | CastKind::Bitcast if to == Kind::Ptr => [lo, hi],
        CastKind::Zext | CastKind::Sext | CastKind::Trunc | CastKind::Bitcast => {
            let bits = from.int().map_or(if from == Kind::Bool { 1 } else { (from.size() * 8) as u8 }, |t| t.bits);
            let pattern = match kind {
                CastKind::Sext => IntTy { bits, signed: true }.apply(value),
                CastKind::Zext => IntTy { bits, signed: false }.apply(value),
                _ => value,
            };
            match to.int() {
                Some(ty) => split(ty.apply(pattern)),
                None => [pattern as u64 & mask(to.size()), 0],
            }
        }
        CastKind::Fext | CastKind::Ftrunc => match (from.float(), to.float()) {
            (Some(f), Some(t)) => [float_convert(f, t, lo), 0],
            _ => return Err(TrapReason::NotExecutable("invalid float conversion")),
        },
        CastKind::ItofS | CastKind::ItofU => match to.float() {
            Some(t) => [int_to_float(value, kind == CastKind::ItofS && from.int().is_some_and(|s| s.signed), t), 0],
            None => return Err(TrapReason::NotExecutable("invalid integer-to-float conversion")),
        },
        CastKind::FtoiS | CastKind::FtoiU => match (from.float(), to.int()) {
            (Some(f), Some(ty)) => split(ty.apply(float_to_int(f, lo, ty)?)),
            _ => return Err(TrapReason::NotExecutable("invalid float-to-integer conversion")),
        },
        CastKind::Ptrtoint => match to.int() {
            Some(ty) => split(ty.apply(u128::from(lo))),
            None => return Err(TrapReason::NotExecutable("invalid pointer-to-integer conversion")),
        },
        CastKind::Inttoptr => [value as u64, 0],
    };
    r[dst] = out[0];
    if to.slots() == 2 {
        r[dst + 1] = out[1];
    }
    Ok(())
}

#[inline]
fn mask(bytes: u64) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (bytes * 8)) - 1
    }
}

/// Finds the op at which a budget of `fuel` steps runs out in the segment
/// entered at `start`: its pc and the site of the IR operation it stops before.
fn stop_point(code: &[Op], pc_info: &[PcInfo], start: usize, fuel: u64) -> Option<(usize, u32)> {
    let mut pc = start;
    let mut position = 0u64;
    loop {
        let info = pc_info.get(pc)?;
        let cover = u64::from(info.cover);
        if fuel < position + cover {
            let back = (position + cover - 1 - fuel) as u32;
            return Some((pc, info.site.checked_sub(back)?));
        }
        position += cover;
        pc = match code.get(pc)? {
            Op::JumpPhi { target } => *target as usize,
            _ => pc + 1,
        };
    }
}

/// What a run keeps outside the dispatch loop's registers: the program's side
/// tables and everything that calls, returns, traps and rare operations need.
/// The loop itself holds only `pc`, the fuel, the code, the value stack and the
/// current frame window.
struct Cx<'a> {
    entry_cost: &'a [u32],
    pc_info: &'a [PcInfo],
    funcs: &'a [FuncInfo],
    decls: &'a Decls,
    templates: &'a [u64],
    call_sites: &'a [CallSite],
    arg_slots: &'a [u32],
    switches: &'a [SwitchTable],
    selects: &'a [(u32, u32, u32)],
    allocas: &'a [(u64, u64)],
    layouts: &'a [AggLayout],
    leaves: &'a [Leaf],
    geps: &'a [GepInfo],
    gep_index: &'a [GepIndex],
    latches: &'a [LatchInfo],
    branches: &'a [Branch],
    gep_terms: &'a [GepTerm],
    reasons: &'a [String],
    types: &'a ir::TypeTable,
    shapes: &'a Shapes,
    memory: &'a mut Memory,
    frames: &'a mut Vec<Frame>,
    hosts: &'a mut [(String, HostFn)],
    output: &'a mut dyn Write,
    scratch: &'a mut Vec<u64>,
    patch: &'a mut Option<(usize, Op)>,
    fuel_out: &'a mut u64,
    deficit: &'a mut u64,
    /// The current frame is `regs[base .. base + size]` (its window may extend further).
    base: usize,
    size: usize,
    /// The site [`Op::StepLimit`] reports.
    steps_site: u32,
    max_depth: usize,
    max_slots: usize,
}

/// Why an operation failed.
/// What [`Fault::OutOfMemory`] names for an `alloca`.
const TRACKED_MEMORY: &str = "tracked memory";
/// What [`Fault::OutOfMemory`] names for frame slots.
const VALUE_STACK: &str = "value stack";

enum Fault {
    Trap(TrapReason),
    Limit(LimitKind, u64),
    OutOfMemory(&'static str, u64),
}

/// The stop for a failure of the op at `pc` with `fuel` left.
#[cold]
#[inline(never)]
fn fault_stop(cx: &mut Cx<'_>, fuel: u64, pc: usize, fault: Fault) -> Stop {
    *cx.fuel_out = fuel;
    match fault {
        Fault::Trap(reason) => Stop::Trap { pc, back: 0, reason },
        Fault::Limit(kind, limit) => Stop::Limit { pc, kind, limit },
        Fault::OutOfMemory(what, bytes) => Stop::OutOfMemory { pc, what, bytes },
    }
}

/// The stop for a failed element access at `pc`: a failure of its gep part
/// is reported one operation early.
#[cold]
#[inline(never)]
fn element_stop(cx: &mut Cx<'_>, fuel: u64, pc: usize, (trap, in_gep): (MemoryTrap, bool)) -> Stop {
    *cx.fuel_out = fuel;
    Stop::Trap { pc, back: u32::from(in_gep), reason: TrapReason::Memory(trap) }
}

/// Entering the segment at `t` costs `cost` steps but only `fuel` are left:
/// patches [`Op::StepLimit`] over the op where the budget runs out (returning
/// the fuel left, 0) or stops at once if that is before the segment's first op.
#[cold]
#[inline(never)]
fn exhausted(cx: &mut Cx<'_>, code: &mut [Op], t: usize, cost: u64, fuel: u64) -> Result<u64, Stop> {
    match stop_point(code, cx.pc_info, t, fuel) {
        Some((stop, site)) => {
            if let Some(slot) = code.get_mut(stop) {
                *cx.patch = Some((stop, std::mem::replace(slot, Op::StepLimit)));
                cx.steps_site = site;
            }
        }
        None => {
            *cx.fuel_out = 0;
            return Err(Stop::Steps { site: cx.pc_info.get(t).map_or(0, |i| i.site) });
        }
    }
    *cx.deficit = cost - fuel;
    Ok(0)
}

/// The byte offset an indexed `gep` adds, for indices below the fast limit
/// (where it cannot overflow); `None` sends the access to the exact path.
#[inline(always)]
fn fast_delta(g: &GepIndex, index: u64) -> Option<i64> {
    // index < fast_limit ≤ 2^63.
    (index < g.fast_limit).then(|| (index as i64).wrapping_mul(g.stride64).wrapping_add(g.constant64))
}

/// The exact checks of a fused element access (after the fast path declined).
#[inline(never)]
fn element_slow(
    memory: &Memory,
    g: &GepIndex,
    addr: u64,
    tag: u64,
    index: u64,
    need: u8,
) -> Result<usize, (MemoryTrap, bool)> {
    let align = g.align_mask + 1;
    match element_delta64(g, index) {
        Some(delta) => memory.element64(addr, tag, delta, g.size, align, need),
        None => memory.element(addr, tag, element_delta(g, index), g.size, align, need),
    }
}

/// The checked arena offset of a `size`-byte access at `(addr, tag)`.
#[inline(always)]
fn access(memory: &Memory, addr: u64, tag: u64, size: u64, align_log2: u8, need: u8) -> Result<usize, MemoryTrap> {
    let align = 1u64 << align_log2;
    match memory.fast(addr, tag, 0, size, align - 1, need) {
        Some(off) => Ok(off),
        None => memory.check(addr, tag, size, align, need),
    }
}

impl Interpreter {
    /// Runs body `func` with argument slots `args`; returns the result slots.
    /// On a stop, `self.fuel` holds the fuel left when it happened.
    pub(crate) fn run(&mut self, func: usize, args: &[u64]) -> Result<Vec<u64>, Stop> {
        let result = self.run_loop(func, args);
        if let Some((pc, op)) = self.patch.take() {
            if let Some(slot) = self.program.code.get_mut(pc) {
                *slot = op;
            }
        }
        self.memory.release_all();
        self.frames.clear();
        result
    }

    fn run_loop(&mut self, func: usize, args: &[u64]) -> Result<Vec<u64>, Stop> {
        if self.program.max_frame <= WINDOW as u32 {
            self.run_in::<[u64; WINDOW + 1]>(func, args)
        } else {
            self.run_in::<[u64]>(func, args)
        }
    }

    /// The dispatch loop over frame windows of type `R`.
    fn run_in<R: Window + ?Sized>(&mut self, func: usize, args: &[u64]) -> Result<Vec<u64>, Stop> {
        let Interpreter {
            program,
            types,
            shapes,
            options,
            memory,
            regs,
            frames,
            hosts,
            output,
            scratch,
            patch,
            fuel: fuel_out,
            deficit,
        } = self;
        let Program {
            code,
            entry_cost,
            pc_info,
            sites: _,
            max_frame: _,
            funcs,
            decls,
            templates,
            call_sites,
            arg_slots,
            switches,
            selects,
            allocas,
            layouts,
            leaves,
            geps,
            gep_index,
            latches,
            branches,
            gep_terms,
            reasons,
        } = program;
        let code: &mut [Op] = code;
        let mut cx = Cx {
            entry_cost,
            pc_info,
            funcs,
            decls,
            templates,
            call_sites,
            arg_slots,
            switches,
            selects,
            allocas,
            layouts,
            leaves,
            geps,
            gep_index,
            latches,
            branches,
            gep_terms,
            reasons,
            types,
            shapes,
            memory,
            frames,
            hosts,
            output: output.as_mut(),
            scratch,
            patch,
            fuel_out,
            deficit,
            base: 0,
            size: 0,
            steps_site: 0,
            max_depth: options.max_call_depth.max(1) as usize,
            max_slots: usize::try_from(options.max_stack_slots).unwrap_or(usize::MAX),
        };

        cx.frames.clear();
        cx.memory.release_all();
        let mut fuel = options.max_steps;
        let entry = cx.funcs.get(func).ok_or(Stop::Unsupported { func: func as u32 })?;
        let fsize = entry.frame_slots as usize;
        let entry_pc = entry.entry_pc as usize;
        if fsize.max(args.len()) > cx.max_slots {
            *cx.fuel_out = fuel;
            return Err(Stop::Limit { pc: entry_pc, kind: LimitKind::StackSlots, limit: options.max_stack_slots });
        }
        let extent = R::extent(fsize).max(args.len());
        if regs.len() < extent {
            if regs.try_reserve(extent - regs.len()).is_err() {
                *cx.fuel_out = fuel;
                return Err(Stop::OutOfMemory { pc: entry_pc, what: VALUE_STACK, bytes: extent as u64 * 8 });
            }
            regs.resize(extent, 0);
        }
        init_frame(regs, cx.templates, entry, 0);
        if let Some(dst) = regs.get_mut(..args.len()) {
            dst.copy_from_slice(args);
        }
        cx.size = fsize;
        let mut pc: usize;

        // Charges the segment at `$t` and continues there.
        macro_rules! enter {
            ($t:expr) => {{
                let t = $t as usize;
                let cost = u64::from(cx.entry_cost.get(t).copied().unwrap_or(0));
                if cost <= fuel {
                    fuel -= cost;
                } else {
                    fuel = exhausted(&mut cx, code, t, cost, fuel)?;
                }
                pc = t;
            }};
        }
        // Charges `$count` phis (sites from `$site`) and the segment at `$t`.
        macro_rules! enter_phis {
            ($t:expr, $count:expr, $site:expr) => {{
                let count = u64::from($count);
                if count > fuel {
                    *cx.fuel_out = 0;
                    return Err(Stop::Steps { site: $site + fuel as u32 });
                }
                fuel -= count;
                enter!($t);
            }};
        }
        macro_rules! trap {
            ($reason:expr) => {{
                let fault = Fault::Trap($reason);
                return Err(fault_stop(&mut cx, fuel, pc - 1, fault));
            }};
        }
        macro_rules! limit {
            ($kind:expr, $limit:expr) => {
                return Err(fault_stop(&mut cx, fuel, pc - 1, Fault::Limit($kind, $limit)))
            };
        }
        macro_rules! mem {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(e) => trap!(TrapReason::Memory(e)),
                }
            };
        }
        // The checked arena offset of a fused element access of `$size` bytes.
        macro_rules! element {
            ($g:expr, $addr:expr, $tag:expr, $index:expr, $size:expr, $need:expr) => {{
                let (g, addr, tag, index) = ($g, $addr, $tag, $index);
                let fast = match fast_delta(g, index) {
                    Some(delta) => cx.memory.fast(addr, tag, delta, $size, g.align_mask, $need),
                    None => None,
                };
                match fast {
                    Some(off) => off,
                    None => match element_slow(cx.memory, g, addr, tag, index, $need) {
                        Ok(off) => off,
                        Err(e) => return Err(element_stop(&mut cx, fuel, pc - 1, e)),
                    },
                }
            }};
        }

        enter!(entry_pc);
        // The current frame's window (`R::open` fails only if `regs` were too short).
        macro_rules! open {
            ($base:expr, $size:expr) => {
                match R::open(regs, $base, $size) {
                    Some(window) => window,
                    None => {
                        let fault = Fault::Trap(TrapReason::NotExecutable("internal: the value stack is too short"));
                        return Err(fault_stop(&mut cx, fuel, pc, fault));
                    }
                }
            };
        }
        // An operand slot, in the window.
        macro_rules! s {
            ($slot:expr) => {
                (($slot) & R::MASK) as usize
            };
        }
        let mut r: &mut R = open!(0, fsize);

        // Enters body `$fi` for call site `$cs` (pc is already past the call).
        macro_rules! push_frame {
            ($fi:expr, $cs:expr) => {{
                let cs: CallSite = $cs;
                let Some(callee) = cx.funcs.get($fi as usize) else {
                    trap!(TrapReason::NotExecutable("unknown callee"))
                };
                if cx.frames.len() + 1 >= cx.max_depth {
                    limit!(LimitKind::CallDepth, u64::from(options.max_call_depth));
                }
                let (base, new_base) = (cx.base, cx.base + cx.size);
                let new_size = callee.frame_slots as usize;
                let new_end = new_base + new_size.max(cs.nargs as usize);
                if new_end > cx.max_slots {
                    limit!(LimitKind::StackSlots, options.max_stack_slots);
                }
                let physical = new_base + R::extent(new_size).max(cs.nargs as usize);
                if regs.len() < physical {
                    let grown = physical.max(regs.len().saturating_mul(2)).min(cx.max_slots.max(physical));
                    // Doubling when the host has room, else exactly what the frame needs.
                    if regs.try_reserve_exact(grown - regs.len()).is_err()
                        && regs.try_reserve_exact(physical - regs.len()).is_err()
                    {
                        let bytes = physical as u64 * 8;
                        return Err(fault_stop(&mut cx, fuel, pc - 1, Fault::OutOfMemory(VALUE_STACK, bytes)));
                    }
                    regs.resize(grown.min(regs.capacity()), 0);
                }
                init_frame(regs, cx.templates, callee, new_base);
                let args = cx.arg_slots.get(cs.args as usize..(cs.args + cs.nargs) as usize).unwrap_or(&[]);
                for (i, &s) in args.iter().enumerate() {
                    let v = regs[base + s as usize];
                    regs[new_base + i] = v;
                }
                let mark = cx.memory.mark();
                cx.frames.push(Frame { ret_pc: pc as u32, ret_dst: cs.dst, base, size: cx.size, mark });
                cx.base = new_base;
                cx.size = new_size;
                r = open!(new_base, new_size);
                enter!(callee.entry_pc);
            }};
        }

        // Calls declaration `$d` without a body: its host function, or a trap.
        macro_rules! host_call {
            ($d:expr, $cs:expr) => {{
                let cs: CallSite = $cs;
                let Some(decl) = cx.decls.get($d) else { trap!(TrapReason::NotExecutable("unknown callee")) };
                let result = host_call(
                    decl,
                    &cs,
                    r.slots(),
                    cx.arg_slots,
                    cx.types,
                    cx.shapes,
                    cx.decls,
                    cx.hosts,
                    cx.memory,
                    cx.output,
                    cx.scratch,
                );
                if let Err(reason) = result {
                    trap!(reason);
                }
                enter!(pc);
            }};
        }

        // A fused compare-and-branch on `$cond`: charges the segment it enters.
        macro_rules! branch {
            ($info:expr, $cond:expr) => {{
                let br = &cx.branches[$info as usize];
                let (target, cost) = if $cond { (br.then_pc, br.then_cost) } else { (br.else_pc, br.else_cost) };
                if cost <= fuel {
                    fuel -= cost;
                    pc = target as usize;
                } else {
                    enter!(target)
                }
            }};
        }
        // A loop latch: `$adds` adds, then the header's compare-and-branch on
        // `$cond`, charging the phis, the header's segment and the segment it
        // enters at once (or, if the fuel runs short, entering the header).
        macro_rules! latch {
            ($info:expr, $adds:literal, $cond:expr) => {{
                let l = &cx.latches[$info as usize];
                if $adds == 2 {
                    let [dst, x, y] = l.first_add;
                    r[s!(dst)] = r[s!(x)].wrapping_add(r[s!(y)]);
                }
                if $adds >= 1 {
                    let [dst, x, y] = l.add;
                    r[s!(dst)] = r[s!(x)].wrapping_add(r[s!(y)]);
                }
                let (target, cost) = if $cond { (l.then_pc, l.then_cost) } else { (l.else_pc, l.else_cost) };
                if cost <= fuel {
                    fuel -= cost;
                    pc = target as usize;
                } else {
                    enter_phis!(l.header, l.count, l.site)
                }
            }};
        }

        loop {
            let at = pc;
            pc += 1;
            match code[at] {
                Op::Jump { target } => enter!(target),
                Op::JumpPhi { target } => pc = target as usize,
                Op::JumpPhis { target, count, site } => enter_phis!(target, count, site),
                Op::BrEq { a, b, info } => branch!(info, r[s!(a)] == r[s!(b)]),
                Op::BrSlt { a, b, info } => branch!(info, (r[s!(a)] as i64) < (r[s!(b)] as i64)),
                Op::BrUlt { a, b, info } => branch!(info, r[s!(a)] < r[s!(b)]),
                Op::LatchEq { a, b, info } => latch!(info, 0, r[s!(a)] == r[s!(b)]),
                Op::LatchSlt { a, b, info } => latch!(info, 0, (r[s!(a)] as i64) < (r[s!(b)] as i64)),
                Op::LatchUlt { a, b, info } => latch!(info, 0, r[s!(a)] < r[s!(b)]),
                Op::LatchAddEq { a, b, info } => latch!(info, 1, r[s!(a)] == r[s!(b)]),
                Op::LatchAddSlt { a, b, info } => latch!(info, 1, (r[s!(a)] as i64) < (r[s!(b)] as i64)),
                Op::LatchAddUlt { a, b, info } => latch!(info, 1, r[s!(a)] < r[s!(b)]),
                Op::LatchAdd2Eq { a, b, info } => latch!(info, 2, r[s!(a)] == r[s!(b)]),
                Op::LatchAdd2Slt { a, b, info } => latch!(info, 2, (r[s!(a)] as i64) < (r[s!(b)] as i64)),
                Op::LatchAdd2Ult { a, b, info } => latch!(info, 2, r[s!(a)] < r[s!(b)]),
                Op::BrIf { cond, then_pc, else_pc } => {
                    enter!(if r[s!(cond)] != 0 { then_pc } else { else_pc })
                }
                Op::Switch { arg, table } => {
                    let key = u128::from(r[s!(arg)]);
                    enter!(program_switch(cx.switches, table, key))
                }
                Op::Switch128 { arg, table } => {
                    let key = read128(r.slots(), arg as usize);
                    enter!(program_switch(cx.switches, table, key))
                }
                Op::Ret { src, n } => {
                    let (src, n) = (src as usize, n as usize);
                    let Some(frame) = cx.frames.pop() else {
                        *cx.fuel_out = fuel;
                        return Ok(r.slots().get(src..src + n).unwrap_or(&[]).to_vec());
                    };
                    let (from, to) = (cx.base + src, frame.base + frame.ret_dst as usize);
                    if n == 1 {
                        // The common case, without a call to memmove.
                        if let (Some(&v), true) = (regs.get(from), to < regs.len()) {
                            regs[to] = v;
                        }
                    } else if from + n <= regs.len() && to + n <= regs.len() {
                        regs.copy_within(from..from + n, to);
                    }
                    cx.memory.release(frame.mark);
                    cx.base = frame.base;
                    cx.size = frame.size;
                    r = open!(frame.base, frame.size);
                    enter!(frame.ret_pc);
                }
                Op::Trap { reason } => {
                    trap!(TrapReason::Explicit(cx.reasons.get(reason as usize).cloned().unwrap_or_default()))
                }
                Op::TrapIf { cond, reason } => {
                    if r[s!(cond)] != 0 {
                        trap!(TrapReason::Explicit(cx.reasons.get(reason as usize).cloned().unwrap_or_default()))
                    }
                }
                Op::NotExecutable { what } => {
                    trap!(TrapReason::NotExecutable(if what == crate::compile::NOT_EXEC_UNDEF {
                        "undef has no value in semantics version 1"
                    } else {
                        "the phi has no input for this edge"
                    }))
                }
                Op::Unsupported { func } => {
                    *cx.fuel_out = fuel;
                    return Err(Stop::Unsupported { func });
                }
                Op::StepLimit => {
                    if let Some((at, original)) = cx.patch.take() {
                        if let Some(slot) = code.get_mut(at) {
                            *slot = original;
                        }
                    }
                    *cx.fuel_out = 0;
                    return Err(Stop::Steps { site: cx.steps_site });
                }
                Op::CallBody { site } => {
                    let cs = cx.call_sites[site as usize];
                    push_frame!(cs.callee, cs)
                }
                Op::CallExternal { site } => {
                    let cs = cx.call_sites[site as usize];
                    host_call!(cs.callee as usize, cs)
                }
                Op::CallIndirect { site } => {
                    let cs = cx.call_sites[site as usize];
                    let address = r[s!(cs.fptr)];
                    let callee = match indirect_callee(cx.types, cx.decls, &cs, address) {
                        Ok(callee) => callee,
                        Err(reason) => trap!(reason),
                    };
                    match cx.decls.get(callee).and_then(|d| d.body) {
                        Some(fi) => push_frame!(fi, cs),
                        None => host_call!(callee, cs),
                    }
                }

                Op::Mov { dst, src } => r[s!(dst)] = r[s!(src)],
                Op::Mov2 { dst, src } => {
                    r[s!(dst)] = r[s!(src)];
                    r[s!(dst) + 1] = r[s!(src) + 1];
                }

                Op::Add { dst, a, b } => r[s!(dst)] = r[s!(a)].wrapping_add(r[s!(b)]),
                Op::Sub { dst, a, b } => r[s!(dst)] = r[s!(a)].wrapping_sub(r[s!(b)]),
                Op::Mul { dst, a, b } => r[s!(dst)] = r[s!(a)].wrapping_mul(r[s!(b)]),
                Op::And { dst, a, b } => r[s!(dst)] = r[s!(a)] & r[s!(b)],
                Op::Or { dst, a, b } => r[s!(dst)] = r[s!(a)] | r[s!(b)],
                Op::Xor { dst, a, b } => r[s!(dst)] = r[s!(a)] ^ r[s!(b)],
                Op::Udiv { dst, a, b } => {
                    let d = r[s!(b)];
                    if d == 0 {
                        trap!(TrapReason::DivisionByZero);
                    }
                    r[s!(dst)] = r[s!(a)] / d;
                }
                Op::Urem { dst, a, b } => {
                    let d = r[s!(b)];
                    if d == 0 {
                        trap!(TrapReason::RemainderByZero);
                    }
                    r[s!(dst)] = r[s!(a)] % d;
                }
                Op::Srem { dst, a, b } => {
                    let d = r[s!(b)] as i64;
                    if d == 0 {
                        trap!(TrapReason::RemainderByZero);
                    }
                    r[s!(dst)] = (r[s!(a)] as i64).wrapping_rem(d) as u64;
                }
                Op::Sdiv64 { dst, a, b } => {
                    let d = r[s!(b)] as i64;
                    if d == 0 {
                        trap!(TrapReason::DivisionByZero);
                    }
                    r[s!(dst)] = (r[s!(a)] as i64).wrapping_div(d) as u64;
                }
                Op::Shl64 { dst, a, b } => r[s!(dst)] = r[s!(a)] << (r[s!(b)] & 63),
                Op::Lshr64 { dst, a, b } => r[s!(dst)] = r[s!(a)] >> (r[s!(b)] & 63),
                Op::Ashr64 { dst, a, b } => r[s!(dst)] = ((r[s!(a)] as i64) >> (r[s!(b)] & 63)) as u64,
                Op::AddN { dst, a, b, norm } => r[s!(dst)] = norm.apply(r[s!(a)].wrapping_add(r[s!(b)])),
                Op::SubN { dst, a, b, norm } => r[s!(dst)] = norm.apply(r[s!(a)].wrapping_sub(r[s!(b)])),
                Op::MulN { dst, a, b, norm } => r[s!(dst)] = norm.apply(r[s!(a)].wrapping_mul(r[s!(b)])),
                Op::SdivN { dst, a, b, norm } => {
                    let d = r[s!(b)] as i64;
                    if d == 0 {
                        trap!(TrapReason::DivisionByZero);
                    }
                    r[s!(dst)] = norm.apply((r[s!(a)] as i64).wrapping_div(d) as u64);
                }
                Op::ShlN { dst, a, b, norm } => {
                    let c = norm.shift_count(r[s!(b)]);
                    r[s!(dst)] = norm.apply(r[s!(a)] << c);
                }
                Op::LshrN { dst, a, b, norm } => {
                    let c = norm.shift_count(r[s!(b)]);
                    r[s!(dst)] = norm.apply(norm.zext(r[s!(a)]) >> c);
                }
                Op::AshrN { dst, a, b, norm } => {
                    let c = norm.shift_count(r[s!(b)]);
                    r[s!(dst)] = norm.apply(((norm.sext(r[s!(a)]) as i64) >> c) as u64);
                }
                Op::Not { dst, a, norm } => r[s!(dst)] = norm.apply(!r[s!(a)]),
                Op::Cmp { pred, dst, a, b } => r[s!(dst)] = u64::from(int_pred(pred, r[s!(a)], r[s!(b)])),
                Op::IntConv { dst, a, extend, from, to } => {
                    let x = r[s!(a)];
                    let x = match extend {
                        Extend::Keep => x,
                        Extend::Zero => from.zext(x),
                        Extend::Sign => from.sext(x),
                    };
                    r[s!(dst)] = to.apply(x);
                }

                Op::Load { kind, align_log2, dst, ptr } => {
                    let kind = Kind::from_code(kind);
                    let (addr, tag) = (r[s!(ptr)], r[s!(ptr) + 1]);
                    let off = mem!(access(cx.memory, addr, tag, kind.size(), align_log2, READ));
                    mem!(load(cx.memory, off, kind, r, dst));
                }
                Op::Store { kind, align_log2, src, ptr } => {
                    let kind = Kind::from_code(kind);
                    let (addr, tag) = (r[s!(ptr)], r[s!(ptr) + 1]);
                    let off = mem!(access(cx.memory, addr, tag, kind.size(), align_log2, WRITE));
                    store(cx.memory, off, kind, r, src);
                }
                Op::GepIndex { dst, index, info } => {
                    let g = &cx.gep_index[info as usize];
                    let (addr, tag, i) = (r[s!(g.base)], r[s!(g.base) + 1], r[s!(index)]);
                    let new = match fast_delta(g, i).and_then(|delta| cx.memory.fast_offset(addr, tag, delta)) {
                        Some(target) => target,
                        None => mem!(cx.memory.offset(addr, tag, element_delta(g, i))),
                    };
                    r[s!(dst)] = new;
                    r[s!(dst) + 1] = tag;
                }
                Op::LoadElem { kind, dst, index, info } => {
                    let g = &cx.gep_index[info as usize];
                    let (addr, tag, i) = (r[s!(g.base)], r[s!(g.base) + 1], r[s!(index)]);
                    let off = element!(g, addr, tag, i, g.size, READ);
                    mem!(load(cx.memory, off, Kind::from_code(kind), r, dst));
                }
                Op::StoreElem { kind, src, index, info } => {
                    let g = &cx.gep_index[info as usize];
                    let (addr, tag, i) = (r[s!(g.base)], r[s!(g.base) + 1], r[s!(index)]);
                    let off = element!(g, addr, tag, i, g.size, WRITE);
                    store(cx.memory, off, Kind::from_code(kind), r, src);
                }
                Op::LoadElemU8 { dst, index, info } => {
                    let g = &cx.gep_index[info as usize];
                    let (addr, tag, i) = (r[s!(g.base)], r[s!(g.base) + 1], r[s!(index)]);
                    let off = element!(g, addr, tag, i, 1, READ);
                    r[s!(dst)] = u64::from(mem!(cx.memory.read_u8(off)));
                }
                Op::LoadElem64 { dst, index, info } => {
                    let g = &cx.gep_index[info as usize];
                    let (addr, tag, i) = (r[s!(g.base)], r[s!(g.base) + 1], r[s!(index)]);
                    let off = element!(g, addr, tag, i, 8, READ);
                    r[s!(dst)] = u64::from_le_bytes(mem!(cx.memory.read::<8>(off)));
                }
                Op::StoreElemByte { src, index, info } => {
                    let g = &cx.gep_index[info as usize];
                    let (addr, tag, i) = (r[s!(g.base)], r[s!(g.base) + 1], r[s!(index)]);
                    let off = element!(g, addr, tag, i, 1, WRITE);
                    cx.memory.write_u8(off, r[s!(src)] as u8);
                }
                Op::StoreElem64 { src, index, info } => {
                    let g = &cx.gep_index[info as usize];
                    let (addr, tag, i) = (r[s!(g.base)], r[s!(g.base) + 1], r[s!(index)]);
                    let off = element!(g, addr, tag, i, 8, WRITE);
                    cx.memory.write(off, r[s!(src)].to_le_bytes());
                }

                other @ (Op::MovN { .. }
                | Op::Select { .. }
                | Op::Int128 { .. }
                | Op::Not128 { .. }
                | Op::Cmp128 { .. }
                | Op::Checked { .. }
                | Op::PtrCmp { .. }
                | Op::Float { .. }
                | Op::FloatCmp { .. }
                | Op::Cast { .. }
                | Op::Alloca { .. }
                | Op::LoadAgg { .. }
                | Op::StoreAgg { .. }
                | Op::Uninit { .. }
                | Op::Memcpy { .. }
                | Op::Memset { .. }
                | Op::Gep { .. }) => {
                    if let Err(fault) = rare(&mut cx, r.slots(), other) {
                        return Err(fault_stop(&mut cx, fuel, pc - 1, fault));
                    }
                }
            }
        }
    }
}

/// The operations too rare or too large for the dispatch loop: wide and
/// checked integers, floats, casts, aggregates, bulk memory, allocation,
/// general `gep`s, selects and long moves. None transfers control.
#[inline(never)]
fn rare(cx: &mut Cx<'_>, r: &mut [u64], op: Op) -> Result<(), Fault> {
    let memory_trap = |e: MemoryTrap| Fault::Trap(TrapReason::Memory(e));
    match op {
        Op::MovN { dst, src, n } => {
            let (src, n) = (src as usize, n as usize);
            r.copy_within(src..src + n, dst as usize);
        }
        Op::Select { dst, cond, info } => {
            let (a, b, n) = cx.selects[info as usize];
            let src = if r[cond as usize] != 0 { a } else { b } as usize;
            if n == 1 {
                r[dst as usize] = r[src];
            } else {
                r.copy_within(src..src + n as usize, dst as usize);
            }
        }
        Op::Int128 { op, dst, a, b } => {
            let ty = IntTy { bits: 128, signed: matches!(op, IntOp::Sdiv | IntOp::Srem) };
            let v = int_binary(op, ty, read128(r, a as usize), read128(r, b as usize)).map_err(Fault::Trap)?;
            write128(r, dst as usize, v);
        }
        Op::Not128 { dst, a } => {
            let v = !read128(r, a as usize);
            write128(r, dst as usize, v);
        }
        Op::Cmp128 { pred, dst, a, b } => {
            let (x, y) = (read128(r, a as usize), read128(r, b as usize));
            r[dst as usize] = u64::from(match pred {
                IntPred::Eq => x == y,
                IntPred::Ne => x != y,
                IntPred::Slt => (x as i128) < (y as i128),
                IntPred::Sle => (x as i128) <= (y as i128),
                IntPred::Ult => x < y,
                IntPred::Ule => x <= y,
            });
        }
        Op::Checked { op, ty, dst, a, b } => {
            let (v, overflow) = checked(op, ty, read_int(r, a as usize, ty), read_int(r, b as usize, ty));
            write_int(r, dst as usize, ty, v);
            let flag = dst as usize + if ty.bits == 128 { 2 } else { 1 };
            r[flag] = u64::from(overflow);
        }
        Op::PtrCmp { equal, dst, a, b } => {
            let (a, b) = (a as usize, b as usize);
            let (ta, tb) = (r[a + 1], r[b + 1]);
            let same = r[a] == r[b] && (ta == 0 || tb == 0 || ta == tb);
            r[dst as usize] = u64::from(same == equal);
        }
        Op::Float { op, width, dst, a, b } => r[dst as usize] = float_binary(op, width, r[a as usize], r[b as usize]),
        Op::FloatCmp { pred, width, dst, a, b } => {
            let (x, y) = (to_f64(width, r[a as usize]), to_f64(width, r[b as usize]));
            r[dst as usize] = u64::from(float_compare(pred, x, y));
        }
        Op::Cast { kind, from, to, dst, a } => {
            cast(kind, Kind::from_code(from), Kind::from_code(to), r, dst as usize, a as usize).map_err(Fault::Trap)?
        }
        Op::Alloca { dst, info } => {
            let (size, align) = cx.allocas[info as usize];
            match cx.memory.allocate_stack(size, align) {
                Ok((addr, tag)) => {
                    r[dst as usize] = addr;
                    r[dst as usize + 1] = tag;
                }
                Err(AllocError::Bytes) => return Err(Fault::Limit(LimitKind::MemoryBytes, cx.memory.max_bytes)),
                Err(AllocError::Count) => return Err(Fault::Limit(LimitKind::Allocations, cx.memory.max_allocations)),
                Err(AllocError::OutOfMemory(bytes)) => return Err(Fault::OutOfMemory(TRACKED_MEMORY, bytes)),
            }
        }
        Op::LoadAgg { dst, ptr, layout } => {
            let l = cx.layouts[layout as usize];
            let (addr, tag) = (r[ptr as usize], r[ptr as usize + 1]);
            let off = cx.memory.check(addr, tag, l.size, l.align, READ).map_err(memory_trap)?;
            let (start, len) = (l.leaves.0 as usize, l.leaves.1 as usize);
            for leaf in &cx.leaves[start..start + len] {
                let at = off + leaf.offset as usize;
                load(cx.memory, at, Kind::from_code(leaf.kind), r, dst + leaf.slot).map_err(memory_trap)?;
            }
        }
        Op::StoreAgg { src, ptr, layout } => {
            let l = cx.layouts[layout as usize];
            let (addr, tag) = (r[ptr as usize], r[ptr as usize + 1]);
            let off = cx.memory.check(addr, tag, l.size, l.align, WRITE).map_err(memory_trap)?;
            let (start, len) = (l.leaves.0 as usize, l.leaves.1 as usize);
            for leaf in &cx.leaves[start..start + len] {
                let at = off + leaf.offset as usize;
                store(cx.memory, at, Kind::from_code(leaf.kind), r, src + leaf.slot);
            }
        }
        Op::Uninit { ptr, layout } => {
            let l = cx.layouts[layout as usize];
            let (addr, tag) = (r[ptr as usize], r[ptr as usize + 1]);
            let off = cx.memory.check(addr, tag, l.size, l.align, WRITE).map_err(memory_trap)?;
            cx.memory.clear_init(off, l.size as usize);
        }
        Op::Memcpy { align_log2, dst, src, len } => {
            let n = r[len as usize];
            if n != 0 {
                let align = 1u64 << align_log2;
                let (d, s) = (dst as usize, src as usize);
                let to = cx.memory.check(r[d], r[d + 1], n, align, WRITE).map_err(memory_trap)?;
                let from = cx.memory.check(r[s], r[s + 1], n, align, READ).map_err(memory_trap)?;
                if Memory::overlaps(to, from, n as usize) {
                    return Err(memory_trap(MemoryTrap::OverlappingCopy));
                }
                cx.memory.copy(to, from, n as usize);
            }
        }
        Op::Memset { align_log2, dst, byte, len } => {
            let n = r[len as usize];
            if n != 0 {
                let d = dst as usize;
                let to = cx.memory.check(r[d], r[d + 1], n, 1 << align_log2, WRITE).map_err(memory_trap)?;
                cx.memory.fill(to, n as usize, r[byte as usize] as u8);
            }
        }
        Op::Gep { dst, base: b, info } => {
            let g = cx.geps[info as usize];
            let mut delta = g.constant;
            let (start, len) = (g.terms.0 as usize, g.terms.1 as usize);
            for term in &cx.gep_terms[start..start + len] {
                let index = match Kind::from_code(term.kind).int() {
                    Some(ty) if ty.bits == 128 && !ty.signed => i128::try_from(read128(r, term.slot as usize)).ok(),
                    Some(ty) => Some(read_int(r, term.slot as usize, ty) as i128),
                    None => None,
                };
                delta = delta.and_then(|d| d.checked_add(index?.checked_mul(i128::from(term.stride))?));
            }
            let (addr, tag) = (r[b as usize], r[b as usize + 1]);
            let new = cx.memory.offset(addr, tag, delta).map_err(memory_trap)?;
            r[dst as usize] = new;
            r[dst as usize + 1] = tag;
        }
        // The dispatch loop runs every other operation itself.
        _ => return Err(Fault::Trap(TrapReason::NotExecutable("internal: operation dispatched out of line"))),
    }
    Ok(())
}

/// The declaration an indirect call through `address` reaches, after the
/// checks of the call (null, unknown address, signature) in that order.
#[inline(never)]
fn indirect_callee(types: &ir::TypeTable, decls: &Decls, cs: &CallSite, address: u64) -> Result<usize, TrapReason> {
    if address == 0 {
        return Err(TrapReason::NullFunctionPointer);
    }
    let Some(d) = decls.decode(address) else { return Err(TrapReason::InvalidFunctionPointer { address }) };
    let Some(decl) = decls.get(d) else { return Err(TrapReason::InvalidFunctionPointer { address }) };
    if decl.sig != cs.sig {
        let mut expected = String::new();
        types.write_sig(&mut expected, cs.sig);
        let mut actual = String::new();
        types.write_sig(&mut actual, decl.sig);
        return Err(TrapReason::SignatureMismatch { callee: decl.id, expected, actual });
    }
    Ok(d)
}

/// The byte offset of an indexed `gep` when it fits `i64` (stride, constant
/// and index small, as they usually are): one multiply and one add.
#[inline(always)]
fn element_delta64(g: &crate::program::GepIndex, index: u64) -> Option<i64> {
    if g.small && (g.signed || index <= i64::MAX as u64) {
        (index as i64).checked_mul(g.stride as i64)?.checked_add(g.constant as i64)
    } else {
        None
    }
}

/// The byte offset of an indexed `gep` in full, `None` on overflow.
#[inline]
fn element_delta(g: &crate::program::GepIndex, index: u64) -> Option<i128> {
    let index = if g.signed { i128::from(index as i64) } else { i128::from(index) };
    index.checked_mul(i128::from(g.stride))?.checked_add(g.constant)
}

/// Copies a function's constant template into the frame at `base`.
#[inline]
fn init_frame(regs: &mut [u64], templates: &[u64], f: &crate::program::FuncInfo, base: usize) {
    let (start, len) = (f.template.0 as usize, f.template.1 as usize);
    let at = base + f.const_slot as usize;
    if let (Some(dst), Some(src)) = (regs.get_mut(at..at + len), templates.get(start..start + len)) {
        if len <= 4 {
            // Most functions have a few constants: cheaper than a call to memcpy.
            for (d, s) in dst.iter_mut().zip(src) {
                *d = *s;
            }
        } else {
            dst.copy_from_slice(src);
        }
    }
}

/// Runs the host function bound to `decl` for call site `cs`, writing its
/// result into the caller's frame `r`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn host_call(
    decl: &DeclInfo,
    cs: &CallSite,
    r: &mut [u64],
    arg_slots: &[u32],
    types: &ir::TypeTable,
    shapes: &crate::shape::Shapes,
    decls: &crate::program::Decls,
    hosts: &mut [(String, crate::host::HostFn)],
    memory: &mut Memory,
    output: &mut dyn std::io::Write,
    scratch: &mut Vec<u64>,
) -> Result<(), TrapReason> {
    let link_name = decl.link_name.clone().unwrap_or_else(|| decl.name.clone());
    let Some(host) = decl.host.and_then(|h| hosts.get_mut(h as usize)) else {
        return Err(TrapReason::UnboundExternal { link_name });
    };
    let sig = types.sig(decl.sig);
    scratch.clear();
    for &s in arg_slots.get(cs.args as usize..(cs.args + cs.nargs) as usize).unwrap_or(&[]) {
        scratch.push(r.get(s as usize).copied().unwrap_or(0));
    }
    let mut at = 0;
    let args: Vec<Value> = sig.params.iter().map(|&p| from_slots(types, shapes, decls, p, scratch, &mut at)).collect();
    let mut cx = HostContext { memory, output };
    let result =
        (host.1)(&mut cx, &args).map_err(|e| TrapReason::Host { link_name: link_name.clone(), message: e.0 })?;
    let ret = sig.ret;
    let wrong =
        || TrapReason::HostResult { link_name: link_name.clone(), expected: crate::shape::type_label(types, ret) };
    match result {
        None if ret == ir::TypeId::VOID => Ok(()),
        None => Err(wrong()),
        Some(_) if ret == ir::TypeId::VOID => Err(wrong()),
        Some(v) => {
            scratch.clear();
            if !to_slots(types, shapes, ret, &v, scratch) || scratch.len() != cs.ret_slots as usize {
                return Err(wrong());
            }
            let dst = cs.dst as usize;
            match r.get_mut(dst..dst + scratch.len()) {
                Some(out) => out.copy_from_slice(scratch),
                None => return Err(wrong()),
            }
            Ok(())
        }
    }
}

/// The target of a switch on `key`.
#[inline]
fn program_switch(tables: &[crate::program::SwitchTable], table: u32, key: u128) -> u32 {
    match tables.get(table as usize) {
        Some(t) => match t.cases.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(i) => t.cases.get(i).map_or(t.default, |&(_, target)| target),
            Err(_) => t.default,
        },
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path's offset is the exact one wherever it applies, and it
    /// applies to every index below its limit (the largest index whose offset
    /// surely fits `i64`, plus one).
    #[test]
    fn fast_gep_offsets_are_exact() {
        let strides = [1u64, 2, 3, 8, 12, 1 << 20, i64::MAX as u64, 1 << 63];
        let constants = [0i128, 5, -5, i64::MAX.into(), i64::MIN.into(), i128::from(i64::MAX) + 1];
        for (stride, constant) in strides.iter().flat_map(|&s| constants.iter().map(move |&c| (s, c))) {
            let g = GepIndex::new(0, stride % 2 == 0, stride, constant);
            let limit = g.fast_limit;
            assert!(limit <= 1 << 63);
            for index in [0, 1, 2, 1000, limit.wrapping_sub(2), limit.wrapping_sub(1), limit, limit + 1, u64::MAX] {
                match fast_delta(&g, index) {
                    Some(delta) => assert_eq!(Some(i128::from(delta)), element_delta(&g, index)),
                    None => assert!(index >= limit, "{stride} {constant} {index}"),
                }
            }
        }
    }
}
