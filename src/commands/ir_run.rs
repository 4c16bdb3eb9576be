//! `whale ir run <IN> --function @fN|NAME [--arg LIT]... [--max-steps N] [--max-memory BYTES] [--max-call-depth N]
//! [--max-allocations N] [--max-stack-slots N]`.

use crate::cli_error::CliError;
use crate::console::{self, outln, TrackedStdout};
use crate::{input, io, RunArgs};

/// Loads and verifies a module, runs one function with the standard host
/// functions bound (their output goes to standard output) and prints the result
/// as `TYPE VALUE` (whale-ir §8).
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    let module = input::load_module(&args.input, input::DEFAULT_TARGET, true)?;
    let name = io::input_name(&args.input);
    let fail = |message: String| CliError::failed(format!("{name}: {message}"));
    let function = interp::resolve_function(&module, &args.function)
        .ok_or_else(|| fail(format!("no function {}", args.function)))?;
    let (values, ret) = interp::parse_arguments(&module, function, &args.args).map_err(|e| fail(e.to_string()))?;
    let mut options = interp::Options::default();
    options.max_steps = args.max_steps.unwrap_or(options.max_steps);
    options.max_memory_bytes = args.max_memory.unwrap_or(options.max_memory_bytes);
    options.max_call_depth = args.max_call_depth.unwrap_or(options.max_call_depth);
    options.max_allocations = args.max_allocations.unwrap_or(options.max_allocations);
    options.max_stack_slots = args.max_stack_slots.unwrap_or(options.max_stack_slots);
    let mut interpreter = interp::Interpreter::new(&module, options).map_err(|e| fail(e.to_string()))?;
    interpreter.bind_standard_host();
    let stdout = TrackedStdout::default();
    interpreter.set_output(Box::new(stdout.clone()));
    let outcome = interpreter.call(function, &values);
    // A host function's failed write traps the program; it is reported as what it is.
    if let Some(error) = stdout.take_failure() {
        return Err(console::stdout_error(error));
    }
    let outcome = outcome.map_err(|e| fail(e.to_string()))?;
    outln!("{}", interp::format_result(&module, ret, outcome.value.as_ref()))
}
