//! `whale llvm13 dump <IN> [-o OUT] [--disasm]`.

use crate::cli_error::CliError;
use crate::console::outln;
use crate::output::{self, Failure};
use crate::{io, Llvm13DumpArgs};

/// Streams the annotated block listing of LLVM 1.3 bytecode, or with `--disasm`
/// its LLVM 1.3 assembly text. On a malformed file the block listing up to the
/// problem goes to standard output (or a special file), then the error; a file
/// named by `-o` is left untouched. The disassembly needs the whole file read first.
pub fn run(args: &Llvm13DumpArgs) -> Result<(), CliError> {
    if let Some(out) = &args.output {
        io::check_not_same_file(&args.input, out)?;
    }
    let bytes = io::read_input(&args.input)?;
    let name = io::input_name(&args.input);
    let malformed = |e: llvm13::ReadError| CliError::failed(format!("{name}: {e}"));
    let written = if args.disasm {
        let module = llvm13::read_module(&bytes).map_err(malformed)?;
        output::write_output_with(args.output.as_deref(), |w| Ok(llvm13::disasm(&module, w)?))?
    } else {
        output::write_output_with(args.output.as_deref(), |w| {
            llvm13::dump(&bytes, w).map_err(|e| match e {
                llvm13::DumpError::Io(e) => Failure::Write(e),
                llvm13::DumpError::Read(e) => Failure::Work(malformed(e)),
                other => Failure::Work(CliError::failed(format!("{name}: {other}"))),
            })
        })?
    };
    if let Some(path) = written {
        outln!("Wrote listing to {}", path.display())?;
    }
    Ok(())
}
