//! O0 lowering: an AST [`Program`] to an IR [`Module`], statement by statement
//! (whale-upstream §f.3, with whale-ir §6's `uninit`).
//!
//! Nothing is optimised or folded. Every parameter and variable lives in an
//! entry-block `alloca` (placed by `alloca_in_entry` after the leading allocas),
//! every read is a `load`, every constant read of a global re-materialises its
//! value, and constant conditions still branch. Blocks are created in a fixed
//! order with fixed names (`if.then`/`if.else`/`if.cont`,
//! `while.cond`/`while.body`/`while.exit`, `unreachable.cont`), so value and block
//! numbers are exactly upstream's.
//!
//! Names are resolved through a scope stack with an undo log: entering an `if`
//! arm or a loop body records a mark, leaving it pops the bindings made since,
//! so declarations never escape an arm and lookups stay O(1). Recursion over
//! statements, expressions and types carries a depth checked against
//! [`super::MAX_NESTING`].

use rustc_hash::{FxHashMap, FxHashSet};

use crate::build_error::CallError;
use crate::builder::{FunctionBuilder, ModuleBuilder};
use crate::const_expr::ConstRef;
use crate::constant::ConstValue;
use crate::entity::{BlockId, GlobalId, ValueId};
use crate::layout::{allocation_align, LayoutError};
use crate::module::{Linkage, Module};
use crate::target::{DataLayout, Target};
use crate::types::{FunctionSignature, Type};

use super::convert::{self, check_depth, const_expr, evaluate, lower_signature, lower_type, ConstName};
use super::error::LowerError;
use super::frontend::{self as ast, Program, Stmt};

/// Lowers `program` for `target` (whose data layout must be `layout`) at O0.
///
/// The module is not verified; callers run [`crate::verify_module`].
///
/// ```
/// use ir::lower_ast::{interchange::decode, lower_o0};
/// use ir::DataLayout;
/// let json = r#"{"format_version": 2, "semantics_version": 1, "features": [], "program": {
///   "declarations": [], "globals": [], "functions": [{"convention": "Whale", "linkage": "Internal",
///   "name": "unit", "parameters": [], "return_type": "Void", "body": []}]}}"#;
/// let module = lower_o0(&decode(json).unwrap(), "x86_64-whale-linux", DataLayout::default_64bit_le()).unwrap();
/// assert!(ir::verify_module(&module).is_ok());
/// assert!(ir::print_module(&module).contains("  entry:\n    ret void\n"));
/// ```
pub fn lower_o0(program: &Program, target: &str, layout: DataLayout) -> Result<Module, LowerError> {
    let target = Target::lookup(target)?;
    target.validate_layout(layout)?;
    check_names(program)?;

    let mut mb = ModuleBuilder::new(target.name(), layout);
    for decl in &program.declarations {
        let signature = lower_signature(&decl.signature, 0)?;
        mb.declare_function(&decl.name, signature, convert::linkage(decl.linkage), decl.link_name.clone())?;
    }
    let mut definitions = Vec::with_capacity(program.functions.len());
    for function in &program.functions {
        let params = function.parameters.iter().map(|p| lower_type(&p.ty, 0)).collect::<Result<Vec<_>, _>>()?;
        let signature = FunctionSignature {
            params: params.clone(),
            ret: lower_type(&function.return_type, 0)?,
            convention: convert::convention(function.convention),
            variadic: false,
        };
        let ret = signature.ret.clone();
        let id = mb.declare_function(
            &function.name,
            signature,
            convert::linkage(function.linkage),
            function.link_name.clone(),
        )?;
        definitions.push((id, params, ret));
    }
    let defined: FxHashSet<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
    for decl in &program.declarations {
        if convert::linkage(decl.linkage) == Linkage::Internal && !defined.contains(decl.name.as_str()) {
            let id = mb.function_id(&decl.name)?;
            return Err(CallError::MissingDefinition(id).into());
        }
    }

    let globals = lower_globals(&mut mb, &program.globals)?;

    let mut aligns = AlignCache::default();
    for (function, (id, params, ret)) in program.functions.iter().zip(definitions) {
        let names = function.parameters.iter().map(|p| p.name.clone()).collect();
        let fb = mb.begin_declared_function(id, names)?;
        let mut body = Body {
            fb,
            globals: &globals,
            aligns: &mut aligns,
            ret,
            scopes: Scopes::default(),
            loops: Vec::new(),
            local_consts: FxHashMap::default(),
        };
        body.lower(function, params)?;
        body.fb.finish();
    }
    Ok(mb.finish())
}

