//! Virtual opcodes (`fr2e.md` A8) and the `vops` stream codec with its four MTF lists (A13).
//!
//! A [`Vop`] is the logical content of one VOP: opcode and operator numbers, and each optional field of A8.1 as an
//! `Option`. The mask is not stored: presence bits follow from the fields and the opn/opr form from the canonical rule
//! of A8.3, so every model has exactly one encoding and `read(write(m)) == m`. Argument lists and jump tables live in
//! the stream's pools ([`VopStream::registers`], [`VopStream::labels`]).
//!
//! Decoding is strictly sequential over the whole chunk with one set of MTF lists, empty at the start and never reset
//! (A13, B44). [`VopDecoder`] yields one VOP at a time for callers that stream ([`VopDecoder::next_vop_into`] refills
//! one reused `Vop`); [`VopStream::read`] collects them. [`VopEncoder`] applies the canonical rule: a value found in
//! its list is written as a repeat (A13). It takes whole [`Vop`]s, or a VOP field by field ([`VopEncoder::begin`] and
//! the field methods) for writers that keep, per register and type, the cell of its list entry and so need no search
//! ([`SearchMtf::find_or_push_at`]).

use super::error::{ErrorKind, FormatError, WriteError};
use super::immediate::{field_interleaved, field_split, Immediate};
use super::limits::VOP_MASK_BITS;
use super::mtf::{Mtf, MtfCell, SearchMtf};
use super::reader::Reader;
use super::register::{Register, RegisterWord};
use super::strings::{check_index, StringTable};
use super::type_id::{TypeWord, VopType};
use super::vli::{compact, deinterleave, fold, interleave, write_uvli64, write_uvli64_word};

/// Mask bit: opcode number (A8.1).
pub const MASK_OPN: u32 = 1;
/// Mask bit: operator number.
pub const MASK_OPR: u32 = 2;
/// Mask bit: base/destination type.
pub const MASK_TYPE: u32 = 4;
/// Mask bit: destination register.
pub const MASK_DST: u32 = 8;
/// Mask bit: source register A.
pub const MASK_SRCA: u32 = 16;
/// Mask bit: source register B.
pub const MASK_SRCB: u32 = 32;
/// Mask bit: immediate.
pub const MASK_IMM: u32 = 64;
/// Mask bit: predication mode.
pub const MASK_PRD: u32 = 128;
/// Mask bit: source type.
pub const MASK_STYPE: u32 = 256;
/// Mask bit: source register C.
pub const MASK_SRCC: u32 = 512;
/// Mask bit: source register D.
pub const MASK_SRCD: u32 = 1024;

/// Opcode numbers of A8.4 and the Whale-profile extensions of C9 (and the `X_UNINIT` amendment).
pub mod opcode {
    #![allow(missing_docs)]
    pub const UNARY: u32 = 0x01;
    pub const BINARY: u32 = 0x02;
    pub const LABEL: u32 = 0x03;
    pub const JMP: u32 = 0x04;
    pub const MOV: u32 = 0x05;
    pub const JCMP_ZERO: u32 = 0x06;
    pub const JCMP: u32 = 0x07;
    pub const CALL: u32 = 0x08;
    pub const CSRV: u32 = 0x09;
    pub const RETDFL: u32 = 0x0A;
    pub const RETV: u32 = 0x0B;
    pub const RET: u32 = 0x0C;
    pub const CONV: u32 = 0x0D;
    pub const DBGFN: u32 = 0x0E;
    pub const DBGLN: u32 = 0x0F;
    pub const COMPARE: u32 = 0x10;
    pub const LDIXIMM: u32 = 0x11;
    pub const STIXIMM: u32 = 0x12;
    pub const LDIX: u32 = 0x13;
    pub const STIX: u32 = 0x14;
    pub const LEAIMM: u32 = 0x15;
    pub const LEA: u32 = 0x16;
    pub const LDAVAR: u32 = 0x17;
    pub const SIZEOFVAR: u32 = 0x18;
    pub const DIFFPTR: u32 = 0x19;
    pub const OFFSETOF: u32 = 0x1A;
    pub const LOADSLOT: u32 = 0x1B;
    pub const STORESLOT: u32 = 0x1C;
    pub const LOADSLOTADDR: u32 = 0x1D;
    pub const LOADSLOTADDRID: u32 = 0x1E;
    pub const INITOBJ: u32 = 0x1F;
    pub const DROPOBJ: u32 = 0x20;
    pub const INITARR: u32 = 0x21;
    pub const INITOBJARR: u32 = 0x22;
    pub const LOADINITARR: u32 = 0x23;
    pub const LOADINITOBJARR: u32 = 0x24;
    pub const VA_START: u32 = 0x25;
    pub const VA_END: u32 = 0x26;
    pub const VA_ARG: u32 = 0x27;
    pub const CSELCMP: u32 = 0x28;
    pub const CSELCMP_Z: u32 = 0x29;
    pub const JMPTAB: u32 = 0x2A;
    pub const OBJCALL: u32 = 0x2B;
    pub const PREDCMP: u32 = 0x2C;
    pub const PREDCMP_Z: u32 = 0x2D;
    pub const PREDSYNC: u32 = 0x2E;
    pub const CALL_INTRIN: u32 = 0x2F;
    pub const X_PHI: u32 = 0x40;
    pub const X_TRAP: u32 = 0x41;
    pub const X_TRAPIF: u32 = 0x42;
    pub const X_UNDEF: u32 = 0x43;
    pub const X_EXTRACT: u32 = 0x44;
    pub const X_CHECKED: u32 = 0x45;
    pub const X_MEMCPY: u32 = 0x46;
    pub const X_MEMSET: u32 = 0x47;
    pub const X_GEP: u32 = 0x48;
    pub const X_ICMP: u32 = 0x49;
    pub const X_FCMP: u32 = 0x4A;
    pub const X_UNINIT: u32 = 0x4B;

