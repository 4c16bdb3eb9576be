//! Building modules: [`ModuleBuilder`] and [`FunctionBuilder`].
//!
//! Numbering follows whale-ir §3: one value counter and one block counter for
//! the whole module; starting a function numbers its parameters, then its entry
//! block. Function ids follow declaration order, global ids their own counter.
//!
//! Instructions are appended straight into the module's tables together with a
//! sort key (block position, and for the entry block whether the instruction is
//! one of its leading allocas). Finishing a function stably sorts its
//! instructions by that key — usually a no-op check — so every block becomes one
//! contiguous range and `alloca_in_entry` costs O(1) instead of an insertion.
//!
//! Only the five checked APIs of the seed return `Result` (`declare_function`,
//! `begin_declared_function`, `function_addr`, `null_function`, `call`); a
//! rejected call appends nothing and consumes no id. Other misuse (a second
//! terminator, an instruction after a terminator) is recorded as a
//! [`BuildError`] that [`crate::verify_module`] reports first; the `try_*`
//! variants return it at once.

use rustc_hash::FxHashMap;

use crate::build_error::{BuildError, CallError};
use crate::const_expr::ConstExpr;
use crate::constant::{ConstValue, FloatBits};
use crate::entity::{
    BlockId, ConstDeclId, ConstId, EntityRef, FunctionId, GlobalId, PackedOption, SigId, TypeId, ValueId,
};
use crate::inst::InstData;
use crate::module::{
    encode_const, BlockData, ConstDeclData, DeclData, FunctionData, GlobalData, Linkage, Module, Param, Span, VACANT,
};
use crate::opcode::{BinOp, CmpOp, FCmpPred, ICmpPred, Opcode};
use crate::signature::validate_signature;
use crate::target::DataLayout;
use crate::types::{FunctionSignature, Type, TypeKey};

/// The callee of a call.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Callee {
    /// A function identity, resolved through the declaration table.
    Direct(FunctionId),
    /// A value of type `fnptr<SIG>`.
    Indirect(ValueId),
}

/// Checked arithmetic operations (result `tuple<T, bool>`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CheckedOp {
    /// `uadd_chk`.
    UAdd,
    /// `usub_chk`.
    USub,
    /// `umul_chk`.
    UMul,
    /// `sadd_chk`.
    SAdd,
    /// `ssub_chk`.
    SSub,
    /// `smul_chk`.
    SMul,
}

impl CheckedOp {
    /// The opcode of this operation.
    pub const fn opcode(self) -> Opcode {
        match self {
            CheckedOp::UAdd => Opcode::UaddChk,
            CheckedOp::USub => Opcode::UsubChk,
            CheckedOp::UMul => Opcode::UmulChk,
            CheckedOp::SAdd => Opcode::SaddChk,
            CheckedOp::SSub => Opcode::SsubChk,
            CheckedOp::SMul => Opcode::SmulChk,
        }
    }
}

/// Conversion operations.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CastOp {
    /// Zero extension.
    Zext,
    /// Sign extension.
    Sext,
    /// Integer truncation.
    Trunc,
    /// Float widening.
    Fext,
    /// Float narrowing.
    Ftrunc,
    /// Signed integer to float.
    ItofS,
    /// Unsigned integer to float.
    ItofU,
    /// Float to signed integer (traps when out of range).
    FtoiS,
    /// Float to unsigned integer (traps when out of range).
    FtoiU,
    /// Same-width reinterpretation.
    Bitcast,
    /// Pointer to integer.
    Ptrtoint,
    /// Integer to pointer (without provenance).
    Inttoptr,
}

impl CastOp {
    /// The opcode of this cast.
    pub const fn opcode(self) -> Opcode {
        match self {
            CastOp::Zext => Opcode::Zext,
            CastOp::Sext => Opcode::Sext,
            CastOp::Trunc => Opcode::Trunc,
            CastOp::Fext => Opcode::Fext,
            CastOp::Ftrunc => Opcode::Ftrunc,
            CastOp::ItofS => Opcode::ItofS,
            CastOp::ItofU => Opcode::ItofU,
            CastOp::FtoiS => Opcode::FtoiS,
            CastOp::FtoiU => Opcode::FtoiU,
            CastOp::Bitcast => Opcode::Bitcast,
            CastOp::Ptrtoint => Opcode::Ptrtoint,
            CastOp::Inttoptr => Opcode::Inttoptr,
        }
    }
}

/// Builds a [`Module`].
///
/// ```
/// use ir::{ModuleBuilder, Target, Type};
/// let target = Target::lookup("x86_64-whale-linux").unwrap();
/// let mut module = ModuleBuilder::new(target.name(), target.data_layout());
/// let mut function = module.begin_function("one", vec![], Type::I64);
/// let one = function.const_i64(1);
/// function.ret(Some(one));
/// function.finish();
/// let module = module.finish();
/// assert!(ir::verify_module(&module).is_ok());
/// ```
pub struct ModuleBuilder {
    module: Module,
    next_value: u32,
    next_block: u32,
    next_global: u32,
    function_names: FxHashMap<String, FunctionId>,
    link_names: FxHashMap<String, FunctionId>,
    defined: Vec<bool>,
    keys: Vec<u32>,
    scratch: Vec<u32>,
    /// Buffers of the per-function block grouping, kept for their capacity.
    grouping: Grouping,
    value_defs: Vec<u32>,
    block_list: Vec<BlockId>,
    terminated: Vec<bool>,
    /// Signatures already found valid, by id (interned signatures never change).
    valid_sigs: Vec<bool>,
}

impl ModuleBuilder {
    /// Starts an empty module for `target` with `datalayout`.
    pub fn new(target: impl Into<String>, datalayout: DataLayout) -> Self {
        Self {
            module: Module::empty(target.into(), datalayout),
            next_value: 0,
            next_block: 0,
            next_global: 0,
            function_names: FxHashMap::default(),
            link_names: FxHashMap::default(),
            defined: Vec::new(),
            keys: Vec::new(),
            scratch: Vec::new(),
            grouping: Grouping::default(),
            value_defs: Vec::new(),
            block_list: Vec::new(),
            terminated: Vec::new(),
            valid_sigs: Vec::new(),
        }
    }

    /// [`validate_signature`] of `sig`, remembered once it passes: calls check
    /// their callee's signature every time, and most call the same few.
    fn check_signature(&mut self, sig: SigId) -> Result<(), CallError> {
        if self.valid_sigs.get(sig.index()).copied().unwrap_or(false) {
            return Ok(());
        }
        validate_signature(&self.module.types, sig)?;
        if self.valid_sigs.len() <= sig.index() {
            self.valid_sigs.resize(sig.index() + 1, false);
        }
        self.valid_sigs[sig.index()] = true;
        Ok(())
    }

    /// Makes room for about `insts` more instructions and as many values, so
    /// that a caller who can estimate a module's size saves the regrowth copies.
    #[cfg(feature = "socket")]
    pub(crate) fn reserve_insts(&mut self, insts: usize) {
        self.module.reserve_insts(insts);
    }

