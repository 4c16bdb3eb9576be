//! LITD and GBLD entries, their attributes and variable lists (`fr2e.md` A6).
//!
//! A table is a compound chunk whose children are entries, numbered from 1 in order; every child uses up an index,
//! whatever its tag (A6.1, B27), so an entry kind the table does not define is kept as [`Entry::Unknown`] with its raw
//! payload. A known entry holds the attributes of A6.3 as fields, one slot per tag: readers accept any order, reject
//! a duplicate tag (B28) and a defined attribute outside the entries that allow it, and keep every other tag as an
//! *extension* (its raw payload, keyed by tag; B11, A6.5). The keyed attributes 0x80-0x82 (A6.4, B32) may repeat, each
//! naming its own key. Writers emit the canonical attribute order: `n q s f v F A L R S t`, extensions in ascending
//! tag value with the keyed attributes (in model order) at the place of their tag values; empty variable lists are left
//! out.

use std::collections::BTreeMap;

use super::error::{ErrorKind, FormatError, WriteError};
use super::limits::{Limits, MAX_SMALL_PAYLOAD};
use super::register::Register;
use super::strings::{StringTable, StringTag};
use super::tlv::{validate_tree, write_chunk, write_data_chunk, Chunk, Tag};
use super::vli::write_uvli32;

/// Which table an entry lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    /// `LITD`, the literal table.
    Literal,
    /// `GBLD`, the global table.
    Global,
}

impl Table {
    /// The table's chunk tag.
    pub const fn tag(self) -> Tag {
        match self {
            Table::Literal => Tag::LITD,
            Table::Global => Tag::GBLD,
        }
    }
}

/// The entry kinds of A6.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// LITD `LI`: generic literal info.
    LiteralInfo,
    /// LITD `ST`: a struct type.
    Struct,
    /// LITD `UN`: a union type.
    Union,
    /// LITD `CL`: a class or interface.
    Class,
    /// LITD `FN`: a function signature type.
    FunctionType,
    /// LITD `TY`: a typedef.
    Typedef,
    /// GBLD `RI`: generic global info.
    GlobalInfo,
    /// GBLD `FN`: a function definition or prototype.
    Function,
    /// GBLD `GV`: a global or static variable.
    GlobalVariable,
}

impl EntryKind {
    /// The entry's TWOCC.
    pub const fn tag(self) -> Tag {
        match self {
            EntryKind::LiteralInfo => Tag::LI,
            EntryKind::Struct => Tag::ST,
            EntryKind::Union => Tag::UN,
            EntryKind::Class => Tag::CL,
            EntryKind::FunctionType | EntryKind::Function => Tag::FN,
            EntryKind::Typedef => Tag::TY,
            EntryKind::GlobalInfo => Tag::RI,
            EntryKind::GlobalVariable => Tag::GV,
        }
    }

    /// The table the kind belongs to.
    pub const fn table(self) -> Table {
        match self {
            EntryKind::GlobalInfo | EntryKind::Function | EntryKind::GlobalVariable => Table::Global,
            _ => Table::Literal,
        }
    }

    /// The kind `tag` denotes in `table`, if any.
    pub fn from_tag(table: Table, tag: Tag) -> Option<EntryKind> {
        let kind = match (table, tag) {
            (Table::Literal, Tag::LI) => EntryKind::LiteralInfo,
            (Table::Literal, Tag::ST) => EntryKind::Struct,
            (Table::Literal, Tag::UN) => EntryKind::Union,
            (Table::Literal, Tag::CL) => EntryKind::Class,
            (Table::Literal, Tag::FN) => EntryKind::FunctionType,
            (Table::Literal, Tag::TY) => EntryKind::Typedef,
            (Table::Global, Tag::RI) => EntryKind::GlobalInfo,
            (Table::Global, Tag::FN) => EntryKind::Function,
            (Table::Global, Tag::GV) => EntryKind::GlobalVariable,
            _ => return None,
        };
        Some(kind)
    }