/// Duplicate function names, then duplicate parameter names, before anything is built.
fn check_names(program: &Program) -> Result<(), LowerError> {
    let mut functions = FxHashSet::default();
    for function in &program.functions {
        if !functions.insert(function.name.as_str()) {
            return Err(LowerError::DuplicateFunction(function.name.clone()));
        }
    }
    for function in &program.functions {
        let mut params = FxHashSet::default();
        for param in &function.parameters {
            if !params.insert(param.name.as_str()) {
                return Err(LowerError::DuplicateParameter { func: function.name.clone(), param: param.name.clone() });
            }
        }
    }
    Ok(())
}

/// Lowered globals: identity by name, and type and value by identity.
#[derive(Default)]
pub(super) struct Globals {
    by_name: FxHashMap<String, GlobalId>,
    values: Vec<(Type, ConstValue)>,
}

impl Globals {
    pub(super) fn get(&self, name: &str) -> Option<(GlobalId, &Type, ConstValue)> {
        let id = *self.by_name.get(name)?;
        let (ty, value) = self.values.get(id.as_u32() as usize)?;
        Some((id, ty, *value))
    }

    fn value(&self, id: GlobalId) -> Option<(Type, ConstValue)> {
        self.values.get(id.as_u32() as usize).cloned()
    }
}

/// Globals in order: each initializer may use literals, arithmetic, comparisons
/// and earlier globals only.
fn lower_globals(mb: &mut ModuleBuilder, globals: &[ast::GlobalConst]) -> Result<Globals, LowerError> {
    let mut lowered = Globals::default();
    for global in globals {
        if lowered.by_name.contains_key(&global.name) {
            return Err(LowerError::DuplicateGlobal(global.name.clone()));
        }
        let ty = lower_type(&global.ty, 0)?;
        let lookup = |name: &str| match lowered.get(name) {
            Some((id, ty, _)) => ConstName::Constant(ConstRef::Global(id), ty.clone()),
            None => ConstName::Unknown,
        };
        let expr = const_expr(&global.init, 0, &lookup)?;
        if expr.ty != ty {
            return Err(LowerError::TypeMismatch { expected: ty, got: expr.ty });
        }
        let value = evaluate(&expr, &mut |r| match r {
            ConstRef::Global(id) => lowered.value(id),
            ConstRef::Local(_) => None,
        })?;
        let align = allocation_align(&ty)?;
        let id = mb.add_global_const(&global.name, expr, value, align);
        debug_assert_eq!(id.as_u32() as usize, lowered.values.len());
        lowered.by_name.insert(global.name.clone(), id);
        lowered.values.push((ty, value));
    }
    Ok(lowered)
}

/// [`allocation_align`] by type, for the slots of one module: computing it
/// interns the type in a fresh table, which would dominate lowering if done per
/// variable.
#[derive(Default)]
pub(super) struct AlignCache(FxHashMap<Type, u32>);

impl AlignCache {
    fn get(&mut self, ty: &Type) -> Result<u32, LayoutError> {
        if let Some(&align) = self.0.get(ty) {
            return Ok(align);
        }
        let align = allocation_align(ty)?;
        self.0.insert(ty.clone(), align);
        Ok(align)
    }
}

/// What a local name is bound to.
#[derive(Clone)]
pub(super) enum Binding {
    /// A variable or parameter: its stack slot.
    Slot {
        /// The `alloca` result.
        ptr: ValueId,
        /// The stored type.
        ty: Type,
        /// The slot's alignment.
        align: u32,
    },
    /// A local constant: its `const_decl` value, read without a load.
    Const {
        /// The `const_decl` result.
        value: ValueId,
        /// Its type.
        ty: Type,
    },
}

/// Nested scopes as one map of binding stacks plus an undo log.
#[derive(Default)]
pub(super) struct Scopes {
    map: FxHashMap<String, Vec<Binding>>,
    log: Vec<String>,
}

impl Scopes {
    fn bind(&mut self, name: &str, binding: Binding) {
        self.map.entry(name.to_string()).or_default().push(binding);
        self.log.push(name.to_string());
    }

