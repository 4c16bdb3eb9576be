//! W1 and W2 as abstract programs: the random op draws of `shared/reference/workloads.md` resolved into CLIF value
//! numbers and WebAssembly locals, from which the CLIF, wasm and LLVM generators write their forms.
//!
//! The draws themselves are the ones recorded by `ir/benches/workloads.rs` (included by `lib.rs`), which the Whale
//! forms replay too, so every form is built from one draw sequence; this file only resolves each draw's operands into
//! CLIF numbers and wasm locals. The harness checks that every form computes the expected results of the workloads
//! document (`whale-bench check`).

use crate::whale_w12::{w1_recipe, w2_recipe, Draw};

/// The binary operators of the op draw, in draw order.
pub const BINARY: [&str; 6] = ["iadd", "isub", "imul", "band", "bor", "bxor"];

/// The condition codes of the op draw, in draw order (CLIF and LLVM spell them alike).
pub const CONDITIONS: [&str; 10] = ["eq", "ne", "slt", "sge", "sgt", "sle", "ult", "uge", "ugt", "ule"];

/// What one drawn op computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `BINARY[n]`.
    Binary(u8),
    /// `icmp CONDITIONS[n]`, giving a Bool.
    Icmp(u8),
    /// `select last_bool, x, y`.
    Select,
}

/// A value: its CLIF number and the wasm local that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Val {
    /// `vN` in CLIF and `%vN` in LLVM.
    pub number: u32,
    /// The wasm local.
    pub local: u32,
}

/// One drawn op with resolved operands.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub kind: Kind,
    /// The operand type is i64 (else i32).
    pub wide: bool,
    pub result: Val,
    pub x: Val,
    pub y: Val,
    /// The Bool of a select (unused otherwise).
    pub cond: Val,
}

/// The growing state of one draw sequence.
struct Pool {
    values: Vec<Val>,
    /// Entries from this index on live in the ring `ring..ring + 8`.
    first_ring_entry: usize,
    ring: u32,
}

impl Pool {
    fn push(&mut self, number: u32) -> Val {
        let j = self.values.len() - self.first_ring_entry;
        let v = Val { number, local: self.ring + (j % 8) as u32 };
        self.values.push(v);
        v
    }
    fn last(&self) -> Val {
        *self.values.last().expect("a pool is never empty")
    }
}

/// Resolves one recorded draw (workloads.md "Random op draw") defining value `number`.
fn resolve(
    d: Draw,
    pool: &mut Pool,
    params: [Val; 2],
    last_bool: &mut Option<Val>,
    bool_local: u32,
    number: u32,
) -> Op {
    let kind = match d.op {
        6 => Kind::Icmp(d.cc),
        7 => Kind::Select,
        n => Kind::Binary(n),
    };
    let p = &pool.values;
    let w = p.len().min(8);
    let x = p[p.len() - 1 - usize::from(d.x_back)];
    let k = usize::from(d.k);
    let mut y = if k < w { p[p.len() - 1 - k] } else { params[k - w] };
    if y == x {
        y = if x != params[0] { params[0] } else { params[1] };
    }
    let cond = last_bool.unwrap_or(Val { number: u32::MAX, local: u32::MAX });
    let result = match kind {
        Kind::Icmp(_) => {
            let b = Val { number, local: bool_local };
            *last_bool = Some(b);
            b
        }
        _ => pool.push(number),
    };
    Op { kind, wide: d.wide, result, x, y, cond }
}

/// W1(N): `w1(v0: i64, v1: i64, v2: i32, v3: i32) -> i64`, one block.
#[derive(Clone, Debug)]
pub struct W1 {
    pub ops: Vec<Op>,
    /// The newest i64 and i32 pool entries, used by the epilogue.
    pub last64: Val,
    pub last32: Val,
}

/// wasm locals of W1: 0–3 parameters, 4–11 the i64 ring, 12–19 the i32 ring, 20 the Bool.
pub const W1_BOOL_LOCAL: u32 = 20;

impl W1 {
    /// Draws W1(n).
    pub fn new(n: usize) -> W1 {
        let val = |number| Val { number, local: number };
        let mut p64 = Pool { values: vec![val(0), val(1)], first_ring_entry: 2, ring: 4 };
        let mut p32 = Pool { values: vec![val(2), val(3)], first_ring_entry: 2, ring: 12 };
        let mut last_bool = None;
        let ops = w1_recipe(n)
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                let number = u32::try_from(4 + i).expect("W1 sizes fit u32");
                if d.wide {
                    resolve(d, &mut p64, [val(0), val(1)], &mut last_bool, W1_BOOL_LOCAL, number)
                } else {
                    resolve(d, &mut p32, [val(2), val(3)], &mut last_bool, W1_BOOL_LOCAL, number)
                }
            })
            .collect();
        W1 { ops, last64: p64.last(), last32: p32.last() }
    }

    /// The workload's instruction count, N + 3.
    pub fn instructions(&self) -> usize {
        self.ops.len() + 3
    }
}

