//! Property tests of the FR2E format layer: canonical round trips in both directions, and readers that never panic on
//! arbitrary or mutated bytes.

use fr2e::format::vli::{self, write_opvli, write_svli, write_uvli128, write_uvli32, write_uvli64};
use fr2e::format::{
    read_chunk, write_chunk, write_data_chunk, Chunk, HeaderForm, Limits, Reader, StringTable, StringTableBuilder,
    StringTag, Tag,
};
use proptest::prelude::*;

fn vli_bytes(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    f(&mut out);
    out
}

/// A valid tag of any width: a BYTE tag, a genuine TWOCC or a genuine FOURCC.
fn tag() -> impl Strategy<Value = Tag> {
    let printable = 0x20u8..=0x7E;
    prop_oneof![
        (1u8..=0xFF).prop_map(Tag::byte),
        (printable.clone(), printable.clone()).prop_map(|(a, b)| Tag::twocc([a, b])),
        proptest::array::uniform4(printable).prop_map(Tag::fourcc),
    ]
}

/// A generic TLV tree: data leaves and compound nodes, as plain data.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    Data(Tag, Vec<u8>),
    Compound(Tag, Vec<Node>),
}

fn node() -> impl Strategy<Value = Node> {
    let data_tag = tag().prop_filter("data", |t| !t.is_compound());
    let leaf = (data_tag, proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(t, p)| Node::Data(t, p));
    leaf.prop_recursive(4, 24, 5, |inner| {
        (tag().prop_filter("compound", |t| t.is_compound()), proptest::collection::vec(inner, 0..5))
            .prop_map(|(t, c)| Node::Compound(t, c))
    })
}

fn write_node(out: &mut Vec<u8>, node: &Node) {
    match node {
        Node::Data(tag, payload) => write_data_chunk(out, *tag, payload).unwrap(),
        Node::Compound(tag, children) => write_chunk(out, *tag, |o| {
            children.iter().for_each(|c| write_node(o, c));
            Ok(())
        })
        .unwrap(),
    }
}

fn read_node(chunk: &Chunk<'_>) -> Node {
    if chunk.tag.is_compound() {
        Node::Compound(chunk.tag, chunk.children().map(|c| read_node(&c.unwrap())).collect())
    } else {
        Node::Data(chunk.tag, chunk.payload.to_vec())
    }
}

