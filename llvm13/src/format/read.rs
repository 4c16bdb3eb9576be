//! The reader: bytes of revision 0..3 to a [`Module`] (`llvm13.md` §2..§14), strict as §16 asks.
//!
//! Strictness: the module block must end exactly at the end of the input; every read is bounded by its block and a
//! block's content must be consumed exactly (except the global info block, whose unknown trailing fields are
//! skipped as the 1.3 reader does); known blocks in the wrong place, repeated singleton blocks, revisions above 3,
//! block id 0, unknown long ids, format 0 without operands, booleans other than 0/1 and integers out of range are
//! refused; padding bytes may have any value; unknown short block ids are skipped. Ordering that the 1.3 reader
//! tolerated but which changes slot numbers is refused too: the global info block must precede the module constant
//! pool and function blocks, and the module constant pool (at most one) must precede the function blocks. Every
//! value, type and block reference is checked: constant references when their pool ends, instruction and symbol
//! references when their function ends, global initializers and module symbols when the module ends.

use super::block::{read_block, BlockHeader, BlockId, HeaderForm};
use super::compaction::Compaction;
use super::constant::{read_constant, Constant, ConstantPlane, StringConstant};
use super::error::{ReadError, ReadErrorKind};
use super::instruction::{read_raw, IndexKind, Instruction, Operand, RawInstruction};
use super::limits::{Limits, REVISION};
use super::module::{BasicBlock, Endianness, Function, FunctionBody, GlobalVar, Linkage, Module, PointerSize};
use super::opcode::Opcode;
use super::planes::{constant_refs, is_index_plane, push_constant, Planes};
use super::primitives::{vec_for, Reader};
use super::symtab::{Symbol, SymbolPlane, SymbolTable, TypeName};
use super::types::{read_type_def, SlotOrTypePlane, Ty, TypeDef, TypeNumbering, TypeSlot, Types};
use super::typing::{analyze_into, gep_step, Analysis, GepStep, PointerIndex, Pointers};

/// Reads a module with the default [`Limits`].
///
/// ```
/// let bytes = llvm13::format::write_module(&llvm13::format::Module::default()).unwrap();
/// let m = llvm13::format::read_module(&bytes).unwrap();
/// assert_eq!(m, llvm13::format::Module::default());
/// ```
pub fn read_module(bytes: &[u8]) -> Result<Module, ReadError> {
    read_module_with_limits(bytes, &Limits::default())
}

/// Reads a module under `limits`.
pub fn read_module_with_limits(bytes: &[u8], limits: &Limits) -> Result<Module, ReadError> {
    let mut r = Reader::new(bytes, 0);
    let magic = r.take(4)?;
    if magic != b"llvm" {
        let mut found = [0; 4];
        found.copy_from_slice(magic);
        return Err(ReadError::new(ReadErrorKind::BadMagic { found }, 0));
    }
    let id = r.u32_le()?;
    if id != 1 {
        return Err(ReadError::new(ReadErrorKind::NotAModule { id }, 4));
    }
    let size = u64::from(r.u32_le()?);
    let actual = r.remaining() as u64;
    if size > actual || (size < actual && !limits.allow_trailing_bytes) {
        return Err(ReadError::new(ReadErrorKind::ModuleSize { declared: size, actual }, 8));
    }
    let mut body = r.sub(size as usize)?;
    let version_at = body.offset();
    let version = body.vbr32()?;
    let revision = version >> 4;
    if revision > REVISION {
        return Err(ReadError::new(ReadErrorKind::UnsupportedRevision { revision }, version_at));
    }
    body.align()?;
    let endianness = match version & 0b101 {
        0 => Endianness::Little,
        1 => Endianness::Big,
        _ => Endianness::Unspecified,
    };
    let pointer_size = match version & 0b1010 {
        0 => PointerSize::Bits32,
        2 => PointerSize::Bits64,
        _ => PointerSize::Unspecified,
    };
    let m = Module { revision, endianness, pointer_size, ..Module::default() };
    let mut mr = ModuleReader {
        limits,
        numbering: TypeNumbering { old: revision < 2 },
        form: if revision == 3 { HeaderForm::Short } else { HeaderForm::Long },
        m,
        planes: Planes::default(),
        seen: Vec::new(),
        functions_read: 0,
        pending: Vec::new(),
        pointers: std::cell::OnceCell::new(),
        scratch: Scratch::default(),
    };
    mr.read_blocks(&mut body)?;
    mr.finish(body.offset())
}

