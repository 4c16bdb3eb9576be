//! Differential property test: randomly generated verified programs —
//! arithmetic at several widths, comparisons, selects, casts, checked
//! arithmetic, `trap_if`, diamonds with phis and counted loops — give the same
//! outcome (value or error, and step count) when run directly and after a text
//! round trip (`print_module` → `parse_module`), and the value or trap a
//! reference evaluation in Rust predicts.
//!
//! Programs are built from a *recipe* of plain data whose operands are small
//! integers resolved modulo the values available, so every recipe yields a
//! verifiable module and shrinking works on the recipe (STYLE.md §9).

mod common;

use common::*;
use interp::{Interpreter, Options, TrapReason, Value};
use ir::{BinOp, BlockId, CastOp, CheckedOp, FunctionBuilder, ICmpPred, Module, Type, ValueId};
use proptest::prelude::*;

/// The integer types of the generated programs.
const TYPES: [Type; 5] = [Type::I64, Type::I32, Type::U8, Type::U64, Type::I8];

#[derive(Clone, Debug)]
enum Step {
    Const(u8, i64),
    Bin(u8, u8, u8, u8),
    Cmp(u8, u8, u8, u8),
    Select(u8, u8, u8, u8),
    Cast(u8, u8, u8, bool),
    Checked(u8, u8, u8, u8),
    TrapIf(u8),
    If { cond: u8, ty: u8, then: (u8, u8, u8), other: (u8, u8, u8) },
    Loop { count: u8, ty: u8, op: u8, init: u8, x: u8 },
}

fn step() -> impl Strategy<Value = Step> {
    let small = || any::<u8>();
    prop_oneof![
        1 => (small(), any::<i64>()).prop_map(|(t, v)| Step::Const(t, v)),
        4 => (small(), small(), small(), small()).prop_map(|(o, t, x, y)| Step::Bin(o, t, x, y)),
        2 => (small(), small(), small(), small()).prop_map(|(p, t, x, y)| Step::Cmp(p, t, x, y)),
        1 => (small(), small(), small(), small()).prop_map(|(t, c, x, y)| Step::Select(t, c, x, y)),
        1 => (small(), small(), small(), any::<bool>()).prop_map(|(f, t, x, s)| Step::Cast(f, t, x, s)),
        1 => (small(), small(), small(), small()).prop_map(|(o, t, x, y)| Step::Checked(o, t, x, y)),
        1 => small().prop_map(Step::TrapIf),
        1 => (small(), small(), (small(), small(), small()), (small(), small(), small()))
            .prop_map(|(cond, ty, then, other)| Step::If { cond, ty, then, other }),
        1 => (0u8..5, small(), small(), small(), small()).prop_map(|(count, ty, op, init, x)| Step::Loop { count, ty, op, init, x }),
    ]
}

/// A value of the program: its id and, while the reference run is live, its
/// N-bit pattern.
#[derive(Clone, Copy)]
struct Val {
    id: ValueId,
    bits: u128,
}

const BIN_OPS: [BinOp; 11] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::Lshr,
    BinOp::Ashr,
    BinOp::Sdiv,
    BinOp::Srem,
];

fn width(ty: &Type) -> u32 {
    int_info(ty).0
}

