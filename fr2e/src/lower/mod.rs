//! The writer: an `ir::Module` to its one canonical FR2E image (`fr2e.md` Part C, checklist A14).
//!
//! Every instruction is turned into *logical* VOPs ([`Lvop`]: opcode, operator, type ids and abstract operands) by
//! one emitter, [`Emitter::body`], and three passes consume that same stream, so they cannot disagree about what is
//! written. The emitter is generic over its sink, so each pass gets its own inlined copy and no call is dynamic:
//!
//! 1. **plan** (per FN entry in GBLD order): Temporary numbers by first definition, Local numbers of the allocas, the
//!    blocks in emission order, and the LITD order of structs and tuples (first occurrence, post-order, C1); labels
//!    and trace-table indices then count through the bodies in the order their VOPs are written. The lists of all
//!    bodies share one vector per kind ([`Plans`]), so planning allocates nothing per body;
//! 2. **strings** (bodies in storage order): the phase-2 strings of A14.5 — non-simple Type IDs and trap reasons —
//!    after the phase-1 strings that writing the LITD and GBLD entries interned, replayed from the first uses that
//!    the plan recorded per body (no second walk);
//! 3. **encode**: logical VOPs field by field through the format layer's canonical [`VopEncoder`] (MTF lists, mask
//!    forms) into the `vops` payload, plus one trace per block and a header per body. No [`Vop`](crate::format::Vop)
//!    is built: the writer keeps, per Temporary and Arg number and per type, the MTF cell the encoder last gave it,
//!    so the canonical "repeat if listed" rule needs no search (`SearchMtf::find_or_push_at`).
//!
//! Entries are written by hand with the format layer's chunk helpers rather than through the [`crate::format::Entry`]
//! model: a body has one `R` variable per value, and caching each type's encoded `s` attribute as a fixed-size block
//! keeps that list cheap (a `V` is a two-byte header, one fixed copy and, when needed, the ValueId).
//! The format layer's reader accepts the result and re-writes it byte for byte (see the tests), which checks that
//! this writer follows the canonical attribute order and header forms.
//!
//! Function bodies are written in their storage order. For builder modules that is the declaration (GBLD) order of
//! A12's canonical layout; when a module stores bodies in another order, the VOPs and headers follow the storage
//! order and the reader restores it from the position of each body's VOPs (a decision recorded in `docs/fr2e.md`).

use std::ops::Range;

use rustc_hash::FxHashMap;

use ir::entity::EntityRef;

use ir::{
    BlockId, ConstExpr, ConstExprKind, ConstRef, ConstValue, FunctionId, GlobalId, InstData, Linkage, Module, SigId,
    StrId, Type, TypeId, TypeKey, TypeTable, ValueId,
};

use crate::error::LowerError;
use crate::format::immediate::Immediate;
use crate::format::limits::{MAX_CANONICAL_INLINE_STRING, MAX_SMALL_LEN};
use crate::format::mtf::MtfCell;
use crate::format::mutf8;
use crate::format::register::Register;
use crate::format::strings::{StringTable, StringTableBuilder, StringTag};
use crate::format::tlv::{begin_chunk, finish_chunk, small_header, write_data_chunk, Tag};
use crate::format::trace::{write_traces, TraceRecord};
use crate::format::type_id::{simple_form, VopType};
use crate::format::vli::{uvli64_len, write_svli, write_uvli32, write_uvli64, write_uvli64_word};
use crate::format::vop::{
    opcode as op, EncodeError, VopEncoder, MASK_DST, MASK_IMM, MASK_SRCA, MASK_SRCB, MASK_SRCC, MASK_STYPE, MASK_TYPE,
};
use crate::profile;

mod emit;

use emit::{Emitter, Imm, Lvop, Operand};

/// Writes `module` as its canonical FR2E image.
///
/// The module must be valid Whale IR (it passes [`ir::verify_module`]); invalid modules the mapping cannot express,
/// and images above the format's 1 GiB chunk limit, make this function panic. [`try_write_module`] returns those
/// cases as errors instead.
///
/// ```
/// use ir::{ModuleBuilder, DataLayout, Type};
/// let mut module = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
/// let mut f = module.begin_function("answer", vec![], Type::I32);
/// let answer = f.const_i32(42);
/// f.ret(Some(answer));
/// f.finish();
/// let module = module.finish();
/// let image = fr2e::write_module(&module);
/// assert_eq!(&image[4..8], b"FR2E");
/// let back = fr2e::read_module(&image).unwrap();
/// assert_eq!(ir::print_module(&back), ir::print_module(&module));
/// assert_eq!(fr2e::write_module(&back), image);
/// ```
pub fn write_module(module: &Module) -> Vec<u8> {
    match try_write_module(module) {
        Ok(bytes) => bytes,
        Err(e) => panic!("fr2e::write_module: {e}"),
    }
}

/// Writes `module` as its canonical FR2E image, or says why it cannot be written.
pub fn try_write_module(module: &Module) -> Result<Vec<u8>, LowerError> {
    try_write_module_with(module, WriteOptions::default())
}

/// How [`try_write_module_with`] writes an image.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Store the string data LZ4-compressed, as `strz`, instead of `strs` (project decision 3). Such images read
    /// back to the same module; they are not the canonical image, which always uses `strs` (A5.4).
    pub compress_strings: bool,
}

/// Writes `module` as an FR2E image with `options`, or says why it cannot be written.
pub fn try_write_module_with(module: &Module, options: WriteOptions) -> Result<Vec<u8>, LowerError> {
    Lower::new(module).run(options)
}

/// Raw register number of a value in [`Lower::registers`]: `ARG | k` for parameter k, `j` for Temporary j.
const ARG: u32 = 1 << 31;
const NONE: u32 = u32::MAX;

/// What the plan pass learns about one body; its lists are ranges of the module's [`Plans`].
struct Body {
    /// GBLD index of its FN entry.
    gbld: u32,
    /// Blocks in emission order.
    blocks: Range<usize>,
    /// Temporary j is `temps[j]`.
    temps: Range<usize>,
    /// Local m is the storage of an alloca of `allocas[m]`.
    allocas: Range<usize>,
    /// Trace-table index of the body's header.
    header: u32,
    /// The VOP types and trap reasons of the body, each at its first use, in VOP order (phase 2 strings).
    string_uses: Range<usize>,
    /// Whether the body has `const_decl` instructions (their records go in tag 0x18).
    const_decls: bool,
}

