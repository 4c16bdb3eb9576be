//! The dispatch loop.
//!
//! One `loop { match code[pc] }` over the translated program. Calls never
//! recurse on the Rust stack: a call pushes a [`Frame`] record and moves the
//! current frame window (`r`, a slice of the shared value stack) to the callee;
//! `ret` pops it. Steps are charged when control enters a segment (see
//! [`crate::program`]); when the budget cannot pay for a whole segment, the
//! operation at which it runs out is found from the per-op tables and
//! temporarily replaced by [`Op::StepLimit`], so the operations before it still
//! run (and may trap first) without any per-operation fuel check. Operand slot
//! indices were validated against the frame size at translation time, so
//! indexing `r` cannot fail.

use crate::error::{LimitKind, MemoryTrap, TrapReason};
use crate::host::HostContext;
use crate::memory::{AllocError, Memory, READ, WRITE};
use crate::numeric::{
    checked, float_binary, float_compare, float_convert, float_to_int, int_binary, int_to_float, to_f64, IntOp, IntTy,
    Norm,
};
use crate::program::{CallSite, CastKind, DeclInfo, Extend, IntPred, Op, PcInfo};
use crate::shape::Kind;
use crate::value::{from_slots, to_slots, Value};
use crate::Interpreter;

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
fn load(memory: &Memory, off: usize, kind: Kind, r: &mut [u64], dst: usize) -> Result<(), MemoryTrap> {
    match kind {
        Kind::U8 => r[dst] = u64::from(memory.read_u8(off)?),
        Kind::I8 => r[dst] = memory.read_u8(off)? as i8 as u64,
        Kind::Bool => {
            let b = memory.read_u8(off)?;
            if b > 1 {
                return Err(MemoryTrap::InvalidBool { byte: b });
            }
            r[dst] = u64::from(b);
        }
        Kind::I1 => r[dst] = Norm::new(1, true).apply(u64::from(memory.read_u8(off)?)),
        Kind::U1 => r[dst] = Norm::new(1, false).apply(u64::from(memory.read_u8(off)?)),
        Kind::I16 => r[dst] = memory.read_le(off, 2)? as u16 as i16 as u64,
        Kind::U16 | Kind::F16 => r[dst] = memory.read_le(off, 2)? as u64,
        Kind::I32 => r[dst] = memory.read_le(off, 4)? as u32 as i32 as u64,
        Kind::U32 | Kind::F32 => r[dst] = memory.read_le(off, 4)? as u64,
        Kind::I64 | Kind::U64 | Kind::F64 | Kind::FnPtr => r[dst] = memory.read_le(off, 8)? as u64,
        Kind::I128 | Kind::U128 => write128(r, dst, memory.read_le(off, 16)?),
        Kind::Ptr => {
            let (addr, tag) = memory.read_ptr(off)?;
            r[dst] = addr;
            r[dst + 1] = tag;
        }
    }
    Ok(())
}

