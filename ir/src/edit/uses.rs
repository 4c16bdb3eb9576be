//! Use lists: for every value of the function being edited, the instructions
//! that use it, so that replacing all uses costs O(uses), not O(function).
//!
//! Each value operand of a live instruction is one node, kept in a doubly
//! linked list per value; an instruction's nodes are allocated together (a
//! contiguous range, in the order of [`InstData::values`]), so unlinking an
//! instruction costs O(its operands). Nodes are never reused: an edited
//! instruction gets fresh ones, and the arena is dropped with the editor.

use crate::entity::{EntityRef, InstId, ListPool, ValueId};
use crate::inst::InstData;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    inst: InstId,
    value: ValueId,
    prev: u32,
    next: u32,
}

/// The use lists of one function (see the module documentation).
#[derive(Default, Debug)]
pub(super) struct UseLists {
    nodes: Vec<Node>,
    /// By dense value index: the first node of the value's list.
    heads: Vec<u32>,
    /// By dense value index: the number of uses.
    counts: Vec<u32>,
    /// By instruction: its nodes, `start..start + len`.
    ranges: Vec<(u32, u32)>,
}

impl UseLists {
    /// Makes room for value index `slot`.
    pub fn grow_values(&mut self, slots: usize) {
        if self.heads.len() < slots {
            self.heads.resize(slots, NIL);
            self.counts.resize(slots, 0);
        }
    }

    /// Records the uses of `inst` (whose record is `data`); `slot` maps a value
    /// to its dense index (values outside the table are not tracked).
    pub fn link(&mut self, inst: InstId, data: &InstData, pool: &ListPool, slot: impl Fn(ValueId) -> Option<usize>) {
        if self.ranges.len() <= inst.index() {
            self.ranges.resize(inst.index() + 1, (0, 0));
        }
        let start = self.nodes.len() as u32;
        for value in data.values(pool) {
            let Some(s) = slot(value) else { continue };
            let at = self.nodes.len() as u32;
            let head = self.heads[s];
            self.nodes.push(Node { inst, value, prev: NIL, next: head });
            if head != NIL {
                self.nodes[head as usize].prev = at;
            }
            self.heads[s] = at;
            self.counts[s] += 1;
        }
        self.ranges[inst.index()] = (start, self.nodes.len() as u32 - start);
    }

    /// Forgets the uses of `inst`.
    pub fn unlink(&mut self, inst: InstId, slot: impl Fn(ValueId) -> Option<usize>) {
        let Some(&(start, len)) = self.ranges.get(inst.index()) else { return };
        for at in start..start + len {
            self.remove_node(at, &slot);
        }
        self.ranges[inst.index()] = (0, 0);
    }

    fn remove_node(&mut self, at: u32, slot: &impl Fn(ValueId) -> Option<usize>) {
        let Node { value, prev, next, .. } = self.nodes[at as usize];
        let Some(s) = slot(value) else { return };
        if prev == NIL {
            self.heads[s] = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        }
        self.counts[s] -= 1;
        let node = &mut self.nodes[at as usize];
        (node.prev, node.next) = (NIL, NIL);
    }

    /// Moves every use of the value at index `from` to the value `to` (at index
    /// `to_slot`, if tracked); returns the instructions that used it (an
    /// instruction once per use).
    pub fn move_all(&mut self, from: usize, to: ValueId, to_slot: Option<usize>) -> Vec<InstId> {
        let mut insts = Vec::with_capacity(self.counts[from] as usize);
        let mut at = self.heads[from];
        while at != NIL {
            let node = self.nodes[at as usize];
            insts.push(node.inst);
            let next = node.next;
            self.nodes[at as usize].value = to;
            match to_slot {
                Some(s) => {
                    let head = self.heads[s];
                    let n = &mut self.nodes[at as usize];
                    (n.prev, n.next) = (NIL, head);
                    if head != NIL {
                        self.nodes[head as usize].prev = at;
                    }
                    self.heads[s] = at;
                    self.counts[s] += 1;
                }
                None => {
                    let n = &mut self.nodes[at as usize];
                    (n.prev, n.next) = (NIL, NIL);
                }
            }
            at = next;
        }
        self.heads[from] = NIL;
        self.counts[from] = 0;
        insts
    }

    /// The instructions using the value at index `slot`, once per use, most recent first.
    pub fn users(&self, slot: usize) -> Users<'_> {
        Users { lists: self, at: self.heads.get(slot).copied().unwrap_or(NIL) }
    }

    /// Heap bytes held (capacity).
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>()
            + (self.heads.capacity() + self.counts.capacity()) * 4
            + self.ranges.capacity() * 8
    }

    /// The number of uses of the value at index `slot`.
    pub fn count(&self, slot: usize) -> usize {
        self.counts.get(slot).copied().unwrap_or(0) as usize
    }
}

/// Iterator over a value's users ([`crate::FunctionEditor::users`]).
pub struct Users<'a> {
    lists: &'a UseLists,
    at: u32,
}

impl Iterator for Users<'_> {
    type Item = InstId;

    fn next(&mut self) -> Option<InstId> {
        let node = self.lists.nodes.get(self.at as usize)?;
        self.at = node.next;
        Some(node.inst)
    }
}