proptest! {
    #[test]
    fn uvli64_round_trip(v in any::<u64>()) {
        let bytes = vli_bytes(|o| write_uvli64(o, v));
        prop_assert_eq!(bytes.len(), vli::uvli64_len(v));
        let mut r = Reader::new(&bytes, 0);
        prop_assert_eq!(r.uvli64().unwrap(), v);
        prop_assert!(r.is_empty());
    }

    #[test]
    fn uvli32_round_trip(v in any::<u32>()) {
        let bytes = vli_bytes(|o| write_uvli32(o, v));
        prop_assert_eq!(Reader::new(&bytes, 0).uvli32().unwrap(), v);
    }

    #[test]
    fn uvli128_round_trip(v in any::<u128>()) {
        let bytes = vli_bytes(|o| write_uvli128(o, v));
        let mut r = Reader::new(&bytes, 0);
        prop_assert_eq!(r.uvli128().unwrap(), v);
        prop_assert!(r.is_empty());
        // Below 2^63 the 128-bit and 64-bit flavours give the same bytes (A4.3).
        if v < 1 << 63 {
            prop_assert_eq!(bytes, vli_bytes(|o| write_uvli64(o, v as u64)));
        }
    }

    #[test]
    fn svli_and_opvli_round_trip(v in any::<i64>(), w in any::<u32>()) {
        let bytes = vli_bytes(|o| write_svli(o, v));
        prop_assert_eq!(Reader::new(&bytes, 0).svli().unwrap(), v);
        let bytes = vli_bytes(|o| write_opvli(o, w));
        prop_assert_eq!(Reader::new(&bytes, 0).opvli().unwrap(), w);
    }

    /// Canonical bytes re-encode to themselves: decoding then encoding any readable UVLI gives the shortest form,
    /// which equals the input exactly when the input was shortest.
    #[test]
    fn uvli_canonical_bytes(bytes in proptest::collection::vec(any::<u8>(), 1..10)) {
        let mut r = Reader::new(&bytes, 0);
        if let Ok(v) = r.uvli64() {
            let used = &bytes[..bytes.len() - r.remaining()];
            let canonical = vli_bytes(|o| write_uvli64(o, v));
            prop_assert!(canonical.len() <= used.len());
            if canonical.len() == used.len() {
                prop_assert_eq!(canonical.as_slice(), used);
            }
        }
    }

    #[test]
    fn interleave_round_trip(y in any::<u32>(), x in any::<u32>()) {
        prop_assert_eq!(vli::deinterleave(vli::interleave(y, x)), (y, x));
        prop_assert_eq!(vli::interleave_wide(u64::from(y), u64::from(x)), u128::from(vli::interleave(y, x)));
    }

    /// `read(write(tree)) == tree` and `write(read(bytes)) == bytes` for TLV trees with every header form.
    #[test]
    fn tlv_round_trip(tree in node()) {
        let mut bytes = Vec::new();
        write_node(&mut bytes, &tree);
        let mut r = Reader::new(&bytes, 0);
        let chunk = read_chunk(&mut r).unwrap();
        prop_assert!(r.is_empty());
        let back = read_node(&chunk);
        prop_assert_eq!(&back, &tree);
        let mut again = Vec::new();
        write_node(&mut again, &back);
        prop_assert_eq!(again, bytes);
    }

    /// Large payloads take the wider forms; each reads back with the narrowest form that fits.
    #[test]
    fn tlv_forms(t in tag(), len in prop_oneof![0usize..40, 16370usize..16400]) {
        let payload = vec![0xA5; len];
        let mut bytes = Vec::new();
        write_data_chunk(&mut bytes, t, &payload).unwrap();
        let chunk = read_chunk(&mut Reader::new(&bytes, 0)).unwrap();
        prop_assert_eq!(chunk.tag, t);
        prop_assert_eq!(Some(chunk.form), HeaderForm::canonical(t, len));
        prop_assert_eq!(chunk.payload, payload.as_slice());
    }

    #[test]
    fn string_table_round_trip(strings in proptest::collection::vec(".{0,12}", 0..20), compress in any::<bool>()) {
        let mut builder = StringTableBuilder::new();
        let tags: Vec<StringTag> = strings.iter().map(|s| builder.tag(s)).collect();
        let table = builder.finish();
        let data = if compress { table.strz_payload() } else { table.strs_payload().to_vec() };
        let stri = table.stri_payload();
        let data_chunk = Chunk { tag: if compress { Tag::STRZ } else { Tag::STRS }, form: HeaderForm::Fourcc, offset: 0, payload: &data };
        let stri_chunk = Chunk { tag: Tag::STRI, form: HeaderForm::Fourcc, offset: 0, payload: &stri };
        let (strs, strz) = if compress { (None, Some(&data_chunk)) } else { (Some(&data_chunk), None) };
        let (read, compressed) = StringTable::read(strs, strz, Some(&stri_chunk), &Limits::default()).unwrap();
        prop_assert_eq!(compressed, compress);
        prop_assert_eq!(&read, &table);
        for (s, tag) in strings.iter().zip(&tags) {
            let mut bytes = Vec::new();
            tag.write(&mut bytes, &read).unwrap();
            let back = StringTag::read(&mut Reader::new(&bytes, 0), &read).unwrap();
            prop_assert_eq!(&back, tag);
            match back.resolve(&read).unwrap() {
                fr2e::format::StringValue::Text(text) => prop_assert_eq!(text.as_ref(), s.as_str()),
                fr2e::format::StringValue::Null => prop_assert!(false, "NULL"),
            }
        }
    }

    /// No reader panics on arbitrary bytes; every error lies inside the input.
    #[test]
    fn readers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let len = bytes.len() as u64;
        let mut r = Reader::new(&bytes, 0);
        if let Ok(chunk) = read_chunk(&mut r) {
            let _ = fr2e::format::tlv::validate_tree(&chunk, 1, &Limits::default());
        }
        for read in [
            |r: &mut Reader<'_>| r.uvli64().map(drop),
            |r: &mut Reader<'_>| r.uvli32().map(drop),
            |r: &mut Reader<'_>| r.uvli128().map(drop),
            |r: &mut Reader<'_>| r.opvli().map(drop),
            |r: &mut Reader<'_>| StringTag::read(r, &StringTable::default()).map(drop),
        ] {
            let mut r = Reader::new(&bytes, 0);
            while !r.is_empty() {
                if let Err(e) = read(&mut r) {
                    prop_assert!(e.offset <= len);
                    break;
                }
            }
        }
        let chunk = Chunk { tag: Tag::STRZ, form: HeaderForm::Fourcc, offset: 0, payload: &bytes };
        let _ = StringTable::read(None, Some(&chunk), Some(&chunk), &Limits::default());
        let _ = StringTable::read(Some(&chunk), None, Some(&chunk), &Limits::default());
    }
}

