//! Arbitrary bytes through the AST format-2 JSON decoder and, for programs that decode, O0 lowering and verification.
//! None may panic; a decoded program must encode and decode back to itself. Run from the workspace root with
//! `cargo +nightly fuzz run ast_json` (see `docs/interchange.md`).

#![no_main]

use ir::lower_ast::{interchange, lower_o0};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(program) = interchange::decode(text) {
        let encoded = interchange::encode(&program);
        assert_eq!(interchange::decode(&encoded).ok().as_ref(), Some(&program), "encode/decode round trip");
        let target = ir::Target::lookup("x86_64-whale-linux").expect("the default target exists");
        if let Ok(module) = lower_o0(&program, target.name(), target.data_layout()) {
            let _ = ir::verify_module(&module);
        }
    }
});
