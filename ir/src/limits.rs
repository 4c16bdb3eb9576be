//! Resource limits for reading untrusted IR (whale-upstream §g.3).
//!
//! One [`IrLimits`] bounds everything a reader may be asked to allocate or
//! recurse over: input bytes, tokens, type and constant-expression nesting, a
//! total node budget, functions, blocks, values and the largest id. Readers
//! check each limit *before* allocating for it, so hostile input fails with a
//! [`LimitError`] instead of exhausting memory or the stack. Nesting depth counts
//! the root as depth 0 and each level as one more; a limit is inclusive (depth 3
//! passes with a limit of 3 and fails with 2).

use std::fmt;

/// The deepest nesting a configuration may allow; larger settings are refused
/// with [`Resource::Configuration`], because nesting is walked recursively.
pub const MAX_IR_NESTING: u32 = 256;

/// Limits for reading one module.
///
/// The defaults accept every module the CLI would read (8 MiB of text) unless it
/// is pathologically nested or numbered:
///
/// ```
/// let limits = ir::IrLimits::default();
/// assert_eq!(limits.max_type_depth, 128);
/// assert!(limits.validate().is_ok());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct IrLimits {
    /// Largest accepted input, in bytes (default 8 MiB).
    pub max_input_bytes: usize,
    /// Largest number of tokens (default 8 Mi: every token takes at least one
    /// byte, so by default only the byte limit binds).
    pub max_tokens: u64,
    /// Deepest type nesting (default 128; at most [`MAX_IR_NESTING`]).
    pub max_type_depth: u32,
    /// Deepest constant-expression nesting (default 128; at most [`MAX_IR_NESTING`]).
    pub max_const_depth: u32,
    /// Node budget: globals, declarations, functions, parameters, blocks,
    /// instructions, type nodes, expression nodes and list elements (default 4 Mi).
    pub max_nodes: u64,
    /// Most function declarations, and most function bodies (default 1 Mi each).
    pub max_functions: u64,
    /// Most blocks (default 4 Mi).
    pub max_blocks: u64,
    /// Most values, parameters included (default 4 Mi).
    pub max_values: u64,
    /// Largest `%vN`, `%bN`, `@fN` or `@gN` number (default 2^24 − 1). Readers
    /// also refuse numbers above `max(65536, input bytes)`, so a short text cannot
    /// make the dense id tables grow past a small multiple of its own size.
    pub max_id: u32,
}

impl Default for IrLimits {
    fn default() -> Self {
        Self {
            max_input_bytes: 8 << 20,
            max_tokens: 8 << 20,
            max_type_depth: 128,
            max_const_depth: 128,
            max_nodes: 4 << 20,
            max_functions: 1 << 20,
            max_blocks: 4 << 20,
            max_values: 4 << 20,
            max_id: (1 << 24) - 1,
        }
    }
}

impl IrLimits {
    /// The default limits for inputs of up to `bytes` bytes: the byte and token
    /// limits become `bytes`, and the counts (nodes, functions, blocks, values)
    /// and the largest id scale with the byte limit (never below the defaults).
    ///
    /// ```
    /// let limits = ir::IrLimits::for_input_bytes(64 << 20);
    /// assert_eq!(limits.max_input_bytes, 64 << 20);
    /// assert_eq!(limits.max_values, 8 * ir::IrLimits::default().max_values);
    /// ```
    pub fn for_input_bytes(bytes: usize) -> IrLimits {
        let d = IrLimits::default();
        let factor = (bytes as u64).div_ceil(d.max_input_bytes as u64).max(1);
        IrLimits {
            max_input_bytes: bytes,
            max_tokens: bytes as u64,
            max_nodes: d.max_nodes.saturating_mul(factor),
            max_functions: d.max_functions.saturating_mul(factor),
            max_blocks: d.max_blocks.saturating_mul(factor),
            max_values: d.max_values.saturating_mul(factor),
            max_id: (u64::from(d.max_id) + 1).saturating_mul(factor).min(u64::from(u32::MAX - 1)) as u32 - 1,
            ..d
        }
    }

    /// Checks the configuration itself: nesting limits above [`MAX_IR_NESTING`]
    /// are refused.
    pub fn validate(&self) -> Result<(), LimitError> {
        if self.max_type_depth > MAX_IR_NESTING || self.max_const_depth > MAX_IR_NESTING {
            return Err(LimitError { resource: Resource::Configuration, limit: u64::from(MAX_IR_NESTING) });
        }
        Ok(())
    }

    /// The largest id accepted in an input of `input_bytes` bytes:
    /// `min(max_id, max(65536, input_bytes))`.
    pub fn largest_id_for(&self, input_bytes: usize) -> u32 {
        let derived = u32::try_from(input_bytes.max(1 << 16)).unwrap_or(u32::MAX - 1);
        self.max_id.min(derived).min(u32::MAX - 1)
    }
}

/// A limited resource.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Resource {
    /// Input size in bytes.
    InputBytes,
    /// Number of tokens.
    Tokens,
    /// Type nesting depth.
    TypeDepth,
    /// Constant-expression nesting depth.
    ConstantDepth,
    /// Total node count.
    Nodes,
    /// Function declarations or bodies.
    Functions,
    /// Blocks.
    Blocks,
    /// Values.
    Values,
    /// The largest id number.
    Id,
    /// The limits themselves are out of range.
    Configuration,
}

impl Resource {
    /// The resource's name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Resource::InputBytes => "input bytes",
            Resource::Tokens => "token",
            Resource::TypeDepth => "type nesting",
            Resource::ConstantDepth => "constant nesting",
            Resource::Nodes => "node",
            Resource::Functions => "function",
            Resource::Blocks => "block",
            Resource::Values => "value",
            Resource::Id => "largest id",
            Resource::Configuration => "nesting configuration",
        }
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A limit of [`IrLimits`] was exceeded.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, thiserror::Error)]
#[error("IR {resource} limit exceeded (limit {limit})")]
pub struct LimitError {
    /// Which resource.
    pub resource: Resource,
    /// The limit in force.
    pub limit: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_configuration() {
        let limits = IrLimits::default();
        assert!(limits.validate().is_ok());
        let deep = IrLimits { max_type_depth: 257, ..limits };
        assert_eq!(deep.validate(), Err(LimitError { resource: Resource::Configuration, limit: 256 }));
        assert_eq!(limits.largest_id_for(10), 65536);
        assert_eq!(limits.largest_id_for(1 << 22), 1 << 22);
        assert_eq!(limits.largest_id_for(usize::MAX), (1 << 24) - 1);
        let message = LimitError { resource: Resource::TypeDepth, limit: 128 }.to_string();
        assert_eq!(message, "IR type nesting limit exceeded (limit 128)");
    }
}
