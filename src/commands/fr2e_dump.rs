//! `whale fr2e dump <IN> [-o OUT]`.

use crate::cli_error::CliError;
use crate::{io, DumpArgs};

/// Prints the annotated listing of an image; on a malformed image, the listing up to the problem, then the error.
pub fn run(args: &DumpArgs) -> Result<(), CliError> {
    if let Some(out) = &args.output {
        io::check_not_same_file(&args.input, out)?;
    }
    let bytes = io::read_input(&args.input, io::MAX_INPUT_BYTES)?;
    let name = io::input_name(&args.input);
    let mut listing = String::new();
    let result = fr2e::dump(&bytes, &mut listing);
    match result {
        Ok(()) => {
            if let Some(path) = io::write_output(args.output.as_deref(), listing.as_bytes())? {
                println!("Wrote listing to {}", path.display());
            }
            Ok(())
        }
        Err(e) => {
            // A partial listing helps most when the image is broken; it never replaces an output file.
            if args.output.is_none() {
                io::write_output(None, listing.as_bytes())?;
            }
            Err(CliError::failed(format!("{name}: {e}")))
        }
    }
}