/// The lists of every [`Body`], one vector each for the whole module (so planning a body allocates nothing).
#[derive(Default)]
struct Plans {
    blocks: Vec<BlockId>,
    temps: Vec<ValueId>,
    allocas: Vec<TypeId>,
    string_uses: Vec<StringUse>,
}

/// A use of a phase-2 string (A14.5): a VOP type (a string when it has no simple form) or a trap reason.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StringUse {
    Type(TypeId),
    Reason(StrId),
}

struct Lower<'m> {
    m: &'m Module,
    types: &'m TypeTable,
    strings: StringTableBuilder,
    /// LITD index of each struct and tuple type (by TypeId), 0 for none.
    litd: Vec<u32>,
    litd_order: Vec<TypeId>,
    visited: Vec<bool>,
    /// Signature text by TypeId, computed on first use.
    signatures: Vec<Option<Box<str>>>,
    /// The encoded `s` attribute chunk by TypeId, computed on first use (phase 1 of A14.5).
    s_attributes: Vec<Option<Box<[u8]>>>,
    /// The `s` attributes of at most 16 bytes, by TypeId, for the `V` entries of `R` lists.
    short_s_attributes: Vec<Option<ShortBytes>>,
    /// The VOP Type ID by TypeId, computed on first use (phase 2).
    vop_types: Vec<Option<VopType>>,
    /// Register of each value (see [`ARG`]): every body's dense value table, one after the other.
    registers: Vec<u32>,
    /// Label of each block: every body's dense block table, one after the other.
    labels: Vec<u32>,
    /// Where each body's values and blocks are in `registers` and `labels` (ids are scoped to their function).
    scopes: Vec<Scope>,
    /// The body being planned, written or encoded, and its scope.
    current: std::cell::Cell<Scope>,
    current_body: std::cell::Cell<Option<ir::Function<'m>>>,
    next_label: u32,
    function_gbld: FxHashMap<FunctionId, u32>,
    global_gbld: FxHashMap<GlobalId, u32>,
    /// The first body of each function id.
    body_of: FxHashMap<FunctionId, usize>,
    /// Plans by body storage index.
    bodies: Vec<Option<Body>>,
    /// The lists of the plans.
    plans: Plans,
    reasons: FxHashMap<StrId, u32>,
    scratch: Vec<u8>,
    /// By TypeId, 1 + the storage index of the last body that used the type in a VOP (0: none).
    type_marks: Vec<u32>,
    /// The FN entry being written, and its R list: buffers kept across entries.
    entry_buffer: Vec<u8>,
    list_buffer: Vec<u8>,
}

/// Where one body's values and blocks are in [`Lower::registers`] and [`Lower::labels`]: value `v` at
/// `registers + (v - value_base)` when that is below `values`, block `b` likewise.
#[derive(Clone, Copy, Default)]
struct Scope {
    value_base: u32,
    registers: usize,
    values: usize,
    block_base: u32,
    labels: usize,
    blocks: usize,
}

impl Scope {
    #[inline(always)]
    fn register(&self, v: ValueId) -> Option<usize> {
        let i = v.as_u32().wrapping_sub(self.value_base) as usize;
        (i < self.values).then_some(self.registers + i)
    }

    #[inline(always)]
    fn label(&self, b: BlockId) -> Option<usize> {
        let i = b.as_u32().wrapping_sub(self.block_base) as usize;
        (i < self.blocks).then_some(self.labels + i)
    }
}

fn lower_err(e: EncodeError) -> LowerError {
    match e {
        EncodeError::Write(e) => LowerError::Format(e),
        EncodeError::Vop(what) => LowerError::Invalid { func: String::new(), what },
    }
}

/// At most 16 bytes, copied as a fixed-size block (cheaper than a variable-length copy for short attributes).
struct ShortBytes {
    bytes: [u8; 16],
    len: usize,
}

impl ShortBytes {
    fn new(bytes: &[u8]) -> Option<Self> {
        let mut short = ShortBytes { bytes: [0; 16], len: bytes.len() };
        short.bytes.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(short)
    }

    fn len(&self) -> usize {
        self.len
    }
}

/// Appends the string tag of `text` (A5.5) that [`StringTableBuilder::tag`] would give, without building it.
fn write_string_tag(strings: &mut StringTableBuilder, out: &mut Vec<u8>, text: &str) {
    match mutf8::encoded_len(text) {
        0 => write_svli(out, 1),
        1..=MAX_CANONICAL_INLINE_STRING => {
            write_svli(out, -1);
            mutf8::encode(text, out);
            out.push(0);
        }
        _ => write_svli(out, i64::from(strings.intern(text))),
    }
}

/// Appends a string tag (A5.5).
fn push_tag(out: &mut Vec<u8>, tag: &StringTag) {
    match tag {
        StringTag::Index(i) => write_svli(out, i64::from(*i)),
        StringTag::Inline(text) => {
            write_svli(out, -1);
            mutf8::encode(text, out);
            out.push(0);
        }
    }
}

impl<'m> Lower<'m> {
    fn new(m: &'m Module) -> Self {
        let types = m.types();
        Lower {
            m,
            types,
            strings: StringTableBuilder::new(),
            litd: vec![0; types.len()],
            litd_order: Vec::new(),
            visited: vec![false; types.len()],
            signatures: vec![None; types.len()],
            s_attributes: vec![None; types.len()],
            short_s_attributes: (0..types.len()).map(|_| None).collect(),
            vop_types: vec![None; types.len()],
            registers: Vec::new(),
            labels: Vec::new(),
            scopes: Vec::new(),
            current: std::cell::Cell::new(Scope::default()),
            current_body: std::cell::Cell::new(None),
            next_label: 1,
            function_gbld: FxHashMap::default(),
            global_gbld: FxHashMap::default(),
            body_of: FxHashMap::default(),
            bodies: Vec::new(),
            plans: Plans::default(),
            reasons: FxHashMap::default(),
            scratch: Vec::new(),
            type_marks: vec![0; types.len()],
            entry_buffer: Vec::new(),
            list_buffer: Vec::new(),
        }
    }

    fn module_error(what: &'static str) -> LowerError {
        LowerError::Invalid { func: String::new(), what }
    }

