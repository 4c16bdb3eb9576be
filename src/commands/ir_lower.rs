//! `whale ir lower <IN.json> [-o OUT] [--target T] [--no-verify] [--emit wir|fr2e]`.

use crate::cli_error::CliError;
use crate::LowerArgs;

/// Lowers AST JSON to IR and prints it (or writes `-o` atomically).
#[cfg(feature = "socket-cli")]
pub fn run(args: &LowerArgs) -> Result<(), CliError> {
    use crate::{input, io};
    // The target is checked before the input is read or the output touched.
    ir::Target::lookup(&args.target).map_err(|e| CliError::failed(e.to_string()))?;
    if let Some(out) = &args.output {
        io::check_not_same_file(&args.input, out)?;
    }
    let bytes = io::read_input(&args.input)?;
    if input::detect(&bytes) != input::InputKind::AstJson {
        let name = io::input_name(&args.input);
        return Err(CliError::failed(format!("Failed to parse socket JSON: {name} is not AST JSON")));
    }
    let module = input::load_module_from_bytes(&bytes, &args.input, &args.target, !args.no_verify)?;
    if args.emit == "fr2e" {
        let image = fr2e::try_write_module(&module).map_err(|e| CliError::failed(format!("FR2E: {e}")))?;
        return super::ir_convert::publish_image(&image, args.output.as_deref());
    }
    super::ir_print::publish(&module, ir::TextFormat::Auto, args.output.as_deref())
}

/// Without the `socket-cli` feature there is no AST support: say how to get it.
#[cfg(not(feature = "socket-cli"))]
pub fn run(_args: &LowerArgs) -> Result<(), CliError> {
    Err(super::missing_socket_feature("ir lower"))
}
