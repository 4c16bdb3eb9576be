//! The error of [`crate::dump`]: the listing could not be written, or the file is not valid bytecode.

use crate::format::ReadError;

/// Why [`crate::dump`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DumpError {
    /// The writer failed; the `io::Error` is kept as it was (a closed pipe stays `ErrorKind::BrokenPipe`).
    #[error("writing the listing failed: {0}")]
    Io(#[from] std::io::Error),
    /// The file is malformed: the error [`crate::read_module`] gives for it. The listing up to the problem was
    /// written.
    #[error("{0}")]
    Read(#[from] ReadError),
}