/// Reads a module and pairs it with nothing else; kept for symmetry with [`write_module`](super::write_module).
struct ModuleReader<'l> {
    limits: &'l Limits,
    numbering: TypeNumbering,
    form: HeaderForm,
    m: Module,
    planes: Planes,
    /// The kinds of block read so far, each once (a module has a function block per function).
    seen: Vec<BlockId>,
    functions_read: usize,
    /// Module-level references checked at the end: (plane, slot, offset).
    pending: Vec<(TypeSlot, u32, u64)>,
    /// Pointer types of the module pool, built when the first function needs them.
    pointers: std::cell::OnceCell<PointerIndex>,
    /// The buffers of function readers.
    scratch: Scratch,
}

fn order_error(h: &BlockHeader, rule: &'static str) -> ReadError {
    ReadError::new(ReadErrorKind::BlockOrder { block: h.id.name(), rule }, h.offset)
}

fn expect_end(r: &Reader<'_>, what: &'static str) -> Result<(), ReadError> {
    if r.is_empty() {
        Ok(())
    } else {
        Err(r.error(ReadErrorKind::TrailingBytes { what, count: r.remaining() as u64 }))
    }
}

impl ModuleReader<'_> {
    fn types(&self) -> Types<'_> {
        Types::module(&self.m.types)
    }

    fn revision(&self) -> u32 {
        self.m.revision
    }

    fn base(&self, plane: TypeSlot) -> u32 {
        u32::from(self.types().has_null(plane, self.revision()))
    }

    fn read_blocks(&mut self, body: &mut Reader<'_>) -> Result<(), ReadError> {
        while !body.is_empty() {
            let (h, mut content) = read_block(body, self.form)?;
            let once = |seen: &Vec<BlockId>| {
                if seen.contains(&h.id) {
                    Err(ReadError::new(
                        ReadErrorKind::DuplicateBlock { block: h.id.name(), parent: "module" },
                        h.offset,
                    ))
                } else {
                    Ok(())
                }
            };
            match h.id {
                BlockId::TypePool => {
                    once(&self.seen)?;
                    self.read_type_pool(&mut content)?;
                }
                BlockId::GlobalInfo => {
                    once(&self.seen)?;
                    if !self.seen.contains(&BlockId::TypePool) {
                        return Err(order_error(&h, "after the type pool"));
                    }
                    self.read_global_info(&mut content)?;
                }
                BlockId::ConstantPool => {
                    once(&self.seen)?;
                    if !self.seen.contains(&BlockId::GlobalInfo) || self.functions_read > 0 {
                        return Err(order_error(&h, "after the global info block and before the function blocks"));
                    }
                    self.read_module_constants(&mut content)?;
                }
                BlockId::Function => {
                    if !self.seen.contains(&BlockId::GlobalInfo) {
                        return Err(order_error(&h, "after the global info block"));
                    }
                    self.read_function(&h, &mut content)?;
                }
                BlockId::SymbolTable => {
                    once(&self.seen)?;
                    if !self.seen.contains(&BlockId::GlobalInfo) {
                        return Err(order_error(&h, "after the global info block"));
                    }
                    self.read_module_symbols(&mut content)?;
                }
                BlockId::Unknown(_) => {}
                other => {
                    let kind = ReadErrorKind::MisplacedBlock { block: other.name(), parent: "module" };
                    return Err(ReadError::new(kind, h.offset));
                }
            }
            if !self.seen.contains(&h.id) {
                self.seen.push(h.id);
            }
            body.align()?;
        }
        Ok(())
    }

    fn finish(mut self, end: u64) -> Result<Module, ReadError> {
        for block in [BlockId::TypePool, BlockId::GlobalInfo] {
            if !self.seen.contains(&block) {
                return Err(ReadError::new(ReadErrorKind::MissingBlock { block: block.name() }, end));
            }
        }
        if self.functions_read != self.m.functions.len() {
            return Err(ReadError::new(ReadErrorKind::MissingBlock { block: "function" }, end));
        }
        for &(plane, slot, at) in &self.pending {
            let limit = self.base(plane) + self.planes.count(plane);
            if slot >= limit {
                return Err(ReadError::new(ReadErrorKind::ValueSlotOutOfRange { plane: plane.0, slot }, at));
            }
        }
        self.pending.clear();
        Ok(self.m)
    }

    fn check_type(&self, t: TypeSlot, at: u64) -> Result<TypeSlot, ReadError> {
        if self.types().contains(t) {
            Ok(t)
        } else {
            Err(ReadError::new(ReadErrorKind::TypeSlotOutOfRange { slot: t.0 }, at))
        }
    }

    fn read_type_pool(&mut self, r: &mut Reader<'_>) -> Result<(), ReadError> {
        let at = r.offset();
        let n = r.count(1)?;
        if n as u64 > u64::from(self.limits.max_types) {
            let kind =
                ReadErrorKind::LimitExceeded { what: "types", count: n as u64, limit: self.limits.max_types.into() };
            return Err(ReadError::new(kind, at));
        }
        if self.numbering.old {
            r.vbr32()?; // The id of the old "type" plane, ignored (§14).
        }
        let mut defs = vec_for(n, at)?;
        let mut offsets = vec_for(n, at)?;
        for _ in 0..n {
            offsets.push(r.offset());
            defs.push(read_type_def(r, self.numbering)?);
        }
        expect_end(r, "type pool")?;
        self.m.types = defs;
        for (def, at) in self.m.types.iter().zip(offsets) {
            for child in def.children() {
                self.check_type(child, at)?;
            }
        }
        Ok(())
    }

    fn read_global_info(&mut self, r: &mut Reader<'_>) -> Result<(), ReadError> {
        loop {
            let at = r.offset();
            let word = r.vbr32()?;
            if word == 0 {
                break;
            }
            let linkage = Linkage::from_number((word >> 2) & 7)
                .ok_or_else(|| ReadError::new(ReadErrorKind::InvalidLinkage { value: (word >> 2) & 7 }, at))?;
            let ty = match self.numbering.translate(word >> 5) {
                SlotOrTypePlane::Slot(TypeSlot(0)) => return Err(ReadError::new(ReadErrorKind::GlobalTypeZero, at)),
                SlotOrTypePlane::Slot(t) => self.check_type(t, at)?,
                SlotOrTypePlane::TypePlane => return Err(ReadError::new(ReadErrorKind::InvalidTypeId { id: 12 }, at)),
            };
            let pointee = self.types().pointee(ty).ok_or_else(|| self.wrong_type(ty, "a pointer type", at))?;
            let initializer = if word & 2 != 0 {
                let iat = r.offset();
                let slot = r.vbr32()?;
                self.pending.push((self.types().canon(pointee), slot, iat));
                Some(slot)
            } else {
                None
            };
            let plane = self.types().canon(ty);
            self.planes.push(plane);
            self.m.globals.push(GlobalVar { ty, constant: word & 1 != 0, linkage, initializer });
        }
        loop {
            let at = r.offset();
            let ty = self.numbering.read(r)?;
            if ty == TypeSlot::VOID {
                break;
            }
            self.check_type(ty, at)?;
            if self.types().callee(ty).is_none() {
                return Err(self.wrong_type(ty, "a pointer to a function type", at));
            }
            self.planes.push(self.types().canon(ty));
            self.m.functions.push(Function { ty, linkage: Linkage::External, body: None });
        }
        match self.revision() {
            0 => r.align()?,
            3 => {
                let n = r.count(1)?;
                for _ in 0..n {
                    let lib = r.string()?;
                    self.m.dependent_libraries.push(lib);
                }
                self.m.target_triple = r.string()?;
                r.align()?;
            }
            _ => {}
        }
        // Fields after these are ignored: the 1.3 reader jumps to the block end (§2.3).
        Ok(())
    }

    fn wrong_type(&self, t: TypeSlot, expected: &'static str, at: u64) -> ReadError {
        let found = match self.types().get(t) {
            Some(Ty::Def(d)) => d.kind_name(),
            _ => "a primitive type",
        };
        ReadError::new(ReadErrorKind::WrongType { slot: t.0, expected, found }, at)
    }

    fn read_module_constants(&mut self, r: &mut Reader<'_>) -> Result<(), ReadError> {
        let mut refs = Vec::new();
        while !r.is_empty() {
            let at = r.offset();
            let count = r.count(1)?;
            let ty = match self.numbering.read_any(r)? {
                SlotOrTypePlane::TypePlane => {
                    return Err(ReadError::new(ReadErrorKind::Malformed("types in the module constant pool"), at))
                }
                SlotOrTypePlane::Slot(t) => self.check_type(t, at)?,
            };
            if ty == TypeSlot::VOID {
                if !self.m.constants.is_empty() {
                    let kind = ReadErrorKind::Malformed("the string section must come first in the constant pool");
                    return Err(ReadError::new(kind, at));
                }
                for _ in 0..count {
                    let sat = r.offset();
                    let sty = self.numbering.read(r)?;
                    let len = self.string_len(sty, sat)?;
                    let bytes = r.take(len)?.to_vec();
                    self.planes.push(self.types().canon(sty));
                    self.m.constants.strings.push(StringConstant { ty: sty, bytes });
                }
                continue;
            }
            let mut constants = vec_for(count, at)?;
            for _ in 0..count {
                let cat = r.offset();
                let c = read_constant(r, &self.types(), ty, self.numbering)?;
                let canon = self.types().canon(ty);
                if let Constant::GlobalRef(slot) = c {
                    let base = self.base(canon);
                    if slot < base || slot >= base + self.planes.count(canon) {
                        return Err(ReadError::new(ReadErrorKind::InvalidGlobalReference { slot }, cat));
                    }
                }
                for (plane, slot) in constant_refs(&self.types(), canon, &c) {
                    refs.push((self.check_type(plane, cat)?, slot, cat));
                }
                push_constant(&mut self.planes, &Types::module(&self.m.types), self.m.revision, ty, &c);
                constants.push(c);
            }
            self.m.constants.planes.push(ConstantPlane { ty, constants });
        }
        for (plane, slot, at) in refs {
            let plane = self.types().canon(plane);
            if slot >= self.base(plane) + self.planes.count(plane) {
                return Err(ReadError::new(ReadErrorKind::ValueSlotOutOfRange { plane: plane.0, slot }, at));
            }
        }
        Ok(())
    }

    fn string_len(&self, ty: TypeSlot, at: u64) -> Result<usize, ReadError> {
        match self.types().get(ty) {
            Some(Ty::Def(TypeDef::Array { element, len }))
                if matches!(self.types().canon(*element), TypeSlot::SBYTE | TypeSlot::UBYTE) =>
            {
                Ok(*len as usize)
            }
            _ => Err(ReadError::new(ReadErrorKind::InvalidStringType { plane: ty.0 }, at)),
        }
    }

    fn read_module_symbols(&mut self, r: &mut Reader<'_>) -> Result<(), ReadError> {
        let (table, refs) = read_symbol_table(r, self.numbering, &|t| Some(t), &|_, s| s)?;
        for (plane, slot, at) in refs {
            let plane = self.check_type(plane, at)?;
            self.pending.push((self.types().canon(plane), slot, at));
        }
        for t in &table.types {
            self.check_type(t.ty, r.offset())?;
        }
        self.m.symbols = table;
        Ok(())
    }

    fn read_function(&mut self, h: &BlockHeader, r: &mut Reader<'_>) -> Result<(), ReadError> {
        let index = self.functions_read;
        if index >= self.m.functions.len() {
            return Err(ReadError::new(ReadErrorKind::Malformed("more function blocks than functions"), h.offset));
        }
        self.functions_read += 1;
        let at = r.offset();
        let linkage_number = r.vbr32()?;
        let linkage = Linkage::from_number(linkage_number)
            .ok_or_else(|| ReadError::new(ReadErrorKind::InvalidLinkage { value: linkage_number }, at))?;
        let fty = self.m.functions[index].ty;
        let scratch = std::mem::take(&mut self.scratch);
        let (body, scratch) = FunctionReader::new(self, fty, scratch).read(r)?;
        self.scratch = scratch;
        let f = &mut self.m.functions[index];
        f.linkage = linkage;
        f.body = body;
        Ok(())
    }
}

