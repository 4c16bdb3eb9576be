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
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// One random op draw, recorded so that building can replay it without the PRNG
/// (the build bench measures the builder, not SplitMix64).
#[derive(Clone, Copy, Debug)]
pub struct Draw {
    /// 0..6 binary op, 6 icmp, 7 select.
    pub op: u8,
    /// Condition index for icmp.
    pub cc: u8,
    /// `x = P[len - 1 - x_back]`.
    pub x_back: u8,
    /// `k` of the draw: `< w` picks from the pool, else a parameter.
    pub k: u8,
    /// W1 only: whether the op is on i64 (else i32).
    pub wide: bool,
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

/// Draws one op (workloads.md "Random op draw"), tracking only the pool length
/// and whether a Bool exists.
fn draw(rng: &mut SplitMix64, pool_len: &mut usize, has_bool: &mut bool, wide: bool) -> Draw {
    let mut op = rng.below(8) as u8;
    if op == 7 && !*has_bool {
        op = 6;
    }
    let cc = if op == 6 { rng.below(10) as u8 } else { 0 };
    let w = (*pool_len).min(8) as u64;
    let x_back = rng.below(w) as u8;
    let k = rng.below(w + 2) as u8;
    if op == 6 {
        *has_bool = true;
    } else {
        *pool_len += 1;
    }
    Draw { op, cc, x_back, k, wide }
}

/// Replays a draw with the builder; appends to `pool` or sets `last_bool`.
fn replay(
    d: Draw,
    f: &mut ir::FunctionBuilder<'_>,
    ty: &Type,
    pool: &mut Vec<ValueId>,
    params: [ValueId; 2],
    last_bool: &mut Option<ValueId>,
) {
    let w = pool.len().min(8);
    let x = pool[pool.len() - 1 - d.x_back as usize];
    let k = d.k as usize;
    let mut y = if k < w { pool[pool.len() - 1 - k] } else { params[k - w] };
    if y == x {
        y = if x != params[0] { params[0] } else { params[1] };
    }
    match d.op {
        6 => {
            let pred = CONDITIONS[d.cc as usize];
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
        7 => {
            let c = last_bool.expect("select is drawn only after an icmp");
            pool.push(f.select(ty.clone(), c, x, y));
        }
        op => {
            let v = match op {
                0 => f.add(ty.clone(), x, y),
                1 => f.sub(ty.clone(), x, y),
                2 => f.mul(ty.clone(), x, y),
                3 => f.and(ty.clone(), x, y),
                4 => f.or(ty.clone(), x, y),
                _ => f.xor(ty.clone(), x, y),
            };
            pool.push(v);
        }
    }
}

fn builder() -> ModuleBuilder {
    ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
}

/// The recorded draws of W1(n).
pub fn w1_recipe(n: usize) -> Vec<Draw> {
    let mut rng = SplitMix64::new(0x5731);
    let (mut len64, mut len32, mut has_bool) = (2, 2, false);
    (0..n)
        .map(|_| {
            if rng.below(2) == 0 {
                draw(&mut rng, &mut len64, &mut has_bool, true)
            } else {
                draw(&mut rng, &mut len32, &mut has_bool, false)
            }
        })
        .collect()
}

/// Builds W1 from its draws: one function of random ops over i64 and i32, plus
/// a 3-instruction epilogue.
pub fn build_w1(recipe: &[Draw]) -> Module {
    let mut mb = builder();
    let params = vec![
        ("a".to_string(), Type::I64),
        ("b".to_string(), Type::I64),
        ("c".to_string(), Type::I32),
        ("d".to_string(), Type::I32),
    ];
    let mut f = mb.begin_function("w1", params, Type::I64);
    let p = [f.param_value(0), f.param_value(1), f.param_value(2), f.param_value(3)];
    let (mut p64, mut p32) = (vec![p[0], p[1]], vec![p[2], p[3]]);
    let mut last_bool = None;
    for &d in recipe {
        if d.wide {
            replay(d, &mut f, &Type::I64, &mut p64, [p[0], p[1]], &mut last_bool);
        } else {
            replay(d, &mut f, &Type::I32, &mut p32, [p[2], p[3]], &mut last_bool);
        }
    }
    let widened = f.cast(CastOp::Zext, *p32.last().unwrap(), Type::I64);
    let result = f.xor(Type::I64, *p64.last().unwrap(), widened);
    f.ret(Some(result));
    f.finish();
    mb.finish()
}

/// W1(n).
pub fn w1(n: usize) -> Module {
    build_w1(&w1_recipe(n))
}

/// The abstract instruction count of W1(n).
pub fn w1_abstract_instructions(n: usize) -> usize {
    n + 3
}

/// The draws of one W2 function: trip count, callee, 40 body ops.
pub struct W2Function {
    /// Loop iterations, 2..=5.
    pub trip: u64,
    /// The called function (none for f0).
    pub callee: Option<usize>,
    /// The 40 body draws.
    pub body: Vec<Draw>,
}

/// The recorded draws of W2(m).
pub fn w2_recipe(m: usize) -> Vec<W2Function> {
    (0..m)
        .map(|k| {
            let mut rng = SplitMix64::new(0x5732_0000 + k as u64);
            let trip = 2 + rng.below(4);
            let callee = (k > 0).then(|| rng.below(k as u64) as usize);
            let (mut len, mut has_bool) = (3, false);
            let body = (0..40).map(|_| draw(&mut rng, &mut len, &mut has_bool, true)).collect();
            W2Function { trip, callee, body }
        })
        .collect()
}

/// Builds W2 from its draws: functions of one loop with phis and one call each.
pub fn build_w2(recipe: &[W2Function]) -> Module {
    let mut mb = builder();
    let sig = FunctionSignature::whale(vec![Type::I64, Type::I64], Type::I64);
    let ids: Vec<_> = (0..recipe.len())
        .map(|k| {
            mb.declare_function(&format!("f{k}"), sig.clone(), Linkage::Internal, None).expect("valid declaration")
        })
        .collect();
    for (k, spec) in recipe.iter().enumerate() {
        let mut f = mb.begin_declared_function(ids[k], vec!["a".into(), "b".into()]).expect("declared");
        let (a, b) = (f.param_value(0), f.param_value(1));
        let entry = f.entry_block();
        let zero = f.const_i64(0);
        let one = f.const_i64(1);
        let trip = f.const_i64(spec.trip as i64);
        let body: BlockId = f.create_block("loop");
        let exit = f.create_block("exit");
        f.br(body);
        f.set_insert_point(body);
        let i = f.phi(Type::I64, &[(zero, entry)]);
        let acc = f.phi(Type::I64, &[(a, entry)]);
        let mut pool = vec![b, i, acc];
        let mut last_bool = None;
        for &d in &spec.body {
            replay(d, &mut f, &Type::I64, &mut pool, [a, b], &mut last_bool);
        }
        let last = *pool.last().unwrap();
        let next = f.add(Type::I64, i, one);
        let again = f.icmp(ICmpPred::Slt, Type::I64, next, trip);
        f.add_phi_input(i, next, body);
        f.add_phi_input(acc, last, body);
        f.cbr(again, body, exit);
        f.set_insert_point(exit);
        let out = f.phi(Type::I64, &[(last, body)]);
        match spec.callee {
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

/// W2(m).
pub fn w2(m: usize) -> Module {
    build_w2(&w2_recipe(m))
}

/// The abstract instruction count of W2(m).
pub fn w2_abstract_instructions(m: usize) -> usize {
    50 * m - 2
}