    /// Interns `ty` in the module's type pool.
    pub fn intern_type(&mut self, ty: &Type) -> TypeId {
        self.module.types.intern_type(ty)
    }

    /// Adds a global whose initializer expression is the literal `init`.
    pub fn add_global(&mut self, name: &str, ty: Type, init: ConstValue, align: u32) -> GlobalId {
        let expr = ConstExpr::literal(ty, init);
        self.add_global_const(name, expr, init, align)
    }

    /// Adds a global computed by `expression` (its type is the expression's) whose
    /// evaluated value is `init`; the verifier re-evaluates and compares.
    pub fn add_global_const(&mut self, name: &str, expression: ConstExpr, init: ConstValue, align: u32) -> GlobalId {
        let id = GlobalId::from_u32(self.next_global);
        self.next_global += 1;
        let ty = self.module.types.intern_type(&expression.ty);
        let name = self.module.strings.intern(name);
        self.module.globals.push(GlobalData { id, name, ty, init, init_expr: expression, align });
        id
    }

    /// Declares a function; an identical redeclaration returns the existing id.
    pub fn declare_function(
        &mut self,
        name: &str,
        signature: FunctionSignature,
        linkage: Linkage,
        link_name: Option<String>,
    ) -> Result<FunctionId, CallError> {
        let sig = self.module.types.intern_signature(&signature);
        self.check_signature(sig)?;
        let link_ok = match (&linkage, &link_name) {
            (Linkage::Internal, None) => true,
            (Linkage::External, Some(l)) => !l.is_empty() && !l.contains('\0'),
            _ => false,
        };
        if !link_ok {
            return Err(CallError::InvalidLinkName(name.to_string()));
        }
        if let Some(&existing) = self.function_names.get(name) {
            let d = self.module.declaration(existing).ok_or(CallError::UnknownFunction(existing))?;
            if d.sig == sig && d.linkage == linkage && d.link_name == link_name.as_deref() {
                return Ok(existing);
            }
            return Err(CallError::ConflictingDeclaration(name.to_string()));
        }
        if let Some(link) = &link_name {
            if self.link_names.contains_key(link.as_str()) {
                return Err(CallError::LinkNameCollision(link.clone()));
            }
        }
        Ok(self.push_declaration(name, sig, linkage, link_name))
    }

    fn push_declaration(&mut self, name: &str, sig: SigId, linkage: Linkage, link_name: Option<String>) -> FunctionId {
        let id = FunctionId::new(self.module.declarations.len());
        let name_id = self.module.strings.intern(name);
        let link_id = link_name.as_deref().map(|l| self.module.strings.intern(l));
        self.module.declarations.push(DeclData { id, name: name_id, sig, linkage, link_name: link_id });
        self.defined.push(false);
        self.function_names.entry(name.to_string()).or_insert(id);
        if let Some(link) = link_name {
            self.link_names.entry(link).or_insert(id);
        }
        id
    }

    /// The id of the first declaration named `name`.
    pub fn function_id(&self, name: &str) -> Result<FunctionId, CallError> {
        self.function_names.get(name).copied().ok_or_else(|| CallError::UnknownFunctionName(name.to_string()))
    }

    /// Starts the body of declared function `id`, naming its parameters.
    pub fn begin_declared_function(
        &mut self,
        id: FunctionId,
        names: Vec<String>,
    ) -> Result<FunctionBuilder<'_>, CallError> {
        let decl = self.module.declaration(id).ok_or(CallError::UnknownFunction(id))?;
        let (sig, name) = (decl.sig, decl.name.to_string());
        if self.defined.get(id.index()).copied().unwrap_or(false) {
            return Err(CallError::DuplicateDefinition(id));
        }
        self.check_signature(sig)?;
        let key = self.module.types.sig(sig);
        if key.params.len() != names.len() {
            return Err(CallError::DefinitionMismatch(id));
        }
        let params: Vec<TypeId> = key.params.to_vec();
        let ret = key.ret;
        if let Some(d) = self.defined.get_mut(id.index()) {
            *d = true;
        }
        let name_ids = names.iter().map(|n| self.module.strings.intern(n)).collect::<Vec<_>>();
        Ok(FunctionBuilder::start(self, id, &name, &params, &name_ids, ret))
    }

    /// Declares a new internal Whale function and starts its body. Duplicate
    /// names are not checked here; the verifier reports them.
    pub fn begin_function(&mut self, name: &str, params: Vec<(String, Type)>, ret_ty: Type) -> FunctionBuilder<'_> {
        let param_types: Vec<Type> = params.iter().map(|(_, t)| t.clone()).collect();
        let sig = self.module.types.intern_signature(&FunctionSignature::whale(param_types, ret_ty));
        let id = self.push_declaration(name, sig, Linkage::Internal, None);
        if let Some(d) = self.defined.get_mut(id.index()) {
            *d = true;
        }
        let key = self.module.types.sig(sig);
        let (param_ids, ret) = (key.params.to_vec(), key.ret);
        let name_ids = params.iter().map(|(n, _)| self.module.strings.intern(n)).collect::<Vec<_>>();
        FunctionBuilder::start(self, id, name, &param_ids, &name_ids, ret)
    }

    /// Finishes the module, releasing spare capacity.
    pub fn finish(mut self) -> Module {
        let m = &mut self.module;
        m.insts.shrink_to_fit();
        m.inst_results.shrink_to_fit();
        m.value_types.shrink_to_fit();
        m.blocks.shrink_to_fit();
        m.block_order.shrink_to_fit();
        m.params.shrink_to_fit();
        m.functions.shrink_to_fit();
        m.declarations.shrink_to_fit();
        m.pool.shrink_to_fit();
        m.consts.shrink_to_fit();
        m.strings.shrink_to_fit();
        self.module
    }
}

/// Builds one function body inside a [`ModuleBuilder`]. Finish it with
/// [`FunctionBuilder::finish`] (dropping it finishes it too).
pub struct FunctionBuilder<'a> {
    mb: &'a mut ModuleBuilder,
    name: String,
    func_index: u32,
    first_value: u32,
    first_block: u32,
    first_inst: usize,
    entry: BlockId,
    current: BlockId,
    /// Position of `current` among this function's blocks.
    current_local: usize,
    entry_body_started: bool,
    finished: bool,
}

