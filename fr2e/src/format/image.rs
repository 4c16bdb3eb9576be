//! A whole FR2E image (`fr2e.md` A3): the root chunk and everything in it, read into an [`Image`] and written back.
//!
//! An image is exactly one DWORD+FOURCC `FR2E` chunk whose length is the input length (B9). Its children may come in
//! any order; each tag appears at most once (B10), the keyed attributes 0x80-0x82 excepted, and tags the root does not
//! define are kept verbatim as extensions (the Whale profile's 0x14 target and 0x15 datalayout among them, C9). The
//! string table is read first, because string tags, Type IDs and string registers are checked against it; `vtrs` is
//! read before `GBLD`, so every `t` attribute is checked against its function-body header (A12, B77).
//!
//! [`Image::validate`] makes the same walk without keeping the VOPs and entries, for callers that only need the
//! verdict (the listing does, to fail exactly when the reader would): one function, so the two cannot disagree.
//!
//! The writer emits the canonical root order `strs stri vops vtrs LITD GBLD`, then extensions in ascending tag value
//! (A3, A14), and leaves empty chunks out. `strz` replaces `strs` when [`Image::compress_strings`] is set and there is
//! string data (project decision 3).

use super::entry::{
    add_extension, is_keyed, read_table_with_traces, write_table, write_trailer, Context, Entry, Extensions,
    KeyedAttribute, Table,
};
use super::error::{ErrorKind, FormatError, WriteError};
use super::limits::Limits;
use super::reader::Reader;
use super::strings::StringTable;
use super::tlv::{read_chunk, write_chunk, write_data_chunk, Chunk, Tag};
use super::trace::{function_traces, read_traces, write_traces, TraceRecord};
use super::vop::{VopDecoder, VopStream};

/// The format model of one image.
///
/// ```
/// use fr2e::format::{Image, Tag};
///
/// // A3: the empty image is a bare FR2E header.
/// let empty = [0x22, 0x00, 0x00, 0x00, b'F', b'R', b'2', b'E'];
/// let mut image = Image::read(&empty).unwrap();
/// assert_eq!(image, Image::default());
/// // A root extension (the Whale profile's 0x14 target, an inline string tag) round-trips verbatim.
/// image.extensions.insert(Tag::byte(0x14), vec![0x01, b'x', 0x00]);
/// let bytes = image.write().unwrap();
/// assert_eq!(Image::read(&bytes).unwrap(), image);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    /// The string table (`strs`/`strz` and `stri`).
    pub strings: StringTable,
    /// Whether the string data is stored as `strz` (only meaningful when there is string data).
    pub compress_strings: bool,
    /// The `vops` stream.
    pub vops: VopStream,
    /// The `vtrs` records.
    pub traces: Vec<TraceRecord>,
    /// `LITD` entries; entry k has index k + 1.
    pub literals: Vec<Entry>,
    /// `GBLD` entries; entry k has index k + 1.
    pub globals: Vec<Entry>,
    /// Root tags without a defined meaning, verbatim.
    pub extensions: Extensions,
    /// Root keyed attributes, in order.
    pub keyed: Vec<KeyedAttribute>,
}

/// The tags the root defines.
const ROOT_TAGS: [Tag; 7] = [Tag::STRS, Tag::STRZ, Tag::STRI, Tag::VOPS, Tag::VTRS, Tag::LITD, Tag::GBLD];

impl Image {
    /// Reads an image with the default limits.
    pub fn read(bytes: &[u8]) -> Result<Image, FormatError> {
        Self::read_with_limits(bytes, &Limits::default())
    }

    /// Reads an image.
    pub fn read_with_limits(bytes: &[u8], limits: &Limits) -> Result<Image, FormatError> {
        read_image(bytes, limits, true)
    }

    /// Checks an image with the default limits: see [`validate_with_limits`](Self::validate_with_limits).
    pub fn validate(bytes: &[u8]) -> Result<(), FormatError> {
        Self::validate_with_limits(bytes, &Limits::default())
    }

