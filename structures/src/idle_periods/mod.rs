//! The co-allocation seed's 2-D trees of idle periods (`coallocation-2d-trees`,
//! section 4): per server, its maximal idle periods; per slot, a 2-dimensional tree
//! (`tree.rs`) of the periods overlapping the slot, searched in two phases.
//!
//! Slots are the configuration's (width τ = the slot). Every period boundary is a slot
//! boundary, because windows are, so neighbouring slots that no period starts or ends
//! between hold the same periods; such a run of slots shares one tree (`runs.rs`). That
//! is what lets the structure run without a horizon: the seed's Q trees are the runs,
//! and the tree of the last run, which reaches the end of time, is the seed's new tree
//! at the horizon. A consequence of aligned time: every period in the tree of the slot
//! holding a window's start begins at or before it, so Phase 1 marks the whole tree
//! (along one path, as the seed walks it) and the pruning is Phase 2's.
//!
//! `check` runs both phases over every marked subtree, so it returns the full feasible
//! set; [`IdlePeriodTrees::first_feasible`] is the seed's early stop at `n`. `earliest`
//! tries `ready`, then every later run start (a superset of the idle-period starts,
//! where the feasible set can grow), in order. The seed's fixed Δt stepping with Rmax
//! retries is a scheduling policy, not this operation.

mod runs;
mod tree;

use std::cell::Cell;
use std::collections::BTreeMap;

use runs::Runs;
use tree::{attempt_bound, Period, Visits};

use crate::{
    check_count, rebuild, sweep, AvailabilityIndex, Config, Cost, Error, RangeSet, Time, TimeFrame, COUNTING,
};

/// The most servers an index of idle periods keeps (one ordered map of periods each).
pub const MAX_SERVERS: u32 = 1 << 20;

/// Per-slot 2-D trees of idle periods.
#[derive(Debug, Clone)]
pub struct IdlePeriodTrees {
    capacity: u32,
    config: Config,
    now: Time,
    /// Per server, its idle periods: start to end.
    servers: Vec<BTreeMap<Time, Time>>,
    runs: Runs,
    cost: Cell<Option<Cost>>,
}

impl IdlePeriodTrees {
    /// An index of `capacity` servers, each idle from time 0 on.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for an invalid configuration or more than [`MAX_SERVERS`].
    pub fn new(capacity: u32, config: Config) -> Result<Self, Error> {
        config.validate(capacity)?;
        if capacity > MAX_SERVERS {
            let reason =
                format!("2-D trees of idle periods keep at most {MAX_SERVERS} servers, not {capacity}");
            return Err(Error::BadConfig { reason });
        }
        let periods: Vec<Period> = (0..capacity).map(|id| Period { start: 0, end: Time::MAX, id }).collect();
        Ok(Self {
            capacity,
            config,
            now: 0,
            servers: vec![BTreeMap::from([(0, Time::MAX)]); capacity as usize],
            runs: Runs::new(0, &periods),
            cost: Cell::new(None),
        })
    }

    /// The seed's search with its early stop: `n` servers idle throughout the window
    /// (the first found, in the order Phase 2 marks them), or `None` if there are fewer.
    /// Its cost counts the nodes touched up to the stop, against the same bound as
    /// [`check`](AvailabilityIndex::check)'s.
    ///
    /// # Errors
    /// As [`check`](AvailabilityIndex::check).
    pub fn first_feasible(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        self.search(start, end, n, true)
    }

    fn search(&self, start: Time, end: Time, n: u32, early: bool) -> Result<Option<RangeSet>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, start, end)?;
        check_count(n, self.capacity)?;
        let n = u64::from(n);
        let tree = self.runs.at(s);
        let mut visits = Visits::default();
        let found = tree.feasible(s, e, n, early.then_some(n), &mut visits).filter(|f| f.count >= n);
        let answer = found.map(|f| f.ids(if early { n } else { u64::MAX }));
        self.record(visits, attempt_bound(tree.periods().len()));
        Ok(answer)
    }

    fn record(&self, visits: Visits, worst: u64) {
        let cost = Cost { search: visits.primary, visited: visits.primary + visits.secondary, worst };
        self.cost.set(COUNTING.then_some(cost));
    }

    /// The period of `id` holding `t`, if it is idle then.
    fn period_at(&self, id: u32, t: Time) -> Option<(Time, Time)> {
        let (&st, &et) = self.servers[id as usize].range(..=t).next_back()?;
        (et > t).then_some((st, et))
    }

    /// The ids of `set` idle at some instant of `[s, e)`.
    fn idle_somewhere(&self, set: &RangeSet, s: Time, e: Time) -> RangeSet {
        let idle = |id: u32| {
            self.period_at(id, s).is_some() || self.servers[id as usize].range(s..e).next().is_some()
        };
        RangeSet::from_ids(set.iter().filter(|&id| idle(id)))
    }

    /// Applies a change of periods to the servers and to the trees of every slot the old
    /// and the new periods overlap.
    fn apply(&mut self, removed: Vec<Period>, added: Vec<Period>) {
        for p in &removed {
            self.servers[p.id as usize].remove(&p.start);
        }
        for p in &added {
            self.servers[p.id as usize].insert(p.start, p.end);
        }
        self.runs.update(self.now, &removed, &added);
    }
}

impl AvailabilityIndex for IdlePeriodTrees {
    fn name(&self) -> &'static str {
        "idletrees"
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

