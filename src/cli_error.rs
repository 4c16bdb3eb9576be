//! Errors of the command-line tool and the one place that maps them to exit codes.

use std::process::ExitCode;

use crate::console;

/// The exit status after standard output was closed by its reader (128 + SIGPIPE, as a shell shows it).
pub const BROKEN_PIPE_STATUS: u8 = 141;

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
    /// Standard output's reader went away (`EPIPE`): nothing to print, exit 141.
    BrokenPipe,
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

    /// Prints the error to standard error and returns the exit code. A failure to
    /// write standard error changes nothing: the status still says what happened.
    pub fn report(&self) -> ExitCode {
        match self {
            CliError::Failed { message, detail } => {
                let _ = console::error_text(&format!("Error: {message}\n{}", detail.as_deref().unwrap_or("")));
                ExitCode::from(1)
            }
            CliError::MissingFeature(lines) => {
                let _ = console::error_text(&lines.iter().map(|line| format!("{line}\n")).collect::<String>());
                ExitCode::from(2)
            }
            CliError::BrokenPipe => ExitCode::from(BROKEN_PIPE_STATUS),
        }
    }
}
