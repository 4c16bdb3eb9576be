//! Module storage and its read-only inspection API.
//!
//! Functions are the unit (whale-ir §3): value, block and instruction ids are
//! scoped to their function. A [`Module`] owns flat tables — instructions
//! (16-byte [`InstData`]) with a parallel result column, value types, blocks
//! (each a contiguous range of its function's instructions whose last one is
//! the terminator), parameters and block orders — and every function owns one
//! dense run of each ([`FunctionData`]): value `v` is entry `v - value_base` of
//! its value run, block `b` entry `b - block_base` of its block run, and
//! instruction `i` entry `i` of its instruction run. Runs keep a vacant state so
//! text with sparse ids can be represented. What functions share lives here
//! too: one [`ListPool`] of operand lists, one [`StringTable`], one
//! [`TypeTable`], the constants, globals and declarations. All questions about
//! values, blocks and instructions go through the [`Function`] view, a set of
//! slices taken once per function. A finished module holds about 28 heap bytes
//! per instruction (see `BENCHMARKS.md`); `docs/ir-editing.md` explains the
//! layout and how edited functions are written back (`edit/`).

use crate::build_error::BuildError;
use crate::const_expr::ConstExpr;
use crate::constant::{ConstValue, FloatBits};
use crate::entity::{
    BlockId, ConstDeclId, ConstId, EntityList, EntityRef, FunctionId, GlobalId, InstId, ListPool, PackedOption, SigId,
    StrId, TypeId, ValueId,
};
use crate::inst::{ConstKind, InstData};
use crate::strings::StringTable;
use crate::target::DataLayout;
use crate::types::{FunctionSignature, Type, TypeTable};

/// Linkage of a function declaration.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Linkage {
    /// Visible only inside the module; needs a body and no link name.
    Internal,
    /// Visible to the linker under its link name; the body is optional.
    External,
}

impl Linkage {
    /// The keyword printed on `declare` lines.
    pub const fn keyword(self) -> &'static str {
        match self {
            Linkage::Internal => "internal",
            Linkage::External => "external",
        }
    }
}

/// A function parameter: its value and name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Param {
    /// The parameter's value.
    pub value: ValueId,
    /// The parameter's name.
    pub name: StrId,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct DeclData {
    pub id: FunctionId,
    pub name: StrId,
    pub sig: SigId,
    pub linkage: Linkage,
    pub link_name: Option<StrId>,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct GlobalData {
    pub id: GlobalId,
    pub name: StrId,
    pub ty: TypeId,
    pub init: ConstValue,
    pub init_expr: ConstExpr,
    pub align: u32,
}

/// A contiguous run of one of the module's function-owned tables.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub(crate) struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub const EMPTY: Span = Span { start: 0, len: 0 };

    /// The run from `start` to the end of a table of length `end`.
    pub fn until(start: usize, end: usize) -> Span {
        Span { start: start as u32, len: (end - start) as u32 }
    }

    #[inline]
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// A function body: its identity and the runs of the module's tables it owns.
/// Value and block ids are scoped to the function: value `v` is entry
/// `v - value_base` of its run of `value_types`, block `b` entry `b - block_base`
/// of its run of `blocks`; instruction ids are indices into its run of `insts`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct FunctionData {
    pub id: FunctionId,
    pub name: StrId,
    pub ret: TypeId,
    pub entry: BlockId,
    /// Run of `params`.
    pub params: Span,
    /// Run of `block_order`: the blocks in layout order.
    pub order: Span,
    /// Run of `blocks`, indexed by block id minus `block_base`.
    pub blocks: Span,
    pub block_base: u32,
    /// Run of `insts` and `inst_results`.
    pub insts: Span,
    /// Run of `value_types`, indexed by value id minus `value_base`.
    pub values: Span,
    pub value_base: u32,
}

/// Marks a vacant block slot (no label defines the id), in [`BlockData::start`].
pub(crate) const VACANT: u32 = u32::MAX;

/// A block: its name and its instructions, a run of the function's instructions
/// (`start..end`, function-local indices). `start == VACANT` marks a vacant slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct BlockData {
    pub name: StrId,
    pub start: u32,
    pub end: u32,
}

