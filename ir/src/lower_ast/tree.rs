//! The AST as lowering walks it: the node kinds of [`super::frontend`] with
//! borrowed strings and children in an arena.
//!
//! Every node is `Copy` and owns nothing, so a whole program is built with a
//! bump allocation per node and freed at once. The fast JSON reader
//! ([`super::fast_json`]) borrows names and literal strings straight from the
//! input text; [`borrow`] views an owned [`frontend::Program`] the same way, so
//! there is one lowering for both. [`to_owned`] goes back to the owned form.

use bumpalo::Bump;

use super::frontend;
pub(super) use super::frontend::{BinaryOp, CmpOp, Convention, Linkage};

/// A program: declarations, globals and functions, in text order.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(super) struct Program<'a> {
    pub declarations: &'a [FunctionDeclaration<'a>],
    pub globals: &'a [GlobalConst<'a>],
    pub functions: &'a [Function<'a>],
}

/// A function declared without a body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct FunctionDeclaration<'a> {
    pub name: &'a str,
    pub signature: Signature<'a>,
    pub linkage: Linkage,
    pub link_name: Option<&'a str>,
}

/// A function type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Signature<'a> {
    pub params: &'a [Type<'a>],
    pub ret: Type<'a>,
    pub convention: Convention,
    pub variadic: bool,
}

/// A named module constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct GlobalConst<'a> {
    pub name: &'a str,
    pub ty: Type<'a>,
    pub init: Expr<'a>,
}

/// A function definition.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Function<'a> {
    pub convention: Convention,
    pub linkage: Linkage,
    pub link_name: Option<&'a str>,
    pub name: &'a str,
    pub parameters: &'a [Param<'a>],
    pub return_type: Type<'a>,
    pub body: &'a [Stmt<'a>],
}

/// A named, typed parameter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Param<'a> {
    pub name: &'a str,
    pub ty: Type<'a>,
}

/// A source-level type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Type<'a> {
    Int { bits: u16, signed: bool },
    Float { bits: u16 },
    Ptr(&'a Type<'a>),
    Array { elem: &'a Type<'a>, len: u64 },
    Opaque(&'a str),
    Void,
    Bool,
    FnPtr(&'a Signature<'a>),
}

/// A literal; numbers are still the text of the JSON string.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Literal<'a> {
    Bool(bool),
    Int { bits: u16, signed: bool, value: &'a str },
    Float { bits: u16, value: &'a str },
}

/// An expression.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Expr<'a> {
    Var(&'a str),
    Lit(Literal<'a>),
    Binary { left: &'a Expr<'a>, op: BinaryOp, right: &'a Expr<'a> },
    Cmp { left: &'a Expr<'a>, op: CmpOp, right: &'a Expr<'a> },
    FunctionRef(&'a str),
    Call { callee: &'a Callee<'a>, args: &'a [Expr<'a>] },
    NullFunction(&'a Signature<'a>),
}

/// What a call calls.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Callee<'a> {
    Direct(&'a str),
    Indirect(&'a Expr<'a>),
}

/// A statement.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
// The variants are the JSON tags of `frontend::Stmt`, `ExprStmt` included.
#[allow(clippy::enum_variant_names)]
pub(super) enum Stmt<'a> {
    Return(Option<&'a Expr<'a>>),
    ConstDecl { name: &'a str, ty: &'a Type<'a>, init: &'a Expr<'a> },
    VarDecl { name: &'a str, ty: &'a Type<'a>, init: Option<&'a Expr<'a>> },
    Assign { name: &'a str, value: &'a Expr<'a> },
    ExprStmt(&'a Expr<'a>),
    If { cond: &'a Expr<'a>, then_body: &'a [Stmt<'a>], else_body: &'a [Stmt<'a>] },
    While { cond: &'a Expr<'a>, body: &'a [Stmt<'a>] },
    Break,
    Continue,
}

// ---- owned → borrowed ----------------------------------------------------------------

/// `program` as a tree in `bump`, borrowing its strings.
///
/// Recursion follows the program's nesting; lowering bounds that nesting with
/// [`super::MAX_NESTING`] only later, so a program nested deeper than a decoded
/// one can be (only code can build one) is viewed only up to that depth and the
/// rest replaced by `Void`/`Break`/`Var("")` placeholders that lowering never
/// reaches, because it stops at the limit first.
pub(super) fn borrow<'a>(program: &'a frontend::Program, bump: &'a Bump) -> Program<'a> {
    let b = Borrow { bump };
    Program {
        declarations: bump.alloc_slice_fill_iter(program.declarations.iter().map(|d| FunctionDeclaration {
            name: &d.name,
            signature: b.signature(&d.signature, 0),
            linkage: d.linkage,
            link_name: d.link_name.as_deref(),
        })),
        globals: bump.alloc_slice_fill_iter(program.globals.iter().map(|g| GlobalConst {
            name: &g.name,
            ty: b.ty(&g.ty, 0),
            init: b.expr(&g.init, 0),
        })),
        functions: bump.alloc_slice_fill_iter(program.functions.iter().map(|f| Function {
            convention: f.convention,
            linkage: f.linkage,
            link_name: f.link_name.as_deref(),
            name: &f.name,
            parameters:
                bump.alloc_slice_fill_iter(f.parameters.iter().map(|p| Param { name: &p.name, ty: b.ty(&p.ty, 0) })),
            return_type: b.ty(&f.return_type, 0),
            body: b.stmts(&f.body, 0),
        })),
    }
}

/// Views past this depth are cut off (see [`borrow`]); lowering's own limit is lower.
const VIEW_DEPTH: usize = 2 * super::MAX_NESTING + 8;

struct Borrow<'a> {
    bump: &'a Bump,
}

