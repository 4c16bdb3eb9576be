//! Pointer fragments of tracked memory: for each byte that holds a byte of a
//! stored pointer, which byte of the pointer it is and the pointer's tag
//! (whale-upstream §g.2: a pointer loaded back keeps its provenance only when
//! all eight bytes are the fragments, in order, of one stored pointer).
//!
//! Only pointer stores create fragments, so the state lives in 4 KiB pages
//! allocated the first time a pointer is stored in them; memory that never held
//! a pointer costs nothing here, and every other write only has to check whether
//! a page exists. The page table holds one pointer per 4 KiB of arena (an
//! arena the memory already reserved), and pages are small fixed blocks: neither
//! is sized by the program.

const PAGE_BITS: usize = 12;
const PAGE: usize = 1 << PAGE_BITS;

/// The fragments of one page.
struct Page {
    /// The tag of the pointer each byte is a fragment of.
    tag: [u64; PAGE],
    /// `k + 1` for byte `k` of a pointer, 0 for a byte that is no fragment.
    index: [u8; PAGE],
}

/// Fragment state of the whole arena.
#[derive(Default)]
pub(crate) struct Fragments {
    pages: Vec<Option<Box<Page>>>,
}

impl Fragments {
    /// Bytes of bookkeeping held.
    #[cfg(test)]
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.pages.capacity() * size_of::<Option<Box<Page>>>() + self.pages.iter().flatten().count() * size_of::<Page>()
    }

    /// The fragment at `off`: byte `k` of the pointer with tag `tag`.
    #[inline]
    pub(crate) fn get(&self, off: usize) -> Option<(u8, u64)> {
        let page = self.pages.get(off >> PAGE_BITS)?.as_ref()?;
        let i = off & (PAGE - 1);
        match page.index[i] {
            0 => None,
            k => Some((k - 1, page.tag[i])),
        }
    }

    /// Records byte `k` of the pointer with tag `tag` at `off`.
    pub(crate) fn set(&mut self, off: usize, k: u8, tag: u64) {
        let p = off >> PAGE_BITS;
        if self.pages.len() <= p {
            self.pages.resize_with(p + 1, || None);
        }
        if let Some(slot) = self.pages.get_mut(p) {
            let page = slot.get_or_insert_with(|| Box::new(Page { tag: [0; PAGE], index: [0; PAGE] }));
            let i = off & (PAGE - 1);
            page.tag[i] = tag;
            page.index[i] = k + 1;
        }
    }

    /// Clears the fragments of `off..off + len` (any write that is not a pointer store).
    #[inline(always)]
    pub(crate) fn clear(&mut self, off: usize, len: usize) {
        if !self.pages.is_empty() {
            self.clear_slow(off, len);
        }
    }

    #[cold]
    #[inline(never)]
    fn clear_slow(&mut self, off: usize, len: usize) {
        let end = off + len;
        let mut at = off;
        while at < end {
            let page_end = ((at >> PAGE_BITS) + 1) << PAGE_BITS;
            let stop = page_end.min(end);
            if let Some(Some(page)) = self.pages.get_mut(at >> PAGE_BITS) {
                page.index[at & (PAGE - 1)..=(stop - 1) & (PAGE - 1)].fill(0);
            } else if at >> PAGE_BITS >= self.pages.len() {
                return;
            }
            at = stop;
        }
    }

    /// Copies the fragments of `src..src + len` to `dst..dst + len` (ranges that do not overlap).
    pub(crate) fn copy(&mut self, src: usize, dst: usize, len: usize) {
        let pages = (src >> PAGE_BITS)..=((src + len.max(1) - 1) >> PAGE_BITS);
        if !pages.into_iter().any(|p| matches!(self.pages.get(p), Some(Some(_)))) {
            self.clear(dst, len);
            return;
        }
        for k in 0..len {
            match self.get(src + k) {
                Some((index, tag)) => self.set(dst + k, index, tag),
                None => self.clear(dst + k, 1),
            }
        }
    }
}
