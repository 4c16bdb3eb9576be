//! Where each value of the function being verified is defined.
//!
//! Rebuilt per function, so its size follows the function, not the module: a
//! million-value module never allocates (and page-faults) a million-entry
//! table. Values are numbered module-wide but a function's ids are normally a
//! dense range, which a vector indexed from the range's start covers. The
//! builder numbers parameters first and results in order, so a window from the
//! first id, as wide as the function has definitions (plus slack), is filled
//! in one pass; when an id falls outside it the exact range is found first,
//! and ids spread wider than the function (text with arbitrary explicit ids)
//! use a hash map.

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
        self.dense.clear();
        self.sparse.clear();
        self.is_sparse = false;
        if !self.record_in_window(m, f) {
            self.record_any(m, f);
        }
    }

    /// The usual layout in one pass: every value of `f` lies in a window that
    /// starts at its lowest parameter (or, without parameters, its first
    /// result) and is as wide as the function has instructions and parameters
    /// (plus slack), so a table over that window is filled without first
    /// finding the exact range. Returns false, leaving the table to be
    /// rebuilt, when a value falls outside the window.
    fn record_in_window(&mut self, m: &Module, f: &Function<'_>) -> bool {
        // The window only needs to be wide enough, so foreign blocks may count.
        let mut capacity = f.params.len();
        for b in f.blocks {
            if let Some(data) = m.blocks.get(b.index()) {
                capacity = capacity.saturating_add(data.end.saturating_sub(data.start) as usize);
            }
        }
        let first = match f.params.iter().map(|p| p.value.as_u32()).min() {
            Some(low) => Some(low),
            None => first_result(m, f),
        };
        let Some(base) = first else {
            return true; // nothing is defined
        };
        let window = capacity.saturating_add(DENSE_SLACK);
        self.base = base as usize;
        // One slot past the window takes the writes of absent results and of
        // values outside the window (which are then flagged), so the fill has
        // no branch; it is cut off afterwards.
        self.dense.resize(window + 1, UNDEFINED);
        let dense = &mut self.dense[..];
        let mut outside = false;
        let mut place = |raw: u32, site: DefSite| {
            let slot = if raw == u32::MAX { window } else { (raw.wrapping_sub(base) as usize).min(window) };
            outside |= slot == window && raw != u32::MAX;
            dense[slot] = site;
        };
        for p in f.params {
            place(p.value.as_u32(), DefSite { block: VACANT, inst: VACANT });
        }
        for_each_owned_block(m, f, |local, start, results| {
            for (i, r) in results.iter().enumerate() {
                place(raw(*r), DefSite { block: local, inst: start + i as u32 });
            }
        });
        self.dense.truncate(window);
        !outside
    }

    /// Any layout: finds the exact range first, and uses a map when the ids
    /// are spread much wider than their number.
    fn record_any(&mut self, m: &Module, f: &Function<'_>) {
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
        // No real site has `UNDEFINED`'s block (a local index or `VACANT`).
        (site.block != UNDEFINED.block).then_some(site)
    }
}

/// The first result of the blocks `f` owns, in order.
fn first_result(m: &Module, f: &Function<'_>) -> Option<u32> {
    for &b in f.blocks {
        if m.block_function(b) != Some(f.index) {
            continue;
        }
        let (_, results, _) = m.block_slices(b);
        if let Some(v) = results.iter().find_map(|r| r.expand()) {
            return Some(v.as_u32());
        }
    }
    None
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

    #[test]
    fn finds_ids_outside_the_first_window() {
        let build = || {
            let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
            let mut f = mb.begin_function("f", vec![("p".to_string(), Type::I32)], Type::I32);
            let p = f.param_value(0);
            let x = f.add(Type::I32, p, p);
            let y = f.add(Type::I32, x, p);
            f.ret(Some(y));
            f.finish();
            (mb.finish(), x, y)
        };
        let site = |block, inst| Some(DefSite { block, inst });
        // A parameter numbered above the results: they fall below the window.
        let (mut m, x, y) = build();
        let high = ValueId::new(m.value_types.len() + 5);
        m.value_types.resize(high.index() + 1, PackedOption::some(crate::entity::TypeId::I32));
        m.params[0].value = high;
        let mut table = DefTable::default();
        table.record(&m, &m.function_at(0));
        assert_eq!(table.get(high), site(VACANT, VACANT));
        assert_eq!((table.get(x), table.get(y)), (site(0, 0), site(0, 1)));
        // A result numbered far above the rest: a map holds the spread ids.
        let (mut m, x, y) = build();
        let far = ValueId::new(m.value_types.len() + 10_000);
        m.value_types.resize(far.index() + 1, PackedOption::some(crate::entity::TypeId::I32));
        m.inst_results[1] = PackedOption::some(far);
        table.record(&m, &m.function_at(0));
        assert_eq!((table.get(x), table.get(far), table.get(y)), (site(0, 0), site(0, 1), None));
    }
}
