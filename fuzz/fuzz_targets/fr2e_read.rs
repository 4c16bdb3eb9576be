//! Arbitrary bytes through every FR2E decoder: the format layer's image model and listing, and the mapping to
//! `ir::Module`. None may panic; the listing fails exactly when the format layer's reader does, with its error; a
//! module that reads (and so verifies) must write, and its image must read back to the same bytes. Run from the
//! workspace root with `cargo +nightly fuzz run fr2e_read` (see `docs/fr2e.md`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let model = fr2e::format::Image::read(data);
    let listed = match fr2e::dump(data, &mut std::io::sink()) {
        Ok(()) => Ok(()),
        Err(fr2e::DumpError::Format(e)) => Err(e),
        Err(fr2e::DumpError::Io(e)) => panic!("io::sink failed: {e}"),
    };
    assert_eq!(listed, model.map(drop), "the listing's verdict is the format layer's");
    if let Ok(module) = fr2e::read_module(data) {
        let image = fr2e::write_module(&module);
        let again = fr2e::read_module(&image).expect("a written image reads back");
        assert_eq!(fr2e::write_module(&again), image, "the written image is canonical");
    }
});
