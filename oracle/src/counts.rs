//! The count view: the questions a planner answers when it tracks how many resources
//! are free, not which ones (many production planners, and the slot model of
//! fcfs-eds-slotted-array section 3). Its ops carry counts where the id view's carry sets,
//! its `check` asks whether `n` are free at every instant of a window (and the fewest
//! free), and its `earliest` answers a time.
//!
//! [`Counts`] is its reference: the busy count as a step function, every answer read off
//! it by a scan. It takes only data types from the structures crate and the argument
//! rules of [`rules`], as the id oracle does, and shares nothing with it.

use serde::{Deserialize, Serialize};
use structures::{Config, Error, RangeSet, Time};

use crate::{rules, Op, OpKind};

/// One operation of the count view. On the wire it is spelled as [`Op`] is, with
/// `count` where the id view has `set`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum CountOp {
    /// Whether `n` are free at every instant of the window, and the fewest free.
    Check {
        /// Window start.
        start: Time,
        /// Window end.
        end: Time,
        /// Resources needed.
        n: u32,
    },
    /// The earliest start from `ready` with `n` free throughout `duration`.
    Earliest {
        /// Earliest acceptable start.
        ready: Time,
        /// Window length.
        duration: Time,
        /// Resources needed.
        n: u32,
    },
    /// `count` more busy at every instant of the window.
    Allocate {
        /// Window start.
        start: Time,
        /// Window end.
        end: Time,
        /// How many.
        count: u32,
    },
    /// `count` fewer busy at every instant of the window.
    Release {
        /// Window start.
        start: Time,
        /// Window end.
        end: Time,
        /// How many.
        count: u32,
    },
    /// Moves the present, as [`Op::Advance`].
    Advance {
        /// The new present.
        now: Time,
    },
}

/// A count `check`'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fits {
    /// Whether at least `n` are free at every instant of the window.
    pub fits: bool,
    /// The fewest free at any instant of it.
    pub fewest: u32,
}

/// What a count op returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "value", rename_all = "snake_case")]
pub enum CountOutcome {
    /// A `check` answer.
    Fits(Fits),
    /// An `earliest` answer: the start, or `None` when no window ends within the limit.
    Time(Option<Time>),
    /// An update that succeeded.
    Done,
    /// A refused op. `not_free` and `not_allocated` carry an empty set: there are no ids.
    Failed(Error),
}

impl CountOp {
    /// The count form of an id op: a set becomes its size. `free_frames`, `options` and
    /// `load_frames` speak of ids and have none.
    pub fn of(op: &Op) -> Option<CountOp> {
        let size = |set: &RangeSet| u32::try_from(set.count()).unwrap_or(u32::MAX);
        Some(match op {
            Op::Check { start, end, n } => CountOp::Check { start: *start, end: *end, n: *n },
            Op::Earliest { ready, duration, n } => {
                CountOp::Earliest { ready: *ready, duration: *duration, n: *n }
            }
            Op::Allocate { start, end, set } => {
                CountOp::Allocate { start: *start, end: *end, count: size(set) }
            }
            Op::Release { start, end, set } => {
                CountOp::Release { start: *start, end: *end, count: size(set) }
            }
            Op::Advance { now } => CountOp::Advance { now: *now },
            Op::FreeFrames { .. } | Op::Options { .. } | Op::LoadFrames { .. } => return None,
        })
    }

    /// An id op whose count form this is: a count `k` becomes the ids `0..k`.
    pub fn to_op(&self) -> Op {
        match *self {
            CountOp::Check { start, end, n } => Op::Check { start, end, n },
            CountOp::Earliest { ready, duration, n } => Op::Earliest { ready, duration, n },
            CountOp::Allocate { start, end, count } => {
                Op::Allocate { start, end, set: RangeSet::from_range(0, count) }
            }
            CountOp::Release { start, end, count } => {
                Op::Release { start, end, set: RangeSet::from_range(0, count) }
            }
            CountOp::Advance { now } => Op::Advance { now },
        }
    }