    fn run(mut self, options: WriteOptions) -> Result<Vec<u8>, LowerError> {
        let m = self.m;
        let global_count = m.globals().len() as u32;
        for (i, g) in m.globals().enumerate() {
            self.global_gbld.entry(g.id).or_insert(i as u32 + 1);
        }
        for (i, d) in m.declarations().enumerate() {
            self.function_gbld.entry(d.id).or_insert(global_count + i as u32 + 1);
        }
        self.bodies = (0..m.function_count()).map(|_| None).collect();
        let (mut registers, mut labels) = (0, 0);
        for f in m.functions() {
            let (values, blocks) = (f.value_slots(), f.block_slots());
            let value_base = f.value_at(0).as_u32();
            let block_base = f.block_at(0).as_u32();
            self.scopes.push(Scope { value_base, registers, values, block_base, labels, blocks });
            (registers, labels) = (registers + values, labels + blocks);
        }
        self.registers = vec![NONE; registers];
        self.labels = vec![NONE; labels];
        for f in m.functions() {
            if self.body_of.insert(f.id, f.index).is_some() {
                return Err(Self::module_error("two bodies define one function"));
            }
            if !self.function_gbld.contains_key(&f.id) {
                return Err(LowerError::Invalid { func: f.name.to_string(), what: "the body has no declaration" });
            }
        }

        // Pass 1: plan, in GBLD order (C1's LITD order; labels and traces follow body storage order below).
        for g in m.globals() {
            self.visit_type(g.ty);
        }
        let mut planned = 0;
        for (i, d) in m.declarations().enumerate() {
            let sig = self.types.sig(d.sig);
            for &p in sig.params.iter() {
                self.visit_type(p);
            }
            self.visit_type(sig.ret);
            match self.body_of.get(&d.id) {
                Some(&body) if self.bodies[body].is_none() => {
                    self.plan(body, global_count + i as u32 + 1)?;
                    planned += 1;
                }
                _ => {}
            }
        }
        debug_assert_eq!(planned, m.function_count());
        // Labels and trace-table indices follow the body storage order, the order the VOPs are written in.
        let mut next_record = 0u32;
        let plans = std::mem::take(&mut self.plans);
        for (index, body) in self.bodies.iter_mut().enumerate() {
            let Some(body) = body else { continue };
            let scope = self.scopes[index];
            for &b in &plans.blocks[body.blocks.clone()] {
                if let Some(slot) = scope.label(b).and_then(|i| self.labels.get_mut(i)) {
                    *slot = self.next_label;
                }
                self.next_label += 1;
            }
            next_record += body.blocks.len() as u32;
            body.header = next_record;
            next_record += 1;
        }

        // Phase 1 strings: the entries, in order.
        let mut litd = Vec::new();
        for k in 0..self.litd_order.len() {
            self.write_struct_entry(&mut litd, k)?;
        }
        let mut gbld = Vec::new();
        for (i, g) in m.globals().enumerate() {
            self.write_global_entry(&mut gbld, i, g)?;
        }
        for (i, d) in m.declarations().enumerate() {
            self.write_function_entry(&mut gbld, i, d, &plans)?;
        }

        // Phase 2: the VOP stream's strings, in stream order. The plan recorded each body's first uses in VOP order;
        // replaying them body by body in storage order interns exactly what a walk of the stream would.
        for index in 0..self.bodies.len() {
            let uses = match &self.bodies[index] {
                Some(body) => body.string_uses.clone(),
                None => continue,
            };
            for &string_use in &plans.string_uses[uses] {
                match string_use {
                    StringUse::Type(ty) => {
                        self.vop_type(ty)?;
                    }
                    StringUse::Reason(reason) => {
                        if !self.reasons.contains_key(&reason) {
                            let index = self.strings.intern(m.str(reason));
                            self.reasons.insert(reason, index);
                        }
                    }
                }
            }
        }

        // Phase 3: root extensions.
        let target = (!m.target().is_empty()).then(|| self.strings.tag(m.target()));
        let strings = std::mem::take(&mut self.strings).finish();

        // The image is written in one buffer: the root's and the `vops` chunk's headers are reserved and filled in
        // once their payloads are known, so the largest payloads are written once, in place. Errors are reported in
        // the order of the VOPs, the traces, then the chunks, as if each chunk were assembled separately.
        let stri = strings.stri_payload();
        let mut out =
            Vec::with_capacity(strings.data().len() + stri.len() + m.inst_count() * 16 + litd.len() + gbld.len() + 256);
        let root = begin_chunk(&mut out);
        let mut strings_written = Ok(());
        if !strings.data().is_empty() {
            strings_written = if options.compress_strings {
                write_data_chunk(&mut out, Tag::STRZ, &strings.strz_payload())
            } else {
                write_data_chunk(&mut out, Tag::STRS, strings.data())
            };
        }
        if strings_written.is_ok() && !stri.is_empty() {
            strings_written = write_data_chunk(&mut out, Tag::STRI, &stri);
        }
        let vops = begin_chunk(&mut out);
        let traces = self.encode(&strings, &mut out)?;
        let vtrs = write_traces(&traces)?;
        strings_written?;
        if out.len() == vops + 8 {
            out.truncate(vops);
        } else {
            finish_chunk(&mut out, vops, Tag::VOPS)?;
        }
        if !vtrs.is_empty() {
            write_data_chunk(&mut out, Tag::VTRS, &vtrs)?;
        }
        for (tag, entries) in [(Tag::LITD, &litd), (Tag::GBLD, &gbld)] {
            if !entries.is_empty() {
                write_data_chunk(&mut out, tag, entries)?;
            }
        }
        if let Some(target) = &target {
            let mut payload = Vec::new();
            push_tag(&mut payload, target);
            write_data_chunk(&mut out, profile::TAG_TARGET, &payload)?;
        }
        let layout = m.data_layout();
        if layout != ir::DataLayout::default_64bit_le() {
            let mut payload = Vec::new();
            write_uvli32(&mut payload, layout.pointer_bits);
            write_uvli32(&mut payload, u32::from(layout.endian == ir::Endian::Big));
            write_data_chunk(&mut out, profile::TAG_DATALAYOUT, &payload)?;
        }
        finish_chunk(&mut out, root, Tag::FR2E)?;
        Ok(out)
    }

    // ---- plan ------------------------------------------------------------------------------------------------

