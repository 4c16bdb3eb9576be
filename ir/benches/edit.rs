//! The rewriting API on large functions: opening a function for editing and
//! writing it back, and a rewrite touching every instruction, on W1 (one
//! straight-line function) at 100k and 1M instructions, so the growth between
//! the two shows that editing is linear. Before timing, the bench prints the
//! editor's heap bytes per instruction beside the frozen module's.
//!
//! Run: `cargo bench -p ir --bench edit`. Groups, in instructions per second:
//!
//! - `ir/edit/open_finish`: `Module::edit_function` then `FunctionEditor::finish`;
//! - `ir/edit/rewrite`: the same plus, for every binary instruction, a new
//!   `sub` inserted after it, all uses of its result moved to the new value,
//!   and the old instruction removed (insert, replace-all-uses, remove).

#[path = "workloads.rs"]
mod workloads;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ir::{InstData, Module, Opcode, Position};

/// Replaces every binary instruction by a `sub` of the same operands placed after it.
fn rewrite(m: &mut Module) {
    let mut e = m.edit_function(0);
    for b in e.blocks() {
        let insts: Vec<_> = e.block_insts(b).collect();
        for inst in insts {
            let InstData::Binary { args, .. } = *e.inst(inst) else { continue };
            let Some(old) = e.inst_result(inst) else { continue };
            let ty = e.value_type(old);
            let (_, new) = e.insert(Position::After(inst), InstData::Binary { op: Opcode::Sub, args }, ty);
            if let Some(new) = new {
                e.replace_all_uses(old, new);
            }
            e.remove_inst(inst);
        }
    }
    e.finish();
}

fn bench(c: &mut Criterion) {
    for (name, n) in [("w1_100k", 100_000), ("w1_1m", 1_000_000)] {
        let module = workloads::w1(n);
        let insts = module.inst_count() as u64;
        let mut copy = module.clone();
        let editor_bytes = copy.edit_function(0).heap_bytes();
        println!(
            "{name}: {insts} instructions; frozen module {:.1} heap bytes/inst, editor {:.1} more",
            module.heap_bytes() as f64 / insts as f64,
            editor_bytes as f64 / insts as f64
        );
        let mut rewritten = module.clone();
        rewrite(&mut rewritten);
        ir::verify_module(&rewritten).expect("the rewrite verifies");

        let mut g = c.benchmark_group("ir/edit/open_finish");
        g.throughput(Throughput::Elements(insts));
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(6));
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_batched_ref(
                || module.clone(),
                |m| {
                    let e = m.edit_function(0);
                    e.finish();
                    black_box(m.inst_count())
                },
                criterion::BatchSize::LargeInput,
            )
        });
        g.finish();
        let mut g = c.benchmark_group("ir/edit/rewrite");
        g.throughput(Throughput::Elements(insts));
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(6));
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_batched_ref(|| module.clone(), rewrite, criterion::BatchSize::LargeInput)
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
