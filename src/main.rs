//! `whale`: the command-line front end of the Whale IR toolkit.
//!
//! Each subcommand is a short function in [`commands`] that calls library code;
//! plumbing lives in [`io`] and [`input`] (reading, format detection), [`output`]
//! (`-o`: atomic replacement, special files) and [`console`] (every write to
//! standard output and error), error rendering plus exit codes in [`cli_error`].
//! Exit codes: 0 success, 1 an error of the work itself (`Error: …` on stderr),
//! 2 usage errors (clap's convention) and a missing build feature, 141 when
//! standard output's reader went away (`docs/cli.md`).

/// The binary's allocator (the libraries keep the caller's): see the `mimalloc` feature.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli_error;
mod commands;
mod console;
#[cfg(feature = "socket-cli")]
mod diagnostics;
mod input;
mod io;
mod output;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// Whale: a typed SSA compiler IR toolkit.
#[derive(Parser, Debug)]
#[command(name = "whale", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Largest input accepted, in bytes, for every input kind (default: 8 MiB for AST JSON and IR text, 64 MiB
    /// for binary inputs); the text readers' count limits scale with it.
    #[arg(long, global = true, value_name = "BYTES")]
    max_input_bytes: Option<usize>,
    /// Threads for per-function work such as verification (default: $WHALE_THREADS, else one per core; 1 is
    /// sequential). Output never depends on it.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Work with Whale IR: lower AST JSON, verify, print, convert, run.
    #[command(subcommand)]
    Ir(IrCommand),
    /// Inspect FR2E images (Whale's binary IR).
    #[command(subcommand)]
    Fr2e(Fr2eCommand),
    /// Inspect LLVM 1.3 bytecode.
    #[command(subcommand)]
    Llvm13(Llvm13Command),
}

#[derive(Subcommand, Debug)]
enum Llvm13Command {
    /// List a bytecode file's blocks and instructions with byte offsets, or its LLVM 1.3 assembly (`--disasm`).
    Dump(Llvm13DumpArgs),
}

#[derive(Subcommand, Debug)]
enum Fr2eCommand {
    /// List an image's TLV tree, string table, entries, VOPs and traces with byte offsets.
    Dump(DumpArgs),
}

#[derive(Subcommand, Debug)]
enum IrCommand {
    /// Lower an AST JSON (format 2) program to IR at O0 and print it.
    Lower(LowerArgs),
    /// Verify a module (AST JSON, IR text, FR2E or LLVM 1.3 bytecode) and report the first error.
    Verify(VerifyArgs),
    /// Verify a module and print it as IR text.
    Print(PrintArgs),
    /// Convert a module between IR text, FR2E and LLVM 1.3 bytecode (any input kind is accepted).
    Convert(ConvertArgs),
    /// Run a function of a verified module in the interpreter and print its result.
    Run(RunArgs),
}

/// Arguments of `whale ir lower`.
#[derive(Args, Debug)]
struct LowerArgs {
    /// Input AST JSON file, or `-` for standard input.
    input: PathBuf,
    /// Write the IR to this file (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Target triple.
    #[arg(long, default_value = "x86_64-whale-linux", value_name = "T")]
    target: String,
    /// Skip verification of the lowered module.
    #[arg(long)]
    no_verify: bool,
    /// Output format: `wir` (IR text) or `fr2e` (binary IR).
    #[arg(long, default_value = "wir", value_parser = ["wir", "fr2e"], value_name = "FORMAT")]
    emit: String,
}

/// Arguments of `whale ir convert`.
#[derive(Args, Debug)]
struct ConvertArgs {
    /// Input file (AST JSON, IR text, FR2E or LLVM 1.3 bytecode), or `-` for standard input.
    input: PathBuf,
    /// Output file (written atomically), or `-` for standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
    /// Output format; inferred from a `.wir`, `.fr2e` or `.bc` extension of OUT when absent.
    #[arg(long, value_parser = ["wir", "fr2e", "llvm13"], value_name = "FORMAT")]
    to: Option<String>,
    /// Store an FR2E image's strings LZ4-compressed (`strz`).
    #[arg(long)]
    compress_strings: bool,
}

/// Arguments of `whale fr2e dump`.
#[derive(Args, Debug)]
struct DumpArgs {
    /// Input FR2E image, or `-` for standard input.
    input: PathBuf,
    /// Write the listing to this file (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
}

/// Arguments of `whale llvm13 dump`.
#[derive(Args, Debug)]
struct Llvm13DumpArgs {
    /// Input LLVM 1.x bytecode, or `-` for standard input.
    input: PathBuf,
    /// Write the listing to this file (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Print the module as LLVM 1.3 assembly text instead of the block listing.
    #[arg(long)]
    disasm: bool,
}

