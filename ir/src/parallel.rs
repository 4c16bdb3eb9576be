//! How per-function work is split between threads.
//!
//! Functions are independent, so a module's functions are cut into runs of
//! roughly equal instruction counts, one run per task; the work runs on the
//! current rayon pool (the global one unless the caller installed another).
//! Small modules, and a pool of one thread, make a single run: no task is
//! spawned, so the sequential case costs nothing extra. Results are always
//! put together in function order, so output never depends on the threads.

use crate::module::Module;

/// Below this many instructions a module is verified in one run.
const MIN_PARALLEL_INSTS: usize = 16 * 1024;
/// Runs per thread: more than one evens out functions of unequal size.
const RUNS_PER_THREAD: usize = 4;

/// The runs of function indices to process as separate tasks (one run when
/// parallel work would not pay).
pub(crate) fn chunks(m: &Module) -> Vec<std::ops::Range<usize>> {
    let functions = m.function_count();
    let threads = rayon::current_num_threads();
    if threads <= 1 || functions < 2 || m.inst_count() < MIN_PARALLEL_INSTS {
        return std::iter::once(0..functions).collect();
    }
    let target = m.inst_count().div_ceil(threads * RUNS_PER_THREAD).max(1);
    let mut runs = Vec::with_capacity(threads * RUNS_PER_THREAD + 1);
    let (mut start, mut size) = (0, 0);
    for index in 0..functions {
        size += m.function_at(index).inst_count().max(1);
        if size >= target {
            runs.push(start..index + 1);
            (start, size) = (index + 1, 0);
        }
    }
    if start < functions {
        runs.push(start..functions);
    }
    runs
}