    /// Which operation this is.
    pub fn kind(&self) -> OpKind {
        match self {
            CountOp::Check { .. } => OpKind::Check,
            CountOp::Earliest { .. } => OpKind::Earliest,
            CountOp::Allocate { .. } => OpKind::Allocate,
            CountOp::Release { .. } => OpKind::Release,
            CountOp::Advance { .. } => OpKind::Advance,
        }
    }

    /// The operations the count view has.
    pub const KINDS: [OpKind; 5] =
        [OpKind::Check, OpKind::Earliest, OpKind::Allocate, OpKind::Release, OpKind::Advance];
}

impl CountOutcome {
    /// The error, if the op was refused.
    pub fn refusal(&self) -> Option<&Error> {
        match self {
            CountOutcome::Failed(error) => Some(error),
            _ => None,
        }
    }
}

/// Anything that answers the count view's questions: [`Counts`], or a planner of one's
/// own (an external child that declared count semantics, say).
pub trait CountIndex {
    /// Applies `op` and returns its outcome; a refused op changes nothing.
    fn apply_count(&mut self, op: &CountOp) -> CountOutcome;
}

/// The reference count index: busy counts as a step function from the present on.
#[derive(Debug, Clone)]
pub struct Counts {
    capacity: u32,
    config: Config,
    now: Time,
    /// `(t, busy)`: `busy` resources are busy from `t` until the next entry's `t` (the
    /// last until the end of time). Sorted, the first at `now`.
    steps: Vec<(Time, u32)>,
}

impl Counts {
    /// `capacity` resources, all free from time 0 on.
    ///
    /// # Errors
    /// [`Error::BadConfig`] from [`rules::validate`].
    pub fn new(capacity: u32, config: Config) -> Result<Self, Error> {
        rules::validate(capacity, config)?;
        Ok(Counts { capacity, config, now: 0, steps: vec![(0, 0)] })
    }

    /// The present.
    pub fn now(&self) -> Time {
        self.now
    }

    /// The most resources busy at any instant of `[s, e)`.
    fn most_busy(&self, s: Time, e: Time) -> u32 {
        self.busy_within(s, e).max().unwrap_or(0)
    }

    /// The fewest busy at any instant of `[s, e)`.
    fn least_busy(&self, s: Time, e: Time) -> u32 {
        self.busy_within(s, e).min().unwrap_or(0)
    }

