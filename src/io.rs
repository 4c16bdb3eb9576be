//! Input plumbing: capped input reads (`-` is standard input) and the check that
//! an output is not the input. Output is [`crate::output`]'s.
//!
//! The input size limit is a setting of the whole process: the global
//! `--max-input-bytes`, set once by `main` before any command runs. Without it,
//! each input kind keeps its reader's default (`docs/cli.md`, "Limits").

use std::fs;
use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use crate::cli_error::CliError;

/// The largest input read without `--max-input-bytes` (binary inputs are bounded by it alone).
pub const DEFAULT_MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

static MAX_INPUT_BYTES: OnceLock<usize> = OnceLock::new();

/// Sets the `--max-input-bytes` limit (once; later calls change nothing).
pub fn set_max_input_bytes(limit: usize) {
    let _ = MAX_INPUT_BYTES.set(limit);
}

/// The `--max-input-bytes` limit, if one was given.
pub fn max_input_bytes() -> Option<usize> {
    MAX_INPUT_BYTES.get().copied()
}

/// The display name of an input path (`<stdin>` for `-`).
pub fn input_name(path: &Path) -> String {
    if is_stdio(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads at most `limit + 1` bytes of `path` (or standard input), refusing
/// larger inputs; `limit` is `--max-input-bytes`, else [`DEFAULT_MAX_INPUT_BYTES`].
pub fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    let limit = max_input_bytes().unwrap_or(DEFAULT_MAX_INPUT_BYTES);
    let name = input_name(path);
    let fail = |e: std::io::Error| CliError::failed(format!("failed to read {name}: {e}"));
    let mut bytes = Vec::new();
    let cap = limit as u64 + 1;
    if is_stdio(path) {
        std::io::stdin().lock().take(cap).read_to_end(&mut bytes).map_err(fail)?;
    } else {
        fs::File::open(path).and_then(|f| f.take(cap).read_to_end(&mut bytes)).map_err(fail)?;
    }
    if bytes.len() > limit {
        return Err(CliError::failed(format!(
            "{name} exceeds the input limit of {limit} bytes (raise it with --max-input-bytes)"
        )));
    }
    Ok(bytes)
}

/// Refuses an output path that is the input, or a hard or symbolic link to it.
pub fn check_not_same_file(input: &Path, output: &Path) -> Result<(), CliError> {
    if is_stdio(input) || is_stdio(output) {
        return Ok(());
    }
    let (Ok(a), Ok(b)) = (fs::metadata(input), fs::metadata(output)) else { return Ok(()) };
    if same_file(&a, &b) {
        return Err(CliError::failed(format!(
            "output {} is the same file as input {}; refusing to overwrite the input",
            output.display(),
            input.display()
        )));
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_a: &fs::Metadata, _b: &fs::Metadata) -> bool {
    false
}
