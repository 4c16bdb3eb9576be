//! An annotated listing of an image, like `wasm-tools dump`: every byte of the input, in order, with its offset and
//! what it means: the TLV tree, the string table, LITD and GBLD entries with their attributes (the Whale extension
//! tags named), every VOP and every trace record.
//!
//! The listing works on the format layer only, so it shows images from any writer, Whale-profile or not. Each line
//! covers the bytes between a cursor and the next item; a gap (bytes no item claims) would be printed as
//! `(unattributed)`, and the walk ends by checking that the cursor reached the end of the input, so every byte is
//! attributed exactly once.
//!
//! The verdict is the reader's: after the walk, [`Image::validate`] (the reader's own walk without its model, default
//! limits) decides, so the dump fails exactly when [`Image::read`] does, with the same error. That covers what the
//! listing does not check: a string table that does not read (its strings are then not shown), string indices out
//! of range, broken function-body links. It costs one more pass over the image but no model, where a listing that
//! checked everything itself would repeat the reader's rules and could drift from them.
//!
//! The walk stops only where it cannot go on: where the TLV structure breaks, or the VOPs, traces, string index or
//! `strz` size do not decode. The listing so far stays in the output with a last line saying why, which is what one
//! wants when debugging a broken writer. Everything the walk decodes but the format layer keeps opaque (the Whale
//! profile's extension tags, the insides of unknown tags and entries) is listed as "not decodable" instead of
//! refused, and the walk checks nesting depth where the reader does, so it never stops on an image the reader
//! accepts.
//!
//! The listing streams: lines go through a bounded buffer to the caller's writer (`sink.rs`), so a dump holds the
//! image, its string table and one buffer, never the listing, which is about 17 times the image.

mod sink;

use std::fmt::Write as _;
use std::io;

use crate::format::immediate::Immediate;
use crate::format::limits::Limits;
use crate::format::reader::Reader;
use crate::format::register::Register;
use crate::format::strings::{StringTable, StringValue};
use crate::format::tlv::{read_chunk, Chunk, HeaderForm, Tag};
use crate::format::type_id::VopType;
use crate::format::vop::{opcode, VopDecoder};
use crate::format::{mutf8, ErrorKind, FormatError, Image};
use crate::profile;

use sink::{Sink, ROW};

