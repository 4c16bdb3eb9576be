//! Errors of the interpreter: traps (the program did something semantics 1
//! defines as a trap), limits (the embedder's budget ran out), and misuse of the
//! API (unknown functions, wrong arguments, modules that do not verify).
//!
//! Context is carried in fields; `Display` builds upstream's sentences
//! (whale-upstream §g.1): `trap at @f1 %b1 instruction 5 (%v7): "integer
//! overflow" (after 6 steps)`, `interpreter step limit 10 reached at …`.

use std::fmt;

use ir::{BlockId, FunctionId, ValueId};

/// An IR location: function, block, instruction index within the block (0-based;
/// a block's phis come first, its terminator last) and the value it defines.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Site {
    /// The function (declaration identity).
    pub function: FunctionId,
    /// The block.
    pub block: BlockId,
    /// The instruction's index within its block.
    pub inst: u32,
    /// The value the instruction defines, if any.
    pub value: Option<ValueId>,
}

/// Writes `@f7 %b11 instruction 3 (%v8)`.
impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} instruction {}", self.function, self.block, self.inst)?;
        if let Some(v) = self.value {
            write!(f, " ({v})")?;
        }
        Ok(())
    }
}

/// A violation of tracked memory (whale-upstream §g.2), in the order accesses
/// are checked.
#[derive(Clone, PartialEq, Eq, Hash, Debug, thiserror::Error)]
pub enum MemoryTrap {
    /// Access through address 0.
    #[error("null pointer access")]
    NullPointer,
    /// Access through a pointer without provenance (for example from `inttoptr`).
    #[error("pointer has no tracked allocation provenance")]
    MissingProvenance,
    /// The allocation died (its frame returned) or its slot was reused.
    #[error("allocation lifetime has ended")]
    ExpiredAllocation,
    /// The accessed range, or a `gep` result, leaves the allocation.
    #[error("pointer range is outside its allocation")]
    OutOfBounds,
    /// Address arithmetic left the 64-bit address space.
    #[error("64-bit address arithmetic overflow")]
    AddressOverflow,
    /// A read of write-only memory or a write of read-only memory.
    #[error("pointer access permission denied")]
    PermissionDenied,
    /// The address is not a multiple of the access's alignment.
    #[error("address {address:#x} does not satisfy alignment {alignment}")]
    Misaligned {
        /// The address.
        address: u64,
        /// The required alignment.
        alignment: u64,
    },
    /// A loaded byte was never initialised (or was made uninitialised).
    #[error("uninitialized byte at allocation offset {offset}")]
    Uninitialized {
        /// Offset of the first such byte from the start of its allocation.
        offset: u64,
    },
    /// A `bool` was loaded from a byte other than 0 or 1.
    #[error("invalid Bool storage byte {byte:#04x}")]
    InvalidBool {
        /// The byte.
        byte: u8,
    },
    /// `memcpy` between overlapping ranges of one allocation.
    #[error("overlapping memcpy ranges")]
    OverlappingCopy,
}

/// Why execution trapped.
#[derive(Clone, PartialEq, Eq, Hash, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrapReason {
    /// `sdiv`/`udiv` by zero.
    #[error("division by zero")]
    DivisionByZero,
    /// `srem`/`urem` by zero.
    #[error("remainder by zero")]
    RemainderByZero,
    /// `ftoi_s`/`ftoi_u` of a NaN.
    #[error("float-to-integer conversion of NaN")]
    FloatToIntNaN,
    /// `ftoi_s`/`ftoi_u` of an infinity.
    #[error("float-to-integer conversion of infinity")]
    FloatToIntInfinite,
    /// `ftoi_s`/`ftoi_u` whose truncated value does not fit the result type.
    #[error("float-to-integer conversion out of range")]
    FloatToIntOutOfRange,
    /// `trap` or `trap_if` with its reason (shown quoted, as upstream does).
    #[error("{0:?}")]
    Explicit(String),
    /// A tracked-memory violation.
    #[error("{0}")]
    Memory(MemoryTrap),
    /// An indirect call through `null_function` (or a zero address).
    #[error("call through a null function pointer")]
    NullFunctionPointer,
    /// An indirect call through an address that is no function of the module.
    #[error("call through invalid function pointer {address:#x}")]
    InvalidFunctionPointer {
        /// The address.
        address: u64,
    },
    /// An indirect call whose pointer type's signature differs from the callee's.
    #[error("call through a function pointer of type fnptr<{expected}> to {callee}, whose signature is {actual}")]
    SignatureMismatch {
        /// The function the pointer designates.
        callee: FunctionId,
        /// The signature of the call (the pointer's type).
        expected: String,
        /// The callee's declared signature.
        actual: String,
    },
    /// A call to an external declaration without a body and without a host function.
    #[error("call to unbound external function {link_name:?}")]
    UnboundExternal {
        /// Its link name.
        link_name: String,
    },
    /// A host function reported an error.
    #[error("host function {link_name:?} failed: {message}")]
    Host {
        /// Its link name.
        link_name: String,
        /// What it reported.
        message: String,
    },
    /// A host function returned a value that does not have the declared type.
    #[error("host function {link_name:?} returned a value that is not a {expected}")]
    HostResult {
        /// Its link name.
        link_name: String,
        /// The declared return type.
        expected: String,
    },
    /// An instruction that has no execution semantics (`undef`), or a phi without
    /// an input for the edge taken; the verifier rejects both.
    #[error("instruction cannot be executed: {0}")]
    NotExecutable(&'static str),
}

