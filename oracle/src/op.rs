//! The op vocabulary: one value per trait operation, its kind, and its outcome. Tests,
//! fuzz targets, replays, benchmarks and the `resbench ops` stream all speak it.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use structures::{AvailabilityIndex, Error, RangeSet, Time, TimeFrame, UnknownName};

/// The operations of [`AvailabilityIndex`], without their arguments: what an [`Op`] is,
/// and how replays, run files and benchmarks name one. Serialised as [`OpKind::name`],
/// the same spelling as an op's `"op"` tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[derive(strum::Display, strum::IntoStaticStr, strum::VariantArray)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum OpKind {
    /// [`AvailabilityIndex::check`].
    Check,
    /// [`AvailabilityIndex::earliest`].
    Earliest,
    /// [`AvailabilityIndex::allocate`].
    Allocate,
    /// [`AvailabilityIndex::release`].
    Release,
    /// [`AvailabilityIndex::free_frames`].
    FreeFrames,
    /// [`AvailabilityIndex::options`].
    Options,
    /// [`AvailabilityIndex::load_frames`].
    LoadFrames,
    /// [`AvailabilityIndex::advance`].
    Advance,
}

impl OpKind {
    /// Every operation, in the trait's order: the measured ones, then the two that build
    /// and move a state (the enum's).
    pub const ALL: &'static [OpKind] = <OpKind as strum::VariantArray>::VARIANTS;

    /// The operations the benchmarks measure one by one, in the order reports list them;
    /// `load_frames` builds their states and `advance` only moves the present.
    pub const MEASURED: [OpKind; 6] = [
        OpKind::Check,
        OpKind::Earliest,
        OpKind::Allocate,
        OpKind::Release,
        OpKind::FreeFrames,
        OpKind::Options,
    ];

    /// The name as an op's JSON tag, run files and benchmark IDs spell it.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl FromStr for OpKind {
    type Err = UnknownName;

    /// The operation of that [`name`](OpKind::name).
    ///
    /// # Errors
    /// [`UnknownName`] for an unknown name, listing the known ones.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        structures::registry::by_name(OpKind::ALL, OpKind::name, "operation", s)
    }
}

/// One operation on an index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// Which operation this is; its name is the op's JSON tag.
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Check { .. } => OpKind::Check,
            Op::Earliest { .. } => OpKind::Earliest,
            Op::Allocate { .. } => OpKind::Allocate,
            Op::Release { .. } => OpKind::Release,
            Op::FreeFrames { .. } => OpKind::FreeFrames,
            Op::Options { .. } => OpKind::Options,
            Op::LoadFrames { .. } => OpKind::LoadFrames,
            Op::Advance { .. } => OpKind::Advance,
        }
    }
}

impl Outcome {
    /// Whether the op was refused.
    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::Failed(_))
    }

    /// The error, if the op was refused.
    pub fn refusal(&self) -> Option<&Error> {
        match self {
            Outcome::Failed(error) => Some(error),
            _ => None,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One op of each kind, so that the tag and the kind are compared for every variant.
    fn one_of_each() -> [Op; 8] {
        let (set, frames) = (RangeSet::from_range(0, 1), Vec::new());
        [
            Op::Check { start: 0, end: 1, n: 1 },
            Op::Earliest { ready: 0, duration: 1, n: 1 },
            Op::Allocate { start: 0, end: 1, set: set.clone() },
            Op::Release { start: 0, end: 1, set },
            Op::FreeFrames { from: 0, to: 1 },
            Op::Options { from: 0, to: 1, min_duration: 0, min_n: 0 },
            Op::LoadFrames { frames },
            Op::Advance { now: 0 },
        ]
    }

    #[test]
    fn a_kind_is_spelled_as_the_op_tag_everywhere() {
        let ops = one_of_each();
        assert_eq!(ops.iter().map(Op::kind).collect::<Vec<_>>(), OpKind::ALL);
        for op in ops {
            let kind = op.kind();
            let tagged: serde_json::Value = serde_json::to_value(&op).unwrap();
            assert_eq!(tagged["op"], kind.name());
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{kind}\""));
            assert_eq!(serde_json::from_str::<OpKind>(&format!("\"{kind}\"")).unwrap(), kind);
            assert_eq!(kind.name().parse(), Ok(kind));
        }
    }

    #[test]
    fn unknown_names_are_refused_with_the_known_ones() {
        let known = "check, earliest, allocate, release, free_frames, options, load_frames, advance";
        let e = "replay".parse::<OpKind>().unwrap_err();
        assert_eq!(e, UnknownName { what: "operation", name: "replay".to_owned(), known: known.to_owned() });
        assert_eq!(e.to_string(), format!("unknown operation \"replay\"; known: {known}"));
        assert_eq!(format!("[{:<8}]", OpKind::Check), "[check   ]");
    }
}
