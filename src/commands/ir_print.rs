//! `whale ir print <IN> [-o OUT] [--format 2|4]`.

use std::path::Path;

use crate::cli_error::CliError;
use crate::console::outln;
use crate::{input, io, output, PrintArgs};

/// Loads, verifies and prints a module.
pub fn run(args: &PrintArgs) -> Result<(), CliError> {
    if let Some(out) = &args.output {
        io::check_not_same_file(&args.input, out)?;
    }
    let (module, family) = input::load_module_in_family(&args.input, input::DEFAULT_TARGET, true)?;
    let format = match args.format.as_deref() {
        Some("4") => ir::TextFormat::V4,
        Some(_) => ir::TextFormat::Auto,
        None => family,
    };
    publish(&module, format, args.output.as_deref())
}

/// Writes the module's IR text to standard output, or atomically to `output`
/// with a `Wrote IR to PATH` note. The text is streamed, never held whole.
pub fn publish(module: &ir::Module, format: ir::TextFormat, output: Option<&Path>) -> Result<(), CliError> {
    if let Some(path) = output::write_output_with(output, |w| Ok(ir::write_module(module, format, w)?))? {
        outln!("Wrote IR to {}", path.display())?;
    }
    Ok(())
}
