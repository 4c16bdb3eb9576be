//! Building a module with explicit identities, for binary readers.
//!
//! The text reader fills the module's tables directly because it lives inside this crate; readers in other crates
//! (the FR2E mapping) need the same ability — arbitrary, sparse value, block, function and global ids, names and
//! order exactly as stored — without the builder's automatic numbering. [`ModuleAssembler`] is that small door: it
//! appends globals, declarations, bodies, blocks and instructions in storage order, refuses ids above a caller-given
//! limit *before* growing an id-indexed table (so a short input cannot make the tables huge), and refuses a value or
//! block defined twice in one function. Value and block ids are scoped to their function (`local_ids.rs`): each
//! function's tables are laid out when it ends, and the span of ids all functions' tables cover together is bounded
//! by the id limit plus the number of ids defined, so sparse ids cannot make the tables much larger than the input. Everything else (types, operands, terminators) is left to [`crate::verify_module`], which the
//! caller runs on the finished module, exactly as the text reader does.
//!
//! Branch targets may refer to blocks that appear later in the input, so an instruction may carry *placeholder*
//! block numbers; [`ModuleAssembler::resolve_block_operands`] rewrites every block operand of the current function
//! once all its blocks are known.
//!
//! This is a construction API for codecs, not for IR producers (use [`crate::ModuleBuilder`]); it is hidden from the
//! documentation and may change with the codecs.

use crate::const_expr::ConstExpr;
use crate::constant::ConstValue;
use crate::entity::{
    BlockId, ConstDeclId, ConstId, EntityList, EntityRef, FunctionId, GlobalId, InstId, PackedOption, SigId, StrId,
    TypeId, ValueId,
};
use crate::inst::InstData;
use crate::local_ids::{LocalIds, SpanBudget};
use crate::module::{
    encode_const, BlockData, ConstDeclData, DeclData, FunctionData, GlobalData, LaidOut, Linkage, Module, Param, Span,
};
use crate::target::DataLayout;
use crate::types::TypeTable;

/// Why the assembler refused a step.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum AssembleError {
    /// An id above the limit given to [`ModuleAssembler::new`].
    #[error("{what} id {id} exceeds the limit of {limit}")]
    IdTooLarge {
        /// Which kind of id.
        what: &'static str,
        /// The id.
        id: u32,
        /// The limit.
        limit: u32,
    },
    /// A value id defined a second time.
    #[error("{0} is defined twice")]
    DuplicateValue(ValueId),
    /// A block id defined a second time.
    #[error("{0} is defined twice")]
    DuplicateBlock(BlockId),
    /// An instruction before the first block of a function, or outside any function.
    #[error("instruction outside a block")]
    NoBlock,
    /// A placeholder block operand that [`ModuleAssembler::resolve_block_operands`] could not resolve.
    #[error("block operand {0} names no block of the function")]
    UnresolvedBlock(u32),
    /// The functions' ids are so sparse that their tables together would span more than the limit allows.
    #[error("value and block ids too sparse: the functions' id tables would span more than {limit} entries")]
    TooSparse {
        /// The largest total span.
        limit: u64,
    },
}

/// Appends a module's entities in storage order with explicit ids (see the module documentation).
#[doc(hidden)]
pub struct ModuleAssembler {
    m: Module,
    max_id: u32,
    /// Storage index of the open function.
    func: Option<usize>,
    current_block: Option<BlockId>,
    /// First instruction of the open function.
    func_first_inst: usize,
    /// The open function's values and blocks.
    values: LocalIds<TypeId>,
    blocks: LocalIds<BlockData>,
    /// Vacant entries the laid-out tables may still take (see the module documentation).
    span_budget: SpanBudget,
}

impl ModuleAssembler {
    /// An empty module; every id above `max_id` will be refused.
    pub fn new(target: &str, data_layout: DataLayout, max_id: u32) -> Self {
        let max_id = max_id.min(u32::MAX - 1);
        Self {
            m: Module::empty(target.to_string(), data_layout),
            max_id,
            func: None,
            current_block: None,
            func_first_inst: 0,
            values: LocalIds::default(),
            blocks: LocalIds::default(),
            span_budget: SpanBudget::new(max_id),
        }
    }

    fn check_id(&self, what: &'static str, id: u32) -> Result<(), AssembleError> {
        if id > self.max_id {
            return Err(AssembleError::IdTooLarge { what, id, limit: self.max_id });
        }
        Ok(())
    }

