//! TLV chunks (`fr2e.md` A2): the four header forms, tag values and promotion, the case rule, and a lazy reader and a
//! canonical writer.
//!
//! A chunk is a header (form, total length, tag) and a payload. The **logical tag** is the tag's numeric value, the
//! characters read little-endian with the first in the low byte (B4); header forms are only size classes, so a
//! BYTE tag promoted to a TWOCC or FOURCC field is the same tag (B5). Readers accept every form that can hold a
//! value; the writer uses the narrowest form that holds both the tag value and the length (A2.2).
//!
//! [`Chunk`] borrows its payload from the input, and [`Chunks`] iterates over the children of a compound payload,
//! stopping at the first error. Nothing here allocates. The writer buffers a payload after an 8-byte placeholder and
//! moves it down once the length, and so the narrowest header, is known (STYLE §6).

use std::fmt;

use super::error::{ErrorKind, FormatError, WriteError};
use super::limits::{Limits, MAX_CHUNK_LEN, MAX_SMALL_LEN, MAX_WORD_LEN};
use super::reader::Reader;

/// A logical tag: the zero-extended numeric value of a BYTE tag, TWOCC or FOURCC (A2.2).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tag(pub u32);

impl Tag {
    /// The image root.
    pub const FR2E: Tag = Tag::fourcc(*b"FR2E");
    /// Literal table.
    pub const LITD: Tag = Tag::fourcc(*b"LITD");
    /// Global table.
    pub const GBLD: Tag = Tag::fourcc(*b"GBLD");
    /// String data.
    pub const STRS: Tag = Tag::fourcc(*b"strs");
    /// LZ4-compressed string data.
    pub const STRZ: Tag = Tag::fourcc(*b"strz");
    /// String index.
    pub const STRI: Tag = Tag::fourcc(*b"stri");
    /// Virtual opcodes.
    pub const VOPS: Tag = Tag::fourcc(*b"vops");
    /// Virtual traces.
    pub const VTRS: Tag = Tag::fourcc(*b"vtrs");

    /// Literal entry: generic literal info.
    pub const LI: Tag = Tag::twocc(*b"LI");
    /// Literal entry: struct.
    pub const ST: Tag = Tag::twocc(*b"ST");
    /// Literal entry: union.
    pub const UN: Tag = Tag::twocc(*b"UN");
    /// Literal entry: class or interface.
    pub const CL: Tag = Tag::twocc(*b"CL");
    /// Literal entry: function signature type; global entry: function.
    pub const FN: Tag = Tag::twocc(*b"FN");
    /// Literal entry: typedef.
    pub const TY: Tag = Tag::twocc(*b"TY");
    /// Global entry: generic global info.
    pub const RI: Tag = Tag::twocc(*b"RI");
    /// Global entry: global variable.
    pub const GV: Tag = Tag::twocc(*b"GV");

    /// Attribute: type signature string.
    pub const SIGNATURE: Tag = Tag::byte(b's');
    /// Attribute: flag string.
    pub const FLAGS: Tag = Tag::byte(b'f');
    /// Attribute: name.
    pub const NAME: Tag = Tag::byte(b'n');
    /// Attribute: qualified or link name.
    pub const QNAME: Tag = Tag::byte(b'q');
    /// Attribute: global value, a register ID.
    pub const VALUE: Tag = Tag::byte(b'v');
    /// Attribute: trace-table index of a function-body header.
    pub const TRACE: Tag = Tag::byte(b't');
    /// Variable list: fields.
    pub const FIELDS: Tag = Tag::byte(b'F');
    /// Variable list: arguments.
    pub const ARGS: Tag = Tag::byte(b'A');
    /// Variable list: locals.
    pub const LOCALS: Tag = Tag::byte(b'L');
    /// Variable list: temporaries.
    pub const TEMPORARIES: Tag = Tag::byte(b'R');
    /// Variable list: static variables.
    pub const STATICS: Tag = Tag::byte(b'S');
    /// One variable inside a list.
    pub const VARIABLE: Tag = Tag::byte(b'V');
    /// Keyed attribute: long string (A6.4).
    pub const LONG_STRING_ATTRIBUTE: Tag = Tag::byte(0x80);
    /// Keyed attribute: short string (A6.4).
    pub const SHORT_STRING_ATTRIBUTE: Tag = Tag::byte(0x81);
    /// Keyed attribute: integer (A6.4).
    pub const INTEGER_ATTRIBUTE: Tag = Tag::byte(0x82);

