//! `augtree`: rbtree-availability-profile's red-black tree with each subtree augmented
//! (CLRS 14.2) by its runs: for each power-of-two threshold `k`, where the entries with
//! fewer than `k` free ids (its blockers) lie and the longest stretch between two of them.
//!
//! A window for `n` ids and `duration` can start only at an entry from which no blocker
//! for `n` comes within `duration`. Every blocker for the largest threshold `k <= n` is
//! one for `n`, so a subtree whose stretches between blockers at `k` are all shorter
//! than `duration` holds no start, and the earliest-start search descends past it
//! instead of walking its entries. That skips the blockers and the runs too short for
//! the job alike, which is what deep backlogs are made of.
//!
//! Flux's planner keeps only counts; this tree keeps the exact sets in its entries and
//! uses the runs to skip, so its answers are the profile's.
//!
//! Only subtrees of at least [`KEPT_FROM`](Summary::KEPT_FROM) entries keep their runs
//! (about a fifth of the nodes). A smaller subtree's are rebuilt when read: the upkeep
//! appends its entries one by one ([`Summary::push`]), and the search reads its entries
//! once and judges each of its subtrees from them, exactly as it judges a kept summary,
//! so answers and counted steps are those of a tree that keeps every summary. This took
//! augtree from 369 to 244 bytes per entry at `sdsc-blue-10000` (`record --memory-only`)
//! for replays 10 to 17 % slower (`ci/side-by-side`).

use wide::u32x4;

use super::rbtree::{RbTree, Summary, Summed};
use super::Profile;
use crate::shell::Shell;
use crate::{Kind, RangeSet, Time};

/// The availability profile in a red-black tree whose subtrees know their runs.
pub type AugTreeProfile = Shell<Profile<RbTree<Runs>>>;

/// The thresholds are `2^0 ..= 2^(LEVELS - 1)`; a request for more ids than the
/// largest is judged at the largest.
const LEVELS: usize = 11;

/// The vectors of four levels a summary's per-level times are kept in.
const CHUNKS: usize = LEVELS.div_ceil(4);

/// One u32 time per level, as whole vectors: level `i` is lane `i % 4` of vector
/// `i / 4`, and the lanes past the last level are 0.
type Lanes = [[u32; 4]; CHUNKS];

/// Each lane's level's bit in a bit mask.
const LANE_BITS: [u32x4; CHUNKS] = {
    let mut bits = [u32x4::ZERO; CHUNKS];
    let mut c = 0;
    while c < CHUNKS {
        let i = 4 * c as u32;
        bits[c] = u32x4::new([1 << i, 1 << (i + 1), 1 << (i + 2), 1 << (i + 3)]);
        c += 1;
    }
    bits
};

/// The lanes of chunk `c` whose levels' bits are set in `mask`, as all-ones lanes.
fn lanes_of(mask: u16, c: usize) -> u32x4 {
    (u32x4::splat(u32::from(mask)) & LANE_BITS[c]).simd_eq(LANE_BITS[c])
}

/// The level whose threshold is the largest power of two `<= n` (for `n >= 1`).
fn level(n: u64) -> usize {
    (n.max(1).ilog2() as usize).min(LEVELS - 1)
}

/// A subtree's entries (a contiguous stretch of the profile) as runs between blockers,
/// at each threshold. Every entry is a blocker at the levels from `top` on, which keep
/// nothing (so the upkeep costs a small machine its own levels only); below `top`, level
/// `i`'s fields are meaningful where its bits say so. Unused fields are 0, so that equal
/// stretches have equal summaries.
///
/// The per-level times are kept as u32 offsets from `first`, which takes the summary from
/// 288 to 160 bytes (the upkeep copies it on every change), and in whole vectors of four
/// levels (168 bytes), which [`join`](Summary::join) and [`push`](Summary::push) compute
/// four levels at a time. A stretch longer than `u32::MAX` seconds
/// (136 years: never in a trace, but the profile has no horizon) is `wide`: it keeps no
/// levels, and the search walks into it instead of judging it whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Runs {
    /// Whether there is any entry (the empty subtree is `Default`).
    filled: bool,
    /// Whether the stretch is too long for offsets, so the levels are not kept.
    wide: bool,
    /// One past the highest level at which some entry is not a blocker.
    top: u8,
    /// Bit `i`: some entry has fewer than `2^i` free ids.
    blocked: u16,
    /// Bit `i`: the last entry has fewer than `2^i` free ids.
    ends_blocked: u16,
    /// The first and last entries' keys.
    first: Time,
    last: Time,
    /// The first blocker's key, where blocked, below `top`.
    first_blocker: Lanes,
    /// Where the run at the end starts (the entry after the last blocker, or `first`
    /// if there is none), unless the last entry is a blocker.
    open: Lanes,
    /// The longest run that starts after a blocker and ends at one, both inside: the
    /// time from its first entry to the blocker ending it.
    best: Lanes,
}