    const NAMES: [&str; 0x30] = [
        "",
        "UNARY",
        "BINARY",
        "LABEL",
        "JMP",
        "MOV",
        "JCMP_ZERO",
        "JCMP",
        "CALL",
        "CSRV",
        "RETDFL",
        "RETV",
        "RET",
        "CONV",
        "DBGFN",
        "DBGLN",
        "COMPARE",
        "LDIXIMM",
        "STIXIMM",
        "LDIX",
        "STIX",
        "LEAIMM",
        "LEA",
        "LDAVAR",
        "SIZEOFVAR",
        "DIFFPTR",
        "OFFSETOF",
        "LOADSLOT",
        "STORESLOT",
        "LOADSLOTADDR",
        "LOADSLOTADDRID",
        "INITOBJ",
        "DROPOBJ",
        "INITARR",
        "INITOBJARR",
        "LOADINITARR",
        "LOADINITOBJARR",
        "VA_START",
        "VA_END",
        "VA_ARG",
        "CSELCMP",
        "CSELCMP_Z",
        "JMPTAB",
        "OBJCALL",
        "PREDCMP",
        "PREDCMP_Z",
        "PREDSYNC",
        "CALL_INTRIN",
    ];
    const EXTENSIONS: [&str; 12] = [
        "X_PHI",
        "X_TRAP",
        "X_TRAPIF",
        "X_UNDEF",
        "X_EXTRACT",
        "X_CHECKED",
        "X_MEMCPY",
        "X_MEMSET",
        "X_GEP",
        "X_ICMP",
        "X_FCMP",
        "X_UNINIT",
    ];

    /// The name of an opcode number, for listings.
    pub fn name(opn: u32) -> Option<&'static str> {
        match opn {
            1..=0x2F => NAMES.get(opn as usize).copied(),
            0x40..=0x4B => EXTENSIONS.get((opn - 0x40) as usize).copied(),
            _ => None,
        }
    }
}

/// The canonical opn/opr form bits of A8.3: opr 0 gives `01`, an interleave below 128 gives `10`, anything else `11`
/// (B46). The interleave is below 128 exactly when opn fits its 3 odd bits and opr its 4 even bits.
#[inline]
const fn form(opn: u32, opr: u32) -> u32 {
    if opr == 0 {
        MASK_OPN
    } else if opn < 8 && opr < 16 {
        MASK_OPR
    } else {
        MASK_OPN | MASK_OPR
    }
}

/// `deinterleave` of the words below 128, the usual opn/opr interleave (3 opcode bits, 4 operator bits).
const SMALL_OPN_OPR: [(u32, u32); 128] = {
    let mut table = [(0, 0); 128];
    let mut word = 0;
    while word < 128 {
        table[word] = deinterleave(word as u64);
        word += 1;
    }
    table
};

/// One VOP (A8.1): `None` fields are absent from the mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vop {
    /// Opcode number (never 0).
    pub opn: u32,
    /// Operator number; 0 when absent.
    pub opr: u32,
    /// Predication mode (mask bit 128).
    pub prd: Option<u32>,
    /// Base/destination type (mask bit 4).
    pub ty: Option<VopType>,
    /// Source type (mask bit 256).
    pub stype: Option<VopType>,
    /// Destination register (mask bit 8).
    pub dst: Option<Register>,
    /// Source register A (mask bit 16).
    pub srca: Option<Register>,
    /// Source register B (mask bit 32).
    pub srcb: Option<Register>,
    /// Source register C (mask bit 512).
    pub srcc: Option<Register>,
    /// Source register D (mask bit 1024).
    pub srcd: Option<Register>,
    /// Immediate (mask bit 64).
    pub imm: Option<Immediate>,
}

impl Vop {
    /// A VOP with opcode `opn` and no other field.
    pub const fn new(opn: u32) -> Self {
        Self {
            opn,
            opr: 0,
            prd: None,
            ty: None,
            stype: None,
            dst: None,
            srca: None,
            srcb: None,
            srcc: None,
            srcd: None,
            imm: None,
        }
    }

    /// The canonical effective mask: presence bits, and the opn/opr form of A8.3 (opr 0 gives `01`, an interleave
    /// below 128 gives `10`, anything else `11`; B46).
    pub fn mask(&self) -> u32 {
        let form = form(self.opn, self.opr);
        let bit = |present: bool, bit: u32| if present { bit } else { 0 };
        form | bit(self.prd.is_some(), MASK_PRD)
            | bit(self.ty.is_some(), MASK_TYPE)
            | bit(self.stype.is_some(), MASK_STYPE)
            | bit(self.dst.is_some(), MASK_DST)
            | bit(self.srca.is_some(), MASK_SRCA)
            | bit(self.srcb.is_some(), MASK_SRCB)
            | bit(self.srcc.is_some(), MASK_SRCC)
            | bit(self.srcd.is_some(), MASK_SRCD)
            | bit(self.imm.is_some(), MASK_IMM)
    }

    /// The presence bits of the fields: the mask without its opn/opr form bits.
    #[inline]
    pub fn field_bits(&self) -> u32 {
        let bit = |present: bool, bit: u32| u32::from(present) * bit;
        bit(self.prd.is_some(), MASK_PRD)
            | bit(self.ty.is_some(), MASK_TYPE)
            | bit(self.stype.is_some(), MASK_STYPE)
            | bit(self.dst.is_some(), MASK_DST)
            | bit(self.srca.is_some(), MASK_SRCA)
            | bit(self.srcb.is_some(), MASK_SRCB)
            | bit(self.srcc.is_some(), MASK_SRCC)
            | bit(self.srcd.is_some(), MASK_SRCD)
            | bit(self.imm.is_some(), MASK_IMM)
    }

