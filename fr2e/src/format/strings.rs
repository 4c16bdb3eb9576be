//! The image string table (`strs` or `strz`, plus `stri`; `fr2e.md` A5) and string tags (A5.5).
//!
//! The model keeps the table as stored: the string data and the offset of each table string. Indices 0 (NULL) and
//! 1 ("") always exist; table string j + 2 starts at `offsets[j]` and runs to the next NUL (B21-B23). Keeping the
//! stored form rather than a list of texts makes `write(read(b)) == b` hold for every table, shared suffixes and
//! duplicates included, and lets string indices inside opaque extension payloads stay meaningful. Canonical tables
//! (first-use order, no duplicates, data starting with one `00`) come from [`StringTableBuilder`].
//!
//! Validation happens once, when a table is built from parts: the data is a concatenation of NUL-terminated M-UTF-8
//! strings, and every offset starts a character inside it. Lookups then cannot fail.

use std::borrow::Cow;
use std::collections::HashMap;

use super::error::{ErrorKind, FormatError, WriteError};
use super::limits::{Limits, MAX_CANONICAL_INLINE_STRING};
use super::mutf8;
use super::reader::Reader;
use super::strz;
use super::tlv::Chunk;
use super::vli::{write_svli, write_uvli32, write_uvli64};

/// A validated string table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringTable {
    data: Vec<u8>,
    offsets: Vec<u32>,
}

/// What a string index denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StringValue<'a> {
    /// Index 0.
    Null,
    /// Any other index; index 1 is "".
    Text(Cow<'a, str>),
}

impl StringTable {
    /// Builds a table from its stored parts, checking that `data` is a concatenation of NUL-terminated M-UTF-8
    /// strings and that each offset starts a character of it. On failure returns the kind and the index (into
    /// `data`, or into `offsets` for offset errors) of the culprit.
    pub fn from_parts(data: Vec<u8>, offsets: Vec<u32>) -> Result<Self, (ErrorKind, StringPartError)> {
        if data.last().is_some_and(|&b| b != 0) {
            return Err((ErrorKind::UnterminatedStringData, StringPartError::Data(data.len())));
        }
        let mut start = 0;
        for segment in data.split(|&b| b == 0) {
            mutf8::validate(segment).map_err(|at| (ErrorKind::InvalidMutf8, StringPartError::Data(start + at)))?;
            start += segment.len() + 1;
        }
        for (j, &offset) in offsets.iter().enumerate() {
            let at = offset as usize;
            let Some(&first) = data.get(at) else {
                let kind = ErrorKind::StringOffsetOutOfRange { offset: offset.into(), len: data.len() as u64 };
                return Err((kind, StringPartError::Offset(j)));
            };
            // Inside valid M-UTF-8, a character starts at any byte but a continuation byte or the second half of a
            // surrogate pair (`ED B0..BF`).
            let low_surrogate = first == 0xED && data.get(at + 1).is_some_and(|b| (0xB0..=0xBF).contains(b));
            if first & 0xC0 == 0x80 || low_surrogate {
                return Err((
                    ErrorKind::StringOffsetInsideCharacter { offset: offset.into() },
                    StringPartError::Offset(j),
                ));
            }
        }
        Ok(Self { data, offsets })
    }

    /// The string data (what `strs` holds).
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The byte offset of each table string; table string j has index j + 2.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// Number of valid indices: 0, 1 and the table strings.
    pub fn count(&self) -> u64 {
        self.offsets.len() as u64 + 2
    }

