//! The Whale IR interpreter: executes verified modules with the exact
//! semantics of semantics version 1 (whale-ir §7; whale-upstream §b.6, §i,
//! §g), tracked memory, traps and limits.
//!
//! [`Interpreter::new`] verifies the module and translates every function once
//! into a compact pre-resolved form (values in frame slots, branch targets as
//! code indices, phis as moves on edges, constants in a per-frame template).
//! [`Interpreter::call`] then runs a function in a tight dispatch loop with an
//! explicit frame stack — deep recursion reaches the call-depth limit, never
//! the Rust stack's end. `docs/interp.md` describes the semantics decisions,
//! the memory model, the host functions and the design.
//!
//! ```
//! use ir::{ModuleBuilder, Target, Type};
//! use interp::{Interpreter, Options, Value};
//!
//! let target = Target::lookup("x86_64-whale-linux").unwrap();
//! let mut module = ModuleBuilder::new(target.name(), target.data_layout());
//! let mut f = module.begin_function("double", vec![("x".into(), Type::I32)], Type::I32);
//! let x = f.param_value(0);
//! let y = f.add(Type::I32, x, x);
//! f.ret(Some(y));
//! f.finish();
//! let module = module.finish();
//!
//! let mut interp = Interpreter::new(&module, Options::default()).unwrap();
//! let outcome = interp.call("double", &[Value::I32(21)]).unwrap();
//! assert_eq!(outcome.value, Some(Value::I32(42)));
//! assert_eq!(outcome.steps, 2);
//! ```
//!
//! Every executed instruction, phi and terminator costs one step (constants
//! included, although they are never executed one by one). A trap reports its
//! reason, the IR site (function, block, instruction index, value) and the
//! steps executed including the trapping one; limits are reported separately
//! ([`ExecError::Limit`]).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod compile;
mod error;
mod exec;
mod fragments;
pub mod host;
mod init_bits;
mod memory;
mod numeric;
mod program;
mod shape;
mod value;

use std::io::Write;

use ir::{FunctionId, Module, TypeId, TypeTable};

pub use error::{
    AllocateError, BindError, ExecError, HostError, LimitExceeded, LimitKind, LoadError, MemoryTrap, OutOfMemory, Site,
    Trap, TrapReason,
};
pub use host::{HostContext, HostFn};
pub use memory::Permissions;
pub use value::{
    format_result, parse_arguments, parse_value, resolve_function, ArgumentError, FnPtr, LiteralError, Pointer, Value,
};

use exec::{Frame, Stop};
use memory::Memory;
use program::{Op, Program};
use shape::Shapes;
use value::{from_slots, to_slots};

/// Resource limits of one call.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Options {
    /// Steps (executed instructions, phis and terminators) per call.
    pub max_steps: u64,
    /// Active call frames, the called function's included.
    pub max_call_depth: u32,
    /// Bytes of tracked memory: allocations plus alignment padding and a 16-byte
    /// red zone after each.
    pub max_memory_bytes: u64,
    /// Live allocations.
    pub max_allocations: u64,
    /// Frame slots (8 bytes each) of all active frames together.
    pub max_stack_slots: u64,
}

impl Default for Options {
    /// Upstream's defaults (1,000,000 steps, 64 MiB, 16,384 allocations), a
    /// call depth of 10,000 and 16 Mi stack slots.
    fn default() -> Self {
        Options {
            max_steps: 1_000_000,
            max_call_depth: 10_000,
            max_memory_bytes: 64 << 20,
            max_allocations: 16_384,
            max_stack_slots: 1 << 24,
        }
    }
}

/// The result of a successful call.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Outcome {
    /// The returned value (`None` for `void`).
    pub value: Option<Value>,
    /// Steps executed.
    pub steps: u64,
}

/// Names the function to call: its identity or its declared name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FunctionRef<'a> {
    /// `@fN`.
    Id(FunctionId),
    /// The declared name.
    Name(&'a str),
}

impl From<FunctionId> for FunctionRef<'_> {
    fn from(id: FunctionId) -> Self {
        FunctionRef::Id(id)
    }
}

impl<'a> From<&'a str> for FunctionRef<'a> {
    fn from(name: &'a str) -> Self {
        FunctionRef::Name(name)
    }
}

impl<'a> From<&'a String> for FunctionRef<'a> {
    fn from(name: &'a String) -> Self {
        FunctionRef::Name(name)
    }
}

/// An interpreter for one module.
pub struct Interpreter {
    program: Program,
    types: TypeTable,
    shapes: Shapes,
    options: Options,
    memory: Memory,
    regs: Vec<u64>,
    frames: Vec<Frame>,
    hosts: Vec<(String, HostFn)>,
    output: Box<dyn Write>,
    scratch: Vec<u64>,
    /// The op replaced by [`Op::StepLimit`] while a call runs.
    patch: Option<(usize, Op)>,
    /// Fuel left when the last call stopped, and steps charged beyond it.
    fuel: u64,
    deficit: u64,
}