// ---------------------------------------------------------------------------------------------------------------
// LITD / GBLD entries.

use fr2e::format::entry::{read_table, write_table};
use fr2e::format::{
    Entry, EntryData, EntryKind, Extensions, KeyedAttribute, KeyedValue, Register, Subtype, Table, Variable,
    VariableList,
};

/// A table of `n` strings ("string 2", "string 3", …).
fn string_table(n: usize) -> StringTable {
    let mut b = StringTableBuilder::new();
    for i in 0..n {
        b.intern(&format!("string {}", i + 2));
    }
    b.finish()
}

const STRINGS: usize = 6;

fn string_tag() -> impl Strategy<Value = StringTag> {
    prop_oneof![(0u32..STRINGS as u32 + 2).prop_map(StringTag::Index), ".{0,9}".prop_map(StringTag::Inline)]
}

fn register() -> impl Strategy<Value = Register> {
    let subtype = prop_oneof![
        Just(Subtype::Int32),
        Just(Subtype::UInt64),
        Just(Subtype::Float32),
        Just(Subtype::Float16AsDouble)
    ];
    prop_oneof![
        (0u32..1 << 31, 0u32..1 << 30).prop_map(|(base, seq)| Register::Temporary { base, seq }),
        (0u32..1 << 31, 0u32..1 << 30).prop_map(|(base, seq)| Register::Arg { base, seq }),
        (0u32..1 << 31, 0u32..1 << 30).prop_map(|(base, seq)| Register::Local { base, seq }),
        (0u64..1 << 60).prop_map(Register::Global),
        (0u64..1 << 60).prop_map(Register::Literal),
        (-(1i64 << 59)..1 << 59).prop_map(Register::Int),
        (0u64..STRINGS as u64 + 2).prop_map(Register::String),
        (0u64..1 << 59).prop_map(Register::GlobalAddress),
        (subtype, -(1i64 << 54)..1 << 54).prop_map(|(subtype, value)| Register::Subtyped { subtype, value }),
        (-(1i64 << 58)..1 << 58).prop_map(Register::Long),
        (0u64..1 << 59).prop_map(Register::WideString),
        (0u32..1 << 29, 0u32..1 << 29).prop_map(|(field, levels)| Register::This { field, levels }),
        any::<i64>().prop_map(Register::RawLong),
        any::<u64>().prop_map(Register::RawDouble),
        (any::<i64>(), any::<i64>()).prop_map(|(low, high)| Register::RawInt128 { low, high }),
        (any::<i64>(), any::<i64>()).prop_map(|(low, high)| Register::RawFloat128 { low, high }),
    ]
}

/// Extension tags: non-letter BYTE tags (the Whale profile's 0x10-0x18 among them) and unknown data TWOCCs.
fn extensions() -> impl Strategy<Value = Extensions> {
    let tag = prop_oneof![
        (1u8..0x41).prop_map(Tag::byte),
        (0x83u8..=0xFF).prop_map(Tag::byte),
        (b'a'..=b'z', b'a'..=b'z').prop_map(|(a, b)| Tag::twocc([a, b])),
    ];
    proptest::collection::btree_map(tag, proptest::collection::vec(any::<u8>(), 0..6), 0..3)
}

fn keyed() -> impl Strategy<Value = Vec<KeyedAttribute>> {
    let value = prop_oneof![any::<i64>().prop_map(KeyedValue::Int), string_tag().prop_map(KeyedValue::String)];
    let attribute = (string_tag(), value).prop_map(|(key, value)| KeyedAttribute { key, value });
    proptest::collection::vec(attribute, 0..2)
}

