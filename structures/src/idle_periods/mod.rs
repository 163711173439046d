//! The 2-D trees of idle periods of coallocation-2d-trees (section 4): per server, its maximal idle periods; per slot, a 2-dimensional tree
//! (`tree.rs`) of the periods overlapping the slot, searched in two phases.
//!
//! Slots are the configuration's (width τ = the slot). Every period boundary is a slot
//! boundary, because windows are, so neighbouring slots that no period starts or ends
//! between hold the same periods; such a run of slots shares one tree (`runs.rs`). That
//! is what lets the structure run without a horizon: the paper's Q trees are the runs,
//! and the tree of the last run, which reaches the end of time, is the paper's new tree
//! at the horizon. A consequence of aligned time: every period in the tree of the slot
//! holding a window's start begins at or before it, so Phase 1 marks the whole tree
//! (along one path, as the paper walks it) and the pruning is Phase 2's.
//!
//! `check` runs both phases over every marked subtree, so it returns the full feasible
//! set; [`IdlePeriodTrees::first_feasible`] is the paper's early stop at `n`. `earliest`
//! tries `ready`, then every later run start (a superset of the idle-period starts,
//! where the feasible set can grow), in order. The paper's fixed Δt stepping with Rmax
//! retries is a scheduling policy, not this operation.

mod index;
#[cfg(feature = "planted")]
mod planted;
mod runs;
mod server;
mod tree;

use runs::Runs;
use server::Server;
use std::borrow::Cow;
use tree::{attempt_bound, Period, Visits};

use crate::shell::{Basis, Engine, Shell, Step};
use crate::{Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame, COUNTING};

/// The most servers an index of idle periods keeps (a list of periods each).
pub const MAX_SERVERS: u32 = 1 << 20;

/// Per-slot 2-D trees of idle periods.
pub type IdlePeriodTrees = Shell<IdlePeriods>;

/// The engine of [`IdlePeriodTrees`]: each server's idle periods and the slot trees.
#[derive(Debug, Clone)]
pub struct IdlePeriods {
    /// Per server, its idle periods: start to end.
    servers: Vec<Server>,
    runs: Runs,
}

fn cost(visits: Visits, worst: u64) -> Cost {
    Cost { search: visits.primary, visited: visits.primary + visits.secondary, worst }
}

impl Shell<IdlePeriods> {
    /// The paper's search with its early stop: `n` servers idle throughout the window
    /// (the first feasible in primary order), or `None` if there are fewer.
    /// Its cost counts the nodes touched up to the stop, against the same bound as
    /// [`check`](crate::AvailabilityIndex::check)'s.
    ///
    /// # Errors
    /// As [`check`](crate::AvailabilityIndex::check).
    pub fn first_feasible(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        self.query(start, end, n, |engine, _, s, e, n| engine.search(s, e, n, true))
    }
}

impl IdlePeriods {
    fn search(&self, s: Time, e: Time, n: u64, early: bool) -> (Option<RangeSet>, Cost) {
        let run = self.runs.at(s);
        let mut visits = Visits::default();
        let found = run.leaves().feasible(s, e, n, early.then_some(n), &mut visits).filter(|f| f.count >= n);
        let answer = found.map(|f| f.ids(if early { n } else { u64::MAX }));
        (answer, cost(visits, attempt_bound(run.len())))
    }

    /// The period of `id` holding `t`, if it is idle then.
    fn period_at(&self, id: u32, t: Time) -> Option<(Time, Time)> {
        let (st, et) = self.servers[id as usize].last_from(t)?;
        (et > t).then_some((st, et))
    }
}

impl Engine for IdlePeriods {
    const KIND: Kind = Kind::IdleTrees;

    /// Every server idle from the present on; at most [`MAX_SERVERS`].
    fn new(at: &Basis) -> Result<Self, Error> {
        if at.capacity > MAX_SERVERS {
            let reason =
                format!("2-D trees of idle periods keep at most {MAX_SERVERS} servers, not {}", at.capacity);
            return Err(Error::BadConfig { reason });
        }
        let periods: Vec<Period> =
            (0..at.capacity).map(|id| Period { start: at.now, end: Time::MAX, id }).collect();
        Ok(Self {
            servers: vec![Server::idle_from(at.now); at.capacity as usize],
            runs: Runs::new(at.now, &periods),
        })
    }

    /// Phase 1 and Phase 2 in the tree of the slot holding the window's start, over every
    /// marked subtree. `search` counts Phase 1's primary nodes, `visited` those and Phase
    /// 2's secondary nodes; the worst case is the paper's `L + L²` for a tree of `L`
    /// levels. Reading the feasible servers (those of the marked pieces: the primary
    /// leaves that end at or after the window) is output, not counted.
    fn check(&self, _: &Basis, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost) {
        self.search(s, e, n, false)
    }

