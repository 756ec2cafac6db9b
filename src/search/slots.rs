//! The transposition table's memory. A table is read at random all over,
//! so with 4 KiB pages nearly every probe misses the TLB, and a fresh
//! table faults its pages in one at a time during the first searches. On
//! Linux a table of 2 MiB or more is an anonymous mapping, 2 MiB aligned,
//! that the kernel is asked to back with huge pages (`MADV_HUGEPAGE`: the
//! common `madvise` setting of transparent huge pages gives them only to
//! regions that ask). Elsewhere, and where the mapping is refused, it is
//! a boxed slice as before. Either way the memory reads as zeros (empty
//! slots) until written, and untouched pages cost nothing.

use std::ops::Deref;
use std::sync::atomic::AtomicU64;

/// One slot of the table: the full key XOR the data, then the data:
/// score (32 bits) | move (16: the cell in the low 15 bits, the PV flag in
/// the top one) | depth (8) | flags (8: bound in 2 bits, age above). All
/// zero is an empty slot.
pub(super) type Slot = [AtomicU64; 2];

/// `len` zeroed slots.
pub(super) enum Slots {
    Boxed(Box<[Slot]>),
    #[cfg(target_os = "linux")]
    Mapped(huge::Mapping),
}

impl Slots {
    /// `len` empty slots (an allocation that fails aborts, as a `Box`'s).
    pub(super) fn new(len: usize) -> Slots {
        Self::mapped(len).unwrap_or_else(|| Self::boxed(len))
    }

    /// `len` empty slots, or `None` when the memory cannot be had (tried
    /// first, so a refusal is an answer, not an abort).
    pub(super) fn try_new(len: usize) -> Option<Slots> {
        Self::mapped(len).or_else(|| {
            let mut probe: Vec<Slot> = Vec::new();
            probe.try_reserve_exact(len).ok()?;
            drop(probe);
            Some(Self::boxed(len))
        })
    }

    /// A huge-page mapping, for a table of at least one huge page on Linux.
    fn mapped(len: usize) -> Option<Slots> {
        #[cfg(target_os = "linux")]
        if len.saturating_mul(std::mem::size_of::<Slot>()) >= huge::HUGE_PAGE {
            return huge::Mapping::new(len).map(Slots::Mapped);
        }
        let _ = len;
        None
    }

    fn boxed(len: usize) -> Slots {
        Slots::Boxed((0..len).map(|_| Default::default()).collect())
    }
}

impl Deref for Slots {
    type Target = [Slot];

    #[inline]
    fn deref(&self) -> &[Slot] {
        match self {
            Slots::Boxed(b) => b,
            #[cfg(target_os = "linux")]
            Slots::Mapped(m) => m.slots(),
        }
    }
}

// The mapping is the one place outside `simd` with `unsafe`: std has no
// way to ask for huge pages.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod huge {
    use super::Slot;

    /// The size of a huge page on x86-64 and most arm64 kernels.
    pub const HUGE_PAGE: usize = 2 << 20;

    /// An anonymous private mapping holding `len` slots at a 2 MiB
    /// boundary; unmapped when dropped.
    pub struct Mapping {
        base: *mut libc::c_void,
        mapped: usize,
        slots: *const Slot,
        len: usize,
    }

    // SAFETY: the mapping is owned like a `Box<[Slot]>`: nothing else
    // holds it, and its slots are atomics, so shared references to them
    // may be used from any thread.
    unsafe impl Send for Mapping {}
    unsafe impl Sync for Mapping {}

    impl Mapping {
        pub fn new(len: usize) -> Option<Mapping> {
            let bytes = len.checked_mul(std::mem::size_of::<Slot>())?;
            let mapped = bytes.checked_add(HUGE_PAGE)?;
            // SAFETY: a new anonymous mapping, at an address the kernel
            // picks; nothing else is touched.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    mapped,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return None;
            }
            let offset = (base as usize).next_multiple_of(HUGE_PAGE) - base as usize;
            // SAFETY: `offset < HUGE_PAGE`, so `offset + bytes` lies
            // within the `bytes + HUGE_PAGE` mapped.
            let start = unsafe { base.cast::<u8>().add(offset) };
            // Only advice: where the kernel has no huge pages to give (or
            // none at all), the mapping works with small pages.
            // SAFETY: the range is part of the mapping just made.
            unsafe { libc::madvise(start.cast(), bytes, libc::MADV_HUGEPAGE) };
            Some(Mapping {
                base,
                mapped,
                slots: start.cast(),
                len,
            })
        }

        #[inline]
        pub fn slots(&self) -> &[Slot] {
            // SAFETY: `slots` points to `len` slots inside the mapping,
            // aligned (a 2 MiB boundary), and an anonymous mapping reads
            // as zeros until written: all-zero bits are valid atomics.
            // The mapping lives as long as `self`.
            unsafe { std::slice::from_raw_parts(self.slots, self.len) }
        }
    }

    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: the whole mapping made in `new`, unmapped once; no
            // reference to its slots outlives `self`.
            unsafe { libc::munmap(self.base, self.mapped) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn slots_start_empty_and_keep_what_is_written_at_any_size() {
        // Below the huge-page size (a boxed slice) and above it (a
        // mapping on Linux), the last slot included.
        for len in [1024, (4 << 20) / std::mem::size_of::<Slot>()] {
            let s = Slots::try_new(len).unwrap();
            assert_eq!(s.len(), len);
            assert!(s
                .iter()
                .all(|x| x[0].load(Relaxed) == 0 && x[1].load(Relaxed) == 0));
            s[len - 1][1].store(7, Relaxed);
            s[0][0].store(9, Relaxed);
            assert_eq!((s[len - 1][1].load(Relaxed), s[0][0].load(Relaxed)), (7, 9));
            #[cfg(target_os = "linux")]
            if len * std::mem::size_of::<Slot>() >= 2 << 20 {
                assert!(matches!(s, Slots::Mapped(_)), "a large table is mapped");
                assert_eq!(
                    s.as_ptr() as usize % (2 << 20),
                    0,
                    "at a huge-page boundary"
                );
            }
        }
    }

    #[test]
    fn a_table_that_cannot_be_had_is_refused() {
        assert!(Slots::try_new(usize::MAX / 8).is_none());
    }
}
