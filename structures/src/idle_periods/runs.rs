//! The slot trees, one per run of slots that hold the same idle periods: a run starts at
//! `now` and at every later period start or end, and reaches the next one (the last run
//! reaches the end of time).

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included, Unbounded};

use super::tree::{primary, Period, Tree};
use crate::{RangeSet, Time};

#[derive(Debug, Clone)]
pub(crate) struct Runs {
    /// Run start to the tree of every slot from it to the next run's start.
    trees: BTreeMap<Time, Tree>,
    /// How many periods start, or end before the end of time, at each time.
    bounds: BTreeMap<Time, u32>,
}

fn bounds_of(periods: &[Period]) -> BTreeMap<Time, u32> {
    let mut bounds = BTreeMap::new();
    for p in periods {
        for t in [p.start, p.end].into_iter().filter(|&t| t < Time::MAX) {
            *bounds.entry(t).or_insert(0) += 1;
        }
    }
    bounds
}

/// Every run from `now`, with the periods overlapping it (for building and validating).
fn runs_of(now: Time, periods: &[Period], bounds: &BTreeMap<Time, u32>) -> Vec<(Time, Vec<Period>)> {
    let keys: Vec<Time> =
        std::iter::once(now).chain(bounds.range((Excluded(now), Unbounded)).map(|(&t, _)| t)).collect();
    let ends = keys.iter().skip(1).copied().chain([Time::MAX]);
    keys.iter()
        .zip(ends)
        .map(|(&k, next)| (k, periods.iter().filter(|p| p.start < next && p.end > k).copied().collect()))
        .collect()
}

impl Runs {
    /// The runs of `periods` from `now`.
    pub(crate) fn new(now: Time, periods: &[Period]) -> Self {
        let bounds = bounds_of(periods);
        let trees =
            runs_of(now, periods, &bounds).into_iter().map(|(k, held)| (k, Tree::new(held))).collect();
        Self { trees, bounds }
    }

    /// The tree of the slot holding `t` (at or after `now`).
    pub(crate) fn at(&self, t: Time) -> &Tree {
        self.trees.range(..=t).next_back().expect("a run starts at now").1
    }

    /// The runs that start after `t`, in order.
    pub(crate) fn after(&self, t: Time) -> impl Iterator<Item = (Time, &Tree)> {
        self.trees.range((Excluded(t), Unbounded)).map(|(&k, tree)| (k, tree))
    }

    /// The free space from the run holding `s` on, as sweep steps.
    pub(crate) fn steps(&self, s: Time) -> impl Iterator<Item = (Time, &RangeSet)> {
        let first = self.trees.range(..=s).next_back();
        first.into_iter().chain(self.trees.range((Excluded(s), Unbounded))).map(|(&k, tree)| (k, tree.free()))
    }

    /// Idle periods held, once per tree.
    pub(crate) fn leaves(&self) -> usize {
        self.trees.values().map(|tree| tree.periods().len()).sum()
    }

    fn count(&mut self, periods: &[Period], up: bool) {
        for t in periods.iter().flat_map(|p| [p.start, p.end]).filter(|&t| t < Time::MAX) {
            let c = self.bounds.entry(t).or_insert(0);
            *c = if up { *c + 1 } else { *c - 1 };
            if *c == 0 {
                self.bounds.remove(&t);
            }
        }
    }

