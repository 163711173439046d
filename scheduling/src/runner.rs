//! What the replay loop and the policies share: the structure a replay runs on (alone or
//! beside the oracle), why a replay stops, where a job was placed, and the services the
//! loop offers a policy ([`EventLoop`]). The loop implements the trait and the policies
//! call it, so neither depends on the other.

use oracle::{Differential, Divergence, Op, Outcome, Scenario};
use serde::{Deserialize, Serialize};
use structures::{AvailabilityIndex, Error, Kind, RangeSet, Time, TimeFrame};
use traces::workload::Request;

/// A replay in progress, as a policy sees it: the event being handled, the requests, and
/// the ops a policy may make on the structure. Every op goes through the loop, which
/// counts it and checks it against the oracle when the replay is verified.
pub trait EventLoop {
    /// The time of the event being handled.
    fn clock(&self) -> Time;

    /// Request `i`.
    fn request(&self, i: usize) -> Request;

    /// The start request `i` asks for, if it is an advance reservation.
    fn reserved_start(&self, i: usize) -> Option<Time>;

    /// Where job `i` is placed now, if it is.
    fn placement(&self, i: usize) -> Option<&Placement>;

    /// Whether a window ending at `end` ends within the horizon.
    fn ends_within_horizon(&self, end: Time) -> bool;

    /// Job `i`'s window from `start` if it fits there: `check` over `[start, start +
    /// duration)`. `None` also when the window ends beyond the horizon.
    ///
    /// # Errors
    /// The structure refused the op, or (verified) diverged from the oracle.
    fn check(&mut self, i: usize, start: Time) -> Result<Option<TimeFrame>, ReplayError>;

    /// Job `i`'s earliest window from `ready` on: `earliest` (`None` when even a start at
    /// `ready` would end beyond the horizon).
    ///
    /// # Errors
    /// As [`EventLoop::check`].
    fn earliest(&mut self, i: usize, ready: Time) -> Result<Option<TimeFrame>, ReplayError>;

    /// Allocates the lowest `n` free ids of `frame` to job `i`, and schedules its end.
    ///
    /// # Errors
    /// As [`EventLoop::check`].
    fn place(&mut self, i: usize, frame: TimeFrame, reserved: bool) -> Result<(), ReplayError>;

    /// Gives up job `i`'s whole placement, returning it (`None` if it had none).
    ///
    /// # Errors
    /// As [`EventLoop::check`].
    fn unplace(&mut self, i: usize) -> Result<Option<Placement>, ReplayError>;

    /// The slot width of the structure's configuration.
    fn slot(&self) -> Time;

    /// Adds `n` to the policy's count `what` (kept in the run, and its run file).
    fn count(&mut self, what: &'static str, n: u64);

    /// Records that request `i` took `attempts` tries, and waited `wait` past the start it
    /// asked for (`None`: rejected).
    fn tried(&mut self, i: usize, attempts: u64, wait: Option<Time>);

    /// Counts a job no window could be found for before the horizon.
    fn unplaced(&mut self);

    /// rbtree-availability-profile's `resSubmitted` (Algorithm 2): admit advance
    /// reservation `i` at the start it asks for, or count the options it could be offered.
    ///
    /// # Errors
    /// As [`EventLoop::check`].
    fn reserve(&mut self, i: usize, start: Time) -> Result<(), ReplayError>;
}

/// Where a job ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    /// The trace's job number.
    pub id: i64,
    /// Its submit time.
    pub submit: Time,
    /// Its start.
    pub start: Time,
    /// The end of its reservation: start plus requested time.
    pub end: Time,
    /// The ids it holds.
    pub set: RangeSet,
    /// Whether it was an advance reservation.
    pub reserved: bool,
}

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// No index can be built for the workload (a zero capacity).
    #[error("cannot build an index: {0}")]
    Build(Error),
    /// The structure and the oracle disagreed.
    #[error("{0}")]
    Divergence(Box<Divergence>),
    /// An op the scheduler built was refused (a bug in the scheduler or the trace).
    #[error("{0}")]
    Refused(Box<Refusal>),
    /// Options the chosen model cannot run, or a workload it cannot hold, saying why.
    #[error("{0}")]
    Model(String),
}

/// An op a replay's scheduler built that its structure refused: boxed in
/// [`ReplayError`], since the op and the error each hold an id set inline.
#[derive(Debug, thiserror::Error)]
#[error("job {id}: {op:?} was refused: {error}")]
pub struct Refusal {
    /// The job.
    pub id: i64,
    /// The op.
    pub op: Op,
    /// The error.
    pub error: Error,
}

/// A structure alone, or beside the oracle through the differential driver.
pub(crate) enum Runner {
    Plain(Box<dyn AvailabilityIndex>),
    Verified(Box<Differential>),
}

impl Runner {
    /// A fresh `kind` for `scenario`, beside the oracle when `verify`.
    pub(crate) fn build(kind: Kind, scenario: Scenario, verify: bool) -> Result<Self, ReplayError> {
        Ok(if verify {
            Runner::Verified(Box::new(Differential::new(kind, scenario, false).map_err(ReplayError::Build)?))
        } else {
            Runner::Plain(kind.build(scenario.capacity, scenario.config).map_err(ReplayError::Build)?)
        })
    }

    /// Applies `op` for request `id`.
    ///
    /// # Errors
    /// The structure refused it, or (verified) it diverged from the oracle.
    // Inlined into the loop's step: the outcome it returns holds an id set inline, and a
    // call boundary copies it once more.
    #[inline]
    pub(crate) fn step(&mut self, id: i64, op: &Op) -> Result<Outcome, ReplayError> {
        let outcome = match self {
            Runner::Plain(index) => oracle::apply(index.as_mut(), op),
            Runner::Verified(run) => run.step(op.clone()).map_err(ReplayError::Divergence)?,
        };
        match outcome {
            Outcome::Failed(error) => {
                Err(ReplayError::Refused(Box::new(Refusal { id, op: op.clone(), error })))
            }
            outcome => Ok(outcome),
        }
    }

    /// The structure.
    pub(crate) fn index(&self) -> &dyn AvailabilityIndex {
        match self {
            Runner::Plain(index) => index.as_ref(),
            Runner::Verified(run) => run.structure(),
        }
    }
}