/// Reads a symbol table; `map_type` and `map_value` translate local numbers (compaction). Returns the table and the
/// value references to check: (plane, slot, offset), label-plane slots included.
#[allow(clippy::type_complexity)]
fn read_symbol_table(
    r: &mut Reader<'_>,
    numbering: TypeNumbering,
    map_type: &dyn Fn(TypeSlot) -> Option<TypeSlot>,
    map_value: &dyn Fn(TypeSlot, u32) -> u32,
) -> Result<(SymbolTable, Vec<(TypeSlot, u32, u64)>), ReadError> {
    let mut table = SymbolTable::default();
    let mut refs = Vec::new();
    let ty_at = |t: TypeSlot, at: u64| {
        map_type(t).ok_or_else(|| ReadError::new(ReadErrorKind::TypeSlotOutOfRange { slot: t.0 }, at))
    };
    if !numbering.old {
        let n = r.count(2)?;
        for _ in 0..n {
            let at = r.offset();
            let ty = ty_at(numbering.read(r)?, at)?;
            let name = r.string()?;
            table.types.push(TypeName { ty, name });
        }
    }
    while !r.is_empty() {
        let at = r.offset();
        let count = r.count(2)?;
        match numbering.read_any(r)? {
            SlotOrTypePlane::TypePlane => {
                for _ in 0..count {
                    let tat = r.offset();
                    let ty = ty_at(numbering.read(r)?, tat)?;
                    let name = r.string()?;
                    table.types.push(TypeName { ty, name });
                }
            }
            SlotOrTypePlane::Slot(local) => {
                let ty = ty_at(local, at)?;
                let mut entries = vec_for(count, at)?;
                for _ in 0..count {
                    let eat = r.offset();
                    let raw = r.vbr32()?;
                    let slot = if ty == TypeSlot::LABEL { raw } else { map_value(ty, raw) };
                    refs.push((ty, slot, eat));
                    let name = r.string()?;
                    entries.push(Symbol { slot, name });
                }
                table.planes.push(SymbolPlane { ty, entries });
            }
        }
    }
    Ok((table, refs))
}

