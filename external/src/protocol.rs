//! The external protocol's messages (docs/external-protocol.md): the hello resbench
//! sends, the welcome the child answers, and the answer line to every op, read strictly
//! enough that a wrong answer type or a malformed line is a protocol error, not a
//! divergence.

use std::collections::BTreeSet;

use oracle::{CountOp, CountOutcome, Fits, Op, OpKind, Outcome, Scenario};
use serde::{Deserialize, Serialize};
use structures::{Cost, Error, RangeSet, Time, TimeFrame};

/// The protocol's name, as the hello and the welcome spell it.
pub const PROTOCOL: &str = "resbench-external";

/// The protocol version this build speaks.
pub const VERSION: u32 = 1;

/// The first line resbench sends: who it is and the index the child must build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// Always [`PROTOCOL`].
    pub protocol: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// Resources; ids are `0..capacity`.
    pub capacity: u32,
    /// Slot width (1 for continuous time).
    pub slot: Time,
    /// Horizon past the slot holding the present, or `null` for all of `u64` time.
    pub horizon: Option<Time>,
}

impl Hello {
    /// The hello for an index of `scenario`'s capacity and configuration.
    pub fn new(scenario: Scenario) -> Self {
        Hello {
            protocol: PROTOCOL.to_owned(),
            version: VERSION,
            capacity: scenario.capacity,
            slot: scenario.config.slot,
            horizon: scenario.config.horizon,
        }
    }
}

/// The child's answer to the hello, as sent: either a name and the operations it
/// supports, or an error saying why it cannot build that index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Welcome {
    /// Must be [`PROTOCOL`].
    pub protocol: String,
    /// The version the child speaks; must be [`VERSION`].
    pub version: u32,
    /// The structure's name, for messages and tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The operations it answers, by [`OpKind::name`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supports: Vec<String>,
    /// Why it refuses this index (a capacity or configuration it cannot take).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What its answers mean: ids (the default) or counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantics: Option<Semantics>,
    /// The times it can hold, when narrower than all of `u64`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeDomain>,
}

/// The times a child can hold: a largest one, and whether they are integers or floats
/// (a float holds every integer up to 2^53 exactly).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeDomain {
    /// The largest time (a signed 64-bit type's is 2^63 - 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Time>,
    /// `"integer"` (the default) or `"float"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TimeKind>,
}

/// How a child holds times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeKind {
    /// Integers: every time up to the largest.
    Integer,
    /// Binary64 floats: integers are exact up to 2^53 only.
    Float,
}

impl TimeDomain {
    /// The largest time the child holds exactly.
    pub fn largest(self) -> Time {
        let exact = match self.kind {
            Some(TimeKind::Float) => 1 << 53,
            _ => Time::MAX,
        };
        self.max.unwrap_or(Time::MAX).min(exact)
    }
}

/// What a child's answers mean.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Semantics {
    /// Which ids are free: the [`AvailabilityIndex`](structures::AvailabilityIndex) view.
    #[default]
    Ids,
    /// How many are free: the count view ([`oracle::counts`]).
    Counts,
}

/// A welcome that passed every check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Agreed {
    /// The child's name.
    pub name: String,
    /// The operations it answers.
    pub supports: BTreeSet<OpKind>,
    /// Whether it takes [`Reset`] messages (it lists [`RESET`] among `supports`), so
    /// one child can serve many indexes.
    pub reset: bool,
    /// What its answers mean.
    pub semantics: Semantics,
    /// The largest time it holds exactly ([`TimeDomain::largest`]; `u64::MAX` when it
    /// declared none).
    pub largest_time: Time,
}

/// How a welcome's `supports` names the [`Reset`] message.
pub const RESET: &str = "reset";

/// The message that gives a child which supports it a fresh index, as a hello would,
/// without starting a new process. It is answered like an op: `done`, or a refusal
/// (`bad_config`) of an index the child cannot build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reset {
    /// Always [`RESET`].
    pub op: &'static str,
    /// Resources; ids are `0..capacity`.
    pub capacity: u32,
    /// Slot width (1 for continuous time).
    pub slot: Time,
    /// Horizon past the slot holding the present, or `null` for all of `u64` time.
    pub horizon: Option<Time>,
}

impl Reset {
    /// The reset to an index of `scenario`'s capacity and configuration.
    pub fn new(scenario: Scenario) -> Self {
        Reset {
            op: RESET,
            capacity: scenario.capacity,
            slot: scenario.config.slot,
            horizon: scenario.config.horizon,
        }
    }
}