/// Why a listing failed.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// The writer failed; its error, unchanged (a closed pipe is [`io::ErrorKind::BrokenPipe`]). The listing stops
    /// there.
    #[error("cannot write the listing: {0}")]
    Io(#[source] io::Error),
    /// The image is malformed: the error of the format layer's reader. The listing written before it shows
    /// everything up to the problem.
    #[error(transparent)]
    Format(#[from] FormatError),
}

/// Writes the listing of `bytes` to `out`, and fails exactly when the format layer's reader ([`Image::read`]) would,
/// with its error ([`DumpError::Format`]). On a malformed image the listing goes up to the problem (and a last line
/// says why it stops there), or to the end when the problem is one the listing can step over, and is written out
/// before the error is returned.
///
/// The listing is buffered here and handed to `out` in blocks of about 64 KiB, so `out` needs no buffering of its
/// own, and memory stays proportional to the image, not to the listing. When `out` fails, the dump stops and returns
/// its error ([`DumpError::Io`]), even on a malformed image, since the listing is then incomplete.
///
/// ```
/// let empty = [0x22, 0x00, 0x00, 0x00, b'F', b'R', b'2', b'E'];
/// let mut listing = Vec::new();
/// fr2e::dump(&empty, &mut listing).unwrap();
/// assert_eq!(listing, b"       0 | 22 00 00 00 46 52 32 45 | `FR2E` chunk, 8 bytes (DWORD+FOURCC header)\n");
///
/// // A `strz` whose data cannot be what it declares: listed whole, then refused as the reader refuses it.
/// let strz = [0x52, 0, 0, 0, b'F', b'R', b'2', b'E', 0x2A, 0, 0, 0, b's', b't', b'r', b'z', 0x7F, 0x10];
/// let result = fr2e::dump(&strz, &mut listing);
/// assert!(matches!(result, Err(fr2e::DumpError::Format(e)) if e == fr2e::format::Image::read(&strz).unwrap_err()));
/// ```
pub fn dump(bytes: &[u8], out: &mut dyn io::Write) -> Result<(), DumpError> {
    let limits = Limits::default();
    let mut sink = Sink::new(out);
    let walked = walk(bytes, &limits, &mut sink);
    if let Err(DumpError::Io(e)) = walked {
        return Err(DumpError::Io(e));
    }
    // The listing goes out before the verdict, which is the reader's. A walk that stopped met an error the reader
    // meets too, perhaps after another one; its own error only stands in should the two ever disagree.
    sink.finish().map_err(DumpError::Io)?;
    Image::validate_with_limits(bytes, &limits)?;
    walked
}

/// Lists `bytes` into `sink`; where the walk cannot go on, a last line says why.
fn walk(bytes: &[u8], limits: &Limits, sink: &mut Sink<'_>) -> Result<(), DumpError> {
    // The string table first: string tags, Type IDs and VOPs need it.
    let strings = string_table(bytes, limits);
    let mut d = Dumper { bytes, out: sink, cursor: 0, depth: 0, limits: *limits, strings: strings.as_ref() };
    match d.image() {
        Err(DumpError::Format(e)) => {
            d.note(&format!("(the listing stops here: {e})"))?;
            Err(DumpError::Format(e))
        }
        walked => walked,
    }
}

/// The image's string table, or `None` when it does not read: its strings are then not shown, and the check after
/// the walk reports why.
fn string_table(bytes: &[u8], limits: &Limits) -> Option<StringTable> {
    let root = read_chunk(&mut Reader::new(bytes, 0)).ok()?;
    let (mut strs, mut strz, mut stri) = (None, None, None);
    for child in root.children() {
        let child = child.ok()?;
        match child.tag {
            Tag::STRS => strs = Some(child),
            Tag::STRZ => strz = Some(child),
            Tag::STRI => stri = Some(child),
            _ => {}
        }
    }
    StringTable::read(strs.as_ref(), strz.as_ref(), stri.as_ref(), limits).ok().map(|(table, _)| table)
}

struct Dumper<'a, 'o, 'w> {
    bytes: &'a [u8],
    out: &'o mut Sink<'w>,
    /// Offset of the first byte not listed yet.
    cursor: u64,
    depth: usize,
    limits: Limits,
    strings: Option<&'a StringTable>,
}

/// A line's text, or, for a payload that does not decode, the chunk's tag and the reason.
fn undecoded(chunk: &Chunk<'_>, text: Result<String, FormatError>) -> String {
    text.unwrap_or_else(|e| format!("{} chunk, not decodable: {}", chunk.tag, e.kind))
}

fn form_name(form: HeaderForm) -> &'static str {
    match form {
        HeaderForm::Word => "WORD+TWOCC",
        HeaderForm::Dword => "DWORD+TWOCC",
        HeaderForm::Fourcc => "DWORD+FOURCC",
        HeaderForm::Small => "small",
    }
}

/// A register as `T3` (sequence shown when not 0), `A0`, `L1`, `G2`, `&G2`, or a typed constant.
fn register_text(r: &Register) -> String {
    let seq = |s: u32| if s == 0 { String::new() } else { format!(".{s}") };
    match *r {
        Register::Temporary { base, seq: s } => format!("T{base}{}", seq(s)),
        Register::Arg { base, seq: s } => format!("A{base}{}", seq(s)),
        Register::Local { base, seq: s } => format!("L{base}{}", seq(s)),
        Register::Global(i) => format!("G{i}"),
        Register::Literal(i) => format!("LIT{i}"),
        Register::Int(v) => format!("int {v}"),
        Register::String(i) => format!("string #{i}"),
        Register::GlobalAddress(i) => format!("&G{i}"),
        Register::Subtyped { subtype, value } => format!("{subtype:?} {value}"),
        Register::Long(v) => format!("long {v}"),
        Register::WideString(i) => format!("wide string #{i}"),
        Register::This { field, levels } => format!("this field {field} up {levels}"),
        Register::RawLong(v) => format!("raw long {v}"),
        Register::RawDouble(bits) => format!("raw double {bits:#018x}"),
        Register::RawInt128 { low, high } => {
            format!("raw int128 {}", (i128::from(high) << 64) | i128::from(low as u64))
        }
        Register::RawFloat128 { low, high } => format!("raw float128 {high:#x}:{low:016x}"),
    }
}

