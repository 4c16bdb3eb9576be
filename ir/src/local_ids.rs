//! Function-scoped id tables for readers.
//!
//! Value and block ids are scoped to their function (whale-ir §3): every
//! function may start at `%v0`, and two functions may use the same ids. A
//! reader (the text parser, the binary readers through [`crate::ModuleAssembler`])
//! defines a function's values and blocks under the ids its input gives, in any
//! order, and then lays the function's table out as one dense run of the
//! module's table, from the lowest id to the highest (see `FunctionData`).
//!
//! While ids arrive in order without gaps (what every writer produces), they
//! are kept in a plain run and laid out with one copy. The first id out of
//! order moves them into a table indexed by raw id, which is kept across
//! functions (only the entries a function touched are reset), so reading a
//! module costs O(its size) plus one table as long as the largest id — which
//! readers bound by their input size. Laid-out runs cover each function's id
//! span, vacant ids included; readers bound the total with [`LocalIds::span`]
//! so that many functions with sparse ids cannot make the module's tables much
//! larger than the input.

/// How many vacant entries the laid-out runs of all functions may still take:
/// each function spans its own ids for free, the gaps between them draw on a
/// budget of twice the reader's id limit (see the module documentation).
pub(crate) struct SpanBudget {
    left: u64,
    limit: u64,
}

impl SpanBudget {
    /// The budget of a reader that refuses ids above `max_id`.
    pub fn new(max_id: u32) -> Self {
        let limit = 2 * (u64::from(max_id) + 1);
        SpanBudget { left: limit, limit }
    }

    /// The budget as it was given.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Charges the gaps of the open function's tables; `Err` when over budget.
    pub fn charge<A: Copy, B: Copy>(&mut self, values: &LocalIds<A>, blocks: &LocalIds<B>) -> Result<(), ()> {
        let spans = u64::from(values.span().1) + u64::from(blocks.span().1);
        let gaps = spans - (values.len() + blocks.len()) as u64;
        self.left = self.left.checked_sub(gaps).ok_or(())?;
        Ok(())
    }
}

/// One function's definitions by raw id.
pub(crate) struct LocalIds<T: Copy> {
    /// In order: the definitions of ids `base..base + run.len()`.
    run: Vec<T>,
    base: u32,
    in_order: bool,
    /// Out of order: the definitions by raw id.
    slots: Vec<Option<T>>,
    /// Out of order: ids defined by the open function.
    touched: Vec<u32>,
    lowest: u32,
    highest: u32,
}

impl<T: Copy> Default for LocalIds<T> {
    fn default() -> Self {
        LocalIds {
            run: Vec::new(),
            base: 0,
            in_order: true,
            slots: Vec::new(),
            touched: Vec::new(),
            lowest: u32::MAX,
            highest: 0,
        }
    }
}

impl<T: Copy> LocalIds<T> {
    /// Defines `id`; `Err(())` when the function already defines it.
    #[inline]
    pub fn define(&mut self, id: u32, value: T) -> Result<(), ()> {
        if self.in_order {
            if self.run.is_empty() {
                self.base = id;
            }
            if u64::from(id) == u64::from(self.base) + self.run.len() as u64 {
                self.run.push(value);
                return Ok(());
            }
            self.leave_order();
        }
        self.define_out_of_order(id, value)
    }

    /// Moves the run into the table.
    #[cold]
    fn leave_order(&mut self) {
        self.in_order = false;
        let run = std::mem::take(&mut self.run);
        for (k, value) in run.iter().enumerate() {
            let _ = self.define_out_of_order(self.base + k as u32, *value);
        }
        self.run = run;
        self.run.clear();
    }

