//! The transposition table: one entry a slot, replaced by depth and age.
//! Shared by the threads of a parallel search without locks: a slot is two
//! atomic words, the key stored XORed with the data, so an entry torn by
//! two threads writing it at once fails its key check and is never used.

use crate::types::Pos;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

/// What a stored score says about the true value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The true value is at most the score (fail low).
    Upper = 1,
    /// The true value is at least the score (fail high).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

// A slot's layout: `super::slots::Slot`.
use super::slots::{Slot, Slots};

#[derive(Copy, Clone, Default)]
struct Entry {
    key: u64,
    score: i32,
    mv: u16,
    depth: i8,
    /// bound (2 bits) | age << 2
    flags: u8,
}

impl Entry {
    /// The entry in a slot; a slot written by two threads at once reads
    /// back with a key that matches neither.
    #[inline]
    fn load(s: &Slot) -> Entry {
        let d = s[1].load(Relaxed);
        Entry {
            key: s[0].load(Relaxed) ^ d,
            score: d as u32 as i32,
            mv: (d >> 32) as u16,
            depth: (d >> 48) as u8 as i8,
            flags: (d >> 56) as u8,
        }
    }

    #[inline]
    fn save(&self, s: &Slot) {
        let d = self.score as u32 as u64
            | (self.mv as u64) << 32
            | (self.depth as u8 as u64) << 48
            | (self.flags as u64) << 56;
        s[0].store(self.key ^ d, Relaxed);
        s[1].store(d, Relaxed);
    }
}

/// A probed entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    pub mv: Option<Pos>,
}

/// The move field's cell bits.
const MOVE_BITS: u16 = 0x7FFF;
/// The cell bits of no move.
const NO_MOVE: u16 = MOVE_BITS;

/// A fixed-size table; its size is chosen by the caller in bytes.
pub struct TranspositionTable {
    entries: Slots,
    mask: usize,
    age: AtomicU8,
    /// Made and not cleared since: some pages may not be written yet.
    untouched: AtomicBool,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable({} entries)", self.entries.len())
    }
}

impl TranspositionTable {
    /// Bytes one entry takes.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Slot>();

    /// Fewest entries a table has.
    pub const MIN_ENTRIES: usize = 1024;