    /// Checks that [`read_with_limits`](Self::read_with_limits) accepts `bytes`, without building the model: the
    /// result is `Ok` exactly when the read's is, and the error is the same. It is the same walk, but VOPs and table
    /// entries are dropped as soon as they are checked, so memory stays at the string table, the root's extensions, the
    /// trace records and one entry without its variables, where a read holds about 176 bytes per VOP and 150 per
    /// variable.
    ///
    /// ```
    /// let empty = [0x22, 0x00, 0x00, 0x00, b'F', b'R', b'2', b'E'];
    /// assert!(fr2e::format::Image::validate(&empty).is_ok());
    /// assert!(fr2e::format::Image::validate(&empty[..7]).is_err());
    /// ```
    pub fn validate_with_limits(bytes: &[u8], limits: &Limits) -> Result<(), FormatError> {
        read_image(bytes, limits, false).map(drop)
    }

    /// Writes the image canonically.
    pub fn write(&self) -> Result<Vec<u8>, WriteError> {
        let vop_count = self.vops.vops.len() as u64;
        for h in 0..self.traces.len() {
            if let TraceRecord::Header { .. } = self.traces[h] {
                function_traces(&self.traces, h as u64, vop_count).map_err(|(kind, _)| WriteError::Trace(kind))?;
            }
        }
        for (position, entry) in self.globals.iter().enumerate() {
            if let Entry::Known(data) = entry {
                if let Some(record) = data.trace {
                    check_link(&self.traces, position, record).map_err(WriteError::Trace)?;
                }
            }
        }
        let vops = self.vops.write(&self.strings)?;
        let vtrs = write_traces(&self.traces)?;
        let mut out = Vec::with_capacity(vops.len() + vtrs.len() + self.strings.data().len() + 64);
        write_chunk(&mut out, Tag::FR2E, |out| {
            let data = self.strings.data();
            if !data.is_empty() {
                if self.compress_strings {
                    write_data_chunk(out, Tag::STRZ, &self.strings.strz_payload())?;
                } else {
                    write_data_chunk(out, Tag::STRS, data)?;
                }
            }
            for (tag, payload) in [(Tag::STRI, self.strings.stri_payload()), (Tag::VOPS, vops), (Tag::VTRS, vtrs)] {
                if !payload.is_empty() {
                    write_data_chunk(out, tag, &payload)?;
                }
            }
            write_table(out, Table::Literal, &self.literals, &self.strings)?;
            write_table(out, Table::Global, &self.globals, &self.strings)?;
            write_trailer(out, &self.extensions, &self.keyed, &self.strings, Tag::FR2E, &|t| ROOT_TAGS.contains(&t))
        })?;
        Ok(out)
    }

    /// The VOP ranges of the traces of GBLD entry `position` (0-based), following its `t` attribute (A12).
    pub fn function_body(&self, position: usize) -> Option<Vec<std::ops::Range<u64>>> {
        let Entry::Known(data) = self.globals.get(position)? else { return None };
        function_traces(&self.traces, u64::from(data.trace?), self.vops.vops.len() as u64).ok()
    }
}