/// A trap: the reason, where it happened and how many steps ran (the trapping
/// operation included).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Trap {
    /// Why.
    pub reason: TrapReason,
    /// Where.
    pub site: Site,
    /// Steps executed, counting the trapping operation.
    pub steps: u64,
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trap at {}: {} (after {} steps)", self.site, self.reason, self.steps)
    }
}

/// Which limit ran out.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum LimitKind {
    /// Executed operations (fuel).
    Steps,
    /// Active call frames.
    CallDepth,
    /// Bytes of tracked memory in use (allocations, alignment padding, red zones).
    MemoryBytes,
    /// Live allocations.
    Allocations,
    /// Frame slots of the value stack (8 bytes each).
    StackSlots,
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LimitKind::Steps => "step",
            LimitKind::CallDepth => "call depth",
            LimitKind::MemoryBytes => "memory bytes",
            LimitKind::Allocations => "memory allocations",
            LimitKind::StackSlots => "value stack slot",
        })
    }
}

/// A limit was reached before the operation at `site` could run.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LimitExceeded {
    /// Which limit.
    pub kind: LimitKind,
    /// Its configured value.
    pub limit: u64,
    /// The operation that would have exceeded it.
    pub site: Site,
    /// Steps executed before stopping (for [`LimitKind::Steps`], exactly the limit).
    pub steps: u64,
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "interpreter {} limit {} reached at {}", self.kind, self.limit, self.site)
    }
}

/// The host could not provide memory the program asked for (within the limits
/// the embedder set): an error of the run, not a trap of the program.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OutOfMemory {
    /// What was being allocated.
    pub what: &'static str,
    /// The size asked for, in bytes.
    pub bytes: u64,
    /// The operation that asked.
    pub site: Site,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "out of memory while allocating {} bytes of {} at {}", self.bytes, self.what, self.site)
    }
}

/// Why [`crate::Interpreter::allocate`] could not allocate.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum AllocateError {
    /// A limit of the interpreter's options would be exceeded.
    #[error("interpreter {0} limit reached")]
    Limit(LimitKind),
    /// The host could not provide the memory.
    #[error("out of memory while allocating {bytes} bytes of tracked memory")]
    OutOfMemory {
        /// The arena size asked for.
        bytes: u64,
    },
}

/// Why a call did not return a value.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The program trapped.
    #[error("{0}")]
    Trap(Box<Trap>),
    /// A limit was reached.
    #[error("{0}")]
    Limit(Box<LimitExceeded>),
    /// The host ran out of memory below the limits.
    #[error("{0}")]
    OutOfMemory(Box<OutOfMemory>),
    /// No declaration has this name.
    #[error("no function named {0:?}")]
    UnknownFunctionName(String),
    /// No declaration has this identity.
    #[error("no function {0}")]
    UnknownFunction(FunctionId),
    /// The function is an external declaration with neither a body nor a host function.
    #[error("no body for function {function} and no host function bound to {link_name:?}")]
    NoBody {
        /// The function.
        function: FunctionId,
        /// Its link name (empty if it has none).
        link_name: String,
    },
    /// Wrong number of arguments.
    #[error("expected {expected} arguments, got {got}")]
    ArgumentCount {
        /// Parameters of the function.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
    /// An argument does not have its parameter's type.
    #[error("argument {index} must be a {expected} value")]
    ArgumentType {
        /// 0-based argument index.
        index: usize,
        /// The parameter type in IR spelling.
        expected: String,
    },
    /// The function could not be translated (for example a value too large for
    /// the frame representation).
    #[error("function {function} cannot be executed: {reason}")]
    Unsupported {
        /// The function.
        function: FunctionId,
        /// Why.
        reason: String,
    },
}

impl ExecError {
    /// The trap, if this is one.
    pub fn as_trap(&self) -> Option<&Trap> {
        match self {
            ExecError::Trap(t) => Some(t),
            _ => None,
        }
    }

    /// The exceeded limit, if this is one.
    pub fn as_limit(&self) -> Option<&LimitExceeded> {
        match self {
            ExecError::Limit(l) => Some(l),
            _ => None,
        }
    }
}

/// Why [`crate::Interpreter::new`] refused a module.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The module does not verify.
    #[error("verify failed: {0}")]
    Verify(Box<ir::VerifyError>),
}

/// Why a host function could not be bound.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BindError {
    /// No external declaration has this link name.
    #[error("no external declaration has link name {0:?}")]
    UnknownLinkName(String),
    /// The declaration with this link name has a body, which calls always run.
    #[error("the function with link name {0:?} has a body")]
    HasBody(String),
}

/// An error reported by a host function; it becomes [`TrapReason::Host`].
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{0}")]
pub struct HostError(pub String);

impl From<MemoryTrap> for HostError {
    fn from(trap: MemoryTrap) -> Self {
        HostError(trap.to_string())
    }
}
