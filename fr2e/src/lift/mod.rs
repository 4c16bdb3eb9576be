//! The reader: an FR2E image to an `ir::Module`, exactly (`fr2e.md` C10), then verification.
//!
//! The reader walks the image's chunks itself instead of materialising the format layer's [`crate::format::Image`]:
//! a function has one `R` variable per value and the `vops` stream one VOP per instruction, and the format model
//! would hold 100 to 200 bytes for each. Here every variable list becomes 8 bytes per entry, and VOPs are decoded one
//! at a time with [`VopDecoder`](crate::format::VopDecoder) straight into the module ([`body`]), so what a read allocates stays within a small
//! multiple of the input: the module itself, about 30 bytes per instruction, dominates. The pieces of the format
//! layer that do not grow with the input (string table, trace records, chunk framing, signature grammar, VOP codec)
//! are reused as they are.
//!
//! Order of work: root chunks (A3, B9, B10); the string table; root extensions 0x14/0x15; `vtrs`; LITD (structs,
//! resolved by name on first use, C1); GBLD in two passes (ids first, so that references may point forward, then
//! globals, declarations and the variable lists of bodies); then the `vops` stream in one sequential pass (A13),
//! feeding each body's traces to its builder. The module is then verified, and a verifier error is reported at the
//! first VOP of the instruction (or the LABEL of the block) it concerns.
//!
//! The one layout restriction: decoding is sequential, so the traces of all bodies, taken body by body in trace
//! order, must follow the stream order without overlapping (the canonical layout of A12 does; B81 allows readers to
//! ignore VOPs outside traces, and those are decoded and skipped). Bodies are stored in the order of their VOPs.
//!
//! Hot paths: a canonical `V` (one small `s`, perhaps one small 0x10) is recognised from its header bytes, `s`
//! payloads of up to 8 bytes resolve through a small direct-mapped cache, and VOP Type IDs through an array by simple
//! code and a map by string index, so signature text is parsed once per distinct string. [`read_module_unverified`]
//! stops before verification.

mod body;

use rustc_hash::{FxHashMap, FxHashSet};

use ir::entity::EntityRef;

use ir::{
    BlockId, CallingConvention, ConstExpr, ConstExprKind, ConstRef, DataLayout, Endian, FunctionId, GlobalId, IrLimits,
    LimitError, Linkage, Module, ModuleAssembler, Resource, SigId, StrId, TypeId, TypeKey, ValueId,
};

use crate::error::{Error, LiftErrorKind};
use crate::format::error::ErrorKind;
use crate::format::limits::{Limits, MAX_SIMPLE_TYPE_LEVEL};
use crate::format::reader::Reader;
use crate::format::register::Register;
use crate::format::signature::Signature;
use crate::format::strings::StringTable;
use crate::format::tlv::{read_chunk, Chunk, HeaderForm, Tag};
use crate::format::trace::{function_traces, read_traces, TraceRecord};
use crate::format::type_id::{simple_base_signature, VopType};
use crate::format::{mutf8, FormatError};
use crate::profile::{self, expr_kind};

/// Number of simple base codes (A9).
const SIMPLE_BASE_CODES: usize = 0x18;

/// Limits for reading an untrusted image as a Whale module.
///
/// ```
/// let limits = fr2e::ReadLimits::default();
/// assert_eq!(limits.ir.max_type_depth, 128);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadLimits {
    /// Format-layer limits: TLV and signature nesting, `strz` size.
    pub format: Limits,
    /// IR limits: type and constant-expression nesting, counts of functions, blocks and values, and the largest id
    /// (ids above `max(65536, image size)` are refused too, as in the text reader).
    pub ir: IrLimits,
}

/// Reads a Whale module from an FR2E image with the default limits, then verifies it.
///
/// ```
/// // The empty image is the empty module (target "", the default data layout), which does not verify.
/// let empty = [0x22, 0x00, 0x00, 0x00, b'F', b'R', b'2', b'E'];
/// assert!(matches!(fr2e::read_module(&empty), Err(fr2e::Error::Verify { .. })));
/// assert!(fr2e::read_module(b"not an image").is_err());
/// ```
pub fn read_module(bytes: &[u8]) -> Result<Module, Error> {
    read_module_with_limits(bytes, &ReadLimits::default())
}

/// Reads a Whale module from an FR2E image under `limits`, then verifies it. Never panics; allocations stay within a
/// small multiple of the input size.
pub fn read_module_with_limits(bytes: &[u8], limits: &ReadLimits) -> Result<Module, Error> {
    let (module, _) = lift(bytes, limits, false)?;
    if let Err(error) = ir::verify_module(&module) {
        // The rare path: read again, recording where each instruction and block came from. Instruction and block
        // ids are scoped to their function: find it first.
        let (_, offsets) = lift(bytes, limits, true)?;
        let offset = ir::verifier::function_of_error(&module, &error)
            .and_then(|f| offsets.locate(f, error.inst(), error.block()))
            .unwrap_or(0);
        return Err(Error::Verify { error: Box::new(error), offset });
    }
    Ok(module)
}

/// Reads a Whale module from an FR2E image under `limits` **without** verifying it: every check of the mapping (C10)
/// is made, but the result may break the rules of [`ir::verify_module`] (types, dominance, terminators), so callers
/// must verify it before interpreting or writing it. For measurements and for tools that verify later themselves.
///
/// ```
/// let image = [0x22, 0x00, 0x00, 0x00, b'F', b'R', b'2', b'E'];
/// let module = fr2e::read_module_unverified(&image, &fr2e::ReadLimits::default()).unwrap();
/// assert!(ir::verify_module(&module).is_err());
/// ```
pub fn read_module_unverified(bytes: &[u8], limits: &ReadLimits) -> Result<Module, Error> {
    lift(bytes, limits, false).map(|(module, _)| module)
}

/// Where each instruction and block was read from, to report verifier errors at an offset.
struct Offsets {
    /// Offset of the first VOP of each instruction, in reading order.
    insts: Vec<u64>,
    /// Offset of the LABEL of each block, in reading order.
    blocks: Vec<(BlockId, u64)>,
    /// Where each body's instructions and blocks start in `insts` and `blocks`.
    bodies: Vec<(usize, usize)>,
}

impl Offsets {
    /// The offset of instruction `inst` (else block `block`) of body `body`.
    fn locate(&self, body: usize, inst: Option<ir::InstId>, block: Option<BlockId>) -> Option<u64> {
        let &(insts, blocks) = self.bodies.get(body)?;
        let (inst_end, block_end) = self.bodies.get(body + 1).copied().unwrap_or((self.insts.len(), self.blocks.len()));
        let from_inst = inst.and_then(|i| self.insts.get(insts..inst_end)?.get(i.as_u32() as usize).copied());
        from_inst.or_else(|| {
            let b = block?;
            self.blocks.get(blocks..block_end)?.iter().find(|(id, _)| *id == b).map(|&(_, at)| at)
        })
    }
}

