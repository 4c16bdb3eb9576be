//! `whale ir verify <IN>`.

use crate::cli_error::CliError;
use crate::console::outln;
use crate::{input, io, VerifyArgs};

/// Loads and verifies a module; prints `Verified IR <IN>`.
pub fn run(args: &VerifyArgs) -> Result<(), CliError> {
    input::load_module(&args.input, input::DEFAULT_TARGET, true)?;
    outln!("Verified IR {}", io::input_name(&args.input))
}
