//! Mutated valid images: bit flips, overwritten bytes, truncations, insertions and deletions, decoded by the mapping
//! (`fr2e::read_module`), the format layer (`Image::read`) and the listing (`fr2e::dump`).
//!
//! Every decoder must return, never panic; a refusal must carry an offset inside the input and a reason; a read's
//! peak allocation stays within the bound of `support::bound`; whatever still reads as a module must be written
//! and read back exactly (the image it gives is canonical); and the listing fails exactly when the format layer's
//! reader does. This is the stable counterpart of the `fr2e_read` fuzz target in `fuzz/`, with the seeds a fuzzer
//! would start from: the AST examples and small W1/W2 workloads, each also written with `strz`.

#[path = "../../ir/benches/workloads.rs"]
mod workloads;

mod support;

use std::path::Path;
use std::sync::OnceLock;

use fr2e::format::Image;
use fr2e::DumpError;
use proptest::prelude::*;
use support::{bound, peak_of};

/// Images of the AST examples and of small W1 and W2 modules: the canonical ones, then the same with `strz`.
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        let target = ir::Target::lookup("x86_64-whale-linux").unwrap();
        let mut modules: Vec<ir::Module> = paths
            .iter()
            .map(|path| {
                let program = ir::lower_ast::interchange::decode(&std::fs::read_to_string(path).unwrap()).unwrap();
                ir::lower_ast::lower_o0(&program, target.name(), target.data_layout()).unwrap()
            })
            .collect();
        modules.push(workloads::w1(60));
        modules.push(workloads::w2(3));
        let compressed = fr2e::WriteOptions { compress_strings: true };
        let canonical = modules.iter().map(fr2e::write_module);
        canonical.chain(modules.iter().map(|m| fr2e::try_write_module_with(m, compressed).unwrap())).collect()
    })
}

#[derive(Clone, Debug)]
enum Edit {
    FlipBit(prop::sample::Index, u8),
    SetByte(prop::sample::Index, u8),
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, Vec<u8>),
    Delete(prop::sample::Index, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<prop::sample::Index>(), 0u8..8).prop_map(|(at, bit)| Edit::FlipBit(at, bit)),
        2 => (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(at, v)| Edit::SetByte(at, v)),
        1 => any::<prop::sample::Index>().prop_map(Edit::Truncate),
        2 => (any::<prop::sample::Index>(), prop::collection::vec(any::<u8>(), 1..6))
            .prop_map(|(at, bytes)| Edit::Insert(at, bytes)),
        1 => (any::<prop::sample::Index>(), 1u8..8).prop_map(|(at, n)| Edit::Delete(at, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    let len = bytes.len();
    if len == 0 {
        return;
    }
    match edit {
        Edit::FlipBit(at, bit) => bytes[at.index(len)] ^= 1 << bit,
        Edit::SetByte(at, value) => bytes[at.index(len)] = *value,
        Edit::Truncate(at) => bytes.truncate(at.index(len)),
        Edit::Insert(at, new) => {
            let i = at.index(len + 1);
            bytes.splice(i..i, new.iter().copied());
        }
        Edit::Delete(at, n) => {
            let i = at.index(len);
            bytes.drain(i..(i + usize::from(*n)).min(len));
        }
    }
}

/// Decodes `bytes` every way; panics (failing the case) only when a decoder breaks its contract.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let len = bytes.len() as u64;
    let (read, peak) = peak_of(|| fr2e::read_module(bytes));
    prop_assert!(peak <= bound(bytes.len()), "{peak} bytes for a {}-byte image", bytes.len());
    match read {
        Ok(module) => {
            // Whatever reads is a verified module, so it writes, and its image is canonical.
            let image = fr2e::write_module(&module);
            let again = fr2e::read_module(&image);
            prop_assert!(again.is_ok(), "the rewritten image does not read: {:?}", again.err());
            prop_assert_eq!(fr2e::write_module(&again.unwrap()), image);
        }
        Err(e) => {
            prop_assert!(e.offset() <= len, "offset {} beyond a {len}-byte input: {e}", e.offset());
            prop_assert!(!e.to_string().is_empty());
        }
    }
    let image = Image::read(bytes).map(drop);
    if let Err(e) = image {
        prop_assert!(e.offset <= len, "format layer: offset {} beyond a {len}-byte input: {e}", e.offset);
    }
    // Checking without the model gives the read's verdict and error.
    prop_assert_eq!(Image::validate(bytes), image);
    // The listing streams: it holds no more than a read, whatever its length.
    let (listed, peak) = peak_of(|| fr2e::dump(bytes, &mut std::io::sink()));
    prop_assert!(peak <= bound(bytes.len()), "dump: {peak} bytes for a {}-byte image", bytes.len());
    match &listed {
        Ok(()) => {}
        Err(DumpError::Format(e)) => {
            prop_assert!(e.offset <= len, "dump: offset {} beyond a {len}-byte input: {e}", e.offset);
        }
        Err(DumpError::Io(e)) => prop_assert!(false, "io::sink failed: {e}"),
    }
    // The listing's verdict is the format layer's, error included.
    let listed = listed.map_err(|e| match e {
        DumpError::Format(e) => Some(e),
        DumpError::Io(_) => None,
    });
    prop_assert_eq!(listed, image.map_err(Some));
    Ok(())
}

#[test]
fn seeds_read_back() {
    let seeds = seeds();
    let (canonical, compressed) = seeds.split_at(seeds.len() / 2);
    for (seed, packed) in canonical.iter().zip(compressed) {
        let module = fr2e::read_module(seed).unwrap();
        assert_eq!(&fr2e::write_module(&module), seed);
        assert_eq!(&fr2e::write_module(&fr2e::read_module(packed).unwrap()), seed);
        fr2e::dump(packed, &mut std::io::sink()).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn mutated_images_fail_cleanly(seed in any::<prop::sample::Index>(), edits in prop::collection::vec(edit(), 1..6)) {
        let seeds = seeds();
        let mut bytes = seeds[seed.index(seeds.len())].clone();
        for e in &edits {
            apply(&mut bytes, e);
        }
        check(&bytes)?;
    }

    /// Arbitrary payloads under a valid root header reach past the first check.
    #[test]
    fn arbitrary_payloads_fail_cleanly(payload in prop::collection::vec(any::<u8>(), 0..256)) {
        let mut bytes = (((payload.len() as u32 + 8) << 2) | 2).to_le_bytes().to_vec();
        bytes.extend_from_slice(b"FR2E");
        bytes.extend_from_slice(&payload);
        check(&bytes)?;
    }
}
