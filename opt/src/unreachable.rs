//! Removing blocks that no path from the entry reaches.
//!
//! Guarantee: the program's meaning is unchanged, because an unreachable block
//! never executes. Its instructions go with it (traps included: they could not
//! happen), and so do the inputs it gave the phis of the blocks it branched to
//! (those edges could not be taken). Valid SSA never uses a value of an
//! unreachable block in a reachable one except through such phi inputs, so no
//! use is left dangling. The entry block is always kept.
//!
//! Cost: one walk of the control-flow graph from the entry, then O(size) of
//! each removed block ([`ir::FunctionEditor::remove_block`]).

use ir::{BlockId, FunctionEditor};

/// Removes the blocks of `func` that are not reachable from its entry; returns
/// whether it removed any.
pub fn remove_unreachable_blocks(func: &mut FunctionEditor<'_>) -> bool {
    let blocks = func.blocks();
    let Some(base) = blocks.iter().map(|b| b.as_u32()).min() else { return false };
    let slots = blocks.iter().map(|b| (b.as_u32() - base) as usize + 1).max().unwrap_or(0);
    let mut reached = vec![false; slots];
    let slot = |b: BlockId| b.as_u32().checked_sub(base).map(|s| s as usize).filter(|&s| s < slots);
    let mut stack = Vec::new();
    if let Some(s) = slot(func.entry()).filter(|_| func.has_block(func.entry())) {
        reached[s] = true;
        stack.push(func.entry());
    }
    while let Some(b) = stack.pop() {
        for succ in func.successors(b) {
            if let Some(s) = slot(succ).filter(|&s| !reached[s] && func.has_block(succ)) {
                reached[s] = true;
                stack.push(succ);
            }
        }
    }
    let dead: Vec<BlockId> = blocks.into_iter().filter(|&b| slot(b).is_some_and(|s| !reached[s])).collect();
    for &b in &dead {
        func.remove_block(b);
    }
    !dead.is_empty()
}
