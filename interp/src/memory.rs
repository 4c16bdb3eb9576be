//! Tracked memory (whale-upstream §g.2).
//!
//! Every allocation has an identity (a record index), a generation, bounds,
//! permissions and, per byte, an initialised flag and an optional pointer
//! fragment. A pointer value is an address plus a *tag* naming its allocation
//! record and generation (tag 0: no provenance). Every access is checked in
//! upstream's order — null, provenance, lifetime, capability consistency,
//! address overflow, bounds, permission, alignment — and loads then check that
//! each byte is initialised.
//!
//! Representation: one byte arena whose index is `address − 0x1000`, with one
//! initialisation bit per byte ([`InitBits`]) and, for bytes that hold pointer
//! fragments, the fragment's byte index and the pointer's tag in lazily allocated
//! 4 KiB pages ([`Fragments`]). Plain memory thus costs 1⅛ bytes per byte; the
//! arena and the bitmap grow with fallible reservations, so an allocation the
//! host cannot provide is an error ([`AllocError::OutOfMemory`]), not an abort. Allocations are
//! stack-like — all allocations of a frame die when it returns — so the arena is
//! a stack: an `alloca` bumps the top (aligned, followed by a 16-byte red zone so
//! that no one-past-the-end address is another allocation's start) and a return
//! resets it. Record slots are reused with a new generation, so a pointer into a
//! dead frame is detected as expired, never as a dangling alias. Allocations made
//! by the embedder ([`crate::Interpreter::allocate`]) sit below the stack and
//! live as long as the interpreter. Only pointer stores create fragment pages, so
//! ordinary loads and stores cost a few compares and one bitmap window each.
//!
//! Fast path: a record keeps, besides its tag while it lives, the tag again in
//! a "live and readable" and a "live and writable" field (0 otherwise), so
//! [`Memory::fast`] checks lifetime, generation and permission with one compare,
//! then the pointer and the accessed range as offsets within the allocation,
//! then alignment. It accepts exactly the accesses that pass every check (the
//! pointer's own address lying inside its allocation, as every pointer with
//! provenance does) and says nothing about the others, which go through the
//! exact checks in upstream's order; a unit test checks the agreement.

use crate::error::MemoryTrap;
use crate::fragments::Fragments;
use crate::init_bits::{InitBits, SHORT};

/// The first address of the arena.
pub(crate) const BASE: u64 = 0x1000;
const RED_ZONE: u64 = 16;
/// The arena never grows beyond this many bytes (far more than a `Vec` could
/// hold anyway), so allocation sizes and offsets stay below 2^62: the access
/// fast path relies on it.
const ARENA_LIMIT: u64 = 1 << 62;

/// Read permission bit.
pub(crate) const READ: u8 = 1;
/// Write permission bit.
pub(crate) const WRITE: u8 = 2;

/// What an allocation may be used for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Permissions {
    /// Loads (and `memcpy` sources) are allowed.
    pub read: bool,
    /// Stores, `memset`, `uninit` (and `memcpy` destinations) are allowed.
    pub write: bool,
}

impl Permissions {
    /// Read-only memory.
    pub const READ_ONLY: Permissions = Permissions { read: true, write: false };
    /// Write-only memory.
    pub const WRITE_ONLY: Permissions = Permissions { read: false, write: true };
    /// Ordinary memory (every `alloca`).
    pub const READ_WRITE: Permissions = Permissions { read: true, write: true };

