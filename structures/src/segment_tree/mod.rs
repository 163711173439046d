//! A segment tree over the slots of the rolling horizon, the structure Burchard (2005)
//! and Brodnik & Nilsson compare against slot arrays. Each node holds, for the
//! slots under it, the fewest free resources and the ids free in all of them (and, for
//! the release check, in any of them); range updates are lazy. So `check` is one range
//! query, and `earliest` jumps past a slot too full for the request by a descent that
//! skips every subtree whose minimum is high enough.
//!
//! The slots form a ring: advancing the present re-uses the expired slots as the new
//! ones at the horizon (one lazy range assignment) and turns the ring, so the slot
//! holding `now` is always the first, as in the other slotted structures. A window that
//! crosses the end of the ring is queried as two ranges.

mod node;
mod tree;

use std::borrow::Cow;

use node::Tag;
use tree::Tree;

use crate::shell::{changes, Basis, Engine, Shell, Step};
use crate::{Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame, COUNTING};

/// Nodes a range query enters per level, at most.
const FOLD_PER_LEVEL: u64 = 4;
/// Nodes a search for the last too-full slot enters per level, at most.
const DESCENT_PER_LEVEL: u64 = 6;
/// Nodes a search for the end of a run of equal slots enters per level, at most.
const RUN_PER_LEVEL: u64 = 6;

/// A segment tree of time slots over a rolling horizon.
pub type SegmentTree = Shell<SlotTree>;

/// The engine of [`SegmentTree`]: the tree over a ring of slots.
#[derive(Debug, Clone)]
pub struct SlotTree {
    tree: Tree,
    /// The number of slots.
    q: usize,
    /// The ring position of the slot holding `now`.
    first: usize,
}

impl SlotTree {
    /// The slots of the quantised window `[s, e)`, counted from the present.
    fn span(at: &Basis, s: Time, e: Time) -> (usize, usize) {
        (at.slot_index(s), at.slot_index(e - 1) + 1)
    }

    /// The ring ranges holding slots `a..b` (`a < b <= q`), in time order: one, or two
    /// when the window crosses the end of the ring.
    fn pieces(&self, a: usize, b: usize) -> impl Iterator<Item = (usize, usize)> {
        let (at, len) = ((self.first + a) % self.q, b - a);
        let pieces = if at + len <= self.q {
            [Some((at, at + len)), None]
        } else {
            [Some((at, self.q)), Some((0, at + len - self.q))]
        };
        pieces.into_iter().flatten()
    }

    /// Folds slots `a..b`, stopping once fewer than `n` ids are free throughout.
    fn fold(&self, a: usize, b: usize, n: u64, visited: &mut u64) -> node::Agg {
        let mut acc = None;
        for (x, y) in self.pieces(a, b) {
            self.tree.fold(x, y, n, &mut acc, visited);
        }
        acc.expect("a window holds at least one slot")
    }

    /// The last of slots `a..b` with fewer than `n` free.
    fn last_below(&self, a: usize, b: usize, n: u64, visited: &mut u64) -> Option<usize> {
        let pieces: Vec<_> = self.pieces(a, b).collect();
        pieces
            .into_iter()
            .rev()
            .find_map(|(x, y)| self.tree.last_below(x, y, n, visited))
            .map(|p| (p + self.q - self.first) % self.q)
    }

    /// The first of slots `a + 1..q` whose free set differs from slot `a`'s, or `q`.
    fn run_end(&self, a: usize, visited: &mut u64) -> usize {
        let set = self.fold(a, a + 1, 0, visited).all;
        if a + 1 == self.q {
            return self.q;
        }
        self.pieces(a + 1, self.q)
            .find_map(|(x, y)| self.tree.first_unlike(x, y, &set, visited))
            .map_or(self.q, |p| (p + self.q - self.first) % self.q)
    }

    fn modify(&mut self, a: usize, b: usize, tag: &Tag) {
        let pieces: Vec<_> = self.pieces(a, b).collect();
        for (x, y) in pieces {
            self.tree.modify(x, y, tag);
        }
    }
}

impl Engine for SlotTree {
    const KIND: Kind = Kind::SegmentTree;

    /// A tree of `horizon / slot` slots, all resources free.
    fn new(at: &Basis) -> Result<Self, Error> {
        let q = at.config.slots(Self::KIND.name())?;
        Ok(Self { tree: Tree::new(q, &at.full), q, first: 0 })
    }

    /// One range query; visited counts tree nodes, the worst case is 4 a level for each
    /// ring range of the window.
    fn check(&self, at: &Basis, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost) {
        let (a, b) = Self::span(at, s, e);
        let worst =
            if COUNTING { self.pieces(a, b).count() as u64 * FOLD_PER_LEVEL * self.tree.levels() } else { 0 };
        let mut cost = Cost { worst, ..Cost::default() };
        let agg = self.fold(a, b, n, &mut cost.visited);
        (Some(agg.all).filter(|all| all.count() >= n), cost)
    }

