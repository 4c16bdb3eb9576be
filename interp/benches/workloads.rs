//! The interpreter workloads W3 (fib), W4 (sieve) and W5 (loop-sum) of
//! `shared/reference/workloads.md`, built with the IR builder.
//!
//! Whale integer types carry signedness and `icmp ult`/`urem` need unsigned
//! operands, so W5 (which uses both) is written on `u64` — the same 64-bit
//! two's-complement values and the same instructions as the CLIF form. W3 and
//! W4 use signed comparisons and are written on `i64`. Constants are hoisted as
//! in the CLIF forms. Whale counts every executed phi as a step, so step counts
//! exceed the CLIF dynamic instruction counts by the number of block-parameter
//! assignments (W3 has none: exactly 4,449,344 steps for fib(27)).

#![allow(dead_code)]

use ir::{Callee, CastOp, DataLayout, ICmpPred, Module, ModuleBuilder, Type};

fn builder() -> ModuleBuilder {
    ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
}

/// W3: `fib(n: i64) -> i64 = n < 2 ? n : fib(n-1) + fib(n-2)`.
pub fn fib() -> Module {
    let mut mb = builder();
    let mut f = mb.begin_function("fib", vec![("n".into(), Type::I64)], Type::I64);
    let me = f.function_id("fib").expect("fib is declared");
    let n = f.param_value(0);
    let base = f.create_block("base");
    let rec = f.create_block("rec");
    let two = f.const_i64(2);
    let small = f.icmp(ICmpPred::Slt, Type::I64, n, two);
    f.cbr(small, base, rec);
    f.set_insert_point(base);
    f.ret(Some(n));
    f.set_insert_point(rec);
    let one = f.const_i64(1);
    let a = f.sub(Type::I64, n, one);
    let x = f.call(Callee::Direct(me), vec![a]).expect("call").expect("value");
    let b = f.sub(Type::I64, n, two);
    let y = f.call(Callee::Direct(me), vec![b]).expect("call").expect("value");
    let sum = f.add(Type::I64, x, y);
    f.ret(Some(sum));
    f.finish();
    mb.finish()
}

/// Steps of `fib(n)`: 4 per call with n < 2, 10 per other call.
pub fn fib_steps(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64); // F(0), F(1)
    for _ in 0..=n {
        (a, b) = (b, a + b);
    }
    // a = F(n + 1)
    4 * a + 10 * (a - 1)
}

/// W5: `loopsum(n: u64) -> u64 = Σ_{i<n} (i*i) urem 7`.
pub fn loopsum() -> Module {
    let mut mb = builder();
    let mut f = mb.begin_function("loopsum", vec![("n".into(), Type::U64)], Type::U64);
    let n = f.param_value(0);
    let entry = f.entry_block();
    let head = f.create_block("head");
    let body = f.create_block("body");
    let exit = f.create_block("exit");
    let zero = f.const_u64(0);
    let one = f.const_u64(1);
    let seven = f.const_u64(7);
    f.br(head);
    f.set_insert_point(head);
    let i = f.phi(Type::U64, &[(zero, entry)]);
    let sum = f.phi(Type::U64, &[(zero, entry)]);
    let more = f.icmp(ICmpPred::Ult, Type::U64, i, n);
    f.cbr(more, body, exit);
    f.set_insert_point(body);
    let square = f.mul(Type::U64, i, i);
    let rem = f.urem(Type::U64, square, seven);
    let next_sum = f.add(Type::U64, sum, rem);
    let next_i = f.add(Type::U64, i, one);
    f.add_phi_input(i, next_i, body);
    f.add_phi_input(sum, next_sum, body);
    f.br(head);
    f.set_insert_point(exit);
    f.ret(Some(sum));
    f.finish();
    mb.finish()
}

/// Sieve size of W4.
pub const SIEVE_SIZE: i64 = 1_000_000;

