//! Where each value of the function being verified is defined.
//!
//! Rebuilt per function, so its size follows the function, not the module: a
//! million-value module never allocates (and page-faults) a million-entry
//! table. Values are numbered module-wide but a function's ids are normally a
//! dense range, which a vector indexed from the range's start covers; ids
//! spread wider than that (text with arbitrary explicit ids) use a hash map.

use rustc_hash::FxHashMap;

use crate::entity::{EntityRef, PackedOption, ValueId};
use crate::module::{Function, Module, VACANT};

/// Where a value is defined: the block's index within its function (or
/// [`VACANT`] for a parameter) and the instruction index.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct DefSite {
    pub block: u32,
    pub inst: u32,
}

const UNDEFINED: DefSite = DefSite { block: u32::MAX - 1, inst: u32::MAX - 1 };

/// A range this much wider than the value count (plus slack) goes to the map.
const DENSE_SPREAD: usize = 2;
const DENSE_SLACK: usize = 64;

/// The definitions of one function's parameters and results.
#[derive(Default)]
pub(crate) struct DefTable {
    base: usize,
    dense: Vec<DefSite>,
    sparse: FxHashMap<u32, DefSite>,
    is_sparse: bool,
}

impl DefTable {
    /// Replaces the table's contents with the definitions of `f`: its
    /// parameters, then the results of the blocks it owns, in order (a value
    /// defined twice keeps its last site).
    pub fn record(&mut self, m: &Module, f: &Function<'_>) {
        // The range and count in one pass without branches on whether an
        // instruction has a result (stores and branches interleave with
        // results unpredictably): an absent result is `u32::MAX`, which no
        // minimum moves to and which wraps to 0 for the maximum.
        let (mut low, mut high_plus_one, mut count) = (u32::MAX, 0u64, 0usize);
        for p in f.params {
            let v = p.value.as_u32();
            low = low.min(v);
            high_plus_one = high_plus_one.max(u64::from(v) + 1);
            count += 1;
        }
        for_each_owned_block(m, f, |_, _, results| {
            let mut high = 0u32;
            for r in results {
                let raw = raw(*r);
                low = low.min(raw);
                high = high.max(raw.wrapping_add(1));
                count += usize::from(raw != u32::MAX);
            }
            high_plus_one = high_plus_one.max(u64::from(high));
        });
        self.dense.clear();
        self.sparse.clear();
        self.base = low as usize;
        self.is_sparse = false;
        if count == 0 {
            return;
        }
        let span = (high_plus_one - u64::from(low)) as usize;
        if span > count.saturating_mul(DENSE_SPREAD).saturating_add(DENSE_SLACK) {
            self.is_sparse = true;
            self.sparse.reserve(count);
            for_each_site(m, f, |v, site| {
                self.sparse.insert(v.as_u32(), site);
            });
        } else {
            // One slot past the range takes the writes of absent results, so
            // the fill has no branch either; it is cut off afterwards.
            self.dense.resize(span + 1, UNDEFINED);
            let dense = &mut self.dense[..];
            for p in f.params {
                dense[(p.value.as_u32() - low) as usize] = DefSite { block: VACANT, inst: VACANT };
            }
            for_each_owned_block(m, f, |local, start, results| {
                for (i, r) in results.iter().enumerate() {
                    let raw = raw(*r);
                    let slot = if raw == u32::MAX { span } else { (raw - low) as usize };
                    dense[slot] = DefSite { block: local, inst: start + i as u32 };
                }
            });
            self.dense.truncate(span);
        }
    }

    /// The definition of `v` if the recorded function defines it.
    #[inline(always)]
    pub fn get(&self, v: ValueId) -> Option<DefSite> {
        if self.is_sparse {
            return self.sparse.get(&v.as_u32()).copied();
        }
        let site = *self.dense.get(v.index().wrapping_sub(self.base))?;
        (site != UNDEFINED).then_some(site)
    }
}

/// The raw id of an optional result, `u32::MAX` when absent.
#[inline(always)]
fn raw(r: PackedOption<ValueId>) -> u32 {
    r.expand().map_or(u32::MAX, ValueId::as_u32)
}

/// Calls `visit` with the local index, first instruction id and results of
/// every block `f` owns, in order.
#[inline(always)]
fn for_each_owned_block(m: &Module, f: &Function<'_>, mut visit: impl FnMut(u32, u32, &[PackedOption<ValueId>])) {
    for (local, &b) in f.blocks.iter().enumerate() {
        if m.block_function(b) != Some(f.index) {
            continue;
        }
        let (_, results, start) = m.block_slices(b);
        visit(local as u32, start, results);
    }
}

/// Calls `visit` with every parameter and every result of the blocks `f`
/// owns, in order.
#[inline]
fn for_each_site(m: &Module, f: &Function<'_>, mut visit: impl FnMut(ValueId, DefSite)) {
    for p in f.params {
        visit(p.value, DefSite { block: VACANT, inst: VACANT });
    }
    for_each_owned_block(m, f, |local, start, results| {
        for (i, r) in results.iter().enumerate() {
            if let Some(v) = r.expand() {
                visit(v, DefSite { block: local, inst: start + i as u32 });
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataLayout, ModuleBuilder, Type};

    #[test]
    fn records_params_and_results_of_one_function_only() {
        let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
        let mut first = mb.begin_function("first", vec![("p".to_string(), Type::I32)], Type::I32);
        let p = first.param_value(0);
        let x = first.add(Type::I32, p, p);
        first.ret(Some(x));
        first.finish();
        let mut second = mb.begin_function("second", vec![], Type::I32);
        let c = second.const_i32(1);
        second.ret(Some(c));
        second.finish();
        let m = mb.finish();
        let mut table = DefTable::default();
        table.record(&m, &m.function_at(0));
        assert_eq!(table.get(p), Some(DefSite { block: VACANT, inst: VACANT }));
        assert_eq!(table.get(x).map(|d| d.block), Some(0));
        assert_eq!(table.get(c), None);
        table.record(&m, &m.function_at(1));
        assert_eq!(table.get(p), None);
        assert!(table.get(c).is_some());
    }
}