    /// One attempt per candidate start (`ready`, then each later run start) until one
    /// has `n` feasible periods; the worst case is an attempt at every candidate whose
    /// window ends within the horizon.
    fn earliest(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost) {
        let candidates = std::iter::once((ready, self.runs.at(at.config.floor(ready))))
            .chain(self.runs.after(ready))
            .map_while(|(t, run)| at.candidate(t, duration).map(|w| (t, w, run)));
        let (mut visits, mut worst, mut answer) = (Visits::default(), 0, None);
        for (t, (end, e), run) in candidates {
            if answer.is_none() {
                if let Some(f) = run
                    .leaves()
                    .feasible(at.config.floor(t), e, n, None, &mut visits)
                    .filter(|f| f.count >= n)
                {
                    answer = Some(TimeFrame { start: t, end, free: f.ids(u64::MAX) });
                }
            } else if !COUNTING {
                break;
            }
            worst += attempt_bound(run.len());
        }
        (answer, cost(visits, worst))
    }

    fn free_throughout(&self, _: &Basis, s: Time, e: Time, among: &RangeSet) -> RangeSet {
        let idle = |&id: &u32| self.period_at(id, s).is_some_and(|p| p.1 >= e);
        // An update's ids are all free as a rule: then the answer is `among`, with no set
        // built id by id.
        if among.iter().all(|id| idle(&id)) {
            return among.clone();
        }
        RangeSet::from_ids(among.iter().filter(idle))
    }

    fn free_somewhere(&self, _: &Basis, s: Time, e: Time, among: &RangeSet) -> RangeSet {
        RangeSet::from_ids(among.iter().filter(|&id| self.servers[id as usize].idle_in(s, e)))
    }

    /// Each server's period holding the window loses it and keeps the at most two
    /// remainders; every slot tree those periods overlap is rebuilt.
    fn allocate(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        // The remainders before the window and those after it apart, each by id: the
        // index and the boundary counts take runs of equal starts at once.
        let c = usize::try_from(set.count()).unwrap_or(0);
        let (mut removed, mut added, mut after) =
            (Vec::with_capacity(c), Vec::with_capacity(2 * c), Vec::with_capacity(c));
        let kept = |start: Time, end: Time| start < end && end > at.now;
        for id in set.iter() {
            let server = &mut self.servers[id as usize];
            let (st, et) = server.split((s, e), kept).expect("admitted: idle throughout the window");
            removed.push(Period { start: st, end: et, id });
            added.extend(kept(st, s).then_some(Period { start: st, end: s, id }));
            after.extend(kept(e, et).then_some(Period { start: e, end: et, id }));
        }
        added.append(&mut after);
        self.runs.update(at.now, &removed, &added);
    }

    /// Each server gets the window as a period, merged with the periods that end at its
    /// start and begin at its end.
    fn release(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        // The periods before the window and those after it apart, as in `allocate`.
        let c = usize::try_from(set.count()).unwrap_or(0);
        let (mut removed, mut added, mut after) =
            (Vec::with_capacity(2 * c), Vec::with_capacity(c), Vec::with_capacity(c));
        for id in set.iter() {
            let mut merged = Period { start: s, end: e, id };
            let (before, next) = self.servers[id as usize].merge(s, e);
            if let Some((st, et)) = before {
                removed.push(Period { start: st, end: et, id });
                merged.start = st;
            }
            if let Some((_, et)) = next {
                after.push(Period { start: e, end: et, id });
                merged.end = et;
            }
            added.push(merged);
        }
        removed.append(&mut after);
        self.runs.update(at.now, &removed, &added);
    }

    fn steps<'a>(&'a self, _: &'a Basis, s: Time, _: Time) -> impl Iterator<Item = Step<'a>> {
        self.runs.steps(s).map(|(t, free)| (t, Cow::Borrowed(free)))
    }

    /// Forgets the periods that ended and drops the trees of the expired slots.
    fn advance(&mut self, at: &Basis, now: Time) {
        // A period that ends by `now` ends after the old present, at a counted boundary
        // (or at the end of time): without one in between, none need be looked for.
        let ended = if now == Time::MAX || self.runs.has_bound_in(at.now, now) {
            self.runs.ended(now)
        } else {
            Vec::new()
        };
        for p in &ended {
            self.servers[p.id as usize].remove(p.start);
        }
        self.runs.advance(now, &ended);
    }

    /// Idle periods held, counted once per tree that holds them.
    fn size(&self) -> usize {
        self.runs.leaves()
    }

    fn validate(&self, at: &Basis) -> Result<(), Invalid> {
        if !at.now.is_multiple_of(at.config.slot) {
            return Err(Self::KIND.invalid(format!("now {} is not a slot boundary", at.now)));
        }
        let mut all = Vec::new();
        for (id, periods) in self.servers.iter().enumerate() {
            let mut last_end = None;
            for (start, end) in periods.iter() {
                let p = Period { start, end, id: id as u32 };
                if start >= end || end <= at.now || last_end.is_some_and(|l| l >= start) {
                    return Err(Self::KIND.invalid(format!("server {id}: period {p:?} is empty, past, or not disjoint from and maximal after the one before")));
                }
                if start > at.now && !start.is_multiple_of(at.config.slot)
                    || end < Time::MAX && !end.is_multiple_of(at.config.slot)
                {
                    return Err(
                        Self::KIND.invalid(format!("server {id}: period {p:?} is not on slot boundaries"))
                    );
                }
                last_end = Some(end);
                all.push(p);
            }
        }
        self.runs.validate(at.now, &all)
    }

    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = planted::INVARIANTS;

    /// See [`planted::corrupt`].
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        planted::corrupt(self, at, invariant, pick)
    }
}