    /// Numbers body `index`'s values, allocas and blocks, and visits its types for the LITD order.
    fn plan(&mut self, index: usize, gbld: u32) -> Result<(), LowerError> {
        let m = self.m;
        let f = m.function_at(index);
        let scope = self.scopes[index];
        self.current.set(scope);
        self.current_body.set(Some(f));
        for (k, p) in f.params.iter().enumerate() {
            if let Some(slot) = scope.register(p.value).and_then(|i| self.registers.get_mut(i)) {
                *slot = ARG | k as u32;
            }
        }
        let (blocks, temps, allocas, string_uses) =
            (self.plans.blocks.len(), self.plans.temps.len(), self.plans.allocas.len(), self.plans.string_uses.len());
        let mut const_decls = false;
        // Marks the types this body has used so far.
        let stamp = index as u32 + 1;
        let mut emitter = Emitter::new(m, f);
        emitter.body(&mut |vop| {
            if let Imm::Label(b) = vop.imm {
                if vop.opn == op::LABEL {
                    self.plans.blocks.push(b);
                }
            }
            if let Operand::Value(v) = vop.dst {
                // The stored-to pointer of STIXIMM is a use (A8.5).
                if vop.opn != op::STIXIMM {
                    if let Some(slot) = scope.register(v).and_then(|i| self.registers.get_mut(i)) {
                        if *slot == NONE {
                            *slot = (self.plans.temps.len() - temps) as u32;
                            self.plans.temps.push(v);
                        }
                    }
                }
                if let Some(t) = f.value_type(v) {
                    self.visit_type(t);
                }
            }
            match vop.srca {
                Operand::Local(_) => self.plans.allocas.push(vop.ty.unwrap_or(TypeId::VOID)),
                Operand::ConstInst(inst) => const_decls |= matches!(f.inst(inst), InstData::ConstDecl { .. }),
                _ => {}
            }
            for ty in [vop.ty, vop.stype].into_iter().flatten() {
                self.visit_type(ty);
                match self.type_marks.get_mut(ty.index()) {
                    Some(mark) if *mark == stamp => {}
                    Some(mark) => {
                        *mark = stamp;
                        self.plans.string_uses.push(StringUse::Type(ty));
                    }
                    // Not in the type table: phase 2 reports it.
                    None => self.plans.string_uses.push(StringUse::Type(ty)),
                }
            }
            if let Imm::Reason(reason) = vop.imm {
                if !self.plans.string_uses[string_uses..].contains(&StringUse::Reason(reason)) {
                    self.plans.string_uses.push(StringUse::Reason(reason));
                }
            }
            Ok(())
        })?;
        if self.plans.blocks.len() == blocks {
            return Err(LowerError::Invalid { func: f.name.to_string(), what: "the function has no blocks" });
        }
        self.bodies[index] = Some(Body {
            gbld,
            blocks: blocks..self.plans.blocks.len(),
            temps: temps..self.plans.temps.len(),
            allocas: allocas..self.plans.allocas.len(),
            header: 0,
            string_uses: string_uses..self.plans.string_uses.len(),
            const_decls,
        });
        Ok(())
    }

    /// Post-order visit for the LITD order: members before the aggregate, each struct or tuple once (C1).
    #[inline]
    fn visit_type(&mut self, ty: TypeId) {
        if !ty.is_scalar() {
            self.visit_aggregate(ty);
        }
    }

    /// [`visit_type`](Self::visit_type) for a type that is not a scalar.
    fn visit_aggregate(&mut self, ty: TypeId) {
        if self.visited.get(ty.index()).copied().unwrap_or(true) {
            return;
        }
        self.visited[ty.index()] = true;
        match self.types.key(ty) {
            TypeKey::Ptr(t) | TypeKey::Array(t, _) => self.visit_type(*t),
            TypeKey::FnPtr(s) => {
                let sig = self.types.sig(*s);
                for &p in sig.params.iter() {
                    self.visit_type(p);
                }
                self.visit_type(sig.ret);
            }
            TypeKey::Struct(fields) | TypeKey::Tuple(fields) => {
                for &t in fields.iter() {
                    self.visit_type(t);
                }
                self.litd_order.push(ty);
                self.litd[ty.index()] = self.litd_order.len() as u32;
            }
            _ => {}
        }
    }

    // ---- signatures --------------------------------------------------------------------------------------------

    /// The signature text of `ty` (C1).
    fn signature(&mut self, ty: TypeId) -> Result<&str, LowerError> {
        if self.signatures.get(ty.index()).is_none() {
            return Err(Self::module_error("a type is not in the module's type table"));
        }
        if self.signatures[ty.index()].is_none() {
            let mut text = String::new();
            self.push_signature(&mut text, ty)?;
            self.signatures[ty.index()] = Some(text.into_boxed_str());
        }
        Ok(self.signatures[ty.index()].as_deref().unwrap_or_default())
    }

    fn push_signature(&self, out: &mut String, ty: TypeId) -> Result<(), LowerError> {
        if let Some(sig) = profile::scalar_signature(ty) {
            out.push_str(sig);
            return Ok(());
        }
        match self.types.key(ty) {
            TypeKey::Ptr(t) => {
                out.push('P');
                self.push_signature(out, *t)
            }
            TypeKey::FnPtr(s) => {
                out.push('P');
                self.push_function_signature(out, *s)
            }
            TypeKey::Array(t, n) => {
                out.push('A');
                out.push_str(itoa::Buffer::new().format(*n));
                out.push(';');
                self.push_signature(out, *t)
            }
            TypeKey::Struct(_) | TypeKey::Tuple(_) => match self.litd.get(ty.index()) {
                Some(&k) if k != 0 => {
                    out.push_str("X$");
                    out.push_str(itoa::Buffer::new().format(k));
                    out.push(';');
                    Ok(())
                }
                _ => Err(Self::module_error("a struct type has no LITD entry")),
            },
            _ => Err(Self::module_error("unknown type")),
        }
    }

    /// `[Ucc.NAME;](params)ret` (A7.1, B41).
    fn push_function_signature(&self, out: &mut String, sig: SigId) -> Result<(), LowerError> {
        let key = self.types.sig(sig);
        if key.variadic {
            return Err(Self::module_error("variadic signatures are not in the Whale profile"));
        }
        if key.convention == ir::CallingConvention::SysV64 {
            out.push_str("Ucc.sysv64;");
        }
        out.push('(');
        for &p in key.params.iter() {
            self.push_signature(out, p)?;
        }
        out.push(')');
        self.push_signature(out, key.ret)
    }

    /// The signature of a constant expression's type: it is a type of the module's table.
    fn expr_type(&self, ty: &Type) -> Result<TypeId, LowerError> {
        type_id_of(self.types, ty)
            .ok_or_else(|| Self::module_error("a constant expression has a type the module lacks"))
    }

