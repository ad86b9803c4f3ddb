//! Large allocations in transparent huge pages.
//!
//! A block of [`LARGE`] bytes or more (an argon2 memory block, a PDF's image stream copied by
//! the parser, a page's pixmap) is mapped on its own, aligned to a 2 MiB huge page and advised
//! `MADV_HUGEPAGE`, and unmapped when freed; smaller blocks go to the wrapped allocator. Either
//! allocator would map such a block afresh too (glibc's mmap threshold is fixed in `main.rs`,
//! mimalloc maps blocks this large from the OS), but in 4 KiB pages: a 20 MiB block then costs
//! 5,120 page faults, each zeroing and charging one page, which made up most of an upload's
//! PDF check. In huge pages it costs ten. Where the kernel has no huge page to give (THP set
//! to `never`, or memory too fragmented), the advice is ignored and the block is an ordinary
//! mapping, as before.
//!
//! Zeroing fresh pages is most of what is left (on a virtual machine, first touching memory
//! the host has taken back costs more still), so the last freed block, up to [`MAX_KEPT`], is
//! kept for the next one for at most [`KEEP_FOR`]: a larger kept block is cut to the size asked
//! for, a smaller one is returned and a fresh one mapped. Every other freed block goes back to
//! the system at once, so memory still follows what is in use (the login bound depends on it),
//! give or take one block for a few seconds; the server calls [`release_idle`] on a timer.
//!
//! Which path a block took follows from its size alone, which Rust's allocator contract passes
//! unchanged to `dealloc` and `realloc`.

use std::alloc::{GlobalAlloc, Layout};
use std::ptr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Blocks of this many bytes or more are mapped in huge pages. At 4 MiB a block wastes at most
/// a third of its rounded-up mapping; most allocations, including every network buffer, stay
/// far below it.
pub const LARGE: usize = 4 << 20;

/// The x86-64 and aarch64 (4 KiB base page) transparent huge page.
const HUGE_PAGE: usize = 2 << 20;

/// The longest a freed block is kept for reuse.
pub const KEEP_FOR: Duration = Duration::from_secs(5);

/// The largest freed block kept for reuse.
pub const MAX_KEPT: usize = 64 << 20;

/// The freed block kept for the next large one: a whole mapping made by [`map`].
struct Kept {
    block: usize,
    len: usize,
    freed: Instant,
}

static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

fn kept() -> std::sync::MutexGuard<'static, Option<Kept>> {
    // Nothing panics while holding it; a poisoned lock still guards a whole value.
    KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Returns the kept block to the system if it has been kept for [`KEEP_FOR`].
pub fn release_idle() {
    let stale = {
        let mut kept = kept();
        match &*kept {
            Some(k) if k.freed.elapsed() >= KEEP_FOR => kept.take(),
            _ => None,
        }
    };
    if let Some(k) = stale {
        // SAFETY: a kept block is a whole mapping nobody holds.
        unsafe { libc::munmap(k.block as *mut libc::c_void, k.len) };
    }
}

/// The kept block cut to `len` bytes, if one of at least `len` was freed within [`KEEP_FOR`];
/// any other kept block is returned to the system.
#[cold]
#[inline(never)]
fn reuse(len: usize) -> Option<*mut u8> {
    let k = kept().take()?;
    // SAFETY: the kept block is a whole mapping nobody holds; the ranges unmapped lie in it.
    unsafe {
        if k.len < len || k.freed.elapsed() >= KEEP_FOR {
            libc::munmap(k.block as *mut libc::c_void, k.len);
            return None;
        }
        if k.len > len {
            libc::munmap((k.block + len) as *mut libc::c_void, k.len - len);
        }
    }
    Some(k.block as *mut u8)
}

/// `A` with blocks of at least [`LARGE`] bytes mapped in huge pages (see the module).
pub struct LargeBlocks<A>(pub A);

fn is_large(layout: &Layout) -> bool {
    layout.size() >= LARGE && layout.align() <= HUGE_PAGE
}

/// `size` rounded up to whole huge pages, or `None` on overflow.
fn mapped_len(size: usize) -> Option<usize> {
    size.checked_add(HUGE_PAGE - 1)
        .map(|n| n & !(HUGE_PAGE - 1))
}

