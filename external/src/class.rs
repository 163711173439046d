//! The classes every op sent to a child falls into, on top of the driver's
//! [`Disagreement`]: the driver compares, this module only names what it found, and adds
//! the three ways a child can fail the protocol itself.

use std::fmt;

use oracle::{CountDifferential, CountOp, CountOutcome, Differential, Disagreement, Op, Outcome};
use serde::Serialize;
use structures::Error;

use super::child::ChildError;
use super::index::Link;
use super::protocol::error_kind;

/// What one op came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Both answered, alike.
    Agree,
    /// Both refused with the same error (or the same kind, where the child gave only
    /// the kind).
    SameRefusal,
    /// Only the child refused.
    OnlyChildRefuses,
    /// Only the oracle refused.
    OnlyOracleRefuses,
    /// Both answered, differently; or both refused, with different errors; or the
    /// answers agreed but the whole free space differs afterwards.
    DifferentAnswers,
    /// The child's line was not a proper answer.
    ProtocolError,
    /// The child reported a failure inside it (an `error` outcome) instead of answering.
    ChildError,
    /// The child exited, or closed its stdout.
    Crash,
    /// The child gave no answer in time.
    Timeout,
}

impl Class {
    /// Every class, in the order tables list them.
    pub const ALL: [Class; 9] = [
        Class::Agree,
        Class::SameRefusal,
        Class::OnlyChildRefuses,
        Class::OnlyOracleRefuses,
        Class::DifferentAnswers,
        Class::ProtocolError,
        Class::ChildError,
        Class::Crash,
        Class::Timeout,
    ];

    /// How tables and messages name it.
    pub fn label(self) -> String {
        self.slug().replace('-', " ")
    }

    /// How options and file names spell it (no name holds a hyphen of its own, so
    /// [`Class::label`] is this with spaces).
    pub fn slug(self) -> &'static str {
        match self {
            Class::Agree => "both-agree",
            Class::SameRefusal => "both-refuse-with-the-same-kind",
            Class::OnlyChildRefuses => "only-the-child-refuses",
            Class::OnlyOracleRefuses => "only-the-oracle-refuses",
            Class::DifferentAnswers => "different-answers",
            Class::ProtocolError => "protocol-error",
            Class::ChildError => "child-reports-an-error",
            Class::Crash => "child-crash",
            Class::Timeout => "timeout",
        }
    }

    /// Whether it is a divergence (everything but the two kinds of agreement).
    pub fn is_divergence(self) -> bool {
        !matches!(self, Class::Agree | Class::SameRefusal)
    }

    /// The class of a child's failure.
    pub fn of_fault(fault: &ChildError) -> Class {
        match fault {
            ChildError::Timeout { .. } => Class::Timeout,
            ChildError::Crash { .. } | ChildError::Spawn { .. } => Class::Crash,
            ChildError::Protocol(_) => Class::ProtocolError,
            ChildError::Reported(_) => Class::ChildError,
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.label())
    }
}

/// One op through the driver, and what it came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Its class.
    pub class: Class,
    /// For a divergence, what differed (or the child's failure).
    pub what: String,
    /// The child's last answer line, as written (for a divergence).
    pub child: Option<String>,
    /// The oracle's answer line (for a divergence the driver reported).
    pub oracle: Option<String>,
    /// For a divergence the driver reported, the part of the answer that differs
    /// ([`differing_field`]); empty otherwise.
    pub field: &'static str,
}

/// Which part of the answers differs: with the class and the op, what tells one bug's
/// symptom from another's.
pub fn differing_field(kind: &Disagreement, got: &Outcome, expected: &Outcome) -> &'static str {
    field_of(kind, got.refusal(), expected.refusal(), || match (got, expected) {
        (Outcome::Free(a), Outcome::Free(b)) if a.is_some() != b.is_some() => "fits",
        (Outcome::Free(_), Outcome::Free(_)) => "free ids",
        (Outcome::Start(Some(a)), Outcome::Start(Some(b))) if a.start != b.start => "start",
        (Outcome::Start(Some(a)), Outcome::Start(Some(b))) if a.end != b.end => "end",
        (Outcome::Start(Some(_)), Outcome::Start(Some(_))) => "free ids",
        (Outcome::Start(_), Outcome::Start(_)) => "found",
        (Outcome::Frames(a), Outcome::Frames(b)) if a.len() != b.len() => "frame count",
        (Outcome::Frames(_), Outcome::Frames(_)) => "frames",
        _ => "answer kind",
    })
}

/// [`differing_field`] for the count view: `fits` or `fewest` for `check`, `start` or
/// `found` for `earliest`.
pub fn differing_count_field(
    kind: &Disagreement,
    got: &CountOutcome,
    expected: &CountOutcome,
) -> &'static str {
    field_of(kind, got.refusal(), expected.refusal(), || match (got, expected) {
        (CountOutcome::Fits(a), CountOutcome::Fits(b)) if a.fits != b.fits => "fits",
        (CountOutcome::Fits(_), CountOutcome::Fits(_)) => "fewest",
        (CountOutcome::Time(Some(_)), CountOutcome::Time(Some(_))) => "start",
        (CountOutcome::Time(_), CountOutcome::Time(_)) => "found",
        _ => "answer kind",
    })
}

