//! The trace stream's source: a plan-only replay of a trace on the reference structure,
//! through a wrapper that logs every index call as an [`Op`] before forwarding it.

use std::cell::RefCell;
use std::rc::Rc;

use oracle::Op;
use structures::{AvailabilityIndex, Config, Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame};

use scheduling::replay::{replay_on, Mode, Options, ReplayError};
use traces::workload::Workload;

/// Forwards every call to the index it wraps, logging it first.
pub struct Recorder {
    inner: Box<dyn AvailabilityIndex>,
    log: Rc<RefCell<Vec<Op>>>,
}

impl Recorder {
    /// Wraps `inner`; the log fills as calls come in.
    pub fn new(inner: Box<dyn AvailabilityIndex>) -> (Self, Rc<RefCell<Vec<Op>>>) {
        let log = Rc::new(RefCell::new(Vec::new()));
        (Recorder { inner, log: Rc::clone(&log) }, log)
    }

    fn log(&self, op: Op) {
        self.log.borrow_mut().push(op);
    }
}

/// The ops of every index call a plan-only replay of `workload` makes on the reference
/// structure (`Kind::REFERENCE`) with `config`: the trace stream.
///
/// # Errors
/// The index cannot be built with `config`, or the replay stops on a refused op.
pub fn record_replay(workload: &Workload, config: Config) -> Result<Vec<Op>, ReplayError> {
    let index = Kind::REFERENCE.build(workload.capacity, config).map_err(ReplayError::Build)?;
    let (recorder, log) = Recorder::new(index);
    let options = Options { mode: Mode::PlanOnly, ..Options::default() };
    drop(replay_on(Box::new(recorder), workload, &options)?);
    Ok(log.take())
}

impl AvailabilityIndex for Recorder {
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
        self.inner.check(start, end, n)
    }

    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.log(Op::Earliest { ready, duration, n });
        self.inner.earliest(ready, duration, n)
    }

    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.log(Op::Allocate { start, end, set: set.clone() });
        self.inner.allocate(start, end, set)
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
        self.inner.size()
    }

    fn last_cost(&self) -> Option<Cost> {
        self.inner.last_cost()
    }

    fn validate(&self) -> Result<(), Invalid> {
        self.inner.validate()
    }
}