    /// Entries of a table of at most `bytes` bytes: a power of two, at
    /// least [`Self::MIN_ENTRIES`].
    pub fn entries_for(bytes: usize) -> usize {
        let want = (bytes / Self::ENTRY_BYTES).max(Self::MIN_ENTRIES);
        if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        }
    }

    /// A table of at most `bytes` bytes (see [`Self::entries_for`]).
    pub fn new(bytes: usize) -> TranspositionTable {
        Self::with_slots(Slots::new(Self::entries_for(bytes)))
    }

    fn with_slots(entries: Slots) -> TranspositionTable {
        TranspositionTable {
            mask: entries.len() - 1,
            entries,
            age: AtomicU8::new(0),
            untouched: AtomicBool::new(true),
        }
    }

    /// Largest table [`Self::warm`] writes in full.
    pub const WARM_BYTES: usize = 256 << 20;

    /// Writes a table not written in full since it was made, so that
    /// every page is the process's before a search needs it. Done where a
    /// table is made or fitted off any move's clock (the protocol's START,
    /// `analyze`, the board's searchers), whatever the number of threads;
    /// never inside a search, nor on an `INFO` that a move follows:
    /// - a page first written during a parallel search costs the other
    ///   threads' cores a TLB flush each (on a 2-core virtual machine,
    ///   enough to make two threads slower than one for the first second);
    /// - on a virtual machine a huge page the host has not yet backed
    ///   costs about 5 ms to fault in (measured here: 32 such pages of a
    ///   64 MiB table took 3 ms in one run, 184 ms in the next), which a
    ///   first search of one thread paid inside its time.
    ///
    /// Tables above [`Self::WARM_BYTES`] are left to get their pages as
    /// searches write them (about a second a GiB to write here).
    pub fn warm(&self) {
        if self.untouched.load(Relaxed) && self.bytes() <= Self::WARM_BYTES {
            self.clear();
        }
    }

    /// A table of at most `bytes` bytes, or `None` when the memory cannot
    /// be had (the allocation is tried first, so a refusal is an answer,
    /// not an abort).
    pub fn try_new(bytes: usize) -> Option<TranspositionTable> {
        Slots::try_new(Self::entries_for(bytes)).map(Self::with_slots)
    }

    /// The largest table of at most `bytes` bytes that can be had: halved
    /// until the allocation succeeds.
    pub fn largest_within(bytes: usize) -> TranspositionTable {
        let mut want = bytes;
        loop {
            if let Some(t) = TranspositionTable::try_new(want) {
                return t;
            }
            if Self::entries_for(want) <= Self::MIN_ENTRIES {
                return TranspositionTable::new(0);
            }
            want /= 2;
        }
    }

    /// Bytes in use.
    pub fn bytes(&self) -> usize {
        self.entries.len() * Self::ENTRY_BYTES
    }

    pub fn clear(&self) {
        for s in self.entries.iter() {
            s[0].store(0, Relaxed);
            s[1].store(0, Relaxed);
        }
        self.age.store(0, Relaxed);
        self.untouched.store(false, Relaxed);
    }

    /// Starts a new search: older entries become easier to replace.
    pub fn new_search(&self) {
        let _ = self
            .age
            .fetch_update(Relaxed, Relaxed, |a| Some((a + 1) & 63));
    }

    pub fn probe(&self, key: u64) -> Option<Probe> {
        let e = Entry::load(&self.entries[key as usize & self.mask]);
        if e.key != key || e.flags & 3 == 0 {
            return None;
        }
        let bound = match e.flags & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        };
        Some(Probe {
            score: e.score,
            depth: e.depth as i32,
            bound,
            mv: (e.mv & MOVE_BITS != NO_MOVE).then(|| Pos::from_index((e.mv & MOVE_BITS) as usize)),
        })
    }

    /// Stores a search result.
    pub fn store(&self, key: u64, depth: i32, score: i32, bound: Bound, mv: Option<Pos>) {
        let age = self.age.load(Relaxed);
        let slot = &self.entries[key as usize & self.mask];
        let e = Entry::load(slot);
        let same = e.key == key;
        let old_age = e.flags >> 2;
        if same || old_age != age || depth >= e.depth as i32 || e.flags & 3 == 0 {
            let mv = match mv {
                Some(p) => p.index() as u16,
                // Keep the old move of the same position.
                None if same => e.mv & MOVE_BITS,
                None => NO_MOVE,
            };
            Entry {
                key,
                score,
                mv,
                depth: depth.clamp(-100, 100) as i8,
                flags: bound as u8 | age << 2,
            }
            .save(slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1 << 20);
        assert!(tt.bytes() <= 1 << 20);
        assert!(tt.probe(12345).is_none());
        tt.store(12345, 5, -42, Bound::Lower, Some(Pos::new(3, 4)));
        let p = tt.probe(12345).unwrap();
        assert_eq!(
            (p.score, p.depth, p.bound, p.mv),
            (-42, 5, Bound::Lower, Some(Pos::new(3, 4)))
        );
        // A shallower result for another key in the same slot does not evict.
        let other = 12345 + (tt.mask as u64 + 1);
        tt.store(other, 2, 7, Bound::Exact, None);
        assert!(tt.probe(12345).is_some());
        assert!(tt.probe(other).is_none());
        // After a new search, it does.
        tt.new_search();
        tt.store(other, 2, 7, Bound::Exact, None);
        assert_eq!(tt.probe(other).unwrap().mv, None);
        // A result without a move keeps the position's old move.
        tt.store(other, 4, 9, Bound::Upper, Some(Pos::new(21, 21)));
        tt.store(other, 5, 9, Bound::Upper, None);
        let p = tt.probe(other).unwrap();
        assert_eq!((p.mv, p.depth), (Some(Pos::new(21, 21)), 5));
        tt.clear();
        assert!(tt.probe(other).is_none());
    }

    #[test]
    fn a_torn_entry_fails_its_key_check() {
        let tt = TranspositionTable::new(1 << 16);
        let (a, b) = (0x1234_5678_9abc_0007u64, 0x0fed_cba9_8765_0007u64);
        assert_eq!(a as usize & tt.mask, b as usize & tt.mask);
        tt.store(a, 3, 11, Bound::Exact, Some(Pos::new(1, 1)));
        let first = [0, 1].map(|i| tt.entries[a as usize & tt.mask][i].load(Relaxed));
        tt.new_search();
        tt.store(b, 9, -500, Bound::Lower, Some(Pos::new(7, 7)));
        let second = [0, 1].map(|i| tt.entries[b as usize & tt.mask][i].load(Relaxed));
        // Each thread's write landed one word each: key word of one, data
        // word of the other, both ways round.
        let slot = &tt.entries[a as usize & tt.mask];
        for (k, d) in [(first[0], second[1]), (second[0], first[1])] {
            slot[0].store(k, Relaxed);
            slot[1].store(d, Relaxed);
            assert!(tt.probe(a).is_none() && tt.probe(b).is_none());
        }
        // Whole writes read back.
        slot[0].store(second[0], Relaxed);
        slot[1].store(second[1], Relaxed);
        assert_eq!(tt.probe(b).map(|p| p.score), Some(-500));
    }

    #[test]
    fn threads_hammering_one_table_read_only_whole_entries() {
        // Every entry stored is (key, score = key's low bits): a probe
        // that returns a score not of its key would be a torn entry used.
        let tt = TranspositionTable::new(1 << 12);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let tt = &tt;
                s.spawn(move || {
                    let mut x = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(t + 1);
                    for _ in 0..200_000 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        // Few distinct slots, so writes collide.
                        let key = x & !0x3f0;
                        let score = (key >> 40) as i32 & 0xffff;
                        if x & 1 == 0 {
                            tt.store(key, (x >> 8) as i32 & 31, score, Bound::Exact, None);
                        } else if let Some(p) = tt.probe(key) {
                            assert_eq!(p.score, score, "a torn entry was used");
                        }
                    }
                });
            }
        });
    }
}
