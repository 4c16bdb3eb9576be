//! `whale llvm13 dump <IN> [-o OUT] [--disasm]`.

use crate::cli_error::CliError;
use crate::{io, Llvm13DumpArgs};

/// Prints the annotated block listing of LLVM 1.3 bytecode, or with `--disasm` its LLVM 1.3 assembly text.
pub fn run(args: &Llvm13DumpArgs) -> Result<(), CliError> {
    if let Some(out) = &args.output {
        io::check_not_same_file(&args.input, out)?;
    }
    let bytes = io::read_input(&args.input, io::MAX_INPUT_BYTES)?;
    let name = io::input_name(&args.input);
    let text = if args.disasm { llvm13::read_module(&bytes).map(|m| llvm13::disasm(&m)) } else { llvm13::dump(&bytes) }
        .map_err(|e| CliError::failed(format!("{name}: {e}")))?;
    if let Some(path) = io::write_output(args.output.as_deref(), text.as_bytes())? {
        println!("Wrote listing to {}", path.display());
    }
    Ok(())
}