    /// The newest visible binding of `name`.
    pub(super) fn get(&self, name: &str) -> Option<&Binding> {
        self.map.get(name).and_then(|stack| stack.last())
    }

    fn mark(&self) -> usize {
        self.log.len()
    }

    /// Drops every binding made since `mark`.
    fn restore(&mut self, mark: usize) {
        while self.log.len() > mark {
            if let Some(name) = self.log.pop() {
                if let Some(stack) = self.map.get_mut(&name) {
                    stack.pop();
                }
            }
        }
    }
}

/// The state of one function body being lowered.
pub(super) struct Body<'g, 'm> {
    pub(super) fb: FunctionBuilder<'m>,
    pub(super) globals: &'g Globals,
    /// Slot alignments, shared by the module's bodies.
    pub(super) aligns: &'g mut AlignCache,
    pub(super) ret: Type,
    pub(super) scopes: Scopes,
    /// `(while.cond, while.exit)` of each enclosing loop, innermost last.
    pub(super) loops: Vec<(BlockId, BlockId)>,
    /// Type and value of each local `const_decl`, for evaluating later ones.
    pub(super) local_consts: FxHashMap<ValueId, (Type, ConstValue)>,
}

impl Body<'_, '_> {
    fn lower(&mut self, function: &ast::Function, params: Vec<Type>) -> Result<(), LowerError> {
        for (index, (param, ty)) in function.parameters.iter().zip(params).enumerate() {
            let align = self.aligns.get(&ty)?;
            let ptr = self.fb.alloca_in_entry(ty.clone(), align);
            let value = self.fb.param_value(index);
            self.fb.store(ty.clone(), value, ptr, align);
            self.scopes.bind(&param.name, Binding::Slot { ptr, ty, align });
        }
        self.stmts(&function.body, 0)?;
        if !self.fb.is_current_block_terminated() {
            if self.ret == Type::Void {
                self.fb.ret(None);
            } else {
                self.fb.trap("missing return");
            }
        }
        Ok(())
    }

    fn stmts(&mut self, stmts: &[Stmt], depth: usize) -> Result<(), LowerError> {
        stmts.iter().try_for_each(|stmt| self.stmt(stmt, depth))
    }