/// Reads the module; with `record_offsets`, also where each instruction and block was read from (empty otherwise).
fn lift(bytes: &[u8], limits: &ReadLimits, record_offsets: bool) -> Result<(Module, Offsets), Error> {
    if limits.format.validate().is_err() {
        let kind = ErrorKind::NestingTooDeep { limit: limits.format.max_tlv_depth };
        return Err(FormatError::new(kind, 0).into());
    }
    if let Err(e) = limits.ir.validate() {
        return Err(Error::lift(LiftErrorKind::Limit(e), 0));
    }
    let root = Root::read(bytes)?;
    let (strings, _) = StringTable::read(root.strs.as_ref(), root.strz.as_ref(), root.stri.as_ref(), &limits.format)?;
    let target = match &root.target {
        Some(chunk) => {
            let bytes = string_payload(chunk, &strings)?.unwrap_or_default();
            text(bytes, chunk.offset)?.into_owned()
        }
        None => String::new(),
    };
    let layout = match &root.layout {
        Some(chunk) => read_layout(chunk)?,
        None => DataLayout::default_64bit_le(),
    };
    let max_id = limits.ir.largest_id_for(bytes.len());
    let mut lift = Lift {
        strings: &strings,
        limits: *limits,
        asm: ModuleAssembler::new(&target, layout, max_id),
        signatures: FxHashMap::default(),
        function_signatures: FxHashMap::default(),
        simple: vec![None; SIMPLE_BASE_CODES * (usize::from(MAX_SIMPLE_TYPE_LEVEL) + 1)],
        indexed_types: FxHashMap::default(),
        payload_types: PayloadCache::new(),
        depth: Vec::new(),
        structs: Vec::new(),
        struct_names: FxHashMap::default(),
        gbld: Vec::new(),
        labels: FxHashSet::default(),
        claimed: Vec::new(),
        names: FxHashMap::default(),
        spare_tables: body::BodyTables::default(),
        record_offsets,
        inst_offsets: Vec::new(),
        block_offsets: Vec::new(),
        body_starts: Vec::new(),
        counts: Counts::default(),
    };
    let (records, record_offsets) = match &root.vtrs {
        Some(chunk) => read_traces(chunk.reader())?,
        None => (Vec::new(), Vec::new()),
    };
    lift.claimed = vec![false; records.len()];
    if let Some(litd) = &root.litd {
        lift.read_litd(litd)?;
    }
    let mut bodies = Vec::new();
    if let Some(gbld) = &root.gbld {
        lift.read_gbld(gbld, &records, &record_offsets, &mut bodies)?;
    }
    // One instruction per temporary, about: each was backed by a `V` of at least two bytes.
    let temporaries = bodies.iter().map(|b| b.temps.len()).sum();
    lift.asm.reserve_insts(temporaries);
    if lift.record_offsets {
        lift.inst_offsets.reserve(temporaries);
    }
    lift.read_bodies(root.vops.as_ref(), bodies)?;
    let Lift { asm, inst_offsets, block_offsets, body_starts, .. } = lift;
    let module = asm.finish().map_err(|e| Error::lift(LiftErrorKind::Assemble(e), bytes.len() as u64))?;
    Ok((module, Offsets { insts: inst_offsets, blocks: block_offsets, bodies: body_starts }))
}

/// The root's children (A3).
#[derive(Default)]
struct Root<'a> {
    strs: Option<Chunk<'a>>,
    strz: Option<Chunk<'a>>,
    stri: Option<Chunk<'a>>,
    vops: Option<Chunk<'a>>,
    vtrs: Option<Chunk<'a>>,
    litd: Option<Chunk<'a>>,
    gbld: Option<Chunk<'a>>,
    target: Option<Chunk<'a>>,
    layout: Option<Chunk<'a>>,
}

impl<'a> Root<'a> {
    /// The one `FR2E` chunk that is the whole input (B9); each child at most once (B10), unknown ones skipped,
    /// keyed attributes (0x80-0x82) ignored.
    fn read(bytes: &'a [u8]) -> Result<Self, FormatError> {
        let mut r = Reader::new(bytes, 0);
        let root = read_chunk(&mut r)?;
        if root.tag != Tag::FR2E {
            return Err(FormatError::new(ErrorKind::NotAnImage { tag: root.tag }, 0));
        }
        r.finish("image")?;
        let mut out = Root::default();
        let mut others: FxHashSet<Tag> = FxHashSet::default();
        for child in root.children() {
            let child = child?;
            let slot = match child.tag {
                Tag::STRS => &mut out.strs,
                Tag::STRZ => &mut out.strz,
                Tag::STRI => &mut out.stri,
                Tag::VOPS => &mut out.vops,
                Tag::VTRS => &mut out.vtrs,
                Tag::LITD => &mut out.litd,
                Tag::GBLD => &mut out.gbld,
                profile::TAG_TARGET => &mut out.target,
                profile::TAG_DATALAYOUT => &mut out.layout,
                tag if is_keyed(tag) => continue,
                tag => {
                    if !others.insert(tag) {
                        return Err(FormatError::new(ErrorKind::DuplicateTag { tag }, child.offset));
                    }
                    continue;
                }
            };
            if slot.replace(child).is_some() {
                return Err(FormatError::new(ErrorKind::DuplicateTag { tag: child.tag }, child.offset));
            }
        }
        Ok(out)
    }
}

fn is_keyed(tag: Tag) -> bool {
    matches!(tag, Tag::LONG_STRING_ATTRIBUTE | Tag::SHORT_STRING_ATTRIBUTE | Tag::INTEGER_ATTRIBUTE)
}

/// 0x15: UVLI32 pointer bits, UVLI32 endian (0 little, 1 big).
fn read_layout(chunk: &Chunk<'_>) -> Result<DataLayout, Error> {
    let mut r = chunk.reader();
    let pointer_bits = r.uvli32()?;
    let at = r.offset();
    let endian = match r.uvli32()? {
        0 => Endian::Little,
        1 => Endian::Big,
        _ => return Err(Error::lift(LiftErrorKind::Invalid("the data layout's endian must be 0 or 1"), at)),
    };
    r.finish("data layout")?;
    Ok(DataLayout { pointer_bits, endian })
}

/// Reads a string tag (A5.5) without copying: the M-UTF-8 bytes, or `None` for NULL (index 0).
fn string_tag<'a>(r: &mut Reader<'a>, strings: &'a StringTable) -> Result<Option<&'a [u8]>, FormatError> {
    let at = r.offset();
    match r.svli()? {
        v @ 0.. => {
            let index = v as u64;
            if !strings.contains(index) {
                let kind = ErrorKind::StringIndexOutOfRange { index, count: strings.count() };
                return Err(FormatError::new(kind, at));
            }
            Ok(strings.bytes(index))
        }
        -1 => {
            let text_at = r.offset();
            let bytes = r.until_nul()?;
            mutf8::validate(bytes).map_err(|i| FormatError::new(ErrorKind::InvalidMutf8, text_at + i as u64))?;
            Ok(Some(bytes))
        }
        value => Err(FormatError::new(ErrorKind::ReservedStringTag { value }, at)),
    }
}

/// A data chunk that holds exactly one string tag.
fn string_payload<'a>(chunk: &Chunk<'a>, strings: &'a StringTable) -> Result<Option<&'a [u8]>, FormatError> {
    let mut r = chunk.reader();
    let value = string_tag(&mut r, strings)?;
    r.finish("string tag")?;
    Ok(value)
}

/// Text of validated M-UTF-8 bytes.
fn text(bytes: &[u8], at: u64) -> Result<std::borrow::Cow<'_, str>, Error> {
    mutf8::decode(bytes).map_err(|i| FormatError::new(ErrorKind::InvalidMutf8, at + i as u64).into())
}

