//! Golden listings: the `dump` and the disassembly of a file written from a Whale module that uses most of the
//! mapping (globals, a trap reason, declarations, calls, memory, phis, switches, casts), compared byte for byte
//! with `tests/data/kitchen.dump` and `tests/data/kitchen.ll`. `WHALE_BLESS=1 cargo test -p llvm13 --test listing`
//! rewrites them.

use std::path::PathBuf;

use ir::{
    BlockId, Callee, CallingConvention, CastOp, ConstValue, DataLayout, FunctionSignature, ICmpPred, Linkage,
    ModuleBuilder, Type,
};

/// A module touching every part of the listing: a global, an external and an internal function, a trap, memory,
/// a loop with a phi, a switch, casts and a call.
fn kitchen_sink() -> ir::Module {
    let mut m = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    m.add_global("counter", Type::I64, ConstValue::I(7), 8);
    let abs = m
        .declare_function(
            "abs",
            FunctionSignature {
                params: vec![Type::I32],
                ret: Type::I32,
                convention: CallingConvention::SysV64,
                variadic: false,
            },
            Linkage::External,
            Some("abs".to_string()),
        )
        .expect("a fresh declaration");

    let mut f = m.begin_function("sum", vec![("n".into(), Type::I32)], Type::I32);
    let n = f.param_value(0);
    let entry = f.entry_block();
    let head = f.create_block("head");
    let body = f.create_block("body");
    let exit = f.create_block("exit");
    let zero = f.const_i32(0);
    let negative = f.icmp(ICmpPred::Slt, Type::I32, n, zero);
    f.trap_if(negative, "negative count");
    let slot = f.alloca(Type::I32, 4);
    f.store(Type::I32, zero, slot, 4);
    f.br(head);
    f.set_insert_point(head);
    let i = f.phi(Type::I32, &[(zero, entry)]);
    let more = f.icmp(ICmpPred::Slt, Type::I32, i, n);
    f.cbr(more, body, exit);
    f.set_insert_point(body);
    let acc = f.load(Type::I32, slot, 4);
    let acc = f.add(Type::I32, acc, i);
    f.store(Type::I32, acc, slot, 4);
    let one = f.const_i32(1);
    let next = f.add(Type::I32, i, one);
    f.add_phi_input(i, next, body);
    f.br(head);
    f.set_insert_point(exit);
    let total = f.load(Type::I32, slot, 4);
    let wide = f.cast(CastOp::Sext, total, Type::I64);
    let narrow = f.cast(CastOp::Trunc, wide, Type::I16);
    let back = f.cast(CastOp::Sext, narrow, Type::I32);
    let result = f.call(Callee::Direct(abs), vec![back]).expect("a call").expect("a result");
    f.ret(Some(result));
    f.finish();

    let mut f = m.begin_function("pick", vec![("k".into(), Type::U8), ("flag".into(), Type::Bool)], Type::U64);
    let k = f.param_value(0);
    let flag = f.param_value(1);
    let small = f.create_block("small");
    let large = f.create_block("large");
    let other: BlockId = f.create_block("");
    f.switch(k, other, &[(ConstValue::U(1), small), (ConstValue::U(200), large)]);
    f.set_insert_point(small);
    let a = f.const_u64(10);
    let b = f.const_u64(u64::MAX);
    let chosen = f.select(Type::U64, flag, a, b);
    f.ret(Some(chosen));
    f.set_insert_point(large);
    let wide = f.cast(CastOp::Zext, k, Type::U64);
    let shifted = f.shl(Type::U64, wide, wide);
    f.ret(Some(shifted));
    f.set_insert_point(other);
    f.trap("no case");
    f.finish();
    m.finish()
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Compares `text` with golden file `name`, or rewrites the file under `WHALE_BLESS=1`.
fn check(name: &str, text: &str) {
    let path = data(name);
    if std::env::var_os("WHALE_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("tests/data")).expect("creates tests/data");
        std::fs::write(&path, text).expect("writes the golden file");
        return;
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(golden == text, "{name} differs from the golden file; the listing is:\n{text}");
}

fn kitchen_bytes() -> Vec<u8> {
    let module = kitchen_sink();
    ir::verify_module(&module).expect("the kitchen sink verifies");
    llvm13::write_whale(&module).expect("the kitchen sink maps to LLVM 1.3")
}

#[test]
fn dump_matches_the_golden_listing() {
    check("kitchen.dump", &llvm13::dump(&kitchen_bytes()).expect("dumps"));
}

#[test]
fn disasm_matches_the_golden_listing() {
    let model = llvm13::read_module(&kitchen_bytes()).expect("reads");
    check("kitchen.ll", &llvm13::disasm(&model));
}