impl<'a> FunctionBuilder<'a> {
    fn start(
        mb: &'a mut ModuleBuilder,
        id: FunctionId,
        name: &str,
        params: &[TypeId],
        names: &[crate::entity::StrId],
        ret: TypeId,
    ) -> Self {
        let func_index = mb.module.functions.len() as u32;
        let first_value = mb.next_value;
        let param_start = mb.module.params.len();
        mb.value_defs.clear();
        for (ty, &pname) in params.iter().zip(names) {
            let value = ValueId::from_u32(mb.next_value);
            mb.next_value += 1;
            set_value_type(&mut mb.module, value, *ty);
            mb.value_defs.push(VACANT);
            mb.module.params.push(Param { value, name: pname });
        }
        let name_id = mb.module.strings.intern(name);
        let entry = BlockId::from_u32(mb.next_block);
        // Ids are numbered module-wide (upstream F2) and each function's values and
        // blocks are appended in id order, so a function's tables start at its
        // first id: table index and id coincide.
        mb.module.functions.push(FunctionData {
            id,
            name: name_id,
            ret,
            entry,
            params: Span::until(param_start, mb.module.params.len()),
            order: Span::EMPTY,
            blocks: Span { start: mb.next_block, len: 0 },
            block_base: mb.next_block,
            insts: Span { start: mb.module.insts.len() as u32, len: 0 },
            values: Span { start: first_value, len: 0 },
            value_base: first_value,
        });
        mb.keys.clear();
        mb.block_list.clear();
        mb.terminated.clear();
        let first_block = mb.next_block;
        let first_inst = mb.module.insts.len();
        let mut fb = FunctionBuilder {
            mb,
            name: name.to_string(),
            func_index,
            first_value,
            first_block,
            first_inst,
            entry,
            current: entry,
            current_local: 0,
            entry_body_started: false,
            finished: false,
        };
        fb.create_block("entry");
        fb
    }

    // ---- blocks -------------------------------------------------------------

    /// The entry block.
    pub fn entry_block(&self) -> BlockId {
        self.entry
    }

    /// The value of parameter `index` (panics when out of range, like indexing).
    pub fn param_value(&self, index: usize) -> ValueId {
        let f = &self.mb.module.functions[self.func_index as usize];
        assert!(index < f.params.len as usize, "parameter index {index} out of range");
        self.mb.module.params[f.params.start as usize + index].value
    }

    /// Appends a new block; the insertion point does not move.
    pub fn create_block(&mut self, name: &str) -> BlockId {
        let name = self.intern_name(name);
        self.create_named_block(name)
    }

    /// Interns `name` in the module's string table.
    pub(crate) fn intern_name(&mut self, name: &str) -> crate::entity::StrId {
        self.mb.module.strings.intern(name)
    }

    /// [`Self::create_block`] with an interned name.
    pub(crate) fn create_named_block(&mut self, name: crate::entity::StrId) -> BlockId {
        let id = BlockId::from_u32(self.mb.next_block);
        self.mb.next_block += 1;
        let blocks = &mut self.mb.module.blocks;
        if blocks.len() <= id.index() {
            blocks.resize(id.index() + 1, BlockData::VACANT);
        }
        blocks[id.index()] = BlockData { name, start: 0, end: 0 };
        self.mb.block_list.push(id);
        self.mb.terminated.push(false);
        id
    }

    /// Moves the insertion point to the end of `block` (a block of this function).
    pub fn set_insert_point(&mut self, block: BlockId) {
        if let Some(local) = self.local_block(block) {
            self.current = block;
            self.current_local = local;
        } else {
            let error = BuildError::ForeignBlock { func: self.name.clone(), block };
            self.mb.module.build_errors.push(error);
        }
    }

    /// The block instructions are appended to.
    pub fn current_block(&self) -> BlockId {
        self.current
    }

    /// Whether the current block already ends with a terminator.
    pub fn is_current_block_terminated(&self) -> bool {
        self.local_block(self.current).is_some_and(|i| self.mb.terminated[i])
    }

    fn local_block(&self, block: BlockId) -> Option<usize> {
        let i = block.as_u32().checked_sub(self.first_block)? as usize;
        (i < self.mb.block_list.len()).then_some(i)
    }

    // ---- appending ------------------------------------------------------------

    /// The type of `v` if this function defines it (ids are function-scoped).
    fn value_type(&self, v: ValueId) -> Option<TypeId> {
        if v.as_u32() < self.first_value {
            return None;
        }
        self.mb.module.value_types.get(v.index()).and_then(|t| t.expand())
    }

    /// The module's id of `ty`, interning it.
    pub(crate) fn intern(&mut self, ty: &Type) -> TypeId {
        self.mb.module.types.intern_type(ty)
    }

    fn new_value(&mut self, ty: Option<TypeId>, inst: u32) -> ValueId {
        let value = ValueId::from_u32(self.mb.next_value);
        self.mb.next_value += 1;
        match ty {
            Some(ty) => set_value_type(&mut self.mb.module, value, ty),
            None => {
                let slots = &mut self.mb.module.value_types;
                if slots.len() <= value.index() {
                    slots.resize(value.index() + 1, PackedOption::NONE);
                }
            }
        }
        self.mb.value_defs.push(inst);
        value
    }

    /// Checks that the current block can take `data`; on misuse records or
    /// returns the error.
    #[inline]
    fn check_append(&self, op: Opcode) -> Result<usize, BuildError> {
        let local = self.current_local;
        if self.mb.terminated[local] {
            let (func, block) = (self.name.clone(), self.current);
            return Err(if op.is_terminator() {
                BuildError::SecondTerminator { func, block, op }
            } else {
                BuildError::InstructionAfterTerminator { func, block, op }
            });
        }
        Ok(local)
    }

    #[inline]
    fn try_append(&mut self, data: InstData, result: Option<TypeId>) -> Result<Option<ValueId>, BuildError> {
        let local =
            if self.mb.terminated[self.current_local] { self.check_append(data.opcode())? } else { self.current_local };
        Ok(self.push_at(data, result, local))
    }

    /// Appends `data` to local block `local`, which has no terminator yet.
    #[inline]
    fn push_at(&mut self, data: InstData, result: Option<TypeId>, local: usize) -> Option<ValueId> {
        let key = if local == 0 {
            if matches!(data, InstData::Memory { op: Opcode::Alloca, .. }) && !self.entry_body_started {
                0
            } else {
                self.entry_body_started = true;
                1
            }
        } else {
            2 * local as u32 + 1
        };
        self.push_inst(data, result, key, local)
    }

    fn push_inst(&mut self, data: InstData, result: Option<TypeId>, key: u32, local: usize) -> Option<ValueId> {
        let inst = self.mb.module.insts.len() as u32;
        self.mb.module.insts.push(data);
        self.mb.keys.push(key);
        if data.is_terminator() {
            self.mb.terminated[local] = true;
        }
        let value = result.map(|ty| self.new_value(Some(ty), inst));
        self.mb.module.inst_results.push(value.into());
        value
    }

    /// Appends `data`; on misuse records a [`BuildError`] and returns a fresh,
    /// undefined id for value-producing instructions so callers can go on.
    #[inline]
    fn append(&mut self, data: InstData, result: Option<TypeId>) -> Option<ValueId> {
        let local = self.current_local;
        if self.mb.terminated[local] {
            return self.append_misused(data, result);
        }
        self.push_at(data, result, local)
    }

    #[cold]
    fn append_misused(&mut self, data: InstData, result: Option<TypeId>) -> Option<ValueId> {
        match self.try_append(data, result) {
            Ok(v) => v,
            Err(error) => {
                self.mb.module.build_errors.push(error);
                result.map(|_| self.new_value(None, VACANT))
            }
        }
    }

