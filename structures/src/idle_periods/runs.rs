//! The slot trees, one per run of slots that hold the same idle periods: a run starts at
//! `now` and at every later period start or end, and reaches the next one (the last run
//! reaches the end of time).

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included, Unbounded};

use super::index::Index;
use super::tree::{spans, Leaves, Period, Span, Tree};
use super::IdlePeriods;
use crate::shell::Engine;
use crate::{Invalid, RangeSet, Time};

#[derive(Debug, Clone)]
pub(crate) struct Runs {
    /// Run start to the tree of every slot from it to the next run's start.
    trees: BTreeMap<Time, Tree>,
    /// How many periods start, or end before the end of time, at each time.
    bounds: BTreeMap<Time, u32>,
    /// The periods, which a run's tree reads its leaves off.
    index: Index,
}

/// One run: its start and its tree.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run<'a> {
    start: Time,
    tree: &'a Tree,
    index: &'a Index,
}

impl<'a> Run<'a> {
    /// How many periods the run's tree holds.
    pub(crate) fn len(self) -> usize {
        self.tree.len()
    }

    /// The tree's leaves, made now if no read has made them since it last changed.
    pub(crate) fn leaves(self) -> Leaves<'a> {
        self.tree.read(|| self.index.held(self.start, self.tree.len()))
    }
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
            runs_of(now, periods, &bounds).into_iter().map(|(k, held)| (k, Tree::new(held.len()))).collect();
        Self { trees, bounds, index: Index::of(periods) }
    }

    fn run<'a>(&'a self, (&start, tree): (&Time, &'a Tree)) -> Run<'a> {
        Run { start, tree, index: &self.index }
    }

    /// The run of the slot holding `t` (at or after `now`).
    pub(crate) fn at(&self, t: Time) -> Run<'_> {
        self.run(self.trees.range(..=t).next_back().expect("a run starts at now"))
    }

    /// The runs that start after `t`, in order.
    pub(crate) fn after(&self, t: Time) -> impl Iterator<Item = (Time, Run<'_>)> {
        self.trees.range((Excluded(t), Unbounded)).map(|entry| (*entry.0, self.run(entry)))
    }

    /// The free space from the run holding `s` on, as sweep steps.
    pub(crate) fn steps(&self, s: Time) -> impl Iterator<Item = (Time, &RangeSet)> {
        let first = self.trees.range(..=s).next_back();
        let runs = first.into_iter().chain(self.trees.range((Excluded(s), Unbounded)));
        runs.map(|entry| (*entry.0, self.run(entry).leaves().free()))
    }

    /// Whether a period starts or ends in `(from, to]`.
    pub(crate) fn has_bound_in(&self, from: Time, to: Time) -> bool {
        from < to && self.bounds.range((Excluded(from), Included(to))).next().is_some()
    }

    /// Idle periods held, once per tree.
    pub(crate) fn leaves(&self) -> usize {
        self.trees.values().map(Tree::len).sum()
    }

    /// Counts `removed`'s boundaries out and `added`'s in. An allocation's periods share
    /// most of theirs (every remainder after it starts at its end, and neighbouring
    /// servers often had the same period), so they come as spans, equal neighbours are
    /// summed before the sort, and each distinct time costs one map operation, not one
    /// per period.
    fn count(&mut self, removed: &[Span], added: &[Span]) {
        let mut deltas: Vec<(Time, i64)> = Vec::with_capacity(2 * (removed.len() + added.len()));
        for (spans, sign) in [(removed, -1), (added, 1)] {
            let (starts, ends) =
                (spans.iter().map(|s| (s.start, s.count)), spans.iter().map(|s| (s.end, s.count)));
            for (t, n) in starts.chain(ends).filter(|&(t, _)| t < Time::MAX) {
                let d = sign * n as i64;
                match deltas.last_mut() {
                    Some((u, k)) if *u == t => *k += d,
                    _ => deltas.push((t, d)),
                }
            }
        }
        deltas.sort_unstable_by_key(|&(t, _)| t);
        for same in deltas.chunk_by(|a, b| a.0 == b.0) {
            let (t, k) = (same[0].0, same.iter().map(|d| d.1).sum::<i64>());
            if k == 0 {
                continue;
            }
            let c = self.bounds.entry(t).or_insert(0);
            *c = u32::try_from(i64::from(*c) + k).expect("a boundary counted out was counted in");
            if *c == 0 {
                self.bounds.remove(&t);
            }
        }
    }

    /// Replaces `removed` by `added` (the servers' periods already changed) in the index
    /// and in the count of the tree of every slot either overlaps, splitting and merging
    /// runs where boundaries come and go.
    pub(crate) fn update(&mut self, now: Time, removed: &[Period], added: &[Period]) {
        let (out, into) = (spans(removed), spans(added));
        self.count(&out, &into);
        self.index.update(removed, added);
        let changed = || out.iter().chain(&into);
        let (Some(lo), Some(hi)) = (changed().map(|p| p.start).min(), changed().map(|p| p.end).max()) else {
            return;
        };
        // The run before the first change too: a boundary that goes merges it.
        let first = match lo.max(now) {
            lo if lo > now => *self.trees.range(..lo).next_back().expect("a run starts at now").0,
            _ => now,
        };
        // A boundary that is new starts a run, which holds what the old run holding it
        // held (no change reaches past `hi`, so a run at `hi` that was there stays).
        let fresh: Vec<(Time, Tree)> = self
            .bounds
            .range((Excluded(first), Included(hi)))
            .filter(|&(k, _)| !self.trees.contains_key(k))
            .map(|(&k, _)| {
                let (_, old) = self.trees.range(..k).next_back().expect("a run starts at now");
                let mut tree = Tree::new(old.len());
                tree.change(k, &out, &into);
                (k, tree)
            })
            .collect();
        // A run that started where a boundary went is now part of the one before it.
        let went: Vec<Time> = self
            .trees
            .range((Excluded(first), Included(hi)))
            .map(|(&k, _)| k)
            .filter(|k| !self.bounds.contains_key(k))
            .collect();
        for k in went {
            self.trees.remove(&k);
        }
        for (&k, tree) in self.trees.range_mut(first..hi) {
            tree.change(k, &out, &into);
        }
        self.trees.extend(fresh);
    }

    /// The periods that end by `now`.
    pub(crate) fn ended(&self, now: Time) -> Vec<Period> {
        self.index.ended(now)
    }

    /// Moves the first run to `now`, dropping the trees of the slots before it; `ended`
    /// are the periods the servers forgot.
    pub(crate) fn advance(&mut self, now: Time, ended: &[Period]) {
        if !ended.is_empty() {
            self.count(&spans(ended), &[]);
            self.index.update(ended, &[]);
        }
        // The runs before the one holding `now` go, one at a time: an advance passes few,
        // and splitting the map cost more than the removals.
        let (&k, _) = self.trees.range(..=now).next_back().expect("a run starts at now");
        while self.trees.first_key_value().is_some_and(|(&first, _)| first < k) {
            self.trees.pop_first();
        }
        // A period reaching the end of time has no boundary there, so at `now` =
        // `Time::MAX` it ends inside the last run, whose tree must let it go.
        if ended.iter().any(|p| p.end == Time::MAX) {
            self.trees.remove(&k);
            self.trees.insert(now, Tree::new(self.index.held(now, 0).len()));
        } else if k < now {
            let first = self.trees.remove(&k).expect("just found");
            self.trees.insert(now, first);
        }
    }

    /// Checks the boundaries against `periods` (every server's), that the runs start at
    /// `now` and each boundary after it, and that each run's tree holds exactly the
    /// periods overlapping it and is itself valid.
    pub(crate) fn validate(&self, now: Time, periods: &[Period]) -> Result<(), Invalid> {
        let bounds = bounds_of(periods);
        if bounds != self.bounds {
            return Err(IdlePeriods::KIND
                .invalid(format!("boundary counts {:?}, the periods give {bounds:?}", self.bounds)));
        }
        let index = Index::of(periods);
        if let Some(odd) = self.index.odd(&index) {
            return Err(IdlePeriods::KIND
                .invalid(format!("the index and the periods differ on (start, server, end) {odd:?}")));
        }
        if self.index != index {
            return Err(IdlePeriods::KIND
                .invalid("an index group's earliest or latest end is not its periods'".to_string()));
        }
        let expected = runs_of(now, periods, &bounds);
        if !expected.iter().map(|r| r.0).eq(self.trees.keys().copied()) {
            let starts: Vec<_> = self.trees.keys().collect();
            return Err(IdlePeriods::KIND.invalid(format!(
                "runs start at {starts:?}, expected {:?}",
                expected.iter().map(|r| r.0).collect::<Vec<_>>()
            )));
        }
        for ((k, mut held), entry) in expected.into_iter().zip(&self.trees) {
            let tree = self.run(entry).leaves();
            tree.validate().map_err(|e| e.within(format_args!("slot tree at {k}")))?;
            let mut has = tree.periods().to_vec();
            let key = |p: &Period| (p.id, p.start);
            has.sort_unstable_by_key(key);
            held.sort_unstable_by_key(key);
            if has != held {
                return Err(IdlePeriods::KIND.invalid(format!(
                    "slot tree at {k} holds {has:?}, the periods overlapping it are {held:?}"
                )));
            }
        }
        Ok(())
    }
}