    /// The Type ID of `ty` in VOPs: the simple form when there is one, else the string index (A9).
    fn vop_type(&mut self, ty: TypeId) -> Result<VopType, LowerError> {
        if let Some(Some(t)) = self.vop_types.get(ty.index()) {
            return Ok(*t);
        }
        let text = self.signature(ty)?;
        let vop_type = match simple_form(text.as_bytes()) {
            Some((level, base)) => VopType::Simple { level, base },
            None => {
                let text = text.to_string();
                VopType::Signature(self.strings.intern(&text))
            }
        };
        self.vop_types[ty.index()] = Some(vop_type);
        Ok(vop_type)
    }

    // ---- entries -------------------------------------------------------------------------------------------------

    /// Appends a string-tag attribute chunk.
    fn string_attribute(&mut self, out: &mut Vec<u8>, tag: Tag, text: &str) -> Result<(), LowerError> {
        self.scratch.clear();
        write_string_tag(&mut self.strings, &mut self.scratch, text);
        write_data_chunk(out, tag, &self.scratch)?;
        Ok(())
    }

    /// Appends the `s` attribute of type `ty` (cached: one per type).
    fn type_attribute(&mut self, out: &mut Vec<u8>, ty: TypeId) -> Result<(), LowerError> {
        if let Some(Some(bytes)) = self.s_attributes.get(ty.index()) {
            out.extend_from_slice(bytes);
            return Ok(());
        }
        let text = self.signature(ty)?.to_string();
        let mut bytes = Vec::new();
        self.string_attribute(&mut bytes, Tag::SIGNATURE, &text)?;
        out.extend_from_slice(&bytes);
        self.s_attributes[ty.index()] = Some(bytes.into_boxed_slice());
        Ok(())
    }

    /// The `V` entries of an `R` list: each value's `s` attribute (cached by type), and its ValueId when it is not
    /// params + j. Short `s` attributes make entries of at most 25 bytes, which take the small header form (A2.2)
    /// and are written in place.
    fn write_temporaries(
        &mut self,
        list: &mut Vec<u8>,
        f: ir::Function<'_>,
        temps: &[ValueId],
    ) -> Result<(), LowerError> {
        let base = f.params.len();
        list.reserve(temps.len() * 8);
        for (j, &v) in temps.iter().enumerate() {
            let ty =
                f.value_type(v).ok_or_else(|| LowerError::UndefinedValue { func: f.name.to_string(), value: v })?;
            let id = v.as_u32();
            let has_id = id as usize != base + j;
            if !matches!(self.short_s_attributes.get(ty.index()), Some(Some(_))) {
                let mut bytes = Vec::new();
                self.type_attribute(&mut bytes, ty)?;
                match ShortBytes::new(&bytes) {
                    Some(short) => self.short_s_attributes[ty.index()] = Some(short),
                    None => {
                        if has_id {
                            Self::uvli32_attribute(&mut bytes, profile::TAG_VALUE_ID, id)?;
                        }
                        write_data_chunk(list, Tag::VARIABLE, &bytes)?;
                        continue;
                    }
                }
            }
            let Some(Some(s_attribute)) = self.short_s_attributes.get(ty.index()) else {
                return Err(Self::module_error("a type is not in the module's type table"));
            };
            // The whole `V` in a fixed block: header, `s` attribute, then the ValueId attribute when present (a BYTE
            // tag and at most 5 payload bytes, so again the small form), appended as one fixed-size copy.
            let mut entry = [0u8; 32];
            entry[2..18].copy_from_slice(&s_attribute.bytes);
            let mut len = 2 + s_attribute.len();
            if has_id {
                let (word, bytes) = write_uvli64_word(id.into());
                entry[len..len + 2].copy_from_slice(&small_header(profile::TAG_VALUE_ID, 2 + bytes));
                entry[len + 2..len + 10].copy_from_slice(&word.to_be_bytes());
                len += 2 + bytes;
            }
            debug_assert!(len <= MAX_SMALL_LEN as usize);
            entry[..2].copy_from_slice(&small_header(Tag::VARIABLE, len));
            let at = list.len();
            list.extend_from_slice(&entry);
            list.truncate(at + len);
        }
        Ok(())
    }

    fn uvli32_attribute(out: &mut Vec<u8>, tag: Tag, value: u32) -> Result<(), LowerError> {
        if tag.0 < 0x100 {
            // A BYTE tag and at most 5 payload bytes: the small header form (A2.2), written in place.
            out.extend_from_slice(&small_header(tag, 2 + uvli64_len(value.into())));
            write_uvli32(out, value);
            return Ok(());
        }
        let mut payload = Vec::with_capacity(5);
        write_uvli32(&mut payload, value);
        write_data_chunk(out, tag, &payload)?;
        Ok(())
    }

    /// LITD entry k (0-based): `ST` with `n` = `$k`, `f` = `Utuple;` for tuples, `F` = the members (C1).
    fn write_struct_entry(&mut self, out: &mut Vec<u8>, k: usize) -> Result<(), LowerError> {
        let ty = self.litd_order[k];
        let (fields, tuple) = match self.types.key(ty) {
            TypeKey::Struct(f) => (f.clone(), false),
            TypeKey::Tuple(f) => (f.clone(), true),
            _ => return Err(Self::module_error("a LITD entry is not a struct")),
        };
        let mut entry = Vec::new();
        self.string_attribute(&mut entry, Tag::NAME, &format!("${}", k + 1))?;
        if tuple {
            self.string_attribute(&mut entry, Tag::FLAGS, profile::TUPLE_FLAG)?;
        }
        if !fields.is_empty() {
            let mut list = Vec::new();
            for &field in fields.iter() {
                let mut variable = Vec::new();
                self.type_attribute(&mut variable, field)?;
                write_data_chunk(&mut list, Tag::VARIABLE, &variable)?;
            }
            write_data_chunk(&mut entry, Tag::FIELDS, &list)?;
        }
        write_data_chunk(out, Tag::ST, &entry)?;
        Ok(())
    }

