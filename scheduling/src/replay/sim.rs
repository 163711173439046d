//! The event loop: arrivals in submit order and ends in time order. At equal times ends
//! go first, so what they free is there for the arrivals. What to do at each event is the
//! policy's ([`crate::policy`]); this loop owns time, the structure, the placements and
//! the counts, and offers the policy the services below.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use oracle::{Op, OpKind, Outcome};
use structures::{Time, TimeFrame};

use super::ar::{self, Reservation, AR_WINDOW};
use super::{Mode, Observer, Options, Run};
use crate::policy::Policy;
use crate::runner::{EventLoop, Placement, ReplayError, Runner};
use traces::workload::{Request, Workload};

/// About this many size samples are kept per run.
const SIZE_SAMPLES: u64 = 2_000;

/// A replay in progress, as a policy sees it.
pub(super) struct Sim<'a> {
    runner: Runner,
    run: Run,
    /// The workload's requests, with `duration` the length each one reserves.
    requests: Cow<'a, [Request]>,
    options: &'a Options,
    reservations: Vec<Option<Reservation>>,
    /// Each job's current placement, by request index.
    placed: Vec<Option<Placement>>,
    /// Bumped when a job is re-planned, so its old end is ignored.
    version: Vec<u32>,
    ends: BinaryHeap<Reverse<(Time, usize, u32)>>,
    /// Whether the policy hears of every job's end, or only of those that end before
    /// their reservation does.
    every_end: bool,
    /// The time of the event being handled (the structure's `now` is that time rounded
    /// down to a slot boundary).
    clock: Time,
    events: u64,
    stride: u64,
    /// Calls per operation, by [`OpKind`] index: the run's map is filled from it at the
    /// end, not looked up at every op.
    ops: [u64; OpKind::ALL.len()],
}

impl<'a> Sim<'a> {
    pub(super) fn new(runner: Runner, run: Run, workload: &'a Workload, options: &'a Options) -> Self {
        let requests = match super::as_reserved(workload, options) {
            Cow::Borrowed(w) => Cow::Borrowed(&w.requests[..]),
            Cow::Owned(w) => Cow::Owned(w.requests),
        };
        let jobs = requests.len();
        Self {
            runner,
            run,
            reservations: ar::plan(requests.iter().map(|r| r.submit), options.ar_fraction, options.seed),
            requests,
            options,
            placed: vec![None; jobs],
            version: vec![0; jobs],
            ends: BinaryHeap::new(),
            every_end: false,
            clock: 0,
            events: 0,
            stride: (2 * jobs as u64 / SIZE_SAMPLES).max(1),
            ops: [0; OpKind::ALL.len()],
        }
    }

    /// Runs every event through `policy`; returns what happened and the structure as it
    /// was left.
    pub(super) fn run(
        mut self,
        policy: &mut dyn Policy,
        observer: &mut dyn Observer,
    ) -> Result<(Run, Runner), ReplayError> {
        self.every_end = policy.every_end();
        let total = self.requests.len() as u64;
        let mut next = 0;
        loop {
            while self.ends.peek().is_some_and(|Reverse((_, i, v))| self.version[*i] != *v) {
                self.ends.pop();
            }
            let arrival = self.requests.get(next).map(|r| r.submit);
            let end = self.ends.peek().map(|Reverse((t, i, _))| (*t, *i));
            match (arrival, end) {
                (_, Some((t, i))) if arrival.is_none_or(|a| t <= a) => {
                    self.ends.pop();
                    self.clock = t;
                    self.step(self.requests[i].id, &Op::Advance { now: t })?;
                    self.end(i)?;
                    policy.ended(&mut self, i)?;
                }
                (Some(t), _) => {
                    self.clock = t;
                    self.step(self.requests[next].id, &Op::Advance { now: t })?;
                    policy.arrive(&mut self, next)?;
                    next += 1;
                    observer.arrived(next as u64, total);
                }
                (None, _) => break,
            }
            self.events += 1;
            if self.events.is_multiple_of(self.stride) {
                let index = self.runner.index();
                self.run.sizes.push((index.now(), index.size() as u64));
            }
        }
        // `filter_map` collects in place, where `flatten` copies into a new vector: on the
        // KTH year 5 MB of fresh pages, 3 ms of a 40 ms replay.
        #[expect(clippy::filter_map_identity, reason = "flatten does not collect in place")]
        let schedule = self.placed.into_iter().filter_map(|p| p).collect();
        self.run.schedule = schedule;
        for (&kind, &calls) in OpKind::ALL.iter().zip(&self.ops) {
            if calls > 0 {
                self.run.ops.insert(kind, calls);
            }
        }
        Ok((self.run, self.runner))
    }

    /// Applies one op, counting it and how far its window reaches past the present.
    fn step(&mut self, id: i64, op: &Op) -> Result<Outcome, ReplayError> {
        let now = self.runner.index().now();
        let config = self.runner.index().config();
        let end = match op {
            Op::Check { end, .. } | Op::Allocate { end, .. } | Op::Release { end, .. } => Some(*end),
            Op::Options { to, .. } => Some(*to),
            Op::Earliest { ready, duration, .. } => Some(ready.saturating_add(*duration)),
            _ => None,
        };
        if let Some(end) = end {
            let reach = config.ceil(end).unwrap_or(Time::MAX).saturating_sub(now);
            self.run.reach = self.run.reach.max(reach);
        }
        let kind = op.kind();
        // The result is returned as it came, not unwrapped and rewrapped: an outcome
        // holds an id set inline, and each move copies it.
        let result = self.runner.step(id, op);
        if result.is_ok() {
            self.ops[kind as usize] += 1;
            let cost = self.runner.index().last_cost().unwrap_or_default();
            match kind {
                OpKind::Check => self.run.checks.push(cost),
                OpKind::Earliest => self.run.searches.push(cost),
                _ => {}
            }
        }
        result
    }

