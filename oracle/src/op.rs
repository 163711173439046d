//! The op vocabulary: one value per trait operation, and its outcome. Tests, fuzz
//! targets, replays and the `resbench ops` stream all speak it.

use serde::{Deserialize, Serialize};
use structures::{AvailabilityIndex, Error, RangeSet, Time, TimeFrame};

/// One operation on an index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// [`AvailabilityIndex::check`].
    Check {
        /// Window start.
        start: Time,
        /// Window end.
        end: Time,
        /// Resources needed.
        n: u32,
    },
    /// [`AvailabilityIndex::earliest`].
    Earliest {
        /// Earliest acceptable start.
        ready: Time,
        /// Window length.
        duration: Time,
        /// Resources needed.
        n: u32,
    },
    /// [`AvailabilityIndex::allocate`].
    Allocate {
        /// Window start.
        start: Time,
        /// Window end.
        end: Time,
        /// Ids to mark busy.
        set: RangeSet,
    },
    /// [`AvailabilityIndex::release`].
    Release {
        /// Window start.
        start: Time,
        /// Window end.
        end: Time,
        /// Ids to mark free.
        set: RangeSet,
    },
    /// [`AvailabilityIndex::free_frames`].
    FreeFrames {
        /// Clip start.
        from: Time,
        /// Clip end.
        to: Time,
    },
    /// [`AvailabilityIndex::options`].
    Options {
        /// Clip start.
        from: Time,
        /// Clip end.
        to: Time,
        /// Shortest option kept.
        min_duration: Time,
        /// Smallest option kept.
        min_n: u32,
    },
    /// [`AvailabilityIndex::load_frames`].
    LoadFrames {
        /// The free space to rebuild from.
        frames: Vec<TimeFrame>,
    },
    /// [`AvailabilityIndex::advance`].
    Advance {
        /// The new present.
        now: Time,
    },
}

/// What an op returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "value", rename_all = "snake_case")]
pub enum Outcome {
    /// A `check` answer.
    Free(Option<RangeSet>),
    /// An `earliest` answer.
    Start(Option<TimeFrame>),
    /// A list of frames or options.
    Frames(Vec<TimeFrame>),
    /// An update that succeeded.
    Done,
    /// A refused op.
    Failed(Error),
}

impl Op {
    /// The op's name as its JSON tag spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Check { .. } => "check",
            Op::Earliest { .. } => "earliest",
            Op::Allocate { .. } => "allocate",
            Op::Release { .. } => "release",
            Op::FreeFrames { .. } => "free_frames",
            Op::Options { .. } => "options",
            Op::LoadFrames { .. } => "load_frames",
            Op::Advance { .. } => "advance",
        }
    }
}

impl Outcome {
    /// Whether the op was refused.
    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::Failed(_))
    }
}

fn outcome<T>(result: Result<T, Error>, wrap: impl FnOnce(T) -> Outcome) -> Outcome {
    result.map_or_else(Outcome::Failed, wrap)
}

/// Applies `op` to `index`.
pub fn apply(index: &mut dyn AvailabilityIndex, op: &Op) -> Outcome {
    match op {
        Op::Check { start, end, n } => outcome(index.check(*start, *end, *n), Outcome::Free),
        Op::Earliest { ready, duration, n } => outcome(index.earliest(*ready, *duration, *n), Outcome::Start),
        Op::Allocate { start, end, set } => outcome(index.allocate(*start, *end, set), |()| Outcome::Done),
        Op::Release { start, end, set } => outcome(index.release(*start, *end, set), |()| Outcome::Done),
        Op::FreeFrames { from, to } => outcome(index.free_frames(*from, *to), Outcome::Frames),
        Op::Options { from, to, min_duration, min_n } => {
            outcome(index.options(*from, *to, *min_duration, *min_n), Outcome::Frames)
        }
        Op::LoadFrames { frames } => outcome(index.load_frames(frames), |()| Outcome::Done),
        Op::Advance { now } => outcome(index.advance(*now), |()| Outcome::Done),
    }
}
