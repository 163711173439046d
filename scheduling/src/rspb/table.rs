//! One machine's time slot table (rspb-priorities-benefit-functions, section 3.4): the
//! CPU reserved in each slot, kept in any registered structure of capacity `CPU_sys`.
//!
//! The thesis's table counts CPU; a structure holds ids. A reservation of `x` % takes
//! `x` ids, and which ones does not matter, so the table keeps one discipline that makes
//! a count exact: at every instant the busy ids are `0..load`. Then the ids free
//! throughout a window (`check`) are `heaviest load..CPU_sys`, and their number is the
//! thesis's `CPU_smallest`. Marking `x` over a window takes, on each stretch of constant
//! load `L`, the ids `L..L + x`; cancelling takes back `L - x..L`. Without the discipline
//! a cancelled reservation could leave the free ids staggered, and `check` would answer
//! less than the count.

use oracle::{Op, Outcome, Scenario};
use structures::{Config, Kind, RangeSet, Time};

use super::model::Cpu;
use super::BrokenInvariant;
use crate::runner::{ReplayError, Runner};

/// A machine's table, through the same ops (and, verified, the same differential
/// driver) as every replay.
pub(crate) struct CpuTable {
    runner: Runner,
    capacity: Cpu,
    /// Ops applied, for the report's work per request.
    pub(crate) ops: u64,
}

/// A stretch `[start, end)` of constant reserved CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stretch {
    pub(crate) start: Time,
    pub(crate) end: Time,
    pub(crate) load: Cpu,
}

impl CpuTable {
    /// An empty table of `capacity` CPU units reaching `horizon` time units ahead, in a
    /// fresh `kind`, beside the oracle when `verify`.
    pub(crate) fn new(kind: Kind, capacity: Cpu, horizon: Time, verify: bool) -> Result<Self, ReplayError> {
        let config = Config { slot: 1, horizon: Some(horizon) };
        let runner = Runner::build(kind, Scenario { capacity, config }, verify)?;
        Ok(Self { runner, capacity, ops: 0 })
    }

    fn step(&mut self, request: u64, op: Op) -> Result<Outcome, ReplayError> {
        self.ops += 1;
        self.runner.step(i64::try_from(request).unwrap_or(i64::MAX), op)
    }

    /// Forgets everything before `now`.
    pub(crate) fn advance(&mut self, now: Time) -> Result<(), ReplayError> {
        self.step(0, Op::Advance { now }).map(drop)
    }

    /// `CPU_smallest(start, end)`: the CPU free throughout the window.
    pub(crate) fn smallest(&mut self, request: u64, start: Time, end: Time) -> Result<Cpu, ReplayError> {
        match self.step(request, Op::Check { start, end, n: 1 })? {
            Outcome::Free(Some(set)) => Ok(Cpu::try_from(set.count()).unwrap_or(Cpu::MAX)),
            _ => Ok(0),
        }
    }

    /// The stretches of constant load that make up `[start, end)`, from the free frames.
    pub(crate) fn stretches(
        &mut self,
        request: u64,
        start: Time,
        end: Time,
    ) -> Result<Vec<Stretch>, ReplayError> {
        let Outcome::Frames(frames) = self.step(request, Op::FreeFrames { from: start, to: end })? else {
            return Ok(vec![Stretch { start, end, load: self.capacity }]);
        };
        // The free count changes where a frame begins or ends.
        let mut changes: Vec<(Time, i64)> = Vec::with_capacity(2 * frames.len() + 2);
        for f in &frames {
            let n = i64::try_from(f.free.count()).unwrap_or(i64::MAX);
            changes.push((f.start, n));
            changes.push((f.end, -n));
        }
        changes.sort_unstable();
        let mut out: Vec<Stretch> = Vec::new();
        let (mut at, mut free, mut k) = (start, 0_i64, 0);
        while at < end {
            while k < changes.len() && changes[k].0 <= at {
                free += changes[k].1;
                k += 1;
            }
            let next = changes.get(k).map_or(end, |c| c.0.min(end));
            let load = self.capacity.saturating_sub(Cpu::try_from(free.max(0)).unwrap_or(Cpu::MAX));
            match out.last_mut() {
                Some(last) if last.load == load => last.end = next,
                _ => out.push(Stretch { start: at, end: next, load }),
            }
            at = next;
        }
        Ok(out)
    }

    /// Reserves `cpu` over `[start, end)`; the caller has checked it is free.
    pub(crate) fn mark(&mut self, request: u64, start: Time, end: Time, cpu: Cpu) -> Result<(), ReplayError> {
        for s in self.stretches(request, start, end)? {
            let set = RangeSet::from_range(s.load, s.load + cpu);
            self.step(request, Op::Allocate { start: s.start, end: s.end, set })?;
        }
        Ok(())
    }

    /// Gives back `cpu` over `[start, end)`, reserved there before.
    pub(crate) fn cancel(
        &mut self,
        request: u64,
        start: Time,
        end: Time,
        cpu: Cpu,
    ) -> Result<(), ReplayError> {
        for s in self.stretches(request, start, end)? {
            let set = RangeSet::from_range(s.load.saturating_sub(cpu), s.load);
            self.step(request, Op::Release { start: s.start, end: s.end, set })?;
        }
        Ok(())
    }

    /// `Σ load · length` over `[start, end)`: the window's average load times its length
    /// (Fig 4.2, line 38, compares machines over the same window).
    pub(crate) fn load_sum(&mut self, request: u64, start: Time, end: Time) -> Result<u64, ReplayError> {
        Ok(self.stretches(request, start, end)?.iter().map(|s| u64::from(s.load) * (s.end - s.start)).sum())
    }

    /// Checks the structure's invariants and the table's discipline over `[start, end)`:
    /// on every stretch of constant load `L`, the ids free throughout are exactly
    /// `L..capacity`.
    pub(crate) fn validate(&mut self, start: Time, end: Time) -> Result<(), BrokenInvariant> {
        self.runner.index().validate().map_err(BrokenInvariant::Structure)?;
        // The check's own query is not the algorithm's work.
        let ops = self.ops;
        let stretches = self.stretches(0, start, end).map_err(BrokenInvariant::Stretches);
        self.ops = ops;
        for s in stretches? {
            let free = self.runner.index().check(s.start, s.end, 1).map_err(BrokenInvariant::Check)?;
            let expected = (s.load < self.capacity).then(|| RangeSet::from_range(s.load, self.capacity));
            if free != expected {
                let (free, expected) = (Box::new(free), Box::new(expected));
                return Err(BrokenInvariant::NotTop { start: s.start, end: s.end, free, expected });
            }
        }
        Ok(())
    }
}
