//! Errors of the Whale mapping: a construct one side cannot express, named with its location, or a problem of the
//! bytes or of the resulting module.

use crate::format::{ReadError, WriteError};

/// Why a Whale module could not be written as LLVM 1.3 bytecode, or bytecode could not be read as a Whale module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MapError {
    /// A Whale construct LLVM 1.3 cannot express (writing).
    #[error("{construct} at {location} has no LLVM 1.3 equivalent")]
    NoLlvmEquivalent {
        /// The construct, e.g. "type i128" or "instruction `extract`".
        construct: String,
        /// Where it occurs, e.g. "function @f, block %entry, instruction 3".
        location: String,
    },
    /// An LLVM construct Whale IR cannot express (reading).
    #[error("{construct} at {location} has no Whale IR equivalent")]
    NoWhaleEquivalent {
        /// The construct, e.g. "instruction `invoke`".
        construct: String,
        /// Where it occurs, e.g. "function 2 (`main`), block 0, instruction 4".
        location: String,
    },
    /// The bytes are not LLVM 1.x bytecode.
    #[error("{0}")]
    Read(#[from] ReadError),
    /// The format layer refused the model the mapping built.
    #[error("{0}")]
    Write(#[from] WriteError),
    /// The module read from the bytecode is not valid Whale IR.
    #[error("the module read from LLVM 1.3 bytecode does not verify: {0}")]
    Verify(Box<ir::VerifyError>),
}

impl MapError {
    pub(crate) fn no_llvm(construct: impl Into<String>, location: impl Into<String>) -> Self {
        MapError::NoLlvmEquivalent { construct: construct.into(), location: location.into() }
    }

    pub(crate) fn no_whale(construct: impl Into<String>, location: impl Into<String>) -> Self {
        MapError::NoWhaleEquivalent { construct: construct.into(), location: location.into() }
    }
}
