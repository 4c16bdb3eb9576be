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
/// parallel work would not pay), about four per thread.
pub(crate) fn chunks(m: &Module) -> Vec<std::ops::Range<usize>> {
    let target = m.inst_count().div_ceil(rayon::current_num_threads() * RUNS_PER_THREAD).max(1);
    runs_of(m, target)
}

/// Runs of about `target` instructions each (whole functions; one run when
/// parallel work would not pay).
pub(crate) fn runs_of(m: &Module, target: usize) -> Vec<std::ops::Range<usize>> {
    let functions = m.function_count();
    if rayon::current_num_threads() <= 1 || functions < 2 || m.inst_count() < MIN_PARALLEL_INSTS {
        return std::iter::once(0..functions).collect();
    }
    let mut runs = Vec::with_capacity(m.inst_count() / target.max(1) + 2);
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