/// The value of `bytes` when they are exactly one UVLI32 code; `None` sends the caller to the checked reader.
#[inline(always)]
fn uvli32_exact(bytes: &[u8]) -> Option<u32> {
    // The one- to three-byte codes (values below 2^21) directly.
    match *bytes {
        [b] if b < 0x80 => return Some(u32::from(b)),
        [b0, b1] if b0 & 0xC0 == 0x80 => return Some(u32::from(b0 & 0x3F) << 8 | u32::from(b1)),
        [b0, b1, b2] if b0 & 0xE0 == 0xC0 => {
            return Some(u32::from(b0 & 0x1F) << 16 | u32::from(b1) << 8 | u32::from(b2))
        }
        _ => {}
    }
    let (&first, tail) = bytes.split_first()?;
    let extra = first.leading_ones() as usize;
    if tail.len() != extra || extra > 4 {
        return None;
    }
    // For 1..=4 extra bytes the first byte keeps 7 - extra value bits (A4.1).
    let value = tail.iter().fold(u64::from(first & (0x7F >> extra)), |value, &b| (value << 8) | u64::from(b));
    u32::try_from(value).ok()
}

/// A data chunk that holds exactly one UVLI32.
#[inline(always)]
fn uvli32_payload(chunk: &Chunk<'_>) -> Result<u32, FormatError> {
    let mut r = chunk.reader();
    let value = r.uvli32()?;
    r.finish("number")?;
    Ok(value)
}

/// The defined attributes of A6.3 and the Whale extension tags of one entry or variable, by slot. Duplicates and
/// defined attributes outside the entries that allow them are errors (B28, B31); keyed attributes and other tags are
/// skipped (B11).
#[derive(Default)]
struct Attributes<'a> {
    name: Option<Chunk<'a>>,
    qname: Option<Chunk<'a>>,
    signature: Option<Chunk<'a>>,
    flags: Option<Chunk<'a>>,
    value: Option<Chunk<'a>>,
    trace: Option<Chunk<'a>>,
    fields: Option<Chunk<'a>>,
    args: Option<Chunk<'a>>,
    locals: Option<Chunk<'a>>,
    temporaries: Option<Chunk<'a>>,
    statics: Option<Chunk<'a>>,
    /// Tags 0x10 to 0x18.
    extensions: [Option<Chunk<'a>>; 9],
}

/// Which defined attributes a context allows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Struct,
    Global,
    Function,
    Variable,
}

impl<'a> Attributes<'a> {
    fn scan(chunk: &Chunk<'a>, context: Context) -> Result<Self, FormatError> {
        let mut a = Attributes::default();
        for child in chunk.children() {
            let child = child?;
            let allowed = |ok: bool| {
                if ok {
                    Ok(())
                } else {
                    Err(FormatError::new(ErrorKind::MisplacedTag { tag: child.tag, context: chunk.tag }, child.offset))
                }
            };
            let slot = match child.tag {
                Tag::NAME => &mut a.name,
                Tag::QNAME => &mut a.qname,
                Tag::SIGNATURE => &mut a.signature,
                Tag::FLAGS => &mut a.flags,
                Tag::VALUE => {
                    allowed(context == Context::Global)?;
                    &mut a.value
                }
                Tag::TRACE => {
                    allowed(context == Context::Function)?;
                    &mut a.trace
                }
                Tag::FIELDS => {
                    allowed(context == Context::Struct)?;
                    &mut a.fields
                }
                Tag::ARGS | Tag::LOCALS | Tag::TEMPORARIES | Tag::STATICS => {
                    allowed(context == Context::Function)?;
                    match child.tag {
                        Tag::ARGS => &mut a.args,
                        Tag::LOCALS => &mut a.locals,
                        Tag::TEMPORARIES => &mut a.temporaries,
                        _ => &mut a.statics,
                    }
                }
                Tag::VARIABLE => {
                    allowed(false)?;
                    continue;
                }
                tag if (0x10..=0x18).contains(&tag.0) => &mut a.extensions[(tag.0 - 0x10) as usize],
                _ => continue,
            };
            if slot.replace(child).is_some() {
                return Err(FormatError::new(ErrorKind::DuplicateTag { tag: child.tag }, child.offset));
            }
        }
        if a.trace.is_none() && (a.locals.is_some() || a.temporaries.is_some() || a.statics.is_some()) {
            return Err(FormatError::new(ErrorKind::ListWithoutBody, chunk.offset));
        }
        Ok(a)
    }

    fn extension(&self, tag: Tag) -> Option<&Chunk<'a>> {
        self.extensions.get((tag.0 as usize).wrapping_sub(0x10)).and_then(Option::as_ref)
    }
}

/// The attributes of a `V` that the Whale profile reads: name, signature and ValueId (0x10).
struct Variable<'a> {
    name: Option<Chunk<'a>>,
    signature: Option<Chunk<'a>>,
    value_id: Option<Chunk<'a>>,
}

impl<'a> Variable<'a> {
    /// Reads a `V` whose children are only `n`, `s` and 0x10, at most once each (every variable the writer emits)
    /// without building [`Attributes`]; anything else goes through [`Attributes::scan`] and its checks.
    fn read(chunk: &Chunk<'a>) -> Result<Self, FormatError> {
        let mut v = Variable { name: None, signature: None, value_id: None };
        for child in chunk.children() {
            let child = child?;
            let slot = match child.tag {
                Tag::NAME => &mut v.name,
                Tag::SIGNATURE => &mut v.signature,
                profile::TAG_VALUE_ID => &mut v.value_id,
                _ => return Self::scan(chunk),
            };
            if slot.replace(child).is_some() {
                return Self::scan(chunk);
            }
        }
        Ok(v)
    }

    #[cold]
    fn scan(chunk: &Chunk<'a>) -> Result<Self, FormatError> {
        let a = Attributes::scan(chunk, Context::Variable)?;
        let value_id = a.extension(profile::TAG_VALUE_ID).copied();
        Ok(Variable { name: a.name, signature: a.signature, value_id })
    }

    fn extension(&self, tag: Tag) -> Option<&Chunk<'a>> {
        (tag == profile::TAG_VALUE_ID).then_some(self.value_id.as_ref()).flatten()
    }
}

/// Calls `each` with every `V` of a variable list, in order; other children are skipped (B11).
fn for_each_variable<'a>(
    list: Option<&Chunk<'a>>,
    mut each: impl FnMut(Variable<'a>, u64) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some(list) = list else { return Ok(()) };
    let mut cursor = Variables::new(list);
    while let Some((v, offset)) = cursor.next()? {
        each(v, offset)?;
    }
    Ok(())
}

/// A canonical `V` recognised from its header bytes: one small `s`, and perhaps one small 0x10 after it (every
/// variable the writer emits).
struct CanonicalVariable<'a> {
    /// Bytes of the whole `V`.
    len: usize,
    /// The `s` payload (a string tag).
    signature: &'a [u8],
    /// The 0x10 payload, when present.
    value_id: Option<&'a [u8]>,
}

impl<'a> CanonicalVariable<'a> {
    #[inline(always)]
    fn peek(bytes: &'a [u8]) -> Option<Self> {
        let &[v_head, b'V', s_head, b's', ..] = bytes else { return None };
        let (len, s_len) = (usize::from(v_head >> 3), usize::from(s_head >> 3));
        if v_head & 7 != 3 || s_head & 7 != 3 || s_len < 2 || len < s_len + 2 || len > bytes.len() {
            return None;
        }
        let signature = &bytes[4..s_len + 2];
        let value_id = match &bytes[s_len + 2..len] {
            [] => None,
            &[id_head, id_tag, ref id @ ..] if id_tag == profile::TAG_VALUE_ID.0 as u8 && id_head & 7 == 3 => {
                (usize::from(id_head >> 3) == id.len() + 2).then_some(id)?.into()
            }
            _ => return None,
        };
        Some(CanonicalVariable { len, signature, value_id })
    }
}

