//! Arbitrary bytes through the AST format-2 JSON decoder and, for programs that decode, O0 lowering and verification.
//! None may panic; a decoded program must encode and decode back to itself, and `lower_json` must give exactly what
//! `decode` then `lower_o0` give. Fuzz builds keep debug assertions, so every text the fast reader accepts is also
//! checked against the strict decoder. Run from the workspace root with `cargo +nightly fuzz run ast_json` (see
//! `docs/interchange.md`).

#![no_main]

use ir::lower_ast::{interchange, lower_json, lower_o0, JsonLowerError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let target = ir::Target::lookup("x86_64-whale-linux").expect("the default target exists");
    let (name, layout) = (target.name(), target.data_layout());
    let fused = lower_json(text, interchange::DEFAULT_MAX_INPUT_BYTES, name, layout);
    match interchange::decode(text) {
        Ok(program) => {
            let encoded = interchange::encode(&program);
            assert_eq!(interchange::decode(&encoded).ok().as_ref(), Some(&program), "encode/decode round trip");
            match (lower_o0(&program, name, layout), fused) {
                (Ok(module), Ok(fused)) => {
                    assert_eq!(ir::print_module(&fused), ir::print_module(&module), "lower_json module");
                    let _ = ir::verify_module(&module);
                }
                (Err(error), Err(JsonLowerError::Lower(fused))) => assert_eq!(fused, error, "lower_json error"),
                (direct, fused) => panic!("lower_o0 {:?} but lower_json {:?}", direct.err(), fused.err()),
            }
        }
        Err(error) => assert_eq!(fused.err(), Some(JsonLowerError::Decode(error)), "lower_json decode error"),
    }
});