/// Arguments of `whale ir verify`.
#[derive(Args, Debug)]
struct VerifyArgs {
    /// Input file (AST JSON, IR text, FR2E or LLVM 1.3 bytecode), or `-` for standard input.
    input: PathBuf,
}

/// Arguments of `whale ir print`.
#[derive(Args, Debug)]
struct PrintArgs {
    /// Input file (AST JSON, IR text, FR2E or LLVM 1.3 bytecode), or `-` for standard input.
    input: PathBuf,
    /// Write the IR to this file (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Text format version to write (2: format 2 when exact, else 4; 4: always format 4). Default: the input's
    /// family (format-3/4 text prints as format 4, other inputs as with 2).
    #[arg(long, value_parser = ["2", "4"])]
    format: Option<String>,
}

/// Arguments of `whale ir run`.
#[derive(Args, Debug)]
struct RunArgs {
    /// Input file (AST JSON, IR text, FR2E or LLVM 1.3 bytecode), or `-` for standard input.
    input: PathBuf,
    /// The function to run: `@fN` or its name.
    #[arg(long, value_name = "@fN|NAME")]
    function: String,
    /// An argument, spelled as an IR constant of the parameter's type (repeat in order).
    #[arg(long = "arg", value_name = "LIT", allow_hyphen_values = true)]
    args: Vec<String>,
    /// Step limit (default 1000000).
    #[arg(long, value_name = "N")]
    max_steps: Option<u64>,
    /// Tracked-memory limit in bytes (default 67108864).
    #[arg(long, value_name = "BYTES")]
    max_memory: Option<u64>,
    /// Call depth limit (default 10000).
    #[arg(long, value_name = "N")]
    max_call_depth: Option<u32>,
    /// Live allocation limit (default 16384).
    #[arg(long, value_name = "N")]
    max_allocations: Option<u64>,
    /// Value stack limit in 8-byte slots, all frames together (default 16777216).
    #[arg(long, value_name = "N")]
    max_stack_slots: Option<u64>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return report_usage(&error),
    };
    if let Some(limit) = cli.max_input_bytes {
        io::set_max_input_bytes(limit);
    }
    if let Err(error) = configure_threads(cli.threads) {
        return error.report();
    }
    let result = match cli.command {
        Command::Ir(IrCommand::Lower(args)) => commands::ir_lower::run(&args),
        Command::Ir(IrCommand::Verify(args)) => commands::ir_verify::run(&args),
        Command::Ir(IrCommand::Print(args)) => commands::ir_print::run(&args),
        Command::Ir(IrCommand::Run(args)) => commands::ir_run::run(&args),
        Command::Ir(IrCommand::Convert(args)) => commands::ir_convert::run(&args),
        Command::Fr2e(Fr2eCommand::Dump(args)) => commands::fr2e_dump::run(&args),
        Command::Llvm13(Llvm13Command::Dump(args)) => commands::llvm13_dump::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => error.report(),
    }
}

/// Sizes the thread pool that per-function work runs on: `--threads`, else
/// `WHALE_THREADS`, else rayon's default (one thread per core).
fn configure_threads(flag: Option<u16>) -> Result<(), cli_error::CliError> {
    let threads = match (flag, std::env::var("WHALE_THREADS")) {
        (Some(n), _) => usize::from(n),
        (None, Ok(text)) => match text.trim().parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(cli_error::CliError::failed(format!(
                    "WHALE_THREADS must be a number of threads ≥ 1, not {text:?}"
                )))
            }
        },
        (None, Err(_)) => return Ok(()),
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| cli_error::CliError::failed(format!("cannot start {threads} threads: {e}")))
}

/// Prints clap's help, version or usage error through the console: help and
/// version to standard output (exit 0, or the failed write's status), errors to
/// standard error (exit 2).
fn report_usage(error: &clap::Error) -> ExitCode {
    use std::io::IsTerminal;
    let to_stdout = !error.use_stderr();
    let terminal = if to_stdout { std::io::stdout().is_terminal() } else { std::io::stderr().is_terminal() };
    let styled = error.render();
    let text = if terminal { styled.ansi().to_string() } else { styled.to_string() };
    if !to_stdout {
        let _ = console::error_text(&text);
        return ExitCode::from(2);
    }
    let mut out = std::io::stdout().lock();
    match std::io::Write::write_all(&mut out, text.as_bytes()).and_then(|()| std::io::Write::flush(&mut out)) {
        Ok(()) => ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(0)),
        Err(e) => console::stdout_error(e).report(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