/// The `V`s of a variable list, in order; other children are skipped (B11).
struct Variables<'a> {
    list_tag: Tag,
    r: Reader<'a>,
}

impl<'a> Variables<'a> {
    fn new(list: &Chunk<'a>) -> Self {
        Variables { list_tag: list.tag, r: list.reader() }
    }

    /// The next canonical `V` and its offset, consumed, if the next child is one.
    #[inline(always)]
    fn next_canonical(&mut self) -> Option<(CanonicalVariable<'a>, u64)> {
        let v = CanonicalVariable::peek(self.r.rest())?;
        let offset = self.r.offset();
        self.r.skip(v.len);
        Some((v, offset))
    }

    /// The next `V` and its offset, or `None` at the end of the list.
    fn next(&mut self) -> Result<Option<(Variable<'a>, u64)>, Error> {
        if let Some((v, offset)) = self.next_canonical() {
            let signature =
                Chunk { tag: Tag::SIGNATURE, form: HeaderForm::Small, offset: offset + 2, payload: v.signature };
            let value_id = v.value_id.map(|payload| Chunk {
                tag: profile::TAG_VALUE_ID,
                form: HeaderForm::Small,
                offset: offset + v.len as u64 - payload.len() as u64,
                payload,
            });
            return Ok(Some((Variable { name: None, signature: Some(signature), value_id }, offset)));
        }
        while !self.r.is_empty() {
            let child = read_chunk(&mut self.r)?;
            if child.tag == Tag::VARIABLE {
                return Ok(Some((Variable::read(&child)?, child.offset)));
            }
            if matches!(child.tag, Tag::NAME | Tag::QNAME | Tag::SIGNATURE | Tag::FLAGS | Tag::VALUE | Tag::TRACE)
                || matches!(child.tag, Tag::FIELDS | Tag::ARGS | Tag::LOCALS | Tag::TEMPORARIES | Tag::STATICS)
            {
                let kind = ErrorKind::MisplacedTag { tag: child.tag, context: self.list_tag };
                return Err(FormatError::new(kind, child.offset).into());
            }
        }
        Ok(None)
    }
}

/// Recently resolved `s` payloads of at most 8 bytes, direct-mapped by their bytes: an `R` list restates the same
/// few types once per value, and this skips the string tag, the M-UTF-8 check and the hash lookup of the text.
struct PayloadCache {
    slots: [(u64, u8, TypeId); 64],
}

impl PayloadCache {
    fn new() -> Self {
        // Length 0 marks an empty slot: an empty payload is never cached.
        Self { slots: [(0, 0, TypeId::VOID); 64] }
    }

    /// The key of a payload of 1 to 8 bytes.
    #[inline]
    fn key(payload: &[u8]) -> Option<(u64, u8, usize)> {
        if payload.is_empty() || payload.len() > 8 {
            return None;
        }
        // The little-endian word of the zero-padded bytes, built without a variable-length copy (a `memcpy` call per
        // variable). Most payloads are a one-letter inline string tag, `01 c 00`: that one is built directly.
        let word = match *payload {
            [a, b, c] => u64::from(a) | u64::from(b) << 8 | u64::from(c) << 16,
            _ => payload.iter().rev().fold(0u64, |w, &b| (w << 8) | u64::from(b)),
        };
        let index = (word.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
        Some((word, payload.len() as u8, index))
    }

    #[inline]
    fn get(&self, payload: &[u8]) -> Option<TypeId> {
        let (word, len, index) = Self::key(payload)?;
        match self.slots.get(index) {
            Some(&(w, l, ty)) if w == word && l == len => Some(ty),
            _ => None,
        }
    }

    fn insert(&mut self, payload: &[u8], ty: TypeId) {
        if let Some((word, len, index)) = Self::key(payload) {
            if let Some(slot) = self.slots.get_mut(index) {
                *slot = (word, len, ty);
            }
        }
    }
}

/// A LITD `ST` entry: its member signatures, resolved to a type on first use.
struct StructEntry<'a> {
    chunk: Chunk<'a>,
    tuple: bool,
    state: StructState,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum StructState {
    Unresolved,
    InProgress,
    Done(TypeId),
}

/// What a GBLD index denotes, after the first pass.
#[derive(Clone, Copy)]
enum GbldEntry {
    Global(GlobalId),
    Function {
        id: FunctionId,
        sig: SigId,
    },
    /// A synthesized declaration (0x12): it names a callee of snapshot IR, which Whale IR cannot call.
    Synthesized,
}

/// A body's variable lists and tables, gathered from its FN entry before its VOPs are read.
struct BodyInfo {
    /// Offset of the FN entry.
    offset: u64,
    id: FunctionId,
    name: StrId,
    ret: TypeId,
    /// `(value, name, type)` of each parameter.
    params: Vec<(ValueId, StrId, TypeId)>,
    /// The type of each Local.
    locals: Vec<TypeId>,
    /// `(value, type)` of each Temporary.
    temps: Vec<(ValueId, TypeId)>,
    /// 0x11: id and name of each block in emission order.
    blocks: Option<Vec<(BlockId, StrId)>>,
    /// 0x18: `(temporary, name, expression)`, strictly increasing.
    const_decls: Vec<(u32, StrId, ConstExpr)>,
    /// The VOP ranges of its traces, in trace order (empty ones dropped).
    ranges: Vec<std::ops::Range<u64>>,
}

/// Counts checked against [`IrLimits`].
#[derive(Default)]
struct Counts {
    functions: u64,
    blocks: u64,
    values: u64,
}

struct Lift<'a> {
    strings: &'a StringTable,
    limits: ReadLimits,
    asm: ModuleAssembler,
    /// Type of each signature text.
    signatures: FxHashMap<&'a [u8], TypeId>,
    /// Signature of each function signature text.
    function_signatures: FxHashMap<&'a [u8], SigId>,
    /// Type of each simple Type ID, at `level * SIMPLE_BASE_CODES + base`.
    simple: Vec<Option<TypeId>>,
    /// Type of each table string used as a VOP Type ID, by string index (a map: a `strz` table may hold millions of
    /// strings, and VOPs name few of them).
    indexed_types: FxHashMap<u32, TypeId>,
    /// Types of recent `s` payloads.
    payload_types: PayloadCache,
    /// Nesting depth of each type read so far, by TypeId (scalars 0).
    depth: Vec<u32>,
    structs: Vec<StructEntry<'a>>,
    struct_names: FxHashMap<String, usize>,
    /// By GBLD position (index - 1).
    gbld: Vec<GbldEntry>,
    /// Every label defined so far (unique per image, B71).
    labels: FxHashSet<u32>,
    /// Trace records already given to a body.
    claimed: Vec<bool>,
    /// The interned text of each name's M-UTF-8 bytes.
    names: FxHashMap<&'a [u8], StrId>,
    /// Per-body tables, kept between bodies.
    spare_tables: body::BodyTables,
    /// Whether to fill `inst_offsets` and `block_offsets` (only to place a verifier error).
    record_offsets: bool,
    /// Offset of the first VOP of each instruction, in reading order.
    inst_offsets: Vec<u64>,
    /// Where each body starts in `inst_offsets` and `block_offsets`.
    body_starts: Vec<(usize, usize)>,
    /// Offset of the LABEL of each block.
    block_offsets: Vec<(BlockId, u64)>,
    counts: Counts,
}