    /// The register fields in stream order: dst, srca, srcb, srcc, srcd (A8.1, B47).
    pub fn registers(&self) -> [Option<Register>; 5] {
        [self.dst, self.srca, self.srcb, self.srcc, self.srcd]
    }
}

/// A decoded `vops` chunk: the VOPs in stream order (the VOP number is the index) and the pools their argument lists
/// and jump tables point into.
///
/// A [`Vop`] takes 176 bytes and the shortest coded VOP two, so a fully materialised stream can take up to about 90
/// times its payload. Readers that must bound memory more tightly (the IR mapping) decode with [`VopDecoder`], one
/// VOP at a time; its pools grow at most one entry per input byte.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VopStream {
    /// The VOPs.
    pub vops: Vec<Vop>,
    /// Registers of argument-list immediates.
    pub registers: Vec<Register>,
    /// Labels of jump-table immediates.
    pub labels: Vec<u32>,
}

impl VopStream {
    /// Decodes a whole `vops` payload; it must end exactly on a VOP boundary (B48).
    pub fn read(r: Reader<'_>, strings: &StringTable) -> Result<Self, FormatError> {
        let mut stream = VopStream::default();
        let mut decoder = VopDecoder::new(r, strings);
        while !decoder.is_empty() {
            let vop = decoder.next_vop(&mut stream.registers, &mut stream.labels)?;
            stream.vops.push(vop);
        }
        Ok(stream)
    }

    /// Encodes the stream canonically; an empty stream gives an empty payload.
    pub fn write(&self, strings: &StringTable) -> Result<Vec<u8>, WriteError> {
        let mut encoder = VopEncoder::new(strings, Vec::with_capacity(self.vops.len() * 4));
        for (i, vop) in self.vops.iter().enumerate() {
            encoder.encode(vop, &self.registers, &self.labels).map_err(|e| match e {
                EncodeError::Vop(reason) => WriteError::Vop { vop: i, reason },
                EncodeError::Write(e) => e,
            })?;
        }
        Ok(encoder.finish())
    }

    /// Adds an argument list to the pool and returns its immediate.
    pub fn push_args(&mut self, registers: &[Register]) -> Immediate {
        let start = self.registers.len() as u32;
        self.registers.extend_from_slice(registers);
        Immediate::ArgList { start, len: registers.len() as u32 }
    }

    /// Adds a jump table to the pool and returns its immediate: `labels[j]` is the target of `base + j`.
    pub fn push_jump_table(&mut self, base: i64, labels: &[u32], default: u32) -> Immediate {
        let start = self.labels.len() as u32;
        self.labels.extend_from_slice(labels);
        self.labels.push(default);
        Immediate::JumpTable { base, start, len: labels.len() as u32 + 1 }
    }

    /// The registers of an argument-list immediate.
    pub fn args(&self, imm: &Immediate) -> Option<&[Register]> {
        match *imm {
            Immediate::ArgList { start, len } => pool_slice(&self.registers, start, len),
            _ => None,
        }
    }

    /// The labels of a jump-table immediate, the default last.
    pub fn table(&self, imm: &Immediate) -> Option<&[u32]> {
        match *imm {
            Immediate::JumpTable { start, len, .. } => pool_slice(&self.labels, start, len),
            _ => None,
        }
    }
}

fn pool_slice<T>(pool: &[T], start: u32, len: u32) -> Option<&[T]> {
    let start = start as usize;
    pool.get(start..start.checked_add(len as usize)?)
}

/// Sequential decoder of a `vops` payload.
#[derive(Clone, Debug)]
pub struct VopDecoder<'a, 's> {
    r: Reader<'a>,
    strings: &'s StringTable,
    masks: Mtf<u32>,
    types: Mtf<VopType>,
    registers: Mtf<Register>,
    immediates: Mtf<Immediate>,
}

impl<'a, 's> VopDecoder<'a, 's> {
    /// A decoder over a `vops` payload, with empty MTF lists.
    pub fn new(r: Reader<'a>, strings: &'s StringTable) -> Self {
        Self {
            r,
            strings,
            masks: Mtf::new(0),
            types: Mtf::new(VopType::Signature(0)),
            registers: Mtf::new(Register::Int(0)),
            immediates: Mtf::new(Immediate::Int(0)),
        }
    }