    /// A BYTE tag.
    pub const fn byte(b: u8) -> Tag {
        Tag(b as u32)
    }

    /// A TWOCC, characters in reading order (B4).
    pub const fn twocc(c: [u8; 2]) -> Tag {
        Tag(u16::from_le_bytes(c) as u32)
    }

    /// A FOURCC, characters in reading order (B4).
    pub const fn fourcc(c: [u8; 4]) -> Tag {
        Tag(u32::from_le_bytes(c))
    }

    /// True for a compound tag, whose payload is a sequence of TLVs: the first character (the low byte) is an
    /// upper-case ASCII letter, for every width (A2.3, B8).
    pub const fn is_compound(self) -> bool {
        (self.0 as u8).is_ascii_uppercase()
    }

    /// The narrowest tag width that holds the value: BYTE below 0x100, TWOCC below 0x10000, else FOURCC (A2.2).
    pub const fn width(self) -> TagWidth {
        if self.0 < 0x100 {
            TagWidth::Byte
        } else if self.0 < 0x1_0000 {
            TagWidth::Twocc
        } else {
            TagWidth::Fourcc
        }
    }

    /// Checks the value: 0 is reserved (L38); a genuine TWOCC or FOURCC has only printable ASCII (0x20-0x7E),
    /// while a promoted BYTE tag keeps any value 0x01-0xFF (A2.2, B7).
    pub fn validate(self) -> Result<(), ErrorKind> {
        let printable = |b: u8| (0x20..=0x7E).contains(&b);
        let bytes = self.0.to_le_bytes();
        let ok = match self.width() {
            TagWidth::Byte => self.0 != 0,
            TagWidth::Twocc => printable(bytes[0]) && printable(bytes[1]),
            TagWidth::Fourcc => bytes.iter().all(|&b| printable(b)),
        };
        if ok {
            Ok(())
        } else if self.0 == 0 {
            Err(ErrorKind::ReservedTag)
        } else {
            Err(ErrorKind::InvalidTagCharacter { tag: self })
        }
    }
}

impl fmt::Display for Tag {
    /// Printable names in backticks (`` `FR2E` ``, `` `n` ``), other BYTE tags in hex (`0x10`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let len = match self.width() {
            TagWidth::Byte => 1,
            TagWidth::Twocc => 2,
            TagWidth::Fourcc => 4,
        };
        let bytes = &self.0.to_le_bytes()[..len];
        if bytes.iter().all(|b| (0x20..=0x7E).contains(b)) {
            f.write_str("`")?;
            for &b in bytes {
                write!(f, "{}", char::from(b))?;
            }
            f.write_str("`")
        } else {
            write!(f, "{:#04x}", self.0)
        }
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The width class of a tag value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TagWidth {
    /// 0x01-0xFF.
    Byte,
    /// 0x100-0xFFFF.
    Twocc,
    /// 0x10000 and up.
    Fourcc,
}

/// The four TLV header forms (A2.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HeaderForm {
    /// `z011`: 5-bit length, BYTE tag; 2-byte header.
    Small,
    /// `zz00`: 14-bit length, TWOCC; 4-byte header.
    Word,
    /// `zz01`: 30-bit length, TWOCC; 6-byte header.
    Dword,
    /// `zz10`: 30-bit length, FOURCC; 8-byte header.
    Fourcc,
}

impl HeaderForm {
    /// Size of the header in bytes.
    pub const fn header_len(self) -> u8 {
        match self {
            HeaderForm::Small => 2,
            HeaderForm::Word => 4,
            HeaderForm::Dword => 6,
            HeaderForm::Fourcc => 8,
        }
    }

    /// The narrowest form holding `tag` and a chunk of `payload_len` payload bytes, or `None` when the chunk would
    /// exceed 2^30 - 1 bytes (A2.2, B12).
    pub fn canonical(tag: Tag, payload_len: usize) -> Option<HeaderForm> {
        let total = |form: HeaderForm| payload_len.checked_add(usize::from(form.header_len()));
        let fits = |form: HeaderForm, max: u32| total(form).is_some_and(|t| t <= max as usize);
        match tag.width() {
            TagWidth::Byte if fits(HeaderForm::Small, MAX_SMALL_LEN) => Some(HeaderForm::Small),
            TagWidth::Byte | TagWidth::Twocc if fits(HeaderForm::Word, MAX_WORD_LEN) => Some(HeaderForm::Word),
            TagWidth::Byte | TagWidth::Twocc if fits(HeaderForm::Dword, MAX_CHUNK_LEN) => Some(HeaderForm::Dword),
            _ if fits(HeaderForm::Fourcc, MAX_CHUNK_LEN) => Some(HeaderForm::Fourcc),
            _ => None,
        }
    }
}

