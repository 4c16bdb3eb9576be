//! Whale's typed SSA IR: types, builder, verifier, printer and layout.
//!
//! A [`Module`] holds a target, globals, function declarations and function
//! bodies made of basic blocks of typed SSA instructions. Build one with
//! [`ModuleBuilder`], check it with [`verify_module`], and write it as text with
//! [`print_module`] (format 2, or format 4 when ids are not canonical).
//!
//! The seed's first example builds, verifies and prints a function:
//!
//! ```
//! use ir::{ModuleBuilder, Target, Type};
//!
//! let target = Target::lookup("x86_64-whale-linux").unwrap();
//! let mut module = ModuleBuilder::new(target.name(), target.data_layout());
//! let mut function = module.begin_function("answer", vec![], Type::I32);
//! let left = function.const_i32(40);
//! let right = function.const_i32(2);
//! let answer = function.add(Type::I32, left, right);
//! function.ret(Some(answer));
//! function.finish();
//! let module = module.finish();
//! ir::verify_module(&module).unwrap();
//! print!("{}", ir::print_module(&module));
//! # assert_eq!(ir::print_module(&module), "\
//! # module {
//! #   format_version 2
//! #   semantics_version 1
//! #   target \"x86_64-whale-linux\"
//! #   datalayout { ptr=64, endian=little }
//! #
//! #   declare @f0 \"answer\": whale () -> i32, linkage internal
//! #
//! #   fn @answer() -> i32, id @f0 {
//! #   entry:
//! #     %v0: i32 = const i32 40
//! #     %v1: i32 = const i32 2
//! #     %v2: i32 = add i32 %v0, %v1
//! #     ret i32 %v2
//! #   }
//! #
//! # }
//! # ");
//! ```
//!
//! The second declares an external function, takes its typed address and calls
//! it directly and indirectly:
//!
//! ```
//! use ir::{Callee, CallingConvention, DataLayout, FunctionSignature, Linkage, ModuleBuilder, Type};
//!
//! let mut module = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
//! let signature = FunctionSignature {
//!     params: vec![Type::I32], ret: Type::I32,
//!     convention: CallingConvention::SysV64, variadic: false,
//! };
//! let identity = module.declare_function(
//!     "identity", signature, Linkage::External, Some("identity_i32".into()),
//! ).unwrap();
//! let mut function = module.begin_function("answer", vec![], Type::I32);
//! let input = function.const_i32(42);
//! let callback = function.function_addr(identity).unwrap();
//! // The direct call's result remains defined even though it is unused.
//! function.call(Callee::Direct(identity), vec![input]).unwrap();
//! let result = function.call(Callee::Indirect(callback), vec![input]).unwrap().unwrap();
//! function.ret(Some(result));
//! function.finish();
//! let module = module.finish();
//! ir::verify_module(&module).unwrap();
//! print!("{}", ir::print_module(&module));
//! # assert_eq!(ir::print_module(&module), "\
//! # module {
//! #   format_version 2
//! #   semantics_version 1
//! #   target \"x86_64-whale-linux\"
//! #   datalayout { ptr=64, endian=little }
//! #
//! #   declare @f0 \"identity\": sysv64 (i32) -> i32, linkage external, link_name \"identity_i32\"
//! #   declare @f1 \"answer\": whale () -> i32, linkage internal
//! #
//! #   fn @answer() -> i32, id @f1 {
//! #   entry:
//! #     %v0: i32 = const i32 42
//! #     %v1: fnptr<sysv64 (i32) -> i32> = function_addr @f0
//! #     %v2: i32 = call sysv64 i32 @f0(%v0)
//! #     %v3: i32 = call sysv64 i32 indirect %v1(%v0)
//! #     ret i32 %v3
//! #   }
//! #
//! # }
//! # ");
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod assemble;
mod build_error;
mod builder;
pub mod const_expr;
mod constant;
mod edit;
pub mod entity;
mod inst;
pub mod layout;
mod limits;
mod local_ids;
#[cfg(feature = "socket")]
pub mod lower_ast;
mod module;
pub mod opcode;
mod parallel;
pub mod parser;
mod printer;
mod signature;
mod strings;
mod target;
pub mod types;
pub mod verifier;

#[doc(hidden)]
pub use assemble::{AssembleError, ModuleAssembler};
pub use build_error::{BuildError, CallError};
pub use builder::{Callee, CastOp, CheckedOp, FunctionBuilder, ModuleBuilder};
pub use const_expr::{ConstBinOp, ConstCmpOp, ConstEvalError, ConstExpr, ConstExprKind, ConstRef};
pub use constant::{ConstValue, FloatBits, FloatParseError};
pub use edit::{BlockInsts, FunctionEditor, Position, Users, ValueDef};
pub use entity::{
    BlockId, ConstDeclId, ConstId, EntityList, FunctionId, GlobalId, InstId, PackedOption, SigId, StrId, TypeId,
    ValueId,
};
pub use inst::{ConstKind, InstData, Values};
pub use layout::{allocation_align, layout_of, layout_of_with_limit, pointer_stride, LayoutError, TypeLayout};
pub use limits::{IrLimits, LimitError, Resource, MAX_IR_NESTING};
pub use module::{ConstDecl, Declaration, Function, Global, Linkage, Module, Param};
pub use opcode::{BinOp, CmpOp, FCmpPred, ICmpPred, Opcode, Shape};
pub use parser::{parse_module, parse_module_with_limits, ParseError, ParseErrorKind, SourceLocation};
pub use printer::{
    format2_is_exact, is_bare_name, print_module, print_module_with, push_quoted, write_module, TextFormat,
};
pub use signature::{is_well_formed_type, validate_signature};
pub use strings::StringTable;
pub use target::{DataLayout, Endian, Target, TargetError};
pub use types::{CallingConvention, FunctionSignature, Type, TypeKey, TypeTable};
pub use verifier::{verify_function, verify_module, verify_module_all, VerifyError};

/// The text IR format version this crate prints.
pub const IR_FORMAT_VERSION: u32 = 2;

/// The execution semantics version of this IR.
pub const SEMANTICS_VERSION: u32 = 1;
