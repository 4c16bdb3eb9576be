//! `whale ir run <IN> --function @fN|NAME [--arg LIT]... [--max-steps N] [--max-memory BYTES]`.

use crate::cli_error::CliError;
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
    let mut interpreter = interp::Interpreter::new(&module, options).map_err(|e| fail(e.to_string()))?;
    interpreter.bind_standard_host();
    interpreter.set_output(Box::new(std::io::stdout()));
    let outcome = interpreter.call(function, &values).map_err(|e| fail(e.to_string()))?;
    println!("{}", interp::format_result(&module, ret, outcome.value.as_ref()));
    Ok(())
}