    /// True when the payload is exhausted.
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }

    /// Absolute offset of the next VOP.
    pub fn offset(&self) -> u64 {
        self.r.offset()
    }

    /// Decodes the next VOP, appending argument-list registers and jump-table labels to the pools.
    pub fn next_vop(&mut self, registers: &mut Vec<Register>, labels: &mut Vec<u32>) -> Result<Vop, FormatError> {
        let mut vop = Vop::new(0);
        self.next_vop_into(&mut vop, registers, labels)?;
        Ok(vop)
    }

    /// Decodes the next VOP into `vop`, replacing all its fields, as [`next_vop`](Self::next_vop) does, and returns
    /// its field bits ([`Vop::field_bits`], read from the mask). Readers that decode a stream reuse one `Vop`, so no
    /// 176-byte record is returned per VOP. On error `vop` is unspecified.
    #[inline]
    pub fn next_vop_into(
        &mut self,
        vop: &mut Vop,
        registers: &mut Vec<Register>,
        labels: &mut Vec<u32>,
    ) -> Result<u32, FormatError> {
        let at = self.r.offset();
        let word = self.r.uvli32()?;
        let mask = if word & 3 == 0 {
            // B43: the repeat form indexes the mask MTF; index 0 is "the previous mask".
            let index = word >> 2;
            self.masks.repeat(index as usize).ok_or_else(|| self.repeat_error("mask", index.into(), at))?
        } else {
            if word >> VOP_MASK_BITS != 0 {
                return Err(FormatError::new(ErrorKind::ReservedMaskBits { mask: word }, at));
            }
            self.masks.push(word);
            word
        };
        let opn_at = self.r.offset();
        let (opn, opr) = match mask & 3 {
            1 => (self.r.uvli32()?, 0),
            2 => match self.r.uvli32()? {
                small @ 0..=0x7F => SMALL_OPN_OPR[small as usize],
                word => deinterleave(word.into()),
            },
            _ => (self.r.uvli32()?, self.r.uvli32()?),
        };
        if opn == 0 {
            return Err(FormatError::new(ErrorKind::ReservedOpcode, opn_at));
        }
        vop.opn = opn;
        vop.opr = opr;
        // Reads a present field; clears an absent one only if the reused `vop` holds a value there (storing `None`
        // writes the whole option, and most fields stay absent from one VOP to the next).
        macro_rules! field {
            ($slot:expr, $bit:expr, $read:expr) => {
                if mask & $bit != 0 {
                    $slot = Some($read?);
                } else if $slot.is_some() {
                    $slot = None;
                }
            };
        }
        // Fields in the listed order, not bit order (B47).
        field!(vop.prd, MASK_PRD, self.r.uvli32());
        field!(vop.ty, MASK_TYPE, self.ty());
        field!(vop.stype, MASK_STYPE, self.ty());
        field!(vop.dst, MASK_DST, self.register());
        field!(vop.srca, MASK_SRCA, self.register());
        field!(vop.srcb, MASK_SRCB, self.register());
        field!(vop.srcc, MASK_SRCC, self.register());
        field!(vop.srcd, MASK_SRCD, self.register());
        field!(vop.imm, MASK_IMM, self.immediate(registers, labels));
        Ok(mask & !(MASK_OPN | MASK_OPR))
    }

    #[cold]
    fn repeat_error(&self, list: &'static str, index: u64, at: u64) -> FormatError {
        let len = match list {
            "mask" => self.masks.len(),
            "type" => self.types.len(),
            "register" => self.registers.len(),
            _ => self.immediates.len(),
        } as u8;
        FormatError::new(ErrorKind::RepeatOutOfRange { list, index, len }, at)
    }

    #[inline(always)]
    fn ty(&mut self) -> Result<VopType, FormatError> {
        // The word is taken apart here rather than through a returned `TypeWord`, whose two-part result went through
        // memory and stalled the load that read it back.
        let at = self.r.offset();
        let w = self.r.uvli32()?;
        if TypeWord::is_repeat(w) {
            let index = w >> 2;
            return self.types.repeat(index as usize).ok_or_else(|| self.repeat_error("type", index.into(), at));
        }
        let ty = TypeWord::decode(w, self.strings, at)?;
        self.types.push(ty);
        Ok(ty)
    }

    /// One register field, through the register MTF. The common words are decoded inline: repeats, and unversioned
    /// temporaries and arguments (as in [`RegisterWord::read`]).
    #[inline(always)]
    fn register(&mut self) -> Result<Register, FormatError> {
        let at = self.r.offset();
        let w = self.r.uvli64()?;
        let unversioned = (w >> 3) & 0xAAAA_AAAA_AAAA_AAAA == 0;
        let register = match w & 7 {
            0 => {
                let repeated = usize::try_from(w >> 3).ok().and_then(|i| self.registers.repeat(i));
                return repeated.ok_or_else(|| self.repeat_error("register", w >> 3, at));
            }
            2 if unversioned => Register::Temporary { base: compact(w >> 3), seq: 0 },
            4 if unversioned => Register::Arg { base: compact(w >> 3), seq: 0 },
            _ => RegisterWord::decode(w, &mut self.r, self.strings, at)?,
        };
        self.registers.push(register);
        Ok(register)
    }

    fn immediate(&mut self, registers: &mut Vec<Register>, labels: &mut Vec<u32>) -> Result<Immediate, FormatError> {
        let at = self.r.offset();
        let w = self.r.uvli64()?;
        let hv = w >> 4;
        let imm = match w & 15 {
            0 => {
                let repeated = usize::try_from(hv).ok().and_then(|i| self.immediates.repeat(i));
                return repeated.ok_or_else(|| self.repeat_error("immediate", hv, at));
            }
            // hv < 2^60, so the negation fits; a negative zero reads as 0 (B69).
            1 => Immediate::Int(-(hv as i64)),
            2 => Immediate::Int(hv as i64),
            3 => Immediate::Label(
                u32::try_from(hv).map_err(|_| FormatError::new(ErrorKind::LabelOutOfRange { value: hv }, at))?,
            ),
            4 => {
                if !self.strings.contains(hv) {
                    let kind = ErrorKind::StringIndexOutOfRange { index: hv, count: self.strings.count() };
                    return Err(FormatError::new(kind, at));
                }
                Immediate::String(hv as u32)
            }
            5 => {
                // Every register takes at least one byte: refuse counts the payload cannot hold.
                let count = self.r.check_count(hv, 1)?;
                let start = registers.len() as u32;
                for _ in 0..count {
                    let register = self.register()?;
                    registers.push(register);
                }
                return Ok(Immediate::ArgList { start, len: count as u32 });
            }
            6 => {
                let base = self.r.svli()?;
                // n entries and the default label, one byte each at least (B72).
                let count = self.r.check_count(hv + 1, 1)?;
                let start = labels.len() as u32;
                for _ in 0..count {
                    let at = self.r.offset();
                    let label = self.r.uvli32().map_err(|e| match e.kind {
                        ErrorKind::Uvli32Overflow { value } => {
                            FormatError::new(ErrorKind::LabelOutOfRange { value }, at)
                        }
                        _ => e,
                    })?;
                    labels.push(label);
                }
                return Ok(Immediate::JumpTable { base, start, len: count as u32 });
            }
            7 if hv != 0 => {
                let (literal, field) = field_split(hv);
                Immediate::Field { literal, field }
            }
            // B70: the pair form, literal index then field ID.
            7 => Immediate::Field { literal: self.r.uvli64()?, field: self.r.uvli64()? },
            tag => return Err(FormatError::new(ErrorKind::ReservedImmediate { tag: tag as u8 }, at)),
        };
        self.immediates.push(imm);
        Ok(imm)
    }
}

