//! The counting model above the trait: a table of how many resources are reserved at
//! each instant, kept in any registered structure, for the papers whose schedulers count
//! resources per slot rather than naming them (rspb-priorities-benefit-functions,
//! section 3.4, a machine's time slot table of CPU; fcfs-eds-slotted-array, section 3,
//! the `tslot` array of free compute nodes).
//!
//! A structure holds ids. A reservation of `x` takes `x` ids, and which ones does not
//! matter, so the table keeps one discipline that makes a count exact: at every instant
//! the busy ids are `0..load`. Then the ids free throughout a window (`check`) are
//! `heaviest load..capacity`, and their number is the least free count over the window.
//! Marking `x` over a window takes, on each stretch of constant load `L`, the ids
//! `L..L + x`: one allocation per stretch, so a reservation's ids may differ between
//! stretches, as a count allows. Cancelling takes back `L - x..L`. Without the discipline
//! a cancelled reservation could leave the free ids staggered, and `check` would answer
//! less than the count.
//!
//! Verified, a table is checked twice: its structure beside the id oracle, op by op, and
//! the counts it keeps and answers beside the count view's own reference
//! ([`oracle::Counts`]), which knows nothing of the discipline.

use std::collections::BTreeMap;

use oracle::{CountIndex, CountOp, CountOutcome, Counts, Fits, Op, OpKind, Outcome, Scenario};
use structures::{Config, Invalid, Kind, RangeSet, Time};
use thiserror::Error;

use crate::runner::{ReplayError, Runner};

/// A table of reserved counts in a structure, through the same ops (and, verified, the
/// same differential driver) as every replay. `request` arguments name the request an op
/// serves, for errors.
pub struct CountTable {
    runner: Runner,
    /// When verified, the count view's own reference, told every count the table keeps
    /// and asked every count it answers.
    reference: Option<Counts>,
    capacity: u32,
    /// Ops applied, for the report's work per request.
    pub ops: u64,
    /// The same, by kind.
    pub by_kind: BTreeMap<OpKind, u64>,
    /// Planted (feature `planted`): cancellations give back one fewer than asked.
    #[cfg(feature = "planted")]
    short_cancel: bool,
}

/// A stretch `[start, end)` of constant reserved count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stretch {
    /// Its first instant.
    pub start: Time,
    /// Its end (exclusive).
    pub end: Time,
    /// The resources reserved throughout it.
    pub load: u32,
}

impl CountTable {
    /// An empty table of `capacity` resources reaching `horizon` time units ahead, in a
    /// fresh `kind`, beside the oracle when `verify`.
    ///
    /// # Errors
    /// The structure cannot be built with that capacity and horizon.
    pub fn new(kind: Kind, capacity: u32, horizon: Time, verify: bool) -> Result<Self, ReplayError> {
        let config = Config { slot: 1, horizon: Some(horizon) };
        let runner = Runner::build(kind, Scenario { capacity, config }, verify)?;
        let reference =
            verify.then(|| Counts::new(capacity, config)).transpose().map_err(ReplayError::Build)?;
        Ok(Self {
            runner,
            reference,
            capacity,
            ops: 0,
            by_kind: BTreeMap::new(),
            #[cfg(feature = "planted")]
            short_cancel: false,
        })
    }

    /// Plants a miscount: every later cancellation gives back one fewer than asked, as a
    /// table that loses track of its counts would.
    #[cfg(feature = "planted")]
    pub fn plant_short_cancel(&mut self) {
        self.short_cancel = true;
    }

    /// When verified, applies `op` to the count reference and compares its outcome with
    /// the table's, `got`, by the one comparison of outcomes.
    fn against_reference(&mut self, request: u64, op: CountOp, got: CountOutcome) -> Result<(), ReplayError> {
        let Some(reference) = &mut self.reference else { return Ok(()) };
        let expected = reference.apply_count(&op);
        match oracle::disagreement(&got, &expected, CountOutcome::refusal) {
            None => Ok(()),
            Some(_) => Err(ReplayError::Model(format!(
                "request {request}: the count table diverged from the count view's reference on {op:?}: the table {got:?}, the reference {expected:?}"
            ))),
        }
    }

    fn step(&mut self, request: u64, op: &Op) -> Result<Outcome, ReplayError> {
        self.ops += 1;
        *self.by_kind.entry(op.kind()).or_insert(0) += 1;
        self.runner.step(i64::try_from(request).unwrap_or(i64::MAX), op)
    }

    /// Forgets everything before `now`.
    ///
    /// # Errors
    /// The structure refuses (a `now` before its present) or diverges from the oracle.
    pub fn advance(&mut self, now: Time) -> Result<(), ReplayError> {
        self.step(0, &Op::Advance { now })?;
        self.against_reference(0, CountOp::Advance { now }, CountOutcome::Done)
    }