/// Reads the answer to a [`Reset`]: `Ok(None)` when done, `Ok(Some(reason))` when the
/// child refused the index (its `bad_config` reason, or the kind alone).
///
/// # Errors
/// A [`ReplyError`] for any other line, which leaves the child of no further use.
pub fn read_reset_reply(line: &str) -> Result<Option<String>, ReplyError> {
    let parsed: Line = serde_json::from_str(line)
        .map_err(|e| ReplyError::NotARecord { why: e.to_string(), line: clip(line, 200) })?;
    match parsed.result {
        Answer::Done => Ok(None),
        Answer::Failed(Refusal::Full(Error::BadConfig { reason })) => Ok(Some(reason)),
        Answer::Failed(Refusal::Kind(kind)) if kind == "bad_config" => Ok(Some(kind)),
        Answer::Error(message) => Err(ReplyError::Reported { message: clip(&message, 1000) }),
        _ => Err(ReplyError::NotARecord {
            why: "a reset is answered with \"done\" or a bad_config refusal".into(),
            line: clip(line, 200),
        }),
    }
}

/// Why a handshake failed, before any op was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    /// The first line is not a welcome.
    #[error("protocol error: the child's first line is not a welcome ({why}): {line}")]
    NotAWelcome {
        /// What the JSON reader said.
        why: String,
        /// The line, cut to 200 characters.
        line: String,
    },
    /// A welcome of another protocol.
    #[error("protocol error: the child speaks {0:?}, not {PROTOCOL:?}")]
    WrongProtocol(String),
    /// A welcome of another version.
    #[error(
        "version mismatch: resbench speaks {PROTOCOL} version {VERSION}, the child answered version {0}"
    )]
    Version(u32),
    /// The child cannot build this index.
    #[error("the child refused the index: {0}")]
    Refused(String),
    /// A welcome without a name, naming an unknown operation, or supporting none.
    #[error("protocol error: {0}")]
    BadWelcome(String),
}

/// Cuts `line` to `n` characters for a message.
pub fn clip(line: &str, n: usize) -> String {
    match line.char_indices().nth(n) {
        Some((at, _)) => format!("{}… ({} bytes)", &line[..at], line.len()),
        None => line.to_owned(),
    }
}

impl Welcome {
    /// Reads and checks a welcome line.
    ///
    /// # Errors
    /// A [`HandshakeError`] naming what is wrong, the version first.
    pub fn read(line: &str) -> Result<Agreed, HandshakeError> {
        let welcome: Welcome = serde_json::from_str(line)
            .map_err(|e| HandshakeError::NotAWelcome { why: e.to_string(), line: clip(line, 200) })?;
        if welcome.protocol != PROTOCOL {
            return Err(HandshakeError::WrongProtocol(welcome.protocol));
        }
        if welcome.version != VERSION {
            return Err(HandshakeError::Version(welcome.version));
        }
        if let Some(error) = welcome.error {
            return Err(HandshakeError::Refused(error));
        }
        let name =
            welcome.name.ok_or_else(|| HandshakeError::BadWelcome("the welcome has no name".into()))?;
        let reset = welcome.supports.iter().any(|s| s == RESET);
        let supports = welcome
            .supports
            .iter()
            .filter(|s| *s != RESET)
            .map(|s| s.parse::<OpKind>())
            .collect::<Result<BTreeSet<_>, _>>()
            .map_err(|e| HandshakeError::BadWelcome(format!("in \"supports\": {e}")))?;
        if supports.is_empty() {
            return Err(HandshakeError::BadWelcome("the welcome supports no operation".into()));
        }
        let semantics = welcome.semantics.unwrap_or_default();
        if let Some(kind) =
            supports.iter().find(|k| semantics == Semantics::Counts && !CountOp::KINDS.contains(k))
        {
            return Err(HandshakeError::BadWelcome(format!(
                "\"supports\" names {kind}, which the count semantics does not have (it has {})",
                CountOp::KINDS.map(OpKind::name).join(", ")
            )));
        }
        let largest_time = welcome.time.unwrap_or_default().largest();
        Ok(Agreed { name, supports, reset, semantics, largest_time })
    }
}

/// The kinds of [`Error`], as its JSON spells them: what a refusal must carry.
pub const ERROR_KINDS: [&str; 10] = [
    "empty_window",
    "bad_count",
    "empty_set",
    "id_out_of_range",
    "not_free",
    "not_allocated",
    "before_past",
    "beyond_horizon",
    "overflow",
    "bad_config",
];