    /// Makes room for about `insts` more instructions and as many values. Callers estimate from what the input has
    /// already backed (one declared value per input entry, say), so a short input cannot reserve much.
    pub fn reserve_insts(&mut self, insts: usize) {
        self.m.reserve_insts(insts);
    }

    /// The type pool, to intern types and signatures.
    pub fn types_mut(&mut self) -> &mut TypeTable {
        &mut self.m.types
    }

    /// The type pool.
    pub fn types(&self) -> &TypeTable {
        &self.m.types
    }

    /// Interns a name, trap reason or link name.
    pub fn intern(&mut self, text: &str) -> StrId {
        self.m.strings.intern(text)
    }

    /// Stores an operand list (phi pairs, arguments, gep indices, switch cases).
    pub fn make_list(&mut self, items: &[u32]) -> EntityList {
        self.m.pool.make(items)
    }

    /// The elements of a stored list.
    pub fn list(&self, list: EntityList) -> &[u32] {
        self.m.pool.get(list)
    }

    /// Adds an entry to the constant table (a switch key).
    pub fn push_constant(&mut self, value: ConstValue) -> ConstId {
        let id = ConstId::new(self.m.consts.len());
        self.m.consts.push(value);
        id
    }

    /// The record of `const T value`: inline when the payload fits 64 bits, else in the constant table.
    pub fn constant(&mut self, value: ConstValue) -> InstData {
        match encode_const(value) {
            Some((kind, bits)) => InstData::Const { kind, bits },
            None => InstData::ConstWide { id: self.push_constant(value) },
        }
    }

    /// The record of `const_decl "name" expr => const T value`.
    pub fn const_decl(&mut self, name: StrId, expr: ConstExpr, value: ConstValue) -> InstData {
        let decl = ConstDeclId::new(self.m.const_decls.len());
        self.m.const_decls.push(ConstDeclData { name, expr, value });
        InstData::ConstDecl { decl }
    }

    /// Appends a global.
    pub fn add_global(
        &mut self,
        id: GlobalId,
        name: StrId,
        ty: TypeId,
        init: ConstValue,
        init_expr: ConstExpr,
        align: u32,
    ) -> Result<(), AssembleError> {
        self.check_id("global", id.as_u32())?;
        self.m.globals.push(GlobalData { id, name, ty, init, init_expr, align });
        Ok(())
    }

    /// Appends a function declaration.
    pub fn add_declaration(
        &mut self,
        id: FunctionId,
        name: StrId,
        sig: SigId,
        linkage: Linkage,
        link_name: Option<StrId>,
    ) -> Result<(), AssembleError> {
        self.check_id("function", id.as_u32())?;
        self.m.declarations.push(DeclData { id, name, sig, linkage, link_name });
        Ok(())
    }

    #[inline]
    fn define_value(&mut self, value: ValueId, ty: TypeId) -> Result<(), AssembleError> {
        self.check_id("value", value.as_u32())?;
        self.values.define(value.as_u32(), ty).map_err(|()| AssembleError::DuplicateValue(value))
    }

    /// Opens the body of function `id` (closing any open one) with its parameters `(value, name, type)`.
    pub fn begin_function(
        &mut self,
        id: FunctionId,
        name: StrId,
        ret: TypeId,
        entry: BlockId,
        params: &[(ValueId, StrId, TypeId)],
    ) -> Result<(), AssembleError> {
        self.end_function()?;
        self.values.clear();
        self.blocks.clear();
        self.check_id("function", id.as_u32())?;
        self.check_id("block", entry.as_u32())?;
        let param_start = self.m.params.len();
        for &(value, pname, ty) in params {
            self.define_value(value, ty)?;
            self.m.params.push(Param { value, name: pname });
        }
        self.func = Some(self.m.functions.len());
        self.func_first_inst = self.m.insts.len();
        self.m.functions.push(FunctionData {
            id,
            name,
            ret,
            entry,
            params: Span::until(param_start, self.m.params.len()),
            order: Span { start: self.m.block_order.len() as u32, len: 0 },
            blocks: Span::EMPTY,
            block_base: 0,
            insts: Span::EMPTY,
            values: Span::EMPTY,
            value_base: 0,
        });
        Ok(())
    }

    /// Opens block `id` of the open function; the previous block ends here.
    pub fn begin_block(&mut self, id: BlockId, name: StrId) -> Result<(), AssembleError> {
        if self.func.is_none() {
            return Err(AssembleError::NoBlock);
        }
        self.check_id("block", id.as_u32())?;
        let start = (self.m.insts.len() - self.func_first_inst) as u32;
        self.blocks
            .define(id.as_u32(), BlockData { name, start, end: start })
            .map_err(|()| AssembleError::DuplicateBlock(id))?;
        self.close_block();
        self.m.block_order.push(id);
        self.current_block = Some(id);
        Ok(())
    }