    /// The busy counts of the steps that meet `[s, e)`, with `s` at or after the
    /// present: the one holding `s`, then those starting before `e`.
    fn busy_within(&self, s: Time, e: Time) -> impl Iterator<Item = u32> + '_ {
        let holding = self.steps.partition_point(|&(from, _)| from <= s).saturating_sub(1);
        self.steps[holding..].iter().take_while(move |&&(from, _)| from < e).map(|&(_, busy)| busy)
    }

    /// Adds `delta` (which keeps every count within `0..=capacity`, as the caller
    /// checked) to the busy count over `[s, e)`.
    fn add(&mut self, s: Time, e: Time, delta: i64) {
        self.split(s);
        self.split(e);
        for (t, busy) in &mut self.steps {
            if (s..e).contains(t) {
                *busy = u32::try_from(i64::from(*busy) + delta).expect("the caller checked the bounds");
            }
        }
        self.steps.dedup_by(|later, earlier| later.1 == earlier.1);
    }

    /// Makes `t` a step boundary (if it is after the present).
    fn split(&mut self, t: Time) {
        let at = self.steps.partition_point(|&(from, _)| from <= t);
        if at > 0 && self.steps[at - 1].0 != t {
            let busy = self.steps[at - 1].1;
            self.steps.insert(at, (t, busy));
        }
    }

    /// Whether `n` are free at every instant of `[start, end)`, and the fewest free.
    ///
    /// # Errors
    /// The window's or the count's error, as [`rules`] gives it.
    pub fn check(&self, start: Time, end: Time, n: u32) -> Result<Fits, Error> {
        let (s, e) = rules::window(self.config, self.now, start, end)?;
        rules::count(n, self.capacity)?;
        let fewest = self.capacity - self.most_busy(s, e);
        Ok(Fits { fits: fewest >= n, fewest })
    }

    /// The earliest start from `ready` with `n` free throughout `duration`, or `None`
    /// when no such window ends within the limit.
    ///
    /// # Errors
    /// The search's or the count's error, as [`rules`] gives it.
    pub fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<Time>, Error> {
        rules::search(self.config, self.now, ready, duration)?;
        rules::count(n, self.capacity)?;
        // The answer is `ready` or an instant where the busy count changes: a window
        // that starts strictly between two such instants could start at the earlier one.
        let later = self.steps.iter().map(|&(t, _)| t).filter(|&t| t > ready);
        for t in std::iter::once(ready).chain(later) {
            let fits_in_time =
                t.checked_add(duration).and_then(|end| rules::window(self.config, self.now, t, end).ok());
            // Windows only end later from here on, so the first past the limit is the last.
            let Some((s, e)) = fits_in_time else { return Ok(None) };
            if self.capacity - self.most_busy(s, e) >= n {
                return Ok(Some(t));
            }
        }
        Ok(None)
    }

    fn allocate(&mut self, start: Time, end: Time, count: u32) -> Result<(), Error> {
        let (s, e) = rules::window(self.config, self.now, start, end)?;
        rules::count(count, self.capacity)?;
        if self.capacity - self.most_busy(s, e) < count {
            return Err(Error::NotFree { start, end, busy: RangeSet::new() });
        }
        self.add(s, e, i64::from(count));
        Ok(())
    }

    fn release(&mut self, start: Time, end: Time, count: u32) -> Result<(), Error> {
        let (s, e) = rules::window(self.config, self.now, start, end)?;
        rules::count(count, self.capacity)?;
        if self.least_busy(s, e) < count {
            return Err(Error::NotAllocated { start, end, free: RangeSet::new() });
        }
        self.add(s, e, -i64::from(count));
        Ok(())
    }

    fn advance(&mut self, to: Time) -> Result<(), Error> {
        self.now = rules::advance(self.config, self.now, to)?;
        // The piece holding the new present starts there; those before it are forgotten.
        let holding = self.steps.partition_point(|&(from, _)| from <= self.now) - 1;
        self.steps.drain(..holding);
        self.steps[0].0 = self.now;
        Ok(())
    }

    /// Checks the representation: sorted steps, the first at the present, no two
    /// neighbours alike, no count above the capacity.
    ///
    /// # Errors
    /// What is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.steps.first().map(|&(t, _)| t) != Some(self.now) {
            return Err(format!("the first step is not at the present {}", self.now));
        }
        if let Some(w) = self.steps.windows(2).find(|w| w[0].0 >= w[1].0 || w[0].1 == w[1].1) {
            return Err(format!("steps {:?} and {:?} are out of order or alike", w[0], w[1]));
        }
        match self.steps.iter().find(|&&(_, busy)| busy > self.capacity) {
            Some(step) => Err(format!("{step:?} has more busy than the capacity {}", self.capacity)),
            None => Ok(()),
        }
    }
}

fn outcome<T>(result: Result<T, Error>, wrap: impl FnOnce(T) -> CountOutcome) -> CountOutcome {
    result.map_or_else(CountOutcome::Failed, wrap)
}

impl CountIndex for Counts {
    fn apply_count(&mut self, op: &CountOp) -> CountOutcome {
        match *op {
            CountOp::Check { start, end, n } => outcome(self.check(start, end, n), CountOutcome::Fits),
            CountOp::Earliest { ready, duration, n } => {
                outcome(self.earliest(ready, duration, n), CountOutcome::Time)
            }
            CountOp::Allocate { start, end, count } => {
                outcome(self.allocate(start, end, count), |()| CountOutcome::Done)
            }
            CountOp::Release { start, end, count } => {
                outcome(self.release(start, end, count), |()| CountOutcome::Done)
            }
            CountOp::Advance { now } => outcome(self.advance(now), |()| CountOutcome::Done),
        }
    }
}