/// One function of W2.
#[derive(Clone, Debug)]
pub struct W2Function {
    /// Loop iterations, 2..=5.
    pub trip: u64,
    /// The called function (none for f0).
    pub callee: Option<u32>,
    /// The 40 body ops, `v7 … v46`.
    pub body: Vec<Op>,
    /// The newest non-Bool body value.
    pub last: Val,
}

/// wasm locals of W2: 0 = a, 1 = b, 2 = i, 3 = acc, 4–11 the ring, 12 the Bool.
pub const W2_BOOL_LOCAL: u32 = 12;

/// W2(M): `f0 … f(M-1)`, each `(i64, i64) -> i64` with one loop and one call.
#[derive(Clone, Debug)]
pub struct W2 {
    pub functions: Vec<W2Function>,
}

impl W2 {
    /// Draws W2(m).
    pub fn new(m: usize) -> W2 {
        let functions = w2_recipe(m)
            .into_iter()
            .map(|f| {
                let val = |number, local| Val { number, local };
                let mut pool = Pool { values: vec![val(1, 1), val(5, 2), val(6, 3)], first_ring_entry: 3, ring: 4 };
                let params = [val(0, 0), val(1, 1)];
                let mut last_bool = None;
                let body = (7..)
                    .zip(f.body)
                    .map(|(number, d)| resolve(d, &mut pool, params, &mut last_bool, W2_BOOL_LOCAL, number))
                    .collect();
                let callee = f.callee.map(|c| u32::try_from(c).expect("W2 sizes fit u32"));
                W2Function { trip: f.trip, callee, body, last: pool.last() }
            })
            .collect();
        W2 { functions }
    }

    /// The workload's instruction count, 50·M − 2.
    pub fn instructions(&self) -> usize {
        50 * self.functions.len() - 2
    }
}

/// The W1/W2 arguments and expected results of the workloads document.
pub mod expected {
    /// `(a, b, c, d)` of W1.
    pub const W1_ARGS: (i64, i64, i32, i32) = (0x0123_4567_89AB_CDEF, 0x0FED_CBA9_8765_4321, 0x1357_9BDF, 0x2468_ACE0);
    /// `(a, b)` of W2's entry point.
    pub const W2_ARGS: (i64, i64) = (0x0123_4567_89AB_CDEF, 0x0FED_CBA9_8765_4321);

    /// W1(n)'s result, for the sizes the document lists.
    pub fn w1(n: usize) -> Option<i64> {
        match n {
            10_000 => Some(-4_133_142_263_439_385_472),
            100_000 => Some(-279_654_754_163_378_808),
            1_000_000 => Some(-163_971_061_278_305_820),
            _ => None,
        }
    }

    /// W2(m)'s result, for the sizes the document lists.
    pub fn w2(m: usize) -> Option<i64> {
        match m {
            300 => Some(-3_239_109_026_553_065_043),
            2_000 => Some(-1_144_608_178_996_572_230),
            20_000 => Some(8_628_398_359_036_763_559),
            _ => None,
        }
    }

    /// fib(n) for the sizes used.
    pub fn fib(n: i64) -> i64 {
        let (mut a, mut b) = (0i64, 1i64);
        for _ in 0..n {
            (a, b) = (b, a.wrapping_add(b));
        }
        a
    }

    /// `loopsum(n) = Σ_{i<n} (i*i) mod 7`.
    pub fn loopsum(n: u64) -> i64 {
        // The residues of i*i mod 7 repeat with period 7: 0 1 4 2 2 4 1, summing to 14.
        const RESIDUES: [u64; 7] = [0, 1, 4, 2, 2, 4, 1];
        let partial: u64 = RESIDUES[..(n % 7) as usize].iter().sum();
        (n / 7 * 14 + partial) as i64
    }

    /// `sieve(k) = k · 78,498`.
    pub fn sieve(k: i64) -> i64 {
        k * 78_498
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn w1_op_mix_matches_the_document() {
        let w = W1::new(10_000);
        let mut mix = [0usize; 8];
        for op in &w.ops {
            mix[match op.kind {
                Kind::Binary(n) => n as usize,
                Kind::Icmp(_) => 6,
                Kind::Select => 7,
            }] += 1;
        }
        assert_eq!(mix, [1279, 1267, 1273, 1200, 1281, 1224, 1249, 1227]);
        assert_eq!(w.ops.iter().filter(|op| op.wide).count(), 4_910);
    }

    #[test]
    fn expected_closed_forms() {
        assert_eq!(expected::fib(27), 196_418);
        assert_eq!(expected::loopsum(1_000_000), 1_999_998);
        assert_eq!(expected::loopsum(10_000_000), 19_999_999);
    }
}