    /// True when attribute `tag` of A6.3 is allowed in this kind (B31).
    fn allows(self, tag: Tag) -> bool {
        match tag {
            Tag::NAME | Tag::QNAME | Tag::SIGNATURE | Tag::FLAGS => true,
            Tag::VALUE => self == EntryKind::GlobalVariable,
            Tag::TRACE | Tag::LOCALS | Tag::TEMPORARIES | Tag::STATICS => self == EntryKind::Function,
            Tag::FIELDS => matches!(self, EntryKind::Struct | EntryKind::Union | EntryKind::Class),
            Tag::ARGS => matches!(self, EntryKind::FunctionType | EntryKind::Function),
            _ => false,
        }
    }
}

/// The BYTE tags that A6.3 defines; outside the contexts that allow them they are errors, not extensions.
const DEFINED_ATTRIBUTES: [Tag; 12] = [
    Tag::SIGNATURE,
    Tag::FLAGS,
    Tag::NAME,
    Tag::QNAME,
    Tag::VALUE,
    Tag::TRACE,
    Tag::FIELDS,
    Tag::ARGS,
    Tag::LOCALS,
    Tag::TEMPORARIES,
    Tag::STATICS,
    Tag::VARIABLE,
];

/// True for the keyed attribute tags 0x80-0x82 (A6.4).
pub(crate) fn is_keyed(tag: Tag) -> bool {
    matches!(tag, Tag::LONG_STRING_ATTRIBUTE | Tag::SHORT_STRING_ATTRIBUTE | Tag::INTEGER_ATTRIBUTE)
}

/// Tags kept verbatim: anything a context does not define, mapped to its raw payload, in ascending tag order.
pub type Extensions = BTreeMap<Tag, Vec<u8>>;

/// One child of a LITD or GBLD table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// An entry kind the table defines (boxed: it is large, unknown entries are small).
    Known(Box<EntryData>),
    /// Any other child; it still uses up an index (B27).
    Unknown {
        /// Its tag.
        tag: Tag,
        /// Its raw payload.
        payload: Vec<u8>,
    },
}

/// A known entry (A6.2-A6.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryData {
    /// The kind; it decides which attributes are allowed.
    pub kind: EntryKind,
    /// `n`: the name.
    pub name: Option<StringTag>,
    /// `q`: the qualified or link name.
    pub qname: Option<StringTag>,
    /// `s`: the type signature (A7).
    pub signature: Option<StringTag>,
    /// `f`: the flag string (A7.3).
    pub flags: Option<StringTag>,
    /// `v` (GV only): the value, a context-free register ID (B30).
    pub value: Option<Register>,
    /// `F` (ST, UN, CL): fields.
    pub fields: VariableList,
    /// `A` (both FN kinds): arguments.
    pub args: VariableList,
    /// `L` (GBLD FN with a body): locals.
    pub locals: VariableList,
    /// `R` (GBLD FN with a body): temporaries.
    pub temporaries: VariableList,
    /// `S` (GBLD FN with a body): static variables.
    pub statics: VariableList,
    /// `t` (GBLD FN): trace-table index of the function-body header (B29).
    pub trace: Option<u32>,
    /// Other tags, verbatim.
    pub extensions: Extensions,
    /// Keyed attributes, in order.
    pub keyed: Vec<KeyedAttribute>,
}

impl EntryData {
    /// An entry of `kind` with no attributes.
    pub fn new(kind: EntryKind) -> Self {
        Self {
            kind,
            name: None,
            qname: None,
            signature: None,
            flags: None,
            value: None,
            fields: VariableList::default(),
            args: VariableList::default(),
            locals: VariableList::default(),
            temporaries: VariableList::default(),
            statics: VariableList::default(),
            trace: None,
            extensions: Extensions::new(),
            keyed: Vec::new(),
        }
    }
}

/// A variable list (`F`, `A`, `L`, `R`, `S`): the k-th variable has index k of its class (A6.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VariableList {
    /// The `V` children, in order.
    pub variables: Vec<Variable>,
    /// Other tags, verbatim.
    pub extensions: Extensions,
    /// Keyed attributes, in order.
    pub keyed: Vec<KeyedAttribute>,
}

impl VariableList {
    /// True when the list has nothing to write, so the writer leaves it out.
    pub fn is_empty(&self) -> bool {
        self.variables.is_empty() && self.extensions.is_empty() && self.keyed.is_empty()
    }
}

