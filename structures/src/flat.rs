//! `flat`: rbtree-availability-profile's availability profile (section III) in flat
//! arrays. Each entry's key, its number of free ids and the slot of a pool holding its
//! free set, as bits in words of the capacity's width, sit side by side in three
//! vectors; the entries before the present stay at the front until they are half of
//! them, then go in one move.
//!
//! A lookup is a binary search, and every walk reads the arrays in order. An update that
//! adds or removes an entry shifts the entries on its shorter side (those before it move
//! into the room the present left), O(n), but in one `memmove` of keys, counts and slot
//! numbers, whatever the machine's width:
//! at the profile sizes of real traces (hundreds to a few thousand entries), that costs
//! less than a tree's rebalancing, and a walk that reads consecutive words runs at
//! several instructions a cycle where a tree's walk waits on each pointer. The search is
//! Algorithm 1's, skipping past an entry with too few free ids where a window fails on
//! it, as `augtree` does without its summaries.

use std::borrow::Cow;
use std::cell::RefCell;

use crate::shell::{Basis, Engine, Shell, Step};
use crate::{Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame, COUNTING};

/// The availability profile in flat arrays.
pub type FlatProfile = Shell<Flat>;

/// The most ids a flat profile takes: 1,024 words, 8 KiB per entry.
pub const MAX_CAPACITY: u32 = 1 << 16;

/// The entries before the present are dropped in one move once there are more than this
/// many and they are at least half of the arrays: O(1) amortised per entry.
const DROP_AFTER: usize = 32;

/// The widest machine, in words, whose word loops are compiled for its width and whose
/// sets are read whole.
const NARROW: usize = 4;

/// The engine: the profile's entries from `head` on, in key order.
#[derive(Debug, Clone)]
pub struct Flat {
    /// Words per entry's set: the capacity over 64, rounded up.
    width: usize,
    /// The index of the entry holding the present; those before it are gone.
    head: usize,
    keys: Vec<Time>,
    /// Each entry's number of free ids, which rules out most candidates unread.
    counts: Vec<u32>,
    /// Each entry's free set: its slot of `pool`. The entries before `head` hold slots
    /// too, each its own, which a shift into their room reuses.
    slots: Vec<usize>,
    /// The free sets' words, `width` from `slot * width`: an entry that moves moves its
    /// slot's number, not its words (18 of them on SDSC-BLUE's 1,152 ids).
    pool: Vec<u64>,
    /// The slots no entry holds.
    spare: Vec<usize>,
    /// Room for a window's intersection, or an update's set, without allocating.
    scratch: RefCell<Vec<u64>>,
}

/// Keeps the ids of `acc` also in `other`; the number left.
fn and_count(acc: &mut [u64], other: &[u64]) -> u32 {
    let mut count = 0;
    for (a, b) in acc.iter_mut().zip(other) {
        *a &= b;
        count += a.count_ones();
    }
    count
}

/// The number of ids in `bits`.
fn ones(bits: &[u64]) -> u32 {
    bits.iter().map(|w| w.count_ones()).sum()
}

impl Flat {
    fn len(&self) -> usize {
        self.keys.len()
    }

    /// Entry `i`'s free set as words.
    fn set(&self, i: usize) -> &[u64] {
        let at = self.slots[i] * self.width;
        &self.pool[at..at + self.width]
    }

    /// A slot no entry holds, taken from the spare ones or added to the pool.
    fn take_slot(&mut self) -> usize {
        self.spare.pop().unwrap_or_else(|| {
            self.pool.resize(self.pool.len() + self.width, 0);
            self.pool.len() / self.width - 1
        })
    }

    /// Copies entry `i`'s set into `slot`.
    fn copy_set(&mut self, i: usize, slot: usize) {
        let w = self.width;
        self.pool.copy_within(self.slots[i] * w..(self.slots[i] + 1) * w, slot * w);
    }

    /// The entry holding `t`, the last with key `<= t` (`t` is at or after the present).
    fn floor(&self, t: Time) -> usize {
        self.head + self.keys[self.head..].partition_point(|&k| k <= t) - 1
    }

    /// The steps a binary search over the entries takes: the halvings of their number.
    fn search_steps(&self) -> u64 {
        u64::from(usize::BITS - (self.len() - self.head).leading_zeros())
    }

