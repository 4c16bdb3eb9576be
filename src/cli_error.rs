//! Errors of the command-line tool and the one place that maps them to exit codes.

use std::io::Write;
use std::process::ExitCode;

/// A failed command: what to print and how to exit.
#[derive(Debug)]
pub enum CliError {
    /// An error of the work itself: `Error: MESSAGE` (plus optional detail lines), exit 1.
    Failed {
        /// The first line, after `Error: `.
        message: String,
        /// Further lines (a source excerpt with a caret), printed as they are.
        detail: Option<String>,
    },
    /// The binary was built without a feature the command needs: the given lines, exit 2.
    MissingFeature(Vec<String>),
}

impl CliError {
    /// An error of the work itself.
    pub fn failed(message: impl Into<String>) -> Self {
        CliError::Failed { message: message.into(), detail: None }
    }

    /// An error of the work itself with extra lines below the message.
    pub fn with_detail(message: impl Into<String>, detail: Option<String>) -> Self {
        CliError::Failed { message: message.into(), detail }
    }

    /// Prints the error to standard error and returns the exit code.
    pub fn report(&self) -> ExitCode {
        let mut stderr = std::io::stderr().lock();
        match self {
            CliError::Failed { message, detail } => {
                let _ = writeln!(stderr, "Error: {message}");
                if let Some(detail) = detail {
                    let _ = write!(stderr, "{detail}");
                }
                ExitCode::from(1)
            }
            CliError::MissingFeature(lines) => {
                for line in lines {
                    let _ = writeln!(stderr, "{line}");
                }
                ExitCode::from(2)
            }
        }
    }
}
