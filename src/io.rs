//! File plumbing: capped input reads (`-` is standard input), the same-file
//! check, and atomic output (write a temporary file beside the target, then
//! rename), so a failing command never creates, truncates or replaces its output.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::cli_error::CliError;

/// The largest input accepted (AST JSON's own limit; text and binary inputs share it).
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

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

/// Reads at most `limit + 1` bytes of `path` (or standard input), refusing larger inputs.
pub fn read_input(path: &Path, limit: usize) -> Result<Vec<u8>, CliError> {
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
        return Err(CliError::failed(format!("{name} exceeds the input limit of {limit} bytes")));
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

/// Writes `bytes` to standard output (`None` or `-`) or atomically to a file.
/// Returns the path written, if any.
pub fn write_output(output: Option<&Path>, bytes: &[u8]) -> Result<Option<PathBuf>, CliError> {
    write_output_with(output, |w| w.write_all(bytes))
}

/// Like [`write_output`], with the content produced by `produce` as it writes
/// (a large output then never exists in memory as a whole).
pub fn write_output_with(
    output: Option<&Path>,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<Option<PathBuf>, CliError> {
    match output {
        Some(path) if !is_stdio(path) => {
            write_atomically(path, produce)
                .map_err(|e| CliError::failed(format!("failed to write {}: {e}", path.display())))?;
            Ok(Some(path.to_path_buf()))
        }
        _ => {
            write_stdout(produce)?;
            Ok(None)
        }
    }
}

fn write_stdout(produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match produce(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`whale ir print x | head`) is not worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::failed(format!("failed to write standard output: {e}"))),
    }
}

/// Writes beside the target and renames over it; on any error the temporary
/// file is removed and the target is untouched. The result has the mode a
/// plain `File::create` would leave: a replaced file's own, or for a new file
/// the default less the umask (temporary files are created owner-only).
pub fn write_atomically(
    path: &Path,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if path.is_dir() {
        return Err(std::io::Error::other("is a directory"));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let existing = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(".whale-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The kernel applies the umask to this mode, as it does for `File::create`.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    if let Some(permissions) = existing {
        tmp.as_file().set_permissions(permissions)?;
    }
    produce(&mut tmp)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