    /// Phase 1 and Phase 2 in the tree of the slot holding the window's start, over every
    /// marked subtree. `search` counts Phase 1's primary nodes, `visited` those and Phase
    /// 2's secondary nodes; the worst case is the seed's `L + L²` for a tree of `L`
    /// levels. Reading the feasible servers off the marked subtrees (the seed's in-order
    /// traversal) is output, not counted.
    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        self.search(start, end, n, false)
    }

    /// One attempt per candidate start (`ready`, then each later run start) until one
    /// has `n` feasible periods; the worst case is an attempt at every candidate whose
    /// window ends within the horizon.
    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.cost.set(None);
        self.config.search(self.now, ready, duration)?;
        check_count(n, self.capacity)?;
        let (n, limit) = (u64::from(n), self.config.limit(self.now));
        let window = |t: Time| {
            let end = t.checked_add(duration)?;
            self.config.ceil(end).filter(|&e| e <= limit).map(|e| (end, e))
        };
        let candidates = std::iter::once((ready, self.runs.at(self.config.floor(ready))))
            .chain(self.runs.after(ready))
            .map_while(|(t, tree)| window(t).map(|w| (t, w, tree)));
        let (mut visits, mut worst, mut answer) = (Visits::default(), 0, None);
        for (t, (end, e), tree) in candidates {
            if answer.is_none() {
                if let Some(f) =
                    tree.feasible(self.config.floor(t), e, n, None, &mut visits).filter(|f| f.count >= n)
                {
                    answer = Some(TimeFrame { start: t, end, free: f.ids(u64::MAX) });
                }
            } else if !COUNTING {
                break;
            }
            worst += attempt_bound(tree.periods().len());
        }
        self.record(visits, worst);
        Ok(answer)
    }

    /// Each server's period holding the window loses it and keeps the at most two
    /// remainders; every slot tree those periods overlap is rebuilt.
    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.cost.set(None);
        let free = |s, e| {
            RangeSet::from_ids(set.iter().filter(|&id| self.period_at(id, s).is_some_and(|p| p.1 >= e)))
        };
        let (s, e) = self.config.admit_allocation(self.now, self.capacity, start, end, set, free)?;
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        for id in set.iter() {
            let (st, et) = self.period_at(id, s).expect("admitted: idle throughout the window");
            removed.push(Period { start: st, end: et, id });
            added.extend(
                [Period { start: st, end: s, id }, Period { start: e, end: et, id }]
                    .into_iter()
                    .filter(|p| p.start < p.end && p.end > self.now),
            );
        }
        self.apply(removed, added);
        Ok(())
    }

    /// Each server gets the window as a period, merged with the periods that end at its
    /// start and begin at its end.
    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.cost.set(None);
        let (s, e) = self
            .config
            .admit_release(self.now, self.capacity, start, end, set, |s, e| self.idle_somewhere(set, s, e))?;
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        for id in set.iter() {
            let periods = &self.servers[id as usize];
            let mut merged = Period { start: s, end: e, id };
            if let Some((&st, &et)) = periods.range(..s).next_back().filter(|p| *p.1 == s) {
                removed.push(Period { start: st, end: et, id });
                merged.start = st;
            }
            if let Some(&et) = periods.get(&e) {
                removed.push(Period { start: e, end: et, id });
                merged.end = et;
            }
            added.push(merged);
        }
        self.apply(removed, added);
        Ok(())
    }

    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        Ok(sweep::free_frames(self.runs.steps(s), s, e))
    }

    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        Ok(sweep::options(self.runs.steps(s), s, e, min_duration, u64::from(min_n)))
    }

    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.cost.set(None);
        *self = rebuild(Self::new(self.capacity, self.config)?, self.now, frames)?;
        Ok(())
    }

    /// Forgets the periods that ended and drops the trees of the expired slots.
    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.cost.set(None);
        let now = self.config.advance(self.now, now)?;
        let mut ended = Vec::new();
        for (id, periods) in self.servers.iter_mut().enumerate() {
            while let Some(entry) = periods.first_entry().filter(|p| *p.get() <= now) {
                let (start, end) = entry.remove_entry();
                ended.push(Period { start, end, id: id as u32 });
            }
        }
        self.now = now;
        self.runs.advance(now, &ended);
        Ok(())
    }

    /// Idle periods held, counted once per tree that holds them.
    fn size(&self) -> usize {
        self.runs.leaves()
    }

    fn last_cost(&self) -> Option<Cost> {
        self.cost.get()
    }

    fn validate(&self) -> Result<(), String> {
        if !self.now.is_multiple_of(self.config.slot) {
            return Err(format!("now {} is not a slot boundary", self.now));
        }
        let mut all = Vec::new();
        for (id, periods) in self.servers.iter().enumerate() {
            let mut last_end = None;
            for (&start, &end) in periods {
                let p = Period { start, end, id: id as u32 };
                if start >= end || end <= self.now || last_end.is_some_and(|l| l >= start) {
                    return Err(format!("server {id}: period {p:?} is empty, past, or not disjoint from and maximal after the one before"));
                }
                if start > self.now && !start.is_multiple_of(self.config.slot)
                    || end < Time::MAX && !end.is_multiple_of(self.config.slot)
                {
                    return Err(format!("server {id}: period {p:?} is not on slot boundaries"));
                }
                last_end = Some(end);
                all.push(p);
            }
        }
        self.runs.validate(self.now, &all)
    }
}
