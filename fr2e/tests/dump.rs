//! The listing (`fr2e::dump`) of valid images, pinned: the whole text for a small image (`examples/fib.json`, written
//! with `strz` so that every root chunk kind appears), and length plus FNV-1a hash for generated workloads. Any change
//! to the text of a valid image's listing fails here; if a change is meant, re-pin from the failure message (and
//! rewrite `listings/fib-strz.txt` from the listing).

#[path = "../../ir/benches/workloads.rs"]
mod workloads;

use std::path::Path;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3))
}

/// The listing of a valid image.
fn listing(bytes: &[u8]) -> String {
    let mut out = String::new();
    fr2e::dump(bytes, &mut out).unwrap();
    out
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
