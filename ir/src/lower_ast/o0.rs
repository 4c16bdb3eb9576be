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
//! The walk allocates almost nothing per node. Types are `Copy` ids of the
//! lowering's own table (see [`super::convert::Types`]). Names are borrowed from
//! the program and numbered once per module; a binding is a `Copy` value in a
//! table indexed by that number, and an undo log of replaced bindings gives
//! nested scopes: entering an `if` arm or a loop body records a mark, leaving it
//! restores what the arm shadowed, so declarations never escape an arm and
//! lookups are one hash probe. The result type of every declared function is
//! kept by function id, so a call does not rebuild its callee's signature.
//! Recursion over statements, expressions and types carries a depth checked
//! against [`super::MAX_NESTING`].

use rustc_hash::{FxHashMap, FxHashSet};

use crate::build_error::CallError;
use crate::builder::{FunctionBuilder, ModuleBuilder};
use crate::const_expr::ConstRef;
use crate::constant::ConstValue;
use crate::entity::{BlockId, EntityRef, FunctionId, GlobalId, SigId, StrId, TypeId, ValueId};
use crate::module::{Linkage, Module};
use crate::target::{DataLayout, Target};
use crate::types::Type;

use super::convert::{self, check_depth, const_expr, evaluate, ConstName, Types};
use super::error::LowerError;
use super::frontend;
use super::tree::{self as ast, Program, Stmt};

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
pub fn lower_o0(program: &frontend::Program, target: &str, layout: DataLayout) -> Result<Module, LowerError> {
    let bump = bumpalo::Bump::new();
    lower_tree(&ast::borrow(program, &bump), target, layout, 0)
}

/// [`lower_o0`] of the tree view of a program.
///
/// `inst_hint` estimates the instruction count, to size the module's tables.
pub(super) fn lower_tree(
    program: &Program<'_>,
    target: &str,
    layout: DataLayout,
    inst_hint: usize,
) -> Result<Module, LowerError> {
    let target = Target::lookup(target)?;
    target.validate_layout(layout)?;
    check_names(program)?;

    let mut mb = ModuleBuilder::new(target.name(), layout);
    mb.reserve_insts(inst_hint);
    let mut types = Types::new();
    let mut functions = Functions::default();
    for decl in program.declarations {
        let sig = types.signature(&decl.signature, 0)?;
        let signature = types.signature_of(sig);
        let link_name = decl.link_name.map(str::to_owned);
        let id = mb.declare_function(decl.name, signature, convert::linkage(decl.linkage), link_name)?;
        functions.record(id, sig, &mut types);
    }
    let mut definitions = Vec::with_capacity(program.functions.len());
    for function in program.functions {
        let params = function.parameters.iter().map(|p| types.lower(&p.ty, 0)).collect::<Result<Vec<_>, _>>()?;
        let ret = types.lower(&function.return_type, 0)?;
        let sig = types.definition_signature(&params, ret, function.convention);
        let id = mb.declare_function(
            function.name,
            types.signature_of(sig),
            convert::linkage(function.linkage),
            function.link_name.map(str::to_owned),
        )?;
        functions.record(id, sig, &mut types);
        definitions.push((id, params, ret));
    }
    let defined: FxHashSet<&str> = program.functions.iter().map(|f| f.name).collect();
    for decl in program.declarations {
        if convert::linkage(decl.linkage) == Linkage::Internal && !defined.contains(decl.name) {
            let id = mb.function_id(decl.name)?;
            return Err(CallError::MissingDefinition(id).into());
        }
    }

    let globals = lower_globals(&mut mb, program.globals, &mut types)?;

    let mut scopes = Scopes::default();
    let mut block_names = [None; BlockName::COUNT];
    for (function, (id, params, ret)) in program.functions.iter().zip(definitions) {
        let names = function.parameters.iter().map(|p| p.name.to_owned()).collect();
        let fb = mb.begin_declared_function(id, names)?;
        let mut body = Body {
            fb,
            globals: &globals,
            functions: &functions,
            types: &mut types,
            ret,
            scopes: &mut scopes,
            loops: Vec::new(),
            local_consts: FxHashMap::default(),
            args: Vec::new(),
            block_names: &mut block_names,
        };
        body.lower(function, &params)?;
        body.fb.finish();
        // Every binding of the body is undone, keeping the name numbers.
        scopes.restore(0);
    }
    Ok(mb.finish())
}

/// The result type and function-pointer type of each declared function, by id.
#[derive(Default)]
pub(super) struct Functions {
    by_id: Vec<Option<(TypeId, TypeId)>>,
}

impl Functions {
    fn record(&mut self, id: FunctionId, sig: SigId, types: &mut Types) {
        if self.by_id.len() <= id.index() {
            self.by_id.resize(id.index() + 1, None);
        }
        let ret = types.sig_ret(sig);
        self.by_id[id.index()] = Some((ret, types.fn_ptr(sig)));
    }