/// One chunk, its payload borrowed from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The logical tag.
    pub tag: Tag,
    /// The header form it was stored with.
    pub form: HeaderForm,
    /// Absolute offset of the header.
    pub offset: u64,
    /// The payload.
    pub payload: &'a [u8],
}

impl<'a> Chunk<'a> {
    /// Absolute offset of the first payload byte.
    pub fn payload_offset(&self) -> u64 {
        self.offset + u64::from(self.form.header_len())
    }

    /// Total length, header included.
    pub fn len(&self) -> u64 {
        u64::from(self.form.header_len()) + self.payload.len() as u64
    }

    /// Always false: a chunk has at least a header.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// A reader over the payload that reports absolute offsets.
    pub fn reader(&self) -> Reader<'a> {
        Reader::new(self.payload, self.payload_offset())
    }

    /// The children of a compound payload (the caller checks [`Tag::is_compound`]).
    pub fn children(&self) -> Chunks<'a> {
        Chunks { reader: self.reader(), failed: false }
    }
}

/// Reads one chunk header and its payload from `r` (A2.1).
#[inline]
pub fn read_chunk<'a>(r: &mut Reader<'a>) -> Result<Chunk<'a>, FormatError> {
    // The common case inline: a small header (`z011`, 2 bytes) whose length and non-zero tag are in range. Anything
    // else, errors included, takes the general path.
    if let &[first, tag, ..] = r.rest() {
        let length = usize::from(first >> 3);
        if first & 7 == 3 && tag != 0 && length >= 2 && length <= r.remaining() {
            let offset = r.offset();
            let bytes = r.take(length)?;
            return Ok(Chunk { tag: Tag::byte(tag), form: HeaderForm::Small, offset, payload: &bytes[2..] });
        }
    }
    read_chunk_general(r)
}

fn read_chunk_general<'a>(r: &mut Reader<'a>) -> Result<Chunk<'a>, FormatError> {
    let offset = r.offset();
    let available = r.remaining() as u64;
    let first = *r.rest().first().ok_or_else(|| r.error(ErrorKind::UnexpectedEof { needed: 1 }))?;
    let at = |kind| FormatError::new(kind, offset);
    let (form, length, tag) = match first & 3 {
        0 => {
            let word = r.u16_le()?;
            let tag = r.take(2)?;
            (HeaderForm::Word, u32::from(word >> 2), Tag::twocc([tag[0], tag[1]]))
        }
        1 => {
            let dword = r.u32_le()?;
            let tag = r.take(2)?;
            (HeaderForm::Dword, dword >> 2, Tag::twocc([tag[0], tag[1]]))
        }
        2 => {
            let dword = r.u32_le()?;
            let tag = r.take(4)?;
            (HeaderForm::Fourcc, dword >> 2, Tag::fourcc([tag[0], tag[1], tag[2], tag[3]]))
        }
        _ if first & 4 == 0 => {
            let head = r.take(2)?;
            (HeaderForm::Small, u32::from(head[0] >> 3), Tag::byte(head[1]))
        }
        // `z111` is not described by the seed: reserved (B3).
        _ => return Err(at(ErrorKind::ReservedHeaderForm { byte: first })),
    };
    let header = form.header_len();
    if length < u32::from(header) {
        return Err(at(ErrorKind::ChunkTooShort { length, header }));
    }
    if u64::from(length) > available {
        return Err(at(ErrorKind::ChunkOverrun { length, available }));
    }
    tag.validate().map_err(at)?;
    let payload = r.take((length - u32::from(header)) as usize)?;
    Ok(Chunk { tag, form, offset, payload })
}

/// Iterator over the chunks packed in a compound payload. The chunks must fill the payload exactly (A2.3); the
/// iterator yields the first error and then stops.
#[derive(Clone, Debug)]
pub struct Chunks<'a> {
    reader: Reader<'a>,
    failed: bool,
}

impl<'a> Chunks<'a> {
    /// Chunks packed end to end in `reader`'s remaining bytes.
    pub fn new(reader: Reader<'a>) -> Self {
        Self { reader, failed: false }
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<Chunk<'a>, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.reader.is_empty() {
            return None;
        }
        let chunk = read_chunk(&mut self.reader);
        self.failed = chunk.is_err();
        Some(chunk)
    }
}

