//! Where `-o PATH` writes, and how, so that a failing command never creates,
//! truncates or replaces its output, and no command ever removes a file that is
//! not an ordinary file.
//!
//! | `PATH` is | written |
//! | --- | --- |
//! | `-` or `/dev/stdout` | to standard output |
//! | new, or an existing regular file | to a temporary file beside it, renamed over it on success |
//! | a symbolic link (chain) ending at a regular file, or at nothing | the same, at the end of the chain; the links stay |
//! | a character or block device, a FIFO, a socket | opened and written directly, never removed |
//! | a directory | refused |
//!
//! A replaced file keeps its permissions; a new file gets the mode `File::create`
//! would give it (the default less the umask). Writing directly cannot be undone:
//! what was written before an error stays written, as on standard output. Links
//! that the kernel resolves by itself (`/proc/self/fd/N` and the `/dev/fd` names
//! pointing there) name an open file, not a path: a chain through `/proc` is written
//! directly, by opening the name given, which is what a shell's `>` would do.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::cli_error::CliError;
use crate::console;

/// Symbolic links followed before giving up, as the kernel's `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// How an output path is written.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Target {
    /// Standard output.
    Stdout,
    /// A regular file (which may not exist yet), written by temporary file and rename.
    Replace(PathBuf),
    /// A file that must not be replaced (a device, a FIFO, a socket), opened and written in place.
    Direct {
        /// The name given (a chain through `/proc` is opened by that name).
        path: PathBuf,
        /// Whether the open truncates (a regular file reached through `/proc`).
        truncate: bool,
    },
}

/// True for the output name of standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-" || path.as_os_str() == "/dev/stdout"
}

/// Why producing an output stopped.
#[derive(Debug)]
pub enum Failure {
    /// Writing failed; reported against the output (a file, or standard output).
    Write(io::Error),
    /// The work itself failed part way (a malformed input found while listing it):
    /// a file output is left untouched, standard output and special files keep
    /// what was written.
    Work(CliError),
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Write(error)
    }
}

/// Writes `bytes` to standard output (`None`, `-`) or to the file `output`.
/// Returns the path written, if it was not standard output.
pub fn write_output(output: Option<&Path>, bytes: &[u8]) -> Result<Option<PathBuf>, CliError> {
    write_output_with(output, |w| Ok(w.write_all(bytes)?))
}

/// Like [`write_output`], with the content produced by `produce` as it writes
/// (a large output then never exists in memory as a whole).
pub fn write_output_with(
    output: Option<&Path>,
    produce: impl FnOnce(&mut dyn Write) -> Result<(), Failure>,
) -> Result<Option<PathBuf>, CliError> {
    let target = match output {
        None => Target::Stdout,
        Some(path) => target_of(path).map_err(|e| write_error(path, e))?,
    };
    let result = match &target {
        Target::Stdout => {
            let mut out = io::stdout().lock();
            finish(produce(&mut out), &mut out)
        }
        Target::Replace(file) => write_atomically(file, produce),
        Target::Direct { path, truncate } => write_directly(path, *truncate, produce),
    };
    match (result, output) {
        (Ok(()), _) if target == Target::Stdout => Ok(None),
        (Ok(()), path) => Ok(path.map(Path::to_path_buf)),
        (Err(Failure::Work(error)), _) => Err(error),
        (Err(Failure::Write(error)), Some(path)) if target != Target::Stdout => Err(write_error(path, error)),
        (Err(Failure::Write(error)), _) => Err(console::stdout_error(error)),
    }
}

fn write_error(path: &Path, error: io::Error) -> CliError {
    CliError::failed(format!("failed to write {}: {error}", path.display()))
}

/// Flushes what `produced` left in `out`, also when the work failed part way (the
/// work's error then wins over a failed flush).
fn finish(produced: Result<(), Failure>, out: &mut dyn Write) -> Result<(), Failure> {
    let flushed = out.flush();
    produced?;
    Ok(flushed?)
}