/// Faults planted on purpose (feature `planted`, for tests only).
#[cfg(feature = "planted")]
impl Runs {
    /// The `pick`-th boundary counted once too often; false if there is none.
    pub(super) fn miscount(&mut self, pick: u64) -> bool {
        let n = self.bounds.len() as u64;
        self.bounds.values_mut().nth((pick % n.max(1)) as usize).map(|c| *c += 1).is_some()
    }

    /// A run starting a slot after the last one, where no boundary is, with a copy of
    /// its tree: every run before it still holds what it should.
    pub(super) fn extra_run(&mut self, slot: Time) -> bool {
        let (&last, tree) = self.trees.last_key_value().expect("a run starts at now");
        let Some(t) = last.checked_add(slot) else { return false };
        let tree = tree.clone();
        self.trees.insert(t, tree);
        true
    }

    /// Breaks check `check` of a tree (as [`Tree::corrupt`] numbers them) in the first
    /// tree from the `pick`-th on that has a place for it.
    pub(super) fn corrupt_tree(&mut self, check: usize, pick: u64) -> bool {
        let mut trees: Vec<(&Time, &mut Tree)> = self.trees.iter_mut().collect();
        let n = trees.len() as u64;
        trees.rotate_left((pick % n) as usize);
        let index = &self.index;
        trees.into_iter().any(|(&k, tree)| {
            let len = tree.len();
            tree.corrupt(check, pick, || index.held(k, len))
        })
    }

    /// The latest end of the `pick`-th group of the index, or for an odd `pick` its
    /// earliest, made a unit earlier; false if there is none.
    pub(super) fn misdate(&mut self, pick: u64) -> bool {
        self.index.misdate(pick)
    }

    /// The `pick`-th period of the index dropped; false if there is none.
    pub(super) fn unindex(&mut self, pick: u64) -> bool {
        self.index.drop_one(pick)
    }
}