/// Why one VOP cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// A VOP-level problem.
    Vop(&'static str),
    /// A field that cannot be written.
    Write(WriteError),
}

impl From<WriteError> for EncodeError {
    fn from(e: WriteError) -> Self {
        EncodeError::Write(e)
    }
}

/// Canonical encoder of a `vops` stream.
#[derive(Clone, Debug)]
pub struct VopEncoder<'s> {
    out: StagedBytes,
    strings: &'s StringTable,
    masks: SearchMtf<u32>,
    /// The mask list's cell of each mask value (masks have 11 bits), so masks are never searched.
    mask_cells: Vec<MtfCell>,
    types: SearchMtf<VopType>,
    registers: SearchMtf<Register>,
    immediates: SearchMtf<Immediate>,
}

impl<'s> VopEncoder<'s> {
    /// An encoder appending to `out`, with empty MTF lists.
    pub fn new(strings: &'s StringTable, out: Vec<u8>) -> Self {
        Self {
            out: StagedBytes::new(out),
            strings,
            masks: SearchMtf::new(0),
            mask_cells: vec![MtfCell::EMPTY; 1 << VOP_MASK_BITS],
            types: SearchMtf::new(VopType::Signature(0)),
            registers: SearchMtf::new(Register::Int(0)),
            immediates: SearchMtf::new(Immediate::Int(0)),
        }
    }

    /// The encoded bytes.
    pub fn finish(self) -> Vec<u8> {
        self.out.finish()
    }

    /// Appends one VOP. On error the output and the lists are left in an unspecified state.
    pub fn encode(&mut self, vop: &Vop, registers: &[Register], labels: &[u32]) -> Result<(), EncodeError> {
        self.begin(vop.opn, vop.opr, vop.field_bits())?;
        if let Some(prd) = vop.prd {
            self.out.uvli32(prd);
        }
        if let Some(ty) = vop.ty {
            self.ty(ty)?;
        }
        if let Some(ty) = vop.stype {
            self.ty(ty)?;
        }
        for register in [&vop.dst, &vop.srca, &vop.srcb, &vop.srcc, &vop.srcd].into_iter().flatten() {
            self.register(register)?;
        }
        if let Some(imm) = &vop.imm {
            self.immediate(imm, registers, labels)?;
        }
        Ok(())
    }

    /// Starts a VOP field by field, for writers that do not build a [`Vop`]: writes the mask (of `fields`, the
    /// presence bits of A8.1, and the canonical opn/opr form) and the opcode and operator numbers. The caller then
    /// writes exactly the fields in `fields`, in stream order (B47): `prd`, `type`, `stype`, `dst`, `srca` to `srcd`,
    /// `imm`.
    #[inline]
    pub fn begin(&mut self, opn: u32, opr: u32, fields: u32) -> Result<(), EncodeError> {
        if opn == 0 {
            return Err(EncodeError::Vop("opcode number 0 is reserved"));
        }
        let mask = form(opn, opr) | (fields & !3);
        let cell = self.mask_cells.get_mut(mask as usize).ok_or(EncodeError::Vop("mask bits above bit 10"))?;
        match self.masks.find_or_push_at(&mask, cell) {
            Some(i) => self.out.uvli32((i as u32) << 2),
            None => self.out.uvli32(mask),
        }
        match mask & 3 {
            1 => self.out.uvli32(opn),
            // The canonical rule chose this form only for interleaves below 128.
            2 => self.out.uvli32(interleave(opn, opr) as u32),
            _ => {
                self.out.uvli32(opn);
                self.out.uvli32(opr);
            }
        }
        Ok(())
    }

    /// Writes a type field through a caller-kept cell for it (see [`SearchMtf::find_or_push_at`]); every
    /// write of that type to this encoder must then go through this method with the same cell. `ty` must be in
    /// normal form ([`VopType::normalize`]), as a writer that chose the simple form when there is one has it.
    #[inline(always)]
    pub fn ty_at(&mut self, ty: VopType, cell: &mut MtfCell) -> Result<(), EncodeError> {
        debug_assert_eq!(ty, ty.normalize(self.strings), "a type was not in normal form");
        match self.types.find_or_push_at(&ty, cell) {
            Some(i) => self.out.uvli32(VopType::repeat_word(i)),
            None => ty.write(self.out.vec(), self.strings)?,
        }
        Ok(())
    }

    /// Writes a register field (or an argument-list entry) through a caller-kept cell for it, like
    /// [`ty_at`](Self::ty_at).
    #[inline(always)]
    pub fn register_at(&mut self, register: &Register, cell: &mut MtfCell) -> Result<(), EncodeError> {
        match self.registers.find_or_push_at(register, cell) {
            Some(i) => self.out.uvli64(Register::write_repeat_word(i)),
            None => self.literal_register(register)?,
        }
        Ok(())
    }

    /// Writes the head of an argument-list immediate of `len` registers (tag 5, A11); the caller then writes the
    /// registers with [`register`](Self::register) or [`register_at`](Self::register_at).
    #[inline]
    pub fn begin_args(&mut self, len: u32) {
        self.out.uvli64(u64::from(len) << 4 | 5);
    }

    /// A register's own form: the common ones staged, the others appended by [`Register::write`].
    #[inline(always)]
    fn literal_register(&mut self, register: &Register) -> Result<(), WriteError> {
        match register.write_common_word() {
            Some(word) => self.out.uvli64(word),
            None => register.write(self.out.vec(), self.strings)?,
        }
        Ok(())
    }

    fn ty(&mut self, ty: VopType) -> Result<(), EncodeError> {
        let ty = ty.normalize(self.strings);
        match self.types.find_or_push(&ty) {
            Some(i) => VopType::write_repeat(self.out.vec(), i),
            None => ty.write(self.out.vec(), self.strings)?,
        }
        Ok(())
    }

