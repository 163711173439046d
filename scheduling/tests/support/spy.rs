//! An index that wraps any structure, for tests that drive a replay through
//! `scheduling::replay::replay_on`: it logs every call the replay makes as an
//! `oracle::Op`, and can be told to lie in its `check` answers, so that the policy builds
//! an op the structure underneath refuses.

use std::cell::RefCell;
use std::rc::Rc;

use oracle::Op;
use structures::{AvailabilityIndex, Config, Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame};

/// The calls a replay made, shared with the test (the replay owns the index).
pub type Log = Rc<RefCell<Vec<Op>>>;

/// A structure of `kind` behind a logging (and, with `lie`, lying) wrapper.
pub struct Spy {
    inner: Box<dyn AvailabilityIndex>,
    log: Log,
    /// Answer every `check` with every id, busy or not.
    lie: bool,
}

impl Spy {
    /// A fresh `kind` of `capacity` ids under `config`, and the log of its calls.
    pub fn build(kind: Kind, capacity: u32, config: Config, lie: bool) -> (Box<dyn AvailabilityIndex>, Log) {
        let log = Log::default();
        let inner = kind.build(capacity, kind.config_for(config)).unwrap();
        (Box::new(Spy { inner, log: log.clone(), lie }), log)
    }

    fn record(&self, op: Op) {
        self.log.borrow_mut().push(op);
    }
}

impl AvailabilityIndex for Spy {
    fn name(&self) -> &'static str {
        "spy"
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
        self.record(Op::Check { start, end, n });
        let answer = self.inner.check(start, end, n)?;
        Ok(if self.lie { Some(RangeSet::from_range(0, self.capacity())) } else { answer })
    }
    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.record(Op::Earliest { ready, duration, n });
        self.inner.earliest(ready, duration, n)
    }
    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.record(Op::Allocate { start, end, set: set.clone() });
        self.inner.allocate(start, end, set)
    }
    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.record(Op::Release { start, end, set: set.clone() });
        self.inner.release(start, end, set)
    }
    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        self.record(Op::FreeFrames { from, to });
        self.inner.free_frames(from, to)
    }
    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.record(Op::Options { from, to, min_duration, min_n });
        self.inner.options(from, to, min_duration, min_n)
    }
    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.record(Op::LoadFrames { frames: frames.to_vec() });
        self.inner.load_frames(frames)
    }
    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.record(Op::Advance { now });
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