impl<'a> Borrow<'a> {
    fn ty(&self, ty: &'a frontend::Type, depth: usize) -> Type<'a> {
        if depth > VIEW_DEPTH {
            return Type::Void;
        }
        match ty {
            frontend::Type::Int { bits, signed } => Type::Int { bits: *bits, signed: *signed },
            frontend::Type::Float { bits } => Type::Float { bits: *bits },
            frontend::Type::Ptr(pointee) => Type::Ptr(self.bump.alloc(self.ty(pointee, depth + 1))),
            frontend::Type::Array { elem, len } => {
                Type::Array { elem: self.bump.alloc(self.ty(elem, depth + 1)), len: *len }
            }
            frontend::Type::Opaque(name) => Type::Opaque(name),
            frontend::Type::Void => Type::Void,
            frontend::Type::Bool => Type::Bool,
            frontend::Type::FnPtr(sig) => Type::FnPtr(self.bump.alloc(self.signature(sig, depth + 1))),
        }
    }

    fn signature(&self, sig: &'a frontend::Signature, depth: usize) -> Signature<'a> {
        Signature {
            params: self.bump.alloc_slice_fill_iter(sig.params.iter().map(|p| self.ty(p, depth + 1))),
            ret: self.ty(&sig.ret, depth + 1),
            convention: sig.convention,
            variadic: sig.variadic,
        }
    }

    fn literal(lit: &'a frontend::Literal) -> Literal<'a> {
        match lit {
            frontend::Literal::Bool(b) => Literal::Bool(*b),
            frontend::Literal::Int { bits, signed, value } => Literal::Int { bits: *bits, signed: *signed, value },
            frontend::Literal::Float { bits, value } => Literal::Float { bits: *bits, value },
        }
    }

    fn expr(&self, expr: &'a frontend::Expr, depth: usize) -> Expr<'a> {
        if depth > VIEW_DEPTH {
            return Expr::Var("");
        }
        let sub = |e: &'a frontend::Expr| &*self.bump.alloc(self.expr(e, depth + 1));
        match expr {
            frontend::Expr::Var(name) => Expr::Var(name),
            frontend::Expr::Lit(lit) => Expr::Lit(Self::literal(lit)),
            frontend::Expr::Binary { left, op, right } => Expr::Binary { left: sub(left), op: *op, right: sub(right) },
            frontend::Expr::Cmp { left, op, right } => Expr::Cmp { left: sub(left), op: *op, right: sub(right) },
            frontend::Expr::FunctionRef(name) => Expr::FunctionRef(name),
            frontend::Expr::Call { callee, args } => Expr::Call {
                callee: self.bump.alloc(match callee {
                    frontend::Callee::Direct(name) => Callee::Direct(name),
                    frontend::Callee::Indirect(callee) => Callee::Indirect(sub(callee)),
                }),
                args: self.bump.alloc_slice_fill_iter(args.iter().map(|a| self.expr(a, depth + 1))),
            },
            frontend::Expr::NullFunction(sig) => Expr::NullFunction(self.bump.alloc(self.signature(sig, depth + 1))),
        }
    }

    fn stmts(&self, stmts: &'a [frontend::Stmt], depth: usize) -> &'a [Stmt<'a>] {
        self.bump.alloc_slice_fill_iter(stmts.iter().map(|s| self.stmt(s, depth + 1)))
    }

    fn stmt(&self, stmt: &'a frontend::Stmt, depth: usize) -> Stmt<'a> {
        if depth > VIEW_DEPTH {
            return Stmt::Break;
        }
        let expr = |e: &'a frontend::Expr| &*self.bump.alloc(self.expr(e, depth + 1));
        let ty = |t: &'a frontend::Type| &*self.bump.alloc(self.ty(t, depth + 1));
        match stmt {
            frontend::Stmt::Return(value) => Stmt::Return(value.as_ref().map(expr)),
            frontend::Stmt::ConstDecl { name, ty: t, init } => Stmt::ConstDecl { name, ty: ty(t), init: expr(init) },
            frontend::Stmt::VarDecl { name, ty: t, init } => {
                Stmt::VarDecl { name, ty: ty(t), init: init.as_ref().map(expr) }
            }
            frontend::Stmt::Assign { name, value } => Stmt::Assign { name, value: expr(value) },
            frontend::Stmt::ExprStmt(e) => Stmt::ExprStmt(expr(e)),
            frontend::Stmt::If { cond, then_body, else_body } => Stmt::If {
                cond: expr(cond),
                then_body: self.stmts(then_body, depth),
                else_body: self.stmts(else_body, depth),
            },
            frontend::Stmt::While { cond, body } => Stmt::While { cond: expr(cond), body: self.stmts(body, depth) },
            frontend::Stmt::Break => Stmt::Break,
            frontend::Stmt::Continue => Stmt::Continue,
        }
    }
}

// ---- borrowed → owned ----------------------------------------------------------------

/// The owned program with the same nodes and strings as `program`.
///
/// Recursion follows the tree's nesting, which the fast reader bounds.
pub(super) fn to_owned(program: &Program<'_>) -> frontend::Program {
    frontend::Program {
        declarations: program
            .declarations
            .iter()
            .map(|d| frontend::FunctionDeclaration {
                name: d.name.to_owned(),
                signature: owned_signature(&d.signature),
                linkage: d.linkage,
                link_name: d.link_name.map(str::to_owned),
            })
            .collect(),
        globals: program
            .globals
            .iter()
            .map(|g| frontend::GlobalConst {
                name: g.name.to_owned(),
                ty: owned_type(&g.ty),
                init: owned_expr(&g.init),
            })
            .collect(),
        functions: program
            .functions
            .iter()
            .map(|f| frontend::Function {
                convention: f.convention,
                linkage: f.linkage,
                link_name: f.link_name.map(str::to_owned),
                name: f.name.to_owned(),
                parameters: f
                    .parameters
                    .iter()
                    .map(|p| frontend::Param { name: p.name.to_owned(), ty: owned_type(&p.ty) })
                    .collect(),
                return_type: owned_type(&f.return_type),
                body: owned_stmts(f.body),
            })
            .collect(),
    }
}

fn owned_type(ty: &Type<'_>) -> frontend::Type {
    match *ty {
        Type::Int { bits, signed } => frontend::Type::Int { bits, signed },
        Type::Float { bits } => frontend::Type::Float { bits },
        Type::Ptr(pointee) => frontend::Type::Ptr(Box::new(owned_type(pointee))),
        Type::Array { elem, len } => frontend::Type::Array { elem: Box::new(owned_type(elem)), len },
        Type::Opaque(name) => frontend::Type::Opaque(name.to_owned()),
        Type::Void => frontend::Type::Void,
        Type::Bool => frontend::Type::Bool,
        Type::FnPtr(sig) => frontend::Type::FnPtr(Box::new(owned_signature(sig))),
    }
}

fn owned_signature(sig: &Signature<'_>) -> frontend::Signature {
    frontend::Signature {
        params: sig.params.iter().map(owned_type).collect(),
        ret: owned_type(&sig.ret),
        convention: sig.convention,
        variadic: sig.variadic,
    }
}

fn owned_expr(expr: &Expr<'_>) -> frontend::Expr {
    let boxed = |e: &Expr<'_>| Box::new(owned_expr(e));
    match *expr {
        Expr::Var(name) => frontend::Expr::Var(name.to_owned()),
        Expr::Lit(lit) => frontend::Expr::Lit(match lit {
            Literal::Bool(b) => frontend::Literal::Bool(b),
            Literal::Int { bits, signed, value } => frontend::Literal::Int { bits, signed, value: value.to_owned() },
            Literal::Float { bits, value } => frontend::Literal::Float { bits, value: value.to_owned() },
        }),
        Expr::Binary { left, op, right } => frontend::Expr::Binary { left: boxed(left), op, right: boxed(right) },
        Expr::Cmp { left, op, right } => frontend::Expr::Cmp { left: boxed(left), op, right: boxed(right) },
        Expr::FunctionRef(name) => frontend::Expr::FunctionRef(name.to_owned()),
        Expr::Call { callee, args } => frontend::Expr::Call {
            callee: match *callee {
                Callee::Direct(name) => frontend::Callee::Direct(name.to_owned()),
                Callee::Indirect(callee) => frontend::Callee::Indirect(boxed(callee)),
            },
            args: args.iter().map(owned_expr).collect(),
        },
        Expr::NullFunction(sig) => frontend::Expr::NullFunction(owned_signature(sig)),
    }
}

fn owned_stmts(stmts: &[Stmt<'_>]) -> Vec<frontend::Stmt> {
    stmts.iter().map(owned_stmt).collect()
}

fn owned_stmt(stmt: &Stmt<'_>) -> frontend::Stmt {
    match *stmt {
        Stmt::Return(value) => frontend::Stmt::Return(value.map(owned_expr)),
        Stmt::ConstDecl { name, ty, init } => {
            frontend::Stmt::ConstDecl { name: name.to_owned(), ty: owned_type(ty), init: owned_expr(init) }
        }
        Stmt::VarDecl { name, ty, init } => {
            frontend::Stmt::VarDecl { name: name.to_owned(), ty: owned_type(ty), init: init.map(owned_expr) }
        }
        Stmt::Assign { name, value } => frontend::Stmt::Assign { name: name.to_owned(), value: owned_expr(value) },
        Stmt::ExprStmt(expr) => frontend::Stmt::ExprStmt(owned_expr(expr)),
        Stmt::If { cond, then_body, else_body } => frontend::Stmt::If {
            cond: owned_expr(cond),
            then_body: owned_stmts(then_body),
            else_body: owned_stmts(else_body),
        },
        Stmt::While { cond, body } => frontend::Stmt::While { cond: owned_expr(cond), body: owned_stmts(body) },
        Stmt::Break => frontend::Stmt::Break,
        Stmt::Continue => frontend::Stmt::Continue,
    }
}

// Nodes are copied on every list push and read once by lowering: keep them small.
const _: () = assert!(std::mem::size_of::<Expr<'static>>() <= 32);
const _: () = assert!(std::mem::size_of::<Stmt<'static>>() <= 48);