/// The levels at or above `top` in a bit mask.
const fn from_level(top: u8) -> u16 {
    !((1u16 << top) - 1) & ((1 << LEVELS) - 1)
}

impl Runs {
    /// One past the highest level at which an entry with `free` free ids is no blocker.
    fn top_of(free: u32) -> u8 {
        if free == 0 {
            0
        } else {
            (free.ilog2() as u8 + 1).min(LEVELS as u8)
        }
    }

    /// The first blocker's key at level `i`, where blocked (not `wide`).
    fn first_blocker(&self, i: usize) -> Time {
        if i >= usize::from(self.top) {
            self.first
        } else {
            self.first + Time::from(self.first_blocker[i / 4][i % 4])
        }
    }

    /// Where the run open at the end starts at level `i`, unless the last entry is a
    /// blocker there (not `wide`).
    fn open(&self, i: usize) -> Time {
        self.first + Time::from(self.open[i / 4][i % 4])
    }

    /// The longest inner run at level `i` (not `wide`).
    fn best(&self, i: usize) -> Time {
        Time::from(self.best[i / 4][i % 4])
    }
}

impl Summary for Runs {
    const KIND: Kind = Kind::AugTree;
    const ACTIVE: bool = true;
    /// 8, not 4: at 4 a third of the nodes keep a summary (277 bytes per entry at
    /// `sdsc-blue-10000`), and 7 saves no more memory than 6 (252).
    const KEPT_FROM: u32 = 8;
    type Own = u32;

    fn own(free: &RangeSet) -> u32 {
        // A set holds at most `capacity` ids, a u32.
        u32::try_from(free.count()).unwrap_or(u32::MAX)
    }

    /// A summary, and the search, read an entry's free count only as its `top`.
    fn differs(old: u32, new: u32) -> bool {
        Self::top_of(old) != Self::top_of(new)
    }