/// The one walk behind [`Image::read_with_limits`] and [`Image::validate_with_limits`]: with `keep`, the VOPs and the
/// table entries are stored in the image; without it they are checked and dropped, in the same order, so both give
/// the same first error.
fn read_image(bytes: &[u8], limits: &Limits, keep: bool) -> Result<Image, FormatError> {
    if limits.validate().is_err() {
        return Err(FormatError::new(ErrorKind::NestingTooDeep { limit: limits.max_tlv_depth }, 0));
    }
    let mut r = Reader::new(bytes, 0);
    let root = read_chunk(&mut r)?;
    if root.tag != Tag::FR2E {
        return Err(FormatError::new(ErrorKind::NotAnImage { tag: root.tag }, 0));
    }
    r.finish("image")?;

    let mut known: [Option<Chunk<'_>>; 7] = [None; 7];
    let mut image = Image::default();
    for child in root.children() {
        let child = child?;
        if let Some(slot) = ROOT_TAGS.iter().position(|&t| t == child.tag) {
            if known[slot].replace(child).is_some() {
                return Err(FormatError::new(ErrorKind::DuplicateTag { tag: child.tag }, child.offset));
            }
        } else if is_keyed(child.tag) {
            // Keys and values are string tags, which need the table: decoded below.
        } else {
            add_extension(&mut image.extensions, &child, 2, limits)?;
        }
    }
    let [strs, strz, stri, vops, vtrs, litd, gbld] = known;

    let (strings, compressed) = StringTable::read(strs.as_ref(), strz.as_ref(), stri.as_ref(), limits)?;
    image.strings = strings;
    image.compress_strings = compressed;
    for child in root.children() {
        let child = child?;
        if is_keyed(child.tag) {
            image.keyed.push(KeyedAttribute::read(&child, &image.strings)?);
        }
    }
    let mut vop_count = 0;
    if let Some(vops) = vops {
        if keep {
            image.vops = VopStream::read(vops.reader(), &image.strings)?;
            vop_count = image.vops.vops.len() as u64;
        } else {
            vop_count = count_vops(&vops, &image.strings)?;
        }
    }
    if let Some(vtrs) = vtrs {
        let (traces, offsets) = read_traces(vtrs.reader())?;
        for (h, record) in traces.iter().enumerate() {
            if let TraceRecord::Header { .. } = record {
                function_traces(&traces, h as u64, vop_count)
                    .map_err(|(kind, record)| FormatError::new(kind, offsets[record as usize]))?;
            }
        }
        image.traces = traces;
    }
    let cx = Context { strings: &image.strings, limits, keep };
    if let Some(litd) = litd {
        image.literals = read_table_with_traces(&litd, Table::Literal, cx, 2, &mut Vec::new())?;
    }
    if let Some(gbld) = gbld {
        let mut links = Vec::new();
        image.globals = read_table_with_traces(&gbld, Table::Global, cx, 2, &mut links)?;
        for link in links {
            check_link(&image.traces, link.position, link.record)
                .map_err(|kind| FormatError::new(kind, link.offset))?;
        }
    }
    Ok(image)
}

/// Decodes a `vops` chunk without keeping it: the number of VOPs, or the error [`VopStream::read`] would give. The
/// pools are cleared after each VOP; no check depends on their contents.
fn count_vops(chunk: &Chunk<'_>, strings: &StringTable) -> Result<u64, FormatError> {
    let (mut registers, mut labels) = (Vec::new(), Vec::new());
    let mut decoder = VopDecoder::new(chunk.reader(), strings);
    let mut count = 0u64;
    while !decoder.is_empty() {
        decoder.next_vop(&mut registers, &mut labels)?;
        registers.clear();
        labels.clear();
        count += 1;
    }
    Ok(count)
}

/// Checks that trace record `record`, named by the `t` of GBLD entry `position`, is a function-body header whose
/// gblid is the entry's own 1-based index (A12, B77).
fn check_link(traces: &[TraceRecord], position: usize, record: u32) -> Result<(), ErrorKind> {
    match traces.get(record as usize) {
        Some(&TraceRecord::Header { gblid, .. }) => {
            let expected = position as u64 + 1;
            if gblid == expected {
                Ok(())
            } else {
                Err(ErrorKind::HeaderGlobalMismatch { expected, found: gblid })
            }
        }
        _ => Err(ErrorKind::NotAFunctionHeader { record: record.into() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::entry::{EntryData, EntryKind, Variable};
    use crate::format::register::Register;
    use crate::format::strings::{StringTableBuilder, StringTag};
    use crate::format::type_id::VopType;
    use crate::format::vop::{opcode, Vop};
    use crate::format::Immediate;

    /// A3: the empty image.
    #[test]
    fn empty_image() {
        let bytes = Image::default().write().unwrap();
        assert_eq!(bytes, [0x22, 0x00, 0x00, 0x00, 0x46, 0x52, 0x32, 0x45]);
        assert_eq!(Image::read(&bytes).unwrap(), Image::default());
    }

    /// `int main_function() { return 0; }` as the Whale writer would lay it out.
    fn small_image() -> Image {
        let mut b = StringTableBuilder::new();
        let name = b.tag("main_function");
        let mut image = Image::default();
        let mut main = EntryData::new(EntryKind::Function);
        main.name = Some(name);
        main.signature = Some(StringTag::Inline("()i".into()));
        main.temporaries
            .variables
            .push(Variable { signature: Some(StringTag::Inline("i".into())), ..Variable::default() });
        main.trace = Some(1);
        image.globals.push(Entry::Known(Box::new(main)));
        let int = VopType::Simple { level: 0, base: 0 };
        let t0 = Register::Temporary { base: 0, seq: 0 };
        image.vops.vops = vec![
            Vop { imm: Some(Immediate::Label(1)), ..Vop::new(opcode::LABEL) },
            Vop { ty: Some(int), dst: Some(t0), srca: Some(Register::Int(0)), ..Vop::new(opcode::MOV) },
            Vop { ty: Some(int), srca: Some(t0), ..Vop::new(opcode::RET) },
        ];
        image.traces = vec![
            TraceRecord::Trace { b_ops: 0, n_ops: 3, flags: 0 },
            TraceRecord::Header { b_vtr: 0, n_vtr: 1, gblid: 1 },
        ];
        image.extensions.insert(Tag::byte(0x14), vec![0x01, b'x', 0x00]);
        image.strings = b.finish();
        image
    }

    #[test]
    fn small_image_round_trips_and_links() {
        let image = small_image();
        let bytes = image.write().unwrap();
        let back = Image::read(&bytes).unwrap();
        assert_eq!(back, image);
        assert_eq!(back.write().unwrap(), bytes);
        assert_eq!(back.function_body(0), Some(std::iter::once(0..3).collect()));
        // Root order: strs, vops, vtrs, GBLD, 0x14 (stri is there too: one string).
        let root = read_chunk(&mut Reader::new(&bytes, 0)).unwrap();
        let tags: Vec<Tag> = root.children().map(|c| c.unwrap().tag).collect();
        assert_eq!(tags, [Tag::STRS, Tag::STRI, Tag::VOPS, Tag::VTRS, Tag::GBLD, Tag::byte(0x14)]);

        let mut compressed = image.clone();
        compressed.compress_strings = true;
        let bytes = compressed.write().unwrap();
        assert_eq!(Image::read(&bytes).unwrap(), compressed);
    }

    #[test]
    fn broken_links_are_refused_both_ways() {
        let mut image = small_image();
        image.traces[1] = TraceRecord::Header { b_vtr: 0, n_vtr: 1, gblid: 2 };
        assert_eq!(image.write(), Err(WriteError::Trace(ErrorKind::HeaderGlobalMismatch { expected: 1, found: 2 })));
        let mut image = small_image();
        if let Entry::Known(main) = &mut image.globals[0] {
            main.trace = Some(0);
        }
        assert_eq!(image.write(), Err(WriteError::Trace(ErrorKind::NotAFunctionHeader { record: 0 })));
        let mut image = small_image();
        image.traces[0] = TraceRecord::Trace { b_ops: 0, n_ops: 4, flags: 0 };
        assert_eq!(image.write(), Err(WriteError::Trace(ErrorKind::TraceOutOfRange { record: 0, len: 3 })));

        // The reader reports the same problems at their offsets: patch gblid in canonical bytes.
        let bytes = small_image().write().unwrap();
        let root = read_chunk(&mut Reader::new(&bytes, 0)).unwrap();
        let vtrs = root.children().map(|c| c.unwrap()).find(|c| c.tag == Tag::VTRS).unwrap();
        let mut patched = bytes.clone();
        let last = (vtrs.payload_offset() as usize) + vtrs.payload.len() - 1;
        patched[last] = 0x03; // gblid -2
        let err = Image::read(&patched).unwrap_err();
        assert_eq!(err.kind, ErrorKind::HeaderGlobalMismatch { expected: 1, found: 2 });
    }

    #[test]
    fn root_errors() {
        assert_eq!(Image::read(&[]).unwrap_err().kind, ErrorKind::UnexpectedEof { needed: 1 });
        let not = [0x22, 0, 0, 0, b'L', b'I', b'T', b'D'];
        assert_eq!(Image::read(&not).unwrap_err().kind, ErrorKind::NotAnImage { tag: Tag::LITD });
        let trailing = [0x22, 0, 0, 0, b'F', b'R', b'2', b'E', 0];
        assert_eq!(
            Image::read(&trailing).unwrap_err(),
            FormatError::new(ErrorKind::TrailingBytes { what: "image", count: 1 }, 8)
        );
        // Two empty `vops` chunks.
        let dup = [
            0x62, 0, 0, 0, b'F', b'R', b'2', b'E', 0x22, 0, 0, 0, b'v', b'o', b'p', b's', 0x22, 0, 0, 0, b'v', b'o',
            b'p', b's',
        ];
        assert_eq!(Image::read(&dup).unwrap_err(), FormatError::new(ErrorKind::DuplicateTag { tag: Tag::VOPS }, 16));
    }
}