    fn bits(self) -> u8 {
        (if self.read { READ } else { 0 }) | (if self.write { WRITE } else { 0 })
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Record {
    /// First address.
    start: u64,
    size: u64,
    /// The tag of pointers into the allocation while it lives, 0 once it has
    /// died: one compare checks both lifetime and generation.
    live: u64,
    /// `live` if the allocation may be read (written), else 0: one compare
    /// checks lifetime, generation and permission.
    live_read: u64,
    live_write: u64,
    generation: u32,
    perms: u8,
}

impl Record {
    /// The record of a live allocation whose pointers carry `tag`.
    fn alive(start: u64, size: u64, tag: u64, generation: u32, perms: u8) -> Record {
        let when = |bit: u8| if perms & bit != 0 { tag } else { 0 };
        Record { start, size, live: tag, live_read: when(READ), live_write: when(WRITE), generation, perms }
    }
}

/// An allocation failed because a limit would be exceeded, or because the host
/// could not provide the memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum AllocError {
    Bytes,
    Count,
    /// The arena could not grow to this many bytes.
    OutOfMemory(u64),
}

pub(crate) struct Memory {
    bytes: Vec<u8>,
    init: InitBits,
    fragments: Fragments,
    records: Vec<Record>,
    /// Record indices used by stack allocations, in stack order.
    stack: Vec<u32>,
    /// Number of live stack allocations (a prefix of `stack`).
    stack_live: usize,
    /// Next free arena offset.
    top: u64,
    /// End of the embedder's (static) allocations.
    static_top: u64,
    /// Live allocations, static ones included.
    live: u64,
    pub(crate) max_bytes: u64,
    pub(crate) max_allocations: u64,
}

#[inline(always)]
pub(crate) fn make_tag(index: usize, generation: u32) -> u64 {
    (index as u64 + 1) | (u64::from(generation) << 32)
}

#[inline(always)]
fn align_up(x: u64, align: u64) -> Option<u64> {
    Some(x.checked_add(align - 1)? & !(align - 1))
}

impl Memory {
    pub(crate) fn new(max_bytes: u64, max_allocations: u64) -> Memory {
        Memory {
            bytes: Vec::new(),
            init: InitBits::default(),
            fragments: Fragments::default(),
            records: Vec::new(),
            stack: Vec::new(),
            stack_live: 0,
            top: 0,
            static_top: 0,
            live: 0,
            max_bytes,
            max_allocations,
        }
    }

    /// The state a frame restores when it returns.
    #[inline(always)]
    pub(crate) fn mark(&self) -> (u32, u64) {
        (self.stack_live as u32, self.top)
    }

    /// Kills every stack allocation made after `mark`.
    #[inline]
    pub(crate) fn release(&mut self, mark: (u32, u64)) {
        let keep = mark.0 as usize;
        if self.stack_live > keep {
            for &index in self.stack.get(keep..self.stack_live).unwrap_or(&[]) {
                if let Some(r) = self.records.get_mut(index as usize) {
                    (r.live, r.live_read, r.live_write) = (0, 0, 0);
                }
            }
            self.live -= (self.stack_live - keep) as u64;
            self.stack_live = keep;
        }
        self.top = mark.1;
    }

    /// Kills every stack allocation.
    pub(crate) fn release_all(&mut self) {
        self.release((0, self.static_top));
    }

    /// Reserves `size` bytes aligned to `align` (a power of two) at the arena top.
    fn reserve(&mut self, size: u64, align: u64) -> Result<(u64, u64), AllocError> {
        if self.live >= self.max_allocations {
            return Err(AllocError::Count);
        }
        let start = align_up(BASE + self.top, align).ok_or(AllocError::Bytes)?;
        let end = start.checked_add(size).ok_or(AllocError::Bytes)?;
        let new_top = (end - BASE).checked_add(RED_ZONE).ok_or(AllocError::Bytes)?;
        if new_top > self.max_bytes || new_top > ARENA_LIMIT {
            return Err(AllocError::Bytes);
        }
        let (lo, hi) = ((start - BASE) as usize, (end - BASE) as usize);
        let needed = usize::try_from(new_top).map_err(|_| AllocError::OutOfMemory(new_top))?;
        if self.bytes.len() < needed {
            self.grow(needed).map_err(|_| AllocError::OutOfMemory(new_top))?;
        }
        self.init.set_range(lo, hi - lo, false);
        self.fragments.clear(lo, hi - lo);
        self.top = new_top;
        Ok((start, size))
    }

    /// Grows the arena to `needed` bytes, reserving fallibly (amortised growth
    /// when the host has room for it, else exactly what is needed).
    #[cold]
    fn grow(&mut self, needed: usize) -> Result<(), std::collections::TryReserveError> {
        let extra = needed - self.bytes.len();
        if self.bytes.try_reserve(extra).is_err() {
            self.bytes.try_reserve_exact(extra)?;
        }
        self.init.try_grow(needed)?;
        self.bytes.resize(needed, 0);
        Ok(())
    }