fn variable() -> impl Strategy<Value = Variable> {
    let strings = proptest::array::uniform4(proptest::option::of(string_tag()));
    (strings, extensions(), keyed()).prop_map(|([name, qname, signature, flags], extensions, keyed)| Variable {
        name,
        qname,
        signature,
        flags,
        extensions,
        keyed,
    })
}

fn list() -> impl Strategy<Value = VariableList> {
    let lists = (proptest::collection::vec(variable(), 0..3), extensions(), keyed());
    prop_oneof![
        2 => Just(VariableList::default()),
        1 => lists.prop_map(|(variables, extensions, keyed)| VariableList { variables, extensions, keyed }),
    ]
}

fn entry(table: Table) -> impl Strategy<Value = Entry> {
    let kinds: &[EntryKind] = match table {
        Table::Literal => &[
            EntryKind::LiteralInfo,
            EntryKind::Struct,
            EntryKind::Union,
            EntryKind::Class,
            EntryKind::FunctionType,
            EntryKind::Typedef,
        ],
        Table::Global => &[EntryKind::GlobalInfo, EntryKind::Function, EntryKind::GlobalVariable],
    };
    let strings = proptest::array::uniform4(proptest::option::of(string_tag()));
    let lists = proptest::array::uniform5(list());
    let known = (
        proptest::sample::select(kinds),
        strings,
        proptest::option::of(register()),
        lists,
        proptest::option::of(any::<u32>()),
        extensions(),
        keyed(),
    )
        .prop_map(|(kind, [name, qname, signature, flags], value, lists, trace, extensions, keyed)| {
            let mut e = EntryData::new(kind);
            (e.name, e.qname, e.signature, e.flags, e.extensions, e.keyed) =
                (name, qname, signature, flags, extensions, keyed);
            let [fields, args, locals, temporaries, statics] = lists;
            if kind == EntryKind::GlobalVariable {
                e.value = value;
            }
            if matches!(kind, EntryKind::Struct | EntryKind::Union | EntryKind::Class) {
                e.fields = fields;
            }
            if matches!(kind, EntryKind::FunctionType | EntryKind::Function) {
                e.args = args;
            }
            if kind == EntryKind::Function && trace.is_some() {
                (e.trace, e.locals, e.temporaries, e.statics) = (trace, locals, temporaries, statics);
            }
            Entry::Known(Box::new(e))
        });
    let unknown = (b'a'..=b'z', proptest::collection::vec(any::<u8>(), 0..4))
        .prop_map(|(c, payload)| Entry::Unknown { tag: Tag::twocc([c, b'x']), payload });
    prop_oneof![4 => known, 1 => unknown]
}

fn table_and_entries() -> impl Strategy<Value = (Table, Vec<Entry>)> {
    prop_oneof![Just(Table::Literal), Just(Table::Global)]
        .prop_flat_map(|table| (Just(table), proptest::collection::vec(entry(table), 1..5)))
}