/// A mapping of `mapped_len(size)` bytes starting on a huge-page boundary, advised into huge
/// pages: the kept block when it is large enough (its old bytes zeroed only if `zeroed`), or
/// a fresh one; null when the system refuses it.
#[cold]
#[inline(never)]
fn map(size: usize, zeroed: bool) -> *mut u8 {
    let Some(len) = mapped_len(size) else {
        return ptr::null_mut();
    };
    if let Some(block) = reuse(len) {
        if zeroed {
            // SAFETY: the block is `len >= size` bytes, now this caller's.
            unsafe { block.write_bytes(0, size) };
        }
        return block;
    }
    let Some(reserve) = len.checked_add(HUGE_PAGE) else {
        return ptr::null_mut();
    };
    // SAFETY: an anonymous private mapping touches no existing memory.
    let raw = unsafe {
        libc::mmap(
            ptr::null_mut(),
            reserve,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return ptr::null_mut();
    }
    let start = raw as usize;
    let aligned = (start + HUGE_PAGE - 1) & !(HUGE_PAGE - 1);
    let (head, tail) = (aligned - start, reserve - (aligned - start) - len);
    // SAFETY: both ranges lie inside the mapping just made and are not handed out.
    unsafe {
        if head > 0 {
            libc::munmap(raw, head);
        }
        if tail > 0 {
            libc::munmap((aligned + len) as *mut libc::c_void, tail);
        }
        // Advice only: a kernel without huge pages leaves an ordinary mapping.
        libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
    aligned as *mut u8
}

/// Keeps the freed `block` for the next large one (returning the one kept before), or returns
/// it to the system when it is larger than [`MAX_KEPT`].
///
/// # Safety
/// `block` must come from [`map`] with the same `size`, and be no longer used.
#[cold]
#[inline(never)]
unsafe fn release(block: *mut u8, size: usize) {
    let Some(len) = mapped_len(size) else {
        return;
    };
    let returned = if len <= MAX_KEPT {
        let freed = Instant::now();
        kept()
            .replace(Kept {
                block: block as usize,
                len,
                freed,
            })
            .map(|k| (k.block, k.len))
    } else {
        Some((block as usize, len))
    };
    if let Some((block, len)) = returned {
        // SAFETY: a whole mapping made by `map` that nobody holds any more.
        unsafe { libc::munmap(block as *mut libc::c_void, len) };
    }
}

// The entry points are not inlined: Rust allocates at tens of thousands of places, and with
// whole-program LTO each took a copy of the size check and of the wrapped allocator's fast path:
// the static binary was 917,504 bytes larger. One call more an allocation did not show in the
// bearer reads' rate (docs/develop/performance-history.md).
//
// SAFETY: large blocks are whole mappings of at least their size, aligned to 2 MiB (so to any
// alignment they accept), never shared between blocks, and released only by the path that made
// them, which their size decides; everything else is the wrapped allocator's.
unsafe impl<A: GlobalAlloc> GlobalAlloc for LargeBlocks<A> {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(&layout) {
            map(layout.size(), false)
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { self.0.alloc(layout) }
        }
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(&layout) {
            map(layout.size(), true)
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { self.0.alloc_zeroed(layout) }
        }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if is_large(&layout) {
            // SAFETY: a large layout's block came from `map` with this size.
            unsafe { release(block, layout.size()) }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { self.0.dealloc(block, layout) }
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return ptr::null_mut();
        };
        match (is_large(&layout), is_large(&new_layout)) {
            // SAFETY: the caller's contract, passed on.
            (false, false) => unsafe { self.0.realloc(block, layout, new_size) },
            (true, true) if mapped_len(layout.size()) == mapped_len(new_size) => block,
            // SAFETY: the caller's contract, passed on.
            _ => unsafe { self.moved(block, layout, new_layout) },
        }
    }
}

impl<A: GlobalAlloc> LargeBlocks<A> {
    /// `realloc` between paths, or to a mapping of another length: a new block, the bytes both
    /// hold copied, the old one released.
    ///
    /// # Safety
    /// `realloc`'s contract, with `new_layout` its new size and the old alignment.
    #[cold]
    #[inline(never)]
    unsafe fn moved(&self, block: *mut u8, layout: Layout, new_layout: Layout) -> *mut u8 {
        // SAFETY: `new_layout` is non-zero (realloc's contract); the copy stays inside both
        // blocks; the old block is released once, by its own path.
        unsafe {
            let moved = self.alloc(new_layout);
            if !moved.is_null() {
                ptr::copy_nonoverlapping(block, moved, layout.size().min(new_layout.size()));
                self.dealloc(block, layout);
            }
            moved
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;

    static BLOCKS: LargeBlocks<System> = LargeBlocks(System);

    /// The `VmFlags` line of the mapping holding `address`, from `/proc/self/smaps`.
    fn vm_flags(address: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((from, to)) = range.split_once('-')
                && let (Ok(from), Ok(to)) = (
                    usize::from_str_radix(from, 16),
                    usize::from_str_radix(to, 16),
                )
            {
                inside = (from..to).contains(&address);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return Some(flags.trim().to_string());
            }
        }
        None
    }

    /// Whether one of this module's mappings (advised into huge pages) holds `address`; an
    /// address it returned may since hold another test's mapping, but not an advised one.
    fn mapped(address: usize) -> bool {
        vm_flags(address).is_some_and(|flags| flags.split(' ').any(|f| f == "hg"))
    }

    /// One test: the kept block is one per process, so these steps must not interleave with
    /// another test's.
    #[test]
    fn large_blocks_are_huge_page_mappings_kept_once_for_the_next_and_keep_their_bytes() {
        let layout = Layout::from_size_align(LARGE + 12_345, 8).unwrap();
        unsafe {
            release_all();
            let block = BLOCKS.alloc_zeroed(layout);
            assert!(!block.is_null());
            assert_eq!(block as usize % HUGE_PAGE, 0, "aligned to a huge page");
            assert!(
                mapped(block as usize),
                "advised: {:?}",
                vm_flags(block as usize)
            );
            assert!(
                std::slice::from_raw_parts(block, layout.size())
                    .iter()
                    .all(|&b| b == 0)
            );
            for i in (0..layout.size()).step_by(4096) {
                *block.add(i) = (i / 4096) as u8 | 1;
            }
            // Within the same rounded length: the same block.
            let same = BLOCKS.realloc(block, layout, LARGE + 20_000);
            assert_eq!(same, block);
            let layout = Layout::from_size_align(LARGE + 20_000, 8).unwrap();
            // Grown past it: moved, bytes kept; the old block is now the kept one.
            let grown = BLOCKS.realloc(same, layout, 3 * LARGE);
            let layout = Layout::from_size_align(3 * LARGE, 8).unwrap();
            assert_eq!(grown as usize % HUGE_PAGE, 0);
            for i in (0..LARGE).step_by(4096) {
                assert_eq!(*grown.add(i), (i / 4096) as u8 | 1);
            }
            assert!(kept().as_ref().is_some_and(|k| k.block == block as usize));
            // Shrunk below the threshold: back to the wrapped allocator, bytes kept.
            let small = BLOCKS.realloc(grown, layout, 64 * 1024);
            let small_layout = Layout::from_size_align(64 * 1024, 8).unwrap();
            for i in (0..64 * 1024).step_by(4096) {
                assert_eq!(*small.add(i), (i / 4096) as u8 | 1);
            }
            assert!(
                !mapped(small as usize),
                "a small block is the wrapped allocator's"
            );
            // The 12 MiB block replaced the one kept before, which went back to the system.
            assert!(!mapped(block as usize));
            assert!(kept().as_ref().is_some_and(|k| k.block == grown as usize));
            // A smaller large block reuses the kept one, cut to its size, zeroed when asked.
            let reused = BLOCKS.alloc_zeroed(Layout::from_size_align(LARGE, 8).unwrap());
            assert_eq!(reused, grown);
            assert!(kept().is_none());
            assert!(
                std::slice::from_raw_parts(reused, LARGE)
                    .iter()
                    .all(|&b| b == 0)
            );
            assert!(!mapped(grown as usize + LARGE), "the rest was returned");
            // A kept block too small for the next one is returned, and a fresh one mapped.
            BLOCKS.dealloc(reused, Layout::from_size_align(LARGE, 8).unwrap());
            let big = BLOCKS.alloc(Layout::from_size_align(2 * LARGE, 8).unwrap());
            assert!(kept().is_none());
            // Freed, it is kept; kept past KEEP_FOR, release_idle returns it.
            BLOCKS.dealloc(big, Layout::from_size_align(2 * LARGE, 8).unwrap());
            release_idle();
            assert!(mapped(big as usize), "kept for the next one");
            kept().as_mut().unwrap().freed -= KEEP_FOR;
            release_idle();
            assert!(!mapped(big as usize) && kept().is_none());
            // Blocks over MAX_KEPT are never kept.
            let huge = Layout::from_size_align(MAX_KEPT + 1, 8).unwrap();
            let over = BLOCKS.alloc(huge);
            BLOCKS.dealloc(over, huge);
            assert!(kept().is_none());
            BLOCKS.dealloc(small, small_layout);
        }
    }

    fn release_all() {
        if let Some(k) = kept().take() {
            unsafe { libc::munmap(k.block as *mut libc::c_void, k.len) };
        }
    }

    #[test]
    fn small_and_over_aligned_blocks_go_to_the_wrapped_allocator() {
        assert!(!is_large(&Layout::from_size_align(LARGE - 1, 8).unwrap()));
        assert!(is_large(&Layout::from_size_align(LARGE, 8).unwrap()));
        assert!(!is_large(
            &Layout::from_size_align(LARGE, 2 * HUGE_PAGE).unwrap()
        ));
        assert_eq!(mapped_len(LARGE + 1), Some(LARGE + HUGE_PAGE));
        assert_eq!(mapped_len(usize::MAX), None);
    }
}
