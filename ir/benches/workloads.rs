//! The shared benchmark workloads W1 and W2 (`shared/reference/workloads.md`),
//! expressed in Whale IR with the builder.
//!
//! Whale types carry signedness and `icmp` predicates must agree with it, so an
//! abstract `icmp` whose predicate has the other signedness (`ult` on `i64`)
//! is written as two `bitcast`s to the unsigned type and an `icmp` on those.
//! The abstract instruction count of the workload (N + 3 for W1, 50·M − 2 for
//! W2) is therefore smaller than the Whale module's; benches report rates per
//! Whale instruction and note both counts. W2's loop test `ult i, trip` is
//! written `slt` (both operands are small and non-negative, so it is the same
//! test without casts).

#![allow(dead_code)]

use ir::{
    BlockId, Callee, CastOp, DataLayout, FunctionSignature, ICmpPred, Linkage, Module, ModuleBuilder, Type, ValueId,
};

/// SplitMix64, as specified by the workloads document.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Copy)]
enum Draw {
    Bin(usize),
    Icmp(ICmpPred),
    Select,
}

const CONDITIONS: [ICmpPred; 10] = [
    ICmpPred::Eq,
    ICmpPred::Ne,
    ICmpPred::Slt,
    ICmpPred::Sge,
    ICmpPred::Sgt,
    ICmpPred::Sle,
    ICmpPred::Ult,
    ICmpPred::Uge,
    ICmpPred::Ugt,
    ICmpPred::Ule,
];

/// One random op draw (workloads.md "Random op draw"); appends to `pool` or
/// updates `last_bool`. Returns the abstract op index (0..8) for op-mix checks.
fn random_op(
    rng: &mut SplitMix64,
    f: &mut ir::FunctionBuilder<'_>,
    ty: &Type,
    pool: &mut Vec<ValueId>,
    params: [ValueId; 2],
    last_bool: &mut Option<ValueId>,
) -> usize {
    let mut o = rng.below(8) as usize;
    if o == 7 && last_bool.is_none() {
        o = 6;
    }
    let draw = match o {
        6 => Draw::Icmp(CONDITIONS[rng.below(10) as usize]),
        7 => Draw::Select,
        k => Draw::Bin(k),
    };
    let w = pool.len().min(8) as u64;
    let x = pool[pool.len() - 1 - rng.below(w) as usize];
    let k = rng.below(w + 2);
    let mut y = if k < w { pool[pool.len() - 1 - k as usize] } else { params[(k - w) as usize] };
    if y == x {
        y = if x != params[0] { params[0] } else { params[1] };
    }
    match draw {
        Draw::Bin(k) => {
            let v = match k {
                0 => f.add(ty.clone(), x, y),
                1 => f.sub(ty.clone(), x, y),
                2 => f.mul(ty.clone(), x, y),
                3 => f.and(ty.clone(), x, y),
                4 => f.or(ty.clone(), x, y),
                _ => f.xor(ty.clone(), x, y),
            };
            pool.push(v);
        }
        Draw::Icmp(pred) => {
            let unsigned_pred = matches!(pred, ICmpPred::Ult | ICmpPred::Uge | ICmpPred::Ugt | ICmpPred::Ule);
            let b = if unsigned_pred {
                let unsigned = if *ty == Type::I64 { Type::U64 } else { Type::U32 };
                let ux = f.cast(CastOp::Bitcast, x, unsigned.clone());
                let uy = f.cast(CastOp::Bitcast, y, unsigned.clone());
                f.icmp(pred, unsigned, ux, uy)
            } else {
                f.icmp(pred, ty.clone(), x, y)
            };
            *last_bool = Some(b);
        }
        Draw::Select => {
            let c = last_bool.expect("select is drawn only after an icmp");
            let v = f.select(ty.clone(), c, x, y);
            pool.push(v);
        }
    }
    o
}

fn builder() -> ModuleBuilder {
    ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
}

