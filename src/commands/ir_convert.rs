//! `whale ir convert <IN> -o OUT [--to wir|fr2e|llvm13] [--compress-strings]`.

use std::io::IsTerminal;
use std::path::Path;

use crate::cli_error::CliError;
use crate::console::outln;
use crate::{input, io, output, ConvertArgs};

/// The output formats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Wir,
    Fr2e,
    Llvm13,
}

/// Loads and verifies a module of any input kind and writes it as IR text, an FR2E image or LLVM 1.3 bytecode.
pub fn run(args: &ConvertArgs) -> Result<(), CliError> {
    // Everything about the output is settled before the input is read.
    let format = match (args.to.as_deref(), args.output.extension().and_then(|e| e.to_str())) {
        (Some("fr2e"), _) | (None, Some("fr2e")) => Format::Fr2e,
        (Some("llvm13"), _) | (None, Some("bc")) => Format::Llvm13,
        (Some(_), _) | (None, Some("wir")) => Format::Wir,
        (None, _) => {
            let out = args.output.display();
            return Err(CliError::failed(format!(
                "cannot tell the format of {out} from its extension; use --to wir|fr2e|llvm13"
            )));
        }
    };
    if args.compress_strings && format != Format::Fr2e {
        return Err(CliError::failed("--compress-strings applies to FR2E output only"));
    }
    io::check_not_same_file(&args.input, &args.output)?;
    let (module, family) = input::load_module_in_family(&args.input, input::DEFAULT_TARGET, true)?;
    match format {
        Format::Wir => super::ir_print::publish(&module, family, Some(&args.output)),
        Format::Fr2e => {
            let options = fr2e::WriteOptions { compress_strings: args.compress_strings };
            let image =
                fr2e::try_write_module_with(&module, options).map_err(|e| CliError::failed(format!("FR2E: {e}")))?;
            publish_image(&image, Some(&args.output))
        }
        Format::Llvm13 => {
            let bytes = llvm13::write_whale(&module).map_err(|e| CliError::failed(format!("LLVM 1.3: {e}")))?;
            publish_binary(&bytes, &args.output, "LLVM 1.3 bytecode")
        }
    }
}

/// Writes an FR2E image atomically to `output` with a `Wrote FR2E image to PATH` note, or to standard output unless
/// that is a terminal.
pub fn publish_image(image: &[u8], output: Option<&Path>) -> Result<(), CliError> {
    let to_stdout = output.is_none_or(output::is_stdout);
    if to_stdout && std::io::stdout().is_terminal() {
        return Err(CliError::failed("refusing to write a binary FR2E image to a terminal; use -o FILE"));
    }
    if let Some(path) = output::write_output(output, image)? {
        outln!("Wrote FR2E image to {}", path.display())?;
    }
    Ok(())
}

/// Writes binary output atomically to `output` with a `Wrote WHAT to PATH` note, or to standard output unless that is a
/// terminal.
fn publish_binary(bytes: &[u8], output: &Path, what: &str) -> Result<(), CliError> {
    if output::is_stdout(output) && std::io::stdout().is_terminal() {
        return Err(CliError::failed(format!("refusing to write binary {what} to a terminal; use -o FILE")));
    }
    if let Some(path) = output::write_output(Some(output), bytes)? {
        outln!("Wrote {what} to {}", path.display())?;
    }
    Ok(())
}
