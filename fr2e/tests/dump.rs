//! The listing (`fr2e::dump`).
//!
//! The listing of valid images is pinned: the whole text for a small image (`examples/fib.json`, written with `strz`
//! so that every root chunk kind appears), and length plus FNV-1a hash for generated workloads. Any change to the text
//! of a valid image's listing fails here; if a change is meant, re-pin from the failure message (and rewrite
//! `listings/fib-strz.txt` from the listing).
//!
//! On other images the dump must fail exactly when the format layer's reader does, with the listing of everything
//! before the problem; `tests/mutations.rs` checks that on mutated images, the tests here on the cases that once
//! slipped through: a broken `strz`, payloads only the Whale profile gives a meaning to, deep nesting.

#[path = "../../ir/benches/workloads.rs"]
mod workloads;

mod support;

use std::io;
use std::path::Path;

use fr2e::format::{read_chunk, write_chunk, write_data_chunk, ErrorKind, FormatError, Image, Reader, Tag};
use fr2e::DumpError;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3))
}

/// The listing of any image, and the dump's verdict.
fn dump(bytes: &[u8]) -> (String, Result<(), FormatError>) {
    let mut out = Vec::new();
    let result = fr2e::dump(bytes, &mut out).map_err(|e| match e {
        DumpError::Format(e) => e,
        DumpError::Io(e) => panic!("writing to a Vec failed: {e}"),
    });
    (String::from_utf8(out).unwrap(), result)
}

/// The listing of a valid image.
fn listing(bytes: &[u8]) -> String {
    let (text, result) = dump(bytes);
    result.unwrap();
    text
}

fn fib() -> ir::Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/fib.json");
    let program = ir::lower_ast::interchange::decode(&std::fs::read_to_string(path).unwrap()).unwrap();
    let target = ir::Target::lookup("x86_64-whale-linux").unwrap();
    ir::lower_ast::lower_o0(&program, target.name(), target.data_layout()).unwrap()
}

fn compressed(module: &ir::Module) -> Vec<u8> {
    fr2e::try_write_module_with(module, fr2e::WriteOptions { compress_strings: true }).unwrap()
}

fn check(name: &str, bytes: &[u8], len: usize, hash: u64) {
    let text = listing(bytes);
    assert_eq!((text.len(), fnv1a(text.as_bytes())), (len, hash), "{name}: the listing changed");
}

#[test]
fn fib_listing_is_pinned() {
    let expected = include_str!("listings/fib-strz.txt");
    assert_eq!(listing(&compressed(&fib())), expected);
}

#[test]
fn workload_listings_are_pinned() {
    check("W1(3000)", &fr2e::write_module(&workloads::w1(3000)), W1_LEN, W1_HASH);
    check("W2(40)", &fr2e::write_module(&workloads::w2(40)), W2_LEN, W2_HASH);
    check("W2(3) strz", &compressed(&workloads::w2(3)), W2_STRZ_LEN, W2_STRZ_HASH);
}

const W1_LEN: usize = 1_062_039;
const W1_HASH: u64 = 12_672_047_815_240_374_005;
const W2_LEN: usize = 852_045;
const W2_HASH: u64 = 3_261_032_973_399_441_776;
const W2_STRZ_LEN: usize = 61_456;
const W2_STRZ_HASH: u64 = 2_554_421_637_102_207_666;

/// `image` with the payload of its `strz` replaced: a UVLI64 `size`, then `block`. The other root children are copied
/// byte for byte.
fn with_strz(image: &[u8], size: u64, block: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    fr2e::format::vli::write_uvli64(&mut payload, size);
    payload.extend_from_slice(block);
    let root = read_chunk(&mut Reader::new(image, 0)).unwrap();
    let mut out = Vec::new();
    write_chunk(&mut out, Tag::FR2E, |out| {
        for child in root.children() {
            let child = child.unwrap();
            if child.tag == Tag::STRZ {
                write_data_chunk(out, Tag::STRZ, &payload)?;
            } else {
                let start = child.offset as usize;
                out.extend_from_slice(&image[start..start + child.len() as usize]);
            }
        }
        Ok(())
    })
    .unwrap();
    out
}

/// The dump of a bad image fails with the reader's error, after listing the whole image.
fn fails_like_the_reader(bytes: &[u8], kind: ErrorKind) {
    let expected = Image::read(bytes).unwrap_err();
    assert_eq!(expected.kind, kind);
    let (text, result) = dump(bytes);
    assert_eq!(result, Err(expected));
    let listed: usize = text.lines().map(|l| l.split(" | ").nth(1).unwrap_or("").split_whitespace().count()).sum();
    assert_eq!(listed, bytes.len(), "the walk lists every byte:\n{text}");
}

