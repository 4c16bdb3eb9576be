//! Where each value of the function being verified is defined.
//!
//! Rebuilt per function, so its size follows the function, not the module: a
//! million-value module never allocates (and page-faults) a million-entry
//! table. Values are numbered module-wide but a function's ids are normally a
//! dense range, which a vector indexed from the range's start covers; ids
//! spread wider than that (text with arbitrary explicit ids) use a hash map.

use rustc_hash::FxHashMap;

use crate::entity::{EntityRef, ValueId};
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
        let (mut low, mut high, mut count) = (usize::MAX, 0usize, 0usize);
        for_each_site(m, f, |v, _| {
            low = low.min(v.index());
            high = high.max(v.index());
            count += 1;
        });
        self.dense.clear();
        self.sparse.clear();
        self.base = low;
        self.is_sparse = false;
        if count == 0 {
            return;
        }
        let span = high - low + 1;
        if span > count.saturating_mul(DENSE_SPREAD).saturating_add(DENSE_SLACK) {
            self.is_sparse = true;
            self.sparse.reserve(count);
            for_each_site(m, f, |v, site| {
                self.sparse.insert(v.as_u32(), site);
            });
        } else {
            self.dense.resize(span, UNDEFINED);
            let dense = &mut self.dense[..];
            for_each_site(m, f, |v, site| dense[v.index() - low] = site);
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

/// Calls `visit` with every parameter and every result of the blocks `f`
/// owns, in order.
#[inline]
fn for_each_site(m: &Module, f: &Function<'_>, mut visit: impl FnMut(ValueId, DefSite)) {
    for p in f.params {
        visit(p.value, DefSite { block: VACANT, inst: VACANT });
    }
    for (local, &b) in f.blocks.iter().enumerate() {
        if m.block_function(b) != Some(f.index) {
            continue;
        }
        let (_, results, start) = m.block_slices(b);
        for (i, r) in results.iter().enumerate() {
            if let Some(v) = r.expand() {
                visit(v, DefSite { block: local as u32, inst: start + i as u32 });
            }
        }
    }
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