    /// GBLD `GV` for global `i` (C2): `n`, `s`, `v`, then 0x13, 0x16, 0x17.
    fn write_global_entry(&mut self, out: &mut Vec<u8>, i: usize, g: ir::Global<'_>) -> Result<(), LowerError> {
        let mut entry = Vec::new();
        self.string_attribute(&mut entry, Tag::NAME, g.name)?;
        self.type_attribute(&mut entry, g.ty)?;
        let mut payload = Vec::new();
        let strings = StringTable::default();
        profile::const_register(g.init).write(&mut payload, &strings)?;
        write_data_chunk(&mut entry, Tag::VALUE, &payload)?;
        if g.align != 0 {
            payload.clear();
            write_uvli64(&mut payload, g.align.into());
            write_data_chunk(&mut entry, profile::TAG_ALIGN, &payload)?;
        }
        if g.id.as_u32() as usize != i {
            Self::uvli32_attribute(&mut entry, profile::TAG_WHALE_ID, g.id.as_u32())?;
        }
        let literal = matches!(&g.init_expr.kind, ConstExprKind::Literal(v) if *v == g.init)
            && type_id_of(self.types, &g.init_expr.ty) == Some(g.ty);
        if !literal {
            payload.clear();
            self.write_expr(&mut payload, g.init_expr, None)?;
            write_data_chunk(&mut entry, profile::TAG_INIT_EXPR, &payload)?;
        }
        write_data_chunk(out, Tag::GV, &entry)?;
        Ok(())
    }

    /// GBLD `FN` for declaration `i` (C2): `n q s f A [L R t]`, then 0x11, 0x16, 0x18.
    fn write_function_entry(
        &mut self,
        out: &mut Vec<u8>,
        i: usize,
        d: ir::Declaration<'_>,
        plans: &Plans,
    ) -> Result<(), LowerError> {
        let m = self.m;
        // Only the first declaration of an id carries the body (a second one is invalid IR).
        let gbld_index = m.globals().len() as u32 + i as u32 + 1;
        let first_of_id = self.function_gbld.get(&d.id) == Some(&gbld_index);
        let body_index = self.body_of.get(&d.id).copied().filter(|_| first_of_id);
        // The entry and its R list are built in buffers kept across entries.
        let mut entry = std::mem::take(&mut self.entry_buffer);
        entry.clear();
        self.string_attribute(&mut entry, Tag::NAME, d.name)?;
        if let Some(link) = d.link_name {
            self.string_attribute(&mut entry, Tag::QNAME, link)?;
        }
        let mut text = String::new();
        self.push_function_signature(&mut text, d.sig)?;
        self.string_attribute(&mut entry, Tag::SIGNATURE, &text)?;
        let flags = match (body_index.is_none(), d.linkage == Linkage::Internal) {
            (true, true) => "es",
            (true, false) => "e",
            (false, true) => "s",
            (false, false) => "",
        };
        if !flags.is_empty() {
            self.string_attribute(&mut entry, Tag::FLAGS, flags)?;
        }
        let params: Vec<TypeId> = self.types.sig(d.sig).params.to_vec();
        let Some(index) = body_index else {
            if !params.is_empty() {
                let mut list = Vec::new();
                for &p in &params {
                    let mut variable = Vec::new();
                    self.type_attribute(&mut variable, p)?;
                    write_data_chunk(&mut list, Tag::VARIABLE, &variable)?;
                }
                write_data_chunk(&mut entry, Tag::ARGS, &list)?;
            }
            if d.id.as_u32() as usize != i {
                Self::uvli32_attribute(&mut entry, profile::TAG_WHALE_ID, d.id.as_u32())?;
            }
            write_data_chunk(out, Tag::FN, &entry)?;
            self.entry_buffer = entry;
            return Ok(());
        };
        let f = m.function_at(index);
        self.current.set(self.scopes[index]);
        self.current_body.set(Some(f));
        let body = self.bodies[index].take().ok_or_else(|| Self::module_error("a body was not planned"))?;
        // A: parameters with names and ValueIds (C3).
        if !f.params.is_empty() {
            let mut list = Vec::new();
            for (k, p) in f.params.iter().enumerate() {
                let mut variable = Vec::new();
                let name = m.str(p.name);
                if !name.is_empty() {
                    self.string_attribute(&mut variable, Tag::NAME, name)?;
                }
                let ty = f
                    .value_type(p.value)
                    .ok_or_else(|| LowerError::UndefinedValue { func: f.name.to_string(), value: p.value })?;
                self.type_attribute(&mut variable, ty)?;
                if p.value.as_u32() as usize != k {
                    Self::uvli32_attribute(&mut variable, profile::TAG_VALUE_ID, p.value.as_u32())?;
                }
                write_data_chunk(&mut list, Tag::VARIABLE, &variable)?;
            }
            write_data_chunk(&mut entry, Tag::ARGS, &list)?;
        }
        // L: the allocas' types.
        if !body.allocas.is_empty() {
            let mut list = Vec::new();
            for &ty in &plans.allocas[body.allocas.clone()] {
                let mut variable = Vec::new();
                self.type_attribute(&mut variable, ty)?;
                write_data_chunk(&mut list, Tag::VARIABLE, &variable)?;
            }
            write_data_chunk(&mut entry, Tag::LOCALS, &list)?;
        }
        // R: every other value, with its ValueId when it is not params + j.
        if !body.temps.is_empty() {
            let mut list = std::mem::take(&mut self.list_buffer);
            list.clear();
            self.write_temporaries(&mut list, f, &plans.temps[body.temps.clone()])?;
            write_data_chunk(&mut entry, Tag::TEMPORARIES, &list)?;
            self.list_buffer = list;
        }
        Self::uvli32_attribute(&mut entry, Tag::TRACE, body.header)?;
        // 0x11: block ids and names, unless every id is its emission index and every name empty (C4).
        let blocks = &plans.blocks[body.blocks.clone()];
        let default_blocks =
            blocks.iter().enumerate().all(|(k, &b)| b.as_u32() as usize == k && f.block_name(b).is_empty());
        if !default_blocks {
            let mut payload = Vec::new();
            for &b in blocks {
                write_uvli32(&mut payload, b.as_u32());
                write_string_tag(&mut self.strings, &mut payload, f.block_name(b));
            }
            write_data_chunk(&mut entry, profile::TAG_BLOCK_TABLE, &payload)?;
        }
        if d.id.as_u32() as usize != i {
            Self::uvli32_attribute(&mut entry, profile::TAG_WHALE_ID, d.id.as_u32())?;
        }
        // 0x18: const_decl records in Temporary order, which is emission order.
        let mut records = Vec::new();
        for &b in blocks.iter().filter(|_| body.const_decls) {
            for inst in f.block_insts(b) {
                if let (InstData::ConstDecl { decl }, Some(v)) = (*f.inst(inst), f.inst_result(inst)) {
                    let decl = m.const_decl(decl);
                    write_uvli32(&mut records, self.register_of(v));
                    write_string_tag(&mut self.strings, &mut records, decl.name);
                    self.write_expr(&mut records, decl.expr, Some(f.index))?;
                }
            }
        }
        if !records.is_empty() {
            write_data_chunk(&mut entry, profile::TAG_CONST_DECLS, &records)?;
        }
        write_data_chunk(out, Tag::FN, &entry)?;
        self.entry_buffer = entry;
        self.bodies[index] = Some(body);
        Ok(())
    }