/// Checks the framing of a whole subtree: every compound payload at any depth is filled exactly by valid chunks.
/// `depth` is the depth of `chunk` itself; the walk fails past [`Limits::max_tlv_depth`] instead of recursing further.
pub fn validate_tree(chunk: &Chunk<'_>, depth: u32, limits: &Limits) -> Result<(), FormatError> {
    if depth > limits.max_tlv_depth {
        return Err(FormatError::new(ErrorKind::NestingTooDeep { limit: limits.max_tlv_depth }, chunk.offset));
    }
    if chunk.tag.is_compound() {
        for child in chunk.children() {
            validate_tree(&child?, depth + 1, limits)?;
        }
    }
    Ok(())
}

/// Appends a chunk whose payload is produced by `body`, with the narrowest header (A2.2).
pub fn write_chunk(
    out: &mut Vec<u8>,
    tag: Tag,
    body: impl FnOnce(&mut Vec<u8>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    tag.validate().map_err(|_| WriteError::InvalidTag { tag })?;
    let at = out.len();
    out.extend_from_slice(&[0; 8]);
    body(out)?;
    let payload_len = out.len() - at - 8;
    let form = HeaderForm::canonical(tag, payload_len)
        .ok_or(WriteError::ChunkTooLarge { tag, len: payload_len as u64 + 8 })?;
    let header_len = usize::from(form.header_len());
    out.copy_within(at + 8.., at + header_len);
    out.truncate(at + header_len + payload_len);
    out[at..at + header_len].copy_from_slice(&header_bytes(form, tag, payload_len)[..header_len]);
    Ok(())
}

/// Reserves room for a chunk header at the end of `out` and returns its offset: the caller appends the payload, then
/// calls [`finish_chunk`]. Writers use this pair for large payloads, which then are written once, in place.
pub fn begin_chunk(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; 8]);
    at
}

/// Writes the canonical header of the chunk begun at `at` by [`begin_chunk`], whose payload is the rest of `out`.
/// The payload moves only when the header is narrower than the 8 reserved bytes (never for a FOURCC tag).
pub fn finish_chunk(out: &mut Vec<u8>, at: usize, tag: Tag) -> Result<(), WriteError> {
    tag.validate().map_err(|_| WriteError::InvalidTag { tag })?;
    let payload_len = out.len() - at - 8;
    let form = HeaderForm::canonical(tag, payload_len)
        .ok_or(WriteError::ChunkTooLarge { tag, len: payload_len as u64 + 8 })?;
    let header_len = usize::from(form.header_len());
    if header_len != 8 {
        out.copy_within(at + 8.., at + header_len);
        out.truncate(at + header_len + payload_len);
    }
    out[at..at + header_len].copy_from_slice(&header_bytes(form, tag, payload_len)[..header_len]);
    Ok(())
}

/// Appends a chunk with the given payload and the narrowest header.
pub fn write_data_chunk(out: &mut Vec<u8>, tag: Tag, payload: &[u8]) -> Result<(), WriteError> {
    tag.validate().map_err(|_| WriteError::InvalidTag { tag })?;
    let form = HeaderForm::canonical(tag, payload.len())
        .ok_or(WriteError::ChunkTooLarge { tag, len: payload.len() as u64 + 8 })?;
    let header = header_bytes(form, tag, payload.len());
    out.extend_from_slice(&header[..usize::from(form.header_len())]);
    out.extend_from_slice(payload);
    Ok(())
}

/// The small header form (A2.2) of a chunk of `total` bytes, header included, with a BYTE tag: for writers that lay
/// out short chunks in place. `total` must be at most [`MAX_SMALL_LEN`].
#[inline(always)]
pub fn small_header(tag: Tag, total: usize) -> [u8; 2] {
    debug_assert!(tag.0 < 0x100 && total <= super::limits::MAX_SMALL_LEN as usize);
    [(total as u8) << 3 | 3, tag.0 as u8]
}