/// Buffers that reading a function empties first and hands back at its end, so that the next function reuses
/// them: a module of many small functions then allocates little beyond its model.
#[derive(Default)]
struct Scratch {
    planes: Planes,
    pending: Vec<(TypeSlot, u32, u64)>,
    pending_blocks: Vec<(u32, u64)>,
    current: Vec<Instruction>,
    analysis: Analysis,
    seen: Vec<BlockId>,
}

/// Reads one function block after its linkage.
struct FunctionReader<'a, 'l> {
    mr: &'a ModuleReader<'l>,
    fty: TypeSlot,
    local_types: Vec<TypeDef>,
    compaction: Compaction,
    planes: Planes,
    args_inserted: bool,
    /// Value references checked at the end: (canonical plane, slot, offset).
    pending: Vec<(TypeSlot, u32, u64)>,
    /// Block references checked at the end: (block, offset).
    pending_blocks: Vec<(u32, u64)>,
    body: FunctionBody,
    current: Vec<Instruction>,
    /// The pointer types among the function's own types, when it has some.
    local_pointers: std::cell::OnceCell<Option<PointerIndex>>,
    /// The analysis buffer reused for every instruction.
    analysis: Analysis,
    /// The kinds of block read so far, each once (a revision 0 function has a block per basic block).
    seen: Vec<BlockId>,
}