    /// The result type of calls to `id`.
    pub(super) fn ret(&self, id: FunctionId) -> Result<TypeId, CallError> {
        self.get(id).map(|(ret, _)| ret)
    }

    /// The type of `function_addr id`.
    pub(super) fn fn_ptr(&self, id: FunctionId) -> Result<TypeId, CallError> {
        self.get(id).map(|(_, fn_ptr)| fn_ptr)
    }

    fn get(&self, id: FunctionId) -> Result<(TypeId, TypeId), CallError> {
        self.by_id.get(id.index()).copied().flatten().ok_or(CallError::UnknownFunction(id))
    }
}

/// Duplicate function names, then duplicate parameter names, before anything is built.
fn check_names(program: &Program<'_>) -> Result<(), LowerError> {
    let mut functions = FxHashSet::default();
    for function in program.functions {
        if !functions.insert(function.name) {
            return Err(LowerError::DuplicateFunction(function.name.to_owned()));
        }
    }
    for function in program.functions {
        let mut params = FxHashSet::default();
        for param in function.parameters {
            if !params.insert(param.name) {
                let (func, param) = (function.name.to_owned(), param.name.to_owned());
                return Err(LowerError::DuplicateParameter { func, param });
            }
        }
    }
    Ok(())
}

/// Lowered globals: identity by name, and type and value by identity.
#[derive(Default)]
pub(super) struct Globals<'p> {
    by_name: FxHashMap<&'p str, GlobalId>,
    values: Vec<(TypeId, ConstValue)>,
}

impl Globals<'_> {
    pub(super) fn get(&self, name: &str) -> Option<(GlobalId, TypeId, ConstValue)> {
        let id = *self.by_name.get(name)?;
        let &(ty, value) = self.values.get(id.index())?;
        Some((id, ty, value))
    }

    fn value(&self, id: GlobalId, types: &Types) -> Option<(Type, ConstValue)> {
        self.values.get(id.index()).map(|&(ty, value)| (types.ty(ty), value))
    }
}

/// Globals in order: each initializer may use literals, arithmetic, comparisons
/// and earlier globals only.
fn lower_globals<'p>(
    mb: &mut ModuleBuilder,
    globals: &'p [ast::GlobalConst<'p>],
    types: &mut Types,
) -> Result<Globals<'p>, LowerError> {
    let mut lowered = Globals::default();
    for global in globals {
        if lowered.by_name.contains_key(global.name) {
            return Err(LowerError::DuplicateGlobal(global.name.to_owned()));
        }
        let ty = types.lower(&global.ty, 0)?;
        let expr = {
            let (lowered, types) = (&lowered, &*types);
            let lookup = |name: &str| match lowered.get(name) {
                Some((id, ty, _)) => ConstName::Constant(ConstRef::Global(id), types.ty(ty)),
                None => ConstName::Unknown,
            };
            const_expr(&global.init, 0, &lookup)?
        };
        let declared = types.ty(ty);
        if expr.ty != declared {
            return Err(LowerError::TypeMismatch { expected: declared, got: expr.ty });
        }
        let value = evaluate(&expr, &mut |r| match r {
            ConstRef::Global(id) => lowered.value(id, types),
            ConstRef::Local(_) => None,
        })?;
        let align = types.align(ty)?;
        let id = mb.add_global_const(global.name, expr, value, align);
        debug_assert_eq!(id.index(), lowered.values.len());
        lowered.by_name.insert(global.name, id);
        lowered.values.push((ty, value));
    }
    Ok(lowered)
}

/// What a local name is bound to.
#[derive(Clone, Copy)]
pub(super) enum Binding {
    /// A variable or parameter: its stack slot.
    Slot {
        /// The `alloca` result.
        ptr: ValueId,
        /// The stored type.
        ty: TypeId,
        /// The slot's alignment.
        align: u32,
    },
    /// A local constant: its `const_decl` value, read without a load.
    Const {
        /// The `const_decl` result.
        value: ValueId,
        /// Its type.
        ty: TypeId,
    },
}

/// Nested scopes: the visible binding of each name, by the name's number, and
/// an undo log of the bindings each new one replaced.
#[derive(Default)]
pub(super) struct Scopes<'p> {
    numbers: FxHashMap<&'p str, usize>,
    visible: Vec<Option<Binding>>,
    log: Vec<(usize, Option<Binding>)>,
}

impl<'p> Scopes<'p> {
    fn bind(&mut self, name: &'p str, binding: Binding) {
        let next = self.visible.len();
        let number = *self.numbers.entry(name).or_insert(next);
        if number == next {
            self.visible.push(None);
        }
        if let Some(slot) = self.visible.get_mut(number) {
            let replaced = slot.replace(binding);
            self.log.push((number, replaced));
        }
    }