    /// Makes sure an entry starts at `t`, a copy of the one holding it; its index. The
    /// search starts at entry `from`, whose key is `<= t`. The entries before it may move
    /// down one (`head` does).
    fn split(&mut self, from: usize, t: Time) -> usize {
        let i = from + self.keys[from..].partition_point(|&k| k <= t) - 1;
        if self.keys[i] == t {
            return i;
        }
        let h = self.head;
        if h > 0 && i + 1 - h < self.len() - i {
            // Fewer entries before: those up to `i` move down one, into the room before
            // the present, and the entry gone from there lends its slot to `i`'s copy.
            let slot = self.slots[h - 1];
            self.copy_set(i, slot);
            self.keys.copy_within(h..=i, h - 1);
            self.counts.copy_within(h..=i, h - 1);
            self.slots.copy_within(h..=i, h - 1);
            self.head -= 1;
            self.keys[i] = t;
            self.slots[i] = slot;
            i
        } else {
            // The entries after `i` move up one, for a copy of it.
            let slot = self.take_slot();
            self.copy_set(i, slot);
            self.keys.insert(i + 1, t);
            self.counts.insert(i + 1, self.counts[i]);
            self.slots.insert(i + 1, slot);
            i + 1
        }
    }

    /// Removes entry `i` where it holds the same set as the one before; whether the
    /// entries before it moved up one (`head` did).
    fn coalesce(&mut self, i: usize) -> bool {
        if i == self.head || self.set(i) != self.set(i - 1) {
            return false;
        }
        let h = self.head;
        let slot = self.slots[i];
        if i - h < self.len() - 1 - i {
            // Fewer entries before: those before `i` move up one, over it, and the room
            // they leave keeps its slot.
            self.keys.copy_within(h..i, h + 1);
            self.counts.copy_within(h..i, h + 1);
            self.slots.copy_within(h..i, h + 1);
            self.slots[h] = slot;
            self.head += 1;
            true
        } else {
            self.keys.remove(i);
            self.counts.remove(i);
            self.slots.remove(i);
            self.spare.push(slot);
            false
        }
    }

    /// Applies `f` to each word of the free sets over `[s, e)` with the matching word of
    /// `set`, keeping the entries canonical: only the window's two ends can become
    /// redundant, as every entry inside changes alike. Only the words `set` has ids in
    /// are read: a job's set spans a few words of a wide machine's.
    fn apply(&mut self, s: Time, e: Time, set: &RangeSet, f: impl Fn(&mut u64, u64)) {
        // Two searches in all: `e`'s starts from `s`'s entry, and each move of the entries
        // before is followed by the indices.
        let from = self.split(self.head, s);
        let head = self.head;
        let to = self.split(from, e);
        let from = from - (head - self.head);
        let mut mask = self.scratch.take();
        mask.resize(self.width, 0);
        set.write_bits(&mut mask);
        let w = self.width;
        let (lo, hi) = self.span(&mask);
        if hi - lo == w {
            for i in from..to {
                let at = self.slots[i] * w;
                let words = &mut self.pool[at..at + w];
                words.iter_mut().zip(&mask).for_each(|(word, &m)| f(word, m));
                self.counts[i] = ones(words);
            }
        } else {
            for i in from..to {
                let at = self.slots[i] * w;
                let words = &mut self.pool[at + lo..at + hi];
                // The ids outside the words read stay as they were.
                let rest = self.counts[i] - ones(words);
                words.iter_mut().zip(&mask[lo..hi]).for_each(|(word, &m)| f(word, m));
                self.counts[i] = rest + ones(words);
            }
        }
        self.scratch.replace(mask);
        let moved = self.coalesce(to);
        self.coalesce(from + usize::from(moved));
    }

    /// The words of the entries over `[s, e)` folded by `f`, as a set, exact on the ids
    /// of `among` (the words it has no id in are left empty).
    fn fold(&self, s: Time, e: Time, among: &RangeSet, f: impl Fn(&mut u64, u64)) -> RangeSet {
        let mut acc = self.scratch.borrow_mut();
        acc.resize(self.width, 0);
        let (lo, hi) = if self.width <= NARROW {
            (0, self.width)
        } else {
            among.write_bits(&mut acc);
            self.span(&acc)
        };
        let first = self.floor(s);
        acc[lo..hi].copy_from_slice(&self.set(first)[lo..hi]);
        for i in first + 1..self.window_end(first, e) {
            acc[lo..hi].iter_mut().zip(&self.set(i)[lo..hi]).for_each(|(a, &b)| f(a, b));
        }
        RangeSet::from_bits(&acc[..])
    }