    /// Lowers `stmts` in a nested scope.
    fn scoped(&mut self, stmts: &[Stmt], depth: usize) -> Result<(), LowerError> {
        let mark = self.scopes.mark();
        self.stmts(stmts, depth)?;
        self.scopes.restore(mark);
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt, depth: usize) -> Result<(), LowerError> {
        check_depth(depth)?;
        if self.fb.is_current_block_terminated() {
            // Dead statements are kept (and fully checked) in a block no edge reaches.
            let block = self.fb.create_block("unreachable.cont");
            self.fb.set_insert_point(block);
        }
        match stmt {
            Stmt::Return(None) => {
                if self.ret != Type::Void {
                    return Err(LowerError::UnsupportedStmt);
                }
                self.fb.ret(None);
            }
            Stmt::Return(Some(expr)) => {
                if self.ret == Type::Void {
                    return Err(LowerError::ValueReturnedFromVoid);
                }
                let (value, ty) = self.value(expr, depth + 1)?;
                expect_type(&self.ret, ty)?;
                self.fb.ret(Some(value));
            }
            Stmt::ConstDecl { name, ty, init } => self.const_decl(name, ty, init, depth)?,
            Stmt::VarDecl { name, ty, init } => {
                let ty = lower_type(ty, depth + 1)?;
                let value = match init {
                    Some(init) => {
                        let (value, got) = self.value(init, depth + 1)?;
                        expect_type(&ty, got)?;
                        Some(value)
                    }
                    None => None,
                };
                let align = self.aligns.get(&ty)?;
                let ptr = self.fb.alloca_in_entry(ty.clone(), align);
                match value {
                    Some(value) => self.fb.store(ty.clone(), value, ptr, align),
                    // whale-ir §6: marked uninitialised here, on every execution.
                    None => self.fb.uninit(ty.clone(), ptr, align),
                }
                self.scopes.bind(name, Binding::Slot { ptr, ty, align });
            }
            Stmt::Assign { name, value } => {
                let (value, got) = self.value(value, depth + 1)?;
                match self.scopes.get(name) {
                    None => return Err(LowerError::UnknownVariable(name.clone())),
                    Some(Binding::Const { .. }) => return Err(LowerError::AssignToConst(name.clone())),
                    Some(Binding::Slot { ptr, ty, align }) => {
                        let (ptr, ty, align) = (*ptr, ty.clone(), *align);
                        expect_type(&ty, got)?;
                        self.fb.store(ty, value, ptr, align);
                    }
                }
            }
            Stmt::ExprStmt(expr) => {
                self.expr(expr, depth + 1)?;
            }
            Stmt::If { cond, then_body, else_body } => {
                let cond = self.condition(cond, depth + 1)?;
                let then_block = self.fb.create_block("if.then");
                let else_block = self.fb.create_block("if.else");
                let cont = self.fb.create_block("if.cont");
                self.fb.cbr(cond, then_block, else_block);
                for (block, body) in [(then_block, then_body), (else_block, else_body)] {
                    self.fb.set_insert_point(block);
                    self.scoped(body, depth + 1)?;
                    if !self.fb.is_current_block_terminated() {
                        self.fb.br(cont);
                    }
                }
                self.fb.set_insert_point(cont);
            }
            Stmt::While { cond, body } => {
                let head = self.fb.create_block("while.cond");
                let body_block = self.fb.create_block("while.body");
                let exit = self.fb.create_block("while.exit");
                self.fb.br(head);
                self.fb.set_insert_point(head);
                let cond = self.condition(cond, depth + 1)?;
                self.fb.cbr(cond, body_block, exit);
                self.fb.set_insert_point(body_block);
                self.loops.push((head, exit));
                self.scoped(body, depth + 1)?;
                self.loops.pop();
                if !self.fb.is_current_block_terminated() {
                    self.fb.br(head);
                }
                self.fb.set_insert_point(exit);
            }
            Stmt::Break => {
                let &(_, exit) = self.loops.last().ok_or(LowerError::BreakOutsideLoop)?;
                self.fb.br(exit);
            }
            Stmt::Continue => {
                let &(head, _) = self.loops.last().ok_or(LowerError::ContinueOutsideLoop)?;
                self.fb.br(head);
            }
        }
        Ok(())
    }

    /// A branch condition: a `bool` value.
    fn condition(&mut self, cond: &ast::Expr, depth: usize) -> Result<ValueId, LowerError> {
        let (value, ty) = self.value(cond, depth)?;
        expect_type(&Type::Bool, ty)?;
        Ok(value)
    }

    /// `const_decl "name" EXPR => const T V`, bound to `name` without a slot.
    fn const_decl(&mut self, name: &str, ty: &ast::Type, init: &ast::Expr, depth: usize) -> Result<(), LowerError> {
        let ty = lower_type(ty, depth + 1)?;
        let (scopes, globals) = (&self.scopes, self.globals);
        let lookup = |name: &str| match scopes.get(name) {
            Some(Binding::Slot { .. }) => ConstName::Runtime,
            Some(Binding::Const { value, ty }) => ConstName::Constant(ConstRef::Local(*value), ty.clone()),
            None => match globals.get(name) {
                Some((id, ty, _)) => ConstName::Constant(ConstRef::Global(id), ty.clone()),
                None => ConstName::Unknown,
            },
        };
        let expr = const_expr(init, depth + 1, &lookup)?;
        if expr.ty != ty {
            return Err(LowerError::TypeMismatch { expected: ty, got: expr.ty });
        }
        let local_consts = &self.local_consts;
        let payload = evaluate(&expr, &mut |r| match r {
            ConstRef::Global(id) => globals.value(id),
            ConstRef::Local(v) => local_consts.get(&v).cloned(),
        })?;
        let value = self.fb.const_decl(name, expr, payload);
        self.local_consts.insert(value, (ty.clone(), payload));
        self.scopes.bind(name, Binding::Const { value, ty });
        Ok(())
    }
}

/// `got` must be exactly `expected` (there are no implicit conversions).
pub(super) fn expect_type(expected: &Type, got: Type) -> Result<(), LowerError> {
    if *expected == got {
        Ok(())
    } else {
        Err(LowerError::TypeMismatch { expected: expected.clone(), got })
    }
}
