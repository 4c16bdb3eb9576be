//! Targets and data layouts.
//!
//! Whale knows one target, `x86_64-whale-linux` (64-bit pointers, little
//! endian, on every host). A module records its target name and data layout;
//! the verifier checks that the name is known and the layout is the target's.

use std::fmt;

/// Byte order of a data layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Endian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

/// Pointer width and byte order of a target.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct DataLayout {
    /// Pointer width in bits.
    pub pointer_bits: u32,
    /// Byte order.
    pub endian: Endian,
}

impl DataLayout {
    /// 64-bit pointers, little endian: the layout of `x86_64-whale-linux`.
    pub const fn default_64bit_le() -> Self {
        Self { pointer_bits: 64, endian: Endian::Little }
    }
}

/// Writes `{ ptr=64, endian=little }` as in the module header.
impl fmt::Display for DataLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let endian = match self.endian {
            Endian::Little => "little",
            Endian::Big => "big",
        };
        write!(f, "{{ ptr={}, endian={} }}", self.pointer_bits, endian)
    }
}

/// A supported code-generation target.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Target {
    /// `x86_64-whale-linux`.
    X86_64WhaleLinux,
}

/// A target problem found by [`Target::lookup`] or the verifier.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum TargetError {
    /// The name is not a supported target.
    #[error("unsupported target {0:?}; supported targets: x86_64-whale-linux")]
    UnsupportedTarget(String),
    /// The module's layout differs from the target's.
    #[error("data layout {actual} does not match target {target} (expected {expected})")]
    LayoutMismatch {
        /// Target name.
        target: String,
        /// The target's layout.
        expected: DataLayout,
        /// The module's layout.
        actual: DataLayout,
    },
}

impl Target {
    /// Every supported target.
    pub const SUPPORTED: &'static [Target] = &[Target::X86_64WhaleLinux];

    /// The target called `name`.
    pub fn lookup(name: &str) -> Result<Target, TargetError> {
        Self::SUPPORTED
            .iter()
            .copied()
            .find(|t| t.name() == name)
            .ok_or_else(|| TargetError::UnsupportedTarget(name.to_string()))
    }

    /// The target's name.
    pub const fn name(self) -> &'static str {
        match self {
            Target::X86_64WhaleLinux => "x86_64-whale-linux",
        }
    }

    /// The target's data layout.
    pub const fn data_layout(self) -> DataLayout {
        match self {
            Target::X86_64WhaleLinux => DataLayout::default_64bit_le(),
        }
    }

    /// Checks that `layout` is this target's.
    pub fn validate_layout(self, layout: DataLayout) -> Result<(), TargetError> {
        if layout == self.data_layout() {
            Ok(())
        } else {
            Err(TargetError::LayoutMismatch {
                target: self.name().to_string(),
                expected: self.data_layout(),
                actual: layout,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_known_and_unknown() {
        let t = Target::lookup("x86_64-whale-linux").unwrap();
        assert_eq!(t.data_layout().to_string(), "{ ptr=64, endian=little }");
        let err = Target::lookup("riscv").unwrap_err();
        assert_eq!(err.to_string(), "unsupported target \"riscv\"; supported targets: x86_64-whale-linux");
        let big = DataLayout { pointer_bits: 64, endian: Endian::Big };
        assert!(t.validate_layout(big).is_err());
    }
}
