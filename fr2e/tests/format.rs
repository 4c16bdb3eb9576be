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