    /// One past the last entry of the window from entry `i` until `window_end`.
    fn window_end(&self, i: usize, window_end: Time) -> usize {
        i + 1 + self.keys[i + 1..].partition_point(|&k| k < window_end)
    }

    /// The words of an update's or a query's `set` to read: from its first non-zero
    /// word to its last on a wide machine, where a job's set spans a few of them, and
    /// every word on a narrow one, where finding the span costs more than it saves.
    fn span(&self, set: &[u64]) -> (usize, usize) {
        if self.width <= NARROW {
            return (0, self.width);
        }
        match set.iter().position(|&w| w != 0) {
            Some(lo) => (lo, set.iter().rposition(|&w| w != 0).map_or(lo, |last| last + 1)),
            None => (0, 0),
        }
    }

    /// Whether the entries `i..last` keep `n` ids free throughout, their intersection
    /// left in `acc`. Counts the entries intersected with entry `i`'s set. `W` is the
    /// width where the caller fixed it at compile time (0: read from `self`), so that a
    /// small machine's word loops unroll.
    fn window<const W: usize>(
        &self,
        acc: &mut [u64],
        i: usize,
        last: usize,
        n: u32,
        cost: &mut Cost,
    ) -> bool {
        let w = if W == 0 { self.width } else { W };
        let acc = &mut acc[..w];
        let words = |j: usize| self.slots[j] * w;
        acc.copy_from_slice(&self.pool[words(i)..words(i) + w]);
        if W == 0 && w > NARROW {
            // A wide machine: only the words still holding ids are read on, as the
            // intersection empties from its ends.
            let (mut lo, mut hi) = self.span(acc);
            for j in i + 1..last {
                if and_count(&mut acc[lo..hi], &self.pool[words(j) + lo..words(j) + hi]) < n {
                    cost.visited += (j - i) as u64;
                    return false;
                }
                while lo < hi && acc[lo] == 0 {
                    lo += 1;
                }
                while lo < hi && acc[hi - 1] == 0 {
                    hi -= 1;
                }
            }
            cost.visited += (last - i - 1) as u64;
            return true;
        }
        for j in i + 1..last {
            if and_count(acc, &self.pool[words(j)..words(j) + w]) < n {
                cost.visited += (j - i) as u64;
                return false;
            }
        }
        cost.visited += (last - i - 1) as u64;
        true
    }

    /// [`Engine::earliest`] at width `W` (see [`window`](Self::window)).
    fn search<const W: usize>(
        &self,
        at: &Basis,
        ready: Time,
        duration: Time,
        n: u32,
    ) -> (Option<TimeFrame>, Cost) {
        let mut cost = Cost { search: self.search_steps(), ..Cost::default() };
        let mut acc = self.scratch.borrow_mut();
        let (keys, counts) = (&self.keys[..], &self.counts[..]);
        let len = keys.len();
        // Every candidate after `ready` is an entry's key, on a slot boundary, where the
        // window's end is `key + span`: no division per candidate, and no overflow up to
        // `last_start`, past which every window ends beyond the horizon.
        let span = at.config.ceil(duration);
        let last_start = span.and_then(|span| at.limit.checked_sub(span));
        let span = span.unwrap_or(0);
        let mut i = self.floor(at.config.floor(ready));
        let mut start = ready;
        // Entries with fewer than `n` free ids (blockers) start no window: passed over by
        // their counts alone.
        let first_end = if counts[i] < n {
            let Some(k) = counts[i..].iter().position(|&c| c >= n) else { return (None, cost) };
            cost.search += k as u64;
            i += k;
            start = keys[i];
            last_start.filter(|&m| start <= m).map(|_| start + span)
        } else {
            at.candidate(ready, duration).map(|(_, e)| e)
        };
        // The first candidate's window ends past the horizon: no candidate fits.
        let Some(mut end_time) = first_end else { return (None, cost) };
        let potential = i;
        // One past the current window's last entry, and how far from the candidate on
        // every entry is known to hold at least `n` free ids: both only move forward, so
        // a search reads each count about once for them.
        let (mut last, mut clean) = (i + 1, i + 1);
        let answer = loop {
            last = last.max(i + 1);
            let from = last;
            // The keys are in order: four at a time while the fourth is inside.
            while last + 4 <= len && keys[last + 3] < end_time {
                last += 4;
            }
            while last < len && keys[last] < end_time {
                last += 1;
            }
            cost.search += (last - from) as u64;
            clean = clean.max(i + 1);
            // Every candidate up to the window's last blocker has it in its window too,
            // so the next one to try is past it; the counts, read back from the window's
            // end as far as they are not known, find it without a set read.
            if let Some(b) = counts[clean..last].iter().rposition(|&c| c < n) {
                cost.visited += (last - clean - b) as u64;
                i = clean + b + 1;
            } else {
                cost.visited += (last - clean) as u64;
                if self.window::<W>(&mut acc, i, last, n, &mut cost) {
                    // Within the window's end, so no overflow.
                    let end = start + duration;
                    break Some(TimeFrame { start, end, free: RangeSet::from_bits(&acc[..self.width]) });
                }
                i += 1;
            }
            clean = last;
            if i < len && counts[i] < n {
                let Some(k) = counts[i..].iter().position(|&c| c >= n) else { break None };
                cost.search += k as u64;
                i += k;
            }
            match (keys.get(i), last_start) {
                (Some(&key), Some(m)) if key <= m => {
                    start = key;
                    end_time = key + span;
                }
                _ => break None,
            }
        };
        if COUNTING {
            let m = (self.len() - potential) as u64;
            cost.worst = m * m;
        }
        (answer, cost)
    }
}