impl Dumper<'_, '_, '_> {
    /// The whole image: the root chunk, then each child in order.
    fn image(&mut self) -> Result<(), DumpError> {
        let mut r = Reader::new(self.bytes, 0);
        let root = read_chunk(&mut r)?;
        self.header(&root, "")?;
        if root.tag != Tag::FR2E {
            return Err(FormatError::new(ErrorKind::NotAnImage { tag: root.tag }, 0).into());
        }
        r.finish("image")?;
        self.depth = 1;
        for child in root.children() {
            self.root_child(&child?)?;
        }
        self.finish()
    }

    /// Lists `len` bytes from `start` with `text` on the first line (more rows for long items).
    fn emit(&mut self, start: u64, len: usize, text: &str) -> Result<(), DumpError> {
        if start > self.cursor {
            let gap = (start - self.cursor) as usize;
            self.emit(self.cursor, gap, "(unattributed)")?;
        }
        let from = start as usize;
        let slice = &self.bytes[from.min(self.bytes.len())..(from + len).min(self.bytes.len())];
        if slice.is_empty() {
            return self.note(text);
        }
        for (i, row) in slice.chunks(ROW).enumerate() {
            let offset = start + (i * ROW) as u64;
            let text = if i == 0 { text } else { "" };
            self.out.line(Some(offset), row, self.depth, text).map_err(DumpError::Io)?;
        }
        self.cursor = start + slice.len() as u64;
        Ok(())
    }

    /// A line with no bytes of its own.
    fn note(&mut self, text: &str) -> Result<(), DumpError> {
        self.out.line(None, &[], self.depth, text).map_err(DumpError::Io)
    }

    fn finish(&mut self) -> Result<(), DumpError> {
        let end = self.bytes.len() as u64;
        if self.cursor < end {
            self.emit(self.cursor, (end - self.cursor) as usize, "(unattributed)")?;
        }
        debug_assert_eq!(self.cursor, end);
        Ok(())
    }

    /// Fails when a chunk at TLV depth `depth` (the root is 1) is deeper than the limit.
    fn check_depth(&self, chunk: &Chunk<'_>, depth: u32) -> Result<(), FormatError> {
        if depth > self.limits.max_tlv_depth {
            return Err(FormatError::new(ErrorKind::NestingTooDeep { limit: self.limits.max_tlv_depth }, chunk.offset));
        }
        Ok(())
    }

    fn header(&mut self, chunk: &Chunk<'_>, what: &str) -> Result<(), DumpError> {
        let len = usize::from(chunk.form.header_len());
        let text = format!("{} chunk, {} bytes ({} header){what}", chunk.tag, chunk.len(), form_name(chunk.form));
        self.emit(chunk.offset, len, &text)
    }

    /// A string tag's meaning, for listings.
    fn string_tag(&self, r: &mut Reader<'_>) -> Result<String, FormatError> {
        let at = r.offset();
        match r.svli()? {
            -1 => {
                let bytes = r.until_nul()?;
                let text =
                    mutf8::decode(bytes).map_err(|i| FormatError::new(ErrorKind::InvalidMutf8, at + 1 + i as u64))?;
                Ok(format!("{text:?} (inline)"))
            }
            v @ 0.. => Ok(self.string_index(v as u64)),
            value => Err(FormatError::new(ErrorKind::ReservedStringTag { value }, at)),
        }
    }

    fn string_index(&self, index: u64) -> String {
        match self.strings.and_then(|s| s.get(index)) {
            Some(StringValue::Null) => "NULL (#0)".to_string(),
            Some(StringValue::Text(t)) => format!("{t:?} (#{index})"),
            None => format!("string #{index} (out of range)"),
        }
    }

    fn vop_type(&self, t: &Option<VopType>) -> Option<String> {
        let t = t.as_ref()?;
        Some(match self.strings {
            Some(s) => t.signature(s).unwrap_or_else(|| format!("{t:?}")),
            None => format!("{t:?}"),
        })
    }

    /// One child of the root (TLV depth 2).
    fn root_child(&mut self, chunk: &Chunk<'_>) -> Result<(), DumpError> {
        let payload_at = chunk.payload_offset();
        match chunk.tag {
            Tag::STRS => {
                self.header(chunk, ": string data")?;
                self.depth += 1;
                // Each piece is labelled with the first table string starting there: the (offset, index) pairs in
                // order, walked once beside the pieces. Shared offsets and offsets inside a string are legal (B22).
                let offsets = self.strings.map(StringTable::offsets).unwrap_or_default();
                let mut starts: Vec<(u32, usize)> = offsets.iter().enumerate().map(|(j, &o)| (o, j)).collect();
                starts.sort_unstable();
                let mut starts = starts.into_iter().peekable();
                let mut at = 0usize;
                for piece in chunk.payload.split_inclusive(|&b| b == 0) {
                    while starts.next_if(|&(o, _)| (o as usize) < at).is_some() {}
                    let index = starts.peek().filter(|&&(o, _)| o as usize == at).map(|&(_, j)| format!(" #{}", j + 2));
                    let text = String::from_utf8_lossy(piece.strip_suffix(&[0]).unwrap_or(piece)).into_owned();
                    let label = format!("{text:?}{}", index.unwrap_or_default());
                    self.emit(payload_at + at as u64, piece.len(), &label)?;
                    at += piece.len();
                }
                self.depth -= 1;
            }
            Tag::STRZ => {
                self.header(chunk, ": compressed string data")?;
                self.depth += 1;
                let mut r = chunk.reader();
                let size = r.uvli64()?;
                self.emit(payload_at, (r.offset() - payload_at) as usize, &format!("{size} bytes uncompressed"))?;
                self.emit(r.offset(), r.remaining(), "LZ4 block")?;
                if let Some(strings) = self.strings {
                    for j in 0..strings.offsets().len() as u64 {
                        let text = self.string_index(j + 2);
                        self.note(&format!("#{} = {text}", j + 2))?;
                    }
                }
                self.depth -= 1;
            }
            Tag::STRI => {
                self.header(chunk, ": string index")?;
                self.depth += 1;
                let mut r = chunk.reader();
                let (mut offset, mut index) = (0u64, 2u64);
                while !r.is_empty() {
                    let at = r.offset();
                    let delta = r.uvli32()?;
                    offset += u64::from(delta);
                    self.emit(at, (r.offset() - at) as usize, &format!("#{index} at offset {offset} (+{delta})"))?;
                    index += 1;
                }
                self.depth -= 1;
            }
            Tag::VOPS => self.vops(chunk)?,
            Tag::VTRS => self.traces(chunk)?,
            Tag::LITD | Tag::GBLD => {
                self.header(chunk, if chunk.tag == Tag::LITD { ": literal table" } else { ": global table" })?;
                self.depth += 1;
                for (i, entry) in chunk.children().enumerate() {
                    let entry = entry?;
                    self.header(&entry, &format!(": entry #{}", i + 1))?;
                    if entry.tag.is_compound() {
                        self.compound(&entry, 3)?;
                    } else {
                        self.depth += 1;
                        self.emit(entry.payload_offset(), entry.payload.len(), "payload")?;
                        self.depth -= 1;
                    }
                }
                self.depth -= 1;
            }
            // The Whale profile's root extensions (C9); the format layer keeps them verbatim, so a payload that does
            // not decode is listed as such, not refused.
            profile::TAG_TARGET => {
                let text = self.string_tag(&mut chunk.reader()).map(|text| format!("0x14 target {text}"));
                self.emit(chunk.offset, chunk.len() as usize, &undecoded(chunk, text))?;
            }
            profile::TAG_DATALAYOUT => {
                let mut r = chunk.reader();
                let text = (|| {
                    let (bits, endian) = (r.uvli32()?, r.uvli32()?);
                    let endian = if endian == 0 { "little" } else { "big" };
                    Ok(format!("0x15 datalayout ptr={bits}, endian={endian}"))
                })();
                self.emit(chunk.offset, chunk.len() as usize, &undecoded(chunk, text))?;
            }
            _ => self.attribute(chunk, 2)?,
        }
        Ok(())
    }

    /// The children of an entry, list or variable at TLV depth `depth`.
    fn compound(&mut self, chunk: &Chunk<'_>, depth: u32) -> Result<(), DumpError> {
        self.check_depth(chunk, depth)?;
        self.depth += 1;
        for (k, child) in chunk.children().enumerate() {
            let child = child?;
            match child.tag {
                Tag::FIELDS | Tag::ARGS | Tag::LOCALS | Tag::TEMPORARIES | Tag::STATICS => {
                    let what = match child.tag {
                        Tag::FIELDS => "fields",
                        Tag::ARGS => "arguments",
                        Tag::LOCALS => "locals",
                        Tag::TEMPORARIES => "temporaries",
                        _ => "statics",
                    };
                    self.header(&child, &format!(": {what}"))?;
                    self.compound(&child, depth + 1)?;
                }
                Tag::VARIABLE => {
                    self.header(&child, &format!(": variable {k}"))?;
                    self.compound(&child, depth + 1)?;
                }
                _ => self.attribute(&child, depth + 1)?,
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// A data attribute at TLV depth `depth`, listed whole (header and payload) with its meaning; unknown compound
    /// tags are walked. Only the TLV structure can fail here: a payload that does not decode is listed as such,
    /// since the format layer decodes none of it in some places (extensions, unknown entries) and, where it does,
    /// the check after the walk reports it.
    fn attribute(&mut self, chunk: &Chunk<'_>, depth: u32) -> Result<(), DumpError> {
        if chunk.tag.is_compound() {
            self.check_depth(chunk, depth)?;
            self.header(chunk, ": unknown compound tag")?;
            self.depth += 1;
            for child in chunk.children() {
                self.attribute(&child?, depth + 1)?;
            }
            self.depth -= 1;
            return Ok(());
        }
        let text = self.describe(chunk);
        self.emit(chunk.offset, chunk.len() as usize, &undecoded(chunk, text))?;
        Ok(())
    }

    /// The meaning of a data attribute, or why its payload does not decode.
    fn describe(&self, chunk: &Chunk<'_>) -> Result<String, FormatError> {
        let mut r = chunk.reader();
        let text = match chunk.tag {
            Tag::NAME => format!("n name {}", self.string_tag(&mut r)?),
            Tag::QNAME => format!("q link name {}", self.string_tag(&mut r)?),
            Tag::SIGNATURE => format!("s signature {}", self.string_tag(&mut r)?),
            Tag::FLAGS => format!("f flags {}", self.string_tag(&mut r)?),
            Tag::VALUE => match self.strings {
                Some(s) => format!("v value {}", register_text(&Register::read_context_free(&mut r, s)?)),
                None => "v value".to_string(),
            },
            Tag::TRACE => format!("t function-body header #{}", r.uvli32()?),
            profile::TAG_VALUE_ID => format!("0x10 ValueId %v{}", r.uvli32()?),
            profile::TAG_BLOCK_TABLE => {
                let mut blocks = Vec::new();
                while !r.is_empty() {
                    let id = r.uvli32()?;
                    blocks.push(format!("%b{id} {}", self.string_tag(&mut r)?));
                }
                format!("0x11 blocks: {}", blocks.join(", "))
            }
            profile::TAG_SYNTHESIZED => "0x12 synthesized declaration".to_string(),
            profile::TAG_ALIGN => format!("0x13 align {}", r.uvli64()?),
            profile::TAG_WHALE_ID => format!("0x16 Whale id {}", r.uvli32()?),
            profile::TAG_INIT_EXPR => "0x17 init_expr tree".to_string(),
            profile::TAG_CONST_DECLS => "0x18 const_decl records".to_string(),
            Tag::LONG_STRING_ATTRIBUTE | Tag::SHORT_STRING_ATTRIBUTE => {
                format!("keyed attribute {} = {}", self.string_tag(&mut r)?, self.string_tag(&mut r)?)
            }
            Tag::INTEGER_ATTRIBUTE => format!("keyed attribute {} = {}", self.string_tag(&mut r)?, r.svli()?),
            tag => format!("{tag} unknown data tag"),
        };
        Ok(text)
    }

    fn vops(&mut self, chunk: &Chunk<'_>) -> Result<(), DumpError> {
        self.header(chunk, ": virtual opcodes")?;
        let Some(strings) = self.strings else {
            self.emit(chunk.payload_offset(), chunk.payload.len(), "(no valid string table: VOPs not decoded)")?;
            return Ok(());
        };
        self.depth += 1;
        let mut decoder = VopDecoder::new(chunk.reader(), strings);
        let (mut registers, mut labels) = (Vec::new(), Vec::new());
        let mut n = 0u64;
        while !decoder.is_empty() {
            let at = decoder.offset();
            registers.clear();
            labels.clear();
            let repeat = self.bytes.get(at as usize).is_some_and(|b| b & 3 == 0);
            let vop = decoder.next_vop(&mut registers, &mut labels)?;
            let mut text = format!(
                "#{n} {}",
                opcode::name(vop.opn).map_or_else(|| format!("opcode {:#x}", vop.opn), str::to_string)
            );
            if vop.opr != 0 {
                let _ = write!(text, "/{:#x}", vop.opr);
            }
            let _ = write!(text, " mask {:#x}{}", vop.mask(), if repeat { " (repeat)" } else { "" });
            if let Some(prd) = vop.prd {
                let _ = write!(text, " prd {prd}");
            }
            if let Some(t) = self.vop_type(&vop.ty) {
                let _ = write!(text, " type {t}");
            }
            if let Some(t) = self.vop_type(&vop.stype) {
                let _ = write!(text, " stype {t}");
            }
            for (name, r) in ["dst", "srca", "srcb", "srcc", "srcd"].iter().zip(vop.registers()) {
                if let Some(r) = r {
                    let _ = write!(text, " {name} {}", register_text(&r));
                }
            }
            match vop.imm {
                None => {}
                Some(Immediate::Int(v)) => {
                    let _ = write!(text, " imm {v}");
                }
                Some(Immediate::Label(l)) => {
                    let _ = write!(text, " label {l}");
                }
                Some(Immediate::String(i)) => {
                    let _ = write!(text, " imm {}", self.string_index(i.into()));
                }
                Some(Immediate::ArgList { .. }) => {
                    let list: Vec<String> = registers.iter().map(register_text).collect();
                    let _ = write!(text, " args ({})", list.join(", "));
                }
                Some(Immediate::JumpTable { base, .. }) => {
                    let _ = write!(text, " table base {base} labels {labels:?} (last = default)");
                }
                Some(Immediate::Field { literal, field }) => {
                    let _ = write!(text, " field {field} of LITD #{literal}");
                }
            }
            self.emit(at, (decoder.offset() - at) as usize, &text)?;
            n += 1;
        }
        self.depth -= 1;
        Ok(())
    }

    fn traces(&mut self, chunk: &Chunk<'_>) -> Result<(), DumpError> {
        self.header(chunk, ": traces and function-body headers")?;
        self.depth += 1;
        let mut r = chunk.reader();
        let mut record = 0u64;
        while !r.is_empty() {
            let at = r.offset();
            let (a, b, c) = (r.svli()?, r.svli()?, r.svli()?);
            let text = if b >= 0 {
                // A function's first trace holds minus its absolute start; later ones an offset from it (B76).
                let start = if a <= 0 { format!("VOP {} (if first of its function)", -a) } else { format!("+{a}") };
                format!("#{record} trace: {b} VOPs from {start}, flags {c}")
            } else {
                format!(
                    "#{record} header: {} traces from #{}, GBLD entry #{}",
                    b.unsigned_abs(),
                    a.unsigned_abs(),
                    c.unsigned_abs()
                )
            };
            self.emit(at, (r.offset() - at) as usize, &text)?;
            record += 1;
        }
        self.depth -= 1;
        Ok(())
    }
}
