//! The event loop: arrivals in submit order and completions in time order. At equal
//! times completions go first, so what they free is there for the arrivals.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use oracle::{Op, OpKind, Outcome};
use structures::{Time, TimeFrame};

use super::ar::{self, Reservation, AR_WINDOW};
use super::{Mode, Observer, Options, Placement, ReplayError, Run, Runner};
use crate::workload::{Request, Workload};

/// About this many size samples are kept per run.
const SIZE_SAMPLES: u64 = 2_000;

pub(super) struct Sim<'a> {
    runner: Runner,
    run: Run,
    requests: &'a [Request],
    options: &'a Options,
    reservations: Vec<Option<Reservation>>,
    /// Each job's current placement, by request index.
    placed: Vec<Option<Placement>>,
    /// Bumped when a job is re-planned, so its old completion is ignored.
    version: Vec<u32>,
    completions: BinaryHeap<Reverse<(Time, usize, u32)>>,
    /// Best-effort jobs reserved to start later, in queue (submit) order.
    waiting: BTreeSet<usize>,
    /// The time of the event being handled (the structure's `now` is that time rounded
    /// down to a slot boundary).
    clock: Time,
    events: u64,
    stride: u64,
}

impl<'a> Sim<'a> {
    pub(super) fn new(runner: Runner, run: Run, workload: &'a Workload, options: &'a Options) -> Self {
        let requests = &workload.requests[..];
        let jobs = requests.len();
        Self {
            runner,
            run,
            requests,
            options,
            reservations: ar::plan(requests.iter().map(|r| r.submit), options.ar_fraction, options.seed),
            placed: vec![None; jobs],
            version: vec![0; jobs],
            completions: BinaryHeap::new(),
            waiting: BTreeSet::new(),
            clock: 0,
            events: 0,
            stride: (2 * jobs as u64 / SIZE_SAMPLES).max(1),
        }
    }