    /// Writes a register field (or an argument-list entry), searching the register list.
    #[inline]
    pub fn register(&mut self, register: &Register) -> Result<(), EncodeError> {
        match self.registers.find_or_push(register) {
            Some(i) => self.out.uvli64(Register::write_repeat_word(i)),
            None => self.literal_register(register)?,
        }
        Ok(())
    }

    /// Writes an immediate; argument lists and jump tables take their entries from the pools.
    pub fn immediate(&mut self, imm: &Immediate, registers: &[Register], labels: &[u32]) -> Result<(), EncodeError> {
        // A listed immediate is a repeat; any other one of the MTF tags is pushed (the list is not read again
        // while the literal is written below).
        if imm.in_mtf() {
            if let Some(i) = self.immediates.find_or_push(imm) {
                self.out.uvli64((i as u64) << 4);
                return Ok(());
            }
        }
        let pool_error = |start: u32, len: u32| {
            EncodeError::Write(WriteError::PoolRange { start: start.into(), end: u64::from(start) + u64::from(len) })
        };
        match *imm {
            Immediate::Int(v) => {
                let (magnitude, tag) = if v < 0 { (v.unsigned_abs(), 1) } else { (v as u64, 2) };
                if magnitude >= 1 << 60 {
                    return Err(WriteError::OutOfRange { what: "integer immediate", value: v.into() }.into());
                }
                self.out.uvli64(magnitude << 4 | tag);
            }
            Immediate::Label(label) => self.out.uvli64(u64::from(label) << 4 | 3),
            Immediate::String(index) => {
                check_index(index.into(), self.strings)?;
                self.out.uvli64(u64::from(index) << 4 | 4);
            }
            Immediate::ArgList { start, len } => {
                let args = pool_slice(registers, start, len).ok_or_else(|| pool_error(start, len))?;
                self.out.uvli64(u64::from(len) << 4 | 5);
                for register in args {
                    self.register(register)?;
                }
            }
            Immediate::JumpTable { base, start, len } => {
                let table = pool_slice(labels, start, len).filter(|t| !t.is_empty());
                let table = table.ok_or_else(|| pool_error(start, len))?;
                self.out.uvli64(u64::from(len - 1) << 4 | 6);
                self.out.uvli64(fold(base));
                for &label in table {
                    self.out.uvli32(label);
                }
            }
            Immediate::Field { literal, field } => match field_interleaved(literal, field) {
                Some(merged) => self.out.uvli64(merged << 4 | 7),
                None => {
                    self.out.uvli64(0x07);
                    self.out.uvli64(literal);
                    self.out.uvli64(field);
                }
            },
        }
        Ok(())
    }
}

/// Size of the [`StagedBytes`] block.
const STAGE: usize = 256;

/// The encoder's output: a fixed block in front of the `Vec`, so that a field costs one word store and an add rather
/// than the `Vec`'s length and capacity handling per byte. The block moves to the `Vec` when it is nearly full and
/// before anything is appended to the `Vec` directly ([`vec`](Self::vec)).
#[derive(Clone, Debug)]
struct StagedBytes {
    out: Vec<u8>,
    block: [u8; STAGE],
    len: usize,
}

impl StagedBytes {
    fn new(out: Vec<u8>) -> Self {
        StagedBytes { out, block: [0; STAGE], len: 0 }
    }

    /// Appends the shortest UVLI64 form of `value` (A4.1).
    #[inline(always)]
    fn uvli64(&mut self, value: u64) {
        let mut at = self.len;
        if at > STAGE - 8 {
            self.flush();
            at = 0;
        }
        if value < 0x80 {
            self.block[at] = value as u8;
            self.len = at + 1;
        } else if value < 1 << 56 {
            let (word, bytes) = write_uvli64_word(value);
            self.block[at..at + 8].copy_from_slice(&word.to_be_bytes());
            self.len = at + bytes;
        } else {
            write_uvli64(self.vec(), value);
        }
    }

    /// Appends the shortest UVLI32 form of `value` (A4.2), the UVLI64 form of the same number.
    #[inline(always)]
    fn uvli32(&mut self, value: u32) {
        self.uvli64(u64::from(value));
    }

    /// The `Vec`, with everything staged so far appended.
    fn vec(&mut self) -> &mut Vec<u8> {
        self.flush();
        &mut self.out
    }

    fn flush(&mut self) {
        self.out.extend_from_slice(&self.block[..self.len]);
        self.len = 0;
    }