impl BlockData {
    /// A slot no block occupies.
    pub const VACANT: BlockData = BlockData { name: StrId::from_u32(u32::MAX), start: VACANT, end: VACANT };

    #[inline]
    pub fn is_vacant(&self) -> bool {
        self.start == VACANT
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct ConstDeclData {
    pub name: StrId,
    pub expr: ConstExpr,
    pub value: ConstValue,
}

/// A typed SSA module: target, globals, declarations and function bodies.
///
/// Built with [`crate::ModuleBuilder`] (or read by a parser); inspected through
/// the methods below. The module is immutable once built.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Module {
    pub(crate) target: String,
    pub(crate) data_layout: DataLayout,
    pub(crate) types: TypeTable,
    pub(crate) strings: StringTable,
    pub(crate) globals: Vec<GlobalData>,
    pub(crate) declarations: Vec<DeclData>,
    pub(crate) functions: Vec<FunctionData>,
    pub(crate) params: Vec<Param>,
    pub(crate) blocks: Vec<BlockData>,
    pub(crate) block_order: Vec<BlockId>,
    pub(crate) insts: Vec<InstData>,
    pub(crate) inst_results: Vec<PackedOption<ValueId>>,
    pub(crate) value_types: Vec<PackedOption<TypeId>>,
    pub(crate) pool: ListPool,
    pub(crate) consts: Vec<ConstValue>,
    pub(crate) const_decls: Vec<ConstDeclData>,
    pub(crate) build_errors: Vec<BuildError>,
    /// Instructions of runs that edited functions left behind (see [`Module::compact`]).
    pub(crate) garbage: usize,
}

/// A declaration as seen through [`Module::declarations`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Declaration<'m> {
    /// Function identity.
    pub id: FunctionId,
    /// Declared name.
    pub name: &'m str,
    /// Interned signature (see [`Module::signature`]).
    pub sig: SigId,
    /// Linkage.
    pub linkage: Linkage,
    /// External link name.
    pub link_name: Option<&'m str>,
}

/// A global as seen through [`Module::globals`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Global<'m> {
    /// Global identity.
    pub id: GlobalId,
    /// Name.
    pub name: &'m str,
    /// Type.
    pub ty: TypeId,
    /// Stored initial value.
    pub init: ConstValue,
    /// The expression the value was computed from.
    pub init_expr: &'m ConstExpr,
    /// Alignment in bytes.
    pub align: u32,
}

/// A function body as seen through [`Module::functions`]: every question about
/// its values, blocks and instructions goes through this view, because their
/// ids are scoped to the function (two functions may both define `%v0`).
#[derive(Clone, Copy)]
pub struct Function<'m> {
    /// Storage index among the module's bodies.
    pub index: usize,
    /// Function identity (its declaration).
    pub id: FunctionId,
    /// Name written on the definition.
    pub name: &'m str,
    /// Parameters in order.
    pub params: &'m [Param],
    /// Return type.
    pub ret: TypeId,
    /// Entry block.
    pub entry: BlockId,
    /// Blocks in layout order.
    pub blocks: &'m [BlockId],
    module: &'m Module,
    block_table: &'m [BlockData],
    block_base: u32,
    insts: &'m [InstData],
    results: &'m [PackedOption<ValueId>],
    value_types: &'m [PackedOption<TypeId>],
    value_base: u32,
}

impl std::fmt::Debug for Function<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Function").field("index", &self.index).field("id", &self.id).field("name", &self.name).finish()
    }
}

impl PartialEq for Function<'_> {
    /// Views are equal when they show the same body of the same module.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.module, other.module) && self.index == other.index
    }
}

impl Eq for Function<'_> {}

