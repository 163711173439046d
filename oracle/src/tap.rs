//! An index wrapper that logs every call as an [`Op`] before forwarding it, and can carry
//! one planted fault. The log is how a replay's calls become a trace stream and how tests
//! see what a policy asked; the faults are how tests show that the differential driver
//! catches, and names, each kind of wrong structure.

use std::cell::RefCell;
use std::rc::Rc;

use structures::{AvailabilityIndex, Config, Cost, Error, Invalid, RangeSet, Time, TimeFrame};

use crate::Op;

/// The calls made so far, shared with whoever built the tap (a replay owns the index).
pub type Log = Rc<RefCell<Vec<Op>>>;

/// A fault a [`Tap`] plants over the structure it wraps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planted {
    /// Every `check` answers that every id is free, busy or not.
    ClaimsAllFree,
    /// Every `allocate` is refused as of an empty set.
    RefusesAllocate,
    /// A `check` the structure refuses answers "not free" instead.
    HidesCheckErrors,
    /// A `check` the structure refuses is refused with a capacity one too large.
    MisnamesCheckErrors,
    /// Every cost reports one more visit than its worst case.
    CostAboveWorst,
    /// `validate` always fails.
    Invalid,
    /// Every `allocate` succeeds and changes nothing.
    IgnoresAllocate,
    /// `size` counts one record more than the structure holds.
    MiscountsSize,
}

/// Forwards every call to the index it wraps, logging it first, with at most one
/// [`Planted`] fault.
pub struct Tap {
    inner: Box<dyn AvailabilityIndex>,
    log: Log,
    fault: Option<Planted>,
}

impl Tap {
    /// Wraps `inner` unchanged; the log fills as calls come in.
    pub fn new(inner: Box<dyn AvailabilityIndex>) -> (Self, Log) {
        Self::planted(inner, None)
    }

    /// Wraps `inner` with `fault` planted (none with `None`).
    pub fn planted(inner: Box<dyn AvailabilityIndex>, fault: Option<Planted>) -> (Self, Log) {
        let log = Log::default();
        (Tap { inner, log: Rc::clone(&log), fault }, log)
    }

    fn log(&self, op: Op) {
        self.log.borrow_mut().push(op);
    }
}

impl AvailabilityIndex for Tap {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn capacity(&self) -> u32 {
        self.inner.capacity()
    }

    fn config(&self) -> Config {
        self.inner.config()
    }

    fn now(&self) -> Time {
        self.inner.now()
    }

    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        self.log(Op::Check { start, end, n });
        let answer = self.inner.check(start, end, n);
        match (self.fault, answer) {
            (Some(Planted::ClaimsAllFree), Ok(_)) => Ok(Some(RangeSet::from_range(0, self.capacity()))),
            (Some(Planted::HidesCheckErrors), Err(_)) => Ok(None),
            (Some(Planted::MisnamesCheckErrors), Err(_)) => {
                Err(Error::BadCount { n, capacity: self.capacity().saturating_add(1) })
            }
            (_, answer) => answer,
        }
    }

    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.log(Op::Earliest { ready, duration, n });
        self.inner.earliest(ready, duration, n)
    }

    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.log(Op::Allocate { start, end, set: set.clone() });
        match self.fault {
            Some(Planted::RefusesAllocate) => Err(Error::EmptySet),
            Some(Planted::IgnoresAllocate) => Ok(()),
            _ => self.inner.allocate(start, end, set),
        }
    }

    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.log(Op::Release { start, end, set: set.clone() });
        self.inner.release(start, end, set)
    }

    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        self.log(Op::FreeFrames { from, to });
        self.inner.free_frames(from, to)
    }

    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.log(Op::Options { from, to, min_duration, min_n });
        self.inner.options(from, to, min_duration, min_n)
    }

    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.log(Op::LoadFrames { frames: frames.to_vec() });
        self.inner.load_frames(frames)
    }

    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.log(Op::Advance { now });
        self.inner.advance(now)
    }

    fn size(&self) -> usize {
        self.inner.size() + usize::from(self.fault == Some(Planted::MiscountsSize))
    }

    fn last_cost(&self) -> Option<Cost> {
        let cost = self.inner.last_cost()?;
        Some(match self.fault {
            Some(Planted::CostAboveWorst) => Cost { visited: cost.worst.saturating_add(1), ..cost },
            _ => cost,
        })
    }

    fn validate(&self) -> Result<(), Invalid> {
        match self.fault {
            Some(Planted::Invalid) => Err(Invalid::new(self.name(), "broken on purpose")),
            _ => self.inner.validate(),
        }
    }
}