    fn append_value(&mut self, data: InstData, ty: TypeId) -> ValueId {
        match self.append(data, Some(ty)) {
            Some(v) => v,
            None => unreachable!("a result type always yields a value"),
        }
    }

    fn note_annotation(&mut self, op: Opcode, value: ValueId, annotated: TypeId) {
        if let Some(actual) = self.value_type(value) {
            if actual != annotated {
                let (annotated, actual) = (self.mb.module.ty(annotated), self.mb.module.ty(actual));
                let error = BuildError::AnnotationMismatch { func: self.name.clone(), op, value, annotated, actual };
                self.mb.module.build_errors.push(error);
            }
        }
    }

    // ---- constants ------------------------------------------------------------

    /// `const T V` for any payload (validity is checked by the verifier).
    pub fn constant(&mut self, ty: Type, value: ConstValue) -> ValueId {
        let ty = self.intern(&ty);
        self.constant_id(ty, value)
    }

    /// [`Self::constant`] of an interned type.
    pub(crate) fn constant_id(&mut self, ty: TypeId, value: ConstValue) -> ValueId {
        let data = match encode_const(value) {
            Some((kind, bits)) => InstData::Const { kind, bits },
            None => {
                let id = ConstId::new(self.mb.module.consts.len());
                self.mb.module.consts.push(value);
                InstData::ConstWide { id }
            }
        };
        self.append_value(data, ty)
    }

    /// `const bool V`.
    pub fn const_bool(&mut self, value: bool) -> ValueId {
        self.constant_id(TypeId::BOOL, ConstValue::Bool(value))
    }
    /// `const i1 V` (−1 or 0).
    pub fn const_i1(&mut self, value: i8) -> ValueId {
        self.constant_id(TypeId::I1, ConstValue::I(value.into()))
    }
    /// `const i8 V`.
    pub fn const_i8(&mut self, value: i8) -> ValueId {
        self.constant_id(TypeId::I8, ConstValue::I(value.into()))
    }
    /// `const i16 V`.
    pub fn const_i16(&mut self, value: i16) -> ValueId {
        self.constant_id(TypeId::I16, ConstValue::I(value.into()))
    }
    /// `const i32 V`.
    pub fn const_i32(&mut self, value: i32) -> ValueId {
        self.constant_id(TypeId::I32, ConstValue::I(value.into()))
    }
    /// `const i64 V`.
    pub fn const_i64(&mut self, value: i64) -> ValueId {
        self.constant_id(TypeId::I64, ConstValue::I(value.into()))
    }
    /// `const i128 V`.
    pub fn const_i128(&mut self, value: i128) -> ValueId {
        self.constant_id(TypeId::I128, ConstValue::I(value))
    }
    /// `const u1 V` (0 or 1).
    pub fn const_u1(&mut self, value: u8) -> ValueId {
        self.constant_id(TypeId::U1, ConstValue::U(value.into()))
    }
    /// `const u8 V`.
    pub fn const_u8(&mut self, value: u8) -> ValueId {
        self.constant_id(TypeId::U8, ConstValue::U(value.into()))
    }
    /// `const u16 V`.
    pub fn const_u16(&mut self, value: u16) -> ValueId {
        self.constant_id(TypeId::U16, ConstValue::U(value.into()))
    }
    /// `const u32 V`.
    pub fn const_u32(&mut self, value: u32) -> ValueId {
        self.constant_id(TypeId::U32, ConstValue::U(value.into()))
    }
    /// `const u64 V`.
    pub fn const_u64(&mut self, value: u64) -> ValueId {
        self.constant_id(TypeId::U64, ConstValue::U(value.into()))
    }
    /// `const u128 V`.
    pub fn const_u128(&mut self, value: u128) -> ValueId {
        self.constant_id(TypeId::U128, ConstValue::U(value))
    }
    /// `const f16 BITS`.
    pub fn const_f16_bits(&mut self, bits: u16) -> ValueId {
        self.constant_id(TypeId::F16, ConstValue::F(FloatBits::F16(bits)))
    }
    /// `const f32 V` (exact bits of `value`).
    pub fn const_f32(&mut self, value: f32) -> ValueId {
        self.constant_id(TypeId::F32, ConstValue::F(FloatBits::F32(value.to_bits())))
    }
    /// `const f64 V` (exact bits of `value`).
    pub fn const_f64(&mut self, value: f64) -> ValueId {
        self.constant_id(TypeId::F64, ConstValue::F(FloatBits::F64(value.to_bits())))
    }
    /// `const iN V` for a signed type `ty`.
    pub fn const_int(&mut self, ty: Type, value: i128) -> ValueId {
        self.constant(ty, ConstValue::I(value))
    }
    /// `const uN V` for an unsigned type `ty`.
    pub fn const_uint(&mut self, ty: Type, value: u128) -> ValueId {
        self.constant(ty, ConstValue::U(value))
    }
    /// `const fN V`: a host `f64` rounded to the width of `ty` (f64 if `ty` is not a float).
    pub fn const_float(&mut self, ty: Type, value: f64) -> ValueId {
        let id = self.intern(&ty);
        let width = if id.is_float() { id.scalar_bits().unwrap_or(64) } else { 64 };
        let bits = FloatBits::from_f64(width, value).unwrap_or(FloatBits::F64(value.to_bits()));
        self.constant_id(id, ConstValue::F(bits))
    }
    /// `const fN BITS` with exact bits.
    pub fn const_float_bits(&mut self, ty: Type, bits: FloatBits) -> ValueId {
        self.constant(ty, ConstValue::F(bits))
    }

    /// `const_decl "NAME" EXPR => const T V` (T is the expression's type).
    pub fn const_decl(&mut self, name: &str, expression: ConstExpr, value: ConstValue) -> ValueId {
        let ty = self.intern(&expression.ty);
        let name = self.mb.module.strings.intern(name);
        let decl = ConstDeclId::new(self.mb.module.const_decls.len());
        self.mb.module.const_decls.push(ConstDeclData { name, expr: expression, value });
        self.append_value(InstData::ConstDecl { decl }, ty)
    }

    /// `undef T`: legacy; semantics 1 forbids it and the verifier rejects it.
    pub fn undef(&mut self, ty: Type) -> ValueId {
        let ty = self.intern(&ty);
        self.append_value(InstData::Nullary { op: Opcode::Undef }, ty)
    }

    // ---- arithmetic -------------------------------------------------------------

    /// `mov T %v`.
    pub fn mov(&mut self, ty: Type, value: ValueId) -> ValueId {
        let ty = self.intern(&ty);
        self.append_value(InstData::Unary { op: Opcode::Mov, arg: value }, ty)
    }

    /// `not T %v`.
    pub fn not(&mut self, ty: Type, value: ValueId) -> ValueId {
        let ty = self.intern(&ty);
        self.append_value(InstData::Unary { op: Opcode::Not, arg: value }, ty)
    }