    fn define_out_of_order(&mut self, id: u32, value: T) -> Result<(), ()> {
        let i = id as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, None);
        }
        let slot = &mut self.slots[i];
        if slot.is_some() {
            return Err(());
        }
        *slot = Some(value);
        self.touched.push(id);
        self.lowest = self.lowest.min(id);
        self.highest = self.highest.max(id);
        Ok(())
    }

    /// The definition of `id` in the open function.
    #[inline]
    pub fn get(&self, id: u32) -> Option<T> {
        if self.in_order {
            self.run.get(id.wrapping_sub(self.base) as usize).copied()
        } else {
            self.slots.get(id as usize).copied().flatten()
        }
    }

    /// The definition of `id` in the open function, to change it.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> Option<&mut T> {
        if self.in_order {
            self.run.get_mut(id.wrapping_sub(self.base) as usize)
        } else {
            self.slots.get_mut(id as usize).and_then(Option::as_mut)
        }
    }

    /// Forgets the open function's definitions without laying them out.
    pub fn clear(&mut self) {
        for &id in &self.touched {
            if let Some(slot) = self.slots.get_mut(id as usize) {
                *slot = None;
            }
        }
        self.touched.clear();
        self.run.clear();
        self.lowest = u32::MAX;
        self.highest = 0;
        self.in_order = true;
    }

    /// Number of ids the open function defines.
    pub fn len(&self) -> usize {
        if self.in_order {
            self.run.len()
        } else {
            self.touched.len()
        }
    }

    /// `(base, length)` of the run the open function's table will take: from
    /// its lowest id to its highest, or empty when it defines nothing.
    pub fn span(&self) -> (u32, u32) {
        if self.in_order {
            (if self.run.is_empty() { 0 } else { self.base }, self.run.len() as u32)
        } else if self.touched.is_empty() {
            (0, 0)
        } else {
            (self.lowest, self.highest - self.lowest + 1)
        }
    }

    /// Whether defining `id` next keeps the ids in order (and so cannot fail).
    #[inline]
    pub fn continues_run(&self, id: u32) -> bool {
        self.in_order && (self.run.is_empty() || u64::from(id) == u64::from(self.base) + self.run.len() as u64)
    }

    /// Visits the open function's definitions with their offsets in its run,
    /// forgets the function, and returns the run's `(base, length)`.
    pub fn drain(&mut self, mut visit: impl FnMut(usize, T)) -> (u32, u32) {
        let span = self.span();
        if self.in_order {
            for (k, value) in self.run.drain(..).enumerate() {
                visit(k, value);
            }
            return span;
        }
        for &id in &self.touched {
            if let Some(value) = self.slots[id as usize].take() {
                visit((id - span.0) as usize, value);
            }
        }
        self.touched.clear();
        self.lowest = u32::MAX;
        self.highest = 0;
        self.in_order = true;
        span
    }

    /// Appends the open function's run to `out` (`vacant` where no id is
    /// defined), forgets the function, and returns the run's base id.
    pub fn lay_out<U: Clone>(&mut self, out: &mut Vec<U>, map: impl Fn(T) -> U, vacant: U) -> u32 {
        let (base, len) = self.span();
        if self.in_order {
            out.extend(self.run.drain(..).map(map));
            return base;
        }
        let start = out.len();
        out.resize(start + len as usize, vacant);
        for &id in &self.touched {
            if let Some(value) = self.slots[id as usize].take() {
                out[start + (id - base) as usize] = map(value);
            }
        }
        self.touched.clear();
        self.lowest = u32::MAX;
        self.highest = 0;
        self.in_order = true;
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_reuse_ids_and_lay_out_dense_runs() {
        let mut ids = LocalIds::<u8>::default();
        ids.define(40, 1).unwrap();
        ids.define(42, 2).unwrap();
        assert_eq!(ids.define(40, 3), Err(()));
        assert_eq!(ids.span(), (40, 3));
        let mut out = Vec::new();
        assert_eq!(ids.lay_out(&mut out, Some, None), 40);
        assert_eq!(out, [Some(1), None, Some(2)]);
        // The next function may use the same ids.
        assert_eq!(ids.get(40), None);
        ids.define(40, 5).unwrap();
        ids.define(0, 6).unwrap();
        assert_eq!(ids.get(40), Some(5));
        assert_eq!(ids.lay_out(&mut out, Some, None), 0);
        assert_eq!(out.len(), 3 + 41);
        assert_eq!((out[3], out[43]), (Some(6), Some(5)));
        assert_eq!(ids.span(), (0, 0));
    }

    #[test]
    fn ids_in_order_stay_in_a_run_until_one_is_not() {
        let mut ids = LocalIds::<u8>::default();
        for k in 0..3 {
            ids.define(7 + k, k as u8).unwrap();
        }
        assert!(ids.in_order);
        assert_eq!(ids.define(8, 9), Err(()));
        assert!(!ids.in_order);
        assert_eq!((ids.get(7), ids.get(9), ids.len()), (Some(0), Some(2), 3));
        *ids.get_mut(9).unwrap() = 4;
        let mut out = Vec::new();
        assert_eq!(ids.lay_out(&mut out, Some, None), 7);
        assert_eq!(out, [Some(0), Some(1), Some(4)]);
        ids.define(3, 1).unwrap();
        assert!(ids.in_order);
        assert_eq!(ids.lay_out(&mut out, Some, None), 3);
        assert_eq!(out.len(), 4);
    }
}