impl<'m> Function<'m> {
    /// The module the function belongs to.
    #[inline]
    pub fn module(&self) -> &'m Module {
        self.module
    }

    /// Dense index of value `v` in the function's value table, if `v` lies in it.
    #[inline]
    pub fn value_index(&self, v: ValueId) -> Option<usize> {
        let i = v.as_u32().wrapping_sub(self.value_base) as usize;
        (i < self.value_types.len()).then_some(i)
    }

    /// The type of value `v`, if the function defines it.
    #[inline]
    pub fn value_type(&self, v: ValueId) -> Option<TypeId> {
        let i = v.as_u32().wrapping_sub(self.value_base) as usize;
        self.value_types.get(i).and_then(|t| t.expand())
    }

    /// Length of the function's dense value table: every value id `v` it defines
    /// has `value_index(v) < value_slots()` (for side tables).
    #[inline]
    pub fn value_slots(&self) -> usize {
        self.value_types.len()
    }

    /// The value id of dense index `i` (the inverse of [`Function::value_index`]).
    #[inline]
    pub fn value_at(&self, i: usize) -> ValueId {
        ValueId::from_u32(self.value_base + i as u32)
    }

    /// The lowest value id the table covers.
    #[inline]
    pub fn value_base(&self) -> u32 {
        self.value_base
    }

    /// The function's dense value table and the id of its first entry.
    #[inline]
    pub(crate) fn value_table(&self) -> (&'m [PackedOption<TypeId>], u32) {
        (self.value_types, self.value_base)
    }

    /// The values the function defines (parameters and results), by id, with their types.
    pub fn values(&self) -> impl Iterator<Item = (ValueId, TypeId)> + 'm {
        let base = self.value_base;
        self.value_types
            .iter()
            .enumerate()
            .filter_map(move |(i, t)| t.expand().map(|t| (ValueId::from_u32(base + i as u32), t)))
    }

    /// Dense index of block `b` in the function's block table, if `b` lies in it.
    #[inline]
    pub fn block_index(&self, b: BlockId) -> Option<usize> {
        let i = b.as_u32().wrapping_sub(self.block_base) as usize;
        (i < self.block_table.len()).then_some(i)
    }

    /// Length of the function's dense block table (for side tables).
    #[inline]
    pub fn block_slots(&self) -> usize {
        self.block_table.len()
    }

    /// The block id of dense index `i`.
    #[inline]
    pub fn block_at(&self, i: usize) -> BlockId {
        BlockId::from_u32(self.block_base + i as u32)
    }

    #[inline]
    fn block_data(&self, b: BlockId) -> Option<&'m BlockData> {
        let i = b.as_u32().wrapping_sub(self.block_base) as usize;
        self.block_table.get(i).filter(|d| !d.is_vacant())
    }

    /// Whether the function has block `b`.
    #[inline]
    pub fn has_block(&self, b: BlockId) -> bool {
        self.block_data(b).is_some()
    }

    /// Name of block `b` (empty when the function has no such block).
    pub fn block_name(&self, b: BlockId) -> &'m str {
        self.block_data(b).map_or("", |d| self.module.str(d.name))
    }

    /// The interned name of block `b`.
    pub(crate) fn block_name_id(&self, b: BlockId) -> Option<StrId> {
        self.block_data(b).map(|d| d.name)
    }

    /// Instructions of block `b`, in order (the last one is the terminator in
    /// well-formed IR); none when the function has no such block.
    #[inline]
    pub fn block_insts(&self, b: BlockId) -> impl ExactSizeIterator<Item = InstId> + DoubleEndedIterator {
        let (start, end) = self.block_data(b).map_or((0, 0), |d| (d.start, d.end));
        (start as usize..end as usize).map(InstId::new)
    }

    /// The records and results of block `b`'s instructions, with the id of the
    /// first one (instruction ids in a block are consecutive).
    #[inline]
    pub(crate) fn block_slices(&self, b: BlockId) -> (&'m [InstData], &'m [PackedOption<ValueId>], u32) {
        let (start, end) = self.block_data(b).map_or((0, 0), |d| (d.start, d.end));
        let range = start as usize..end as usize;
        (self.insts.get(range.clone()).unwrap_or(&[]), self.results.get(range).unwrap_or(&[]), start)
    }

    /// The records of the function's instructions, in storage order (block by
    /// block in layout order for modules from the builder and the readers).
    #[inline]
    pub fn insts(&self) -> &'m [InstData] {
        self.insts
    }

    /// The record of instruction `id` (panics when out of range, like indexing).
    #[inline]
    pub fn inst(&self, id: InstId) -> &'m InstData {
        &self.insts[id.index()]
    }

    /// The value instruction `id` defines.
    #[inline]
    pub fn inst_result(&self, id: InstId) -> Option<ValueId> {
        self.results.get(id.index()).and_then(|r| r.expand())
    }

    /// Number of instructions.
    #[inline]
    pub fn inst_count(&self) -> usize {
        self.insts.len()
    }

    /// The elements of an operand list.
    #[inline]
    pub fn list(&self, list: EntityList) -> &'m [u32] {
        self.module.pool.get(list)
    }

    /// The highest value id the function defines, if any.
    pub fn highest_value(&self) -> Option<ValueId> {
        self.value_types.iter().rposition(|t| t.is_some()).map(|i| self.value_at(i))
    }
}

