//! The canonical writer's bytes for generated workloads, pinned by length and FNV-1a hash: any change to the bytes
//! `write_module` produces (an optimisation that is not byte-neutral, a changed canonical choice) fails here. The
//! values were taken from the writer before its speed work and checked unchanged after it. W1 and W2 are fixed by
//! `shared/reference/workloads.md` (SplitMix64 draws); if their generator changes on purpose, re-pin from the
//! failure message.

#[path = "../../ir/benches/workloads.rs"]
mod workloads;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3))
}

fn check(name: &str, module: &ir::Module, len: usize, hash: u64) {
    let image = fr2e::write_module(module);
    let back = fr2e::read_module(&image).unwrap();
    assert_eq!(fr2e::write_module(&back), image, "{name}: not canonical");
    assert_eq!((image.len(), fnv1a(&image)), (len, hash), "{name}: the written bytes changed");
}

#[test]
fn w1_bytes_are_pinned() {
    check("W1(3000)", &workloads::w1(3000), W1_LEN, W1_HASH);
}

#[test]
fn w2_bytes_are_pinned() {
    check("W2(40)", &workloads::w2(40), W2_LEN, W2_HASH);
}

const W1_LEN: usize = 56_976;
const W1_HASH: u64 = 8_501_169_068_825_623_805;
const W2_LEN: usize = 45_935;
const W2_HASH: u64 = 1_434_944_719_121_373_154;
