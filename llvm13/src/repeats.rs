//! How often the disassembler prints a shared constant or type again.
//!
//! Constants name other constants by slot, and types other types, so a few bytes can describe a graph whose inline
//! text is exponentially long: a constant `add (c, c)` naming itself, or sixty structs each holding two of the one
//! before. The assembly syntax prints both inline, as `llvm-dis` did. To keep the listing linear in the file, a
//! constant is printed in full the first time in its module or function, and a derived type the first time within
//! one type's text; printing one again (a repeat) is free [`FREE_REPEATS`] times within one text (one operand's
//! value, one type), and beyond that draws on a budget of [`MAX_REPEATS`] for the whole listing. Once the budget is
//! spent, such a repeat prints as `...`. Real modules stay far below both: a repeat is typically a string's
//! `getelementptr` at each of its uses, one per text. (An aggregate used by many instructions is still printed at
//! each use, as the syntax wants; that costs its size per use, not more.)

use std::cell::{Cell, RefCell};

use crate::format::{ConstantPlane, TypeSlot};

/// Repeats one text may print without drawing on the listing's budget.
pub(crate) const FREE_REPEATS: u32 = 64;
/// Repeats beyond the free ones that one listing may print.
pub(crate) const MAX_REPEATS: u32 = 1 << 16;

/// The kinds of text that count their repeats apart (a constant's text includes types' texts).
#[derive(Clone, Copy)]
pub(crate) enum Text {
    /// The value of one operand or initializer, with the constants it includes.
    Constant = 0,
    /// One type, with the types it includes.
    Type = 1,
}

/// The free repeats left in the current texts, and the listing's budget.
pub(crate) struct Repeats {
    free: [Cell<u32>; 2],
    left: Cell<u32>,
}

impl Repeats {
    /// A full budget.
    pub(crate) fn new() -> Self {
        Self { free: [Cell::new(FREE_REPEATS), Cell::new(FREE_REPEATS)], left: Cell::new(MAX_REPEATS) }
    }

    /// Starts a text of kind `text`.
    pub(crate) fn begin(&self, text: Text) {
        self.free[text as usize].set(FREE_REPEATS);
    }

    /// Whether an item may be expanded in a text of kind `text`: always the first time (`first` says whether it
    /// is, and is then set; a missing flag counts as a repeat), then as [`Repeats::draw`] says.
    pub(crate) fn may_expand(&self, text: Text, first: Option<&Cell<bool>>) -> bool {
        match first {
            Some(flag) if !flag.get() => {
                flag.set(true);
                true
            }
            _ => self.draw(text),
        }
    }

    /// Takes one repeat: a free one of the current text, else one of the listing's budget; false when none is
    /// left.
    pub(crate) fn draw(&self, text: Text) -> bool {
        for counter in [&self.free[text as usize], &self.left] {
            let n = counter.get();
            if n > 0 {
                counter.set(n - 1);
                return true;
            }
        }
        false
    }
}

/// For each constant of a pool (its planes flattened), whether it was printed in full already.
pub(crate) struct Printed {
    /// The index of each plane's first constant.
    offsets: Vec<usize>,
    flags: Vec<Cell<bool>>,
}

impl Printed {
    /// No constant of `planes` printed yet.
    pub(crate) fn new(planes: &[ConstantPlane]) -> Self {
        let mut offsets = Vec::with_capacity(planes.len());
        let mut total = 0;
        for p in planes {
            offsets.push(total);
            total += p.constants.len();
        }
        Self { offsets, flags: (0..total).map(|_| Cell::new(false)).collect() }
    }

    /// The flag of constant `index` of plane `plane`.
    pub(crate) fn flag(&self, plane: usize, index: usize) -> Option<&Cell<bool>> {
        self.flags.get(self.offsets.get(plane)? + index)
    }
}

/// For each type slot, the type text that last expanded it, so that a repeat within one text is recognised without
/// clearing anything between texts.
pub(crate) struct TypeStamps {
    stamps: RefCell<Vec<u64>>,
    text: Cell<u64>,
}

impl TypeStamps {
    /// No type expanded yet.
    pub(crate) fn new() -> Self {
        Self { stamps: RefCell::new(Vec::new()), text: Cell::new(0) }
    }

    /// Starts the text of a new type.
    pub(crate) fn begin(&self) {
        self.text.set(self.text.get() + 1);
    }

    /// Marks `slot` expanded in the current text; true when it was not already.
    pub(crate) fn first_in_text(&self, slot: TypeSlot) -> bool {
        let mut stamps = self.stamps.borrow_mut();
        let i = slot.0 as usize;
        if stamps.len() <= i {
            stamps.resize(i + 1, 0);
        }
        let text = self.text.get();
        std::mem::replace(&mut stamps[i], text) != text
    }
}