    /// Bytes held for the arena and for its bookkeeping (capacities, not use).
    #[cfg(test)]
    pub(crate) fn footprint(&self) -> (usize, usize) {
        (self.bytes.capacity(), self.init.capacity_bytes() + self.fragments.capacity_bytes())
    }

    /// A new stack allocation (dies when the current frame returns); returns its
    /// address and tag.
    #[inline]
    pub(crate) fn allocate_stack(&mut self, size: u64, align: u64) -> Result<(u64, u64), AllocError> {
        let (start, size) = self.reserve(size, align)?;
        let index = match self.stack.get(self.stack_live).copied() {
            Some(index) => match self.records.get_mut(index as usize) {
                Some(r) if r.generation < u32::MAX => {
                    let generation = r.generation + 1;
                    let tag = make_tag(index as usize, generation);
                    *r = Record::alive(start, size, tag, generation, READ | WRITE);
                    index as usize
                }
                _ => {
                    let index = self.push_record(start, size, READ | WRITE);
                    if let Some(s) = self.stack.get_mut(self.stack_live) {
                        *s = index as u32;
                    }
                    index
                }
            },
            None => {
                let index = self.push_record(start, size, READ | WRITE);
                self.stack.push(index as u32);
                index
            }
        };
        self.stack_live += 1;
        self.live += 1;
        let generation = self.records.get(index).map_or(0, |r| r.generation);
        Ok((start, make_tag(index, generation)))
    }

    /// Appends a live record of generation 0.
    fn push_record(&mut self, start: u64, size: u64, perms: u8) -> usize {
        let index = self.records.len();
        self.records.push(Record::alive(start, size, make_tag(index, 0), 0, perms));
        index
    }

    /// A static allocation holding `contents`, made while no frame is active.
    pub(crate) fn allocate_static(&mut self, contents: &[u8], perms: Permissions) -> Result<(u64, u64), AllocError> {
        self.release_all();
        let (start, size) = self.reserve(contents.len() as u64, 16)?;
        let lo = (start - BASE) as usize;
        if let Some(b) = self.bytes.get_mut(lo..lo + contents.len()) {
            b.copy_from_slice(contents);
        }
        self.init.set_range(lo, contents.len(), true);
        let index = self.push_record(start, size, perms.bits());
        self.live += 1;
        self.static_top = self.top;
        Ok((start, make_tag(index, 0)))
    }

    /// Checks an access of `size` bytes at `addr` with alignment `align` needing
    /// permissions `need`; returns the arena offset.
    #[inline(always)]
    pub(crate) fn check(&self, addr: u64, tag: u64, size: u64, align: u64, need: u8) -> Result<usize, MemoryTrap> {
        let r = self.live_record(addr, tag)?;
        let end = r.start + r.size;
        if addr < r.start || addr > end {
            return Err(MemoryTrap::OutOfBounds);
        }
        let last = addr.checked_add(size).ok_or(MemoryTrap::AddressOverflow)?;
        if last > end {
            return Err(MemoryTrap::OutOfBounds);
        }
        if r.perms & need != need {
            return Err(MemoryTrap::PermissionDenied);
        }
        if addr & (align.wrapping_sub(1)) != 0 {
            return Err(MemoryTrap::Misaligned { address: addr, alignment: align });
        }
        Ok((addr - BASE) as usize)
    }

    #[inline(always)]
    fn live_record(&self, addr: u64, tag: u64) -> Result<&Record, MemoryTrap> {
        if addr == 0 {
            return Err(MemoryTrap::NullPointer);
        }
        if tag == 0 {
            return Err(MemoryTrap::MissingProvenance);
        }
        let index = (tag as u32).wrapping_sub(1) as usize;
        let r = self.records.get(index).ok_or(MemoryTrap::OutOfBounds)?;
        if r.live != tag {
            return Err(MemoryTrap::ExpiredAllocation);
        }
        Ok(r)
    }