    fn finish(mut self) -> Vec<u8> {
        self.flush();
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(base: u32) -> Register {
        Register::Temporary { base, seq: 0 }
    }

    fn int_type() -> VopType {
        VopType::Simple { level: 0, base: 0 }
    }

    fn binary_sub(dst: u32, a: u32) -> Vop {
        Vop {
            opr: 1,
            ty: Some(int_type()),
            dst: Some(t(dst)),
            srca: Some(t(a)),
            srcb: Some(Register::Arg { base: 0, seq: 0 }),
            ..Vop::new(opcode::BINARY)
        }
    }

    /// A8.3's two-VOP example, byte for byte: mask, type and register repeats.
    #[test]
    fn binary_sub_example() {
        let strings = StringTable::default();
        let stream = VopStream { vops: vec![binary_sub(3, 1), binary_sub(4, 3)], ..VopStream::default() };
        assert_eq!(stream.vops[0].mask(), 0x3E);
        let bytes = stream.write(&strings).unwrap();
        assert_eq!(bytes, [0x3E, 0x09, 0x01, 0x2A, 0x0A, 0x04, 0x00, 0x09, 0x03, 0x80, 0x82, 0x18, 0x10]);
        assert_eq!(VopStream::read(Reader::new(&bytes, 0), &strings).unwrap(), stream);
    }

    /// A8.3's opn/opr forms: opr 0 alone, merged below 128, separate otherwise.
    #[test]
    fn opn_opr_forms() {
        let strings = StringTable::default();
        let encode = |opn: u32, opr: u32| {
            let stream = VopStream { vops: vec![Vop { opr, ..Vop::new(opn) }], ..VopStream::default() };
            let bytes = stream.write(&strings).unwrap();
            assert_eq!(VopStream::read(Reader::new(&bytes, 0), &strings).unwrap(), stream);
            bytes
        };
        assert_eq!(encode(opcode::RETV, 0), [0x01, 0x0B]);
        assert_eq!(encode(opcode::BINARY, 1), [0x02, 0x09]);
        assert_eq!(encode(opcode::JCMP_ZERO, 1), [0x02, 0x29]);
        // COMPARE LT merges to 516, so it is written as two numbers.
        assert_eq!(interleave(opcode::COMPARE, 2), 516);
        assert_eq!(encode(opcode::COMPARE, 2), [0x03, 0x10, 0x02]);
    }

    fn immediate_bytes(imm: Immediate, stream: &VopStream) -> Vec<u8> {
        let strings = StringTable::default();
        let mut encoder = VopEncoder::new(&strings, Vec::new());
        encoder.immediate(&imm, &stream.registers, &stream.labels).unwrap();
        let bytes = encoder.finish();
        // Decode it back through a JMP carrying the immediate.
        let mut decoder = VopDecoder::new(Reader::new(&bytes, 0), &strings);
        let (mut registers, mut labels) = (Vec::new(), Vec::new());
        let back = decoder.immediate(&mut registers, &mut labels).unwrap();
        assert!(decoder.is_empty());
        let back_stream = VopStream { vops: vec![], registers, labels };
        match imm {
            Immediate::ArgList { .. } => assert_eq!(back_stream.args(&back), stream.args(&imm)),
            Immediate::JumpTable { base, .. } => {
                assert!(matches!(back, Immediate::JumpTable { base: b, .. } if b == base));
                assert_eq!(back_stream.table(&back), stream.table(&imm));
            }
            _ => assert_eq!(back, imm),
        }
        bytes
    }

    /// A11's examples, each with fresh MTF lists.
    #[test]
    fn immediate_examples() {
        let mut stream = VopStream::default();
        let empty = VopStream::default();
        assert_eq!(immediate_bytes(Immediate::Int(0), &empty), [0x02]);
        assert_eq!(immediate_bytes(Immediate::Int(5), &empty), [0x52]);
        assert_eq!(immediate_bytes(Immediate::Int(-5), &empty), [0x51]);
        assert_eq!(immediate_bytes(Immediate::Label(7), &empty), [0x73]);
        assert_eq!(immediate_bytes(Immediate::Field { literal: 3, field: 2 }, &empty), [0x80, 0xD7]);
        assert_eq!(immediate_bytes(Immediate::Field { literal: 0, field: 0 }, &empty), [0x07, 0x00, 0x00]);
        let big = Immediate::Field { literal: 1 << 40, field: 1 };
        assert_eq!(immediate_bytes(big, &empty)[0], 0x07);
        let args = stream.push_args(&[t(0), Register::Int(1)]);
        assert_eq!(immediate_bytes(args, &stream), [0x25, 0x02, 0x29]);
        let table = stream.push_jump_table(10, &[3, 4, 5], 6);
        assert_eq!(immediate_bytes(table, &stream), [0x36, 0x14, 0x03, 0x04, 0x05, 0x06]);
        assert_eq!(immediate_bytes(Immediate::String(1), &empty), [0x14]);
    }

    #[test]
    fn immediate_mtf_and_errors() {
        let strings = StringTable::default();
        let read = |bytes: &[u8]| {
            let mut decoder = VopDecoder::new(Reader::new(bytes, 0), &strings);
            let (mut registers, mut labels) = (Vec::new(), Vec::new());
            let mut out = Vec::new();
            while !decoder.is_empty() {
                out.push(decoder.immediate(&mut registers, &mut labels)?);
            }
            Ok::<_, FormatError>(out)
        };
        // Label 7, int 5, then a repeat of index 1 (the label); argument lists stay out of the list (B68).
        assert_eq!(
            read(&[0x73, 0x52, 0x05, 0x10]).unwrap(),
            [Immediate::Label(7), Immediate::Int(5), Immediate::ArgList { start: 0, len: 0 }, Immediate::Label(7)]
        );
        // A tag-1 zero reads as 0 (B69).
        assert_eq!(read(&[0x01]).unwrap(), [Immediate::Int(0)]);
        assert_eq!(
            read(&[0x00]).unwrap_err().kind,
            ErrorKind::RepeatOutOfRange { list: "immediate", index: 0, len: 0 }
        );
        for tag in 8..16u8 {
            assert_eq!(read(&[tag]).unwrap_err().kind, ErrorKind::ReservedImmediate { tag });
        }
        assert_eq!(read(&[0x24]).unwrap_err().kind, ErrorKind::StringIndexOutOfRange { index: 2, count: 2 });
        assert_eq!(
            read(&[0xF8, 0x10, 0x00, 0x00, 0x00, 0x03]).unwrap_err().kind,
            ErrorKind::LabelOutOfRange { value: 1 << 32 }
        );
        // A count that the remaining bytes cannot back is refused before anything is read for it.
        assert_eq!(read(&[0x90, 0x05]).unwrap_err().kind, ErrorKind::CountTooLarge { count: 256, remaining: 0 });
        assert_eq!(read(&[0x06, 0x00]).unwrap_err().kind, ErrorKind::CountTooLarge { count: 1, remaining: 0 });
    }

    #[test]
    fn mask_errors() {
        let strings = StringTable::default();
        let read = |bytes: &[u8]| VopStream::read(Reader::new(bytes, 0), &strings);
        assert_eq!(read(&[0x00]).unwrap_err().kind, ErrorKind::RepeatOutOfRange { list: "mask", index: 0, len: 0 });
        assert_eq!(read(&[0x88, 0x01, 0x01]).unwrap_err().kind, ErrorKind::ReservedMaskBits { mask: 0x801 });
        assert_eq!(read(&[0x01, 0x00]).unwrap_err(), FormatError::new(ErrorKind::ReservedOpcode, 1));
        assert_eq!(read(&[0x01]).unwrap_err().kind, ErrorKind::UnexpectedEof { needed: 1 });
        // Two RETVs: the second repeats the mask.
        let two = read(&[0x01, 0x0B, 0x00, 0x0B]).unwrap();
        assert_eq!(two.vops, [Vop::new(opcode::RETV); 2]);
        assert_eq!(
            read(&[0x05, 0x0B, 0x03]).unwrap_err().kind,
            ErrorKind::RepeatOutOfRange { list: "type", index: 0, len: 0 }
        );
        assert_eq!(
            read(&[0x09, 0x05, 0x00]).unwrap_err().kind,
            ErrorKind::RepeatOutOfRange { list: "register", index: 0, len: 0 }
        );
    }

    #[test]
    fn encoder_refuses_what_the_decoder_would() {
        let strings = StringTable::default();
        let write = |vop: Vop, stream: &VopStream| {
            VopStream { vops: vec![vop], registers: stream.registers.clone(), labels: stream.labels.clone() }
                .write(&strings)
        };
        let empty = VopStream::default();
        assert!(write(Vop::new(0), &empty).is_err());
        assert!(write(Vop { imm: Some(Immediate::Int(1 << 60)), ..Vop::new(1) }, &empty).is_err());
        assert!(write(Vop { imm: Some(Immediate::Int(-(1 << 60) + 1)), ..Vop::new(1) }, &empty).is_ok());
        assert!(write(Vop { imm: Some(Immediate::ArgList { start: 0, len: 1 }), ..Vop::new(1) }, &empty).is_err());
        assert!(write(Vop { imm: Some(Immediate::JumpTable { base: 0, start: 0, len: 0 }), ..Vop::new(1) }, &empty)
            .is_err());
        assert!(write(Vop { ty: Some(VopType::Signature(2)), ..Vop::new(1) }, &empty).is_err());
        assert!(write(Vop { ty: Some(VopType::Simple { level: 16, base: 0 }), ..Vop::new(1) }, &empty).is_err());
        assert!(write(Vop { ty: Some(VopType::Simple { level: 0, base: 4 }), ..Vop::new(1) }, &empty).is_err());
    }

    /// The "typical mask" column of C5 follows from the fields and the opn/opr rule.
    #[test]
    fn typical_masks_of_the_whale_profile() {
        let (ty, reg, imm) = (Some(int_type()), Some(t(0)), Some(Immediate::Int(0)));
        let vop = |opn: u32, opr: u32| Vop { opr, ..Vop::new(opn) };
        let cases = [
            (Vop { imm, ..vop(opcode::LABEL, 0) }, 0x41),
            (Vop { ty, dst: reg, srca: reg, imm, ..vop(opcode::X_PHI, 0) }, 0x5D),
            (Vop { ty, dst: reg, srca: reg, ..vop(opcode::MOV, 0) }, 0x1D),
            (Vop { ty, dst: reg, srca: reg, ..vop(opcode::UNARY, 2) }, 0x1E),
            (Vop { ty, dst: reg, srca: reg, srcb: reg, ..vop(opcode::BINARY, 0) }, 0x3D),
            (Vop { ty, dst: reg, srca: reg, srcb: reg, ..vop(opcode::BINARY, 1) }, 0x3E),
            (Vop { ty, dst: reg, srca: reg, srcb: reg, ..vop(opcode::BINARY, 0x11) }, 0x3F),
            (Vop { ty, stype: ty, dst: reg, srca: reg, srcb: reg, srcc: reg, ..vop(opcode::CSELCMP_Z, 1) }, 0x33F),
            (Vop { ty, stype: ty, dst: reg, srca: reg, ..vop(opcode::CONV, 3) }, 0x11F),
            (Vop { ty, dst: reg, srca: reg, imm, ..vop(opcode::LDIXIMM, 4) }, 0x5F),
            (Vop { srca: reg, srcb: reg, srcc: reg, ..vop(opcode::X_MEMCPY, 8) }, 0x233),
            (Vop { ty, srca: reg, imm, ..vop(opcode::CALL, 0) }, 0x55),
            (Vop { ty, srca: reg, imm, ..vop(opcode::JCMP_ZERO, 1) }, 0x56),
            (Vop { ty, srca: reg, srcb: reg, imm, ..vop(opcode::JCMP, 0) }, 0x75),
            (Vop { ty, dst: reg, srca: reg, srcb: reg, ..vop(opcode::X_CHECKED, 4) }, 0x3F),
            (Vop { ty, dst: reg, srca: reg, ..vop(opcode::LDAVAR, 8) }, 0x1F),
            (Vop { ty, srca: reg, ..vop(opcode::RET, 0) }, 0x15),
            (vop(opcode::RETV, 0), 0x01),
            (Vop { ty, dst: reg, ..vop(opcode::X_UNDEF, 0) }, 0x0D),
        ];
        for (vop, mask) in cases {
            assert_eq!(vop.mask(), mask, "{}", opcode::name(vop.opn).unwrap());
        }
    }

    #[test]
    fn opcode_names() {
        assert_eq!(opcode::name(opcode::BINARY), Some("BINARY"));
        assert_eq!(opcode::name(opcode::CALL_INTRIN), Some("CALL_INTRIN"));
        assert_eq!(opcode::name(opcode::X_UNINIT), Some("X_UNINIT"));
        assert_eq!(opcode::name(0), None);
        assert_eq!(opcode::name(0x30), None);
    }
}