impl<'a, 'l> FunctionReader<'a, 'l> {
    /// A reader of a function of type `fty`, with the buffers of `scratch`.
    fn new(mr: &'a ModuleReader<'l>, fty: TypeSlot, scratch: Scratch) -> Self {
        let Scratch { mut planes, mut pending, mut pending_blocks, mut current, analysis, mut seen } = scratch;
        planes.clear();
        pending.clear();
        pending_blocks.clear();
        current.clear();
        seen.clear();
        Self {
            mr,
            fty,
            local_types: Vec::new(),
            compaction: Compaction::default(),
            planes,
            args_inserted: false,
            pending,
            pending_blocks,
            body: FunctionBody::default(),
            current,
            local_pointers: std::cell::OnceCell::new(),
            analysis,
            seen,
        }
    }

    /// The buffers, for the next function.
    fn into_scratch(self) -> Scratch {
        let Self { planes, pending, pending_blocks, current, analysis, seen, .. } = self;
        Scratch { planes, pending, pending_blocks, current, analysis, seen }
    }

    fn types(&self) -> Types<'_> {
        Types { module: &self.mr.m.types, local: &self.local_types }
    }

    fn revision(&self) -> u32 {
        self.mr.m.revision
    }

    fn base(&self, plane: TypeSlot) -> u32 {
        u32::from(self.types().has_null(plane, self.revision()))
    }

    fn plane_size(&self, plane: TypeSlot) -> u32 {
        self.base(plane) + self.mr.planes.count(plane) + self.planes.count(plane)
    }

    /// The plain integer at (plane, slot): a `uint`/`ubyte` constant, or the plane's implicit null (0).
    fn int(&self, plane: TypeSlot, slot: u32) -> Option<u64> {
        if slot == 0 && self.types().has_null(plane, self.revision()) {
            return Some(0);
        }
        self.mr.planes.int(plane, slot).or_else(|| self.planes.int(plane, slot))
    }

    fn insert_args(&mut self) {
        if self.args_inserted {
            return;
        }
        self.args_inserted = true;
        let types = Types { module: &self.mr.m.types, local: &self.local_types };
        if let Some((_, params, _)) = types.callee(self.fty) {
            for &p in params {
                self.planes.push(types.canon(p));
            }
        }
    }

    /// Reads the function's blocks: its body (`None` for a declaration), and the buffers for the next function.
    fn read(mut self, r: &mut Reader<'_>) -> Result<(Option<FunctionBody>, Scratch), ReadError> {
        let mut seen = std::mem::take(&mut self.seen);
        let mut any = false;
        while !r.is_empty() {
            let (h, mut content) = read_block(r, self.mr.form)?;
            let dup = |seen: &Vec<BlockId>| {
                if seen.contains(&h.id) {
                    Err(ReadError::new(
                        ReadErrorKind::DuplicateBlock { block: h.id.name(), parent: "function" },
                        h.offset,
                    ))
                } else {
                    Ok(())
                }
            };
            let body_started = seen.iter().any(|b| matches!(b, BlockId::InstructionList | BlockId::BasicBlock));
            match h.id {
                BlockId::CompactionTable => {
                    dup(&seen)?;
                    if any {
                        return Err(order_error(&h, "first in its function"));
                    }
                    let types = Types::module(&self.mr.m.types);
                    self.compaction =
                        Compaction::read(&mut content, self.mr.numbering, &types, &self.mr.planes, self.revision())?;
                }
                BlockId::ConstantPool => {
                    dup(&seen)?;
                    if body_started {
                        return Err(order_error(&h, "before the instructions"));
                    }
                    if seen.contains(&BlockId::CompactionTable) {
                        return Err(ReadError::new(ReadErrorKind::CompactionAndConstantPool, h.offset));
                    }
                    self.insert_args();
                    self.read_constants(&mut content)?;
                }
                BlockId::InstructionList | BlockId::BasicBlock => {
                    if h.id == BlockId::InstructionList {
                        dup(&seen)?;
                    }
                    if seen.contains(&BlockId::InstructionList)
                        || (h.id == BlockId::InstructionList && seen.contains(&BlockId::BasicBlock))
                    {
                        return Err(ReadError::new(
                            ReadErrorKind::DuplicateBlock { block: "instruction list", parent: "function" },
                            h.offset,
                        ));
                    }
                    self.insert_args();
                    self.read_instructions(&mut content)?;
                }
                BlockId::SymbolTable => {
                    dup(&seen)?;
                    self.read_symbols(&mut content)?;
                }
                BlockId::Unknown(_) => {}
                other => {
                    let kind = ReadErrorKind::MisplacedBlock { block: other.name(), parent: "function" };
                    return Err(ReadError::new(kind, h.offset));
                }
            }
            if !matches!(h.id, BlockId::Unknown(_)) {
                any = true;
            }
            if !seen.contains(&h.id) {
                seen.push(h.id);
            }
            r.align()?;
        }
        self.seen = seen;
        if !any {
            return Ok((None, self.into_scratch()));
        }
        self.insert_args();
        let nblocks = self.body.blocks.len() as u32;
        for &(block, at) in &self.pending_blocks {
            if block >= nblocks {
                return Err(ReadError::new(ReadErrorKind::BlockOutOfRange { block, count: nblocks }, at));
            }
        }
        for &(plane, slot, at) in &self.pending {
            if slot >= self.plane_size(plane) {
                return Err(ReadError::new(ReadErrorKind::ValueSlotOutOfRange { plane: plane.0, slot }, at));
            }
        }
        let mut body = std::mem::take(&mut self.body);
        body.types = std::mem::take(&mut self.local_types);
        Ok((Some(body), self.into_scratch()))
    }

    fn read_constants(&mut self, r: &mut Reader<'_>) -> Result<(), ReadError> {
        let numbering = self.mr.numbering;
        let mut offsets = Vec::new();
        let mut push_types = |this: &mut Self, r: &mut Reader<'_>, n: usize| -> Result<(), ReadError> {
            let total = this.mr.m.types.len() + this.local_types.len() + n;
            if total as u64 > u64::from(this.mr.limits.max_types) {
                let limit = this.mr.limits.max_types.into();
                return Err(r.error(ReadErrorKind::LimitExceeded { what: "types", count: total as u64, limit }));
            }
            for _ in 0..n {
                offsets.push(r.offset());
                let def = read_type_def(r, numbering)?;
                this.local_types.push(def);
            }
            Ok(())
        };
        if !numbering.old {
            let n = r.count(1)?;
            push_types(self, r, n)?;
        }
        let mut refs = Vec::new();
        while !r.is_empty() {
            let at = r.offset();
            let count = r.count(1)?;
            let ty = match numbering.read_any(r)? {
                SlotOrTypePlane::TypePlane => {
                    push_types(self, r, count)?;
                    continue;
                }
                SlotOrTypePlane::Slot(t) => t,
            };
            if ty == TypeSlot::VOID {
                return Err(ReadError::new(ReadErrorKind::Malformed("strings in a function constant pool"), at));
            }
            if !self.types().contains(ty) {
                return Err(ReadError::new(ReadErrorKind::TypeSlotOutOfRange { slot: ty.0 }, at));
            }
            let mut constants = vec_for(count, at)?;
            for _ in 0..count {
                let cat = r.offset();
                let c = read_constant(r, &self.types(), ty, numbering)?;
                let canon = self.types().canon(ty);
                if matches!(c, Constant::GlobalRef(_)) {
                    return Err(ReadError::new(ReadErrorKind::Malformed("pointer constant in a function pool"), cat));
                }
                for (plane, slot) in constant_refs(&self.types(), canon, &c) {
                    refs.push((plane, slot, cat));
                }
                let slot = self.plane_size(canon);
                if let (true, Constant::Unsigned(v)) = (is_index_plane(canon), &c) {
                    self.planes.set_int(canon, slot, *v);
                }
                self.planes.push(canon);
                constants.push(c);
            }
            self.body.constants.push(ConstantPlane { ty, constants });
        }
        for (def, at) in self.local_types.iter().zip(offsets) {
            for child in def.children() {
                if !self.types().contains(child) {
                    return Err(ReadError::new(ReadErrorKind::TypeSlotOutOfRange { slot: child.0 }, at));
                }
            }
        }
        for (plane, slot, at) in refs {
            if !self.types().contains(plane) {
                return Err(ReadError::new(ReadErrorKind::TypeSlotOutOfRange { slot: plane.0 }, at));
            }
            let plane = self.types().canon(plane);
            if slot >= self.plane_size(plane) {
                return Err(ReadError::new(ReadErrorKind::ValueSlotOutOfRange { plane: plane.0, slot }, at));
            }
        }
        Ok(())
    }

    fn read_symbols(&mut self, r: &mut Reader<'_>) -> Result<(), ReadError> {
        let types = self.types();
        let map_type = |t: TypeSlot| self.compaction.type_to_global(t.0).filter(|&g| types.contains(g));
        let map_value = |plane: TypeSlot, s: u32| {
            let plane = types.canon(plane);
            let base = u32::from(types.has_null(plane, self.revision()));
            self.compaction.value_to_global(plane, s, base, self.mr.planes.count(plane))
        };
        let (table, refs) = read_symbol_table(r, self.mr.numbering, &map_type, &map_value)?;
        for (plane, slot, at) in refs {
            if plane == TypeSlot::LABEL {
                self.pending_blocks.push((slot, at));
            } else {
                let canon = self.types().canon(plane);
                self.pending.push((canon, slot, at));
            }
        }
        self.body.symbols = table;
        Ok(())
    }

    fn read_instructions(&mut self, r: &mut Reader<'_>) -> Result<(), ReadError> {
        while !r.is_empty() {
            let at = r.offset();
            let raw = read_raw(r)?;
            let inst = self.decode(&raw, at)?;
            let terminator = inst.opcode.is_terminator();
            self.current.push(inst);
            if terminator {
                // A block of its own size; `current` keeps its room for the next block.
                let instructions = self.current.drain(..).collect();
                self.body.blocks.push(BasicBlock { instructions });
            }
        }
        if !self.current.is_empty() {
            return Err(r.error(ReadErrorKind::MissingTerminator));
        }
        Ok(())
    }

    fn global_type(&self, local: u32, at: u64) -> Result<TypeSlot, ReadError> {
        let local = match self.mr.numbering.translate(local) {
            SlotOrTypePlane::Slot(t) => t.0,
            SlotOrTypePlane::TypePlane => return Err(ReadError::new(ReadErrorKind::InvalidTypeId { id: 12 }, at)),
        };
        self.compaction
            .type_to_global(local)
            .filter(|&g| self.types().contains(g))
            .ok_or_else(|| ReadError::new(ReadErrorKind::TypeSlotOutOfRange { slot: local }, at))
    }

    fn global_value(&self, plane: TypeSlot, local: u32) -> u32 {
        let plane = self.types().canon(plane);
        self.compaction.value_to_global(plane, local, self.base(plane), self.mr.planes.count(plane))
    }

    fn decode(&mut self, raw: &RawInstruction, at: u64) -> Result<Instruction, ReadError> {
        let opcode = Opcode::from_number(raw.opcode)
            .ok_or(ReadError::new(ReadErrorKind::InvalidOpcode { opcode: raw.opcode }, at))?;
        let name = opcode.mnemonic();
        let count_error =
            || ReadError::new(ReadErrorKind::OperandCount { opcode: name, count: raw.operands.len() }, at);
        let ty = self.global_type(raw.ty, at)?;
        let ops = &raw.operands;
        let n = ops.len();
        let alternate = |first_value: bool| -> Vec<Operand> {
            ops.iter()
                .enumerate()
                .map(|(i, &o)| if (i % 2 == 0) == first_value { Operand::Value(o) } else { Operand::Block(o) })
                .collect()
        };
        let operands: Vec<Operand> = match opcode {
            Opcode::Br => match n {
                1 => vec![Operand::Block(ops[0])],
                3 => vec![Operand::Block(ops[0]), Operand::Block(ops[1]), Operand::Value(ops[2])],
                _ => return Err(count_error()),
            },
            Opcode::Switch | Opcode::Phi => alternate(true),
            Opcode::Invoke | Opcode::Call => {
                let fixed_start = if opcode == Opcode::Invoke { 3 } else { 1 };
                if n < fixed_start {
                    return Err(count_error());
                }
                let (_, params, varargs) = self.types().callee(ty).ok_or(ReadError::new(
                    ReadErrorKind::InvalidOperands {
                        opcode: name,
                        reason: "the type field is not a pointer to a function",
                    },
                    at,
                ))?;
                let fixed = params.len();
                let mut out = vec![Operand::Value(ops[0])];
                if opcode == Opcode::Invoke {
                    out.extend([Operand::Block(ops[1]), Operand::Block(ops[2])]);
                }
                let args = &ops[fixed_start..];
                if args.len() < fixed || (!varargs && args.len() != fixed) || (args.len() - fixed) % 2 != 0 {
                    return Err(count_error());
                }
                out.extend(args[..fixed].iter().map(|&o| Operand::Value(o)));
                for pair in args[fixed..].chunks_exact(2) {
                    let ty = self.global_type(pair[0], at)?;
                    out.push(Operand::VarArg { ty, slot: self.global_value(ty, pair[1]) });
                }
                out
            }
            Opcode::Cast | Opcode::VaArg | Opcode::VaNext => match n {
                2 => vec![Operand::Value(ops[0]), Operand::Type(self.global_type(ops[1], at)?)],
                _ => return Err(count_error()),
            },
            Opcode::GetElementPtr => {
                if n == 0 {
                    return Err(count_error());
                }
                let mut out = vec![Operand::Value(ops[0])];
                let mut current = ty;
                let old = self.mr.numbering.old;
                for &o in &ops[1..] {
                    let step = gep_step(&self.types(), current).ok_or(ReadError::new(
                        ReadErrorKind::InvalidOperands { opcode: name, reason: "indexes into a non-aggregate type" },
                        at,
                    ))?;
                    match step {
                        GepStep::Sequential(element) => {
                            let (kind, slot) =
                                if old { (IndexKind::Long, o) } else { (IndexKind::from_low_bits(o), o >> 2) };
                            out.push(Operand::Index { kind, slot: self.global_value(kind.plane(), slot) });
                            current = element;
                        }
                        GepStep::Struct(fields) => {
                            let kind = if old { IndexKind::Ubyte } else { IndexKind::Uint };
                            let slot = self.global_value(kind.plane(), o);
                            let value = self
                                .int(kind.plane(), slot)
                                .ok_or(ReadError::new(ReadErrorKind::NonConstantStructIndex, at))?;
                            current =
                                *usize::try_from(value).ok().and_then(|v| fields.get(v)).ok_or(ReadError::new(
                                    ReadErrorKind::StructIndexOutOfRange { index: value, count: fields.len() },
                                    at,
                                ))?;
                            out.push(Operand::Index { kind, slot });
                        }
                    }
                }
                out
            }
            _ => ops.iter().map(|&o| Operand::Value(o)).collect(),
        };
        let mut inst = Instruction { opcode, ty, operands };
        let mut analysis = std::mem::take(&mut self.analysis);
        {
            let int = |p: TypeSlot, s: u32| self.int(p, s);
            let types = self.types();
            let module = self.mr.pointers.get_or_init(|| PointerIndex::new(&types));
            let local = self.local_pointers.get_or_init(|| PointerIndex::local(&types));
            analyze_into(&types, Pointers::new(module, local.as_ref()), &inst, &int, &mut analysis)
                .map_err(|reason| ReadError::new(ReadErrorKind::InvalidOperands { opcode: name, reason }, at))?;
        }
        for (i, op) in inst.operands.iter_mut().enumerate() {
            match op {
                Operand::Value(slot) => {
                    let plane = analysis.planes[i].unwrap_or(TypeSlot::VOID);
                    *slot = self.global_value(plane, *slot);
                    self.pending.push((plane, *slot, at));
                }
                Operand::Index { slot, .. } | Operand::VarArg { slot, .. } => {
                    let plane = analysis.planes[i].unwrap_or(TypeSlot::VOID);
                    self.pending.push((plane, *slot, at));
                }
                Operand::Block(b) => self.pending_blocks.push((*b, at)),
                Operand::Type(_) => {}
            }
        }
        if analysis.result != TypeSlot::VOID {
            self.planes.push(analysis.result);
        }
        self.analysis = analysis;
        Ok(inst)
    }
}