    /// The fast path of every access: `Some(arena offset)` when `size` bytes
    /// at `addr + delta`, reached from pointer `(addr, tag)`, pass all the checks
    /// of an access needing `need` (`READ` or `WRITE`) with alignment mask
    /// `align_mask`, and of the `gep` computing the address: a live allocation
    /// of the right generation with the permission, the pointer inside it
    /// (hence not null), the accessed range inside it (hence no overflow), the
    /// alignment. `None` says only that some check failed: the caller then runs
    /// the exact checks, which report the first failing one in upstream's order.
    #[inline(always)]
    pub(crate) fn fast(&self, addr: u64, tag: u64, delta: i64, size: u64, align_mask: u64, need: u8) -> Option<usize> {
        let r = self.records.get((tag as u32).wrapping_sub(1) as usize)?;
        let live = if need == WRITE { r.live_write } else { r.live_read };
        // Offsets in the allocation. Sizes are below 2^62 (`ARENA_LIMIT`), so
        // with `from <= r.size` the wrapping sum equals `from + delta` when that
        // is not negative, and a negative one wraps above 2^63 and fails
        // `to <= r.size` like any other out-of-range offset.
        let from = addr.wrapping_sub(r.start);
        let to = from.wrapping_add(delta as u64);
        let target = r.start.wrapping_add(to);
        let ok = (live == tag)
            & (from <= r.size)
            & (to <= r.size)
            & (r.size.wrapping_sub(to) >= size)
            & (target & align_mask == 0);
        // target ≥ start ≥ BASE.
        ok.then_some(target.wrapping_sub(BASE) as usize)
    }

    /// The fast path of `gep`: `Some(addr + delta)` when the pointer and the
    /// result lie in its live allocation (or one past its end).
    #[inline(always)]
    pub(crate) fn fast_offset(&self, addr: u64, tag: u64, delta: i64) -> Option<u64> {
        let r = self.records.get((tag as u32).wrapping_sub(1) as usize)?;
        // As in `fast`.
        let from = addr.wrapping_sub(r.start);
        let to = from.wrapping_add(delta as u64);
        ((r.live == tag) & (from <= r.size) & (to <= r.size)).then_some(r.start.wrapping_add(to))
    }

    /// `gep`: `addr + delta` within the same allocation (one past the end
    /// allowed); `delta` is `None` when computing it overflowed.
    pub(crate) fn offset(&self, addr: u64, tag: u64, delta: Option<i128>) -> Result<u64, MemoryTrap> {
        let r = self.live_record(addr, tag)?;
        let delta = delta.ok_or(MemoryTrap::AddressOverflow)?;
        let target = i128::from(addr).checked_add(delta).ok_or(MemoryTrap::AddressOverflow)?;
        let target = u64::try_from(target).map_err(|_| MemoryTrap::AddressOverflow)?;
        if target < r.start || target > r.start + r.size {
            return Err(MemoryTrap::OutOfBounds);
        }
        Ok(target)
    }

    /// A fused `gep` + access: `addr + delta` must stay within the allocation
    /// (as `gep` requires), then `size` bytes there are checked as an access.
    /// The error says whether the `gep` (true) or the access failed.
    #[inline(always)]
    pub(crate) fn element(
        &self,
        addr: u64,
        tag: u64,
        delta: Option<i128>,
        size: u64,
        align: u64,
        need: u8,
    ) -> Result<usize, (MemoryTrap, bool)> {
        let r = self.live_record(addr, tag).map_err(|e| (e, true))?;
        let end = r.start + r.size;
        let target = delta.and_then(|d| i128::from(addr).checked_add(d)).ok_or((MemoryTrap::AddressOverflow, true))?;
        // Negative targets wrap to huge values, so one compare catches both ends.
        if target as u128 > u128::from(u64::MAX) {
            return Err((MemoryTrap::AddressOverflow, true));
        }
        let target = target as u64;
        if target < r.start || target > end {
            return Err((MemoryTrap::OutOfBounds, true));
        }
        let last = target.checked_add(size).ok_or((MemoryTrap::AddressOverflow, false))?;
        if last > end {
            return Err((MemoryTrap::OutOfBounds, false));
        }
        if r.perms & need != need {
            return Err((MemoryTrap::PermissionDenied, false));
        }
        if target & (align.wrapping_sub(1)) != 0 {
            return Err((MemoryTrap::Misaligned { address: target, alignment: align }, false));
        }
        Ok((target - BASE) as usize)
    }

