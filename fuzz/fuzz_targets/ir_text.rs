//! Arbitrary bytes through the IR text reader (formats 2, 3 and 4, then verification). It must never panic; a module
//! that reads must print, and its text must read back to a module that prints the same. Run from the workspace root
//! with `cargo +nightly fuzz run ir_text` (see `docs/text-format.md`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(module) = ir::parse_module(text) {
        let printed = ir::print_module(&module);
        let again = ir::parse_module(&printed).expect("printed text reads back");
        assert_eq!(ir::print_module(&again), printed, "print is a fixed point");
    }
});