/// One `V` (A6.3): the string attributes of a variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variable {
    /// `n`.
    pub name: Option<StringTag>,
    /// `q`.
    pub qname: Option<StringTag>,
    /// `s`.
    pub signature: Option<StringTag>,
    /// `f`.
    pub flags: Option<StringTag>,
    /// Other tags (the Whale profile's 0x10 ValueId, C9), verbatim.
    pub extensions: Extensions,
    /// Keyed attributes, in order.
    pub keyed: Vec<KeyedAttribute>,
}

/// A keyed attribute (A6.4): 0x80/0x81 carry a string value, 0x82 an integer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyedAttribute {
    /// The key.
    pub key: StringTag,
    /// The value.
    pub value: KeyedValue,
}

/// The value of a keyed attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyedValue {
    /// 0x80 (long) or 0x81 (short): a string tag. Readers treat both alike; writers pick by size.
    String(StringTag),
    /// 0x82: an SVLI.
    Int(i64),
}

impl KeyedAttribute {
    /// Reads the payload of a 0x80, 0x81 or 0x82 chunk.
    pub fn read(chunk: &Chunk<'_>, strings: &StringTable) -> Result<Self, FormatError> {
        let mut r = chunk.reader();
        let key = StringTag::read(&mut r, strings)?;
        let value = if chunk.tag == Tag::INTEGER_ATTRIBUTE {
            KeyedValue::Int(r.svli()?)
        } else {
            KeyedValue::String(StringTag::read(&mut r, strings)?)
        };
        r.finish("keyed attribute")?;
        Ok(Self { key, value })
    }

    /// Appends the attribute as a chunk: 0x82 for integers, 0x81 when a string attribute fits a small TLV and 0x80
    /// otherwise (A6.4).
    pub fn write(&self, out: &mut Vec<u8>, strings: &StringTable) -> Result<(), WriteError> {
        let mut payload = Vec::new();
        self.key.write(&mut payload, strings)?;
        let tag = match &self.value {
            KeyedValue::Int(v) => {
                super::vli::write_svli(&mut payload, *v);
                Tag::INTEGER_ATTRIBUTE
            }
            KeyedValue::String(s) => {
                s.write(&mut payload, strings)?;
                if payload.len() <= MAX_SMALL_PAYLOAD {
                    Tag::SHORT_STRING_ATTRIBUTE
                } else {
                    Tag::LONG_STRING_ATTRIBUTE
                }
            }
        };
        write_data_chunk(out, tag, &payload)
    }
}

/// What a reader needs besides the bytes.
#[derive(Clone, Copy)]
pub(crate) struct Context<'s> {
    pub strings: &'s StringTable,
    pub limits: &'s Limits,
    /// Whether the model is kept. Without it every item is still read and checked in the same order, so the outcome
    /// (the first error) is the same, but entries, variables and keyed attributes are dropped as soon as they are
    /// read: checking an image then holds one entry at a time, without its variables.
    pub keep: bool,
}

/// A `t` attribute met while reading a table: the 0-based position of its entry, the trace record it names and the
/// offset of the attribute, so that the caller can check the function-body link (A12) and report it there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TraceLink {
    pub position: usize,
    pub record: u32,
    pub offset: u64,
}

/// Reads a LITD or GBLD chunk (at TLV depth `depth`) into its entries; entry k is index k + 1.
pub fn read_table(
    chunk: &Chunk<'_>,
    table: Table,
    strings: &StringTable,
    limits: &Limits,
    depth: u32,
) -> Result<Vec<Entry>, FormatError> {
    let cx = Context { strings, limits, keep: true };
    read_table_with_traces(chunk, table, cx, depth, &mut Vec::new())
}

/// [`read_table`], also collecting every `t` attribute so that the caller can check the function-body links (A12).
/// Without `cx.keep`, the entries are checked and dropped, and the result is empty.
pub(crate) fn read_table_with_traces(
    chunk: &Chunk<'_>,
    table: Table,
    cx: Context<'_>,
    depth: u32,
    traces: &mut Vec<TraceLink>,
) -> Result<Vec<Entry>, FormatError> {
    let mut entries = Vec::new();
    for (position, child) in chunk.children().enumerate() {
        let child = child?;
        match EntryKind::from_tag(table, child.tag) {
            Some(kind) => {
                let mut trace_offset = None;
                let entry = read_entry(&child, kind, cx, depth + 1, &mut trace_offset)?;
                if let (Some(offset), Some(record)) = (trace_offset, entry.trace) {
                    traces.push(TraceLink { position, record, offset });
                }
                if cx.keep {
                    entries.push(Entry::Known(Box::new(entry)));
                }
            }
            None => {
                validate_tree(&child, depth + 1, cx.limits)?;
                if cx.keep {
                    entries.push(Entry::Unknown { tag: child.tag, payload: child.payload.to_vec() });
                }
            }
        }
    }
    Ok(entries)
}