    /// [`Memory::element`] for a delta that fits `i64` (the usual case).
    #[inline(always)]
    pub(crate) fn element64(
        &self,
        addr: u64,
        tag: u64,
        delta: i64,
        size: u64,
        align: u64,
        need: u8,
    ) -> Result<usize, (MemoryTrap, bool)> {
        let r = self.live_record(addr, tag).map_err(|e| (e, true))?;
        let end = r.start + r.size;
        let target = addr.checked_add_signed(delta).ok_or((MemoryTrap::AddressOverflow, true))?;
        if target < r.start || target > end {
            return Err((MemoryTrap::OutOfBounds, true));
        }
        // target ≤ end and size ≤ a kind's size: no overflow.
        if target + size > end {
            return Err((MemoryTrap::OutOfBounds, false));
        }
        if r.perms & need != need {
            return Err((MemoryTrap::PermissionDenied, false));
        }
        if target & (align.wrapping_sub(1)) != 0 {
            return Err((MemoryTrap::Misaligned { address: target, alignment: align }, false));
        }
        Ok((target - BASE) as usize)
    }

    /// The allocation offset of arena offset `off`, for error messages.
    #[cold]
    fn allocation_offset(&self, off: usize) -> u64 {
        let addr = BASE + off as u64;
        self.records
            .iter()
            .find(|r| r.live != 0 && r.start <= addr && addr < r.start + r.size)
            .map_or(off as u64, |r| addr - r.start)
    }

    #[cold]
    fn uninitialized(&self, off: usize, len: usize) -> MemoryTrap {
        let first = self.init.first_clear(off, len).unwrap_or(off);
        MemoryTrap::Uninitialized { offset: self.allocation_offset(first) }
    }

    /// Checks that `len ≤ SHORT` bytes at `off` are initialised.
    #[inline(always)]
    fn initialized(&self, off: usize, len: usize) -> Result<(), MemoryTrap> {
        if self.init.all_set_short(off, len) {
            Ok(())
        } else {
            Err(self.uninitialized(off, len))
        }
    }

    /// Loads a `u8` (checked offset).
    #[inline(always)]
    pub(crate) fn read_u8(&self, off: usize) -> Result<u8, MemoryTrap> {
        match self.bytes.get(off) {
            Some(&b) if self.init.is_set(off) => Ok(b),
            _ => Err(self.uninitialized(off, 1)),
        }
    }

    /// Loads `N ≤ 16` initialised bytes (checked offset).
    #[inline(always)]
    pub(crate) fn read<const N: usize>(&self, off: usize) -> Result<[u8; N], MemoryTrap> {
        const { assert!(N <= SHORT) };
        let end = off.wrapping_add(N);
        if let Some(b) = self.bytes.get(off..end) {
            if self.init.all_set_short(off, N) {
                let mut out = [0u8; N];
                out.copy_from_slice(b);
                return Ok(out);
            }
        }
        Err(self.uninitialized(off, N))
    }

    /// Stores `N ≤ 16` bytes and marks them initialised, clearing fragments (checked offset).
    #[inline(always)]
    pub(crate) fn write<const N: usize>(&mut self, off: usize, value: [u8; N]) {
        const { assert!(N <= SHORT) };
        let end = off.wrapping_add(N);
        if let Some(b) = self.bytes.get_mut(off..end) {
            b.copy_from_slice(&value);
            self.init.set_short(off, N);
            self.fragments.clear(off, N);
        }
    }

    /// Loads `len ≤ 16` little-endian bytes (checked offset).
    #[inline(always)]
    pub(crate) fn read_le(&self, off: usize, len: usize) -> Result<u128, MemoryTrap> {
        let bytes = self.bytes.get(off..off + len).filter(|b| b.len() <= 16).ok_or(MemoryTrap::OutOfBounds)?;
        self.initialized(off, len)?;
        let mut buf = [0u8; 16];
        buf[..len].copy_from_slice(bytes);
        Ok(u128::from_le_bytes(buf))
    }

    /// Loads a pointer: its address, and its tag if all eight bytes are the
    /// fragments, in order, of one stored pointer (else no provenance).
    pub(crate) fn read_ptr(&self, off: usize) -> Result<(u64, u64), MemoryTrap> {
        let addr = self.read_le(off, 8)? as u64;
        let Some((0, tag)) = self.fragments.get(off) else { return Ok((addr, 0)) };
        let whole = (1..8u8).all(|k| self.fragments.get(off + usize::from(k)) == Some((k, tag)));
        Ok((addr, if whole && addr != 0 { tag } else { 0 }))
    }