    /// [`EventLoop::ends_within_horizon`], counting the windows that do not (no op is made for
    /// them: the structure would refuse them).
    fn within_horizon(&mut self, end: Time) -> bool {
        let within = self.ends_within_horizon(end);
        if !within {
            self.count("windows beyond the horizon", 1);
        }
        within
    }

    /// Job `i` has ended: in simulate mode, what it did not use of its reservation is
    /// released.
    fn end(&mut self, i: usize) -> Result<(), ReplayError> {
        let r = self.requests[i];
        let Some(p) = &self.placed[i] else { return Ok(()) };
        if self.options.mode == Mode::Simulate && r.runtime < r.duration {
            let op = Op::Release { start: p.start + r.runtime, end: p.end, set: p.set.clone() };
            self.step(r.id, &op)?;
        }
        Ok(())
    }
}

impl EventLoop for Sim<'_> {
    fn clock(&self) -> Time {
        self.clock
    }

    fn request(&self, i: usize) -> Request {
        self.requests[i]
    }

    fn reserved_start(&self, i: usize) -> Option<Time> {
        self.reservations[i].map(|r| r.start)
    }

    fn placement(&self, i: usize) -> Option<&Placement> {
        self.placed[i].as_ref()
    }

    fn ends_within_horizon(&self, end: Time) -> bool {
        let index = self.runner.index();
        let config = index.config();
        config.horizon.is_none() || config.ceil(end).is_some_and(|e| e <= config.limit(index.now()))
    }

    fn check(&mut self, i: usize, start: Time) -> Result<Option<TimeFrame>, ReplayError> {
        let r = self.requests[i];
        let end = start.saturating_add(r.duration);
        if !self.within_horizon(end) {
            return Ok(None);
        }
        Ok(match self.step(r.id, &Op::Check { start, end, n: r.n })? {
            Outcome::Free(Some(free)) => Some(TimeFrame { start, end, free }),
            _ => None,
        })
    }

    fn earliest(&mut self, i: usize, ready: Time) -> Result<Option<TimeFrame>, ReplayError> {
        let r = self.requests[i];
        if !self.within_horizon(ready.saturating_add(r.duration)) {
            return Ok(None);
        }
        Ok(match self.step(r.id, &Op::Earliest { ready, duration: r.duration, n: r.n })? {
            Outcome::Start(frame) => frame,
            _ => None,
        })
    }

    fn place(&mut self, i: usize, frame: TimeFrame, reserved: bool) -> Result<(), ReplayError> {
        let r = self.requests[i];
        let set = frame.free.first(u64::from(r.n)).unwrap_or(frame.free);
        self.step(r.id, &Op::Allocate { start: frame.start, end: frame.end, set: set.clone() })?;
        // A re-planned job's earlier end, if any, is stale from here on.
        self.version[i] += 1;
        let ends_early = self.options.mode == Mode::Simulate && r.runtime < r.duration;
        if ends_early || self.every_end {
            let ran = if self.options.mode == Mode::Simulate { r.runtime } else { r.duration };
            self.ends.push(Reverse((frame.start + ran, i, self.version[i])));
        }
        let placement =
            Placement { id: r.id, submit: r.submit, start: frame.start, end: frame.end, set, reserved };
        self.placed[i] = Some(placement);
        Ok(())
    }

    fn unplace(&mut self, i: usize) -> Result<Option<Placement>, ReplayError> {
        let Some(p) = self.placed[i].take() else { return Ok(None) };
        self.version[i] += 1;
        self.step(p.id, &Op::Release { start: p.start, end: p.end, set: p.set.clone() })?;
        Ok(Some(p))
    }

    fn slot(&self) -> Time {
        self.runner.index().config().slot
    }

    fn count(&mut self, what: &'static str, n: u64) {
        *self.run.counts.entry(what).or_insert(0) += n;
    }

    fn tried(&mut self, i: usize, attempts: u64, wait: Option<Time>) {
        let r = self.requests[i];
        let lead = self.reserved_start(i).map_or(0, |s| s.saturating_sub(r.submit));
        self.run.trials.push(super::Trial { n: r.n, length: r.duration, attempts, wait, lead });
    }

    fn unplaced(&mut self) {
        self.run.unplaced += 1;
    }

    fn reserve(&mut self, i: usize, start: Time) -> Result<(), ReplayError> {
        let r = self.requests[i];
        self.run.ar.requested += 1;
        if let Some(frame) = self.check(i, start)? {
            self.run.ar.admitted += 1;
            return self.place(i, frame, true);
        }
        let to = start.saturating_add(r.duration).saturating_add(AR_WINDOW);
        let op = Op::Options { from: start, to, min_duration: r.duration, min_n: r.n };
        let offered = match self.step(r.id, &op)? {
            Outcome::Frames(frames) => frames.len() as u64,
            _ => 0,
        };
        self.run.ar.offered.push(offered);
        Ok(())
    }
}
