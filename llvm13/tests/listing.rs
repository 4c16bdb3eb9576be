//! Golden listings: the `dump` and the disassembly of a file written from a Whale module that uses most of the
//! mapping (globals, a trap reason, declarations, calls, memory, phis, switches, casts), compared byte for byte
//! with `tests/data/kitchen.dump` and `tests/data/kitchen.ll` (`WHALE_BLESS=1 cargo test -p llvm13 --test listing`
//! rewrites them); partial listings of malformed files; and listings streamed to writers that fail.

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

/// The text `dump` writes for `bytes`, and its result.
fn dump(bytes: &[u8]) -> (String, Result<(), llvm13::DumpError>) {
    let mut out = Vec::new();
    let result = llvm13::dump(bytes, &mut out);
    (String::from_utf8(out).expect("listings are UTF-8"), result)
}

/// The text `disasm` streams for `model`.
fn disasm(model: &llvm13::Module) -> String {
    let mut out = Vec::new();
    llvm13::disasm(model, &mut out).expect("a Vec takes any text");
    String::from_utf8(out).expect("listings are UTF-8")
}

#[test]
fn dump_matches_the_golden_listing() {
    let (text, result) = dump(&kitchen_bytes());
    result.expect("dumps");
    check("kitchen.dump", &text);
}

#[test]
fn disasm_matches_the_golden_listing() {
    let model = llvm13::read_module(&kitchen_bytes()).expect("reads");
    let text = disasm(&model);
    assert_eq!(llvm13::disasm_to_string(&model), text);
    check("kitchen.ll", &text);
}

/// Every truncation of a valid file lists the blocks that are complete, a prefix of the full listing, and fails
/// with the reader's error.
#[test]
fn truncated_files_list_what_is_there() {
    let bytes = kitchen_bytes();
    let (full, result) = dump(&bytes);
    result.expect("dumps");
    for cut in 0..bytes.len() {
        let (partial, result) = dump(&bytes[..cut]);
        let expected = llvm13::read_module(&bytes[..cut]).expect_err("a truncated file is refused");
        match result {
            Err(llvm13::DumpError::Read(e)) => assert_eq!(e, expected, "cut at {cut}"),
            other => panic!("cut at {cut}: {other:?}"),
        }
        assert!(full.starts_with(&partial), "cut at {cut}:\n{partial}");
        assert!(partial.is_empty() || partial.ends_with('\n'), "cut at {cut}");
    }
    // A cut after the type pool still lists it.
    let (partial, _) = dump(&bytes[..0x60]);
    assert!(partial.contains("type slot 25: Pointer(TypeSlot(7))"), "{partial}");
}

/// A malformed block after valid ones: the listing shows the valid ones, the error is the reader's.
#[test]
fn a_malformed_block_ends_the_listing_there() {
    let mut bytes = kitchen_bytes();
    // The constant pool header (short form, id 3) at 0x60: make its id 0, which is reserved.
    assert_eq!(bytes[0x60] & 0x1f, 3);
    bytes[0x60] &= !0x1f;
    let (partial, result) = dump(&bytes);
    let Err(llvm13::DumpError::Read(e)) = result else { panic!("{result:?}") };
    assert_eq!(e, llvm13::read_module(&bytes).unwrap_err());
    assert!(partial.ends_with("00000060:   </global info>\n"), "{partial}");
}

/// A writer that takes `limit` bytes, then fails as a closed pipe does, counting the calls that reached it.
struct Pipe {
    taken: usize,
    limit: usize,
    writes: usize,
}

impl std::io::Write for Pipe {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writes += 1;
        if self.taken >= self.limit {
            return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        }
        let n = buf.len().min(self.limit - self.taken);
        self.taken += n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A module of `n` declarations and a function, whose listings are a few hundred kilobytes.
fn large(n: usize) -> Vec<u8> {
    let mut m = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let sig = FunctionSignature {
        params: vec![Type::I32],
        ret: Type::I32,
        convention: CallingConvention::SysV64,
        variadic: false,
    };
    for i in 0..n {
        m.declare_function(&format!("ext{i}"), sig.clone(), Linkage::External, Some(format!("ext{i}")))
            .expect("declares");
    }
    let mut f = m.begin_function("one", vec![], Type::I32);
    let one = f.const_i32(1);
    f.ret(Some(one));
    f.finish();
    llvm13::write_whale(&m.finish()).expect("writes")
}

#[test]
fn listings_stream_in_pieces() {
    let bytes = large(20_000);
    let model = llvm13::read_module(&bytes).expect("reads");
    let mut pipe = Pipe { taken: 0, limit: usize::MAX, writes: 0 };
    llvm13::dump(&bytes, &mut pipe).expect("dumps");
    assert!(pipe.taken > 4 * 64 * 1024, "{} bytes", pipe.taken);
    assert!(pipe.writes > 4, "the listing went out in {} writes", pipe.writes);
    let mut pipe = Pipe { taken: 0, limit: usize::MAX, writes: 0 };
    llvm13::disasm(&model, &mut pipe).expect("disassembles");
    assert!(pipe.taken > 4 * 64 * 1024, "{} bytes", pipe.taken);
    assert!(pipe.writes > 4, "the text went out in {} writes", pipe.writes);
}

#[test]
fn a_failing_writer_stops_the_listing_with_its_error() {
    let bytes = large(20_000);
    let model = llvm13::read_module(&bytes).expect("reads");
    let mut pipe = Pipe { taken: 0, limit: 100_000, writes: 0 };
    match llvm13::dump(&bytes, &mut pipe) {
        Err(llvm13::DumpError::Io(e)) => assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe),
        other => panic!("{other:?}"),
    }
    assert_eq!(pipe.taken, 100_000);
    let writes = pipe.writes;
    assert!(writes < 10, "{writes} writes: the listing stopped at the first failure");
    let mut pipe = Pipe { taken: 0, limit: 100_000, writes: 0 };
    let e = llvm13::disasm(&model, &mut pipe).expect_err("the pipe closes");
    assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
    // A malformed file and a failing writer: the writer's error wins, the file is not read to the end.
    let mut pipe = Pipe { taken: 0, limit: 0, writes: 0 };
    match llvm13::dump(&bytes[..bytes.len() - 1], &mut pipe) {
        Err(llvm13::DumpError::Io(e)) => assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe),
        other => panic!("{other:?}"),
    }
}