    /// Stores `len ≤ 16` little-endian bytes (checked offset).
    #[inline(always)]
    pub(crate) fn write_le(&mut self, off: usize, len: usize, value: u128) {
        if let Some(b) = self.bytes.get_mut(off..off + len).filter(|b| b.len() <= 16) {
            b.copy_from_slice(&value.to_le_bytes()[..len]);
            self.init.set_short(off, len);
            self.fragments.clear(off, len);
        }
    }

    /// Stores one byte (checked offset).
    #[inline(always)]
    pub(crate) fn write_u8(&mut self, off: usize, value: u8) {
        if let Some(b) = self.bytes.get_mut(off) {
            *b = value;
            self.init.set(off);
            self.fragments.clear(off, 1);
        }
    }

    /// Stores a pointer with its fragments.
    pub(crate) fn write_ptr(&mut self, off: usize, addr: u64, tag: u64) {
        self.write_le(off, 8, u128::from(addr));
        if tag != 0 && off + 8 <= self.bytes.len() {
            for k in 0..8u8 {
                self.fragments.set(off + usize::from(k), k, tag);
            }
        }
    }

    /// `memset` over a checked range.
    pub(crate) fn fill(&mut self, off: usize, len: usize, byte: u8) {
        if let Some(b) = self.bytes.get_mut(off..off + len) {
            b.fill(byte);
            self.init.set_range(off, len, true);
            self.fragments.clear(off, len);
        }
    }

    /// `uninit` over a checked range: bytes stay, initialisation and fragments go.
    pub(crate) fn clear_init(&mut self, off: usize, len: usize) {
        if off.checked_add(len).is_some_and(|end| end <= self.bytes.len()) {
            self.init.set_range(off, len, false);
            self.fragments.clear(off, len);
        }
    }

    /// `memcpy` between checked, non-overlapping ranges: bytes, initialisation
    /// and fragments.
    pub(crate) fn copy(&mut self, dst: usize, src: usize, len: usize) {
        if src.checked_add(len).is_none_or(|e| e > self.bytes.len())
            || dst.checked_add(len).is_none_or(|e| e > self.bytes.len())
        {
            return;
        }
        self.bytes.copy_within(src..src + len, dst);
        self.init.copy(src, dst, len);
        self.fragments.copy(src, dst, len);
    }

    /// Whether two checked ranges share a byte.
    pub(crate) fn overlaps(a: usize, b: usize, len: usize) -> bool {
        a < b + len && b < a + len
    }

    /// Reads `len` initialised bytes through a pointer (for host functions).
    pub(crate) fn read_bytes(&self, addr: u64, tag: u64, len: u64) -> Result<Vec<u8>, MemoryTrap> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let off = self.check(addr, tag, len, 1, READ)?;
        let len = len as usize;
        if let Some(first) = self.init.first_clear(off, len) {
            return Err(MemoryTrap::Uninitialized { offset: self.allocation_offset(first) });
        }
        Ok(self.bytes.get(off..off + len).map(<[u8]>::to_vec).unwrap_or_default())
    }

    /// Writes bytes through a pointer (for host functions).
    pub(crate) fn write_bytes(&mut self, addr: u64, tag: u64, contents: &[u8]) -> Result<(), MemoryTrap> {
        if contents.is_empty() {
            return Ok(());
        }
        let off = self.check(addr, tag, contents.len() as u64, 1, WRITE)?;
        if let Some(b) = self.bytes.get_mut(off..off + contents.len()) {
            b.copy_from_slice(contents);
            self.init.set_range(off, contents.len(), true);
            self.fragments.clear(off, contents.len());
        }
        Ok(())
    }

    /// Bytes of arena in use.
    pub(crate) fn bytes_in_use(&self) -> u64 {
        self.top
    }