impl<'a> Lift<'a> {
    fn limit(&self, resource: Resource, at: u64) -> Error {
        let limits = &self.limits.ir;
        let limit = match resource {
            Resource::TypeDepth => u64::from(limits.max_type_depth),
            Resource::ConstantDepth => u64::from(limits.max_const_depth),
            Resource::Functions => limits.max_functions,
            Resource::Blocks => limits.max_blocks,
            Resource::Values => limits.max_values,
            _ => 0,
        };
        Error::lift(LiftErrorKind::Limit(LimitError { resource, limit }), at)
    }

    fn count(&mut self, resource: Resource, n: u64, at: u64) -> Result<(), Error> {
        let (count, limit) = match resource {
            Resource::Functions => (&mut self.counts.functions, self.limits.ir.max_functions),
            Resource::Blocks => (&mut self.counts.blocks, self.limits.ir.max_blocks),
            _ => (&mut self.counts.values, self.limits.ir.max_values),
        };
        *count += n;
        if *count > limit {
            return Err(self.limit(resource, at));
        }
        Ok(())
    }

    fn intern_name(&mut self, bytes: Option<&'a [u8]>, at: u64) -> Result<StrId, Error> {
        // Names repeat across functions (`entry`, `loop`, parameter names): each distinct text is decoded once.
        let bytes = bytes.unwrap_or_default();
        if let Some(&id) = self.names.get(bytes) {
            return Ok(id);
        }
        let id = self.asm.intern(&text(bytes, at)?);
        self.names.insert(bytes, id);
        Ok(id)
    }

    // ---- types ---------------------------------------------------------------------------------------------------

    /// Interns `key`, refusing types nested deeper than the IR limit.
    fn intern(&mut self, key: TypeKey, at: u64) -> Result<TypeId, Error> {
        let child_depth = {
            let d = |t: TypeId| self.depth.get(t.index()).copied().unwrap_or(0);
            match &key {
                TypeKey::Ptr(t) | TypeKey::Array(t, _) => d(*t),
                TypeKey::Struct(f) | TypeKey::Tuple(f) => f.iter().map(|&t| d(t)).max().unwrap_or(0),
                TypeKey::FnPtr(s) => {
                    let sig = self.asm.types().sig(*s);
                    sig.params.iter().map(|&t| d(t)).max().unwrap_or(0).max(d(sig.ret))
                }
                _ => 0,
            }
        };
        let depth = child_depth + 1;
        if depth > self.limits.ir.max_type_depth {
            return Err(self.limit(Resource::TypeDepth, at));
        }
        let id = self.asm.types_mut().intern(key);
        if self.depth.len() <= id.index() {
            self.depth.resize(id.index() + 1, 0);
        }
        self.depth[id.index()] = depth;
        Ok(id)
    }

    /// The type of a signature text (C1), cached by text.
    fn signature_type(&mut self, bytes: &'a [u8], at: u64) -> Result<TypeId, Error> {
        if let Some(&ty) = self.signatures.get(bytes) {
            return Ok(ty);
        }
        let sig = self.parse_signature(bytes, at)?;
        let ty = self.convert(&sig, self.limits.ir.max_type_depth, at)?;
        self.signatures.insert(bytes, ty);
        Ok(ty)
    }

    /// The `R` list: `(value, type)` of each temporary; values count from `base` unless a `V` carries 0x10 (C3).
    fn read_temporaries(&mut self, list: Option<&Chunk<'a>>, base: u32) -> Result<Vec<(ValueId, TypeId)>, Error> {
        let Some(list) = list else { return Ok(Vec::new()) };
        // A canonical `V` with its `s` takes seven bytes at least, with 0x10 ten: size the list from its payload.
        let mut temps = Vec::with_capacity(list.payload.len() / 8);
        let mut variables = Variables::new(list);
        loop {
            // The canonical `V` whose type is cached and whose 0x10, if any, is one plain UVLI32, without chunks.
            let before = variables.r.clone();
            if let Some((v, _)) = variables.next_canonical() {
                let default = base.saturating_add(temps.len() as u32);
                let value = match v.value_id {
                    None => Some(default),
                    Some(payload) => uvli32_exact(payload),
                };
                if let (Some(ty), Some(value)) = (self.payload_types.get(v.signature), value) {
                    temps.push((ValueId::from_u32(value), ty));
                    continue;
                }
                variables.r = before;
            }
            let Some((v, offset)) = variables.next()? else { break };
            let s = v
                .signature
                .as_ref()
                .ok_or_else(|| Error::lift(LiftErrorKind::Missing { what: "temporary type" }, offset))?;
            let ty = self.attribute_type(s)?;
            let value = match v.extension(profile::TAG_VALUE_ID) {
                Some(c) => uvli32_payload(c)?,
                None => base.saturating_add(temps.len() as u32),
            };
            temps.push((ValueId::from_u32(value), ty));
        }
        Ok(temps)
    }

    /// The type named by an `s` attribute (a string tag holding a signature), cached by the attribute's bytes.
    #[inline(always)]
    fn attribute_type(&mut self, s: &Chunk<'a>) -> Result<TypeId, Error> {
        match self.payload_types.get(s.payload) {
            Some(ty) => Ok(ty),
            None => self.attribute_type_uncached(s),
        }
    }

    /// [`attribute_type`](Self::attribute_type) for a payload not in the cache.
    fn attribute_type_uncached(&mut self, s: &Chunk<'a>) -> Result<TypeId, Error> {
        let ty = self.signature_type(string_payload(s, self.strings)?.unwrap_or_default(), s.offset)?;
        self.payload_types.insert(s.payload, ty);
        Ok(ty)
    }

    fn parse_signature(&self, bytes: &[u8], at: u64) -> Result<Signature, Error> {
        let text = text(bytes, at)?;
        Signature::parse_with_limits(&text, &self.limits.format)
            .map_err(|e| Error::lift(LiftErrorKind::Signature(e), at))
    }

    /// A function signature text `[Ucc.NAME;](params)ret` (an FN entry's `s`), cached by text.
    fn function_signature(&mut self, bytes: &'a [u8], at: u64) -> Result<SigId, Error> {
        if let Some(&sig) = self.function_signatures.get(bytes) {
            return Ok(sig);
        }
        let parsed = self.parse_signature(bytes, at)?;
        let sig = self.convert_function(&parsed, self.limits.ir.max_type_depth, at)?;
        self.function_signatures.insert(bytes, sig);
        Ok(sig)
    }

    fn convert(&mut self, sig: &Signature, budget: u32, at: u64) -> Result<TypeId, Error> {
        let not_in_profile = || Error::lift(LiftErrorKind::SignatureNotInProfile, at);
        let compound = matches!(sig, Signature::Pointer(_) | Signature::Array { .. } | Signature::Named(_));
        if compound && budget == 0 {
            return Err(self.limit(Resource::TypeDepth, at));
        }
        match sig {
            Signature::Primitive(letter) => profile::primitive_type(*letter).ok_or_else(not_in_profile),
            Signature::Extended(name) => profile::extended_type(name).ok_or_else(not_in_profile),
            Signature::Pointer(inner) => {
                let key = match **inner {
                    Signature::Function { .. } => TypeKey::FnPtr(self.convert_function(inner, budget - 1, at)?),
                    _ => TypeKey::Ptr(self.convert(inner, budget - 1, at)?),
                };
                self.intern(key, at)
            }
            Signature::Array { size, element } => {
                let element = self.convert(element, budget - 1, at)?;
                self.intern(TypeKey::Array(element, *size), at)
            }
            Signature::Named(name) => self.resolve_struct(name, budget - 1, at),
            _ => Err(not_in_profile()),
        }
    }