/// Decides how `path` is written (see the module doc).
fn target_of(path: &Path) -> io::Result<Target> {
    if is_stdout(path) {
        return Ok(Target::Stdout);
    }
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let metadata = match fs::symlink_metadata(&current) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::Replace(current)),
            Err(e) => return Err(e),
        };
        let kind = metadata.file_type();
        if kind.is_symlink() {
            if names_open_file(&current) {
                let regular = fs::metadata(path).is_ok_and(|m| m.is_file());
                return Ok(Target::Direct { path: path.to_path_buf(), truncate: regular });
            }
            let link = fs::read_link(&current)?;
            current = match current.parent() {
                Some(parent) => parent.join(link),
                None => link,
            };
        } else if kind.is_file() {
            return Ok(Target::Replace(current));
        } else if kind.is_dir() {
            return Err(io::Error::other("is a directory"));
        } else {
            return Ok(Target::Direct { path: path.to_path_buf(), truncate: false });
        }
    }
    Err(io::Error::other(format!("more than {MAX_LINKS} levels of symbolic links")))
}

/// Whether `link` lies in `/proc` (directly, or through a linked directory such as `/dev/fd`), where links name
/// open files rather than paths.
fn names_open_file(link: &Path) -> bool {
    let parent = link.parent().and_then(|p| fs::canonicalize(p).ok());
    link.starts_with("/proc") || parent.is_some_and(|p| p.starts_with("/proc"))
}

/// Opens an existing special file and writes to it.
fn write_directly(
    path: &Path,
    truncate: bool,
    produce: impl FnOnce(&mut dyn Write) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let file = fs::OpenOptions::new().write(true).truncate(truncate).open(path)?;
    let mut out = io::BufWriter::with_capacity(64 * 1024, file);
    finish(produce(&mut out), &mut out)
}

/// Writes beside the regular file `path` and renames over it; on any error the
/// temporary file is removed and `path` is untouched. The result has the mode a
/// plain `File::create` would leave: a replaced file's own, or for a new file
/// the default less the umask (temporary files are created owner-only).
fn write_atomically(path: &Path, produce: impl FnOnce(&mut dyn Write) -> Result<(), Failure>) -> Result<(), Failure> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let existing = fs::metadata(path).ok().map(|m| m.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(".whale-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The kernel applies the umask to this mode, as it does for `File::create`.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    if let Some(permissions) = existing {
        tmp.as_file().set_permissions(permissions)?;
    }
    {
        let mut out = io::BufWriter::with_capacity(64 * 1024, tmp.as_file_mut());
        produce(&mut out)?;
        out.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        fs::write(&file, b"x").unwrap();
        let new = dir.path().join("new");
        assert_eq!(target_of(Path::new("-")).unwrap(), Target::Stdout);
        assert_eq!(target_of(Path::new("/dev/stdout")).unwrap(), Target::Stdout);
        assert_eq!(target_of(&file).unwrap(), Target::Replace(file.clone()));
        assert_eq!(target_of(&new).unwrap(), Target::Replace(new.clone()));
        assert_eq!(
            target_of(Path::new("/dev/null")).unwrap(),
            Target::Direct { path: "/dev/null".into(), truncate: false }
        );
        assert!(target_of(dir.path()).is_err());

        // Relative links resolve against their own directory; chains are followed to the end.
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        std::os::unix::fs::symlink("../file", sub.join("up")).unwrap();
        std::os::unix::fs::symlink("sub/up", dir.path().join("chain")).unwrap();
        let resolved = target_of(&dir.path().join("chain")).unwrap();
        assert_eq!(
            fs::canonicalize(match resolved {
                Target::Replace(p) => p,
                other => panic!("{other:?}"),
            })
            .unwrap(),
            fs::canonicalize(&file).unwrap()
        );
        std::os::unix::fs::symlink("missing", dir.path().join("dangling")).unwrap();
        assert_eq!(target_of(&dir.path().join("dangling")).unwrap(), Target::Replace(dir.path().join("missing")));
        std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
        assert!(target_of(&dir.path().join("loop")).is_err());
    }
}
