//! Side-by-side benchmarks of Whale against its peers on the shared workloads W1–W5 (`bench/WORKLOADS.md`).
//!
//! Every workload is generated here in each form the engines read: Whale IR (by the generators the `ir` and `interp`
//! benches use, included with `#[path]` so there is one definition), CLIF text for Cranelift, WebAssembly for wasmi
//! and wasmparser, and LLVM `.ll` for LLVM 19's tools. Each section ([`text`], [`binary`], [`exec`], [`tools`])
//! checks that the forms agree before it times anything, times Whale and its peers in interleaved rounds
//! ([`measure`]), and returns a markdown table with each Whale figure next to its peers' and their ratio. The
//! `whale-bench` binary prints the tables; `benches/peers.rs` runs the same comparisons under criterion.

#[path = "../../ir/benches/workloads.rs"]
pub mod whale_w12;
#[path = "../../interp/benches/workloads.rs"]
pub mod whale_w345;

pub mod binary;
pub mod clif;
pub mod exec;
pub mod llvm;
pub mod machine;
pub mod measure;
pub mod program;
pub mod text;
pub mod tools;
pub mod wasm;

use program::{W1, W2};

/// A W1 or W2 workload: a module to read, write and verify rather than run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Static {
    /// W1(N): one straight-line function of N drawn ops.
    W1(usize),
    /// W2(M): M functions of about 50 instructions.
    W2(usize),
}

/// Both forms of the abstract program.
#[derive(Clone, Debug)]
pub enum Program {
    W1(W1),
    W2(W2),
}

impl Static {
    /// The sizes the harness measures: W1 at 10k, 100k and 1M ops, W2 at about 100k and 1M instructions.
    pub const ALL: [Static; 5] =
        [Static::W1(10_000), Static::W1(100_000), Static::W1(1_000_000), Static::W2(2_000), Static::W2(20_000)];

    /// `W1 100k`, `W2 1M (20,000 fns)`.
    pub fn name(self) -> String {
        match self {
            Static::W1(n) => format!("W1 {}", short(n)),
            Static::W2(m) => format!("W2 {} ({} fns)", short(50 * m), measure::thousands(m)),
        }
    }

    /// `w1_100k`, `w2_1m`: identifiers for criterion.
    pub fn id(self) -> String {
        match self {
            Static::W1(n) => format!("w1_{}", short(n).to_lowercase()),
            Static::W2(m) => format!("w2_{}", short(50 * m).to_lowercase()),
        }
    }

    /// The workload's instruction count (N + 3, or 50·M − 2), the unit of every rate.
    pub fn instructions(self) -> usize {
        match self {
            Static::W1(n) => n + 3,
            Static::W2(m) => 50 * m - 2,
        }
    }

    /// The drawn program.
    pub fn program(self) -> Program {
        match self {
            Static::W1(n) => Program::W1(W1::new(n)),
            Static::W2(m) => Program::W2(W2::new(m)),
        }
    }

    /// The Whale IR module.
    pub fn whale(self) -> ir::Module {
        match self {
            Static::W1(n) => whale_w12::w1(n),
            Static::W2(m) => whale_w12::w2(m),
        }
    }
}

impl Program {
    /// Canonical CLIF text.
    pub fn clif(&self) -> String {
        match self {
            Program::W1(w) => clif::w1(w),
            Program::W2(w) => clif::w2(w),
        }
    }

    /// The WebAssembly module.
    pub fn wasm(&self) -> Vec<u8> {
        match self {
            Program::W1(w) => wasm::w1(w),
            Program::W2(w) => wasm::w2(w),
        }
    }

    /// LLVM assembly.
    pub fn ll(&self) -> String {
        match self {
            Program::W1(w) => llvm::w1(w),
            Program::W2(w) => llvm::w2(w),
        }
    }
}

/// `10k`, `100k`, `1M`.
fn short(n: usize) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1_000 && n.is_multiple_of(1_000) {
        format!("{}k", n / 1_000)
    } else {
        n.to_string()
    }
}

/// Reader limits large enough for the 1M-instruction inputs (the defaults accept 8 MiB of text); the limits do not
/// change the work done.
pub fn whale_limits() -> ir::IrLimits {
    ir::IrLimits {
        max_input_bytes: 1 << 30,
        max_tokens: 1 << 30,
        max_nodes: 1 << 28,
        max_functions: 1 << 24,
        max_blocks: 1 << 26,
        max_values: 1 << 26,
        ..ir::IrLimits::default()
    }
}

/// FR2E reader limits with [`whale_limits`].
pub fn fr2e_limits() -> fr2e::ReadLimits {
    fr2e::ReadLimits { ir: whale_limits(), ..fr2e::ReadLimits::default() }
}