    fn convert_function(&mut self, sig: &Signature, budget: u32, at: u64) -> Result<SigId, Error> {
        let Signature::Function { convention, params, ret } = sig else {
            return Err(Error::lift(LiftErrorKind::Invalid("a function signature is expected"), at));
        };
        if budget == 0 {
            return Err(self.limit(Resource::TypeDepth, at));
        }
        let convention = match convention.as_deref() {
            None => CallingConvention::Whale,
            Some("sysv64") => CallingConvention::SysV64,
            Some(_) => return Err(Error::lift(LiftErrorKind::SignatureNotInProfile, at)),
        };
        let params = params.iter().map(|p| self.convert(p, budget - 1, at)).collect::<Result<Box<[TypeId]>, _>>()?;
        let ret = self.convert(ret, budget - 1, at)?;
        Ok(self.asm.types_mut().intern_sig(ir::types::SigKey { params, ret, convention, variadic: false }))
    }

    /// The type of a VOP Type ID (A9): simple forms by letter, string forms by text.
    #[inline(always)]
    fn vop_type(&mut self, ty: VopType, at: u64) -> Result<TypeId, Error> {
        if let VopType::Simple { level, base } = ty {
            let key = usize::from(level) * SIMPLE_BASE_CODES + usize::from(base);
            if let Some(&Some(t)) = self.simple.get(key) {
                return Ok(t);
            }
        }
        self.vop_type_uncached(ty, at)
    }

    /// [`vop_type`](Self::vop_type) for string Type IDs and the first use of each simple one.
    fn vop_type_uncached(&mut self, ty: VopType, at: u64) -> Result<TypeId, Error> {
        match ty {
            VopType::Signature(index) => {
                if let Some(&t) = self.indexed_types.get(&index) {
                    return Ok(t);
                }
                let bytes = self.strings.bytes(index.into()).unwrap_or_default();
                let t = self.signature_type(bytes, at)?;
                self.indexed_types.insert(index, t);
                Ok(t)
            }
            VopType::Simple { level, base } => {
                let key = usize::from(level) * SIMPLE_BASE_CODES + usize::from(base);
                if let Some(&Some(t)) = self.simple.get(key) {
                    return Ok(t);
                }
                let letter = simple_base_signature(base).filter(|s| s.len() == 1).map(|s| s.as_bytes()[0]);
                let mut t = letter
                    .and_then(profile::primitive_type)
                    .ok_or_else(|| Error::lift(LiftErrorKind::SignatureNotInProfile, at))?;
                for _ in 0..level {
                    t = self.intern(TypeKey::Ptr(t), at)?;
                }
                if let Some(slot) = self.simple.get_mut(key) {
                    *slot = Some(t);
                }
                Ok(t)
            }
        }
    }

    // ---- LITD ------------------------------------------------------------------------------------------------------

    /// LITD: every entry must be `ST` (C10 step 3); names are indexed now, members resolved on first use.
    fn read_litd(&mut self, litd: &Chunk<'a>) -> Result<(), Error> {
        for child in litd.children() {
            let child = child?;
            if child.tag != Tag::ST {
                return Err(Error::lift(LiftErrorKind::EntryKind { tag: child.tag }, child.offset));
            }
            let attributes = Attributes::scan(&child, Context::Struct)?;
            let name = match &attributes.name {
                Some(chunk) => string_payload(chunk, self.strings)?.unwrap_or_default(),
                None => return Err(Error::lift(LiftErrorKind::Missing { what: "struct name" }, child.offset)),
            };
            let tuple = match &attributes.flags {
                None => false,
                Some(chunk) => match string_payload(chunk, self.strings)? {
                    Some(b"") | None => false,
                    Some(flags) if flags == profile::TUPLE_FLAG.as_bytes() => true,
                    Some(_) => {
                        return Err(Error::lift(
                            LiftErrorKind::Invalid("struct flags other than Utuple;"),
                            chunk.offset,
                        ))
                    }
                },
            };
            let name = text(name, child.offset)?.into_owned();
            if self.struct_names.insert(name, self.structs.len()).is_some() {
                return Err(Error::lift(LiftErrorKind::DuplicateStructName, child.offset));
            }
            self.structs.push(StructEntry { chunk: child, tuple, state: StructState::Unresolved });
        }
        Ok(())
    }

    fn resolve_struct(&mut self, name: &str, budget: u32, at: u64) -> Result<TypeId, Error> {
        let &k = self.struct_names.get(name).ok_or_else(|| Error::lift(LiftErrorKind::UnknownStruct, at))?;
        match self.structs[k].state {
            StructState::Done(t) => return Ok(t),
            StructState::InProgress => return Err(Error::lift(LiftErrorKind::RecursiveStruct, at)),
            StructState::Unresolved => {}
        }
        self.structs[k].state = StructState::InProgress;
        let chunk = self.structs[k].chunk;
        let attributes = Attributes::scan(&chunk, Context::Struct)?;
        let mut fields = Vec::new();
        for_each_variable(attributes.fields.as_ref(), |v, offset| {
            let Some(s) = &v.signature else {
                return Err(Error::lift(LiftErrorKind::Missing { what: "member signature" }, offset));
            };
            let bytes = string_payload(s, self.strings)?.unwrap_or_default();
            let ty = match self.signatures.get(bytes) {
                Some(&t) => t,
                None => {
                    let sig = self.parse_signature(bytes, s.offset)?;
                    let t = self.convert(&sig, budget, s.offset)?;
                    self.signatures.insert(bytes, t);
                    t
                }
            };
            fields.push(ty);
            Ok(())
        })?;
        let key = if self.structs[k].tuple { TypeKey::Tuple(fields.into()) } else { TypeKey::Struct(fields.into()) };
        let ty = self.intern(key, chunk.offset)?;
        self.structs[k].state = StructState::Done(ty);
        Ok(ty)
    }

    // ---- GBLD ------------------------------------------------------------------------------------------------------

    fn read_gbld(
        &mut self,
        gbld: &Chunk<'a>,
        records: &[TraceRecord],
        record_offsets: &[u64],
        bodies: &mut Vec<BodyInfo>,
    ) -> Result<(), Error> {
        // Pass 1: what each index denotes, with ids (positional unless 0x16) and function signatures.
        let (mut globals, mut functions) = (0u32, 0u32);
        for child in gbld.children() {
            let child = child?;
            let context = match child.tag {
                Tag::GV => Context::Global,
                Tag::FN => Context::Function,
                tag => return Err(Error::lift(LiftErrorKind::EntryKind { tag }, child.offset)),
            };
            let a = Attributes::scan(&child, context)?;
            let explicit = a.extension(profile::TAG_WHALE_ID).map(uvli32_payload).transpose()?;
            let entry = if context == Context::Global {
                globals += 1;
                GbldEntry::Global(GlobalId::from_u32(explicit.unwrap_or(globals - 1)))
            } else if a.extension(profile::TAG_SYNTHESIZED).is_some() {
                GbldEntry::Synthesized
            } else {
                functions += 1;
                let Some(s) = &a.signature else {
                    return Err(Error::lift(LiftErrorKind::Missing { what: "function signature" }, child.offset));
                };
                let bytes = string_payload(s, self.strings)?.unwrap_or_default();
                let sig = self.function_signature(bytes, s.offset)?;
                GbldEntry::Function { id: FunctionId::from_u32(explicit.unwrap_or(functions - 1)), sig }
            };
            self.gbld.push(entry);
        }
        // Pass 2: globals, declarations and bodies' lists.
        for (position, child) in gbld.children().enumerate() {
            let child = child?;
            match self.gbld[position] {
                GbldEntry::Global(id) => self.read_global(&child, id)?,
                GbldEntry::Function { id, sig } => {
                    if let Some(body) = self.read_function(&child, position, id, sig, records, record_offsets)? {
                        bodies.push(body);
                    }
                }
                GbldEntry::Synthesized => {}
            }
        }
        Ok(())
    }