    /// Runs every event; returns what happened and the structure as it was left.
    pub(super) fn run(mut self, observer: &mut dyn Observer) -> Result<(Run, Runner), ReplayError> {
        let total = self.requests.len() as u64;
        let mut next = 0;
        loop {
            while self.completions.peek().is_some_and(|Reverse((_, i, v))| self.version[*i] != *v) {
                self.completions.pop();
            }
            let arrival = self.requests.get(next).map(|r| r.submit);
            let completion = self.completions.peek().map(|Reverse((t, i, _))| (*t, *i));
            match (arrival, completion) {
                (_, Some((t, i))) if arrival.is_none_or(|a| t <= a) => {
                    self.completions.pop();
                    self.clock = t;
                    self.step(self.requests[i].id, Op::Advance { now: t })?;
                    self.complete(i)?;
                }
                (Some(t), _) => {
                    self.clock = t;
                    self.step(self.requests[next].id, Op::Advance { now: t })?;
                    self.arrive(next)?;
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
        self.run.schedule = self.placed.into_iter().flatten().collect();
        Ok((self.run, self.runner))
    }

    /// Applies one op, counting it and how far its window reaches past the present.
    fn step(&mut self, id: i64, op: Op) -> Result<Outcome, ReplayError> {
        let now = self.runner.index().now();
        let config = self.runner.index().config();
        let end = match &op {
            Op::Check { end, .. } | Op::Allocate { end, .. } | Op::Release { end, .. } => Some(*end),
            Op::Options { to, .. } => Some(*to),
            _ => None,
        };
        if let Some(end) = end {
            let reach = config.ceil(end).unwrap_or(Time::MAX).saturating_sub(now);
            self.run.reach = self.run.reach.max(reach);
        }
        let kind = op.kind();
        let outcome = self.runner.step(id, op)?;
        *self.run.ops.entry(kind).or_insert(0) += 1;
        let cost = self.runner.index().last_cost().unwrap_or_default();
        match kind {
            OpKind::Check => self.run.checks.push(cost),
            OpKind::Earliest => self.run.searches.push(cost),
            _ => {}
        }
        Ok(outcome)
    }

    fn arrive(&mut self, i: usize) -> Result<(), ReplayError> {
        let r = self.requests[i];
        if let Some(reservation) = self.reservations[i] {
            return self.reserve(i, reservation.start);
        }
        let end = r.submit.saturating_add(r.duration);
        let frame = match self.step(r.id, Op::Check { start: r.submit, end, n: r.n })? {
            Outcome::Free(Some(free)) => Some(TimeFrame { start: r.submit, end, free }),
            _ => match self.step(r.id, Op::Earliest { ready: r.submit, duration: r.duration, n: r.n })? {
                Outcome::Start(frame) => frame,
                _ => None,
            },
        };
        match frame {
            Some(frame) => self.place(i, frame, false),
            None => {
                self.run.unplaced += 1;
                Ok(())
            }
        }
    }

    /// rbtree-availability-profile's `resSubmitted` (Algorithm 2): admit at the start asked for, or count the options a
    /// rejected reservation could be offered.
    fn reserve(&mut self, i: usize, start: Time) -> Result<(), ReplayError> {
        let r = self.requests[i];
        self.run.ar.requested += 1;
        let end = start.saturating_add(r.duration);
        if let Outcome::Free(Some(free)) = self.step(r.id, Op::Check { start, end, n: r.n })? {
            self.run.ar.admitted += 1;
            return self.place(i, TimeFrame { start, end, free }, true);
        }
        let to = end.saturating_add(AR_WINDOW);
        let op = Op::Options { from: start, to, min_duration: r.duration, min_n: r.n };
        let offered = match self.step(r.id, op)? {
            Outcome::Frames(frames) => frames.len() as u64,
            _ => 0,
        };
        self.run.ar.offered.push(offered);
        Ok(())
    }

    /// Allocates the lowest `n` free ids of `frame` to job `i`.
    fn place(&mut self, i: usize, frame: TimeFrame, reserved: bool) -> Result<(), ReplayError> {
        let r = self.requests[i];
        let set = frame.free.first(u64::from(r.n)).unwrap_or(frame.free);
        self.step(r.id, Op::Allocate { start: frame.start, end: frame.end, set: set.clone() })?;
        if !reserved && frame.start > self.clock {
            self.waiting.insert(i);
        }
        // A re-planned job's earlier completion, if any, is stale from here on.
        self.version[i] += 1;
        if self.options.mode == Mode::Simulate && r.runtime < r.duration {
            self.completions.push(Reverse((frame.start + r.runtime, i, self.version[i])));
        }
        let placement =
            Placement { id: r.id, submit: r.submit, start: frame.start, end: frame.end, set, reserved };
        self.placed[i] = Some(placement);
        Ok(())
    }

    /// Job `i` ends before its reservation does: the tail is released.
    fn complete(&mut self, i: usize) -> Result<(), ReplayError> {
        let r = self.requests[i];
        let Some(p) = self.placed[i].clone() else { return Ok(()) };
        let ended = p.start + r.runtime;
        self.step(r.id, Op::Release { start: ended, end: p.end, set: p.set.clone() })?;
        if self.options.compress {
            self.compress()?;
        }
        Ok(())
    }

    /// Conservative backfilling's compression: each waiting job, in queue order, gives up
    /// its reservation and takes the earliest one now (never later than before).
    fn compress(&mut self) -> Result<(), ReplayError> {
        let now = self.clock;
        let queue: Vec<usize> = self.waiting.iter().copied().collect();
        for i in queue {
            let Some(p) = self.placed[i].clone() else { continue };
            if p.start <= now {
                self.waiting.remove(&i);
                continue;
            }
            let r = self.requests[i];
            self.step(r.id, Op::Release { start: p.start, end: p.end, set: p.set.clone() })?;
            let found = self.step(r.id, Op::Earliest { ready: now, duration: r.duration, n: r.n })?;
            let frame = match found {
                Outcome::Start(Some(frame)) => frame,
                // Its old window is free again, so a search finds it at the latest.
                _ => TimeFrame { start: p.start, end: p.end, free: p.set.clone() },
            };
            self.waiting.remove(&i);
            self.place(i, frame, false)?;
        }
        Ok(())
    }
}