/// Adds an extension, rejecting a repeated tag.
pub(crate) fn add_extension(
    extensions: &mut Extensions,
    chunk: &Chunk<'_>,
    depth: u32,
    limits: &Limits,
) -> Result<(), FormatError> {
    validate_tree(chunk, depth, limits)?;
    if extensions.insert(chunk.tag, chunk.payload.to_vec()).is_some() {
        return Err(FormatError::new(ErrorKind::DuplicateTag { tag: chunk.tag }, chunk.offset));
    }
    Ok(())
}

/// Fills an attribute slot, rejecting a repeated tag (B28).
fn fill<T>(slot: &mut Option<T>, chunk: &Chunk<'_>, value: T) -> Result<(), FormatError> {
    if slot.is_some() {
        return Err(FormatError::new(ErrorKind::DuplicateTag { tag: chunk.tag }, chunk.offset));
    }
    *slot = Some(value);
    Ok(())
}

/// Reads a data payload that must hold exactly one string tag.
fn read_string_payload(chunk: &Chunk<'_>, strings: &StringTable) -> Result<StringTag, FormatError> {
    let mut r = chunk.reader();
    let tag = StringTag::read(&mut r, strings)?;
    r.finish("string tag")?;
    Ok(tag)
}

/// Reads `n`, `q`, `s` or `f` into the matching slot; returns false for any other tag.
fn read_string_attribute(
    chunk: &Chunk<'_>,
    strings: &StringTable,
    slots: [&mut Option<StringTag>; 4],
) -> Result<bool, FormatError> {
    let [name, qname, signature, flags] = slots;
    let slot = match chunk.tag {
        Tag::NAME => name,
        Tag::QNAME => qname,
        Tag::SIGNATURE => signature,
        Tag::FLAGS => flags,
        _ => return Ok(false),
    };
    let value = read_string_payload(chunk, strings)?;
    fill(slot, chunk, value)?;
    Ok(true)
}

fn misplaced(chunk: &Chunk<'_>, context: Tag) -> FormatError {
    FormatError::new(ErrorKind::MisplacedTag { tag: chunk.tag, context }, chunk.offset)
}

fn read_entry(
    chunk: &Chunk<'_>,
    kind: EntryKind,
    cx: Context<'_>,
    depth: u32,
    trace_offset: &mut Option<u64>,
) -> Result<EntryData, FormatError> {
    let mut entry = EntryData::new(kind);
    let mut lists_seen = 0u8;
    for child in chunk.children() {
        let child = child?;
        let slots = [&mut entry.name, &mut entry.qname, &mut entry.signature, &mut entry.flags];
        if read_string_attribute(&child, cx.strings, slots)? {
            continue;
        }
        if is_keyed(child.tag) {
            let keyed = KeyedAttribute::read(&child, cx.strings)?;
            if cx.keep {
                entry.keyed.push(keyed);
            }
            continue;
        }
        if !DEFINED_ATTRIBUTES.contains(&child.tag) {
            add_extension(&mut entry.extensions, &child, depth + 1, cx.limits)?;
            continue;
        }
        if !kind.allows(child.tag) {
            return Err(misplaced(&child, chunk.tag));
        }
        match child.tag {
            Tag::VALUE => {
                let mut r = child.reader();
                let register = Register::read_context_free(&mut r, cx.strings)?;
                r.finish("register ID")?;
                fill(&mut entry.value, &child, register)?;
            }
            Tag::TRACE => {
                let mut r = child.reader();
                let index = r.uvli32()?;
                r.finish("trace index")?;
                fill(&mut entry.trace, &child, index)?;
                *trace_offset = Some(child.offset);
            }
            list_tag => {
                let (bit, list) = match list_tag {
                    Tag::FIELDS => (0, &mut entry.fields),
                    Tag::ARGS => (1, &mut entry.args),
                    Tag::LOCALS => (2, &mut entry.locals),
                    Tag::TEMPORARIES => (3, &mut entry.temporaries),
                    _ => (4, &mut entry.statics),
                };
                if lists_seen & (1 << bit) != 0 {
                    return Err(FormatError::new(ErrorKind::DuplicateTag { tag: child.tag }, child.offset));
                }
                lists_seen |= 1 << bit;
                *list = read_list(&child, cx, depth + 1)?;
            }
        }
    }
    // B80: locals, temporaries and statics belong to functions with a body, even as empty lists.
    if entry.trace.is_none() && lists_seen & 0b11100 != 0 {
        return Err(FormatError::new(ErrorKind::ListWithoutBody, chunk.offset));
    }
    Ok(entry)
}