    fn read_global(&mut self, chunk: &Chunk<'a>, id: GlobalId) -> Result<(), Error> {
        let a = Attributes::scan(chunk, Context::Global)?;
        let missing = |what| Error::lift(LiftErrorKind::Missing { what }, chunk.offset);
        if let Some(q) = &a.qname {
            return Err(Error::lift(LiftErrorKind::Invalid("globals have no link name"), q.offset));
        }
        if let Some(f) = &a.flags {
            if !matches!(string_payload(f, self.strings)?, None | Some(b"")) {
                return Err(Error::lift(LiftErrorKind::Invalid("globals have no flags"), f.offset));
            }
        }
        let name_chunk = a.name.as_ref().ok_or_else(|| missing("global name"))?;
        let name = string_payload(name_chunk, self.strings)?;
        let name = self.intern_name(name, name_chunk.offset)?;
        let s = a.signature.as_ref().ok_or_else(|| missing("global type"))?;
        let ty = self.attribute_type(s)?;
        let v = a.value.as_ref().ok_or_else(|| missing("global value"))?;
        let mut r = v.reader();
        let register = Register::read_context_free(&mut r, self.strings)?;
        r.finish("register ID")?;
        let init =
            profile::register_const(register, ty).ok_or_else(|| Error::lift(LiftErrorKind::BadConstant, v.offset))?;
        let align = match a.extension(profile::TAG_ALIGN) {
            Some(chunk) => {
                let mut r = chunk.reader();
                let align = r.uvli64()?;
                r.finish("alignment")?;
                u32::try_from(align)
                    .map_err(|_| Error::lift(LiftErrorKind::Invalid("alignment above 2^32 - 1"), chunk.offset))?
            }
            None => 0,
        };
        let init_expr = match a.extension(profile::TAG_INIT_EXPR) {
            Some(chunk) => {
                let mut r = chunk.reader();
                let expr = self.read_expr(&mut r, None, 0)?;
                r.finish("constant expression")?;
                expr
            }
            None => ConstExpr::literal(self.asm.types().to_type(ty), init),
        };
        self.asm
            .add_global(id, name, ty, init, init_expr, align)
            .map_err(|e| Error::lift(LiftErrorKind::Assemble(e), chunk.offset))
    }

    #[allow(clippy::too_many_arguments)]
    fn read_function(
        &mut self,
        chunk: &Chunk<'a>,
        position: usize,
        id: FunctionId,
        sig: SigId,
        records: &[TraceRecord],
        record_offsets: &[u64],
    ) -> Result<Option<BodyInfo>, Error> {
        let at = chunk.offset;
        self.count(Resource::Functions, 1, at)?;
        let a = Attributes::scan(chunk, Context::Function)?;
        let name_chunk =
            a.name.as_ref().ok_or_else(|| Error::lift(LiftErrorKind::Missing { what: "function name" }, at))?;
        let name = string_payload(name_chunk, self.strings)?;
        let name = self.intern_name(name, name_chunk.offset)?;
        let link_name = match &a.qname {
            Some(q) => {
                let bytes = string_payload(q, self.strings)?;
                Some(self.intern_name(bytes, q.offset)?)
            }
            None => None,
        };
        let mut linkage = Linkage::External;
        if let Some(f) = &a.flags {
            for &flag in string_payload(f, self.strings)?.unwrap_or_default() {
                match flag {
                    b's' => linkage = Linkage::Internal,
                    // "Has a body" comes from `t`, not from `e` (C2).
                    b'e' => {}
                    _ => {
                        return Err(Error::lift(LiftErrorKind::Invalid("function flags other than s and e"), f.offset))
                    }
                }
            }
        }
        if let Some(s) = &a.statics {
            if s.children().next().is_some() {
                return Err(Error::lift(
                    LiftErrorKind::Invalid("static variables are not in the Whale profile"),
                    s.offset,
                ));
            }
        }
        self.asm
            .add_declaration(id, name, sig, linkage, link_name)
            .map_err(|e| Error::lift(LiftErrorKind::Assemble(e), at))?;
        let key = self.asm.types().sig(sig);
        let (param_types, ret) = (key.params.to_vec(), key.ret);
        // A: one V per parameter; its type restates the signature's.
        let mut params = Vec::with_capacity(param_types.len());
        let mut k = 0usize;
        for_each_variable(a.args.as_ref(), |v, offset| {
            let expected = *param_types.get(k).ok_or_else(|| {
                Error::lift(
                    LiftErrorKind::Count { what: "arguments", expected: param_types.len() as u64, found: k as u64 + 1 },
                    offset,
                )
            })?;
            let s = v
                .signature
                .as_ref()
                .ok_or_else(|| Error::lift(LiftErrorKind::Missing { what: "argument type" }, offset))?;
            let ty = self.attribute_type(s)?;
            if ty != expected {
                return Err(Error::lift(
                    LiftErrorKind::TypeMismatch { field: "argument type", subject: "the signature" },
                    s.offset,
                ));
            }
            let name = match &v.name {
                Some(n) => {
                    let bytes = string_payload(n, self.strings)?;
                    self.intern_name(bytes, n.offset)?
                }
                None => self.asm.intern(""),
            };
            let value = match v.extension(profile::TAG_VALUE_ID) {
                Some(c) => uvli32_payload(c)?,
                None => k as u32,
            };
            params.push((ValueId::from_u32(value), name, ty));
            k += 1;
            Ok(())
        })?;
        if params.len() != param_types.len() {
            let kind = LiftErrorKind::Count {
                what: "arguments",
                expected: param_types.len() as u64,
                found: params.len() as u64,
            };
            return Err(Error::lift(kind, a.args.as_ref().map_or(at, |c| c.offset)));
        }
        let Some(trace) = &a.trace else { return Ok(None) };
        // The body: `t` names its header, whose gblid must be this entry (A12, B77).
        let header = uvli32_payload(trace)?;
        let ranges = function_traces(records, header.into(), u64::MAX).map_err(|(kind, record)| {
            let offset = record_offsets.get(record as usize).copied().unwrap_or(trace.offset);
            Error::from(FormatError::new(kind, offset))
        })?;
        if let Some(&TraceRecord::Header { gblid, .. }) = records.get(header as usize) {
            if gblid != position as u64 + 1 {
                let kind = ErrorKind::HeaderGlobalMismatch { expected: position as u64 + 1, found: gblid };
                return Err(FormatError::new(kind, trace.offset).into());
            }
        }
        // A trace belongs to one function: checking it here keeps shared traces from multiplying the ranges held.
        if let Some(&TraceRecord::Header { b_vtr, n_vtr, .. }) = records.get(header as usize) {
            for record in b_vtr..b_vtr + n_vtr {
                let Some(claimed) = self.claimed.get_mut(record as usize) else { break };
                if std::mem::replace(claimed, true) {
                    let what = "a trace belongs to two function bodies";
                    return Err(Error::lift(LiftErrorKind::Invalid(what), trace.offset));
                }
            }
        }
        let ranges = ranges.into_iter().filter(|r| !r.is_empty()).collect();
        self.count(Resource::Values, params.len() as u64, at)?;
        let mut locals = Vec::new();
        for_each_variable(a.locals.as_ref(), |v, offset| {
            let s = v
                .signature
                .as_ref()
                .ok_or_else(|| Error::lift(LiftErrorKind::Missing { what: "local type" }, offset))?;
            locals.push(self.attribute_type(s)?);
            Ok(())
        })?;
        // A canonical `V` with its `s` takes seven bytes at least, with 0x10 ten: size the list from its payload.
        let temps = self.read_temporaries(a.temporaries.as_ref(), params.len() as u32)?;
        self.count(Resource::Values, temps.len() as u64, at)?;
        let blocks = match a.extension(profile::TAG_BLOCK_TABLE) {
            Some(chunk) => {
                let mut r = chunk.reader();
                let mut blocks = Vec::new();
                while !r.is_empty() {
                    let id = BlockId::from_u32(r.uvli32()?);
                    let name_at = r.offset();
                    let name = string_tag(&mut r, self.strings)?;
                    blocks.push((id, self.intern_name(name, name_at)?));
                }
                Some(blocks)
            }
            None => None,
        };
        let mut info =
            BodyInfo { offset: at, id, name, ret, params, locals, temps, blocks, const_decls: Vec::new(), ranges };
        if let Some(chunk) = a.extension(profile::TAG_CONST_DECLS) {
            let mut r = chunk.reader();
            while !r.is_empty() {
                let record_at = r.offset();
                let temporary = r.uvli32()?;
                if info.const_decls.last().is_some_and(|&(t, _, _)| t >= temporary) {
                    return Err(Error::lift(
                        LiftErrorKind::Invalid("const_decl records must name increasing temporaries"),
                        record_at,
                    ));
                }
                let name_at = r.offset();
                let name = string_tag(&mut r, self.strings)?;
                let name = self.intern_name(name, name_at)?;
                let expr = self.read_expr(&mut r, Some(&info), 0)?;
                info.const_decls.push((temporary, name, expr));
            }
        }
        Ok(Some(info))
    }