    /// A binary operation `OP T %a, %b`.
    pub fn bin(&mut self, op: BinOp, ty: Type, lhs: ValueId, rhs: ValueId) -> ValueId {
        let ty = self.intern(&ty);
        self.bin_id(op, ty, lhs, rhs)
    }

    /// [`Self::bin`] of an interned type.
    pub(crate) fn bin_id(&mut self, op: BinOp, ty: TypeId, lhs: ValueId, rhs: ValueId) -> ValueId {
        self.append_value(InstData::Binary { op: op.opcode(), args: [lhs, rhs] }, ty)
    }

    /// `OPNAME_chk T %a, %b` with result `tuple<T, bool>`.
    pub fn checked(&mut self, op: CheckedOp, ty: Type, lhs: ValueId, rhs: ValueId) -> ValueId {
        self.checked_opcode(op.opcode(), ty, lhs, rhs)
    }

    fn checked_opcode(&mut self, op: Opcode, ty: Type, lhs: ValueId, rhs: ValueId) -> ValueId {
        let operand = self.intern(&ty);
        let tuple = self.mb.module.types.intern(TypeKey::Tuple(Box::new([operand, TypeId::BOOL])));
        self.append_value(InstData::Binary { op, args: [lhs, rhs] }, tuple)
    }

    /// `cmp P T %a, %b` (result `bool`).
    pub fn cmp(&mut self, op: CmpOp, ty: Type, lhs: ValueId, rhs: ValueId) -> ValueId {
        self.compare(Opcode::Cmp, op as u8, ty, lhs, rhs)
    }

    /// `icmp P T %a, %b` (result `bool`).
    pub fn icmp(&mut self, pred: ICmpPred, ty: Type, lhs: ValueId, rhs: ValueId) -> ValueId {
        self.compare(Opcode::Icmp, pred as u8, ty, lhs, rhs)
    }

    /// `fcmp P T %a, %b` (result `bool`).
    pub fn fcmp(&mut self, pred: FCmpPred, ty: Type, lhs: ValueId, rhs: ValueId) -> ValueId {
        self.compare(Opcode::Fcmp, pred as u8, ty, lhs, rhs)
    }

    fn compare(&mut self, op: Opcode, pred: u8, ty: Type, lhs: ValueId, rhs: ValueId) -> ValueId {
        let ty = self.intern(&ty);
        self.compare_id(op, pred, ty, lhs, rhs)
    }

    /// [`Self::cmp`] of an interned type.
    #[cfg(feature = "socket")]
    pub(crate) fn cmp_id(&mut self, op: CmpOp, ty: TypeId, lhs: ValueId, rhs: ValueId) -> ValueId {
        self.compare_id(Opcode::Cmp, op as u8, ty, lhs, rhs)
    }

    fn compare_id(&mut self, op: Opcode, pred: u8, ty: TypeId, lhs: ValueId, rhs: ValueId) -> ValueId {
        // Operand types are stored once, on the operands; a differing restated
        // annotation is builder misuse.
        self.note_annotation(op, lhs, ty);
        self.append_value(InstData::Compare { op, pred, args: [lhs, rhs] }, TypeId::BOOL)
    }

    /// `select bool %c, T %a, T %b`.
    pub fn select(&mut self, ty: Type, cond: ValueId, if_true: ValueId, if_false: ValueId) -> ValueId {
        let ty = self.intern(&ty);
        self.append_value(InstData::Select { cond, arms: [if_true, if_false] }, ty)
    }

    /// `OP S %v to D`.
    pub fn cast(&mut self, op: CastOp, value: ValueId, to: Type) -> ValueId {
        let ty = self.intern(&to);
        self.append_value(InstData::Cast { op: op.opcode(), arg: value }, ty)
    }

    /// `extract %vT, IDX` with result type `dst_ty` (`tuple_ty` is the operand's
    /// restated type, checked against the operand).
    pub fn extract(&mut self, tuple_ty: Type, dst_ty: Type, tuple: ValueId, index: u32) -> ValueId {
        let tuple_ty = self.intern(&tuple_ty);
        self.note_annotation(Opcode::Extract, tuple, tuple_ty);
        let ty = self.intern(&dst_ty);
        self.append_value(InstData::Extract { agg: tuple, index }, ty)
    }

    // ---- phis -------------------------------------------------------------------

    /// `phi T [ %v, B ], ...`; more inputs can be added with [`Self::add_phi_input`].
    pub fn phi(&mut self, ty: Type, inputs: &[(ValueId, BlockId)]) -> ValueId {
        let ty = self.intern(&ty);
        let slots: Vec<u32> = inputs.iter().flat_map(|&(v, b)| [v.as_u32(), b.as_u32()]).collect();
        let inputs = self.mb.module.pool.make(&slots);
        self.append_value(InstData::Phi { inputs }, ty)
    }

    /// Adds the input `[ value, block ]` to phi `phi` of this function.
    pub fn add_phi_input(&mut self, phi: ValueId, value: ValueId, block: BlockId) {
        let inst = phi
            .as_u32()
            .checked_sub(self.first_value)
            .and_then(|i| self.mb.value_defs.get(i as usize).copied())
            .filter(|&i| i != VACANT);
        let module = &mut self.mb.module;
        match inst.map(|i| (i, module.insts[i as usize])) {
            Some((i, InstData::Phi { inputs })) => {
                let inputs = module.pool.extend(inputs, &[value.as_u32(), block.as_u32()]);
                module.insts[i as usize] = InstData::Phi { inputs };
            }
            _ => module.build_errors.push(BuildError::NotAPhi { func: self.name.clone(), value: phi }),
        }
    }

    // ---- memory -----------------------------------------------------------------

    /// `alloca T, align A` in the current block; result `ptr<T>`.
    pub fn alloca(&mut self, ty: Type, align: u32) -> ValueId {
        let ty = self.intern(&ty);
        let (data, ptr_ty) = self.alloca_data(ty, align);
        self.append_value(data, ptr_ty)
    }

    /// `alloca T, align A` placed in the entry block after its leading allocas.
    pub fn alloca_in_entry(&mut self, ty: Type, align: u32) -> ValueId {
        let ty = self.intern(&ty);
        self.alloca_in_entry_id(ty, align)
    }

    /// [`Self::alloca_in_entry`] of an interned type.
    pub(crate) fn alloca_in_entry_id(&mut self, ty: TypeId, align: u32) -> ValueId {
        let (data, ptr_ty) = self.alloca_data(ty, align);
        match self.push_inst(data, Some(ptr_ty), 0, 0) {
            Some(v) => v,
            None => unreachable!("alloca defines a value"),
        }
    }

    fn alloca_data(&mut self, ty: TypeId, align: u32) -> (InstData, TypeId) {
        let ptr_ty = self.mb.module.types.intern(TypeKey::Ptr(ty));
        (InstData::Memory { op: Opcode::Alloca, align, ty, ptr: PackedOption::NONE }, ptr_ty)
    }

