//! Arbitrary IR text executed by the interpreter: every function without parameters of a module that reads and
//! verifies is called under small limits. Execution must end in a value, a trap or a limit error, never a panic.
//! Run from the workspace root with `cargo +nightly fuzz run interp_run` (see `docs/interp.md`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(module) = ir::parse_module(text) else { return };
    let options = interp::Options {
        max_steps: 100_000,
        max_call_depth: 64,
        max_memory_bytes: 1 << 20,
        max_allocations: 256,
        max_stack_slots: 1 << 16,
    };
    let Ok(mut interpreter) = interp::Interpreter::new(&module, options) else { return };
    interpreter.set_output(Box::new(std::io::sink()));
    for function in module.functions().filter(|f| f.params.is_empty()) {
        let _ = interpreter.call(function.id, &[]);
    }
});