fn read_list(chunk: &Chunk<'_>, cx: Context<'_>, depth: u32) -> Result<VariableList, FormatError> {
    if depth > cx.limits.max_tlv_depth {
        return Err(FormatError::new(ErrorKind::NestingTooDeep { limit: cx.limits.max_tlv_depth }, chunk.offset));
    }
    let mut list = VariableList::default();
    for child in chunk.children() {
        let child = child?;
        if child.tag == Tag::VARIABLE {
            let variable = read_variable(&child, cx, depth + 1)?;
            if cx.keep {
                list.variables.push(variable);
            }
        } else if is_keyed(child.tag) {
            let keyed = KeyedAttribute::read(&child, cx.strings)?;
            if cx.keep {
                list.keyed.push(keyed);
            }
        } else if DEFINED_ATTRIBUTES.contains(&child.tag) {
            return Err(misplaced(&child, chunk.tag));
        } else {
            add_extension(&mut list.extensions, &child, depth + 1, cx.limits)?;
        }
    }
    Ok(list)
}

fn read_variable(chunk: &Chunk<'_>, cx: Context<'_>, depth: u32) -> Result<Variable, FormatError> {
    if depth > cx.limits.max_tlv_depth {
        return Err(FormatError::new(ErrorKind::NestingTooDeep { limit: cx.limits.max_tlv_depth }, chunk.offset));
    }
    let mut variable = Variable::default();
    for child in chunk.children() {
        let child = child?;
        let slots = [&mut variable.name, &mut variable.qname, &mut variable.signature, &mut variable.flags];
        if read_string_attribute(&child, cx.strings, slots)? {
            continue;
        }
        if is_keyed(child.tag) {
            variable.keyed.push(KeyedAttribute::read(&child, cx.strings)?);
        } else if DEFINED_ATTRIBUTES.contains(&child.tag) {
            return Err(misplaced(&child, chunk.tag));
        } else {
            add_extension(&mut variable.extensions, &child, depth + 1, cx.limits)?;
        }
    }
    Ok(variable)
}

/// Appends a LITD or GBLD chunk holding `entries`; an empty table is left out (A3).
pub fn write_table(
    out: &mut Vec<u8>,
    table: Table,
    entries: &[Entry],
    strings: &StringTable,
) -> Result<(), WriteError> {
    if entries.is_empty() {
        return Ok(());
    }
    write_chunk(out, table.tag(), |out| {
        for entry in entries {
            match entry {
                Entry::Known(data) => {
                    if data.kind.table() != table {
                        return Err(WriteError::InvalidTag { tag: data.kind.tag() });
                    }
                    write_entry(out, data, strings)?;
                }
                Entry::Unknown { tag, payload } => {
                    if EntryKind::from_tag(table, *tag).is_some() {
                        return Err(WriteError::ReservedExtension { tag: *tag, context: table.tag() });
                    }
                    write_data_chunk(out, *tag, payload)?;
                }
            }
        }
        Ok(())
    })
}

fn write_string_attributes(
    out: &mut Vec<u8>,
    strings: &StringTable,
    name: &Option<StringTag>,
    qname: &Option<StringTag>,
    signature: &Option<StringTag>,
    flags: &Option<StringTag>,
) -> Result<(), WriteError> {
    for (tag, value) in [(Tag::NAME, name), (Tag::QNAME, qname), (Tag::SIGNATURE, signature), (Tag::FLAGS, flags)] {
        if let Some(value) = value {
            let mut payload = Vec::new();
            value.write(&mut payload, strings)?;
            write_data_chunk(out, tag, &payload)?;
        }
    }
    Ok(())
}