    /// `load T, ptr<T> %p, align A`.
    pub fn load(&mut self, ty: Type, ptr: ValueId, align: u32) -> ValueId {
        let ty = self.intern(&ty);
        self.load_id(ty, ptr, align)
    }

    /// [`Self::load`] of an interned type.
    pub(crate) fn load_id(&mut self, ty: TypeId, ptr: ValueId, align: u32) -> ValueId {
        self.append_value(InstData::Memory { op: Opcode::Load, align, ty, ptr: PackedOption::some(ptr) }, ty)
    }

    /// `store T %v, ptr<T> %p, align A`.
    pub fn store(&mut self, ty: Type, value: ValueId, ptr: ValueId, align: u32) {
        let ty = self.intern(&ty);
        self.store_id(ty, value, ptr, align);
    }

    /// [`Self::store`] of an interned type.
    pub(crate) fn store_id(&mut self, ty: TypeId, value: ValueId, ptr: ValueId, align: u32) {
        self.note_annotation(Opcode::Store, value, ty);
        self.append(InstData::Store { align, value, ptr }, None);
    }

    /// `uninit T, ptr<T> %p, align A`: marks the bytes at `%p` uninitialised.
    pub fn uninit(&mut self, ty: Type, ptr: ValueId, align: u32) {
        let ty = self.intern(&ty);
        self.uninit_id(ty, ptr, align);
    }

    /// [`Self::uninit`] of an interned type.
    pub(crate) fn uninit_id(&mut self, ty: TypeId, ptr: ValueId, align: u32) {
        self.append(InstData::Memory { op: Opcode::Uninit, align, ty, ptr: PackedOption::some(ptr) }, None);
    }

    /// `memcpy ptr<u8> %dst, ptr<u8> %src, u64 %len, align A`.
    pub fn memcpy(&mut self, dst: ValueId, src: ValueId, len: ValueId, align: u32) {
        self.bulk(Opcode::Memcpy, [dst, src, len], align);
    }

    /// `memset ptr<u8> %dst, u8 %byte, u64 %len, align A`.
    pub fn memset(&mut self, dst: ValueId, byte: ValueId, len: ValueId, align: u32) {
        self.bulk(Opcode::Memset, [dst, byte, len], align);
    }

    fn bulk(&mut self, op: Opcode, args: [ValueId; 3], align: u32) {
        if self.check_append(op).is_ok() {
            let args = self.mb.module.pool.make(&args.map(ValueId::as_u32));
            self.append(InstData::Bulk { op, align, args }, None);
        } else {
            self.append(InstData::Bulk { op, align, args: crate::entity::EntityList::EMPTY }, None);
        }
    }

    /// `gep %base, %i0, ...` with result type `result_ty` (a `ptr<S>`).
    pub fn gep(&mut self, result_ty: Type, base: ValueId, indices: &[ValueId]) -> ValueId {
        let ty = self.intern(&result_ty);
        let slots: Vec<u32> = indices.iter().map(|v| v.as_u32()).collect();
        let indices = self.mb.module.pool.make(&slots);
        self.append_value(InstData::Gep { base, indices }, ty)
    }

    // ---- functions and calls -------------------------------------------------------

    /// The id of the first declaration named `name`.
    pub fn function_id(&self, name: &str) -> Result<FunctionId, CallError> {
        self.mb.function_id(name)
    }

    /// `null_function` of type `fnptr<signature>`.
    pub fn null_function(&mut self, signature: FunctionSignature) -> Result<ValueId, CallError> {
        let sig = self.mb.module.types.intern_signature(&signature);
        self.mb.check_signature(sig)?;
        let ty = self.mb.module.types.intern(TypeKey::FnPtr(sig));
        Ok(self.append_value(InstData::FuncRef { op: Opcode::NullFunction, func: PackedOption::NONE }, ty))
    }

    /// `function_addr @fK` of type `fnptr<SIG of @fK>`. A signature that is not
    /// valid (a `void` parameter, say) is refused at once, appending nothing.
    pub fn function_addr(&mut self, id: FunctionId) -> Result<ValueId, CallError> {
        let sig = self.mb.module.declaration(id).ok_or(CallError::UnknownFunction(id))?.sig;
        self.mb.check_signature(sig)?;
        let ty = self.mb.module.types.intern(TypeKey::FnPtr(sig));
        Ok(self.append_value(InstData::FuncRef { op: Opcode::FunctionAddr, func: PackedOption::some(id) }, ty))
    }

    /// The signature a call through `callee` would use.
    pub fn callee_signature(&self, callee: &Callee) -> Result<FunctionSignature, CallError> {
        let sig = self.callee_sig_id(callee)?;
        Ok(self.mb.module.signature(sig))
    }

    fn callee_sig_id(&self, callee: &Callee) -> Result<SigId, CallError> {
        match *callee {
            Callee::Direct(id) => Ok(self.mb.module.declaration(id).ok_or(CallError::UnknownFunction(id))?.sig),
            Callee::Indirect(v) => {
                let ty = self.value_type(v).ok_or(CallError::UnknownValue(v))?;
                self.mb.module.types.fn_ptr_sig(ty).ok_or(CallError::NotFunctionPointer(v))
            }
        }
    }

    /// A direct or indirect call; `Ok(None)` for a void callee. On error nothing
    /// is appended and no id is consumed.
    pub fn call(&mut self, callee: Callee, args: Vec<ValueId>) -> Result<Option<ValueId>, CallError> {
        self.call_with(callee, &args)
    }

    /// [`Self::call`] with borrowed arguments.
    pub(crate) fn call_with(&mut self, callee: Callee, args: &[ValueId]) -> Result<Option<ValueId>, CallError> {
        let sig = self.callee_sig_id(&callee)?;
        self.mb.check_signature(sig)?;
        let types = &self.mb.module.types;
        let key = types.sig(sig);
        if key.params.len() != args.len() {
            return Err(CallError::ArgumentCount { expected: key.params.len(), got: args.len() });
        }
        for (index, (&arg, &param)) in args.iter().zip(key.params.iter()).enumerate() {
            let got = self.value_type(arg).ok_or(CallError::UnknownValue(arg))?;
            if got != param {
                return Err(CallError::ArgumentType { index, expected: types.to_type(param), got: types.to_type(got) });
            }
        }
        let ret = key.ret;
        let list = self.mb.module.pool.make_from(args.len(), args.iter().map(|v| v.as_u32()));
        let data = match callee {
            Callee::Direct(id) => InstData::Call { callee: id, args: list },
            Callee::Indirect(v) => InstData::CallIndirect { callee: v, args: list },
        };
        Ok(self.append(data, (ret != TypeId::VOID).then_some(ret)))
    }

    /// `trap_if bool %c, reason="TEXT"`.
    pub fn trap_if(&mut self, cond: ValueId, reason: &str) {
        let reason = self.mb.module.strings.intern(reason);
        self.append(InstData::TrapIf { cond, reason }, None);
    }

    // ---- terminators --------------------------------------------------------------

    fn terminate(&mut self, data: InstData) {
        self.append(data, None);
    }