    /// Appends an instruction to the open block, defining `result` with its type.
    #[inline]
    pub fn push(&mut self, data: InstData, result: Option<(ValueId, TypeId)>) -> Result<InstId, AssembleError> {
        // The usual case inline: a block is open and the result is the next value id, or there is none.
        if self.current_block.is_some() {
            let next = match result {
                None => true,
                Some((value, ty)) if value.as_u32() <= self.max_id => self.values.define(value.as_u32(), ty).is_ok(),
                Some(_) => false,
            };
            if next {
                return Ok(self.append(data, result));
            }
        }
        self.push_checked(data, result)
    }

    /// Stores an instruction whose result, if any, is already defined; returns its function-local id.
    #[inline]
    fn append(&mut self, data: InstData, result: Option<(ValueId, TypeId)>) -> InstId {
        let inst = InstId::new(self.m.insts.len() - self.func_first_inst);
        self.m.insts.push(data);
        self.m.inst_results.push(result.map(|(v, _)| v).into());
        inst
    }

    /// [`push`](Self::push) for every other case: no open block, or a result id out of order, too large or taken.
    fn push_checked(&mut self, data: InstData, result: Option<(ValueId, TypeId)>) -> Result<InstId, AssembleError> {
        if self.current_block.is_none() {
            return Err(AssembleError::NoBlock);
        }
        if let Some((value, ty)) = result {
            self.define_value(value, ty)?;
        }
        Ok(self.append(data, result))
    }