impl Engine for Flat {
    const KIND: Kind = Kind::Flat;

    fn new(at: &Basis) -> Result<Self, Error> {
        if at.capacity > MAX_CAPACITY {
            return Err(Error::BadConfig {
                reason: format!("{} ids are more than the {MAX_CAPACITY} a flat profile takes", at.capacity),
            });
        }
        let width = at.capacity.div_ceil(64) as usize;
        let mut pool = vec![0; width];
        at.full.write_bits(&mut pool);
        Ok(Self {
            width,
            head: 0,
            keys: vec![at.now],
            counts: vec![at.capacity],
            slots: vec![0],
            pool,
            spare: Vec::new(),
            scratch: RefCell::new(vec![0; width]),
        })
    }

    fn check(&self, _: &Basis, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost) {
        let i = self.floor(s);
        let mut cost = Cost { search: self.search_steps(), visited: 1, worst: (self.len() - i) as u64 };
        // A count above the capacity never fits; the capacity is a u32.
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        if self.counts[i] < n {
            return (None, cost);
        }
        let mut acc = self.scratch.borrow_mut();
        let fits = self.window::<0>(&mut acc, i, self.window_end(i, e), n, &mut cost);
        (fits.then(|| RangeSet::from_bits(&acc[..self.width])), cost)
    }

    fn earliest(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost) {
        // A count above the capacity never fits; the capacity is a u32.
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        match self.width {
            1 => self.search::<1>(at, ready, duration, n),
            2 => self.search::<2>(at, ready, duration, n),
            3 => self.search::<3>(at, ready, duration, n),
            4 => self.search::<4>(at, ready, duration, n),
            _ => self.search::<0>(at, ready, duration, n),
        }
    }

    fn free_throughout(&self, _: &Basis, s: Time, e: Time, among: &RangeSet) -> RangeSet {
        self.fold(s, e, among, |a, b| *a &= b)
    }

    fn free_somewhere(&self, _: &Basis, s: Time, e: Time, among: &RangeSet) -> RangeSet {
        self.fold(s, e, among, |a, b| *a |= b)
    }

    fn allocate(&mut self, _: &Basis, s: Time, e: Time, set: &RangeSet) {
        self.apply(s, e, set, |word, m| *word &= !m);
    }

    fn release(&mut self, _: &Basis, s: Time, e: Time, set: &RangeSet) {
        self.apply(s, e, set, |word, m| *word |= m);
    }

    fn steps<'a>(&'a self, _: &'a Basis, s: Time, e: Time) -> impl Iterator<Item = Step<'a>> {
        // The first entry holds `s`, so its key is before `e` too.
        (self.floor(s)..self.len())
            .take_while(move |&i| self.keys[i] < e)
            .map(|i| (self.keys[i], Cow::Owned(RangeSet::from_bits(self.set(i)))))
    }

    fn advance(&mut self, _: &Basis, now: Time) {
        self.head = self.floor(now);
        self.keys[self.head] = now;
        if self.head > DROP_AFTER && 2 * self.head >= self.len() {
            self.keys.drain(..self.head);
            self.counts.drain(..self.head);
            self.spare.extend(self.slots.drain(..self.head));
            self.head = 0;
        }
    }

    fn size(&self) -> usize {
        self.len() - self.head
    }

