//! `whale ir print <IN> [-o OUT] [--format 2|4]`.

use std::path::Path;

use crate::cli_error::CliError;
use crate::{input, io, PrintArgs};

/// Loads, verifies and prints a module.
pub fn run(args: &PrintArgs) -> Result<(), CliError> {
    if let Some(out) = &args.output {
        io::check_not_same_file(&args.input, out)?;
    }
    let module = input::load_module(&args.input, input::DEFAULT_TARGET, true)?;
    let format = if args.format == "4" { ir::TextFormat::V4 } else { ir::TextFormat::Auto };
    publish(&ir::print_module_with(&module, format), args.output.as_deref())
}

/// Writes IR text to standard output, or atomically to `output` with a
/// `Wrote IR to PATH` note.
pub fn publish(text: &str, output: Option<&Path>) -> Result<(), CliError> {
    if let Some(path) = io::write_output(output, text.as_bytes())? {
        println!("Wrote IR to {}", path.display());
    }
    Ok(())
}
