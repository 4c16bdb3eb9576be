//! Where each value of the function being verified is defined.
//!
//! Value ids are scoped to their function, whose value table is one dense run
//! (`module.rs`), so the table here is a vector as long as that run, rebuilt
//! per function: its size follows the function, not the module.

use crate::entity::ValueId;
use crate::module::{Function, VACANT};

/// Where a value is defined: the block's index within its function (or
/// [`VACANT`] for a parameter) and the instruction index.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct DefSite {
    pub block: u32,
    pub inst: u32,
}

const UNDEFINED: DefSite = DefSite { block: u32::MAX - 1, inst: u32::MAX - 1 };

/// The definitions of one function's parameters and results.
#[derive(Default)]
pub(crate) struct DefTable {
    base: u32,
    sites: Vec<DefSite>,
}

impl DefTable {
    /// Replaces the table's contents with the definitions of `f`: its
    /// parameters, then the results of its blocks, in layout order.
    pub fn record(&mut self, f: &Function<'_>) {
        self.sites.clear();
        self.sites.resize(f.value_slots(), UNDEFINED);
        self.base = f.value_base();
        for p in f.params {
            if let Some(i) = f.value_index(p.value) {
                self.sites[i] = DefSite { block: VACANT, inst: VACANT };
            }
        }
        for (local, &b) in f.blocks.iter().enumerate() {
            let (_, results, start) = f.block_slices(b);
            for (i, r) in results.iter().enumerate() {
                if let Some(slot) = r.expand().and_then(|v| f.value_index(v)) {
                    self.sites[slot] = DefSite { block: local as u32, inst: start + i as u32 };
                }
            }
        }
    }

    /// The definition of `v` if the recorded function defines it.
    #[inline(always)]
    pub fn get(&self, v: ValueId) -> Option<DefSite> {
        let site = *self.sites.get(v.as_u32().wrapping_sub(self.base) as usize)?;
        // No real site has `UNDEFINED`'s block (a local index or `VACANT`).
        (site.block != UNDEFINED.block).then_some(site)
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
        table.record(&m.function_at(0));
        assert_eq!(table.get(p), Some(DefSite { block: VACANT, inst: VACANT }));
        assert_eq!(table.get(x).map(|d| d.block), Some(0));
        assert_eq!(table.get(c), None);
        table.record(&m.function_at(1));
        assert_eq!(table.get(p), None);
        assert!(table.get(c).is_some());
    }
}