    /// A constant-expression tree in prefix order (C7.3); `func` is the enclosing body for local references.
    /// Trees are walked recursively: the readers bound their depth, and the builder's trees are the caller's own.
    fn write_expr(&mut self, out: &mut Vec<u8>, expr: &ConstExpr, func: Option<usize>) -> Result<(), LowerError> {
        let ty = self.expr_type(&expr.ty)?;
        let kind = match &expr.kind {
            ConstExprKind::Literal(_) => profile::expr_kind::LITERAL,
            ConstExprKind::Reference(_) => profile::expr_kind::REFERENCE,
            ConstExprKind::Binary { .. } => profile::expr_kind::BINARY,
            ConstExprKind::Compare { .. } => profile::expr_kind::COMPARE,
        };
        write_uvli32(out, kind);
        let text = self.signature(ty)?.to_string();
        write_string_tag(&mut self.strings, out, &text);
        let none = StringTable::default();
        match &expr.kind {
            ConstExprKind::Literal(v) => profile::const_register(*v).write(out, &none)?,
            ConstExprKind::Reference(ConstRef::Global(g)) => {
                let index = self
                    .global_gbld
                    .get(g)
                    .ok_or_else(|| Self::module_error("a constant expression names an unknown global"))?;
                Register::Global((*index).into()).write(out, &none)?;
            }
            ConstExprKind::Reference(ConstRef::Local(v)) => {
                let raw = self.register_of(*v);
                let owner = func.and_then(|f| self.bodies.get(f));
                if func.is_none() || raw == NONE || owner.is_none() {
                    return Err(Self::module_error("a constant expression names a value outside its function"));
                }
                self.local_register(raw).write(out, &none)?;
            }
            ConstExprKind::Binary { op, lhs, rhs } => {
                write_uvli32(out, profile::const_bin_code(*op));
                self.write_expr(out, lhs, func)?;
                self.write_expr(out, rhs, func)?;
            }
            ConstExprKind::Compare { op, lhs, rhs } => {
                write_uvli32(out, profile::const_cmp_code(*op));
                self.write_expr(out, lhs, func)?;
                self.write_expr(out, rhs, func)?;
            }
        }
        Ok(())
    }

    /// The raw register of value `v` of the current body ([`NONE`] if it has none).
    #[inline(always)]
    fn register_of(&self, v: ValueId) -> u32 {
        self.current.get().register(v).and_then(|i| self.registers.get(i)).copied().unwrap_or(NONE)
    }

    fn local_register(&self, raw: u32) -> Register {
        if raw & ARG != 0 {
            Register::Arg { base: raw & !ARG, seq: 0 }
        } else {
            Register::Temporary { base: raw, seq: 0 }
        }
    }

    // ---- encode --------------------------------------------------------------------------------------------------

    /// Pass 3: the `vops` payload, appended to `out`, and the `vtrs` records, bodies in storage order.
    fn encode(&self, strings: &StringTable, out: &mut Vec<u8>) -> Result<Vec<TraceRecord>, LowerError> {
        let m = self.m;
        let mut encoder = VopEncoder::new(strings, std::mem::take(out));
        let mut traces = Vec::new();
        let mut count: u64 = 0;
        // Temporary numbers restart in every body.
        let temps = self.bodies.iter().flatten().map(|body| body.temps.len()).max().unwrap_or(0);
        let mut cells = Cells {
            temps: vec![MtfCell::EMPTY; temps],
            args: vec![MtfCell::EMPTY; m.functions().map(|f| f.params.len()).max().unwrap_or(0)],
            types: vec![MtfCell::EMPTY; self.types.len()],
        };
        let mut block_starts: Vec<u64> = Vec::new();
        for index in 0..self.bodies.len() {
            let Some(body) = &self.bodies[index] else { continue };
            let (gbld, first_trace, func_name) = (body.gbld, traces.len() as u64, m.function_at(index).name);
            self.current.set(self.scopes[index]);
            self.current_body.set(Some(m.function_at(index)));
            let start = count;
            block_starts.clear();
            let mut emitter = Emitter::new(m, m.function_at(index));
            emitter.body(&mut |lvop| {
                if lvop.opn == op::LABEL {
                    block_starts.push(count);
                }
                self.write_vop(&mut encoder, lvop, &mut cells, func_name)?;
                count += 1;
                Ok(())
            })?;
            for (k, &block_start) in block_starts.iter().enumerate() {
                let end = block_starts.get(k + 1).copied().unwrap_or(count);
                let b_ops = if k == 0 { -(start as i64) } else { (block_start - start) as i64 };
                traces.push(TraceRecord::Trace { b_ops, n_ops: end - block_start, flags: 0 });
            }
            debug_assert_eq!(traces.len() as u64, u64::from(body.header));
            traces.push(TraceRecord::Header {
                b_vtr: first_trace,
                n_vtr: block_starts.len() as u64,
                gblid: gbld.into(),
            });
        }
        *out = encoder.finish();
        Ok(traces)
    }

    fn register(&self, operand: Operand, func: &str) -> Result<Option<Register>, LowerError> {
        Ok(Some(match operand {
            Operand::None => return Ok(None),
            Operand::Value(v) => {
                let raw = self.register_of(v);
                if raw == NONE {
                    return Err(LowerError::UndefinedValue { func: func.to_string(), value: v });
                }
                self.local_register(raw)
            }
            Operand::Local(m) => Register::Local { base: m, seq: 0 },
            Operand::Function(f) | Operand::FunctionAddress(f) => {
                let index = *self.function_gbld.get(&f).ok_or_else(|| LowerError::Invalid {
                    func: func.to_string(),
                    what: "a call or function_addr names an undeclared function",
                })?;
                if let Operand::Function(_) = operand {
                    Register::Global(index.into())
                } else {
                    Register::GlobalAddress(index.into())
                }
            }
            Operand::ConstInst(inst) => {
                let data = self
                    .current_body
                    .get()
                    .map(|f| f.inst(inst))
                    .ok_or_else(|| Self::module_error("a constant operand outside a body"))?;
                let value = match *data {
                    InstData::ConstDecl { decl } => self.m.const_decl(decl).value,
                    _ => self.m.const_payload(data).ok_or_else(|| LowerError::Invalid {
                        func: func.to_string(),
                        what: "a wide constant is missing",
                    })?,
                };
                profile::const_register(value)
            }
            Operand::ConstKey(key) => profile::const_register(self.m.constant(key)),
            Operand::Zero => profile::const_register(ConstValue::I(0)),
        }))
    }