    /// True when the table has no strings, so `strs` and `stri` are left out.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty() && self.offsets.is_empty()
    }

    /// True when `index` is valid.
    pub fn contains(&self, index: u64) -> bool {
        index < self.count()
    }

    /// The M-UTF-8 bytes of string `index` (without the NUL), or `None` for 0 (NULL) and for indices out of range.
    pub fn bytes(&self, index: u64) -> Option<&[u8]> {
        match index {
            0 => None,
            1 => Some(&[]),
            _ => {
                let offset = *self.offsets.get(usize::try_from(index - 2).ok()?)? as usize;
                let rest = self.data.get(offset..)?;
                let len = rest.iter().position(|&b| b == 0)?;
                Some(&rest[..len])
            }
        }
    }

    /// What string `index` denotes, or `None` when it is out of range.
    pub fn get(&self, index: u64) -> Option<StringValue<'_>> {
        if index == 0 {
            return Some(StringValue::Null);
        }
        // Validated in `from_parts`, so decoding succeeds.
        mutf8::decode(self.bytes(index)?).ok().map(StringValue::Text)
    }

    /// Reads the table from the root's `strs`, `strz` and `stri` chunks (A5.2-A5.4). Having both `strs` and `strz`
    /// is an error (B24).
    pub fn read(
        strs: Option<&Chunk<'_>>,
        strz: Option<&Chunk<'_>>,
        stri: Option<&Chunk<'_>>,
        limits: &Limits,
    ) -> Result<(Self, bool), FormatError> {
        let (data, data_offset, compressed) = match (strs, strz) {
            (Some(_), Some(z)) => return Err(FormatError::new(ErrorKind::StrsAndStrz, z.offset)),
            (Some(s), None) => (s.payload.to_vec(), s.payload_offset(), false),
            (None, Some(z)) => (strz::decompress(z, limits)?, z.payload_offset(), true),
            (None, None) => (Vec::new(), 0, false),
        };
        let mut offsets = Vec::new();
        let mut delta_offsets = Vec::new();
        if let Some(stri) = stri {
            let mut r = stri.reader();
            let mut offset = 0u64;
            while !r.is_empty() {
                let at = r.offset();
                // The first delta is measured from offset 0 (B21).
                offset += u64::from(r.uvli32()?);
                let in_range = u32::try_from(offset).ok().filter(|&o| (o as usize) < data.len());
                let Some(offset32) = in_range else {
                    let kind = ErrorKind::StringOffsetOutOfRange { offset, len: data.len() as u64 };
                    return Err(FormatError::new(kind, at));
                };
                offsets.push(offset32);
                delta_offsets.push(at);
            }
        }
        let table = Self::from_parts(data, offsets).map_err(|(kind, culprit)| {
            let offset = match culprit {
                // Offsets inside decompressed data have no image position: report the `strz` payload.
                StringPartError::Data(at) if !compressed => data_offset + at as u64,
                StringPartError::Data(_) => data_offset,
                StringPartError::Offset(j) => delta_offsets[j],
            };
            FormatError::new(kind, offset)
        })?;
        Ok((table, compressed))
    }

    /// The `strs` (or decompressed `strz`) payload.
    pub fn strs_payload(&self) -> &[u8] {
        &self.data
    }

    /// The `strz` payload: UVLI64 size, then one LZ4 block (A5.4).
    pub fn strz_payload(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_uvli64(&mut out, self.data.len() as u64);
        out.extend_from_slice(&lz4_flex::block::compress(&self.data));
        out
    }

    /// The `stri` payload: UVLI32 deltas, the first from offset 0 (A5.3).
    pub fn stri_payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.offsets.len() * 2);
        let mut previous = 0;
        for &offset in &self.offsets {
            write_uvli32(&mut out, offset - previous);
            previous = offset;
        }
        out
    }
}

/// Which part of a table failed validation: a byte of the data, or an entry of the offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringPartError {
    /// Index into the data.
    Data(usize),
    /// Index into the offsets.
    Offset(usize),
}

/// Builds a canonical table: strings in first-use order, no duplicates, data starting with one `00` (A5.2, A14).
#[derive(Clone, Debug, Default)]
pub struct StringTableBuilder {
    data: Vec<u8>,
    offsets: Vec<u32>,
    index: HashMap<Box<str>, u32>,
}

impl StringTableBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The index of `s`, adding it on first use; "" is always index 1 and never enters the table.
    pub fn intern(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 1;
        }
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        if self.data.is_empty() {
            // Canonical data starts with the empty string at offset 0 (A5.2, B21).
            self.data.push(0);
        }
        // Offsets above 2^30 cannot be written anyway: the chunk is too large, and the writer says so.
        self.offsets.push(u32::try_from(self.data.len()).unwrap_or(u32::MAX));
        mutf8::encode(s, &mut self.data);
        self.data.push(0);
        let i = self.offsets.len() as u32 + 1;
        self.index.insert(s.into(), i);
        i
    }

    /// The canonical string tag for `s`: index 1 for "", inline for 1 to 7 M-UTF-8 bytes, the table otherwise (A5.5).
    pub fn tag(&mut self, s: &str) -> StringTag {
        match mutf8::encoded_len(s) {
            0 => StringTag::Index(1),
            1..=MAX_CANONICAL_INLINE_STRING => StringTag::Inline(s.to_owned()),
            _ => StringTag::Index(self.intern(s)),
        }
    }

    /// The finished table.
    pub fn finish(self) -> StringTable {
        StringTable { data: self.data, offsets: self.offsets }
    }
}

/// A string tag (A5.5): an index into the string table, or inline text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StringTag {
    /// `v >= 0`: an index; 0 is NULL, 1 is "".
    Index(u32),
    /// `v == -1`: NUL-terminated M-UTF-8 text inline.
    Inline(String),
}