/// The header of a chunk; `form` was chosen by [`HeaderForm::canonical`], so the length and tag fit it.
fn header_bytes(form: HeaderForm, tag: Tag, payload_len: usize) -> [u8; 8] {
    let total = (payload_len + usize::from(form.header_len())) as u32;
    let mut h = [0u8; 8];
    let t = tag.0.to_le_bytes();
    match form {
        HeaderForm::Small => h[..2].copy_from_slice(&small_header(tag, total as usize)),
        HeaderForm::Word => {
            h[..2].copy_from_slice(&((total as u16) << 2).to_le_bytes());
            h[2..4].copy_from_slice(&t[..2]);
        }
        HeaderForm::Dword => {
            h[..4].copy_from_slice(&((total << 2) | 1).to_le_bytes());
            h[4..6].copy_from_slice(&t[..2]);
        }
        HeaderForm::Fourcc => {
            h[..4].copy_from_slice(&((total << 2) | 2).to_le_bytes());
            h[4..8].copy_from_slice(&t);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(bytes: &[u8]) -> Result<Chunk<'_>, FormatError> {
        let mut r = Reader::new(bytes, 0);
        let chunk = read_chunk(&mut r)?;
        r.finish("chunk")?;
        Ok(chunk)
    }

    /// A chunk begun and finished in place is the chunk `write_data_chunk` writes, whatever its header form.
    #[test]
    fn chunks_finished_in_place() {
        for (tag, len) in [(Tag(0x10), 3), (Tag(0x10), 40), (Tag::VOPS, 5), (Tag::VOPS, 20_000)] {
            let payload: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut expected = vec![0xAA];
            write_data_chunk(&mut expected, tag, &payload).unwrap();
            let mut out = vec![0xAA];
            let at = begin_chunk(&mut out);
            out.extend_from_slice(&payload);
            finish_chunk(&mut out, at, tag).unwrap();
            assert_eq!(out, expected);
        }
    }

    fn data(tag: Tag, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        write_data_chunk(&mut out, tag, payload).unwrap();
        let mut via_body = Vec::new();
        write_chunk(&mut via_body, tag, |o| {
            o.extend_from_slice(payload);
            Ok(())
        })
        .unwrap();
        assert_eq!(out, via_body);
        out
    }

    /// The examples of A2.1 and A2.2, byte for byte.
    #[test]
    fn header_examples() {
        assert_eq!(data(Tag::NAME, b"ab"), [0x23, 0x6E, 0x61, 0x62]);
        assert_eq!(data(Tag::FN, b""), [0x10, 0x00, 0x46, 0x4E]);
        assert_eq!(data(Tag::LITD, b""), [0x22, 0, 0, 0, 0x4C, 0x49, 0x54, 0x44]);
        assert_eq!(data(Tag::FR2E, b""), [0x22, 0, 0, 0, 0x46, 0x52, 0x32, 0x45]);
        // Tag `n` with 30 payload bytes cannot be small (B2): it is promoted to a WORD+TWOCC `6E 00`.
        let promoted = data(Tag::NAME, &[7; 30]);
        assert_eq!(promoted[..4], [0x88, 0x00, 0x6E, 0x00]);
        let chunk = one(&promoted).unwrap();
        assert_eq!((chunk.tag, chunk.form, chunk.payload.len()), (Tag::NAME, HeaderForm::Word, 30));
        // 29 payload bytes still fit the small form.
        assert_eq!(data(Tag::NAME, &[7; 29])[0], (31 << 3) | 3);
    }

    #[test]
    fn every_form_reads_back() {
        let cases: &[(&[u8], Tag, HeaderForm, &[u8])] = &[
            (&[0x1B, b'n', 1], Tag::NAME, HeaderForm::Small, &[1]),
            (&[0x14, 0, b'F', b'N', 9], Tag::FN, HeaderForm::Word, &[9]),
            (&[0x1D, 0, 0, 0, b'F', b'N', 9], Tag::FN, HeaderForm::Dword, &[9]),
            (&[0x26, 0, 0, 0, b'v', b'o', b'p', b's', 9], Tag::VOPS, HeaderForm::Fourcc, &[9]),
            // Promotion (B5): BYTE tag `n` in a DWORD+FOURCC header is still `n`.
            (&[0x26, 0, 0, 0, b'n', 0, 0, 0, 9], Tag::NAME, HeaderForm::Fourcc, &[9]),
            // A promoted BYTE tag keeps a value above 0x7F (B7).
            (&[0x14, 0, 0x80, 0, 9], Tag::LONG_STRING_ATTRIBUTE, HeaderForm::Word, &[9]),
        ];
        for &(bytes, tag, form, payload) in cases {
            let chunk = one(bytes).unwrap();
            assert_eq!((chunk.tag, chunk.form, chunk.payload), (tag, form, payload));
            assert_eq!(chunk.len(), bytes.len() as u64);
        }
    }

    #[test]
    fn space_padding_is_a_different_tag() {
        // B6: `X ` is a genuine one-letter TWOCC, unlike the promoted BYTE tag `X`.
        assert_eq!(Tag::twocc(*b"X "), Tag(0x2058));
        assert_ne!(Tag::twocc(*b"X "), Tag::byte(b'X'));
        assert_eq!(data(Tag::twocc(*b"X "), b"")[..], [0x10, 0, b'X', b' ']);
    }

    #[test]
    fn case_rule() {
        for tag in
            [Tag::FR2E, Tag::LITD, Tag::GBLD, Tag::ST, Tag::FN, Tag::GV, Tag::ARGS, Tag::VARIABLE, Tag::twocc(*b"Ab")]
        {
            assert!(tag.is_compound(), "{tag}");
        }
        for tag in [Tag::STRS, Tag::VOPS, Tag::NAME, Tag::TRACE, Tag::byte(0x10), Tag::byte(0x80), Tag::twocc(*b"1A")] {
            assert!(!tag.is_compound(), "{tag}");
        }
    }

    #[test]
    fn malformed_headers() {
        let err = |bytes: &[u8]| one(bytes).unwrap_err();
        assert_eq!(err(&[0x07, 1]), FormatError::new(ErrorKind::ReservedHeaderForm { byte: 7 }, 0));
        assert_eq!(err(&[0x0B, b'n']).kind, ErrorKind::ChunkTooShort { length: 1, header: 2 });
        assert_eq!(err(&[0x0C, 0, b'F', b'N']).kind, ErrorKind::ChunkTooShort { length: 3, header: 4 });
        assert_eq!(err(&[0x1B, b'n']).kind, ErrorKind::ChunkOverrun { length: 3, available: 2 });
        assert_eq!(err(&[0x13, 0]).kind, ErrorKind::ReservedTag);
        assert_eq!(err(&[0x10, 0, 0, 0]).kind, ErrorKind::ReservedTag);
        assert_eq!(err(&[0x10, 0, b'F', 0x7F]).kind, ErrorKind::InvalidTagCharacter { tag: Tag(0x7F46) });
        assert_eq!(err(&[0x22, 0, 0, 0, b'a', 0, b'c', 0]).kind, ErrorKind::InvalidTagCharacter { tag: Tag(0x630061) });
        assert_eq!(err(&[0x10, 0]).kind, ErrorKind::UnexpectedEof { needed: 2 });
    }

    #[test]
    fn children_stop_at_the_first_error() {
        // `V` holding `n` and a chunk that overruns its parent.
        let bytes = [0x1B, b'n', 1, 0x23, b's', 1];
        let parent = Chunk { tag: Tag::VARIABLE, form: HeaderForm::Small, offset: 10, payload: &bytes };
        let children: Vec<_> = parent.children().collect();
        assert_eq!(children.len(), 2);
        assert_eq!(children[0].unwrap().payload_offset(), 14);
        assert_eq!(children[1].unwrap_err(), FormatError::new(ErrorKind::ChunkOverrun { length: 4, available: 3 }, 15));
    }

    #[test]
    fn nesting_is_bounded() {
        // 40 nested `A` chunks, built inside out.
        let mut bytes = Vec::new();
        for _ in 0..40 {
            let mut outer = Vec::new();
            write_data_chunk(&mut outer, Tag::ARGS, &bytes).unwrap();
            bytes = outer;
        }
        let root = one(&bytes).unwrap();
        let limits = Limits::default();
        assert_eq!(validate_tree(&root, 1, &limits).unwrap_err().kind, ErrorKind::NestingTooDeep { limit: 32 });
        assert!(validate_tree(&root, 1, &Limits { max_tlv_depth: 40, ..limits }).is_ok());
    }

    #[test]
    fn writer_limits() {
        let mut out = Vec::new();
        assert_eq!(write_data_chunk(&mut out, Tag(0), b""), Err(WriteError::InvalidTag { tag: Tag(0) }));
        assert_eq!(HeaderForm::canonical(Tag::NAME, MAX_CHUNK_LEN as usize - 6), Some(HeaderForm::Dword));
        assert_eq!(HeaderForm::canonical(Tag::NAME, MAX_CHUNK_LEN as usize - 5), None);
        assert_eq!(HeaderForm::canonical(Tag::VOPS, MAX_CHUNK_LEN as usize - 8), Some(HeaderForm::Fourcc));
        assert_eq!(HeaderForm::canonical(Tag::FN, 16379), Some(HeaderForm::Word));
        assert_eq!(HeaderForm::canonical(Tag::FN, 16380), Some(HeaderForm::Dword));
    }
}