    /// The stretch `left`, then one entry with `own` free ids at `key`, then `right`,
    /// level by level in one pass. Joins are the tree's upkeep on every change, so the
    /// result is built directly, not as a copy of `left` with the entry and `right`
    /// appended in two more passes (which made augtree's replays 10 to 19 % faster,
    /// `ci/side-by-side`).
    fn join(key: Time, own: u32, left: &Self, right: &Self) -> Self {
        let entry_top = Self::top_of(own);
        let tops = [left, right].map(|part| if part.filled { part.top } else { 0 });
        let top = entry_top.max(tops[0]).max(tops[1]);
        let first = if left.filled { left.first } else { key };
        let last = if right.filled { right.last } else { key };
        let mut out = Self {
            filled: true,
            wide: last - first > Time::from(u32::MAX),
            top,
            blocked: left.blocked | from_level(entry_top) | right.blocked,
            ends_blocked: if right.filled { right.ends_blocked } else { from_level(entry_top) },
            first,
            last,
            ..Self::default()
        };
        if out.wide {
            // Neither part's levels nor these offsets are kept (a part of a stretch that
            // fits is a stretch that fits, so a narrow part never reaches here wide).
            return out;
        }
        // Every time below lies in `[first, last]`, so it is kept as a u32 offset from
        // `first`. `left`'s offsets are already from `first` (or `left` is empty, all 0);
        // `right`'s are shifted by where it starts (or `right` is empty, all 0, and
        // what it would change is not kept). Four levels at a time, each with selects,
        // not branches; a difference is wrapping as it is computed also where it is not
        // picked.
        let k = u32x4::splat((key - first) as u32);
        let shift = u32x4::splat(if right.filled { (right.first - first) as u32 } else { 0 });
        for c in 0..usize::from(top).div_ceil(4) {
            let entry_blocked = lanes_of(from_level(entry_top), c);
            let (left_blocked, left_ends) = (lanes_of(left.blocked, c), lanes_of(left.ends_blocked, c));
            let right_blocked = lanes_of(right.blocked, c);
            let [left_first_blocker, left_open, left_best] =
                [left.first_blocker[c], left.open[c], left.best[c]].map(u32x4::new);
            let [right_first_blocker, right_open, right_best] =
                [right.first_blocker[c], right.open[c], right.best[c]].map(u32x4::new);
            // `left` and the entry: its first blocker, longest inner run, and the start
            // of the run open at its end (the entry ends it). The run open where `left`
            // ends starts in it, or at the entry.
            let tail = left_ends.select(k, left_open);
            let mut first_blocker = left_blocked.select(left_first_blocker, entry_blocked & k);
            let mut best = (left_blocked & entry_blocked).select(left_best.max(k - tail), left_best);
            let open = entry_blocked.select(u32x4::ZERO, tail);
            let blocked = entry_blocked | left_blocked;
            // Then `right` (all 0 if empty, so it changes nothing kept): the run open
            // after the entry starts before it, or at `right`'s first.
            let right_first_blocker = shift + right_first_blocker;
            let tail = entry_blocked.select(shift, open);
            first_blocker = blocked.select(first_blocker, right_first_blocker);
            best = (blocked & right_blocked).select(best.max(right_first_blocker - tail), best);
            best = best.max(right_best);
            let open = right_blocked.select(shift + right_open, tail);
            // Unused fields are 0, so that equal stretches have equal summaries. At the
            // levels from `top` on, every entry is a blocker and the parts keep 0s, so
            // what is computed there is 0 too.
            out.first_blocker[c] = lanes_of(out.blocked, c).select(first_blocker, u32x4::ZERO).to_array();
            out.open[c] = lanes_of(out.ends_blocked, c).select(u32x4::ZERO, open).to_array();
            out.best[c] = best.to_array();
        }
        out
    }

    /// Four levels at a time, as `join` (this is most of rebuilding a small subtree's
    /// summary). At the levels from the new `top` on, both the stretch and the entry
    /// are blockers, which changes nothing kept there.
    fn push(&mut self, key: Time, own: u32) {
        let entry_top = Self::top_of(own);
        let entry_blocked = from_level(entry_top);
        if !self.filled {
            // One entry: every offset is from its own key, 0, and it has no inner run.
            *self = Self {
                filled: true,
                top: entry_top,
                blocked: entry_blocked,
                ends_blocked: entry_blocked,
                first: key,
                last: key,
                ..Self::default()
            };
            return;
        }
        // Whether the stretch is wide before and after the entry (`join`'s condition).
        let was_wide = self.wide;
        self.wide = key - self.first > Time::from(u32::MAX);
        if self.wide && !was_wide {
            *self = Self {
                first_blocker: Lanes::default(),
                open: Lanes::default(),
                best: Lanes::default(),
                ..*self
            };
        }
        let top = self.top.max(entry_top);
        if !self.wide {
            let at = u32x4::splat((key - self.first) as u32);
            for c in 0..usize::from(top).div_ceil(4) {
                let entry = lanes_of(entry_blocked, c);
                let (blocked, ends) = (lanes_of(self.blocked, c), lanes_of(self.ends_blocked, c));
                let [first_blocker, open, best] =
                    [self.first_blocker[c], self.open[c], self.best[c]].map(u32x4::new);
                // A first blocker where there was none; the run open at the end becomes
                // an inner run where the entry ends it; the entry closes or opens the
                // run at the end.
                self.first_blocker[c] = (entry & !blocked).select(at, first_blocker).to_array();
                self.best[c] = (entry & blocked & !ends).select(best.max(at - open), best).to_array();
                self.open[c] = entry.select(u32x4::ZERO, ends.select(at, open)).to_array();
            }
        }
        self.top = top;
        self.blocked |= entry_blocked;
        self.ends_blocked = entry_blocked;
        self.last = key;
    }