    fn try_terminate(&mut self, data: InstData) -> Result<(), BuildError> {
        self.try_append(data, None).map(|_| ())
    }

    /// `br label B`.
    pub fn br(&mut self, target: BlockId) {
        self.terminate(InstData::Br { dest: target });
    }

    /// `br label B`, returning misuse at once.
    pub fn try_br(&mut self, target: BlockId) -> Result<(), BuildError> {
        self.try_terminate(InstData::Br { dest: target })
    }

    /// `cbr bool %c, label T, label F`.
    pub fn cbr(&mut self, cond: ValueId, then_block: BlockId, else_block: BlockId) {
        self.terminate(InstData::Cbr { cond, dests: [then_block, else_block] });
    }

    /// `cbr`, returning misuse at once.
    pub fn try_cbr(&mut self, cond: ValueId, then_block: BlockId, else_block: BlockId) -> Result<(), BuildError> {
        self.try_terminate(InstData::Cbr { cond, dests: [then_block, else_block] })
    }

    fn switch_data(&mut self, value: ValueId, default: BlockId, cases: &[(ConstValue, BlockId)]) -> InstData {
        let mut slots = Vec::with_capacity(cases.len() * 2);
        for &(key, block) in cases {
            let id = ConstId::new(self.mb.module.consts.len());
            self.mb.module.consts.push(key);
            slots.extend([id.as_u32(), block.as_u32()]);
        }
        let cases = self.mb.module.pool.make(&slots);
        InstData::Switch { arg: value, default, cases }
    }

    /// `switch T %v, label D [ K: B, ... ]` (T is the scrutinee's type).
    pub fn switch(&mut self, value: ValueId, default: BlockId, cases: &[(ConstValue, BlockId)]) {
        if let Err(error) = self.try_switch(value, default, cases) {
            self.mb.module.build_errors.push(error);
        }
    }

    /// `switch`, returning misuse at once.
    pub fn try_switch(
        &mut self,
        value: ValueId,
        default: BlockId,
        cases: &[(ConstValue, BlockId)],
    ) -> Result<(), BuildError> {
        self.check_append(Opcode::Switch)?;
        let data = self.switch_data(value, default, cases);
        self.try_terminate(data)
    }

    /// `ret T %v` / `ret void` (T is the function's return type).
    pub fn ret(&mut self, value: Option<ValueId>) {
        self.terminate(InstData::Ret { arg: value.into() });
    }

    /// `ret`, returning misuse at once.
    pub fn try_ret(&mut self, value: Option<ValueId>) -> Result<(), BuildError> {
        self.try_terminate(InstData::Ret { arg: value.into() })
    }

    /// `trap reason="TEXT"`.
    pub fn trap(&mut self, reason: &str) {
        let reason = self.mb.module.strings.intern(reason);
        self.terminate(InstData::Trap { reason });
    }

    /// `trap`, returning misuse at once.
    pub fn try_trap(&mut self, reason: &str) -> Result<(), BuildError> {
        let reason = self.mb.module.strings.intern(reason);
        self.try_terminate(InstData::Trap { reason })
    }

    /// Finishes the function and moves it into the module.
    pub fn finish(mut self) {
        self.finish_in_place();
    }

    fn finish_in_place(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        let mb = &mut *self.mb;
        let m = &mut mb.module;
        let start = self.first_inst;
        // Group each block's instructions (entry: leading allocas first) with a
        // stable counting sort on the keys. Local block `i` holds keys `2i` and
        // `2i + 1` (only the entry uses both), so the bucket bounds are also the
        // block ranges; already grouped functions skip the move.
        let buckets = mb.block_list.len() * 2 + 1;
        let offsets = &mut mb.scratch;
        offsets.clear();
        offsets.resize(buckets + 1, 0);
        let (mut sorted, mut previous) = (true, 0);
        for &k in &mb.keys {
            offsets[k as usize + 1] += 1;
            sorted &= previous <= k;
            previous = k;
        }
        for i in 0..buckets {
            offsets[i + 1] += offsets[i];
        }
        for (local, &block) in mb.block_list.iter().enumerate() {
            let b = &mut m.blocks[block.index()];
            b.start = offsets[2 * local];
            b.end = offsets[2 * local + 2];
        }
        if !sorted {
            // Copy the run aside, then scatter each instruction to its slot.
            let g = &mut mb.grouping;
            g.insts.clear();
            g.insts.extend_from_slice(&m.insts[start..]);
            g.results.clear();
            g.results.extend_from_slice(&m.inst_results[start..]);
            let (insts, results) = (&mut m.insts[start..], &mut m.inst_results[start..]);
            for ((&k, &inst), &result) in mb.keys.iter().zip(&g.insts).zip(&g.results) {
                let slot = &mut offsets[k as usize];
                let at = *slot as usize;
                *slot += 1;
                insts[at] = inst;
                results[at] = result;
            }
        }
        let order_start = m.block_order.len();
        m.block_order.extend_from_slice(&mb.block_list);
        // Values and blocks made for misuse (after a terminator) still belong here.
        m.value_types.resize(m.value_types.len().max(mb.next_value as usize), PackedOption::NONE);
        let f = &mut m.functions[self.func_index as usize];
        f.order = Span::until(order_start, m.block_order.len());
        f.blocks.len = mb.next_block - f.blocks.start;
        f.insts.len = (m.insts.len() - start) as u32;
        f.values.len = mb.next_value - f.values.start;
    }
}

/// Reused buffers for grouping a function's instructions by block.
#[derive(Default)]
struct Grouping {
    insts: Vec<InstData>,
    results: Vec<PackedOption<ValueId>>,
}

impl Drop for FunctionBuilder<'_> {
    fn drop(&mut self) {
        self.finish_in_place();
    }
}

macro_rules! binary_methods {
    ($($name:ident => $op:ident),* $(,)?) => {
        impl FunctionBuilder<'_> {
            $(
                #[doc = concat!("`", stringify!($name), " T %a, %b`.")]
                pub fn $name(&mut self, ty: Type, lhs: ValueId, rhs: ValueId) -> ValueId {
                    self.bin(BinOp::$op, ty, lhs, rhs)
                }
            )*
        }
    };
}

binary_methods!(
    add => Add, sub => Sub, mul => Mul, sdiv => Sdiv, udiv => Udiv, srem => Srem, urem => Urem,
    and => And, or => Or, xor => Xor, shl => Shl, lshr => Lshr, ashr => Ashr,
    fadd => Fadd, fsub => Fsub, fmul => Fmul, fdiv => Fdiv, frem => Frem,
);