/// The kind of `error`: its JSON tag.
pub fn error_kind(error: &Error) -> &'static str {
    match error {
        Error::EmptyWindow { .. } => "empty_window",
        Error::BadCount { .. } => "bad_count",
        Error::EmptySet => "empty_set",
        Error::IdOutOfRange { .. } => "id_out_of_range",
        Error::NotFree { .. } => "not_free",
        Error::NotAllocated { .. } => "not_allocated",
        Error::BeforePast { .. } => "before_past",
        Error::BeyondHorizon { .. } => "beyond_horizon",
        Error::Overflow { .. } => "overflow",
        Error::BadConfig { .. } => "bad_config",
    }
}

/// An error of `kind` with empty details, standing for a refusal that gave only its kind.
fn of_kind(kind: &str) -> Option<Error> {
    let (start, end, time, n) = (0, 0, 0, 0);
    Some(match kind {
        "empty_window" => Error::EmptyWindow { start, end },
        "bad_count" => Error::BadCount { n, capacity: 0 },
        "empty_set" => Error::EmptySet,
        "id_out_of_range" => Error::IdOutOfRange { id: 0, capacity: 0 },
        "not_free" => Error::NotFree { start, end, busy: RangeSet::new() },
        "not_allocated" => Error::NotAllocated { start, end, free: RangeSet::new() },
        "before_past" => Error::BeforePast { time, now: 0 },
        "beyond_horizon" => Error::BeyondHorizon { end, limit: 0 },
        "overflow" => Error::Overflow { start, duration: 0 },
        "bad_config" => Error::BadConfig { reason: String::new() },
        _ => return None,
    })
}

/// A refusal: the full error as `resbench ops` prints it, or only its kind.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Refusal {
    Full(Error),
    Kind(String),
}

/// An answer line's `result`: [`Outcome`], with refusals that may give only their kind.
#[derive(Debug, Deserialize)]
#[serde(tag = "outcome", content = "value", rename_all = "snake_case")]
enum Answer {
    Free(Option<RangeSet>),
    Start(Option<TimeFrame>),
    Frames(Vec<TimeFrame>),
    Done,
    Failed(Refusal),
    Fits(Fits),
    Time(Option<Time>),
    /// The child failed inside (an exception): not an answer, but it goes on.
    Error(String),
}

/// One answer line.
#[derive(Debug, Deserialize)]
struct Line {
    result: Answer,
    #[serde(default)]
    cost: Option<Cost>,
}

/// A checked answer to one op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// What the child returned; a refusal that gave only its kind holds an error of that
    /// kind with empty details.
    pub outcome: Outcome,
    /// Whether the refusal gave only its kind (its details are then not compared).
    pub kind_only: bool,
    /// The work the child reported, if any.
    pub cost: Option<Cost>,
}

/// The outcome an op must answer with when it is not refused.
pub fn expected_outcome(kind: OpKind, semantics: Semantics) -> &'static str {
    match kind {
        OpKind::Check if semantics == Semantics::Counts => "fits",
        OpKind::Earliest if semantics == Semantics::Counts => "time",
        OpKind::Check => "free",
        OpKind::Earliest => "start",
        OpKind::FreeFrames | OpKind::Options => "frames",
        OpKind::Allocate | OpKind::Release | OpKind::LoadFrames | OpKind::Advance => "done",
    }
}

/// Why an answer line is a protocol error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    /// Not JSON, or not an answer record.
    #[error("the answer is not a record ({why}): {line}")]
    NotARecord {
        /// What the parser said.
        why: String,
        /// The start of the line ([`clip`]).
        line: String,
    },
    /// A refusal of a kind the protocol does not know.
    #[error("unknown error kind {kind:?}; known: {}", ERROR_KINDS.join(", "))]
    UnknownKind {
        /// The kind it gave.
        kind: String,
    },
    /// An outcome of the wrong type for the op.
    #[error("{op} answered with outcome {got:?}; it needs {wanted:?} or \"failed\"")]
    WrongOutcome {
        /// The op's kind.
        op: OpKind,
        /// The outcome it answered with.
        got: &'static str,
        /// The outcome it needs ([`expected_outcome`]).
        wanted: &'static str,
    },
    /// The child reported an internal failure (an `error` outcome) instead of answering.
    #[error("the child reported an internal error: {message}")]
    Reported {
        /// What it said, cut to 1,000 characters.
        message: String,
    },
    /// A cost visiting more entries than its worst case.
    #[error("cost visits {visited} entries, more than its worst case {worst}")]
    CostAboveWorst {
        /// Entries visited.
        visited: u64,
        /// The worst case.
        worst: u64,
    },
}