    /// Every time kept is an offset from `first`, and the entry at `first` is the only
    /// one that moves. So the offsets of the other entries (all of them above 0) drop
    /// by as much as `first` rises, those of the entry itself stay 0, and the unused
    /// ones stay 0; an inner run starts after a blocker, never at the first entry, so
    /// `best` stays. A stretch that stops being wide has levels to compute.
    fn rekey_first(&mut self, key: Time) -> bool {
        let Some(delta) = key.checked_sub(self.first) else {
            return false;
        };
        if self.last == self.first {
            self.last = key;
        }
        self.first = key;
        let wide = self.last - key > Time::from(u32::MAX);
        if self.wide {
            return wide;
        }
        // A narrow stretch's offsets are at most `last - first` (a u32); `delta` is
        // below the second entry's offset.
        let delta = delta as u32;
        for offsets in [&mut self.first_blocker, &mut self.open] {
            // A select, not a branch, so that the loop is vectorised (a fifth of the
            // branching loop's instructions over SDSC-BLUE's advances, callgrind).
            for offset in offsets.as_flattened_mut() {
                *offset -= if *offset == 0 { 0 } else { delta };
            }
        }
        true
    }

    fn seek(tree: Summed<'_, Self>, x: u32, n: u64, duration: Time, steps: &mut u64) -> Option<u32> {
        let mut scan = Scan { tree, level: level(n), duration, run: None, steps };
        let start = scan.after(x).or(scan.run)?;
        Some(tree.floor_from(x, start, steps))
    }
}

/// A stretch's runs at one level: what the search reads of a summary.
#[derive(Debug, Clone, Copy)]
struct View {
    first: Time,
    last: Time,
    /// Too long for a summary's offsets: judged by walking in, as a wide summary is.
    wide: bool,
    blocked: bool,
    ends_blocked: bool,
    /// The first blocker's key, where blocked.
    first_blocker: Time,
    /// Where the run open at the end starts, unless the last entry is a blocker.
    open: Time,
    /// The longest inner run.
    best: Time,
}

impl View {
    /// `runs` at level `i`.
    fn of(runs: &Runs, i: usize) -> Self {
        let wide = runs.wide;
        let bit = 1 << i;
        Self {
            first: runs.first,
            last: runs.last,
            wide,
            blocked: runs.blocked & bit != 0,
            ends_blocked: runs.ends_blocked & bit != 0,
            first_blocker: if wide { runs.first } else { runs.first_blocker(i) },
            open: if wide { runs.first } else { runs.open(i) },
            best: if wide { 0 } else { runs.best(i) },
        }
    }

    /// One entry that is a blocker or not.
    fn entry(key: Time, blocked: bool) -> Self {
        Self {
            first: key,
            last: key,
            wide: false,
            blocked,
            ends_blocked: blocked,
            first_blocker: key,
            open: key,
            best: 0,
        }
    }

    /// This stretch followed by an entry at `key` (after `last`): [`Runs::join`] at one
    /// level with the entry on the right, as a left-to-right walk builds a stretch.
    fn push(&mut self, key: Time, blocked: bool) {
        if blocked {
            if !self.blocked {
                self.first_blocker = key;
            } else {
                let tail = if self.ends_blocked { key } else { self.open };
                self.best = self.best.max(key - tail);
            }
        } else if self.ends_blocked {
            self.open = key;
        }
        self.blocked |= blocked;
        self.ends_blocked = blocked;
        self.last = key;
        self.wide = self.last - self.first > Time::from(u32::MAX);
    }
}

/// A left-to-right pass over the entries from some key on, at one level, carrying the
/// start of the run it is in.
struct Scan<'a> {
    tree: Summed<'a, Runs>,
    level: usize,
    duration: Time,
    /// Where the run reaching the entries scanned so far starts; `None` after a blocker.
    run: Option<Time>,
    steps: &'a mut u64,
}

