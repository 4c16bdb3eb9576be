//! `whale ir convert <IN> -o OUT [--to wir|fr2e] [--compress-strings]`.

use std::io::IsTerminal;
use std::path::Path;

use crate::cli_error::CliError;
use crate::{input, io, ConvertArgs};

/// The output formats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Wir,
    Fr2e,
}

/// Loads and verifies a module of any input kind and writes it as IR text or an FR2E image.
pub fn run(args: &ConvertArgs) -> Result<(), CliError> {
    // Everything about the output is settled before the input is read.
    let format = match (args.to.as_deref(), args.output.extension().and_then(|e| e.to_str())) {
        (Some("fr2e"), _) | (None, Some("fr2e")) => Format::Fr2e,
        (Some(_), _) | (None, Some("wir")) => Format::Wir,
        (None, _) => {
            let out = args.output.display();
            return Err(CliError::failed(format!(
                "cannot tell the format of {out} from its extension; use --to wir|fr2e"
            )));
        }
    };
    if args.compress_strings && format != Format::Fr2e {
        return Err(CliError::failed("--compress-strings applies to FR2E output only"));
    }
    io::check_not_same_file(&args.input, &args.output)?;
    let module = input::load_module(&args.input, input::DEFAULT_TARGET, true)?;
    match format {
        Format::Wir => super::ir_print::publish(&module, ir::TextFormat::Auto, Some(&args.output)),
        Format::Fr2e => {
            let options = fr2e::WriteOptions { compress_strings: args.compress_strings };
            let image =
                fr2e::try_write_module_with(&module, options).map_err(|e| CliError::failed(format!("FR2E: {e}")))?;
            publish_image(&image, Some(&args.output))
        }
    }
}

/// Writes an FR2E image atomically to `output` with a `Wrote FR2E image to PATH` note, or to standard output unless
/// that is a terminal.
pub fn publish_image(image: &[u8], output: Option<&Path>) -> Result<(), CliError> {
    let to_stdout = output.is_none_or(|p| p.as_os_str() == "-");
    if to_stdout && std::io::stdout().is_terminal() {
        return Err(CliError::failed("refusing to write a binary FR2E image to a terminal; use -o FILE"));
    }
    if let Some(path) = io::write_output(output, image)? {
        println!("Wrote FR2E image to {}", path.display());
    }
    Ok(())
}