impl StringTag {
    /// Reads a string tag; indices must be valid in `table`, and values below -1 are reserved (B25).
    pub fn read(r: &mut Reader<'_>, table: &StringTable) -> Result<Self, FormatError> {
        let at = r.offset();
        match r.svli()? {
            v @ 0.. => {
                let index = v as u64;
                if !table.contains(index) {
                    return Err(FormatError::new(ErrorKind::StringIndexOutOfRange { index, count: table.count() }, at));
                }
                Ok(StringTag::Index(index as u32))
            }
            -1 => {
                let text_at = r.offset();
                let bytes = r.until_nul()?;
                let text =
                    mutf8::decode(bytes).map_err(|i| FormatError::new(ErrorKind::InvalidMutf8, text_at + i as u64))?;
                Ok(StringTag::Inline(text.into_owned()))
            }
            value => Err(FormatError::new(ErrorKind::ReservedStringTag { value }, at)),
        }
    }

    /// Appends the string tag, checking that an index is valid in `table`.
    pub fn write(&self, out: &mut Vec<u8>, table: &StringTable) -> Result<(), WriteError> {
        match self {
            StringTag::Index(i) => {
                check_index(u64::from(*i), table)?;
                write_svli(out, i64::from(*i));
            }
            StringTag::Inline(text) => {
                write_svli(out, -1);
                mutf8::encode(text, out);
                out.push(0);
            }
        }
        Ok(())
    }

    /// What the tag denotes, or `None` for an index outside `table`.
    pub fn resolve<'a>(&'a self, table: &'a StringTable) -> Option<StringValue<'a>> {
        match self {
            StringTag::Index(i) => table.get(u64::from(*i)),
            StringTag::Inline(text) => Some(StringValue::Text(Cow::Borrowed(text))),
        }
    }
}