    /// The newest visible binding of `name`.
    #[inline]
    pub(super) fn get(&self, name: &str) -> Option<Binding> {
        self.numbers.get(name).and_then(|&number| self.visible.get(number).copied().flatten())
    }

    fn mark(&self) -> usize {
        self.log.len()
    }

    /// Drops every binding made since `mark`, uncovering what they shadowed.
    fn restore(&mut self, mark: usize) {
        while self.log.len() > mark {
            if let Some((number, replaced)) = self.log.pop() {
                if let Some(slot) = self.visible.get_mut(number) {
                    *slot = replaced;
                }
            }
        }
    }
}

/// The state of one function body being lowered.
pub(super) struct Body<'p, 'a, 'm> {
    pub(super) fb: FunctionBuilder<'m>,
    pub(super) globals: &'a Globals<'p>,
    pub(super) functions: &'a Functions,
    /// The module's types, shared by its bodies.
    pub(super) types: &'a mut Types,
    pub(super) ret: TypeId,
    /// Shared by the module's bodies; empty between them.
    pub(super) scopes: &'a mut Scopes<'p>,
    /// `(while.cond, while.exit)` of each enclosing loop, innermost last.
    pub(super) loops: Vec<(BlockId, BlockId)>,
    /// Type and value of each local `const_decl`, for evaluating later ones.
    pub(super) local_consts: FxHashMap<ValueId, (TypeId, ConstValue)>,
    /// Arguments of the calls being lowered, innermost last.
    pub(super) args: Vec<ValueId>,
    /// The module's interned block names, by [`BlockName`].
    pub(super) block_names: &'a mut [Option<StrId>; BlockName::COUNT],
}

/// The names of the blocks lowering creates (upstream's).
#[derive(Clone, Copy)]
pub(super) enum BlockName {
    IfThen,
    IfElse,
    IfCont,
    WhileCond,
    WhileBody,
    WhileExit,
    UnreachableCont,
}

impl BlockName {
    const COUNT: usize = 7;

    fn text(self) -> &'static str {
        match self {
            BlockName::IfThen => "if.then",
            BlockName::IfElse => "if.else",
            BlockName::IfCont => "if.cont",
            BlockName::WhileCond => "while.cond",
            BlockName::WhileBody => "while.body",
            BlockName::WhileExit => "while.exit",
            BlockName::UnreachableCont => "unreachable.cont",
        }
    }
}

impl<'p> Body<'p, '_, '_> {
    fn lower(&mut self, function: &'p ast::Function<'p>, params: &[TypeId]) -> Result<(), LowerError> {
        for (index, (param, &ty)) in function.parameters.iter().zip(params).enumerate() {
            let align = self.types.align(ty)?;
            let module_ty = self.module_ty(ty);
            let ptr = self.fb.alloca_in_entry_id(module_ty, align);
            let value = self.fb.param_value(index);
            self.fb.store_id(module_ty, value, ptr, align);
            self.scopes.bind(param.name, Binding::Slot { ptr, ty, align });
        }
        self.stmts(function.body, 0)?;
        if !self.fb.is_current_block_terminated() {
            if self.ret == TypeId::VOID {
                self.fb.ret(None);
            } else {
                self.fb.trap("missing return");
            }
        }
        Ok(())
    }