/// W4: `sieve(k: i64) -> i64`, the sieve of Eratosthenes over a 1,000,000-byte
/// `alloca`, repeated `k` times; returns `k · 78,498`.
pub fn sieve() -> Module {
    let mut mb = builder();
    let mut f = mb.begin_function("sieve", vec![("k".into(), Type::I64)], Type::I64);
    let k = f.param_value(0);
    let entry = f.entry_block();
    let array = Type::array(Type::U8, SIEVE_SIZE as u64);
    let byte_ptr = Type::ptr(Type::U8);
    let mem = f.alloca(array, 16);
    let c0 = f.const_i64(0);
    let c1 = f.const_i64(1);
    let c2 = f.const_i64(2);
    let size = f.const_i64(SIEVE_SIZE);
    let zero8 = f.const_u8(0);
    let one8 = f.const_u8(1);
    let rep_head = f.create_block("rep.head");
    let init_head = f.create_block("init.head");
    let init_body = f.create_block("init.body");
    let clear = f.create_block("clear");
    let outer_head = f.create_block("outer.head");
    let outer_test = f.create_block("outer.test");
    let inner_head = f.create_block("inner.head");
    let inner_body = f.create_block("inner.body");
    let outer_next = f.create_block("outer.next");
    let count_head = f.create_block("count.head");
    let count_body = f.create_block("count.body");
    let rep_next = f.create_block("rep.next");
    let done = f.create_block("done");
    f.br(rep_head);

    f.set_insert_point(rep_head);
    let rep = f.phi(Type::I64, &[(c0, entry)]);
    let total = f.phi(Type::I64, &[(c0, entry)]);
    let go = f.icmp(ICmpPred::Slt, Type::I64, rep, k);
    f.cbr(go, init_head, done);

    f.set_insert_point(init_head);
    let i = f.phi(Type::I64, &[(c0, rep_head)]);
    let go = f.icmp(ICmpPred::Slt, Type::I64, i, size);
    f.cbr(go, init_body, clear);
    f.set_insert_point(init_body);
    let p = f.gep(byte_ptr.clone(), mem, &[c0, i]);
    f.store(Type::U8, one8, p, 1);
    let i_next = f.add(Type::I64, i, c1);
    f.add_phi_input(i, i_next, init_body);
    f.br(init_head);

    f.set_insert_point(clear);
    let p0 = f.gep(byte_ptr.clone(), mem, &[c0, c0]);
    f.store(Type::U8, zero8, p0, 1);
    let p1 = f.gep(byte_ptr.clone(), mem, &[c0, c1]);
    f.store(Type::U8, zero8, p1, 1);
    f.br(outer_head);

    f.set_insert_point(outer_head);
    let oi = f.phi(Type::I64, &[(c2, clear)]);
    let square = f.mul(Type::I64, oi, oi);
    let go = f.icmp(ICmpPred::Slt, Type::I64, square, size);
    f.cbr(go, outer_test, count_head);

    f.set_insert_point(outer_test);
    let p = f.gep(byte_ptr.clone(), mem, &[c0, oi]);
    let byte = f.load(Type::U8, p, 1);
    let prime = f.icmp(ICmpPred::Ne, Type::U8, byte, zero8);
    f.cbr(prime, inner_head, outer_next);

    f.set_insert_point(inner_head);
    let j = f.phi(Type::I64, &[(square, outer_test)]);
    let go = f.icmp(ICmpPred::Slt, Type::I64, j, size);
    f.cbr(go, inner_body, outer_next);
    f.set_insert_point(inner_body);
    let p = f.gep(byte_ptr.clone(), mem, &[c0, j]);
    f.store(Type::U8, zero8, p, 1);
    let j_next = f.add(Type::I64, j, oi);
    f.add_phi_input(j, j_next, inner_body);
    f.br(inner_head);

    f.set_insert_point(outer_next);
    let oi_next = f.add(Type::I64, oi, c1);
    f.add_phi_input(oi, oi_next, outer_next);
    f.br(outer_head);

    f.set_insert_point(count_head);
    let ci = f.phi(Type::I64, &[(c0, outer_head)]);
    let count = f.phi(Type::I64, &[(total, outer_head)]);
    let go = f.icmp(ICmpPred::Slt, Type::I64, ci, size);
    f.cbr(go, count_body, rep_next);
    f.set_insert_point(count_body);
    let p = f.gep(byte_ptr, mem, &[c0, ci]);
    let byte = f.load(Type::U8, p, 1);
    let wide = f.cast(CastOp::Zext, byte, Type::I64);
    let count_next = f.add(Type::I64, count, wide);
    let ci_next = f.add(Type::I64, ci, c1);
    f.add_phi_input(ci, ci_next, count_body);
    f.add_phi_input(count, count_next, count_body);
    f.br(count_head);

    f.set_insert_point(rep_next);
    let rep_next_value = f.add(Type::I64, rep, c1);
    f.add_phi_input(rep, rep_next_value, rep_next);
    f.add_phi_input(total, count, rep_next);
    f.br(rep_head);

    f.set_insert_point(done);
    f.ret(Some(total));
    f.finish();
    mb.finish()
}

/// Primes below 10^6.
pub const PRIMES_BELOW_SIZE: i64 = 78_498;