    /// Writes one logical VOP field by field (A8.1 order). Temporary and Arg registers and types go through their
    /// cells, so the encoder never searches its register and type lists for them (see
    /// `SearchMtf::find_or_push_at`); every such register and every type of the stream is written here, which keeps
    /// the cells exact.
    #[inline(always)]
    fn write_vop(&self, enc: &mut VopEncoder, l: &Lvop, cells: &mut Cells, func: &str) -> Result<(), LowerError> {
        let bit = |present: bool, bit: u32| if present { bit } else { 0 };
        let operand = |o: Operand| !matches!(o, Operand::None);
        let fields = bit(l.ty.is_some(), MASK_TYPE)
            | bit(l.stype.is_some(), MASK_STYPE)
            | bit(operand(l.dst), MASK_DST)
            | bit(operand(l.srca), MASK_SRCA)
            | bit(operand(l.srcb), MASK_SRCB)
            | bit(operand(l.srcc), MASK_SRCC)
            | bit(!matches!(l.imm, Imm::None), MASK_IMM);
        enc.begin(l.opn, l.opr, fields).map_err(lower_err)?;
        if let Some(t) = l.ty {
            self.write_type(enc, t, cells)?;
        }
        if let Some(t) = l.stype {
            self.write_type(enc, t, cells)?;
        }
        for o in [l.dst, l.srca, l.srcb, l.srcc] {
            match o {
                Operand::None => {}
                Operand::Value(v) => self.write_value(enc, v, cells, func)?,
                other => self.write_constant_operand(enc, other, func)?,
            }
        }
        let imm = match l.imm {
            Imm::None => return Ok(()),
            Imm::Int(v) => Immediate::Int(v),
            Imm::Label(b) => Immediate::Label(self.label(b, func)?),
            Imm::Reason(s) => Immediate::String(
                *self.reasons.get(&s).ok_or_else(|| Self::module_error("a trap reason was not interned"))?,
            ),
            Imm::Args(list) => {
                let values = self.m.list(list);
                enc.begin_args(values.len() as u32);
                for &v in values {
                    self.write_value(enc, ValueId::from_u32(v), cells, func)?;
                }
                return Ok(());
            }
            Imm::EmptyTable(default) => {
                let table = [self.label(default, func)?];
                return enc
                    .immediate(&Immediate::JumpTable { base: 0, start: 0, len: 1 }, &[], &table)
                    .map_err(lower_err);
            }
        };
        enc.immediate(&imm, &[], &[]).map_err(lower_err)
    }

    /// The label of block `b`.
    #[inline]
    fn label(&self, b: BlockId, func: &str) -> Result<u32, LowerError> {
        match self.current.get().label(b).and_then(|i| self.labels.get(i)) {
            Some(&l) if l != NONE => Ok(l),
            _ => Err(LowerError::Invalid { func: func.to_string(), what: "a branch names a block of no function" }),
        }
    }

    /// A type field, through the type's cell.
    #[inline(always)]
    fn write_type(&self, enc: &mut VopEncoder, t: TypeId, cells: &mut Cells) -> Result<(), LowerError> {
        let (Some(Some(ty)), Some(cell)) = (self.vop_types.get(t.index()), cells.types.get_mut(t.index())) else {
            return Err(Self::module_error("a VOP type was not interned"));
        };
        enc.ty_at(*ty, cell).map_err(lower_err)
    }

    /// A value operand: its Temporary or Arg register, through the register's cell.
    #[inline(always)]
    fn write_value(&self, enc: &mut VopEncoder, v: ValueId, cells: &mut Cells, func: &str) -> Result<(), LowerError> {
        let raw = self.register_of(v);
        // The cell belongs to the register, not the value: every body reuses Temporary j and Arg k.
        let (cell, register) = if raw & ARG != 0 {
            let base = raw & !ARG;
            (cells.args.get_mut(base as usize), Register::Arg { base, seq: 0 })
        } else {
            (cells.temps.get_mut(raw as usize), Register::Temporary { base: raw, seq: 0 })
        };
        match cell {
            Some(cell) if raw != NONE => enc.register_at(&register, cell).map_err(lower_err),
            _ => Err(LowerError::UndefinedValue { func: func.to_string(), value: v }),
        }
    }

    /// Any other register operand, searched in the register list.
    #[inline(never)]
    fn write_constant_operand(&self, enc: &mut VopEncoder, operand: Operand, func: &str) -> Result<(), LowerError> {
        match self.register(operand, func)? {
            Some(register) => enc.register(&register).map_err(lower_err),
            None => Ok(()),
        }
    }
}

/// The encoder's list cells of each Temporary and Arg register, by number, and of each type, by TypeId.
struct Cells {
    temps: Vec<MtfCell>,
    args: Vec<MtfCell>,
    types: Vec<MtfCell>,
}

/// The id of `ty` in `types`, if the table holds it (scalars always).
fn type_id_of(types: &TypeTable, ty: &Type) -> Option<TypeId> {
    let key = match ty {
        Type::Ptr(t) => TypeKey::Ptr(type_id_of(types, t)?),
        Type::Array(t, n) => TypeKey::Array(type_id_of(types, t)?, *n),
        Type::Struct(fields) => TypeKey::Struct(fields.iter().map(|t| type_id_of(types, t)).collect::<Option<_>>()?),
        Type::Tuple(fields) => TypeKey::Tuple(fields.iter().map(|t| type_id_of(types, t)).collect::<Option<_>>()?),
        Type::FnPtr(sig) => {
            let params = sig.params.iter().map(|t| type_id_of(types, t)).collect::<Option<_>>()?;
            let key = ir::types::SigKey {
                params,
                ret: type_id_of(types, &sig.ret)?,
                convention: sig.convention,
                variadic: sig.variadic,
            };
            let sig = (0..types.sig_count() as u32).map(SigId::from_u32).find(|&s| *types.sig(s) == key)?;
            TypeKey::FnPtr(sig)
        }
        scalar => return scalar.scalar_type_id(),
    };
    types.lookup(&key)
}
