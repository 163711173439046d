//! The slot trees, one per run of slots that hold the same idle periods: a run starts at
//! `now` and at every later period start or end, and reaches the next one (the last run
//! reaches the end of time).

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included, Unbounded};

use super::tree::{primary, Period, Tree};
use super::IdlePeriods;
use crate::shell::Engine;
use crate::{Invalid, RangeSet, Time};

#[derive(Debug, Clone)]
pub(crate) struct Runs {
    /// Run start to the tree of every slot from it to the next run's start.
    trees: BTreeMap<Time, Tree>,
    /// How many periods start, or end before the end of time, at each time.
    bounds: BTreeMap<Time, u32>,
    /// A tree's old periods after an update: the next tree's new ones go in here.
    buffer: Vec<Period>,
    /// Per server, the starts of the periods an update removes (`Time::MAX` for none);
    /// kept between updates, all `Time::MAX`, so that it is not allocated per update.
    gone: Vec<[Time; 2]>,
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
        Self { trees, bounds, buffer: Vec::new(), gone: Vec::new() }
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

    /// Whether a period starts or ends in `(from, to]`.
    pub(crate) fn has_bound_in(&self, from: Time, to: Time) -> bool {
        from < to && self.bounds.range((Excluded(from), Included(to))).next().is_some()
    }

    /// Idle periods held, once per tree.
    pub(crate) fn leaves(&self) -> usize {
        self.trees.values().map(|tree| tree.periods().len()).sum()
    }

    /// Counts `periods`' boundaries in or out. An allocation's periods share most of
    /// theirs (every remainder after it starts at its end), so the times are sorted and
    /// each distinct one costs one map operation, not one per period.
    fn count(&mut self, periods: &[Period], up: bool) {
        let mut times: Vec<Time> =
            periods.iter().flat_map(|p| [p.start, p.end]).filter(|&t| t < Time::MAX).collect();
        times.sort_unstable();
        for same in times.chunk_by(|a, b| a == b) {
            let (t, k) = (same[0], same.len() as u32);
            let c = self.bounds.entry(t).or_insert(0);
            *c = if up { *c + k } else { *c - k };
            if *c == 0 {
                self.bounds.remove(&t);
            }
        }
    }

    /// Replaces `removed` by `added` (the servers' periods already changed) in the tree
    /// of every slot either overlaps, splitting and merging runs where boundaries come
    /// and go. A tree that stays is changed in place, its old periods' buffer reused.
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
        // Per server, the starts of its removed periods (a release merges at most two),
        // looked up by id: most periods a changed tree holds are some server's.
        let mut gone = std::mem::take(&mut self.gone);
        for p in removed {
            let id = p.id as usize;
            if gone.len() <= id {
                gone.resize(id + 1, [Time::MAX; 2]);
            }
            let starts = &mut gone[id];
            starts[usize::from(starts[0] != Time::MAX)] = p.start;
        }
        // The added periods sorted once, merged into each tree's periods, which are in
        // primary order already: no sort per tree.
        let mut added = added.to_vec();
        added.sort_unstable_by(primary);
        let mut cuts = Vec::new();
        let merge =
            |k: Time, old: &[Period], out: &mut Vec<Period>, cuts: &mut Vec<(usize, Option<Period>)>| {
                let held = |p: &&Period| p.start <= k && p.end > k;
                let changes = removed.iter().filter(held).count() + added.iter().filter(held).count();
                // Few changes against a large tree: find each by binary search and copy the
                // stretches between them whole.
                if changes * ((usize::BITS - old.len().leading_zeros()) as usize) < old.len() {
                    cuts.clear();
                    for p in removed.iter().filter(held) {
                        if let Ok(i) = old.binary_search_by(|q| primary(q, p)) {
                            cuts.push((i, None));
                        }
                    }
                    cuts.extend(
                        added
                            .iter()
                            .filter(held)
                            .map(|q| (old.partition_point(|x| primary(x, q).is_lt()), Some(*q))),
                    );
                    // At one position, added periods go (stably, in primary order) before the
                    // removal of the old one there.
                    cuts.sort_by_key(|&(i, q)| (i, q.is_none()));
                    let mut at = 0;
                    for &(i, q) in cuts.iter() {
                        out.extend_from_slice(&old[at..i]);
                        match q {
                            Some(q) => {
                                out.push(q);
                                at = i;
                            }
                            None => at = i + 1,
                        }
                    }
                    out.extend_from_slice(&old[at..]);
                    return;
                }
                let kept =
                    old.iter().filter(|p| gone.get(p.id as usize).is_none_or(|g| !g.contains(&p.start)));
                let mut new = added.iter().filter(|p| p.start <= k && p.end > k).peekable();
                for p in kept {
                    while let Some(q) = new.next_if(|q| primary(q, p).is_lt()) {
                        out.push(*q);
                    }
                    out.push(*p);
                }
                out.extend(new);
            };
        // A boundary that is new starts a run, made from the old run holding it (no
        // change reaches past `hi`, so a run at `hi` that was there stays as it is).
        let fresh: Vec<(Time, Tree)> = self
            .bounds
            .range((Excluded(first), Included(hi)))
            .filter(|&(k, _)| !self.trees.contains_key(k))
            .map(|(&k, _)| {
                let (_, old) = self.trees.range(..k).next_back().expect("a run starts at now");
                let mut periods = Vec::with_capacity(old.periods().len() + added.len());
                merge(k, old.periods(), &mut periods, &mut cuts);
                (k, Tree::from_sorted(periods))
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
        let mut buffer = std::mem::take(&mut self.buffer);
        for (&k, tree) in self.trees.range_mut(first..hi) {
            buffer.clear();
            merge(k, tree.periods(), &mut buffer, &mut cuts);
            tree.replace(&mut buffer);
        }
        self.buffer = buffer;
        self.trees.extend(fresh);
        for p in removed {
            gone[p.id as usize] = [Time::MAX; 2];
        }
        self.gone = gone;
    }

    /// Moves the first run to `now`, dropping the trees of the slots before it; `ended`
    /// are the periods the servers forgot.
    pub(crate) fn advance(&mut self, now: Time, ended: &[Period]) {
        self.count(ended, false);
        let (&k, _) = self.trees.range(..=now).next_back().expect("a run starts at now");
        let mut first = self.trees.remove(&k).expect("just found");
        // A period reaching the end of time has no boundary there, so at `now` =
        // `Time::MAX` it ends inside the last run, whose tree must let it go.
        if ended.iter().any(|p| p.end == Time::MAX) {
            first = Tree::from_sorted(first.periods().iter().filter(|p| p.end > now).copied().collect());
        }
        self.trees = self.trees.split_off(&now);
        self.trees.insert(now, first);
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
        let expected = runs_of(now, periods, &bounds);
        if !expected.iter().map(|r| r.0).eq(self.trees.keys().copied()) {
            let starts: Vec<_> = self.trees.keys().collect();
            return Err(IdlePeriods::KIND.invalid(format!(
                "runs start at {starts:?}, expected {:?}",
                expected.iter().map(|r| r.0).collect::<Vec<_>>()
            )));
        }
        for ((k, mut held), tree) in expected.into_iter().zip(self.trees.values()) {
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
        let mut trees: Vec<&mut Tree> = self.trees.values_mut().collect();
        let n = trees.len() as u64;
        trees.rotate_left((pick % n) as usize);
        trees.into_iter().any(|tree| tree.corrupt(check, pick))
    }
}