impl Scan<'_> {
    /// The first start among node `x` and the entries after it: its entry, its right
    /// subtree, then each ancestor it lies left of with that one's right subtree, in
    /// key order, climbing only as far as the start (a root-down search would pay the
    /// tree's height for every candidate the caller rejects).
    fn after(&mut self, mut x: u32) -> Option<Time> {
        let (key, own, _, _, right) = self.tree.parts(x)?;
        *self.steps += 1;
        if let Some(found) = self.stretch(&self.entry(key, own)).or_else(|| self.whole(right)) {
            return Some(found);
        }
        loop {
            let p = self.tree.parent(x);
            let (key, own, _, left, right) = self.tree.parts(p)?;
            *self.steps += 1;
            if left == x {
                if let Some(found) = self.stretch(&self.entry(key, own)).or_else(|| self.whole(right)) {
                    return Some(found);
                }
            }
            x = p;
        }
    }

    /// The first start in the subtree at `x`, entered only where its summary shows one.
    fn whole(&mut self, x: u32) -> Option<Time> {
        let (key, own, sub, left, right) = self.tree.parts(x)?;
        let Some(sub) = sub else { return self.small(x) };
        *self.steps += 1;
        let view = View::of(sub, self.level);
        if !view.wide {
            if let Some(found) = self.carried(&view) {
                return Some(found);
            }
            if view.best < self.duration {
                return self.pass(&view);
            }
        }
        // A run between two of its blockers is long enough (or a wide stretch may have
        // one): the first start is inside.
        self.whole(left).or_else(|| self.stretch(&self.entry(key, own))).or_else(|| self.whole(right))
    }

    /// [`whole`](Self::whole) for a subtree too small to keep its summary: its entries
    /// are read once, and each of its subtrees is judged, as `whole` judges a kept one,
    /// by the view of its stretch of them.
    fn small(&mut self, x: u32) -> Option<Time> {
        let mut entries = [(0, false); Runs::KEPT_FROM as usize];
        let mut len = 0;
        for (slot, (key, own)) in entries.iter_mut().zip(self.tree.entries_under(x)) {
            *slot = (key, self.blocked(own));
            len += 1;
        }
        self.judge_small(x, &entries[..len])
    }

    /// The first start in the small subtree at `x`, whose entries are `entries`.
    fn judge_small(&mut self, x: u32, entries: &[(Time, bool)]) -> Option<Time> {
        let (&(first, blocked), rest) = entries.split_first()?;
        let (key, own, _, left, right) = self.tree.parts(x)?;
        *self.steps += 1;
        let mut view = View::entry(first, blocked);
        for &(key, blocked) in rest {
            view.push(key, blocked);
        }
        if !view.wide {
            if let Some(found) = self.carried(&view) {
                return Some(found);
            }
            if view.best < self.duration {
                return self.pass(&view);
            }
        }
        let (before, after) = entries.split_at(self.tree.size(left) as usize);
        self.judge_small(left, before)
            .or_else(|| self.stretch(&self.entry(key, own)))
            .or_else(|| self.judge_small(right, &after[1..]))
    }

    /// Whether an entry with `own` free ids is a blocker at the scan's level.
    fn blocked(&self, own: u32) -> bool {
        self.level >= usize::from(Runs::top_of(own))
    }

    /// One entry at the scan's level.
    fn entry(&self, key: Time, own: u32) -> View {
        View::entry(key, self.blocked(own))
    }

    /// The first start in one stretch whose inner runs are all too short, if any.
    fn stretch(&mut self, view: &View) -> Option<Time> {
        self.carried(view).or_else(|| self.pass(view))
    }

    /// The run that reaches the stretch's first entry (carried in, or starting there),
    /// if it is long enough by its first blocker (or, without one, by its last entry).
    fn carried(&self, view: &View) -> Option<Time> {
        let start = match self.run {
            Some(start) => start,
            None if view.blocked && view.first_blocker == view.first => return None,
            None => view.first,
        };
        let reach = if view.blocked { view.first_blocker } else { view.last };
        (reach - start >= self.duration).then_some(start)
    }

    /// Moves past a stretch whose inner runs are too short: the run open at its end is
    /// carried on, and found if it already reaches `duration` at the last entry.
    fn pass(&mut self, view: &View) -> Option<Time> {
        if !view.blocked {
            // A run carried in goes on through (`carried` judged it); else one starts.
            self.run.get_or_insert(view.first);
        } else {
            self.run = (!view.ends_blocked).then_some(view.open);
        }
        self.run.filter(|&start| view.last - start >= self.duration)
    }
}