/// Fails unless `index` is valid in `table`.
pub(crate) fn check_index(index: u64, table: &StringTable) -> Result<(), WriteError> {
    if table.contains(index) {
        Ok(())
    } else {
        Err(WriteError::StringIndexOutOfRange { index, count: table.count() })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tlv::{HeaderForm, Tag};
    use super::*;

    fn chunk(tag: Tag, payload: &[u8], offset: u64) -> Chunk<'_> {
        Chunk { tag, form: HeaderForm::Fourcc, offset, payload }
    }

    /// A5.3's example: "main" and "printf".
    #[test]
    fn main_and_printf() {
        let mut b = StringTableBuilder::new();
        assert_eq!(b.intern("main"), 2);
        assert_eq!(b.intern("printf"), 3);
        assert_eq!(b.intern("main"), 2);
        assert_eq!(b.intern(""), 1);
        let table = b.finish();
        assert_eq!(table.strs_payload(), b"\0main\0printf\0");
        assert_eq!(table.stri_payload(), [0x01, 0x05]);
        let strs = [0x00, 0x6D, 0x61, 0x69, 0x6E, 0x00, 0x70, 0x72, 0x69, 0x6E, 0x74, 0x66, 0x00];
        let (read, compressed) = StringTable::read(
            Some(&chunk(Tag::STRS, &strs, 0)),
            None,
            Some(&chunk(Tag::STRI, &[0x01, 0x05], 100)),
            &Limits::default(),
        )
        .unwrap();
        assert!(!compressed);
        assert_eq!(read, table);
        assert_eq!(read.get(0), Some(StringValue::Null));
        assert_eq!(read.get(1), Some(StringValue::Text("".into())));
        assert_eq!(read.get(2), Some(StringValue::Text("main".into())));
        assert_eq!(read.get(3), Some(StringValue::Text("printf".into())));
        assert_eq!(read.get(4), None);
    }

    /// Indices 0 and 1 exist without any table (L73-L76, B23).
    #[test]
    fn indices_zero_and_one_need_no_table() {
        let (table, _) = StringTable::read(None, None, None, &Limits::default()).unwrap();
        assert!(table.is_empty());
        assert_eq!(table.count(), 2);
        assert_eq!(table.get(0), Some(StringValue::Null));
        assert_eq!(table.get(1), Some(StringValue::Text("".into())));
        assert_eq!(table.get(2), None);
    }

    #[test]
    fn sharing_is_legal_to_read() {
        // B22: a delta of 0 shares a string; an offset may point into another string (suffix sharing).
        let (table, _) = StringTable::read(
            Some(&chunk(Tag::STRS, b"printf\0", 0)),
            None,
            Some(&chunk(Tag::STRI, &[0, 0, 3], 0)),
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(table.bytes(2), Some(&b"printf"[..]));
        assert_eq!(table.bytes(3), Some(&b"printf"[..]));
        assert_eq!(table.bytes(4), Some(&b"ntf"[..]));
    }

    #[test]
    fn malformed_tables() {
        let limits = Limits::default();
        let read = |strs: &[u8], stri: &[u8]| {
            StringTable::read(Some(&chunk(Tag::STRS, strs, 10)), None, Some(&chunk(Tag::STRI, stri, 50)), &limits)
                .unwrap_err()
        };
        assert_eq!(read(b"ab", &[]), FormatError::new(ErrorKind::UnterminatedStringData, 20));
        assert_eq!(read(b"\0a\xC3\0", &[]), FormatError::new(ErrorKind::InvalidMutf8, 20));
        assert_eq!(
            read(b"\0ab\0", &[1, 3]),
            FormatError::new(ErrorKind::StringOffsetOutOfRange { offset: 4, len: 4 }, 59)
        );
        assert_eq!(
            read(b"\0\xC3\xA9\0", &[2]),
            FormatError::new(ErrorKind::StringOffsetInsideCharacter { offset: 2 }, 58)
        );
        let both = StringTable::read(Some(&chunk(Tag::STRS, b"", 0)), Some(&chunk(Tag::STRZ, b"", 9)), None, &limits);
        assert_eq!(both.unwrap_err(), FormatError::new(ErrorKind::StrsAndStrz, 9));
    }

    #[test]
    fn strz_round_trip_and_limits() {
        let mut b = StringTableBuilder::new();
        for s in ["alpha", "beta", "alphabet soup", "\u{1F600} and \0"] {
            b.intern(s);
        }
        let table = b.finish();
        let strz = table.strz_payload();
        let stri = table.stri_payload();
        let limits = Limits::default();
        let (read, compressed) =
            StringTable::read(None, Some(&chunk(Tag::STRZ, &strz, 0)), Some(&chunk(Tag::STRI, &stri, 0)), &limits)
                .unwrap();
        assert!(compressed);
        assert_eq!(read, table);
        assert_eq!(read.get(5), Some(StringValue::Text("\u{1F600} and \0".into())));

        // A declared size above the limit, or above what LZ4 can expand to, is refused before allocating.
        let tight = Limits { max_string_data: 8, ..limits };
        let err = StringTable::read(None, Some(&chunk(Tag::STRZ, &strz, 0)), None, &tight).unwrap_err();
        assert!(matches!(err.kind, ErrorKind::StringDataTooLarge { limit: 8, .. }));
        let huge = [0xF0, 0x7F, 0xFF, 0xFF, 0xFF, 0x10, 0x61];
        let err = StringTable::read(None, Some(&chunk(Tag::STRZ, &huge, 0)), None, &limits).unwrap_err();
        assert_eq!(err.kind, ErrorKind::StringDataTooLarge { size: 0x7FFF_FFFF, limit: 2 * 255 });
        // A block that does not produce the declared size.
        let short = [0x05, 0x10, 0x61];
        let err = StringTable::read(None, Some(&chunk(Tag::STRZ, &short, 0)), None, &limits).unwrap_err();
        assert_eq!(err, FormatError::new(ErrorKind::BadLz4Block, 9));
    }

    /// A5.5: the canonical choice and the byte forms of string tags.
    #[test]
    fn string_tags() {
        let mut b = StringTableBuilder::new();
        assert_eq!(b.tag(""), StringTag::Index(1));
        assert_eq!(b.tag("abcdefg"), StringTag::Inline("abcdefg".into()));
        assert_eq!(b.tag("abcdefgh"), StringTag::Index(2));
        // "é" × 4 is 8 bytes of M-UTF-8, so it goes to the table even though it has 4 characters.
        assert_eq!(b.tag("éééé"), StringTag::Index(3));
        let table = b.finish();
        let bytes = |tag: &StringTag| {
            let mut out = Vec::new();
            tag.write(&mut out, &table).unwrap();
            out
        };
        assert_eq!(bytes(&StringTag::Index(1)), [0x02]);
        assert_eq!(bytes(&StringTag::Inline("ab".into())), [0x01, b'a', b'b', 0x00]);
        assert_eq!(bytes(&StringTag::Index(0)), [0x00]);
        let mut out = Vec::new();
        assert_eq!(
            StringTag::Index(4).write(&mut out, &table),
            Err(WriteError::StringIndexOutOfRange { index: 4, count: 4 })
        );

        let read = |bytes: &[u8]| StringTag::read(&mut Reader::new(bytes, 0), &table);
        assert_eq!(read(&[0x06]).unwrap(), StringTag::Index(3));
        assert_eq!(read(&[0x01, b'x', 0xC0, 0x80, 0]).unwrap(), StringTag::Inline("x\0".into()));
        assert_eq!(read(&[0x08]).unwrap_err().kind, ErrorKind::StringIndexOutOfRange { index: 4, count: 4 });
        assert_eq!(read(&[0x03]).unwrap_err().kind, ErrorKind::ReservedStringTag { value: -2 });
        assert_eq!(read(&[0x01, b'x']).unwrap_err().kind, ErrorKind::UnterminatedString);
        assert_eq!(read(&[0x01, b'x', 0xFF, 0]).unwrap_err(), FormatError::new(ErrorKind::InvalidMutf8, 2));
    }
}
