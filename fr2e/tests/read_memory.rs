//! The reader's allocations stay within a small multiple of its input, for valid and hostile images alike
//! (issue 6 acceptance; STYLE §6 "never preallocate from an untrusted count").
//!
//! A counting global allocator tracks the bytes each thread holds; a read's peak above what the thread held before
//! is compared with the input size. `strz` is the one documented exception (LZ4 may expand a block 255-fold,
//! `format::limits`), so the hostile images here are built without it.

mod support;

use proptest::prelude::*;
use support::{bound, peak_of};

fn module_of(n: usize) -> ir::Module {
    let mut mb = ir::ModuleBuilder::new("x86_64-whale-linux", ir::DataLayout::default_64bit_le());
    let mut f = mb.begin_function("f", vec![("x".into(), ir::Type::I64)], ir::Type::I64);
    let mut v = f.param_value(0);
    for i in 0..n {
        let c = f.const_i64(i as i64);
        v = if i % 2 == 0 { f.add(ir::Type::I64, v, c) } else { f.xor(ir::Type::I64, v, c) };
    }
    f.ret(Some(v));
    f.finish();
    mb.finish()
}

#[test]
fn valid_images_read_within_the_bound() {
    for n in [10, 1000, 50_000] {
        let bytes = fr2e::write_module(&module_of(n));
        let (module, peak) = peak_of(|| fr2e::read_module(&bytes).unwrap());
        eprintln!("{n} pairs: {} bytes, read peak {peak} ({:.1}x)", bytes.len(), peak as f64 / bytes.len() as f64);
        assert!(peak <= bound(bytes.len()), "{n}: {peak} bytes for a {}-byte image", bytes.len());
        drop(module);
    }
}

/// Checking an image without the model (`Image::validate`) holds less than the image itself, where the format
/// layer's `Image::read` holds many times it.
#[test]
fn validation_keeps_no_model() {
    let bytes = fr2e::write_module(&module_of(50_000));
    let (checked, peak) = peak_of(|| fr2e::format::Image::validate(&bytes));
    checked.unwrap();
    assert!(peak < bytes.len() / 100, "validate: {peak} bytes for a {}-byte image", bytes.len());
    let (image, read_peak) = peak_of(|| fr2e::format::Image::read(&bytes));
    image.unwrap();
    assert!(read_peak > 10 * bytes.len(), "read {read_peak} bytes for a {}-byte image", bytes.len());
}

/// An image whose only child is a `strz` declaring `size` bytes, followed by `block`.
fn strz_image(size: u64, block: &[u8]) -> Vec<u8> {
    use fr2e::format::{vli::write_uvli64, write_chunk, write_data_chunk, Tag};
    let mut payload = Vec::new();
    write_uvli64(&mut payload, size);
    payload.extend_from_slice(block);
    let mut image = Vec::new();
    write_chunk(&mut image, Tag::FR2E, |out| write_data_chunk(out, Tag::STRZ, &payload)).unwrap();
    image
}

/// With the `strz` limit raised to the maximum, an LZ4 block of 64 KiB of noise declaring the 16 MiB that LZ4 could
/// expand it to is refused before any buffer is allocated for it; so is the largest declared size.
#[test]
fn raised_strz_limits_do_not_allocate_the_declared_size() {
    let limits = fr2e::ReadLimits {
        format: fr2e::format::Limits { max_string_data: u64::MAX, ..Default::default() },
        ..Default::default()
    };
    let mut state = 0x5731u64;
    let noise: Vec<u8> = (0..1 << 16)
        .map(|_| {
            // xorshift64: incompressible enough that the block is about as long as the data.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        })
        .collect();
    let block = lz4_flex::block::compress(&noise);
    for size in [255 * block.len() as u64, u64::MAX] {
        let bytes = strz_image(size, &block);
        let (read, peak) = peak_of(|| fr2e::read_module_with_limits(&bytes, &limits));
        let err = read.unwrap_err();
        assert!(peak <= bound(bytes.len()), "{peak} bytes for a {}-byte image: {err}", bytes.len());
    }
}

proptest! {
    #[test]
    fn hostile_images_read_within_the_bound(
        n in 1usize..200,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..8),
    ) {
        let mut bytes = fr2e::write_module(&module_of(n));
        for (at, value, how) in edits {
            let i = at.index(bytes.len().max(1)).min(bytes.len().saturating_sub(1));
            match how {
                0 => bytes[i] = value,
                1 => bytes[i] ^= 1 << (value % 8),
                2 => bytes.truncate(i.max(8)),
                _ => bytes.insert(i, value),
            }
        }
        let (_, peak) = peak_of(|| fr2e::read_module(&bytes));
        prop_assert!(peak <= bound(bytes.len()), "{peak} bytes for a {}-byte image", bytes.len());
    }

    #[test]
    fn arbitrary_images_read_within_the_bound(payload in prop::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = (((payload.len() as u32 + 8) << 2) | 2).to_le_bytes().to_vec();
        bytes.extend_from_slice(b"FR2E");
        bytes.extend_from_slice(&payload);
        let (_, peak) = peak_of(|| fr2e::read_module(&bytes));
        prop_assert!(peak <= bound(bytes.len()), "{peak} bytes for a {}-byte image", bytes.len());
    }
}
