//! Build, verify and print throughput on the W1 (straight-line) and W2 (many
//! functions) workloads, plus retained heap bytes per instruction. The build
//! bench replays pre-drawn workload recipes, so it times the builder, not the PRNG.
//!
//! Run: `cargo bench -p ir --bench build_verify_print`. Throughput is reported
//! per Whale instruction (see `workloads.rs` for how the abstract workload maps
//! onto Whale IR). Verification and printing run on one thread, so the figures
//! compare with earlier sequential ones; `ir/verify_threads` and
//! `ir/print_stream_threads` time the 1M workloads with 1 and 2 threads side by side.

mod workloads;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Counts live heap bytes so the bench can report what a finished module retains.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

type Generator = fn(usize) -> ir::Module;

fn cases() -> Vec<(&'static str, usize, Generator)> {
    vec![
        ("w1_10k", 10_000, workloads::w1 as Generator),
        ("w1_100k", 100_000, workloads::w1),
        ("w1_1m", 1_000_000, workloads::w1),
        ("w2_100k", 2_000, workloads::w2),
        ("w2_1m", 20_000, workloads::w2),
    ]
}

fn report_heap() {
    for (name, size, make) in cases() {
        let before = LIVE.load(Ordering::Relaxed);
        let module = make(size);
        let live = LIVE.load(Ordering::Relaxed) - before;
        let insts = module.inst_count() as f64;
        println!(
            "heap {name}: {} instructions, {:.1} live bytes/inst, {:.1} excluding names ({:.1} by table capacity)",
            module.inst_count(),
            live as f64 / insts,
            (live - module.name_heap_bytes()) as f64 / insts,
            module.heap_bytes() as f64 / insts,
        );
        drop(module);
    }
}

fn benches(c: &mut Criterion) {
    report_heap();
    let pool = |threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
    let sequential = pool(1);
    for (name, size, make) in cases() {
        let module = make(size);
        ir::verify_module(&module).expect("workload verifies");
        let insts = module.inst_count() as u64;
        let big = insts >= 500_000;
        let configure = |g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>| {
            g.throughput(Throughput::Elements(insts));
            g.sample_size(if big { 10 } else { 20 });
            g.measurement_time(Duration::from_secs(if big { 8 } else { 4 }));
            g.warm_up_time(Duration::from_secs(1));
        };
        let mut g = c.benchmark_group("ir/build");
        configure(&mut g);
        if name.starts_with("w1") {
            let recipe = workloads::w1_recipe(size);
            g.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| black_box(workloads::build_w1(&recipe))));
        } else {
            let recipe = workloads::w2_recipe(size);
            g.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| black_box(workloads::build_w2(&recipe))));
        }
        g.finish();
        let mut g = c.benchmark_group("ir/verify");
        configure(&mut g);
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| sequential.install(|| ir::verify_module(black_box(&module))))
        });
        g.finish();
        if big {
            let mut g = c.benchmark_group("ir/verify_threads");
            configure(&mut g);
            for threads in [1, 2] {
                let pool = pool(threads);
                g.bench_function(BenchmarkId::new(name, threads), |b| {
                    b.iter(|| pool.install(|| ir::verify_module(black_box(&module))))
                });
            }
            g.finish();
            let mut g = c.benchmark_group("ir/print_stream_threads");
            configure(&mut g);
            for threads in [1, 2] {
                let pool = pool(threads);
                g.bench_function(BenchmarkId::new(name, threads), |b| {
                    b.iter(|| {
                        pool.install(|| {
                            ir::write_module(black_box(&module), ir::TextFormat::Auto, &mut std::io::sink())
                        })
                    })
                });
            }
            g.finish();
        }
        let mut g = c.benchmark_group("ir/print");
        configure(&mut g);
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| sequential.install(|| ir::print_module(black_box(&module))))
        });
        g.finish();
        // The same text streamed in chunks (what `whale ir print` does): no
        // module-sized buffer, so no fresh pages per print.
        let mut g = c.benchmark_group("ir/print_stream");
        configure(&mut g);
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                sequential.install(|| ir::write_module(black_box(&module), ir::TextFormat::Auto, &mut std::io::sink()))
            })
        });
        g.finish();
    }
}

criterion_group!(group, benches);
criterion_main!(group);