/// A `strz` whose declared size is over the limit: against the default 64 MiB, and against what the block can expand
/// to. The listing shows the chunks; the VOPs cannot be decoded without strings.
#[test]
fn strz_size_over_the_limit_fails() {
    let image = compressed(&fib());
    let (_, block) = strz_parts(&image);
    let bytes = with_strz(&image, u64::MAX, &block);
    fails_like_the_reader(&bytes, ErrorKind::StringDataTooLarge { size: u64::MAX, limit: 255 * block.len() as u64 });
    assert!(dump(&bytes).0.contains("(no valid string table: VOPs not decoded)"));

    // Over 64 MiB / 255 bytes of noise compress to a block that could expand past the default limit.
    let mut state = 0x5731u64;
    let noise: Vec<u8> = (0..300_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        })
        .collect();
    let big = lz4_flex::block::compress(&noise);
    let size = (64 << 20) + 1;
    fails_like_the_reader(&with_strz(&image, size, &big), ErrorKind::StringDataTooLarge { size, limit: 64 << 20 });
}

/// A `strz` block that decompresses to fewer or more bytes than declared.
#[test]
fn strz_block_of_the_wrong_size_fails() {
    let image = compressed(&fib());
    let (size, block) = strz_parts(&image);
    assert!(dump(&with_strz(&image, size, &block)).1.is_ok());
    for declared in [size - 1, size + 1, 0] {
        fails_like_the_reader(&with_strz(&image, declared, &block), ErrorKind::BadLz4Block);
    }
    // The same block cut short: it now decodes to fewer bytes than the size says.
    fails_like_the_reader(&with_strz(&image, size, &block[..block.len() - 3]), ErrorKind::BadLz4Block);
}

/// The declared size and the LZ4 block of `image`'s `strz`.
fn strz_parts(image: &[u8]) -> (u64, Vec<u8>) {
    let root = read_chunk(&mut Reader::new(image, 0)).unwrap();
    let strz = root.children().map(Result::unwrap).find(|c| c.tag == Tag::STRZ).unwrap();
    let mut r = strz.reader();
    let size = r.uvli64().unwrap();
    (size, r.rest().to_vec())
}

/// The Whale profile's root extensions are opaque to the format layer, so a payload that does not decode is listed
/// as such and the dump succeeds, as the reader does.
#[test]
fn undecodable_profile_extensions_are_listed() {
    let mut bytes = Vec::new();
    write_chunk(&mut bytes, Tag::FR2E, |out| {
        write_data_chunk(out, Tag::byte(0x14), &[0x03])?;
        write_data_chunk(out, Tag::byte(0x15), &[0x80])
    })
    .unwrap();
    assert!(Image::read(&bytes).is_ok());
    let text = listing(&bytes);
    assert!(text.contains("0x14 chunk, not decodable: reserved string tag value -2"), "{text}");
    assert!(text.contains("0x15 chunk, not decodable: unexpected end of data"), "{text}");
}

/// 100,000 nested chunks in a function entry: refused at the nesting limit, as the reader refuses them, instead of
/// recursed into once per level. Unknown compound tags nest anywhere; nested `V`s are misplaced for the reader, and
/// the listing walks variables.
#[test]
fn deep_nesting_is_refused() {
    let unknown = nested(Tag::byte(b'X'), 100_000);
    let expected = Image::read(&unknown).unwrap_err();
    assert_eq!(expected.kind, ErrorKind::NestingTooDeep { limit: 32 });
    assert_eq!(dump(&unknown).1, Err(expected));

    // The reader refuses the first nested `V` as misplaced; the listing walks on to the nesting limit, says so on
    // its last line, and returns the reader's error.
    let variables = nested(Tag::VARIABLE, 100_000);
    let expected = Image::read(&variables).unwrap_err();
    assert_eq!(expected.kind, ErrorKind::MisplacedTag { tag: Tag::VARIABLE, context: Tag::VARIABLE });
    let (text, result) = dump(&variables);
    assert_eq!(result, Err(expected));
    let last = text.lines().last().unwrap();
    assert!(last.ends_with("(the listing stops here: offset 0xc4: TLV nesting deeper than 32)"), "{last}");
}

