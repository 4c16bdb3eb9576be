//! Host functions: Rust closures bound to external declarations' link names.
//!
//! A call to an external declaration without a body runs the closure bound to
//! its link name, with the arguments converted to [`Value`]s; the closure may
//! read and write tracked memory through the pointers it receives (with every
//! check of an ordinary access) and write to the interpreter's output. Calling
//! an external that nothing is bound to traps, naming it. The standard set
//! (`docs/interp.md`) is what `whale ir run` binds.

use std::io::Write;

use crate::error::{HostError, MemoryTrap};
use crate::memory::{Memory, READ};
use crate::value::{Pointer, Value};

/// A host function: receives the context and the arguments, returns the result
/// (`None` for a `void` declaration) or an error that becomes a trap.
pub type HostFn = Box<dyn FnMut(&mut HostContext<'_>, &[Value]) -> Result<Option<Value>, HostError>>;

/// What a host function may touch while it runs.
pub struct HostContext<'a> {
    pub(crate) memory: &'a mut Memory,
    pub(crate) output: &'a mut dyn Write,
}

impl HostContext<'_> {
    /// Reads `len` initialised bytes at `ptr` (checked like a load).
    pub fn read(&self, ptr: Pointer, len: u64) -> Result<Vec<u8>, MemoryTrap> {
        self.memory.read_bytes(ptr.address, ptr.tag, len)
    }

    /// Writes `bytes` at `ptr` (checked like a store).
    pub fn write(&mut self, ptr: Pointer, bytes: &[u8]) -> Result<(), MemoryTrap> {
        self.memory.write_bytes(ptr.address, ptr.tag, bytes)
    }

    /// Whether `len` bytes at `ptr` are readable (without reading them).
    pub fn can_read(&self, ptr: Pointer, len: u64) -> bool {
        len == 0 || self.memory.check(ptr.address, ptr.tag, len, 1, READ).is_ok()
    }

    /// The interpreter's output (see [`crate::Interpreter::set_output`]).
    pub fn output(&mut self) -> &mut dyn Write {
        self.output
    }
}

/// Link name of the standard function printing an integer of any width and a newline.
pub const PRINT_INT: &str = "whale_print_int";
/// Link name of the standard function printing a float (shortest round-trip decimal) and a newline.
pub const PRINT_FLOAT: &str = "whale_print_float";
/// Link name of the standard function writing `len` bytes at a pointer, unchanged.
pub const PRINT_BYTES: &str = "whale_print_bytes";

fn write_error(e: std::io::Error) -> HostError {
    HostError(format!("cannot write output: {e}"))
}

/// `whale_print_int(x: any integer) -> void`.
pub fn print_int(cx: &mut HostContext<'_>, args: &[Value]) -> Result<Option<Value>, HostError> {
    let text = match args {
        [Value::U128(v)] => v.to_string(),
        [v] => v.as_i128().map(|v| v.to_string()).ok_or_else(|| HostError("expects one integer".into()))?,
        _ => return Err(HostError("expects one integer".into())),
    };
    writeln!(cx.output(), "{text}").map_err(write_error)?;
    Ok(None)
}

/// `whale_print_float(x: f16 | f32 | f64) -> void`.
pub fn print_float(cx: &mut HostContext<'_>, args: &[Value]) -> Result<Option<Value>, HostError> {
    let text = match args {
        [Value::F16(v)] => v.to_f32().to_string(),
        [Value::F32(v)] => v.to_string(),
        [Value::F64(v)] => v.to_string(),
        _ => return Err(HostError("expects one float".into())),
    };
    writeln!(cx.output(), "{text}").map_err(write_error)?;
    Ok(None)
}

/// `whale_print_bytes(p: ptr<T>, len: any unsigned integer) -> void`.
pub fn print_bytes(cx: &mut HostContext<'_>, args: &[Value]) -> Result<Option<Value>, HostError> {
    let (ptr, len) = match args {
        [Value::Ptr(p), len] => (*p, len.as_i128().and_then(|l| u64::try_from(l).ok())),
        _ => return Err(HostError("expects a pointer and a length".into())),
    };
    let len = len.ok_or_else(|| HostError("expects a pointer and a length".into()))?;
    let bytes = cx.read(ptr, len)?;
    cx.output().write_all(&bytes).map_err(write_error)?;
    Ok(None)
}