/// Stores a scalar of `kind` from slot `src` at checked arena offset `off`. An
/// integer is stored as its N-bit pattern (an `i1` −1 is the byte 0x01).
#[inline(always)]
fn store(memory: &mut Memory, off: usize, kind: Kind, r: &[u64], src: usize) {
    match kind {
        Kind::U8 | Kind::I8 | Kind::Bool | Kind::U1 => memory.write_u8(off, r[src] as u8),
        Kind::I1 => memory.write_u8(off, (r[src] & 1) as u8),
        Kind::Ptr => memory.write_ptr(off, r[src], r[src + 1]),
        Kind::I128 | Kind::U128 => memory.write_le(off, 16, read128(r, src)),
        _ => memory.write_le(off, kind.size() as usize, u128::from(r[src])),
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
            ..
        } = self;
        let max_depth = options.max_call_depth.max(1) as usize;
        let max_slots = usize::try_from(options.max_stack_slots).unwrap_or(usize::MAX);
        let code = &mut program.code;
        let entry_cost = &program.entry_cost;
        let pc_info = &program.pc_info;
        let funcs = &program.funcs;
        let decls = &program.decls;
        let templates = &program.templates;
        let call_sites = &program.call_sites;
        let arg_slots = &program.arg_slots;

        frames.clear();
        memory.release_all();
        let mut fuel = options.max_steps;
        let entry = funcs.get(func).ok_or(Stop::Unsupported { func: func as u32 })?;
        let mut base = 0usize;
        let mut fsize = entry.frame_slots as usize;
        let entry_pc = entry.entry_pc as usize;
        if fsize.max(args.len()) > max_slots {
            *fuel_out = fuel;
            return Err(Stop::Limit { pc: entry_pc, kind: LimitKind::StackSlots, limit: options.max_stack_slots });
        }
        if regs.len() < fsize.max(args.len()) {
            regs.resize(fsize.max(args.len()), 0);
        }
        init_frame(regs, templates, entry, 0);
        if let Some(dst) = regs.get_mut(..args.len()) {
            dst.copy_from_slice(args);
        }
        let mut pc: usize;
        let mut steps_site = 0u32;

        // Charges the segment at `$t` and continues there.
        macro_rules! enter {
            ($t:expr) => {{
                let t = $t as usize;
                let cost = u64::from(entry_cost.get(t).copied().unwrap_or(0));
                if cost <= fuel {
                    fuel -= cost;
                } else {
                    match stop_point(code, pc_info, t, fuel) {
                        Some((stop, site)) => {
                            if let Some(slot) = code.get_mut(stop) {
                                *patch = Some((stop, std::mem::replace(slot, Op::StepLimit)));
                                steps_site = site;
                            }
                        }
                        None => {
                            *fuel_out = 0;
                            return Err(Stop::Steps { site: pc_info.get(t).map_or(0, |i| i.site) });
                        }
                    }
                    *deficit = cost - fuel;
                    fuel = 0;
                }
                pc = t;
            }};
        }
        // Charges `$count` phis (sites from `$site`) and the segment at `$t`.
        macro_rules! enter_phis {
            ($t:expr, $count:expr, $site:expr) => {{
                let count = u64::from($count);
                if count > fuel {
                    *fuel_out = 0;
                    return Err(Stop::Steps { site: $site + fuel as u32 });
                }
                fuel -= count;
                enter!($t);
            }};
        }
        macro_rules! trap {
            ($reason:expr) => {{
                *fuel_out = fuel;
                return Err(Stop::Trap { pc: pc - 1, back: 0, reason: $reason });
            }};
        }
        // An element access: the gep part traps one operation early.
        macro_rules! element {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err((e, in_gep)) => {
                        *fuel_out = fuel;
                        return Err(Stop::Trap { pc: pc - 1, back: u32::from(in_gep), reason: TrapReason::Memory(e) });
                    }
                }
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
        macro_rules! limit {
            ($kind:expr, $limit:expr) => {{
                *fuel_out = fuel;
                return Err(Stop::Limit { pc: pc - 1, kind: $kind, limit: $limit });
            }};
        }

        enter!(entry_pc);
        let mut r: &mut [u64] = &mut regs[base..base + fsize];

        // Enters body `$fi` for call site `$cs` (pc is already past the call).
        macro_rules! push_frame {
            ($fi:expr, $cs:expr) => {{
                let cs: CallSite = $cs;
                let Some(callee) = funcs.get($fi as usize) else { trap!(TrapReason::NotExecutable("unknown callee")) };
                if frames.len() + 1 >= max_depth {
                    limit!(LimitKind::CallDepth, u64::from(options.max_call_depth));
                }
                let new_base = base + fsize;
                let new_size = callee.frame_slots as usize;
                let new_end = new_base + new_size.max(cs.nargs as usize);
                if new_end > max_slots {
                    limit!(LimitKind::StackSlots, options.max_stack_slots);
                }
                if regs.len() < new_end {
                    let grown = new_end.max(regs.len().saturating_mul(2)).min(max_slots.max(new_end));
                    regs.resize(grown, 0);
                }
                init_frame(regs, templates, callee, new_base);
                let args = arg_slots.get(cs.args as usize..(cs.args + cs.nargs) as usize).unwrap_or(&[]);
                for (i, &s) in args.iter().enumerate() {
                    let v = regs[base + s as usize];
                    regs[new_base + i] = v;
                }
                frames.push(Frame { ret_pc: pc as u32, ret_dst: cs.dst, base, size: fsize, mark: memory.mark() });
                base = new_base;
                fsize = new_size;
                r = &mut regs[base..base + fsize];
                enter!(callee.entry_pc);
            }};
        }

        // Calls declaration `$d` without a body: its host function, or a trap.
        macro_rules! host_call {
            ($d:expr, $cs:expr) => {{
                let cs: CallSite = $cs;
                let Some(decl) = decls.get($d) else { trap!(TrapReason::NotExecutable("unknown callee")) };
                match host_call(decl, &cs, r, arg_slots, types, shapes, decls, hosts, memory, output.as_mut(), scratch)
                {
                    Ok(()) => {}
                    Err(reason) => trap!(reason),
                }
                enter!(pc);
            }};
        }

        loop {
            let op = code[pc];
            pc += 1;
            match op {
                Op::Jump { target } => enter!(target),
                Op::JumpPhi { target } => pc = target as usize,
                Op::JumpPhis { target, count, site } => enter_phis!(target, count, site),
                Op::LatchAdd { pred, a, b, info } => {
                    let l = &program.latches[info as usize];
                    let [dst, x, y] = l.add;
                    r[dst as usize] = r[x as usize].wrapping_add(r[y as usize]);
                    let (target, cost) = if int_pred(pred, r[a as usize], r[b as usize]) {
                        (l.then_pc, l.then_cost)
                    } else {
                        (l.else_pc, l.else_cost)
                    };
                    if cost <= fuel {
                        fuel -= cost;
                        pc = target as usize;
                    } else {
                        enter_phis!(l.header, l.count, l.site)
                    }
                }
                Op::Latch { pred, a, b, info } => {
                    let l = &program.latches[info as usize];
                    let (target, cost) = if int_pred(pred, r[a as usize], r[b as usize]) {
                        (l.then_pc, l.then_cost)
                    } else {
                        (l.else_pc, l.else_cost)
                    };
                    if cost <= fuel {
                        // Phis, the header's compare-and-branch and the target segment at once.
                        fuel -= cost;
                        pc = target as usize;
                    } else {
                        enter_phis!(l.header, l.count, l.site)
                    }
                }
                Op::BrIf { cond, then_pc, else_pc } => {
                    enter!(if r[cond as usize] != 0 { then_pc } else { else_pc })
                }
                Op::BrCmp { pred, a, b, info } => {
                    let br = &program.branches[info as usize];
                    let (target, cost) = if int_pred(pred, r[a as usize], r[b as usize]) {
                        (br.then_pc, br.then_cost)
                    } else {
                        (br.else_pc, br.else_cost)
                    };
                    if cost <= fuel {
                        fuel -= cost;
                        pc = target as usize;
                    } else {
                        enter!(target)
                    }
                }
                Op::Switch { arg, table } => {
                    let key = u128::from(r[arg as usize]);
                    let target = program_switch(&program.switches, table, key);
                    enter!(target)
                }
                Op::Switch128 { arg, table } => {
                    let key = read128(r, arg as usize);
                    let target = program_switch(&program.switches, table, key);
                    enter!(target)
                }
                Op::Ret { src, n } => {
                    let (src, n) = (src as usize, n as usize);
                    let Some(frame) = frames.pop() else {
                        *fuel_out = fuel;
                        return Ok(r[src..src + n].to_vec());
                    };
                    let (from, to) = (base + src, frame.base + frame.ret_dst as usize);
                    if n == 1 {
                        // The common case, without a call to memmove.
                        if let (Some(&v), true) = (regs.get(from), to < regs.len()) {
                            regs[to] = v;
                        }
                    } else if from + n <= regs.len() && to + n <= regs.len() {
                        regs.copy_within(from..from + n, to);
                    }
                    memory.release(frame.mark);
                    base = frame.base;
                    fsize = frame.size;
                    r = &mut regs[base..base + fsize];
                    enter!(frame.ret_pc);
                }
                Op::Trap { reason } => {
                    trap!(TrapReason::Explicit(program.reasons.get(reason as usize).cloned().unwrap_or_default()))
                }
                Op::TrapIf { cond, reason } => {
                    if r[cond as usize] != 0 {
                        trap!(TrapReason::Explicit(program.reasons.get(reason as usize).cloned().unwrap_or_default()))
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
                    *fuel_out = fuel;
                    return Err(Stop::Unsupported { func });
                }
                Op::StepLimit => {
                    if let Some((at, original)) = patch.take() {
                        if let Some(slot) = code.get_mut(at) {
                            *slot = original;
                        }
                    }
                    *fuel_out = 0;
                    return Err(Stop::Steps { site: steps_site });
                }
                Op::CallBody { site } => {
                    let cs = call_sites[site as usize];
                    push_frame!(cs.callee, cs)
                }
                Op::CallExternal { site } => {
                    let cs = call_sites[site as usize];
                    host_call!(cs.callee as usize, cs)
                }
                Op::CallIndirect { site } => {
                    let cs = call_sites[site as usize];
                    let address = r[cs.fptr as usize];
                    if address == 0 {
                        trap!(TrapReason::NullFunctionPointer);
                    }
                    let Some(d) = decls.decode(address) else { trap!(TrapReason::InvalidFunctionPointer { address }) };
                    let Some(decl) = decls.get(d) else { trap!(TrapReason::InvalidFunctionPointer { address }) };
                    if decl.sig != cs.sig {
                        let mut expected = String::new();
                        types.write_sig(&mut expected, cs.sig);
                        let mut actual = String::new();
                        types.write_sig(&mut actual, decl.sig);
                        trap!(TrapReason::SignatureMismatch { callee: decl.id, expected, actual });
                    }
                    match decl.body {
                        Some(fi) => push_frame!(fi, cs),
                        None => host_call!(d, cs),
                    }
                }

                Op::Mov { dst, src } => r[dst as usize] = r[src as usize],
                Op::Mov2 { dst, src } => {
                    r[dst as usize] = r[src as usize];
                    r[dst as usize + 1] = r[src as usize + 1];
                }
                Op::MovN { dst, src, n } => {
                    let (src, n) = (src as usize, n as usize);
                    r.copy_within(src..src + n, dst as usize);
                }
                Op::Select { dst, cond, info } => {
                    let (a, b, n) = program.selects[info as usize];
                    let src = if r[cond as usize] != 0 { a } else { b } as usize;
                    if n == 1 {
                        r[dst as usize] = r[src];
                    } else {
                        r.copy_within(src..src + n as usize, dst as usize);
                    }
                }

                Op::Add { dst, a, b } => r[dst as usize] = r[a as usize].wrapping_add(r[b as usize]),
                Op::Sub { dst, a, b } => r[dst as usize] = r[a as usize].wrapping_sub(r[b as usize]),
                Op::Mul { dst, a, b } => r[dst as usize] = r[a as usize].wrapping_mul(r[b as usize]),
                Op::And { dst, a, b } => r[dst as usize] = r[a as usize] & r[b as usize],
                Op::Or { dst, a, b } => r[dst as usize] = r[a as usize] | r[b as usize],
                Op::Xor { dst, a, b } => r[dst as usize] = r[a as usize] ^ r[b as usize],
                Op::Udiv { dst, a, b } => {
                    let d = r[b as usize];
                    if d == 0 {
                        trap!(TrapReason::DivisionByZero);
                    }
                    r[dst as usize] = r[a as usize] / d;
                }
                Op::Urem { dst, a, b } => {
                    let d = r[b as usize];
                    if d == 0 {
                        trap!(TrapReason::RemainderByZero);
                    }
                    r[dst as usize] = r[a as usize] % d;
                }
                Op::Srem { dst, a, b } => {
                    let d = r[b as usize] as i64;
                    if d == 0 {
                        trap!(TrapReason::RemainderByZero);
                    }
                    r[dst as usize] = (r[a as usize] as i64).wrapping_rem(d) as u64;
                }
                Op::Sdiv64 { dst, a, b } => {
                    let d = r[b as usize] as i64;
                    if d == 0 {
                        trap!(TrapReason::DivisionByZero);
                    }
                    r[dst as usize] = (r[a as usize] as i64).wrapping_div(d) as u64;
                }
                Op::Shl64 { dst, a, b } => r[dst as usize] = r[a as usize] << (r[b as usize] & 63),
                Op::Lshr64 { dst, a, b } => r[dst as usize] = r[a as usize] >> (r[b as usize] & 63),
                Op::Ashr64 { dst, a, b } => r[dst as usize] = ((r[a as usize] as i64) >> (r[b as usize] & 63)) as u64,
                Op::AddN { dst, a, b, norm } => r[dst as usize] = norm.apply(r[a as usize].wrapping_add(r[b as usize])),
                Op::SubN { dst, a, b, norm } => r[dst as usize] = norm.apply(r[a as usize].wrapping_sub(r[b as usize])),
                Op::MulN { dst, a, b, norm } => r[dst as usize] = norm.apply(r[a as usize].wrapping_mul(r[b as usize])),
                Op::SdivN { dst, a, b, norm } => {
                    let d = r[b as usize] as i64;
                    if d == 0 {
                        trap!(TrapReason::DivisionByZero);
                    }
                    r[dst as usize] = norm.apply((r[a as usize] as i64).wrapping_div(d) as u64);
                }
                Op::ShlN { dst, a, b, norm } => {
                    let c = norm.shift_count(r[b as usize]);
                    r[dst as usize] = norm.apply(r[a as usize] << c);
                }
                Op::LshrN { dst, a, b, norm } => {
                    let c = norm.shift_count(r[b as usize]);
                    r[dst as usize] = norm.apply(norm.zext(r[a as usize]) >> c);
                }
                Op::AshrN { dst, a, b, norm } => {
                    let c = norm.shift_count(r[b as usize]);
                    r[dst as usize] = norm.apply(((norm.sext(r[a as usize]) as i64) >> c) as u64);
                }
                Op::Not { dst, a, norm } => r[dst as usize] = norm.apply(!r[a as usize]),
                Op::Cmp { pred, dst, a, b } => {
                    r[dst as usize] = u64::from(int_pred(pred, r[a as usize], r[b as usize]))
                }
                Op::IntConv { dst, a, extend, from, to } => {
                    let x = r[a as usize];
                    let x = match extend {
                        Extend::Keep => x,
                        Extend::Zero => from.zext(x),
                        Extend::Sign => from.sext(x),
                    };
                    r[dst as usize] = to.apply(x);
                }

                Op::Int128 { op, dst, a, b } => {
                    let ty = IntTy { bits: 128, signed: matches!(op, IntOp::Sdiv | IntOp::Srem) };
                    match int_binary(op, ty, read128(r, a as usize), read128(r, b as usize)) {
                        Ok(v) => write128(r, dst as usize, v),
                        Err(reason) => trap!(reason),
                    }
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
                Op::Float { op, width, dst, a, b } => {
                    r[dst as usize] = float_binary(op, width, r[a as usize], r[b as usize])
                }
                Op::FloatCmp { pred, width, dst, a, b } => {
                    let (x, y) = (to_f64(width, r[a as usize]), to_f64(width, r[b as usize]));
                    r[dst as usize] = u64::from(float_compare(pred, x, y));
                }
                Op::Cast { kind, from, to, dst, a } => {
                    if let Err(reason) =
                        cast(kind, Kind::from_code(from), Kind::from_code(to), r, dst as usize, a as usize)
                    {
                        trap!(reason);
                    }
                }

                Op::Alloca { dst, info } => {
                    let (size, align) = program.allocas[info as usize];
                    match memory.allocate_stack(size, align) {
                        Ok((addr, tag)) => {
                            r[dst as usize] = addr;
                            r[dst as usize + 1] = tag;
                        }
                        Err(AllocError::Bytes) => limit!(LimitKind::MemoryBytes, memory.max_bytes),
                        Err(AllocError::Count) => limit!(LimitKind::Allocations, memory.max_allocations),
                    }
                }
                Op::Load { kind, align_log2, dst, ptr } => {
                    let kind = Kind::from_code(kind);
                    let (addr, tag) = (r[ptr as usize], r[ptr as usize + 1]);
                    let off = mem!(memory.check(addr, tag, kind.size(), 1 << align_log2, READ));
                    mem!(load(memory, off, kind, r, dst as usize));
                }
                Op::Store { kind, align_log2, src, ptr } => {
                    let kind = Kind::from_code(kind);
                    let (addr, tag) = (r[ptr as usize], r[ptr as usize + 1]);
                    let off = mem!(memory.check(addr, tag, kind.size(), 1 << align_log2, WRITE));
                    store(memory, off, kind, r, src as usize);
                }
                Op::LoadAgg { dst, ptr, layout } => {
                    let l = program.layouts[layout as usize];
                    let (addr, tag) = (r[ptr as usize], r[ptr as usize + 1]);
                    let off = mem!(memory.check(addr, tag, l.size, l.align, READ));
                    let (start, len) = (l.leaves.0 as usize, l.leaves.1 as usize);
                    for leaf in &program.leaves[start..start + len] {
                        let at = off + leaf.offset as usize;
                        mem!(load(memory, at, Kind::from_code(leaf.kind), r, (dst + leaf.slot) as usize));
                    }
                }
                Op::StoreAgg { src, ptr, layout } => {
                    let l = program.layouts[layout as usize];
                    let (addr, tag) = (r[ptr as usize], r[ptr as usize + 1]);
                    let off = mem!(memory.check(addr, tag, l.size, l.align, WRITE));
                    let (start, len) = (l.leaves.0 as usize, l.leaves.1 as usize);
                    for leaf in &program.leaves[start..start + len] {
                        let at = off + leaf.offset as usize;
                        store(memory, at, Kind::from_code(leaf.kind), r, (src + leaf.slot) as usize);
                    }
                }
                Op::Uninit { ptr, layout } => {
                    let l = program.layouts[layout as usize];
                    let (addr, tag) = (r[ptr as usize], r[ptr as usize + 1]);
                    let off = mem!(memory.check(addr, tag, l.size, l.align, WRITE));
                    memory.clear_init(off, l.size as usize);
                }
                Op::Memcpy { align_log2, dst, src, len } => {
                    let n = r[len as usize];
                    if n != 0 {
                        let align = 1u64 << align_log2;
                        let (d, s) = (dst as usize, src as usize);
                        let to = mem!(memory.check(r[d], r[d + 1], n, align, WRITE));
                        let from = mem!(memory.check(r[s], r[s + 1], n, align, READ));
                        if Memory::overlaps(to, from, n as usize) {
                            trap!(TrapReason::Memory(MemoryTrap::OverlappingCopy));
                        }
                        memory.copy(to, from, n as usize);
                    }
                }
                Op::Memset { align_log2, dst, byte, len } => {
                    let n = r[len as usize];
                    if n != 0 {
                        let d = dst as usize;
                        let to = mem!(memory.check(r[d], r[d + 1], n, 1 << align_log2, WRITE));
                        memory.fill(to, n as usize, r[byte as usize] as u8);
                    }
                }
                Op::GepIndex { dst, index, info } => {
                    let g = &program.gep_index[info as usize];
                    let (addr, tag) = (r[g.base as usize], r[g.base as usize + 1]);
                    let new = mem!(memory.offset(addr, tag, element_delta(g, r[index as usize])));
                    r[dst as usize] = new;
                    r[dst as usize + 1] = tag;
                }
                Op::LoadElem { kind, align_log2, dst, index, info } => {
                    let g = &program.gep_index[info as usize];
                    let byte = kind == Kind::U8 as u8;
                    let size = if byte { 1 } else { Kind::from_code(kind).size() };
                    let (addr, tag, i) = (r[g.base as usize], r[g.base as usize + 1], r[index as usize]);
                    let off = element!(match element_delta64(g, i) {
                        Some(delta) => memory.element64(addr, tag, delta, size, 1 << align_log2, READ),
                        None => memory.element(addr, tag, element_delta(g, i), size, 1 << align_log2, READ),
                    });
                    if byte {
                        r[dst as usize] = u64::from(mem!(memory.read_u8(off)));
                    } else {
                        mem!(load(memory, off, Kind::from_code(kind), r, dst as usize));
                    }
                }
                Op::StoreElem { kind, align_log2, src, index, info } => {
                    let g = &program.gep_index[info as usize];
                    let byte = kind == Kind::U8 as u8;
                    let size = if byte { 1 } else { Kind::from_code(kind).size() };
                    let (addr, tag, i) = (r[g.base as usize], r[g.base as usize + 1], r[index as usize]);
                    let off = element!(match element_delta64(g, i) {
                        Some(delta) => memory.element64(addr, tag, delta, size, 1 << align_log2, WRITE),
                        None => memory.element(addr, tag, element_delta(g, i), size, 1 << align_log2, WRITE),
                    });
                    if byte {
                        memory.write_u8(off, r[src as usize] as u8);
                    } else {
                        store(memory, off, Kind::from_code(kind), r, src as usize);
                    }
                }
                Op::Gep { dst, base: b, info } => {
                    let g = program.geps[info as usize];
                    let mut delta = g.constant;
                    let (start, len) = (g.terms.0 as usize, g.terms.1 as usize);
                    for term in &program.gep_terms[start..start + len] {
                        let index = match Kind::from_code(term.kind).int() {
                            Some(ty) if ty.bits == 128 && !ty.signed => {
                                i128::try_from(read128(r, term.slot as usize)).ok()
                            }
                            Some(ty) => Some(read_int(r, term.slot as usize, ty) as i128),
                            None => None,
                        };
                        delta = delta.and_then(|d| d.checked_add(index?.checked_mul(i128::from(term.stride))?));
                    }
                    let (addr, tag) = (r[b as usize], r[b as usize + 1]);
                    let new = mem!(memory.offset(addr, tag, delta));
                    r[dst as usize] = new;
                    r[dst as usize + 1] = tag;
                }
            }
        }
    }
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
        dst.copy_from_slice(src);
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