/// A `const_decl` record as seen through [`Module::const_decl`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ConstDecl<'m> {
    /// Declared name.
    pub name: &'m str,
    /// Expression tree.
    pub expr: &'m ConstExpr,
    /// Recorded value.
    pub value: ConstValue,
}

/// Where a reader laid out a function's tables (see `local_ids.rs`): the runs
/// start here and end at the tables' current ends.
pub(crate) struct LaidOut {
    pub first_inst: usize,
    pub value_start: usize,
    pub value_base: u32,
    pub block_start: usize,
    pub block_base: u32,
}

impl Module {
    /// Completes function `func`'s record after a reader laid out its tables:
    /// its block order, instructions, values and blocks run to the tables' ends.
    pub(crate) fn close_function_runs(&mut self, func: usize, at: LaidOut) {
        let f = &mut self.functions[func];
        f.order.len = self.block_order.len() as u32 - f.order.start;
        f.insts = Span::until(at.first_inst, self.insts.len());
        f.values = Span::until(at.value_start, self.value_types.len());
        f.value_base = at.value_base;
        f.blocks = Span::until(at.block_start, self.blocks.len());
        f.block_base = at.block_base;
    }

    pub(crate) fn empty(target: String, data_layout: DataLayout) -> Self {
        Module {
            target,
            data_layout,
            types: TypeTable::new(),
            strings: StringTable::default(),
            globals: Vec::new(),
            declarations: Vec::new(),
            functions: Vec::new(),
            params: Vec::new(),
            blocks: Vec::new(),
            block_order: Vec::new(),
            insts: Vec::new(),
            inst_results: Vec::new(),
            value_types: Vec::new(),
            pool: ListPool::new(),
            consts: Vec::new(),
            const_decls: Vec::new(),
            build_errors: Vec::new(),
            garbage: 0,
        }
    }

    /// Makes room for about `insts` more instructions and as many values, so that a producer who can estimate a
    /// module's size saves the regrowth copies.
    pub(crate) fn reserve_insts(&mut self, insts: usize) {
        self.insts.reserve(insts);
        self.inst_results.reserve(insts);
        self.value_types.reserve(insts);
    }

    /// Target name.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Data layout.
    pub fn data_layout(&self) -> DataLayout {
        self.data_layout
    }

    /// The type pool.
    pub fn types(&self) -> &TypeTable {
        &self.types
    }

    /// Rebuilds the [`Type`] view of `id`.
    pub fn ty(&self, id: TypeId) -> Type {
        self.types.to_type(id)
    }

    /// The IR spelling of a type.
    pub fn type_name(&self, id: TypeId) -> String {
        self.types.display(id)
    }

    /// Rebuilds the [`FunctionSignature`] view of `id`.
    pub fn signature(&self, id: SigId) -> FunctionSignature {
        self.types.to_signature(id)
    }

    /// The text of an interned string.
    #[inline]
    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    /// Declarations in storage order.
    pub fn declarations(&self) -> impl ExactSizeIterator<Item = Declaration<'_>> + '_ {
        self.declarations.iter().map(|d| self.decl_view(d))
    }

