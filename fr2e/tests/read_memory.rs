//! The reader's allocations stay within a small multiple of its input, for valid and hostile images alike
//! (issue 6 acceptance; STYLE §6 "never preallocate from an untrusted count").
//!
//! A counting global allocator tracks the bytes each thread holds; a read's peak above what the thread held before
//! is compared with the input size. `strz` is the one documented exception (LZ4 may expand a block 255-fold,
//! `format::limits`), so the hostile images here are built without it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use proptest::prelude::*;

struct Counting;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note(grow: usize, shrink: usize) {
    let _ = HELD.try_with(|held| {
        let now = held.get().saturating_add(grow).saturating_sub(shrink);
        held.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call forwards to the system allocator unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            note(layout.size(), 0);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        note(0, layout.size());
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            note(new_size, layout.size());
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak bytes held above the starting level while `f` runs.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, PEAK.with(Cell::get) - base)
}

/// The bound: a fixed allowance for the id tables a short image may address (ids up to 65536, as in the text
/// reader), plus a multiple of the input.
fn bound(len: usize) -> usize {
    (2 << 20) + 48 * len
}

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
