//! One file per subcommand; each is a few lines of library calls.

pub mod fr2e_dump;
pub mod ir_convert;
pub mod ir_lower;
pub mod ir_print;
pub mod ir_run;
pub mod ir_verify;
pub mod llvm13_dump;

use crate::cli_error::CliError;

/// The error of a command that needs the `socket-cli` feature in a build without it.
#[cfg_attr(feature = "socket-cli", allow(dead_code))]
pub fn missing_socket_feature(command: &str) -> CliError {
    CliError::MissingFeature(vec![
        format!("Error: 'whale {command}' requires feature 'socket-cli'."),
        format!("Build/run with: cargo run -p whale --features socket-cli -- {command} ..."),
    ])
}