    /// Rewrites every block operand (branch targets, switch cases, phi predecessors) of the open function's
    /// instructions through `resolve`, which maps a placeholder number to a block.
    pub fn resolve_block_operands(
        &mut self,
        mut resolve: impl FnMut(u32) -> Option<BlockId>,
    ) -> Result<(), AssembleError> {
        let mut map = |b: BlockId| resolve(b.as_u32()).ok_or(AssembleError::UnresolvedBlock(b.as_u32()));
        let Module { insts, pool, .. } = &mut self.m;
        for data in &mut insts[self.func_first_inst..] {
            match data {
                InstData::Br { dest } => *dest = map(*dest)?,
                InstData::Cbr { dests, .. } => {
                    dests[0] = map(dests[0])?;
                    dests[1] = map(dests[1])?;
                }
                InstData::Switch { default, cases, .. } => {
                    *default = map(*default)?;
                    for pair in pool.get_mut(*cases).chunks_exact_mut(2) {
                        pair[1] = map(BlockId::from_u32(pair[1]))?.as_u32();
                    }
                }
                InstData::Phi { inputs } => {
                    for pair in pool.get_mut(*inputs).chunks_exact_mut(2) {
                        pair[1] = map(BlockId::from_u32(pair[1]))?.as_u32();
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn close_block(&mut self) {
        if let Some(b) = self.current_block.take() {
            let end = (self.m.insts.len() - self.func_first_inst) as u32;
            if let Some(data) = self.blocks.get_mut(b.as_u32()) {
                data.end = end;
            }
        }
    }

    /// Closes the open function, if any, laying out its tables.
    pub fn end_function(&mut self) -> Result<(), AssembleError> {
        let Some(func) = self.func.take() else { return Ok(()) };
        self.close_block();
        let budget = &mut self.span_budget;
        budget.charge(&self.values, &self.blocks).map_err(|()| AssembleError::TooSparse { limit: budget.limit() })?;
        let m = &mut self.m;
        let (value_start, block_start) = (m.value_types.len(), m.blocks.len());
        let value_base = self.values.lay_out(&mut m.value_types, PackedOption::some, PackedOption::NONE);
        let block_base = self.blocks.lay_out(&mut m.blocks, |b| b, BlockData::VACANT);
        let first_inst = self.func_first_inst;
        m.close_function_runs(func, LaidOut { first_inst, value_start, value_base, block_start, block_base });
        Ok(())
    }

    /// The finished, unverified module.
    pub fn finish(mut self) -> Result<Module, AssembleError> {
        self.end_function()?;
        let m = &mut self.m;
        m.insts.shrink_to_fit();
        m.inst_results.shrink_to_fit();
        m.value_types.shrink_to_fit();
        m.blocks.shrink_to_fit();
        m.block_order.shrink_to_fit();
        m.pool.shrink_to_fit();
        m.strings.shrink_to_fit();
        Ok(self.m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::Opcode;

    #[test]
    fn sparse_ids_and_forward_branches() {
        let mut a = ModuleAssembler::new("x86_64-whale-linux", DataLayout::default_64bit_le(), 1000);
        let sig = a.types_mut().intern_signature(&crate::FunctionSignature::whale(vec![], crate::Type::Void));
        let name = a.intern("f");
        a.add_declaration(FunctionId::from_u32(7), name, sig, Linkage::Internal, None).unwrap();
        a.begin_function(FunctionId::from_u32(7), name, TypeId::VOID, BlockId::from_u32(40), &[]).unwrap();
        let entry = a.intern("entry");
        a.begin_block(BlockId::from_u32(40), entry).unwrap();
        // Placeholder 1 is the second block, not yet opened.
        a.push(InstData::Br { dest: BlockId::from_u32(1) }, None).unwrap();
        let exit = a.intern("exit");
        a.begin_block(BlockId::from_u32(9), exit).unwrap();
        assert_eq!(a.begin_block(BlockId::from_u32(9), exit), Err(AssembleError::DuplicateBlock(BlockId::from_u32(9))));
        a.push(InstData::Ret { arg: PackedOption::NONE }, None).unwrap();
        assert_eq!(a.resolve_block_operands(|_| None), Err(AssembleError::UnresolvedBlock(1)));
        a.resolve_block_operands(|p| [BlockId::from_u32(40), BlockId::from_u32(9)].get(p as usize).copied()).unwrap();
        let m = a.finish().unwrap();
        crate::verify_module(&m).unwrap();
        let text = crate::print_module(&m);
        assert!(text.contains("br label %b9"), "{text}");
        assert_eq!(crate::print_module(&crate::parse_module(&text).unwrap()), text);
        assert_eq!(m.function_at(0).inst(InstId::from_u32(1)).opcode(), Opcode::Ret);
    }

    #[test]
    fn limits_and_duplicates() {
        let mut a = ModuleAssembler::new("x86_64-whale-linux", DataLayout::default_64bit_le(), 10);
        let name = a.intern("g");
        let err = a.add_global(
            GlobalId::from_u32(11),
            name,
            TypeId::I32,
            ConstValue::I(0),
            ConstExpr::literal(crate::Type::I32, ConstValue::I(0)),
            4,
        );
        assert_eq!(err, Err(AssembleError::IdTooLarge { what: "global", id: 11, limit: 10 }));
        assert_eq!(a.push(InstData::Ret { arg: PackedOption::NONE }, None), Err(AssembleError::NoBlock));
        let v = ValueId::from_u32(3);
        let params = [(v, name, TypeId::I32), (v, name, TypeId::I32)];
        assert_eq!(
            a.begin_function(FunctionId::from_u32(0), name, TypeId::VOID, BlockId::from_u32(0), &params),
            Err(AssembleError::DuplicateValue(v))
        );
    }

    #[test]
    fn results_in_order_and_out_of_order() {
        let mut a = ModuleAssembler::new("x86_64-whale-linux", DataLayout::default_64bit_le(), 10);
        let name = a.intern("f");
        a.begin_function(FunctionId::from_u32(0), name, TypeId::VOID, BlockId::from_u32(0), &[]).unwrap();
        a.begin_block(BlockId::from_u32(0), name).unwrap();
        let ty = TypeId::I32;
        let data = a.constant(ConstValue::I(7));
        let value = |n| ValueId::from_u32(n);
        // In order (the inline path), then a gap, then the gap filled, then a repeat and an id above the limit.
        assert_eq!(a.push(data, Some((value(0), ty))), Ok(InstId::from_u32(0)));
        assert_eq!(a.push(data, Some((value(2), ty))), Ok(InstId::from_u32(1)));
        assert_eq!(a.push(data, Some((value(1), ty))), Ok(InstId::from_u32(2)));
        assert_eq!(a.push(data, Some((value(3), ty))), Ok(InstId::from_u32(3)));
        assert_eq!(a.push(data, Some((value(2), ty))), Err(AssembleError::DuplicateValue(value(2))));
        let too_large = AssembleError::IdTooLarge { what: "value", id: 11, limit: 10 };
        for n in 4..=10 {
            assert!(a.push(data, Some((value(n), ty))).is_ok());
        }
        assert_eq!(a.push(data, Some((value(11), ty))), Err(too_large));
        assert_eq!(a.finish().unwrap().inst_count(), 11);
    }
}