    /// Replaces `removed` by `added` (the servers' periods already changed) in the tree
    /// of every slot either overlaps, splitting and merging runs where boundaries come
    /// and go. Each tree changed is rebuilt.
    pub(crate) fn update(&mut self, now: Time, removed: &[Period], added: &[Period]) {
        self.count(removed, false);
        self.count(added, true);
        let changed = || removed.iter().chain(added);
        let (Some(lo), Some(hi)) = (changed().map(|p| p.start).min(), changed().map(|p| p.end).max()) else {
            return;
        };
        // The run before the first change too: a boundary that goes merges it.
        let first = match lo.max(now) {
            lo if lo > now => *self.trees.range(..lo).next_back().expect("a run starts at now").0,
            _ => now,
        };
        let mut old = self.trees.split_off(&first);
        let mut rest = if hi < Time::MAX { old.split_off(&hi) } else { BTreeMap::new() };
        // A sorted list, searched by halving: an update removes a few periods, and hashing
        // each period of every rebuilt tree cost more than the search.
        let mut gone: Vec<(u32, Time)> = removed.iter().map(|p| (p.id, p.start)).collect();
        gone.sort_unstable();
        // A boundary at `hi` that is new starts a run; one that was there keeps its tree.
        let new_keys = self.bounds.range((Excluded(first), Included(hi))).map(|(&t, _)| t);
        let keys: Vec<Time> =
            std::iter::once(first).chain(new_keys).filter(|&k| k < hi || !rest.contains_key(&hi)).collect();
        // Each tree is built from its old periods, already in primary order, merged with
        // the added ones, sorted once: no sort per tree.
        let mut added = added.to_vec();
        added.sort_unstable_by(primary);
        for k in keys {
            let (_, before) = old.range(..=k).next_back().expect("the first run is an old one");
            let kept = before.periods().iter().filter(|p| gone.binary_search(&(p.id, p.start)).is_err());
            let mut new = added.iter().filter(|p| p.start <= k && p.end > k).peekable();
            let mut periods = Vec::with_capacity(before.periods().len() + added.len());
            for p in kept {
                while let Some(q) = new.next_if(|q| primary(q, p).is_lt()) {
                    periods.push(*q);
                }
                periods.push(*p);
            }
            periods.extend(new);
            self.trees.insert(k, Tree::from_sorted(periods));
        }
        // A run that started where a boundary went is now part of the one before it.
        if rest.first_key_value().is_some_and(|(&k, _)| k == hi && !self.bounds.contains_key(&hi)) {
            rest.pop_first();
        }
        self.trees.append(&mut rest);
    }

    /// Moves the first run to `now`, dropping the trees of the slots before it; `ended`
    /// are the periods the servers forgot.
    pub(crate) fn advance(&mut self, now: Time, ended: &[Period]) {
        self.count(ended, false);
        let (&k, _) = self.trees.range(..=now).next_back().expect("a run starts at now");
        let first = self.trees.remove(&k).expect("just found");
        self.trees = self.trees.split_off(&now);
        self.trees.insert(now, first);
    }

    /// Checks the boundaries against `periods` (every server's), that the runs start at
    /// `now` and each boundary after it, and that each run's tree holds exactly the
    /// periods overlapping it and is itself valid.
    pub(crate) fn validate(&self, now: Time, periods: &[Period]) -> Result<(), String> {
        let bounds = bounds_of(periods);
        if bounds != self.bounds {
            return Err(format!("boundary counts {:?}, the periods give {bounds:?}", self.bounds));
        }
        let expected = runs_of(now, periods, &bounds);
        if !expected.iter().map(|r| r.0).eq(self.trees.keys().copied()) {
            let starts: Vec<_> = self.trees.keys().collect();
            return Err(format!(
                "runs start at {starts:?}, expected {:?}",
                expected.iter().map(|r| r.0).collect::<Vec<_>>()
            ));
        }
        for ((k, mut held), tree) in expected.into_iter().zip(self.trees.values()) {
            tree.validate().map_err(|e| format!("slot tree at {k}: {e}"))?;
            let mut has = tree.periods().to_vec();
            let key = |p: &Period| (p.id, p.start);
            has.sort_unstable_by_key(key);
            held.sort_unstable_by_key(key);
            if has != held {
                return Err(format!(
                    "slot tree at {k} holds {has:?}, the periods overlapping it are {held:?}"
                ));
            }
        }
        Ok(())
    }
}