/// An image whose GBLD holds one FN entry holding an `A` list holding `levels` nested `tag` chunks. Headers only:
/// root and GBLD in DWORD+FOURCC form, the rest in DWORD+TWOCC (six bytes each); every chunk ends where its innermost
/// child ends.
fn nested(tag: Tag, levels: usize) -> Vec<u8> {
    let mut chain = vec![(Tag::FR2E, 8), (Tag::GBLD, 8), (Tag::FN, 6), (Tag::ARGS, 6)];
    chain.extend(std::iter::repeat_n((tag, 6), levels));
    let mut total: u32 = chain.iter().map(|&(_, len)| len).sum();
    let mut bytes = Vec::with_capacity(total as usize);
    for (tag, len) in chain {
        let t = tag.0.to_le_bytes();
        if len == 8 {
            bytes.extend_from_slice(&((total << 2) | 2).to_le_bytes());
            bytes.extend_from_slice(&t);
        } else {
            bytes.extend_from_slice(&((total << 2) | 1).to_le_bytes());
            bytes.extend_from_slice(&t[..2]);
        }
        total -= len;
    }
    bytes
}

/// Counts what it is given, and fails with `BrokenPipe` once it has taken `capacity` bytes.
struct Pipe {
    taken: usize,
    writes: usize,
    capacity: usize,
}

impl Pipe {
    fn new(capacity: usize) -> Self {
        Self { taken: 0, writes: 0, capacity }
    }
}

impl io::Write for Pipe {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.taken >= self.capacity {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        let n = buf.len().min(self.capacity - self.taken);
        self.taken += n;
        self.writes += 1;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A listing of about 30 MB goes out in blocks of about 64 KiB while the dump holds well under 1 MiB: memory follows
/// the image, not the listing.
#[test]
fn listings_stream_in_bounded_memory() {
    let bytes = fr2e::write_module(&workloads::w1(100_000));
    let mut pipe = Pipe::new(usize::MAX);
    let (result, peak) = support::peak_of(|| fr2e::dump(&bytes, &mut pipe));
    result.unwrap();
    assert!(pipe.taken > 15 * bytes.len(), "{} bytes of listing for a {}-byte image", pipe.taken, bytes.len());
    assert!(pipe.writes <= pipe.taken / (64 << 10) + 1, "{} writes", pipe.writes);
    assert!(peak < 1 << 20, "{peak} bytes held for a {}-byte listing", pipe.taken);
}

/// A writer that fails stops the dump with its own error, valid image or not.
#[test]
fn writer_errors_stop_the_dump() {
    let bytes = fr2e::write_module(&workloads::w1(3000));
    // A byte in the middle of the image, changed so that the reader refuses it.
    let broken = (bytes.len() / 2..)
        .map(|i| {
            let mut broken = bytes.clone();
            broken[i] = 0xFF;
            broken
        })
        .find(|broken| Image::read(broken).is_err())
        .unwrap();
    for image in [&bytes, &broken] {
        for capacity in [0, 100_000] {
            let mut pipe = Pipe::new(capacity);
            match fr2e::dump(image, &mut pipe) {
                Err(DumpError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::BrokenPipe),
                other => panic!("{other:?}"),
            }
            assert_eq!(pipe.taken, capacity);
        }
    }
    let error = DumpError::Io(io::ErrorKind::BrokenPipe.into());
    assert_eq!(error.to_string(), "cannot write the listing: broken pipe");
}

/// An image holding only `strs` and `stri` for `offsets`.
fn strings_image(data: &[u8], offsets: &[u32]) -> Vec<u8> {
    let mut stri = Vec::new();
    let mut previous = 0;
    for &offset in offsets {
        fr2e::format::vli::write_uvli32(&mut stri, offset - previous);
        previous = offset;
    }
    let mut bytes = Vec::new();
    write_chunk(&mut bytes, Tag::FR2E, |out| {
        write_data_chunk(out, Tag::STRS, data)?;
        write_data_chunk(out, Tag::STRI, &stri)
    })
    .unwrap();
    bytes
}

/// Each piece of `strs` is labelled with the first index starting there; shared and suffix offsets are legal (B22).
#[test]
fn string_data_is_labelled_by_first_index() {
    let text = listing(&strings_image(b"\0ab\0b\0", &[1, 1, 2, 4]));
    let labels: Vec<&str> = text.lines().filter_map(|l| l.rsplit(" | ").next()).map(str::trim).collect();
    assert_eq!(labels[2..5], ["\"\"", "\"ab\" #2", "\"b\" #5"], "{text}");
}

/// 200,000 table strings are labelled in one pass over the data, not one search per piece.
#[test]
fn many_strings_are_listed() {
    let count = 200_000u32;
    let data: Vec<u8> = (0..count).flat_map(|_| *b"a\0").collect();
    let offsets: Vec<u32> = (0..count).map(|j| 2 * j).collect();
    let text = listing(&strings_image(&data, &offsets));
    assert!(text.contains("  \"a\" #2\n"));
    assert!(text.contains(&format!("  \"a\" #{}\n", count + 1)));
}
