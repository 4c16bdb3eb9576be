//! The AST of format 2: the node kinds a front end hands to Whale (whale-upstream §f.2).
//!
//! These types mirror the JSON one-to-one, so serde's derives give the strict
//! reading the interchange needs: every struct and struct variant denies unknown
//! fields, every field without a default is required, enums are externally
//! tagged (`{"Variant": payload}`), and unit variants read as `"Void"` or
//! `{"Void": null}` — serde_json accepts no other payload for a unit variant.
//! Field order is the encoder's key order (whale-upstream §f.1).
//!
//! Numbers that must be exact travel as strings: integer literals as decimal text
//! and float literals as exact-width hex bit strings. They are checked against
//! their declared width when lowering (see [`super::lower_o0`]), not when decoding,
//! as are bit widths (`u16` here) and type compatibility.

use serde::{Deserialize, Serialize};

/// A whole program: external or forward declarations, global constants and
/// function definitions. All three lists are required (they may be empty).
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Program {
    /// Function declarations, declared before any definition.
    pub declarations: Vec<FunctionDeclaration>,
    /// Global constants, evaluated in order.
    pub globals: Vec<GlobalConst>,
    /// Function definitions, lowered in order.
    pub functions: Vec<Function>,
}

/// A function declared without a body here (external) or defined later.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionDeclaration {
    /// The function's name in Whale's function namespace.
    pub name: String,
    /// Its full signature.
    pub signature: Signature,
    /// Internal (needs a definition) or external (needs a link name).
    pub linkage: Linkage,
    /// The external symbol name; absent or `null` for internal functions.
    #[serde(default)]
    pub link_name: Option<String>,
}

/// A function signature.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    /// Parameter types in order.
    pub params: Vec<Type>,
    /// Result type (`"Void"` for none).
    pub ret: Type,
    /// Calling convention.
    pub convention: Convention,
    /// Representable, but lowering rejects variadic signatures.
    pub variadic: bool,
}

/// A global constant: a name, a declared type and a compile-time initializer.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlobalConst {
    /// The global's name (its own namespace, apart from functions).
    pub name: String,
    /// Declared type; the initializer must have exactly this type.
    pub ty: Type,
    /// A constant expression over literals, `Binary`, `Cmp` and earlier globals.
    pub init: Expr,
}

/// A function definition.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Function {
    /// Calling convention.
    pub convention: Convention,
    /// Linkage.
    pub linkage: Linkage,
    /// The external symbol name; absent or `null` for internal functions.
    #[serde(default)]
    pub link_name: Option<String>,
    /// The function's name.
    pub name: String,
    /// Named, typed parameters.
    pub parameters: Vec<Param>,
    /// Result type (`"Void"` for none).
    pub return_type: Type,
    /// Statements in order.
    pub body: Vec<Stmt>,
}

/// A named function parameter.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// Parameter name, unique within its function.
    pub name: String,
    /// Parameter type.
    pub ty: Type,
}

/// Calling conventions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Convention {
    /// Whale's own convention.
    Whale,
    /// The System V AMD64 C convention.
    SysV64,
}

/// Linkage of a function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Linkage {
    /// Defined in this program, no link name.
    Internal,
    /// Visible under an explicit link name; the body is optional.
    External,
}

/// AST types. There are no struct or tuple types in the AST.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Type {
    /// An integer; lowering accepts widths 1, 8, 16, 32, 64 and 128.
    Int {
        /// Width in bits.
        bits: u16,
        /// Signed (`iN`) or unsigned (`uN`).
        signed: bool,
    },
    /// A float; lowering accepts widths 16, 32 and 64.
    Float {
        /// Width in bits.
        bits: u16,
    },
    /// A data pointer.
    Ptr(Box<Type>),
    /// An array of `len` elements.
    Array {
        /// Element type.
        elem: Box<Type>,
        /// Element count.
        len: u64,
    },
    /// A named opaque type: representable, rejected by lowering.
    Opaque(String),
    /// No value.
    Void,
    /// `false` or `true`.
    Bool,
    /// A typed function pointer.
    FnPtr(Box<Signature>),
}

/// Literal values; integers and floats are carried as exact text.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Literal {
    /// A `bool`.
    Bool(bool),
    /// An integer: decimal digits with an optional `-` for signed types.
    Int {
        /// Width in bits.
        bits: u16,
        /// Signedness.
        signed: bool,
        /// Decimal text, range-checked against the width by lowering.
        value: String,
    },
    /// A float: `0x` and exactly 4, 8 or 16 hex digits of its bit pattern.
    Float {
        /// Width in bits.
        bits: u16,
        /// The bit pattern as hex text.
        value: String,
    },
}

/// Arithmetic operators (integers wrap; floats round to nearest even).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum BinaryOp {
    /// Addition.
    Add,
    /// Subtraction.
    Sub,
    /// Multiplication.
    Mul,
}

/// Comparison operators (signedness comes from the operand type).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum CmpOp {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Less than.
    Lt,
    /// Less or equal.
    Le,
    /// Greater than.
    Gt,
    /// Greater or equal.
    Ge,
}

/// Expressions, evaluated left to right.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Expr {
    /// A local variable, local constant or global, by name.
    Var(String),
    /// A literal.
    Lit(Literal),
    /// Arithmetic on two operands of one type.
    Binary {
        /// Left operand (evaluated first).
        left: Box<Expr>,
        /// Operator.
        op: BinaryOp,
        /// Right operand.
        right: Box<Expr>,
    },
    /// A comparison of two operands of one type; the result is `bool`.
    Cmp {
        /// Left operand (evaluated first).
        left: Box<Expr>,
        /// Operator.
        op: CmpOp,
        /// Right operand.
        right: Box<Expr>,
    },
    /// The typed address of a function, by name (function namespace).
    FunctionRef(String),
    /// A direct or indirect call.
    Call {
        /// What is called (evaluated before the arguments).
        callee: Callee,
        /// Arguments, evaluated left to right.
        args: Vec<Expr>,
    },
    /// A null function pointer of the given signature.
    NullFunction(Signature),
}

/// The target of a call.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Callee {
    /// A function by name (function namespace, even if a variable has that name).
    Direct(String),
    /// An expression of function-pointer type.
    Indirect(Box<Expr>),
}

/// Statements.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Stmt {
    /// `return` with or without a value (`{"Return": null}`).
    Return(Option<Expr>),
    /// A named compile-time constant.
    ConstDecl {
        /// Name.
        name: String,
        /// Declared type.
        ty: Type,
        /// A constant expression.
        init: Expr,
    },
    /// A mutable local variable, optionally initialised.
    VarDecl {
        /// Name.
        name: String,
        /// Declared type.
        ty: Type,
        /// Initial value; absent or `null` leaves the variable uninitialised.
        #[serde(default)]
        init: Option<Expr>,
    },
    /// Assignment to a local variable.
    Assign {
        /// The variable.
        name: String,
        /// The new value (evaluated before the name is resolved).
        value: Expr,
    },
    /// An expression evaluated for its effects (a void call is allowed here).
    ExprStmt(Expr),
    /// A two-armed conditional; both arms are required (they may be empty).
    If {
        /// A `bool` condition.
        cond: Expr,
        /// Statements when true.
        then_body: Vec<Stmt>,
        /// Statements when false.
        else_body: Vec<Stmt>,
    },
    /// A pre-tested loop.
    While {
        /// A `bool` condition, evaluated before every iteration.
        cond: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// Leaves the innermost loop.
    Break,
    /// Jumps to the innermost loop's condition.
    Continue,
}