fn set_value_type(module: &mut Module, value: ValueId, ty: TypeId) {
    let slots = &mut module.value_types;
    // Values are numbered in order, so the next one is usually the table's end.
    if slots.len() == value.index() {
        slots.push(PackedOption::some(ty));
        return;
    }
    if slots.len() <= value.index() {
        slots.resize(value.index() + 1, PackedOption::NONE);
    }
    slots[value.index()] = PackedOption::some(ty);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Target;

    fn builder() -> ModuleBuilder {
        let t = Target::X86_64WhaleLinux;
        ModuleBuilder::new(t.name(), t.data_layout())
    }

    #[test]
    fn numbering_is_module_wide() {
        let mut mb = builder();
        let mut f = mb.begin_function("a", vec![("x".into(), Type::I32)], Type::I32);
        let x = f.param_value(0);
        assert_eq!(x.as_u32(), 0);
        assert_eq!(f.entry_block().as_u32(), 0);
        f.ret(Some(x));
        f.finish();
        let mut g = mb.begin_function("b", vec![("y".into(), Type::I32)], Type::I32);
        assert_eq!(g.param_value(0).as_u32(), 1);
        assert_eq!(g.entry_block().as_u32(), 1);
        let c = g.const_i32(1);
        assert_eq!(c.as_u32(), 2);
        g.ret(Some(c));
        g.finish();
        let m = mb.finish();
        assert!(m.is_canonically_numbered());
        assert_eq!(m.declarations().len(), 2);
    }

    #[test]
    fn alloca_in_entry_goes_after_leading_allocas() {
        let mut mb = builder();
        let mut f = mb.begin_function("f", vec![], Type::Void);
        let a = f.alloca(Type::I32, 4);
        let c = f.const_i32(1);
        f.store(Type::I32, c, a, 4);
        let next = f.create_block("next");
        f.br(next);
        f.set_insert_point(next);
        let b = f.alloca_in_entry(Type::I64, 8);
        f.ret(None);
        f.finish();
        let m = mb.finish();
        let f = m.functions().next().unwrap();
        let results: Vec<_> = f.block_insts(f.entry).map(|i| f.inst_result(i)).collect();
        assert_eq!(results, vec![Some(a), Some(b), Some(c), None, None]);
        assert_eq!(f.block_insts(next).len(), 1);
    }

    #[test]
    fn second_terminator_is_recorded_not_applied() {
        let mut mb = builder();
        let mut f = mb.begin_function("f", vec![], Type::Void);
        f.ret(None);
        assert!(f.is_current_block_terminated());
        assert!(matches!(f.try_ret(None), Err(BuildError::SecondTerminator { .. })));
        f.trap("boom");
        let v = f.const_i32(3);
        f.finish();
        let m = mb.finish();
        assert_eq!(m.build_errors().len(), 2);
        assert!(matches!(m.build_errors()[1], BuildError::InstructionAfterTerminator { op: Opcode::Const, .. }));
        assert_eq!(m.function_at(0).value_type(v), None);
        assert_eq!(m.inst_count(), 1);
    }

    #[test]
    fn function_addr_and_null_function_refuse_invalid_signatures_at_once() {
        let mut mb = builder();
        let g = mb.begin_function("g", vec![("nothing".into(), Type::Void)], Type::Void);
        let g_id = g.function_id("g").unwrap();
        drop(g);
        let mut f = mb.begin_function("f", vec![], Type::Void);
        let before = f.mb.module.insts.len();
        assert!(matches!(f.function_addr(g_id), Err(CallError::InvalidSignature(_))));
        let void_param = FunctionSignature::whale(vec![Type::Void], Type::Void);
        assert!(matches!(f.null_function(void_param), Err(CallError::InvalidSignature(_))));
        assert_eq!(f.mb.module.insts.len(), before, "nothing appended");
        let next = f.const_i32(0);
        assert_eq!(next, ValueId::from_u32(1), "no id consumed");
        f.ret(None);
    }

    #[test]
    fn rejected_calls_consume_nothing() {
        let mut mb = builder();
        let callee = mb
            .declare_function("g", FunctionSignature::whale(vec![Type::I32], Type::I32), Linkage::Internal, None)
            .unwrap();
        let mut f = mb.begin_function("f", vec![], Type::Void);
        let c = f.const_i64(1);
        assert_eq!(
            f.call(Callee::Direct(callee), vec![c]),
            Err(CallError::ArgumentType { index: 0, expected: Type::I32, got: Type::I64 })
        );
        assert_eq!(f.call(Callee::Direct(callee), vec![]), Err(CallError::ArgumentCount { expected: 1, got: 0 }));
        assert_eq!(f.call(Callee::Indirect(c), vec![]), Err(CallError::NotFunctionPointer(c)));
        let next = f.const_i32(2);
        assert_eq!(next.as_u32(), c.as_u32() + 1);
        f.ret(None);
        f.finish();
    }

    #[test]
    fn declarations_dedupe_and_conflict() {
        let mut mb = builder();
        let sig = FunctionSignature::whale(vec![], Type::I32);
        let a = mb.declare_function("a", sig.clone(), Linkage::External, Some("a_impl".into())).unwrap();
        assert_eq!(mb.declare_function("a", sig.clone(), Linkage::External, Some("a_impl".into())), Ok(a));
        assert_eq!(
            mb.declare_function("a", sig.clone(), Linkage::Internal, None),
            Err(CallError::ConflictingDeclaration("a".into()))
        );
        assert_eq!(
            mb.declare_function("b", sig.clone(), Linkage::External, Some("a_impl".into())),
            Err(CallError::LinkNameCollision("a_impl".into()))
        );
        assert_eq!(
            mb.declare_function("c", sig.clone(), Linkage::External, None),
            Err(CallError::InvalidLinkName("c".into()))
        );
        assert_eq!(
            mb.declare_function("d", sig.clone(), Linkage::Internal, Some("x".into())),
            Err(CallError::InvalidLinkName("d".into()))
        );
        assert_eq!(
            mb.declare_function("e", sig, Linkage::External, Some("a\0".into())),
            Err(CallError::InvalidLinkName("e".into()))
        );
        assert!(mb.begin_declared_function(a, vec!["extra".into()]).is_err());
        assert!(mb.begin_declared_function(FunctionId::from_u32(9), vec![]).is_err());
        drop(mb.begin_declared_function(a, vec![]).unwrap());
        assert!(matches!(mb.begin_declared_function(a, vec![]), Err(CallError::DuplicateDefinition(_))));
    }

    #[test]
    fn phi_inputs_arrive_late() {
        let mut mb = builder();
        let mut f = mb.begin_function("f", vec![], Type::I32);
        let entry = f.entry_block();
        let zero = f.const_i32(0);
        let head = f.create_block("loop");
        f.br(head);
        f.set_insert_point(head);
        let phi = f.phi(Type::I32, &[(zero, entry)]);
        let one = f.const_i32(1);
        let next = f.add(Type::I32, phi, one);
        f.add_phi_input(phi, next, head);
        f.add_phi_input(one, next, head);
        f.br(head);
        f.finish();
        let m = mb.finish();
        let f = m.function_at(0);
        let first = f.block_insts(head).next().unwrap();
        match *f.inst(first) {
            InstData::Phi { inputs } => {
                assert_eq!(m.list(inputs), &[zero.as_u32(), entry.as_u32(), next.as_u32(), head.as_u32()])
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(m.build_errors(), [BuildError::NotAPhi { .. }]));
    }
}