fn mask(bits: u32) -> u128 {
    if bits == 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

fn sx(bits: u32, x: u128) -> i128 {
    ((x << (128 - bits)) as i128) >> (128 - bits)
}

/// The opcode of binary op `o` at type `ty` (division by signedness).
fn bin_op(o: u8, ty: &Type) -> BinOp {
    let op = BIN_OPS[usize::from(o) % BIN_OPS.len()];
    match (op, int_info(ty).1) {
        (BinOp::Sdiv, false) => BinOp::Udiv,
        (BinOp::Srem, false) => BinOp::Urem,
        (op, _) => op,
    }
}

/// Reference semantics of a binary op on N-bit patterns.
fn eval_bin(op: BinOp, bits: u32, a: u128, b: u128) -> Result<u128, TrapReason> {
    let count = (b % u128::from(bits)) as u32;
    Ok(mask(bits)
        & match op {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Shl => a << count,
            BinOp::Lshr => a >> count,
            BinOp::Ashr => (sx(bits, a) >> count) as u128,
            BinOp::Sdiv | BinOp::Udiv if b == 0 => return Err(TrapReason::DivisionByZero),
            BinOp::Srem | BinOp::Urem if b == 0 => return Err(TrapReason::RemainderByZero),
            BinOp::Sdiv => sx(bits, a).wrapping_div(sx(bits, b)) as u128,
            BinOp::Srem => sx(bits, a).wrapping_rem(sx(bits, b)) as u128,
            BinOp::Udiv => a / b,
            BinOp::Urem => a % b,
            _ => unreachable!(),
        })
}

struct Gen<'a, 'b> {
    f: &'a mut FunctionBuilder<'b>,
    pools: Vec<Vec<Val>>,
    bools: Vec<Val>,
    /// The expected outcome so far: `None` once the reference run trapped.
    trapped: Option<TrapReason>,
}

impl Gen<'_, '_> {
    fn live(&self) -> bool {
        self.trapped.is_none()
    }

    fn pick(&self, ty: usize, i: u8) -> Val {
        let pool = &self.pools[ty];
        pool[usize::from(i) % pool.len()]
    }

    fn fail(&mut self, reason: TrapReason) {
        if self.trapped.is_none() {
            self.trapped = Some(reason);
        }
    }

    fn binary(&mut self, t: usize, op: BinOp, x: Val, y: Val) -> Val {
        let ty = TYPES[t].clone();
        let id = self.f.bin(op, ty.clone(), x.id, y.id);
        let mut bits = 0;
        if self.live() {
            match eval_bin(op, width(&ty), x.bits, y.bits) {
                Ok(v) => bits = v,
                Err(r) => self.fail(r),
            }
        }
        Val { id, bits }
    }

    fn step(&mut self, s: &Step) {
        match *s {
            Step::Const(t, v) => {
                let t = usize::from(t) % TYPES.len();
                let ty = TYPES[t].clone();
                let bits = (v as u128) & mask(width(&ty));
                let (_, signed) = int_info(&ty);
                let id = if signed {
                    self.f.const_int(ty.clone(), sx(width(&ty), bits))
                } else {
                    self.f.const_uint(ty.clone(), bits)
                };
                self.pools[t].push(Val { id, bits });
            }
            Step::Bin(o, t, x, y) => {
                let t = usize::from(t) % TYPES.len();
                let op = bin_op(o, &TYPES[t]);
                let (x, y) = (self.pick(t, x), self.pick(t, y));
                let v = self.binary(t, op, x, y);
                self.pools[t].push(v);
            }
            Step::Cmp(p, t, x, y) => {
                let t = usize::from(t) % TYPES.len();
                let ty = TYPES[t].clone();
                let (bits, signed) = int_info(&ty);
                let preds = if signed {
                    [ICmpPred::Eq, ICmpPred::Ne, ICmpPred::Slt, ICmpPred::Sle, ICmpPred::Sgt, ICmpPred::Sge]
                } else {
                    [ICmpPred::Eq, ICmpPred::Ne, ICmpPred::Ult, ICmpPred::Ule, ICmpPred::Ugt, ICmpPred::Uge]
                };
                let pred = preds[usize::from(p) % preds.len()];
                let (x, y) = (self.pick(t, x), self.pick(t, y));
                let id = self.f.icmp(pred, ty, x.id, y.id);
                let (a, b) = (x.bits, y.bits);
                let r = match pred {
                    ICmpPred::Eq => a == b,
                    ICmpPred::Ne => a != b,
                    ICmpPred::Slt => sx(bits, a) < sx(bits, b),
                    ICmpPred::Sle => sx(bits, a) <= sx(bits, b),
                    ICmpPred::Sgt => sx(bits, a) > sx(bits, b),
                    ICmpPred::Sge => sx(bits, a) >= sx(bits, b),
                    ICmpPred::Ult => a < b,
                    ICmpPred::Ule => a <= b,
                    ICmpPred::Ugt => a > b,
                    ICmpPred::Uge => a >= b,
                };
                self.bools.push(Val { id, bits: u128::from(r) });
            }
            Step::Select(t, c, x, y) => {
                if self.bools.is_empty() {
                    return;
                }
                let t = usize::from(t) % TYPES.len();
                let c = self.bools[usize::from(c) % self.bools.len()];
                let (x, y) = (self.pick(t, x), self.pick(t, y));
                let id = self.f.select(TYPES[t].clone(), c.id, x.id, y.id);
                self.pools[t].push(Val { id, bits: if c.bits != 0 { x.bits } else { y.bits } });
            }
            Step::Cast(from, to, x, sign) => {
                let (from, to) = (usize::from(from) % TYPES.len(), usize::from(to) % TYPES.len());
                let (fty, tty) = (TYPES[from].clone(), TYPES[to].clone());
                let (fb, tb) = (width(&fty), width(&tty));
                let x = self.pick(from, x);
                let (op, bits) = if tb > fb {
                    if sign {
                        (CastOp::Sext, (sx(fb, x.bits) as u128) & mask(tb))
                    } else {
                        (CastOp::Zext, x.bits)
                    }
                } else if tb < fb {
                    (CastOp::Trunc, x.bits & mask(tb))
                } else if from == to {
                    return;
                } else {
                    (CastOp::Bitcast, x.bits)
                };
                let id = self.f.cast(op, x.id, tty);
                self.pools[to].push(Val { id, bits });
            }
            Step::Checked(o, t, x, y) => {
                let t = usize::from(t) % TYPES.len();
                let ty = TYPES[t].clone();
                let (bits, signed) = int_info(&ty);
                let kind = usize::from(o) % 3;
                let op = match (kind, signed) {
                    (0, false) => CheckedOp::UAdd,
                    (1, false) => CheckedOp::USub,
                    (_, false) => CheckedOp::UMul,
                    (0, true) => CheckedOp::SAdd,
                    (1, true) => CheckedOp::SSub,
                    (_, true) => CheckedOp::SMul,
                };
                let (x, y) = (self.pick(t, x), self.pick(t, y));
                let id = self.f.checked(op, ty.clone(), x.id, y.id);
                let tuple = Type::Tuple(vec![ty.clone(), Type::Bool]);
                let v = self.f.extract(tuple.clone(), ty, id, 0);
                let o = self.f.extract(tuple, Type::Bool, id, 1);
                let (a, b) = (x.bits, y.bits);
                let (wide, overflow) = if signed {
                    let (a, b) = (sx(bits, a), sx(bits, b));
                    let exact = [a + b, a - b, a * b][kind];
                    (exact as u128 & mask(bits), exact != sx(bits, exact as u128 & mask(bits)))
                } else {
                    let exact = [a.checked_add(b), a.checked_sub(b), a.checked_mul(b)][kind];
                    (
                        [a.wrapping_add(b), a.wrapping_sub(b), a.wrapping_mul(b)][kind] & mask(bits),
                        exact.is_none_or(|e| e > mask(bits)),
                    )
                };
                self.pools[t].push(Val { id: v, bits: wide });
                self.bools.push(Val { id: o, bits: u128::from(overflow) });
            }
            Step::TrapIf(c) => {
                if self.bools.is_empty() {
                    return;
                }
                let c = self.bools[usize::from(c) % self.bools.len()];
                self.f.trap_if(c.id, "checked");
                if self.live() && c.bits != 0 {
                    self.fail(TrapReason::Explicit("checked".into()));
                }
            }
            Step::If { cond, ty, then, other } => {
                if self.bools.is_empty() {
                    return;
                }
                let t = usize::from(ty) % TYPES.len();
                let c = self.bools[usize::from(cond) % self.bools.len()];
                let then_block = self.f.create_block("then");
                let else_block = self.f.create_block("else");
                let join = self.f.create_block("join");
                self.f.cbr(c.id, then_block, else_block);
                let taken = c.bits != 0;
                let arm = |g: &mut Self, block: BlockId, (o, x, y): (u8, u8, u8), runs: bool| {
                    g.f.set_insert_point(block);
                    let op = bin_op(o, &TYPES[t]);
                    let (x, y) = (g.pick(t, x), g.pick(t, y));
                    let saved = g.trapped.clone();
                    let v = g.binary(t, op, x, y);
                    if !runs {
                        g.trapped = saved;
                    }
                    g.f.br(join);
                    v
                };
                let a = arm(self, then_block, then, taken);
                let b = arm(self, else_block, other, !taken);
                self.f.set_insert_point(join);
                let id = self.f.phi(TYPES[t].clone(), &[(a.id, then_block), (b.id, else_block)]);
                self.pools[t].push(Val { id, bits: if taken { a.bits } else { b.bits } });
            }
            Step::Loop { count, ty, op, init, x } => {
                let t = usize::from(ty) % TYPES.len();
                let ty = TYPES[t].clone();
                let op = bin_op(op, &ty);
                let (init, x) = (self.pick(t, init), self.pick(t, x));
                let pre = self.f.current_block();
                let zero = self.f.const_u32(0);
                let one = self.f.const_u32(1);
                let n = self.f.const_u32(u32::from(count));
                let head = self.f.create_block("loop.head");
                let body = self.f.create_block("loop.body");
                let exit = self.f.create_block("loop.exit");
                self.f.br(head);
                self.f.set_insert_point(head);
                let i = self.f.phi(Type::U32, &[(zero, pre)]);
                let acc = self.f.phi(ty.clone(), &[(init.id, pre)]);
                let more = self.f.icmp(ICmpPred::Ult, Type::U32, i, n);
                self.f.cbr(more, body, exit);
                self.f.set_insert_point(body);
                let next = self.f.bin(op, ty.clone(), acc, x.id);
                let i_next = self.f.add(Type::U32, i, one);
                self.f.add_phi_input(i, i_next, body);
                self.f.add_phi_input(acc, next, body);
                self.f.br(head);
                self.f.set_insert_point(exit);
                let mut bits = init.bits;
                for _ in 0..count {
                    if !self.live() {
                        break;
                    }
                    match eval_bin(op, width(&ty), bits, x.bits) {
                        Ok(v) => bits = v,
                        Err(r) => self.fail(r),
                    }
                }
                self.pools[t].push(Val { id: acc, bits });
            }
        }
    }
}

/// Builds the program `f(a: i64, b: i32, c: u8, d: u64, e: i8) -> i64` and the
/// outcome the reference predicts for `args`.
fn build(steps: &[Step], args: &[i64; 5]) -> (Module, Result<u128, TrapReason>) {
    let mut mb = builder();
    let params = TYPES.iter().enumerate().map(|(i, t)| (format!("p{i}"), t.clone())).collect();
    let mut f = mb.begin_function("f", params, Type::I64);
    let pools = (0..TYPES.len())
        .map(|i| vec![Val { id: f.param_value(i), bits: (args[i] as u128) & mask(width(&TYPES[i])) }])
        .collect();
    let mut g = Gen { f: &mut f, pools, bools: Vec::new(), trapped: None };
    for s in steps {
        g.step(s);
    }
    let result = *g.pools[0].last().expect("the i64 pool is never empty");
    let expected = match g.trapped.take() {
        Some(r) => Err(r),
        None => Ok(result.bits),
    };
    f.ret(Some(result.id));
    f.finish();
    (mb.finish(), expected)
}

fn outcome(m: &Module, args: &[Value]) -> (Result<Option<Value>, String>, Option<u64>) {
    let mut i = Interpreter::new(m, Options::default()).expect("verified");
    match i.call("f", args) {
        Ok(o) => (Ok(o.value), Some(o.steps)),
        Err(e) => (Err(e.to_string()), None),
    }
}

proptest! {
    #[test]
    fn text_round_trip_preserves_behaviour(steps in prop::collection::vec(step(), 1..40), args in any::<[i64; 5]>()) {
        let (m, expected) = build(&steps, &args);
        prop_assert!(ir::verify_module(&m).is_ok(), "{}", ir::print_module(&m));
        let values: Vec<Value> = TYPES.iter().zip(args).map(|(t, a)| typed(t, i128::from(a))).collect();
        let direct = outcome(&m, &values);
        let text = ir::print_module(&m);
        let parsed = ir::parse_module(&text).map_err(|e| format!("{e}\n{text}"));
        prop_assert!(parsed.is_ok(), "{}", parsed.err().unwrap_or_default());
        let round = outcome(&parsed.unwrap(), &values);
        prop_assert_eq!(&direct, &round, "{}", text);
        match (&direct.0, expected) {
            (Ok(Some(v)), Ok(bits)) => prop_assert_eq!(pattern(v), bits, "{}", text),
            (Err(message), Err(reason)) => prop_assert!(message.contains(&reason.to_string()), "{} vs {}", message, reason),
            (got, want) => prop_assert!(false, "got {:?}, reference {:?}\n{}", got, want, text),
        }
    }
}