    fn stmts(&mut self, stmts: &'p [Stmt<'p>], depth: usize) -> Result<(), LowerError> {
        stmts.iter().try_for_each(|stmt| self.stmt(stmt, depth))
    }

    /// Lowers `stmts` in a nested scope.
    fn scoped(&mut self, stmts: &'p [Stmt<'p>], depth: usize) -> Result<(), LowerError> {
        let mark = self.scopes.mark();
        self.stmts(stmts, depth)?;
        self.scopes.restore(mark);
        Ok(())
    }

    fn stmt(&mut self, stmt: &'p Stmt<'p>, depth: usize) -> Result<(), LowerError> {
        check_depth(depth)?;
        if self.fb.is_current_block_terminated() {
            // Dead statements are kept (and fully checked) in a block no edge reaches.
            let block = self.block(BlockName::UnreachableCont);
            self.fb.set_insert_point(block);
        }
        match stmt {
            Stmt::Return(None) => {
                if self.ret != TypeId::VOID {
                    return Err(LowerError::UnsupportedStmt);
                }
                self.fb.ret(None);
            }
            Stmt::Return(Some(expr)) => {
                if self.ret == TypeId::VOID {
                    return Err(LowerError::ValueReturnedFromVoid);
                }
                let (value, ty) = self.value(expr, depth + 1)?;
                self.types.expect(self.ret, ty)?;
                self.fb.ret(Some(value));
            }
            Stmt::ConstDecl { name, ty, init } => self.const_decl(name, ty, init, depth)?,
            Stmt::VarDecl { name, ty, init } => {
                let ty = self.types.lower(ty, depth + 1)?;
                let value = match init {
                    Some(init) => {
                        let (value, got) = self.value(init, depth + 1)?;
                        self.types.expect(ty, got)?;
                        Some(value)
                    }
                    None => None,
                };
                let align = self.types.align(ty)?;
                let module_ty = self.module_ty(ty);
                let ptr = self.fb.alloca_in_entry_id(module_ty, align);
                match value {
                    Some(value) => self.fb.store_id(module_ty, value, ptr, align),
                    // whale-ir §6: marked uninitialised here, on every execution.
                    None => self.fb.uninit_id(module_ty, ptr, align),
                }
                self.scopes.bind(name, Binding::Slot { ptr, ty, align });
            }
            Stmt::Assign { name, value } => {
                let (value, got) = self.value(value, depth + 1)?;
                match self.scopes.get(name) {
                    None => return Err(LowerError::UnknownVariable(name.to_string())),
                    Some(Binding::Const { .. }) => return Err(LowerError::AssignToConst(name.to_string())),
                    Some(Binding::Slot { ptr, ty, align }) => {
                        self.types.expect(ty, got)?;
                        let module_ty = self.module_ty(ty);
                        self.fb.store_id(module_ty, value, ptr, align);
                    }
                }
            }
            Stmt::ExprStmt(expr) => {
                self.expr(expr, depth + 1)?;
            }
            Stmt::If { cond, then_body, else_body } => {
                let cond = self.condition(cond, depth + 1)?;
                let then_block = self.block(BlockName::IfThen);
                let else_block = self.block(BlockName::IfElse);
                let cont = self.block(BlockName::IfCont);
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
                let head = self.block(BlockName::WhileCond);
                let body_block = self.block(BlockName::WhileBody);
                let exit = self.block(BlockName::WhileExit);
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

    /// The module's id of lowering type `ty`, interned there on first use, as
    /// the builder's `Type` entry points would.
    #[inline]
    pub(super) fn module_ty(&mut self, ty: TypeId) -> TypeId {
        self.types.module_id(ty, &mut self.fb)
    }

    /// `const T V` of a lowering type.
    pub(super) fn constant(&mut self, ty: TypeId, payload: ConstValue) -> ValueId {
        let module_ty = self.module_ty(ty);
        self.fb.constant_id(module_ty, payload)
    }

    /// A new block named `name`; each name is interned once per module, when
    /// first used (so string ids are those of interning on every call).
    fn block(&mut self, name: BlockName) -> BlockId {
        let slot = &mut self.block_names[name as usize];
        let id = match *slot {
            Some(id) => id,
            None => *slot.insert(self.fb.intern_name(name.text())),
        };
        self.fb.create_named_block(id)
    }

    /// A branch condition: a `bool` value.
    fn condition(&mut self, cond: &'p ast::Expr<'p>, depth: usize) -> Result<ValueId, LowerError> {
        let (value, ty) = self.value(cond, depth)?;
        self.types.expect(TypeId::BOOL, ty)?;
        Ok(value)
    }

    /// `const_decl "name" EXPR => const T V`, bound to `name` without a slot.
    fn const_decl(
        &mut self,
        name: &'p str,
        ty: &ast::Type<'_>,
        init: &ast::Expr<'_>,
        depth: usize,
    ) -> Result<(), LowerError> {
        let ty = self.types.lower(ty, depth + 1)?;
        let (scopes, globals, types) = (&*self.scopes, self.globals, &*self.types);
        let lookup = |name: &str| match scopes.get(name) {
            Some(Binding::Slot { .. }) => ConstName::Runtime,
            Some(Binding::Const { value, ty }) => ConstName::Constant(ConstRef::Local(value), types.ty(ty)),
            None => match globals.get(name) {
                Some((id, ty, _)) => ConstName::Constant(ConstRef::Global(id), types.ty(ty)),
                None => ConstName::Unknown,
            },
        };
        let expr = const_expr(init, depth + 1, &lookup)?;
        let declared = types.ty(ty);
        if expr.ty != declared {
            return Err(LowerError::TypeMismatch { expected: declared, got: expr.ty });
        }
        let local_consts = &self.local_consts;
        let payload = evaluate(&expr, &mut |r| match r {
            ConstRef::Global(id) => globals.value(id, types),
            ConstRef::Local(v) => local_consts.get(&v).map(|&(ty, value)| (types.ty(ty), value)),
        })?;
        let value = self.fb.const_decl(name, expr, payload);
        self.local_consts.insert(value, (ty, payload));
        self.scopes.bind(name, Binding::Const { value, ty });
        Ok(())
    }
}