/// Writes extensions and keyed attributes: extensions in ascending tag order, keyed attributes in model order at the
/// place of their tag value (after the extensions below 0x80, before those above 0x82).
pub(crate) fn write_trailer(
    out: &mut Vec<u8>,
    extensions: &Extensions,
    keyed: &[KeyedAttribute],
    strings: &StringTable,
    context: Tag,
    defined: &dyn Fn(Tag) -> bool,
) -> Result<(), WriteError> {
    for &tag in extensions.keys() {
        if defined(tag) || is_keyed(tag) {
            return Err(WriteError::ReservedExtension { tag, context });
        }
    }
    for (tag, payload) in extensions.range(..Tag::LONG_STRING_ATTRIBUTE) {
        write_data_chunk(out, *tag, payload)?;
    }
    for attribute in keyed {
        attribute.write(out, strings)?;
    }
    for (tag, payload) in extensions.range(Tag::LONG_STRING_ATTRIBUTE..) {
        write_data_chunk(out, *tag, payload)?;
    }
    Ok(())
}

fn write_entry(out: &mut Vec<u8>, entry: &EntryData, strings: &StringTable) -> Result<(), WriteError> {
    let kind = entry.kind;
    let context = kind.tag();
    let misplaced = |tag| WriteError::ReservedExtension { tag, context };
    let lists = [
        (Tag::FIELDS, &entry.fields),
        (Tag::ARGS, &entry.args),
        (Tag::LOCALS, &entry.locals),
        (Tag::TEMPORARIES, &entry.temporaries),
        (Tag::STATICS, &entry.statics),
    ];
    if entry.value.is_some() && !kind.allows(Tag::VALUE) {
        return Err(misplaced(Tag::VALUE));
    }
    if entry.trace.is_some() && !kind.allows(Tag::TRACE) {
        return Err(misplaced(Tag::TRACE));
    }
    for (tag, list) in lists {
        if !list.is_empty() && !kind.allows(tag) {
            return Err(misplaced(tag));
        }
    }
    if entry.trace.is_none() && !(entry.locals.is_empty() && entry.temporaries.is_empty() && entry.statics.is_empty()) {
        return Err(WriteError::ListWithoutBody);
    }
    write_chunk(out, context, |out| {
        write_string_attributes(out, strings, &entry.name, &entry.qname, &entry.signature, &entry.flags)?;
        if let Some(register) = &entry.value {
            let mut payload = Vec::new();
            register.write(&mut payload, strings)?;
            write_data_chunk(out, Tag::VALUE, &payload)?;
        }
        for (tag, list) in lists {
            if !list.is_empty() {
                write_list(out, tag, list, strings)?;
            }
        }
        if let Some(index) = entry.trace {
            let mut payload = Vec::new();
            write_uvli32(&mut payload, index);
            write_data_chunk(out, Tag::TRACE, &payload)?;
        }
        write_trailer(out, &entry.extensions, &entry.keyed, strings, context, &|tag| DEFINED_ATTRIBUTES.contains(&tag))
    })
}