    fn validate(&self, at: &Basis) -> Result<(), Invalid> {
        let invalid = |why: String| Err(Self::KIND.invalid(why));
        let (len, w) = (self.len(), self.width);
        if w != at.capacity.div_ceil(64) as usize
            || self.counts.len() != len
            || self.slots.len() != len
            || !self.pool.len().is_multiple_of(w)
            || self.head >= len
        {
            return invalid(format!(
                "the arrays disagree: {len} keys, {} counts, {} slots, {} words of width {w}, head {}",
                self.counts.len(),
                self.slots.len(),
                self.pool.len(),
                self.head
            ));
        }
        // Every slot of the pool is held by one entry (before the present or not) or is
        // spare, never both nor twice.
        let mut held = vec![false; self.pool.len() / w];
        for &slot in self.slots.iter().chain(&self.spare) {
            match held.get_mut(slot) {
                Some(seen) if !*seen => *seen = true,
                _ => {
                    return invalid(format!(
                        "slot {slot} of {} is held twice or is not in the pool",
                        held.len()
                    ))
                }
            }
        }
        if let Some(slot) = held.iter().position(|&seen| !seen) {
            return invalid(format!("slot {slot} is neither held nor spare"));
        }
        if self.keys[self.head] != at.now {
            return invalid(format!("the first entry {} is not at now = {}", self.keys[self.head], at.now));
        }
        for i in self.head + 1..len {
            let (t0, t1) = (self.keys[i - 1], self.keys[i]);
            if t0 >= t1 {
                return invalid(format!("keys out of order: {t0} then {t1}"));
            }
        }
        for i in self.head..len {
            if self.counts[i] != ones(self.set(i)) {
                return invalid(format!(
                    "entry {} counts {} free ids, its set holds {}",
                    self.keys[i],
                    self.counts[i],
                    ones(self.set(i))
                ));
            }
        }
        for i in self.head + 1..len {
            if self.set(i) == self.set(i - 1) {
                return invalid(format!(
                    "entries at {} and {} hold the same free set",
                    self.keys[i - 1],
                    self.keys[i]
                ));
            }
        }
        if let Some(&t) = self.keys[self.head..].iter().find(|&&t| t % at.config.slot != 0) {
            return invalid(format!("entry {t} is not on a slot boundary"));
        }
        let spare = (64 * w as u32 - at.capacity) as usize;
        let beyond = |words: &[u64]| words.last().is_some_and(|&last| spare > 0 && last >> (64 - spare) != 0);
        if let Some(i) = (self.head..len).find(|&i| beyond(self.set(i))) {
            return invalid(format!("entry {} holds ids beyond the capacity", self.keys[i]));
        }
        Ok(())
    }

    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = &[
        "the arrays agree",
        "each slot is held once",
        "the first entry is at now",
        "keys in order",
        "counts match the sets",
        "neighbouring entries differ",
        "entries lie on slot boundaries",
        "entries hold ids within the capacity",
    ];

    #[cfg(feature = "planted")]
    fn corrupt(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        let (head, len, w) = (self.head, self.len(), self.width);
        // An entry after the first, where there is one.
        let later = (len > head + 1).then(|| head + 1 + (pick % (len - head - 1) as u64) as usize);
        let next_key = |i: usize| self.keys.get(i + 1).copied().unwrap_or(Time::MAX);
        match invariant {
            0 => self.counts.push(0),
            1 => self.spare.push(self.slots[(pick % len as u64) as usize]),
            2 => match at.now.checked_add(1).filter(|&t| t < next_key(head)) {
                Some(t) => self.keys[head] = t,
                None => return false,
            },
            3 => match later {
                Some(i) => self.keys[i] = self.keys[i - 1],
                None => return false,
            },
            4 => self.counts[head] += 1,
            5 => match later {
                Some(i) => {
                    self.copy_set(i - 1, self.slots[i]);
                    self.counts[i] = self.counts[i - 1];
                }
                None => return false,
            },
            6 => {
                match later.filter(|&i| at.config.slot > 1 && self.keys[i].saturating_add(1) < next_key(i)) {
                    Some(i) => self.keys[i] += 1,
                    None => return false,
                }
            }
            _ => {
                let id = at.capacity as usize;
                if id >= 64 * w {
                    return false;
                }
                let i = head + (pick % (len - head) as u64) as usize;
                self.pool[self.slots[i] * w + id / 64] |= 1 << (id % 64);
                self.counts[i] += 1;
            }
        }
        true
    }
}
