//! `whale fr2e dump <IN> [-o OUT]`.

use crate::cli_error::CliError;
use crate::console::outln;
use crate::output::{self, Failure};
use crate::{io, DumpArgs};

/// Streams the annotated listing of an image. On a malformed image the listing
/// up to the problem goes to standard output (or a special file), then the error;
/// a file named by `-o` is left untouched.
pub fn run(args: &DumpArgs) -> Result<(), CliError> {
    if let Some(out) = &args.output {
        io::check_not_same_file(&args.input, out)?;
    }
    let bytes = io::read_input(&args.input)?;
    let name = io::input_name(&args.input);
    let written = output::write_output_with(args.output.as_deref(), |w| {
        fr2e::dump(&bytes, w).map_err(|e| match e {
            fr2e::DumpError::Io(e) => Failure::Write(e),
            fr2e::DumpError::Format(e) => Failure::Work(CliError::failed(format!("{name}: {e}"))),
        })
    })?;
    if let Some(path) = written {
        outln!("Wrote listing to {}", path.display())?;
    }
    Ok(())
}
