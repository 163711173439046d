//! A segment tree over the slots of the rolling horizon, the structure Burchard (2005)
//! and Brodnik & Nilsson compare against slot arrays (issue 3). Each node holds, for the
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

use std::cell::Cell;

use node::Tag;
use tree::Tree;

use crate::{
    check_count, rebuild, sweep, AvailabilityIndex, Config, Cost, Error, RangeSet, Time, TimeFrame, COUNTING,
};

/// Nodes a range query enters per level, at most.
const FOLD_PER_LEVEL: u64 = 4;
/// Nodes a search for the last too-full slot enters per level, at most.
const DESCENT_PER_LEVEL: u64 = 6;

/// A segment tree of time slots over a rolling horizon.
#[derive(Debug, Clone)]
pub struct SegmentTree {
    capacity: u32,
    config: Config,
    now: Time,
    full: RangeSet,
    tree: Tree,
    /// The number of slots.
    q: usize,
    /// The ring position of the slot holding `now`.
    first: usize,
    cost: Cell<Option<Cost>>,
}

impl SegmentTree {
    /// A tree of `horizon / slot` slots, all resources free, from time 0.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for an invalid configuration, or from [`Config::slots`].
    pub fn new(capacity: u32, config: Config) -> Result<Self, Error> {
        config.validate(capacity)?;
        let q = config.slots("segment tree")?;
        let full = RangeSet::full(capacity);
        let tree = Tree::new(q, &full);
        Ok(Self { capacity, config, now: 0, full, tree, q, first: 0, cost: Cell::new(None) })
    }

    /// The slot holding `t`, counted from the present (`now <= t < limit`).
    fn index(&self, t: Time) -> usize {
        ((t - self.now) / self.config.slot) as usize
    }

    /// The slots of the quantised window `[s, e)`.
    fn span(&self, s: Time, e: Time) -> (usize, usize) {
        (self.index(s), self.index(e - 1) + 1)
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

    fn modify(&mut self, a: usize, b: usize, tag: &Tag) {
        let pieces: Vec<_> = self.pieces(a, b).collect();
        for (x, y) in pieces {
            self.tree.modify(x, y, tag);
        }
    }

    /// The slots of `[s, e)` as sweep steps.
    fn steps(&self, s: Time, e: Time) -> Vec<(Time, RangeSet)> {
        let (a, b) = self.span(s, e);
        let mut sets = Vec::with_capacity(b - a);
        for (x, y) in self.pieces(a, b) {
            self.tree.slots(x, y, &mut sets);
        }
        let start = self.now + a as Time * self.config.slot;
        sets.into_iter().enumerate().map(|(i, free)| (start + i as Time * self.config.slot, free)).collect()
    }
}

impl AvailabilityIndex for SegmentTree {
    fn name(&self) -> &'static str {
        "segtree"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn config(&self) -> Config {
        self.config
    }

    fn now(&self) -> Time {
        self.now
    }

    /// One range query; visited counts tree nodes, the worst case is 4 a level for each
    /// ring range of the window.
    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, start, end)?;
        check_count(n, self.capacity)?;
        let (a, b) = self.span(s, e);
        let n = u64::from(n);
        let mut cost = Cost {
            worst: if COUNTING {
                self.pieces(a, b).count() as u64 * FOLD_PER_LEVEL * self.tree.levels()
            } else {
                0
            },
            ..Cost::default()
        };
        let agg = self.fold(a, b, n, &mut cost.visited);
        self.cost.set(COUNTING.then_some(cost));
        Ok(Some(agg.all).filter(|all| all.count() >= n))
    }

    /// Tries `ready`, then slot starts: for each candidate window, the last slot with
    /// fewer than `n` free sends the search past it (no window through it fits), else a
    /// range query decides. The worst case is, per candidate tried, a descent and a range
    /// query for each ring range of its window.
    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.cost.set(None);
        self.config.search(self.now, ready, duration)?;
        check_count(n, self.capacity)?;
        let (limit, n) = (self.config.limit(self.now), u64::from(n));
        let per_range = (DESCENT_PER_LEVEL + FOLD_PER_LEVEL) * self.tree.levels();
        let first = self.index(ready);
        let mut cost = Cost::default();
        let mut candidate = first;
        let answer = loop {
            if candidate >= self.q {
                break None;
            }
            let start =
                if candidate == first { ready } else { self.now + candidate as Time * self.config.slot };
            let Some(end) = start.checked_add(duration) else { break None };
            let Some(window_end) = self.config.ceil(end).filter(|&q| q <= limit) else { break None };
            let b = self.index(window_end - 1) + 1;
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
            candidate += 1;
        };
        self.cost.set(COUNTING.then_some(cost));
        Ok(answer)
    }

    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.cost.set(None);
        let (s, e) = self.config.admit_allocation(self.now, self.capacity, start, end, set, |s, e| {
            let (a, b) = self.span(s, e);
            self.fold(a, b, 0, &mut 0).all
        })?;
        let (a, b) = self.span(s, e);
        self.modify(a, b, &Tag::take(set));
        Ok(())
    }

    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.cost.set(None);
        let (s, e) = self.config.admit_release(self.now, self.capacity, start, end, set, |s, e| {
            let (a, b) = self.span(s, e);
            self.fold(a, b, 0, &mut 0).any
        })?;
        let (a, b) = self.span(s, e);
        self.modify(a, b, &Tag::give(set));
        Ok(())
    }

    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        let steps = self.steps(s, e);
        Ok(sweep::free_frames(steps.iter().map(|(t, free)| (*t, free)), s, e))
    }

    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        let steps = self.steps(s, e);
        Ok(sweep::options(steps.iter().map(|(t, free)| (*t, free)), s, e, min_duration, u64::from(min_n)))
    }

    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.cost.set(None);
        *self = rebuild(Self::new(self.capacity, self.config)?, self.now, frames)?;
        Ok(())
    }

    /// Frees the expired slots in one lazy assignment and turns the ring past them, so
    /// they become the slots at the new end of the horizon.
    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.cost.set(None);
        let now = self.config.advance(self.now, now)?;
        let gone = ((now - self.now) / self.config.slot).min(self.q as u64) as usize;
        if gone > 0 {
            self.modify(0, gone, &Tag::Assign(self.full.clone()));
        }
        self.first = (self.first + gone) % self.q;
        self.now = now;
        Ok(())
    }

    fn size(&self) -> usize {
        2 * self.q - 1
    }

    fn last_cost(&self) -> Option<Cost> {
        self.cost.get()
    }

    fn validate(&self) -> Result<(), String> {
        if Some(self.q as u64 * self.config.slot) != self.config.horizon
            || self.first >= self.q
            || !self.now.is_multiple_of(self.config.slot)
        {
            return Err(format!(
                "{} slots from position {} at time {}, for horizon {:?} and slot {}",
                self.q, self.first, self.now, self.config.horizon, self.config.slot
            ));
        }
        self.tree.validate(&self.full).map_err(|e| format!("ring position {} holds now: {e}", self.first))
    }
}