    /// A constant-expression tree (C7.3); `scope` is the enclosing body for local references.
    fn read_expr(&mut self, r: &mut Reader<'a>, scope: Option<&BodyInfo>, depth: u32) -> Result<ConstExpr, Error> {
        let at = r.offset();
        if depth > self.limits.ir.max_const_depth {
            return Err(self.limit(Resource::ConstantDepth, at));
        }
        let kind = r.uvli32()?;
        let sig_at = r.offset();
        let sig = string_tag(r, self.strings)?.unwrap_or_default();
        let ty_id = self.signature_type(sig, sig_at)?;
        // Constant expressions compute scalars (literals, globals and local constants are scalar in valid IR);
        // refusing other types also keeps each node's `Type` small, whatever the image repeats.
        if !ty_id.is_scalar() {
            let what = "constant expressions have scalar types";
            return Err(Error::lift(LiftErrorKind::Invalid(what), sig_at));
        }
        let ty = self.asm.types().to_type(ty_id);
        let kind = match kind {
            expr_kind::LITERAL => {
                let register = Register::read_context_free(r, self.strings)?;
                let value = profile::register_const(register, ty_id)
                    .ok_or_else(|| Error::lift(LiftErrorKind::BadConstant, at))?;
                ConstExprKind::Literal(value)
            }
            expr_kind::REFERENCE => {
                let reg_at = r.offset();
                let reference = match Register::read_context_free(r, self.strings)? {
                    Register::Global(index) => {
                        match usize::try_from(index).ok().and_then(|i| i.checked_sub(1)).and_then(|i| self.gbld.get(i))
                        {
                            Some(GbldEntry::Global(g)) => ConstRef::Global(*g),
                            _ => return Err(Error::lift(LiftErrorKind::RegisterKind { field: "reference" }, reg_at)),
                        }
                    }
                    register @ (Register::Temporary { .. } | Register::Arg { .. }) => {
                        let Some(scope) = scope else {
                            return Err(Error::lift(LiftErrorKind::RegisterKind { field: "reference" }, reg_at));
                        };
                        ConstRef::Local(body::scope_value(scope, register, reg_at)?)
                    }
                    _ => return Err(Error::lift(LiftErrorKind::RegisterKind { field: "reference" }, reg_at)),
                };
                ConstExprKind::Reference(reference)
            }
            expr_kind::BINARY | expr_kind::COMPARE => {
                let op_at = r.offset();
                let code = r.uvli32()?;
                let bad = || Error::lift(LiftErrorKind::Invalid("unknown constant-expression operator"), op_at);
                let binary = kind == expr_kind::BINARY;
                let bin_op = if binary { Some(profile::const_bin_op(code).ok_or_else(bad)?) } else { None };
                let cmp_op = if binary { None } else { Some(profile::const_cmp_op(code).ok_or_else(bad)?) };
                let lhs = Box::new(self.read_expr(r, scope, depth + 1)?);
                let rhs = Box::new(self.read_expr(r, scope, depth + 1)?);
                match (bin_op, cmp_op) {
                    (Some(op), _) => ConstExprKind::Binary { op, lhs, rhs },
                    (_, Some(op)) => ConstExprKind::Compare { op, lhs, rhs },
                    _ => return Err(bad()),
                }
            }
            _ => return Err(Error::lift(LiftErrorKind::Invalid("unknown constant-expression kind"), at)),
        };
        Ok(ConstExpr { ty, kind })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uvli32_exact_takes_exactly_one_code() {
        assert_eq!(uvli32_exact(&[0x05]), Some(5));
        assert_eq!(uvli32_exact(&[0x81, 0x02]), Some(0x102));
        assert_eq!(uvli32_exact(&[0xC1, 0x02, 0x03]), Some(0x1_0203));
        assert_eq!(uvli32_exact(&[0xE1, 0x02, 0x03, 0x04]), Some(0x102_0304));
        assert_eq!(uvli32_exact(&[0xF3, 0xFF, 0xFF, 0xFF, 0xFF]), None, "above u32::MAX");
        assert_eq!(uvli32_exact(&[0xF0, 0xFF, 0xFF, 0xFF, 0xFF]), Some(u32::MAX));
        assert_eq!(uvli32_exact(&[0x81]), None, "truncated");
        assert_eq!(uvli32_exact(&[0x05, 0x00]), None, "trailing byte");
        assert_eq!(uvli32_exact(&[]), None);
    }

    #[test]
    fn canonical_variables_are_recognised_from_their_headers() {
        // `V` { `s` "\x01x\0" }: 7 bytes.
        let plain = [0x3B, b'V', 0x2B, b's', 0x01, b'x', 0x00];
        let v = CanonicalVariable::peek(&plain).unwrap();
        assert_eq!((v.len, v.signature, v.value_id), (7, &plain[4..], None));
        // With 0x10 holding one byte.
        let with_id = [0x53, b'V', 0x2B, b's', 0x01, b'x', 0x00, 0x1B, 0x10, 0x07];
        let v = CanonicalVariable::peek(&with_id).unwrap();
        assert_eq!((v.len, v.value_id), (10, Some(&[0x07][..])));
        // A name, a short `V`, a 0x10 that overruns: not canonical.
        assert!(CanonicalVariable::peek(&[0x3B, b'V', 0x2B, b'n', 0x01, b'x', 0x00]).is_none());
        assert!(CanonicalVariable::peek(&plain[..6]).is_none());
        assert!(CanonicalVariable::peek(&[0x53, b'V', 0x2B, b's', 0x01, b'x', 0x00, 0x23, 0x10, 0x07]).is_none());
    }
}
