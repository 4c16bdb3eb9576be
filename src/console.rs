//! Standard output and standard error: the one fallible path for everything
//! the CLI prints (no `println!`, which panics when the write fails).
//!
//! A write to standard output that fails with `EPIPE` (the reader went away:
//! `whale ir run x | head -c1`) ends the command quietly with status 141, the
//! status a shell shows for `cat` killed by `SIGPIPE` (128 + 13); the process
//! exits normally with that code rather than by the signal. Any other failure
//! (`> /dev/full`) is `Error: failed to write standard output: …`, status 1.
//! Standard error is where those messages go; when it fails too there is no one
//! left to tell, and only the exit status reports the failure.

use std::cell::RefCell;
use std::fmt;
use std::io::{self, Write};
use std::rc::Rc;

use crate::cli_error::CliError;

/// Writes `args` and a newline to standard output, flushed.
pub fn line(args: fmt::Arguments<'_>) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_fmt(args).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush()).map_err(stdout_error)
}

/// Writes `text` to standard error as it is; the result says whether that worked.
pub fn error_text(text: &str) -> io::Result<()> {
    let mut err = io::stderr().lock();
    err.write_all(text.as_bytes()).and_then(|()| err.flush())
}

/// Writes `args` and a newline to standard output: `outln!("Wrote IR to {}", path)?`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::console::line(format_args!($($arg)*))
    };
}
pub(crate) use outln;

/// The command's error for a failed write to standard output.
pub fn stdout_error(error: io::Error) -> CliError {
    if error.kind() == io::ErrorKind::BrokenPipe {
        CliError::BrokenPipe
    } else {
        CliError::failed(format!("failed to write standard output: {error}"))
    }
}

/// Standard output for code that takes a `Box<dyn Write>` and reports write
/// failures in its own terms (the interpreter turns them into a host-function
/// trap): the first failure is also kept here, so the command can report it as
/// a failed write to standard output instead.
#[derive(Clone, Default)]
pub struct TrackedStdout {
    failure: Rc<RefCell<Option<io::Error>>>,
}

impl TrackedStdout {
    /// The error of the first failed write or flush, if any (taken: asked again, `None`).
    pub fn take_failure(&self) -> Option<io::Error> {
        self.failure.borrow_mut().take()
    }

    fn track<T>(&self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result {
            let mut failure = self.failure.borrow_mut();
            if failure.is_none() {
                *failure = Some(io::Error::new(e.kind(), e.to_string()));
            }
        }
        result
    }
}

impl Write for TrackedStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = io::stdout().lock().write(buf);
        self.track(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = io::stdout().lock().flush();
        self.track(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipe_is_quiet_and_other_errors_are_reported() {
        assert!(matches!(stdout_error(io::Error::from(io::ErrorKind::BrokenPipe)), CliError::BrokenPipe));
        match stdout_error(io::Error::other("disk full")) {
            CliError::Failed { message, .. } => assert_eq!(message, "failed to write standard output: disk full"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn tracked_stdout_keeps_the_first_failure() {
        let sink = TrackedStdout::default();
        let _ = sink.track::<()>(Err(io::Error::from(io::ErrorKind::BrokenPipe)));
        let _ = sink.track::<()>(Err(io::Error::other("later")));
        assert_eq!(sink.take_failure().map(|e| e.kind()), Some(io::ErrorKind::BrokenPipe));
        assert!(sink.take_failure().is_none());
    }
}