/// The differing field of a disagreement, with `answers` naming it when both answered.
fn field_of(
    kind: &Disagreement,
    got: Option<&Error>,
    expected: Option<&Error>,
    answers: impl FnOnce() -> &'static str,
) -> &'static str {
    match kind {
        Disagreement::StateDiffers { .. } => "free space",
        Disagreement::ErrorsDiffer => match (got, expected) {
            (Some(a), Some(b)) if error_kind(a) != error_kind(b) => "error kind",
            _ => "error detail",
        },
        Disagreement::OnlyStructureFailed | Disagreement::OnlyOracleFailed => "refusal",
        Disagreement::Invalid(_) => "validate",
        Disagreement::CostOutOfBounds(_) => "cost",
        Disagreement::SizeDiffers { .. } => "size",
        Disagreement::AnswersDiffer => answers(),
    }
}

/// Applies `op` through `run` (whose structure is the child behind `link`) and classes
/// the result.
pub fn step(run: &mut Differential, link: &Link, op: Op) -> Step {
    let result = run.step(op);
    judge(
        link,
        result.as_ref().map_err(|d| (&d.kind, &d.got, &d.expected)),
        Outcome::refusal,
        differing_field,
    )
}

/// [`step`] for a child with count semantics.
pub fn step_counts(run: &mut CountDifferential, link: &Link, op: CountOp) -> Step {
    let result = run.step(op);
    judge(
        link,
        result.as_ref().map_err(|d| (&d.kind, &d.got, &d.expected)),
        CountOutcome::refusal,
        differing_count_field,
    )
}

/// The class of one op of either view: the agreed outcome, or the driver's divergence
/// (how, the child's outcome, the oracle's), read with the view's `refusal` and
/// `field`.
fn judge<O: Serialize>(
    link: &Link,
    result: Result<&O, Diverged<'_, O>>,
    refusal: fn(&O) -> Option<&Error>,
    field: fn(&Disagreement, &O, &O) -> &'static str,
) -> Step {
    let result = result.map(|o| refusal(o).is_some()).map_err(|(kind, got, expected)| Reported {
        kind,
        got: refusal(got),
        expected: refusal(expected),
        expected_line: record_line(expected),
        field: field(kind, got, expected),
    });
    classify(link, result)
}

/// A divergence as the driver of either view reports it: how, the child's outcome, the
/// oracle's.
type Diverged<'a, O> = (&'a Disagreement, &'a O, &'a O);

/// A divergence the driver reported, in the terms [`classify`] needs.
struct Reported<'a> {
    kind: &'a Disagreement,
    got: Option<&'a Error>,
    expected: Option<&'a Error>,
    expected_line: String,
    field: &'static str,
}

/// An outcome as an answer line: `{"result":…}`.
///
/// # Panics
/// Never: every outcome serialises.
pub fn record_line<T: Serialize>(outcome: &T) -> String {
    /// The answer line's shape, fields in the order the protocol writes them.
    #[derive(Serialize)]
    struct Line<'a, T> {
        result: &'a T,
    }
    serde_json::to_string(&Line { result: outcome }).expect("an outcome serialises")
}

/// The class of one op: `Ok(refused)` when both sides agreed, or the divergence; a
/// fault on `link` (the child failed the protocol) comes first.
fn classify(link: &Link, result: Result<bool, Reported<'_>>) -> Step {
    if let Some(fault) = link.fault() {
        let oracle = result.err().map(|d| d.expected_line);
        // The last answer line was to an earlier op: the fault's message says what came.
        return Step {
            class: Class::of_fault(&fault),
            what: fault.to_string(),
            child: None,
            oracle,
            field: "",
        };
    }
    let agreed = |class| Step { class, what: String::new(), child: None, oracle: None, field: "" };
    let d = match result {
        Ok(refused) => return agreed(if refused { Class::SameRefusal } else { Class::Agree }),
        Err(d) => d,
    };
    let same_kind = match (d.got, d.expected) {
        (Some(a), Some(b)) => error_kind(a) == error_kind(b),
        _ => false,
    };
    let (class, what) = match d.kind {
        Disagreement::ErrorsDiffer if same_kind && link.kind_only() => return agreed(Class::SameRefusal),
        Disagreement::ErrorsDiffer => {
            (Class::DifferentAnswers, "both refused, with different errors".to_owned())
        }
        Disagreement::OnlyStructureFailed => (Class::OnlyChildRefuses, "only the child refused".to_owned()),
        Disagreement::OnlyOracleFailed => (Class::OnlyOracleRefuses, "only the oracle refused".to_owned()),
        Disagreement::AnswersDiffer => (Class::DifferentAnswers, "the answers differ".to_owned()),
        Disagreement::StateDiffers { structure, oracle } => (
            Class::DifferentAnswers,
            format!(
                "the answers agree, but the free space from now to the horizon differs afterwards \
                 (free_frames: the child has {} frames, the oracle {}; the child's answer below is \
                 to that free_frames)",
                structure.len(),
                oracle.len()
            ),
        ),
        other => (Class::DifferentAnswers, format!("{other:?}")),
    };
    Step { class, what, child: link.last_answer(), oracle: Some(d.expected_line), field: d.field }
}