    /// The resources free throughout `[start, end)`: the least free count over the
    /// window (rspb-priorities-benefit-functions' `CPU_smallest`, fcfs-eds-slotted-array's
    /// `min`).
    ///
    /// # Errors
    /// The structure refuses the window or diverges from the oracle.
    pub fn smallest(&mut self, request: u64, start: Time, end: Time) -> Result<u32, ReplayError> {
        let fewest = match self.step(request, &Op::Check { start, end, n: 1 })? {
            Outcome::Free(Some(set)) => u32::try_from(set.count()).unwrap_or(u32::MAX),
            _ => 0,
        };
        let fits = CountOutcome::Fits(Fits { fits: fewest >= 1, fewest });
        self.against_reference(request, CountOp::Check { start, end, n: 1 }, fits)?;
        Ok(fewest)
    }

    /// The stretches of constant load that make up `[start, end)`, from the free frames.
    ///
    /// # Errors
    /// The structure refuses the window or diverges from the oracle.
    pub fn stretches(&mut self, request: u64, start: Time, end: Time) -> Result<Vec<Stretch>, ReplayError> {
        let Outcome::Frames(frames) = self.step(request, &Op::FreeFrames { from: start, to: end })? else {
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
            let load = self.capacity.saturating_sub(u32::try_from(free.max(0)).unwrap_or(u32::MAX));
            match out.last_mut() {
                Some(last) if last.load == load => last.end = next,
                _ => out.push(Stretch { start: at, end: next, load }),
            }
            at = next;
        }
        Ok(out)
    }

    /// Reserves `n` over `[start, end)`; the caller has checked it is free.
    ///
    /// # Errors
    /// The structure refuses (`n` was not free) or diverges from the oracle.
    pub fn mark(&mut self, request: u64, start: Time, end: Time, n: u32) -> Result<(), ReplayError> {
        for s in self.stretches(request, start, end)? {
            let set = RangeSet::from_range(s.load, s.load + n);
            self.step(request, &Op::Allocate { start: s.start, end: s.end, set })?;
        }
        self.against_reference(request, CountOp::Allocate { start, end, count: n }, CountOutcome::Done)
    }

    /// Gives back `n` over `[start, end)`, reserved there before.
    ///
    /// # Errors
    /// The structure refuses (`n` was not reserved) or diverges from the oracle.
    pub fn cancel(&mut self, request: u64, start: Time, end: Time, n: u32) -> Result<(), ReplayError> {
        #[cfg(feature = "planted")]
        let given = if self.short_cancel { n.saturating_sub(1) } else { n };
        #[cfg(not(feature = "planted"))]
        let given = n;
        for s in self.stretches(request, start, end)? {
            let set = RangeSet::from_range(s.load.saturating_sub(given), s.load);
            self.step(request, &Op::Release { start: s.start, end: s.end, set })?;
        }
        self.against_reference(request, CountOp::Release { start, end, count: n }, CountOutcome::Done)
    }

    /// `Σ load · length` over `[start, end)`: the window's average load times its length
    /// (rspb-priorities-benefit-functions, Fig 4.2, line 38, compares machines over the
    /// same window).
    ///
    /// # Errors
    /// The structure refuses the window or diverges from the oracle.
    pub fn load_sum(&mut self, request: u64, start: Time, end: Time) -> Result<u64, ReplayError> {
        Ok(self.stretches(request, start, end)?.iter().map(|s| u64::from(s.load) * (s.end - s.start)).sum())
    }

    /// Checks the structure's invariants and the table's discipline over `[start, end)`:
    /// on every stretch of constant load `L`, the ids free throughout are exactly
    /// `L..capacity`.
    ///
    /// # Errors
    /// The first invariant broken ([`BrokenInvariant`]).
    pub fn validate(&mut self, start: Time, end: Time) -> Result<(), BrokenInvariant> {
        self.runner.index().validate().map_err(BrokenInvariant::Structure)?;
        // The check's own query is not the algorithm's work.
        let (ops, by_kind) = (self.ops, self.by_kind.clone());
        let stretches = self.stretches(0, start, end).map_err(BrokenInvariant::Stretches);
        (self.ops, self.by_kind) = (ops, by_kind);
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

/// How a table broke its invariants.
#[derive(Debug, Error)]
pub enum BrokenInvariant {
    /// The structure's own invariant check failed.
    #[error("{0}")]
    Structure(Invalid),
    /// The table's stretches could not be read: a refused op or a divergence from the
    /// oracle.
    #[error("{0}")]
    Stretches(ReplayError),
    /// The structure refused to check a stretch.
    #[error("{0}")]
    Check(structures::Error),
    /// The ids free over a stretch are not the top of the table, `load..capacity`.
    #[error("ids free over [{start}, {end}) are {free:?}, not the top of the table {expected:?}")]
    NotTop {
        /// The stretch's first instant.
        start: Time,
        /// Its end.
        end: Time,
        /// The ids free throughout it (boxed, as the next: a set is large).
        free: Box<Option<RangeSet>>,
        /// The ids the table's discipline leaves free.
        expected: Box<Option<RangeSet>>,
    },
}