proptest! {
    #[test]
    fn table_round_trip((table, entries) in table_and_entries()) {
        let strings = string_table(STRINGS);
        let mut bytes = Vec::new();
        write_table(&mut bytes, table, &entries, &strings).unwrap();
        let chunk = read_chunk(&mut Reader::new(&bytes, 0)).unwrap();
        let back = read_table(&chunk, table, &strings, &Limits::default(), 2).unwrap();
        prop_assert_eq!(&back, &entries);
        let mut again = Vec::new();
        write_table(&mut again, table, &back, &strings).unwrap();
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn register_round_trip(register in register()) {
        let strings = string_table(STRINGS);
        let mut bytes = Vec::new();
        register.write(&mut bytes, &strings).unwrap();
        let mut r = Reader::new(&bytes, 0);
        prop_assert_eq!(Register::read_context_free(&mut r, &strings).unwrap(), register);
        prop_assert!(r.is_empty());
    }

    /// Mutated tables never panic the reader, and errors point inside the input.
    #[test]
    fn table_reader_survives_mutation(
        (table, entries) in table_and_entries(),
        edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let strings = string_table(STRINGS);
        let mut bytes = Vec::new();
        write_table(&mut bytes, table, &entries, &strings).unwrap();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if let Ok(chunk) = read_chunk(&mut Reader::new(&bytes, 0)) {
            if let Err(e) = read_table(&chunk, table, &strings, &Limits::default(), 2) {
                prop_assert!(e.offset <= bytes.len() as u64);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Signature and flag strings.

use fr2e::format::{ClassModifier, Flags, Signature};

fn name() -> impl Strategy<Value = String> {
    "[^;\u{0}]{1,6}"
}

fn signature() -> impl Strategy<Value = Signature> {
    let leaf = prop_oneof![
        proptest::sample::select(b"abcdefghijklmnoprstuvwxyz".to_vec()).prop_map(Signature::Primitive),
        proptest::sample::select(b"abcdefghijkmnopqrsuvwxyz".to_vec()).prop_map(Signature::CExtended),
        proptest::sample::select(b"aijnz".to_vec()).prop_map(Signature::DExtended),
        name().prop_map(Signature::TagClass),
        name().prop_filter("not a convention", |n| !n.starts_with("cc.")).prop_map(Signature::Extended),
        name().prop_map(Signature::Named),
    ];
    leaf.prop_recursive(5, 32, 4, |inner| {
        let modifier = proptest::sample::select(vec![
            ClassModifier::BigEndian,
            ClassModifier::Far,
            ClassModifier::LittleEndian,
            ClassModifier::Near,
            ClassModifier::Packed,
            ClassModifier::Wide,
        ]);
        let param = inner
            .clone()
            .prop_filter("v and z are not plain parameters", |p| !matches!(p, Signature::Primitive(b'v' | b'z')));
        prop_oneof![
            inner.clone().prop_map(|s| Signature::Pointer(Box::new(s))),
            inner.clone().prop_map(|s| Signature::TagArray(Box::new(s))),
            inner.clone().prop_map(|s| Signature::Reference(Box::new(s))),
            inner.clone().prop_map(|s| Signature::WidePointer(Box::new(s))),
            (any::<u64>(), inner.clone()).prop_map(|(size, e)| Signature::Array { size, element: Box::new(e) }),
            (modifier, inner.clone()).prop_map(|(modifier, s)| Signature::Modified { modifier, inner: Box::new(s) }),
            (proptest::option::of(name()), proptest::collection::vec(param, 0..3), any::<bool>(), inner).prop_map(
                |(convention, mut params, varargs, ret)| {
                    if varargs {
                        params.push(Signature::Primitive(b'z'));
                    }
                    Signature::Function { convention, params, ret: Box::new(ret) }
                }
            ),
        ]
    })
}

proptest! {
    #[test]
    fn signature_round_trip(sig in signature()) {
        let text = sig.to_string();
        let back = Signature::parse(&text).unwrap();
        prop_assert_eq!(&back, &sig);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn flags_round_trip(letters in any::<u32>(), c in any::<u32>(), d in any::<u32>(), named in proptest::collection::btree_set(name(), 0..3)) {
        let mask = (1 << 26) - 1;
        let flags = Flags { letters: letters & mask, c_letters: c & mask, d_letters: d & mask, named };
        let text = flags.to_string();
        prop_assert_eq!(Flags::parse(&text).unwrap(), flags);
    }

    /// Arbitrary text never panics either parser, and errors point inside the text.
    #[test]
    fn text_parsers_never_panic(text in "[A-Za-z0-9;().é\u{0}]{0,24}") {
        if let Err(e) = Signature::parse(&text) {
            prop_assert!(e.position <= text.len());
        }
        if let Ok(sig) = Signature::parse(&text) {
            prop_assert_eq!(sig.to_string(), text.clone());
        }
        if let Err(e) = Flags::parse(&text) {
            prop_assert!(e.position <= text.len());
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// VOPs, traces and whole images.

use fr2e::format::{opcode, Image, Immediate, TraceRecord, Vop, VopStream, VopType};

/// Types: simple ones (some pointers) and table signatures ("string 2"… have no simple form).
fn vop_type() -> impl Strategy<Value = VopType> {
    let bases =
        vec![0u8, 1, 2, 3, 5, 7, 8, 9, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17];
    prop_oneof![
        (0u8..3, proptest::sample::select(bases)).prop_map(|(level, base)| VopType::Simple { level, base }),
        (2u32..STRINGS as u32 + 2).prop_map(VopType::Signature),
    ]
}

/// A register drawn mostly from a small set, so that the register MTF repeats.
fn vop_register() -> impl Strategy<Value = Register> {
    prop_oneof![
        3 => (0u32..4).prop_map(|base| Register::Temporary { base, seq: 0 }),
        1 => (0u32..2).prop_map(|base| Register::Arg { base, seq: 0 }),
        1 => register(),
    ]
}

#[derive(Clone, Debug)]
enum ImmRecipe {
    Plain(Immediate),
    Args(Vec<Register>),
    Table(i64, Vec<u32>, u32),
}

fn imm_recipe() -> impl Strategy<Value = ImmRecipe> {
    let plain = prop_oneof![
        (-(1i64 << 60) + 1..1 << 60).prop_map(Immediate::Int),
        (0i64..4).prop_map(Immediate::Int),
        (0u32..4).prop_map(Immediate::Label),
        any::<u32>().prop_map(Immediate::Label),
        (0u32..STRINGS as u32 + 2).prop_map(Immediate::String),
        (any::<u64>(), any::<u64>()).prop_map(|(literal, field)| Immediate::Field { literal, field }),
        (0u64..4, 0u64..4).prop_map(|(literal, field)| Immediate::Field { literal, field }),
    ];
    prop_oneof![
        4 => plain.prop_map(ImmRecipe::Plain),
        1 => proptest::collection::vec(vop_register(), 0..4).prop_map(ImmRecipe::Args),
        1 => (any::<i64>(), proptest::collection::vec(any::<u32>(), 0..4), any::<u32>())
            .prop_map(|(base, labels, default)| ImmRecipe::Table(base, labels, default)),
    ]
}

#[derive(Clone, Debug)]
struct VopRecipe {
    opn: u32,
    opr: u32,
    prd: Option<u32>,
    types: [Option<VopType>; 2],
    registers: [Option<Register>; 5],
    imm: Option<ImmRecipe>,
}

fn vop_recipe() -> impl Strategy<Value = VopRecipe> {
    let opn = prop_oneof![1u32..0x30, 0x40u32..0x4C, 1u32..=u32::MAX];
    let opr = prop_oneof![Just(0u32), 0u32..20, any::<u32>()];
    (
        opn,
        opr,
        proptest::option::weighted(0.1, any::<u32>()),
        proptest::array::uniform2(proptest::option::of(vop_type())),
        proptest::array::uniform5(proptest::option::weighted(0.4, vop_register())),
        proptest::option::of(imm_recipe()),
    )
        .prop_map(|(opn, opr, prd, types, registers, imm)| VopRecipe { opn, opr, prd, types, registers, imm })
}

fn build_stream(recipes: &[VopRecipe]) -> VopStream {
    let mut stream = VopStream::default();
    for r in recipes {
        let imm = r.imm.as_ref().map(|imm| match imm {
            ImmRecipe::Plain(imm) => *imm,
            ImmRecipe::Args(args) => stream.push_args(args),
            ImmRecipe::Table(base, labels, default) => stream.push_jump_table(*base, labels, *default),
        });
        let [dst, srca, srcb, srcc, srcd] = r.registers;
        stream.vops.push(Vop {
            opn: r.opn,
            opr: r.opr,
            prd: r.prd,
            ty: r.types[0],
            stype: r.types[1],
            dst,
            srca,
            srcb,
            srcc,
            srcd,
            imm,
        });
    }
    stream
}

/// An image: a VOP stream split into functions (each a few traces and a header), GBLD `FN` entries linked to the
/// headers, unrelated entries around them, and root extensions.
fn image() -> impl Strategy<Value = Image> {
    (
        proptest::collection::vec(vop_recipe(), 0..40),
        proptest::collection::vec(1usize..4, 0..4),
        proptest::collection::vec(entry(Table::Global), 0..3),
        proptest::collection::vec(entry(Table::Literal), 0..3),
        any::<bool>(),
        extensions(),
        keyed(),
    )
        .prop_map(|(recipes, trace_counts, others, literals, compress, extensions, keyed)| {
            let mut image = Image {
                strings: string_table(STRINGS),
                compress_strings: compress,
                vops: build_stream(&recipes),
                literals,
                extensions: extensions.into_iter().filter(|(t, _)| t.0 < 0x100).collect(),
                keyed,
                ..Image::default()
            };
            // Unrelated global entries first; drop their `t`, which would need a header.
            for mut e in others {
                if let Entry::Known(data) = &mut e {
                    if data.trace.is_some() {
                        data.trace = None;
                        (data.locals, data.temporaries, data.statics) = Default::default();
                    }
                }
                image.globals.push(e);
            }
            let vop_count = image.vops.vops.len();
            let per_function = vop_count / trace_counts.len().max(1);
            for (f, &traces) in trace_counts.iter().enumerate() {
                let start = f * per_function;
                let first_record = image.traces.len() as u64;
                for k in 0..traces {
                    let length = per_function / traces + usize::from(k == 0 && f == 0);
                    let offset = k * (per_function / traces);
                    let b_ops = if k == 0 { -(start as i64) } else { offset as i64 };
                    let n_ops = length.min(vop_count - start - offset) as u64;
                    image.traces.push(TraceRecord::Trace { b_ops, n_ops, flags: k as u64 % 3 });
                }
                let header = image.traces.len() as u32;
                let gblid = image.globals.len() as u64 + 1;
                image.traces.push(TraceRecord::Header { b_vtr: first_record, n_vtr: traces as u64, gblid });
                let mut function = EntryData::new(EntryKind::Function);
                function.name = Some(StringTag::Inline(format!("f{f}")));
                function.trace = Some(header);
                image.globals.push(Entry::Known(Box::new(function)));
            }
            image
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn vop_stream_round_trip(recipes in proptest::collection::vec(vop_recipe(), 0..60)) {
        let strings = string_table(STRINGS);
        let stream = build_stream(&recipes);
        let bytes = stream.write(&strings).unwrap();
        let back = VopStream::read(Reader::new(&bytes, 0), &strings).unwrap();
        prop_assert_eq!(&back, &stream);
        prop_assert_eq!(back.write(&strings).unwrap(), bytes);
    }

    #[test]
    fn image_round_trip(image in image()) {
        let bytes = image.write().unwrap();
        let back = Image::read(&bytes).unwrap();
        prop_assert_eq!(&back, &image);
        prop_assert_eq!(back.write().unwrap(), bytes);
    }

    /// Mutated images never panic the reader, and every error lies inside the input.
    #[test]
    fn image_reader_survives_mutation(
        image in image(),
        edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<proptest::sample::Index>(),
    ) {
        let mut bytes = image.write().unwrap();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if let Err(e) = Image::read(&bytes) {
            prop_assert!(e.offset <= bytes.len() as u64, "{e}");
        }
        let truncated = &bytes[..cut.index(bytes.len())];
        prop_assert!(Image::read(truncated).is_err() || truncated.is_empty());
    }

    /// Arbitrary payloads in every root chunk: the reader returns, whatever the bytes.
    #[test]
    fn image_reader_survives_arbitrary_payloads(
        payloads in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..48), 7),
        present in proptest::collection::vec(any::<bool>(), 7),
    ) {
        let tags = [Tag::STRS, Tag::STRZ, Tag::STRI, Tag::VOPS, Tag::VTRS, Tag::LITD, Tag::GBLD];
        let mut bytes = Vec::new();
        write_chunk(&mut bytes, Tag::FR2E, |out| {
            for ((tag, payload), present) in tags.iter().zip(&payloads).zip(&present) {
                if *present {
                    write_data_chunk(out, *tag, payload)?;
                }
            }
            Ok(())
        })
        .unwrap();
        if let Err(e) = Image::read(&bytes) {
            prop_assert!(e.offset <= bytes.len() as u64);
        }
    }
}

#[test]
fn opcode_numbers_follow_the_spec() {
    assert_eq!((opcode::UNARY, opcode::BINARY, opcode::LABEL, opcode::CALL_INTRIN), (1, 2, 3, 0x2F));
    assert_eq!((opcode::X_PHI, opcode::X_FCMP, opcode::X_UNINIT), (0x40, 0x4A, 0x4B));
}