    fn decl_view<'m>(&'m self, d: &'m DeclData) -> Declaration<'m> {
        Declaration {
            id: d.id,
            name: self.str(d.name),
            sig: d.sig,
            linkage: d.linkage,
            link_name: d.link_name.map(|s| self.str(s)),
        }
    }

    /// The first declaration with identity `id`.
    pub fn declaration(&self, id: FunctionId) -> Option<Declaration<'_>> {
        // Builder modules keep declaration k at position k; fall back to a scan
        // for modules read with arbitrary ids.
        match self.declarations.get(id.index()) {
            Some(d) if d.id == id => Some(self.decl_view(d)),
            _ => self.declarations.iter().find(|d| d.id == id).map(|d| self.decl_view(d)),
        }
    }

    /// Globals in storage order.
    pub fn globals(&self) -> impl ExactSizeIterator<Item = Global<'_>> + '_ {
        self.globals.iter().map(|g| Global {
            id: g.id,
            name: self.str(g.name),
            ty: g.ty,
            init: g.init,
            init_expr: &g.init_expr,
            align: g.align,
        })
    }

    /// The global with identity `id`.
    pub fn global(&self, id: GlobalId) -> Option<Global<'_>> {
        self.globals().find(|g| g.id == id)
    }

    /// Function bodies in storage order.
    pub fn functions(&self) -> impl ExactSizeIterator<Item = Function<'_>> + '_ {
        (0..self.functions.len()).map(|i| self.function_at(i))
    }

    /// The body at storage index `index` (panics when out of range, like indexing).
    pub fn function_at(&self, index: usize) -> Function<'_> {
        let f = &self.functions[index];
        Function {
            index,
            id: f.id,
            name: self.str(f.name),
            params: &self.params[f.params.range()],
            ret: f.ret,
            entry: f.entry,
            blocks: &self.block_order[f.order.range()],
            module: self,
            block_table: &self.blocks[f.blocks.range()],
            block_base: f.block_base,
            insts: &self.insts[f.insts.range()],
            results: &self.inst_results[f.insts.range()],
            value_types: &self.value_types[f.values.range()],
            value_base: f.value_base,
        }
    }

    /// The first body defining function `id`.
    pub fn function(&self, id: FunctionId) -> Option<Function<'_>> {
        self.functions.iter().position(|f| f.id == id).map(|i| self.function_at(i))
    }

    /// Number of function bodies.
    pub fn function_count(&self) -> usize {
        self.functions.len()
    }

    /// Total number of instructions, all functions together.
    pub fn inst_count(&self) -> usize {
        self.insts.len() - self.garbage
    }

    /// The elements of an operand list.
    #[inline]
    pub fn list(&self, list: EntityList) -> &[u32] {
        self.pool.get(list)
    }

    /// The operand pool.
    pub fn pool(&self) -> &ListPool {
        &self.pool
    }

    /// An entry of the constant table.
    pub fn constant(&self, id: ConstId) -> ConstValue {
        self.consts[id.index()]
    }

    /// The payload of a `const` instruction.
    pub fn const_payload(&self, data: &InstData) -> Option<ConstValue> {
        match *data {
            InstData::Const { kind, bits } => Some(decode_const(kind, bits)),
            InstData::ConstWide { id } => self.consts.get(id.index()).copied(),
            _ => None,
        }
    }

    /// A `const_decl` record.
    pub fn const_decl(&self, id: ConstDeclId) -> ConstDecl<'_> {
        let d = &self.const_decls[id.index()];
        ConstDecl { name: self.str(d.name), expr: &d.expr, value: d.value }
    }

    /// Builder misuse recorded while the module was built (reported first by
    /// [`crate::verify_module`]).
    pub fn build_errors(&self) -> &[BuildError] {
        &self.build_errors
    }

    /// Heap bytes held by the module's tables (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.target.capacity()
            + self.types.heap_bytes()
            + self.strings.heap_bytes()
            + self.globals.capacity() * size_of::<GlobalData>()
            + self.declarations.capacity() * size_of::<DeclData>()
            + self.functions.capacity() * size_of::<FunctionData>()
            + self.params.capacity() * size_of::<Param>()
            + self.blocks.capacity() * size_of::<BlockData>()
            + self.block_order.capacity() * 4
            + self.insts.capacity() * size_of::<InstData>()
            + self.inst_results.capacity() * 4
            + self.value_types.capacity() * 4
            + self.pool.heap_bytes()
            + self.consts.capacity() * size_of::<ConstValue>()
            + self.const_decls.capacity() * size_of::<ConstDeclData>()
    }

    /// Heap bytes held for names (strings), included in [`Module::heap_bytes`].
    pub fn name_heap_bytes(&self) -> usize {
        self.strings.heap_bytes()
    }

    /// Whether value and block ids follow the canonical numbering of whale-ir §3
    /// (upstream's F2: one value and one block counter for the whole module,
    /// parameters first, the entry block first), so that format-2 text (which
    /// omits parameter and block ids) is exact.
    pub fn is_canonically_numbered(&self) -> bool {
        let mut next_value: u64 = 0;
        let mut next_block: u64 = 0;
        for f in self.functions() {
            for (i, p) in f.params.iter().enumerate() {
                if u64::from(p.value.as_u32()) != next_value + i as u64 {
                    return false;
                }
            }
            for (i, b) in f.blocks.iter().enumerate() {
                if u64::from(b.as_u32()) != next_block + i as u64 {
                    return false;
                }
            }
            if f.blocks.first() != Some(&f.entry) {
                return false;
            }
            next_value = f.highest_value().map_or(next_value + f.params.len() as u64, |v| u64::from(v.as_u32()) + 1);
            next_block += f.blocks.len() as u64;
        }
        true
    }
}

