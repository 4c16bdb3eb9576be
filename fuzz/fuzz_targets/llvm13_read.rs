//! Arbitrary bytes through every LLVM 1.3 decoder: the format reader, the block dump, the disassembler and the
//! mapping to `ir::Module`. None may panic; the dump fails exactly when the reader does; a model that reads must
//! write back to the same bytes when the writer produced them, and a module that reads (and so verifies) and
//! writes must read back.
//! Run from the workspace root with `cargo +nightly fuzz run llvm13_read`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dumped = llvm13::dump(data, &mut std::io::sink());
    let read = llvm13::read_module(data);
    assert_eq!(dumped.is_ok(), read.is_ok(), "the dump and the reader agree");
    if let Ok(model) = read {
        llvm13::disasm(&model, &mut std::io::sink()).expect("a sink takes any text");
        if let Ok(bytes) = llvm13::write_module(&model) {
            let again = llvm13::read_module(&bytes).expect("written bytes read back");
            assert_eq!(llvm13::write_module(&again).expect("writes again"), bytes, "the writer is deterministic");
        }
    }
    if let Ok(module) = llvm13::read_whale(data) {
        if let Ok(bytes) = llvm13::write_whale(&module) {
            // Files from other writers may normalise on the way (docs/llvm13.md); they must still read back.
            llvm13::read_whale(&bytes).expect("a written module reads back");
        }
    }
});