    /// Tries `ready`, then slot starts: for each candidate window, the last slot with
    /// fewer than `n` free sends the search past it (no window through it fits), else a
    /// range query decides, and a failure sends the search to the end of the candidate's
    /// run of equal slots. The worst case is, per candidate tried, a descent and a range
    /// query for each ring range of its window, and after a failure the path to its slot
    /// and a run's end search for each ring range after it.
    fn earliest(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost) {
        let per_range = (DESCENT_PER_LEVEL + FOLD_PER_LEVEL) * self.tree.levels();
        let first = at.slot_index(ready);
        let mut cost = Cost::default();
        let mut candidate = first;
        let answer = loop {
            if candidate >= self.q {
                break None;
            }
            let start = if candidate == first { ready } else { at.slot_start(candidate) };
            let Some((end, window_end)) = at.candidate(start, duration) else { break None };
            let b = at.slot_index(window_end - 1) + 1;
            if COUNTING {
                cost.worst += self.pieces(candidate, b).count() as u64 * per_range;
            }
            if let Some(blocked) = self.last_below(candidate, b, n, &mut cost.visited) {
                candidate = blocked + 1;
                continue;
            }
            let free = self.fold(candidate, b, n, &mut cost.visited).all;
            if free.count() >= n {
                break Some(TimeFrame { start, end, free });
            }
            // A window from the next slot fails too while that slot holds the same set:
            // it drops a slot equal to one it keeps and can only add more.
            if COUNTING {
                let ranges =
                    if candidate + 1 < self.q { self.pieces(candidate + 1, self.q).count() } else { 0 };
                cost.worst += (1 + RUN_PER_LEVEL * ranges as u64) * self.tree.levels();
            }
            candidate = self.run_end(candidate, &mut cost.visited);
        };
        (answer, cost)
    }

    fn free_throughout(&self, at: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        let (a, b) = Self::span(at, s, e);
        self.fold(a, b, 0, &mut 0).all
    }

    fn free_somewhere(&self, at: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        let (a, b) = Self::span(at, s, e);
        self.fold(a, b, 0, &mut 0).any
    }

    fn allocate(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        let (a, b) = Self::span(at, s, e);
        self.modify(a, b, &Tag::take(set));
    }

    fn release(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        let (a, b) = Self::span(at, s, e);
        self.modify(a, b, &Tag::give(set));
    }

    /// One step per run of equal slots: the tree finds runs without visiting every leaf,
    /// and runs that meet across two subtrees are merged.
    fn steps<'a>(&'a self, at: &'a Basis, s: Time, e: Time) -> impl Iterator<Item = Step<'a>> {
        let (a, b) = Self::span(at, s, e);
        let (mut steps, mut first) = (Vec::new(), a);
        for (x, y) in self.pieces(a, b) {
            self.tree.runs(x, y, &mut |offset, free| {
                steps.push((at.slot_start(first + offset), Cow::Owned(free)))
            });
            first += y - x;
        }
        changes(steps.into_iter())
    }

    /// Frees the expired slots in one lazy assignment and turns the ring past them, so
    /// they become the slots at the new end of the horizon.
    fn advance(&mut self, at: &Basis, now: Time) {
        let gone = ((now - at.now) / at.config.slot).min(self.q as u64) as usize;
        if gone > 0 {
            self.modify(0, gone, &Tag::Assign(at.full.clone()));
        }
        self.first = (self.first + gone) % self.q;
    }

    fn size(&self) -> usize {
        2 * self.q - 1
    }

    /// The ring's first, then the tree's in the order `Tree::validate` checks them.
    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = &[
        "the ring holds the horizon's slots",
        "the ring position of now is within the ring",
        "a leaf holds no tag",
        "a leaf's fewest free is the size of its set",
        "a leaf's ids free throughout are those free somewhere",
        "a leaf's ids are within the capacity",
        "a node's aggregate is its children's joined",
    ];

    /// The ring's invariants here, the tree's in `Tree::plant`.
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        match invariant {
            // One slot more, so that the first position stays within the ring (unless the
            // horizon that makes would overflow `validate`'s product).
            0 if (self.q as u64 + 1).checked_mul(at.config.slot).is_some() => self.q += 1,
            1 => self.first = self.q,
            2.. => return self.tree.plant(at, invariant - 2, pick),
            _ => return false,
        }
        true
    }

    fn validate(&self, at: &Basis) -> Result<(), Invalid> {
        if Some(self.q as u64 * at.config.slot) != at.config.horizon || self.first >= self.q {
            return Err(Self::KIND.invalid(format!(
                "{} slots from position {} at time {}, for horizon {:?} and slot {}",
                self.q, self.first, at.now, at.config.horizon, at.config.slot
            )));
        }
        self.tree
            .validate(&at.full)
            .map_err(|e| e.within(format_args!("ring position {} holds now", self.first)))
    }
}