/// Encodes a payload for [`InstData::Const`], or `None` when it needs 128 bits.
pub(crate) fn encode_const(value: ConstValue) -> Option<(ConstKind, [u32; 2])> {
    let split = |x: u64| [x as u32, (x >> 32) as u32];
    match value {
        ConstValue::Bool(b) => Some((ConstKind::Bool, [u32::from(b), 0])),
        ConstValue::I(v) => i64::try_from(v).ok().map(|x| (ConstKind::I, split(x as u64))),
        ConstValue::U(v) => u64::try_from(v).ok().map(|x| (ConstKind::U, split(x))),
        ConstValue::F(FloatBits::F16(b)) => Some((ConstKind::F16, [u32::from(b), 0])),
        ConstValue::F(FloatBits::F32(b)) => Some((ConstKind::F32, [b, 0])),
        ConstValue::F(FloatBits::F64(b)) => Some((ConstKind::F64, split(b))),
    }
}

/// Decodes an [`InstData::Const`] payload.
pub(crate) fn decode_const(kind: ConstKind, bits: [u32; 2]) -> ConstValue {
    let raw = u64::from(bits[0]) | (u64::from(bits[1]) << 32);
    match kind {
        ConstKind::Bool => ConstValue::Bool(raw != 0),
        ConstKind::I => ConstValue::I(i128::from(raw as i64)),
        ConstKind::U => ConstValue::U(u128::from(raw)),
        ConstKind::F16 => ConstValue::F(FloatBits::F16(raw as u16)),
        ConstKind::F32 => ConstValue::F(FloatBits::F32(raw as u32)),
        ConstKind::F64 => ConstValue::F(FloatBits::F64(raw)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_payloads_round_trip() {
        for v in [
            ConstValue::Bool(true),
            ConstValue::I(-5),
            ConstValue::I(i128::from(i64::MIN)),
            ConstValue::U(u128::from(u64::MAX)),
            ConstValue::F(FloatBits::F16(0x7e01)),
            ConstValue::F(FloatBits::F64(0x8000_0000_0000_0000)),
        ] {
            let (kind, bits) = encode_const(v).unwrap();
            assert_eq!(decode_const(kind, bits), v);
        }
        assert_eq!(encode_const(ConstValue::I(i128::MIN)), None);
        assert_eq!(encode_const(ConstValue::U(u128::MAX)), None);
    }
}