/// W1: one function of `n` random ops over i64 and i32, plus a 3-instruction epilogue.
pub fn w1(n: usize) -> Module {
    let mut mb = builder();
    let params = vec![
        ("a".to_string(), Type::I64),
        ("b".to_string(), Type::I64),
        ("c".to_string(), Type::I32),
        ("d".to_string(), Type::I32),
    ];
    let mut f = mb.begin_function("w1", params, Type::I64);
    let p = [f.param_value(0), f.param_value(1), f.param_value(2), f.param_value(3)];
    let mut rng = SplitMix64::new(0x5731);
    let (mut p64, mut p32) = (vec![p[0], p[1]], vec![p[2], p[3]]);
    let mut last_bool = None;
    for _ in 0..n {
        if rng.below(2) == 0 {
            random_op(&mut rng, &mut f, &Type::I64, &mut p64, [p[0], p[1]], &mut last_bool);
        } else {
            random_op(&mut rng, &mut f, &Type::I32, &mut p32, [p[2], p[3]], &mut last_bool);
        }
    }
    let widened = f.cast(CastOp::Zext, *p32.last().unwrap(), Type::I64);
    let result = f.xor(Type::I64, *p64.last().unwrap(), widened);
    f.ret(Some(result));
    f.finish();
    mb.finish()
}

/// The abstract instruction count of W1(n).
pub fn w1_abstract_instructions(n: usize) -> usize {
    n + 3
}

/// W2: `m` functions of one loop with phis and one call each (a call DAG).
pub fn w2(m: usize) -> Module {
    let mut mb = builder();
    let sig = FunctionSignature::whale(vec![Type::I64, Type::I64], Type::I64);
    let ids: Vec<_> = (0..m)
        .map(|k| {
            mb.declare_function(&format!("f{k}"), sig.clone(), Linkage::Internal, None).expect("valid declaration")
        })
        .collect();
    for k in 0..m {
        let mut rng = SplitMix64::new(0x5732_0000 + k as u64);
        let trip = 2 + rng.below(4);
        let callee = (k > 0).then(|| rng.below(k as u64) as usize);
        let mut f = mb.begin_declared_function(ids[k], vec!["a".into(), "b".into()]).expect("declared");
        let (a, b) = (f.param_value(0), f.param_value(1));
        let entry = f.entry_block();
        let zero = f.const_i64(0);
        let one = f.const_i64(1);
        let trip_v = f.const_i64(trip as i64);
        let body: BlockId = f.create_block("loop");
        let exit = f.create_block("exit");
        f.br(body);
        f.set_insert_point(body);
        let i = f.phi(Type::I64, &[(zero, entry)]);
        let acc = f.phi(Type::I64, &[(a, entry)]);
        let mut pool = vec![b, i, acc];
        let mut last_bool = None;
        for _ in 0..40 {
            random_op(&mut rng, &mut f, &Type::I64, &mut pool, [a, b], &mut last_bool);
        }
        let last = *pool.last().unwrap();
        let next = f.add(Type::I64, i, one);
        let again = f.icmp(ICmpPred::Slt, Type::I64, next, trip_v);
        f.add_phi_input(i, next, body);
        f.add_phi_input(acc, last, body);
        f.cbr(again, body, exit);
        f.set_insert_point(exit);
        let out = f.phi(Type::I64, &[(last, body)]);
        match callee {
            Some(c) => {
                let r = f.call(Callee::Direct(ids[c]), vec![out, b]).expect("valid call").expect("i64 result");
                let x = f.xor(Type::I64, r, out);
                f.ret(Some(x));
            }
            None => f.ret(Some(out)),
        }
        f.finish();
    }
    mb.finish()
}

/// The abstract instruction count of W2(m).
pub fn w2_abstract_instructions(m: usize) -> usize {
    50 * m - 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_test_vector() {
        let mut r = SplitMix64::new(0x5731);
        assert_eq!(r.next(), 0x4373733980006792);
        assert_eq!(r.next(), 0x51a35820789c46e0);
        assert_eq!(r.next(), 0x81ace734f6f928c0);
    }
}