impl std::fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interpreter")
            .field("functions", &self.program.funcs.len())
            .field("ops", &self.program.code.len())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Interpreter {
    /// Verifies `module` and translates it. Functions that cannot be translated
    /// (values too large for the frame representation) are reported when called.
    pub fn new(module: &Module, options: Options) -> Result<Interpreter, LoadError> {
        ir::verify_module(module).map_err(|e| LoadError::Verify(Box::new(e)))?;
        let shapes = Shapes::new(module.types());
        let program = compile::compile(module, &shapes);
        Ok(Interpreter {
            program,
            types: module.types().clone(),
            shapes,
            memory: Memory::new(options.max_memory_bytes, options.max_allocations),
            options,
            regs: Vec::new(),
            frames: Vec::new(),
            hosts: Vec::new(),
            output: Box::new(std::io::sink()),
            scratch: Vec::new(),
            patch: None,
            fuel: 0,
            deficit: 0,
        })
    }

    /// The limits in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Changes the limits for later calls.
    pub fn set_options(&mut self, options: Options) {
        self.options = options;
        self.memory.max_bytes = options.max_memory_bytes;
        self.memory.max_allocations = options.max_allocations;
    }

    /// Sets where host functions write (initially nowhere).
    pub fn set_output(&mut self, output: Box<dyn Write>) {
        self.output = output;
    }

    /// The identity of the first declaration named `name`.
    pub fn function_id(&self, name: &str) -> Option<FunctionId> {
        self.program.decls.list.iter().find(|d| d.name == name).map(|d| d.id)
    }

    /// Binds `f` to the external declaration with link name `link_name`.
    pub fn bind_host(
        &mut self,
        link_name: &str,
        f: impl FnMut(&mut HostContext<'_>, &[Value]) -> Result<Option<Value>, HostError> + 'static,
    ) -> Result<(), BindError> {
        let Some(decl) = self.program.decls.list.iter().position(|d| d.link_name.as_deref() == Some(link_name)) else {
            return Err(BindError::UnknownLinkName(link_name.to_string()));
        };
        if self.program.decls.list[decl].body.is_some() {
            return Err(BindError::HasBody(link_name.to_string()));
        }
        self.hosts.push((link_name.to_string(), Box::new(f)));
        self.program.decls.list[decl].host = Some(self.hosts.len() as u32 - 1);
        Ok(())
    }

    /// Binds the standard host functions (`docs/interp.md`) whose link names
    /// the module declares; returns how many were bound.
    pub fn bind_standard_host(&mut self) -> usize {
        let mut bound = 0;
        for (name, f) in [
            (host::PRINT_INT, host::print_int as fn(&mut HostContext<'_>, &[Value]) -> _),
            (host::PRINT_FLOAT, host::print_float),
            (host::PRINT_BYTES, host::print_bytes),
        ] {
            if self.bind_host(name, f).is_ok() {
                bound += 1;
            }
        }
        bound
    }

    /// Creates an allocation that lives as long as the interpreter, holding
    /// `contents` (all bytes initialised), with the given permissions; returns
    /// a pointer to its start with provenance.
    pub fn allocate(&mut self, contents: &[u8], permissions: Permissions) -> Result<Pointer, AllocateError> {
        self.memory.allocate_static(contents, permissions).map(|(address, tag)| Pointer { address, tag }).map_err(|e| {
            match e {
                memory::AllocError::Bytes => AllocateError::Limit(LimitKind::MemoryBytes),
                memory::AllocError::Count => AllocateError::Limit(LimitKind::Allocations),
                memory::AllocError::OutOfMemory(bytes) => AllocateError::OutOfMemory { bytes },
            }
        })
    }

    /// Reads `len` initialised bytes at `ptr`, checked like a load.
    pub fn read_memory(&self, ptr: Pointer, len: u64) -> Result<Vec<u8>, MemoryTrap> {
        self.memory.read_bytes(ptr.address, ptr.tag, len)
    }

    /// Bytes of tracked memory in use (the embedder's allocations between calls).
    pub fn memory_in_use(&self) -> u64 {
        self.memory.bytes_in_use()
    }

    /// Live allocations (the embedder's between calls).
    pub fn live_allocations(&self) -> u64 {
        self.memory.live_allocations()
    }

    /// Calls `function` with `args`.
    pub fn call<'a>(&mut self, function: impl Into<FunctionRef<'a>>, args: &[Value]) -> Result<Outcome, ExecError> {
        let id = match function.into() {
            FunctionRef::Id(id) => id,
            FunctionRef::Name(name) => {
                self.function_id(name).ok_or_else(|| ExecError::UnknownFunctionName(name.to_string()))?
            }
        };
        let d = self.program.decls.index(id).ok_or(ExecError::UnknownFunction(id))?;
        let (sig, body, host, link_name) = {
            let decl = &self.program.decls.list[d];
            (decl.sig, decl.body, decl.host, decl.link_name.clone())
        };
        let key = self.types.sig(sig);
        let (params, ret): (Vec<TypeId>, TypeId) = (key.params.to_vec(), key.ret);
        if args.len() != params.len() {
            return Err(ExecError::ArgumentCount { expected: params.len(), got: args.len() });
        }
        if ret != TypeId::VOID && self.shapes.slots(ret).is_none() {
            let reason = format!("values of type {} are not supported", shape::type_label(&self.types, ret));
            return Err(ExecError::Unsupported { function: id, reason });
        }
        let mut slots = Vec::new();
        for (index, (arg, &ty)) in args.iter().zip(&params).enumerate() {
            // A type with slots nests at most MAX_DEPTH aggregate levels, bounding the conversion.
            if self.shapes.slots(ty).is_none() || !to_slots(&self.types, &self.shapes, ty, arg, &mut slots) {
                return Err(ExecError::ArgumentType { index, expected: shape::type_label(&self.types, ty) });
            }
        }
        let (result, steps) = match (body, host) {
            (Some(fi), _) => {
                if let Some(reason) = self.program.funcs.get(fi as usize).and_then(|f| f.unsupported.clone()) {
                    return Err(ExecError::Unsupported { function: id, reason });
                }
                self.deficit = 0;
                match self.run(fi as usize, &slots) {
                    Ok(result) => (result, self.options.max_steps - self.fuel),
                    Err(stop) => return Err(self.stop_error(stop)),
                }
            }
            (None, Some(h)) => {
                let Interpreter { hosts, memory, output, .. } = self;
                let mut cx = HostContext { memory, output: output.as_mut() };
                let link = link_name.clone().unwrap_or_default();
                let Some((_, f)) = hosts.get_mut(h as usize) else {
                    return Err(ExecError::NoBody { function: id, link_name: link });
                };
                let value = f(&mut cx, args).map_err(|e| {
                    let site = Site { function: id, block: ir::BlockId::from_u32(0), inst: 0, value: None };
                    ExecError::Trap(Box::new(Trap {
                        reason: TrapReason::Host { link_name: link.clone(), message: e.0 },
                        site,
                        steps: 0,
                    }))
                })?;
                let mut out = Vec::new();
                if let Some(v) = &value {
                    if !to_slots(&self.types, &self.shapes, ret, v, &mut out) {
                        return Err(ExecError::ArgumentType {
                            index: usize::MAX,
                            expected: shape::type_label(&self.types, ret),
                        });
                    }
                }
                (out, 0)
            }
            (None, None) => {
                return Err(ExecError::NoBody { function: id, link_name: link_name.unwrap_or_default() });
            }
        };
        let value = (ret != TypeId::VOID)
            .then(|| from_slots(&self.types, &self.shapes, &self.program.decls, ret, &result, &mut 0));
        Ok(Outcome { value, steps })
    }

    fn site(&self, index: u32) -> Site {
        self.program.sites.get(index as usize).copied().unwrap_or(Site {
            function: FunctionId::from_u32(0),
            block: ir::BlockId::from_u32(0),
            inst: 0,
            value: None,
        })
    }

    fn stop_error(&self, stop: Stop) -> ExecError {
        let used = (self.options.max_steps - self.fuel).saturating_add(self.deficit);
        let at = |pc: usize, back: u32| {
            let info = self.program.pc_info.get(pc).copied().unwrap_or_default();
            let steps = used.saturating_sub(u64::from(info.after) + u64::from(back));
            (self.site(info.site.saturating_sub(back)), steps)
        };
        match stop {
            Stop::Trap { pc, back, reason } => {
                let (site, steps) = at(pc, back);
                ExecError::Trap(Box::new(Trap { reason, site, steps }))
            }
            Stop::Limit { pc, kind, limit } => {
                let (site, steps) = at(pc, 0);
                ExecError::Limit(Box::new(LimitExceeded { kind, limit, site, steps }))
            }
            Stop::OutOfMemory { pc, what, bytes } => {
                let (site, _) = at(pc, 0);
                ExecError::OutOfMemory(Box::new(OutOfMemory { what, bytes, site }))
            }
            Stop::Steps { site } => ExecError::Limit(Box::new(LimitExceeded {
                kind: LimitKind::Steps,
                limit: self.options.max_steps,
                site: self.site(site),
                steps: self.options.max_steps,
            })),
            Stop::Unsupported { func } => {
                let f = self.program.funcs.get(func as usize);
                ExecError::Unsupported {
                    function: f.map_or(FunctionId::from_u32(0), |f| f.id),
                    reason: f.and_then(|f| f.unsupported.clone()).unwrap_or_default(),
                }
            }
        }
    }
}