fn write_list(out: &mut Vec<u8>, tag: Tag, list: &VariableList, strings: &StringTable) -> Result<(), WriteError> {
    write_chunk(out, tag, |out| {
        for variable in &list.variables {
            write_chunk(out, Tag::VARIABLE, |out| {
                let v = variable;
                write_string_attributes(out, strings, &v.name, &v.qname, &v.signature, &v.flags)?;
                write_trailer(out, &v.extensions, &v.keyed, strings, Tag::VARIABLE, &|t| {
                    DEFINED_ATTRIBUTES.contains(&t)
                })
            })?;
        }
        write_trailer(out, &list.extensions, &list.keyed, strings, tag, &|t| DEFINED_ATTRIBUTES.contains(&t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::tlv::read_chunk;
    use crate::format::{Reader, StringTableBuilder};

    fn round_trip(table: Table, entries: &[Entry], strings: &StringTable) -> Vec<u8> {
        let mut bytes = Vec::new();
        write_table(&mut bytes, table, entries, strings).unwrap();
        let chunk = read_chunk(&mut Reader::new(&bytes, 0)).unwrap();
        let back = read_table(&chunk, table, strings, &Limits::default(), 2).unwrap();
        assert_eq!(back, entries);
        bytes
    }

    fn read(table: Table, bytes: &[u8], strings: &StringTable) -> Result<Vec<Entry>, FormatError> {
        let chunk = read_chunk(&mut Reader::new(bytes, 0)).unwrap();
        read_table(&chunk, table, strings, &Limits::default(), 2)
    }

    /// A global `n` = "g", `s` = "i", `v` = int 3, in canonical bytes.
    #[test]
    fn global_variable_bytes() {
        let strings = StringTable::default();
        let mut gv = EntryData::new(EntryKind::GlobalVariable);
        gv.name = Some(StringTag::Inline("g".into()));
        gv.signature = Some(StringTag::Inline("i".into()));
        gv.value = Some(Register::Int(3));
        let bytes = round_trip(Table::Global, &[Entry::Known(Box::new(gv))], &strings);
        #[rustfmt::skip]
        assert_eq!(bytes, [
            (25 << 2) | 2, 0, 0, 0, b'G', b'B', b'L', b'D', // GBLD, 25 bytes
            17 << 2, 0, b'G', b'V',                         // GV, 17 bytes
            (5 << 3) | 3, b'n', 0x01, b'g', 0x00,            // n: inline "g"
            (5 << 3) | 3, b's', 0x01, b'i', 0x00,            // s: inline "i"
            (3 << 3) | 3, b'v', 0x69,                        // v: int 3 = (6 << 4) | 9
        ]);
    }

    #[test]
    fn function_with_lists_keyed_and_extensions() {
        let mut b = StringTableBuilder::new();
        let name = b.tag("a_long_function_name");
        let strings = b.finish();
        let mut f = EntryData::new(EntryKind::Function);
        f.name = Some(name);
        f.qname = Some(StringTag::Index(0));
        f.signature = Some(StringTag::Inline("(i)v".into()));
        f.flags = Some(StringTag::Index(1));
        let arg = Variable {
            name: Some(StringTag::Inline("x".into())),
            signature: Some(StringTag::Inline("i".into())),
            extensions: Extensions::from([(Tag::byte(0x10), vec![0x05])]),
            ..Variable::default()
        };
        f.args.variables = vec![arg, Variable::default()];
        f.temporaries.variables =
            vec![Variable { signature: Some(StringTag::Inline("i".into())), ..Variable::default() }];
        f.trace = Some(3);
        f.extensions =
            Extensions::from([(Tag::byte(0x11), vec![1, 2]), (Tag::twocc(*b"zz"), vec![]), (Tag::byte(b'Z'), vec![])]);
        f.keyed = vec![
            KeyedAttribute { key: StringTag::Inline("k".into()), value: KeyedValue::Int(-3) },
            KeyedAttribute { key: StringTag::Index(2), value: KeyedValue::String(StringTag::Inline("x".repeat(40))) },
            KeyedAttribute { key: StringTag::Index(2), value: KeyedValue::String(StringTag::Index(1)) },
        ];
        let bytes = round_trip(
            Table::Global,
            &[Entry::Known(Box::new(f)), Entry::Unknown { tag: Tag::twocc(*b"XX"), payload: vec![] }],
            &strings,
        );
        // The keyed attributes took tags 0x82, 0x80 (41-byte payload) and 0x81.
        let tags: Vec<Tag> = {
            let root = read_chunk(&mut Reader::new(&bytes, 0)).unwrap();
            let entry = root.children().next().unwrap().unwrap();
            entry.children().map(|c| c.unwrap().tag).collect()
        };
        assert_eq!(
            tags,
            [
                Tag::NAME,
                Tag::QNAME,
                Tag::SIGNATURE,
                Tag::FLAGS,
                Tag::ARGS,
                Tag::TEMPORARIES,
                Tag::TRACE,
                Tag::byte(0x11),
                Tag::byte(b'Z'),
                Tag::INTEGER_ATTRIBUTE,
                Tag::LONG_STRING_ATTRIBUTE,
                Tag::SHORT_STRING_ATTRIBUTE,
                Tag::twocc(*b"zz"),
            ]
        );
    }

    #[test]
    fn struct_fields_and_unknown_entries_use_indices() {
        let strings = StringTable::default();
        let mut st = EntryData::new(EntryKind::Struct);
        st.name = Some(StringTag::Inline("$2".into()));
        st.fields.variables = vec![Variable { signature: Some(StringTag::Inline("i".into())), ..Variable::default() }];
        let entries = [Entry::Unknown { tag: Tag::twocc(*b"QQ"), payload: vec![] }, Entry::Known(Box::new(st))];
        round_trip(Table::Literal, &entries, &strings);
    }

    #[test]
    fn reader_rejects_duplicates_misplaced_and_bodiless_lists() {
        let strings = StringTable::default();
        // GBLD { GV { n "a", n "b" } }
        #[rustfmt::skip]
        let bytes = [
            (22 << 2) | 2, 0, 0, 0, b'G', b'B', b'L', b'D', 14 << 2, 0, b'G', b'V',
            (5 << 3) | 3, b'n', 0x01, b'a', 0x00, (5 << 3) | 3, b'n', 0x01, b'b', 0x00,
        ];
        assert_eq!(
            read(Table::Global, &bytes, &strings).unwrap_err(),
            FormatError::new(ErrorKind::DuplicateTag { tag: Tag::NAME }, 17)
        );
        // `t` in a GV.
        let bytes = [(15 << 2) | 2, 0, 0, 0, b'G', b'B', b'L', b'D', 7 << 2, 0, b'G', b'V', 0x1B, b't', 0x00];
        assert_eq!(
            read(Table::Global, &bytes, &strings).unwrap_err(),
            FormatError::new(ErrorKind::MisplacedTag { tag: Tag::TRACE, context: Tag::GV }, 12)
        );
        // `R` without `t`.
        let bytes = [(14 << 2) | 2, 0, 0, 0, b'G', b'B', b'L', b'D', 6 << 2, 0, b'F', b'N', 0x13, b'R'];
        assert_eq!(read(Table::Global, &bytes, &strings).unwrap_err(), FormatError::new(ErrorKind::ListWithoutBody, 8));
        // `v` with a repeat register.
        let bytes = [(15 << 2) | 2, 0, 0, 0, b'G', b'B', b'L', b'D', 7 << 2, 0, b'G', b'V', 0x1B, b'v', 0x08];
        assert_eq!(
            read(Table::Global, &bytes, &strings).unwrap_err(),
            FormatError::new(ErrorKind::RepeatOutsideVops, 14)
        );
        // A string tag that does not fill its payload.
        let bytes = [(16 << 2) | 2, 0, 0, 0, b'L', b'I', b'T', b'D', 8 << 2, 0, b'S', b'T', 0x23, b'n', 0x02, 0x02];
        assert_eq!(
            read(Table::Literal, &bytes, &strings).unwrap_err(),
            FormatError::new(ErrorKind::TrailingBytes { what: "string tag", count: 1 }, 15)
        );
    }

    #[test]
    fn writer_rejects_what_the_reader_would() {
        let strings = StringTable::default();
        let write = |entry: EntryData| {
            write_table(&mut Vec::new(), entry.kind.table(), &[Entry::Known(Box::new(entry))], &strings)
        };
        let mut gv = EntryData::new(EntryKind::GlobalVariable);
        gv.trace = Some(1);
        assert!(write(gv).is_err());
        let mut f = EntryData::new(EntryKind::Function);
        f.locals.variables.push(Variable::default());
        assert_eq!(write(f.clone()), Err(WriteError::ListWithoutBody));
        f.trace = Some(0);
        assert!(write(f.clone()).is_ok());
        f.extensions.insert(Tag::NAME, vec![]);
        assert!(write(f.clone()).is_err());
        f.extensions.clear();
        f.extensions.insert(Tag::SHORT_STRING_ATTRIBUTE, vec![]);
        assert!(write(f).is_err());
        let mut st = EntryData::new(EntryKind::Struct);
        st.name = Some(StringTag::Index(2));
        assert_eq!(write(st), Err(WriteError::StringIndexOutOfRange { index: 2, count: 2 }));
    }
}
