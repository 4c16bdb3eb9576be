//! Dominance answered without the dominator tree, and the tree built part-way
//! through a function: uses of parameters, of earlier values of the same
//! block and of entry-block values need no graph, so the verifier builds one
//! only for the first use that does (a later definition in the same block, or
//! a definition in another non-entry block). These modules make that first
//! use land in different places and check the reported errors are exactly the
//! dominance rules' (uses in unreachable blocks stay exempt).

use ir::{verify_module, verify_module_all, BlockId, DataLayout, FunctionBuilder, InstId, Module, ModuleBuilder};
use ir::{Type, ValueId, VerifyError};

/// A module holding `f(c: bool) -> i32` built by `body`; `body`'s result is returned beside it.
fn single<R>(body: impl FnOnce(&mut FunctionBuilder<'_>) -> R) -> (Module, R) {
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let mut f = mb.begin_function("f", vec![("c".to_string(), Type::Bool)], Type::I32);
    let result = body(&mut f);
    f.finish();
    (mb.finish(), result)
}

fn def(m: &Module, value: ValueId) -> InstId {
    let f = m.function_at(0);
    (0..f.inst_count() as u32).map(InstId::from_u32).find(|&i| f.inst_result(i) == Some(value)).expect("defined")
}

fn non_dominating(value: ValueId, block: BlockId, inst: InstId) -> VerifyError {
    VerifyError::NonDominatingValue { func: "f".to_string(), value, block, inst }
}

#[test]
fn later_definition_in_an_unreachable_block_is_exempt() {
    // No phi and no other cross-block use: this use alone asks for the graph.
    let (m, ()) = single(|f| {
        let dead = f.create_block("dead");
        let one = f.const_i32(1);
        f.ret(Some(one));
        f.set_insert_point(dead);
        let next = ValueId::from_u32(3);
        let early = f.add(Type::I32, one, next);
        assert_eq!(f.add(Type::I32, early, early), next);
        f.ret(Some(next));
    });
    assert_eq!(verify_module_all(&m), Ok(()));
}

#[test]
fn later_definition_in_a_reachable_block_is_reported() {
    let (m, (body, early, later)) = single(|f| {
        let body = f.create_block("body");
        f.br(body);
        f.set_insert_point(body);
        let later = ValueId::from_u32(2);
        let early = f.mul(Type::I32, later, later);
        assert_eq!(f.const_i32(7), later);
        f.ret(Some(early));
        (body, early, later)
    });
    let inst = def(&m, early);
    assert_eq!(verify_module_all(&m), Err(vec![non_dominating(later, body, inst), non_dominating(later, body, inst)]));
}

#[test]
fn entry_values_are_available_everywhere() {
    // Used in a reachable block, in an unreachable one and by a return.
    let (m, ()) = single(|f| {
        let c = f.param_value(0);
        let (then_block, dead) = (f.create_block("then"), f.create_block("dead"));
        let slot = f.alloca(Type::I32, 4);
        let one = f.const_i32(1);
        f.store(Type::I32, one, slot, 4);
        f.cbr(c, then_block, then_block);
        f.set_insert_point(then_block);
        let x = f.load(Type::I32, slot, 4);
        let y = f.add(Type::I32, x, one);
        f.ret(Some(y));
        f.set_insert_point(dead);
        let z = f.load(Type::I32, slot, 4);
        f.ret(Some(z));
    });
    assert_eq!(verify_module(&m), Ok(()));
}

#[test]
fn errors_after_the_graph_is_built_part_way() {
    // entry → a → {b, c} → d. `a`'s value used in `b` is the first use that
    // takes the graph (and is valid); `b`'s value used in `d` is not dominated,
    // both before and after a valid use of `a`'s value there.
    let (m, (d, bad_use, y, late_use)) = single(|f| {
        let c = f.param_value(0);
        let (a, b, cb, d) = (f.create_block("a"), f.create_block("b"), f.create_block("c"), f.create_block("d"));
        f.br(a);
        f.set_insert_point(a);
        let x = f.const_i32(1);
        f.cbr(c, b, cb);
        f.set_insert_point(b);
        let y = f.add(Type::I32, x, x);
        f.br(d);
        f.set_insert_point(cb);
        f.br(d);
        f.set_insert_point(d);
        let bad_use = f.sub(Type::I32, y, x);
        let fine = f.mul(Type::I32, x, x);
        let late_use = f.add(Type::I32, fine, y);
        f.ret(Some(late_use));
        (d, bad_use, y, late_use)
    });
    assert_eq!(
        verify_module_all(&m),
        Err(vec![non_dominating(y, d, def(&m, bad_use)), non_dominating(y, d, def(&m, late_use))])
    );
}