    /// Live allocations.
    pub(crate) fn live_allocations(&self) -> u64 {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_allocations_die_and_slots_are_reused_with_new_generations() {
        let mut m = Memory::new(1 << 20, 16);
        let mark = m.mark();
        let (a, ta) = m.allocate_stack(8, 8).unwrap();
        assert_eq!(a % 8, 0);
        let off = m.check(a, ta, 8, 8, WRITE).unwrap();
        m.write_le(off, 8, 42);
        assert_eq!(m.read_le(off, 8), Ok(42));
        m.release(mark);
        assert_eq!(m.check(a, ta, 8, 8, READ), Err(MemoryTrap::ExpiredAllocation));
        let (b, tb) = m.allocate_stack(8, 8).unwrap();
        assert_eq!(a, b);
        assert_ne!(ta, tb);
        assert_eq!(m.check(a, ta, 8, 8, READ), Err(MemoryTrap::ExpiredAllocation));
        let off = m.check(b, tb, 8, 8, READ).unwrap();
        assert_eq!(m.read_le(off, 8), Err(MemoryTrap::Uninitialized { offset: 0 }));
    }

    #[test]
    fn check_order() {
        let mut m = Memory::new(1 << 20, 16);
        let (a, t) = m.allocate_stack(4, 4).unwrap();
        assert_eq!(m.check(0, 0, 1, 1, READ), Err(MemoryTrap::NullPointer));
        assert_eq!(m.check(a, 0, 1, 1, READ), Err(MemoryTrap::MissingProvenance));
        assert_eq!(m.check(a + 1, t, 4, 1, READ), Err(MemoryTrap::OutOfBounds));
        assert_eq!(m.check(a + 4, t, 0, 1, READ), Ok((a + 4 - BASE) as usize));
        assert_eq!(m.check(a + 1, t, 2, 2, READ), Err(MemoryTrap::Misaligned { address: a + 1, alignment: 2 }));
        assert_eq!(m.offset(a, t, Some(5)), Err(MemoryTrap::OutOfBounds));
        assert_eq!(m.offset(a, t, Some(-1)), Err(MemoryTrap::OutOfBounds));
        assert_eq!(m.offset(a, t, Some(i128::from(u64::MAX))), Err(MemoryTrap::AddressOverflow));
        assert_eq!(m.allocate_stack(1 << 21, 1), Err(AllocError::Bytes));
    }

    #[test]
    fn pointer_fragments_survive_only_whole() {
        let mut m = Memory::new(1 << 20, 16);
        let (a, t) = m.allocate_stack(16, 8).unwrap();
        let off = m.check(a, t, 16, 8, WRITE).unwrap();
        m.write_ptr(off, a, t);
        assert_eq!(m.read_ptr(off), Ok((a, t)));
        m.copy(off + 8, off, 8);
        assert_eq!(m.read_ptr(off + 8), Ok((a, t)));
        m.write_u8(off + 3, (a >> 24) as u8);
        assert_eq!(m.read_ptr(off), Ok((a, 0)));
    }

    #[test]
    fn bookkeeping_stays_within_an_eighth_of_plain_memory() {
        let mut m = Memory::new(1 << 30, 16);
        let (a, t) = m.allocate_stack(64 << 20, 8).unwrap();
        let off = m.check(a, t, 8, 8, WRITE).unwrap();
        m.write_le(off, 8, 7);
        let (arena, bookkeeping) = m.footprint();
        assert!(arena >= 64 << 20);
        assert!(bookkeeping * 8 <= arena + 64, "{bookkeeping} bytes of bookkeeping for {arena}");
    }

    #[test]
    fn a_pointer_reassembled_from_copied_halves_keeps_provenance() {
        let mut m = Memory::new(1 << 20, 16);
        let (a, t) = m.allocate_stack(32, 8).unwrap();
        let off = m.check(a, t, 32, 8, WRITE).unwrap();
        m.write_ptr(off, a, t);
        m.copy(off + 16, off, 4);
        m.copy(off + 20, off + 4, 4);
        assert_eq!(m.read_ptr(off + 16), Ok((a, t)));
        // Halves swapped: the bytes are the pointer's, but not in order.
        m.copy(off + 24, off + 4, 4);
        m.copy(off + 28, off, 4);
        assert_eq!(m.read_ptr(off + 24).map(|(_, tag)| tag), Ok(0));
        // An ordinary store over one byte drops it; `uninit` drops the bytes.
        m.write_u8(off + 17, (a >> 8) as u8);
        assert_eq!(m.read_ptr(off + 16), Ok((a, 0)));
        m.clear_init(off, 8);
        assert_eq!(m.read_ptr(off), Err(MemoryTrap::Uninitialized { offset: 0 }));
    }

    #[test]
    fn a_reservation_the_host_cannot_provide_is_an_error() {
        let mut m = Memory::new(u64::MAX, 16);
        assert!(matches!(m.allocate_stack(1 << 61, 8), Err(AllocError::OutOfMemory(_))));
        // The memory is still usable afterwards.
        let (a, t) = m.allocate_stack(8, 8).unwrap();
        assert!(m.check(a, t, 8, 8, READ).is_ok());
    }

    mod fast_path {
        //! The fast paths accept an access only if the exact checks do, at the
        //! same offset, and accept every ordinary in-bounds access.

        use super::*;
        use proptest::prelude::*;

        /// Allocations of every state: live stack ones, dead ones (including a
        /// slot reused with a new generation), read-only and write-only static
        /// ones; returns the memory and the pointers `(start, size, tag)`.
        fn world(sizes: &[u64]) -> (Memory, Vec<(u64, u64, u64)>) {
            let mut m = Memory::new(1 << 20, 64);
            let mut pointers = Vec::new();
            for (perms, contents) in [(Permissions::READ_ONLY, &b"read-only"[..]), (Permissions::WRITE_ONLY, b"w")] {
                let (a, t) = m.allocate_static(contents, perms).unwrap();
                pointers.push((a, contents.len() as u64, t));
            }
            let outer = m.mark();
            for (i, &size) in sizes.iter().enumerate() {
                let mark = m.mark();
                let (a, t) = m.allocate_stack(size, 1 << (i % 5)).unwrap();
                pointers.push((a, size, t));
                if i % 3 == 2 {
                    m.release(mark);
                }
            }
            let (a, t) = m.allocate_stack(24, 8).unwrap();
            pointers.push((a, 24, t));
            m.release(outer);
            let (a, t) = m.allocate_stack(40, 16).unwrap();
            pointers.push((a, 40, t));
            (m, pointers)
        }

        proptest! {
            #[test]
            fn fast_accesses_are_exact(
                sizes in prop::collection::vec(0u64..64, 1..8),
                queries in prop::collection::vec(
                    (any::<prop::sample::Index>(), any::<prop::sample::Index>(), -80i64..80, any::<i64>(),
                     any::<u64>(), 0u8..8, 0u32..5, 0u32..5, any::<bool>()),
                    1..64),
            ) {
                let (m, pointers) = world(&sizes);
                for (which, tag_of, shift, wild, raw, mode, size_log2, align_log2, write) in queries {
                    let (start, size, tag) = pointers[which.index(pointers.len())];
                    let addr = match mode {
                        0 => raw,
                        1 => 0,
                        _ => start.wrapping_add(shift as u64),
                    };
                    let tag = match mode {
                        2 => pointers[tag_of.index(pointers.len())].2,
                        3 => 0,
                        4 => raw,
                        _ => tag,
                    };
                    let delta = if mode == 5 { wild } else { (size as i64 / 2).wrapping_sub(shift) };
                    let (n, align) = (1u64 << size_log2, 1u64 << align_log2);
                    let need = if write { WRITE } else { READ };
                    let fast = m.fast(addr, tag, delta, n, align - 1, need);
                    let exact = m.element64(addr, tag, delta, n, align, need);
                    if let Some(off) = fast {
                        prop_assert_eq!(exact, Ok(off));
                    } else if exact.is_ok() && !(2..=4).contains(&mode) && addr.wrapping_sub(start) <= size {
                        prop_assert!(false, "an ordinary access took the slow path: {addr:#x} {delta} {n}");
                    }
                    if let (Some(off), 0) = (fast, delta) {
                        prop_assert_eq!(m.check(addr, tag, n, align, need), Ok(off));
                    }
                    let gep = m.fast_offset(addr, tag, delta);
                    if let Some(target) = gep {
                        prop_assert_eq!(m.offset(addr, tag, Some(i128::from(delta))), Ok(target));
                    }
                }
            }
        }
    }
}