/// Reads the answer line to `op`.
///
/// # Errors
/// A [`ReplyError`]: [`ReplyError::Reported`] for the child's report of an internal
/// failure; otherwise a protocol error: not JSON, not a record, an outcome of the wrong
/// type for the op, an unknown error kind, or a cost visiting more than its worst case.
pub fn read_reply(op: &Op, line: &str) -> Result<Reply, ReplyError> {
    let (answer, cost) = read_answer(op.kind(), Semantics::Ids, line)?;
    let (outcome, kind_only) = match answer {
        Err((error, kind_only)) => (Outcome::Failed(error), kind_only),
        Ok(Answer::Free(set)) => (Outcome::Free(set), false),
        Ok(Answer::Start(frame)) => (Outcome::Start(frame), false),
        Ok(Answer::Frames(frames)) => (Outcome::Frames(frames), false),
        Ok(_) => (Outcome::Done, false),
    };
    Ok(Reply { outcome, kind_only, cost })
}

/// Reads an answer line to an op of `kind` from a child of `semantics`: its result (a
/// refusal as its error, and whether it gave only the kind) and its cost. What the
/// result holds is the outcome `kind` needs, or `done`.
///
/// # Errors
/// As [`read_reply`].
fn read_answer(
    kind: OpKind,
    semantics: Semantics,
    line: &str,
) -> Result<(Checked, Option<Cost>), ReplyError> {
    let parsed: Line = serde_json::from_str(line)
        .map_err(|e| ReplyError::NotARecord { why: e.to_string(), line: clip(line, 200) })?;
    let answer = match parsed.result {
        Answer::Error(message) => return Err(ReplyError::Reported { message: clip(&message, 1000) }),
        Answer::Failed(Refusal::Full(error)) => Err((error, false)),
        Answer::Failed(Refusal::Kind(kind)) => {
            Err((of_kind(&kind).ok_or(ReplyError::UnknownKind { kind })?, true))
        }
        answer if answer.name() == expected_outcome(kind, semantics) => Ok(answer),
        answer => return Err(wrong_outcome(kind, answer.name(), semantics)),
    };
    Ok((answer, checked_cost(parsed.cost)?))
}

/// An answer of the outcome its op needs, or a refusal: its error, and whether it gave
/// only the kind.
type Checked = Result<Answer, (Error, bool)>;

impl Answer {
    /// The outcome's name, as the line spells it.
    fn name(&self) -> &'static str {
        match self {
            Answer::Free(_) => "free",
            Answer::Start(_) => "start",
            Answer::Frames(_) => "frames",
            Answer::Done => "done",
            Answer::Failed(_) => "failed",
            Answer::Fits(_) => "fits",
            Answer::Time(_) => "time",
            Answer::Error(_) => "error",
        }
    }
}

/// The protocol error of an answer with outcome `got` to an op of `kind`.
fn wrong_outcome(kind: OpKind, got: &'static str, semantics: Semantics) -> ReplyError {
    ReplyError::WrongOutcome { op: kind, got, wanted: expected_outcome(kind, semantics) }
}

/// `cost`, unless it visits more than its worst case.
fn checked_cost(cost: Option<Cost>) -> Result<Option<Cost>, ReplyError> {
    match cost {
        Some(c) if c.visited > c.worst => {
            Err(ReplyError::CostAboveWorst { visited: c.visited, worst: c.worst })
        }
        _ => Ok(cost),
    }
}

/// A checked answer to one op of the count view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountReply {
    /// What the child returned; a refusal that gave only its kind holds an error of that
    /// kind with empty details.
    pub outcome: CountOutcome,
    /// Whether the refusal gave only its kind.
    pub kind_only: bool,
}

/// Reads the answer line to `op`, of a child with count semantics.
///
/// # Errors
/// As [`read_reply`], with `fits` and `time` the outcomes `check` and `earliest` need.
pub fn read_count_reply(op: &CountOp, line: &str) -> Result<CountReply, ReplyError> {
    let (answer, _) = read_answer(op.kind(), Semantics::Counts, line)?;
    let (outcome, kind_only) = match answer {
        Err((error, kind_only)) => (CountOutcome::Failed(error), kind_only),
        Ok(Answer::Fits(fits)) => (CountOutcome::Fits(fits), false),
        Ok(Answer::Time(time)) => (CountOutcome::Time(time), false),
        Ok(_) => (CountOutcome::Done, false),
    };
    Ok(CountReply { outcome, kind_only })
}
