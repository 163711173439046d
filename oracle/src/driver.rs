//! The one differential driver: applies each op to a structure and to the oracle,
//! compares the outcomes, checks the cost bound, validates, and optionally compares the
//! whole free space. Every test, fuzz target and replay goes through [`Differential`].

use std::fmt;

use serde::{Deserialize, Serialize};
use structures::{AvailabilityIndex, Config, Cost, Error, Kind, SizeUnit, Time, TimeFrame};

use crate::counts::{CountIndex, CountOp, CountOutcome, Counts};
use crate::{apply, Op, OpKind, Oracle, Outcome};

/// What a differential run starts from; with the ops so far, a complete reproducer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Resources in the index.
    pub capacity: u32,
    /// Slot width and horizon, shared by the structure and the oracle.
    pub config: Config,
}

/// How the structure and the oracle disagreed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disagreement {
    /// Both answered, differently.
    AnswersDiffer,
    /// Both refused, with different errors.
    ErrorsDiffer,
    /// Only the structure refused.
    OnlyStructureFailed,
    /// Only the oracle refused.
    OnlyOracleFailed,
    /// The structure's `validate()` failed after the op: its
    /// [`Invalid`](structures::Invalid) message.
    Invalid(String),
    /// A successful `check` or `earliest` recorded no cost, or visited more than its
    /// worst case.
    CostOutOfBounds(Option<Cost>),
    /// The structure's size counts the free set's change points (its registry entry says
    /// so), and the oracle counts a different number: a redundant entry kept, or one
    /// miscounted.
    SizeDiffers {
        /// The structure's [`size`](AvailabilityIndex::size).
        structure: usize,
        /// The oracle's [`change_points`](Oracle::change_points).
        oracle: usize,
    },
    /// The outcomes agree but the whole free spaces (or the present) no longer do.
    StateDiffers {
        /// The structure's free frames from now to the horizon.
        structure: Vec<TimeFrame>,
        /// The oracle's.
        oracle: Vec<TimeFrame>,
    },
}

/// A divergence with everything needed to reproduce it.
#[derive(Debug, Clone)]
pub struct Divergence {
    /// The name of the structure that diverged.
    pub structure: &'static str,
    /// What went wrong.
    pub kind: Disagreement,
    /// The structure's outcome for the last op.
    pub got: Outcome,
    /// The oracle's outcome for the last op.
    pub expected: Outcome,
    /// Where the run started.
    pub scenario: Scenario,
    /// Every op applied, the diverging one last.
    pub ops: Vec<Op>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} diverged from the oracle: {:?}", self.structure, self.kind)?;
        writeln!(f, "  op:       {:?}", self.ops.last())?;
        writeln!(f, "  got:      {:?}", self.got)?;
        writeln!(f, "  expected: {:?}", self.expected)?;
        match self.structure.parse::<Kind>() {
            Ok(kind) => {
                writeln!(f, "reproduce in a test with:")?;
                writeln!(f, "  use oracle::{{Op::*, Scenario}};")?;
                writeln!(f, "  use structures::{{Config, Kind, RangeSet, TimeFrame}};")?;
                writeln!(
                    f,
                    "  oracle::replay(Kind::{kind:?}, {:?}, &{:?}).unwrap();",
                    self.scenario, self.ops
                )?;
            }
            Err(_) => writeln!(f, "scenario: {:?}", self.scenario)?,
        }
        writeln!(f, "or as JSON lines for `resbench ops --structure {}`:", self.structure)?;
        for op in &self.ops {
            writeln!(f, "  {}", serde_json::to_string(op).map_err(|_| fmt::Error)?)?;
        }
        Ok(())
    }
}

impl std::error::Error for Divergence {}

/// How a structure's outcome and the oracle's disagree, if they do: the one comparison
/// of outcomes, for the id view's [`Outcome`] and the count view's [`CountOutcome`]
/// alike (`refusal` reads an outcome's error).
pub fn disagreement<O: PartialEq>(
    got: &O,
    expected: &O,
    refusal: fn(&O) -> Option<&Error>,
) -> Option<Disagreement> {
    match (refusal(got), refusal(expected)) {
        (Some(a), Some(b)) if a != b => Some(Disagreement::ErrorsDiffer),
        (Some(_), Some(_)) => None,
        (Some(_), None) => Some(Disagreement::OnlyStructureFailed),
        (None, Some(_)) => Some(Disagreement::OnlyOracleFailed),
        (None, None) if got != expected => Some(Disagreement::AnswersDiffer),
        (None, None) => None,
    }
}

/// A count index and the reference [`Counts`] driven in lock step, compared by
/// [`disagreement`] after every op (and the reference validated).
pub struct CountDifferential {
    structure: Box<dyn CountIndex>,
    oracle: Counts,
    ops: Vec<CountOp>,
}

/// A count view's divergence: how, the two outcomes and the ops so far.
#[derive(Debug, Clone)]
pub struct CountDivergence {
    /// What went wrong.
    pub kind: Disagreement,
    /// The structure's outcome for the last op.
    pub got: CountOutcome,
    /// The reference's.
    pub expected: CountOutcome,
    /// Every op applied, the diverging one last.
    pub ops: Vec<CountOp>,
}

impl CountDifferential {
    /// `structure` beside a fresh reference of `scenario`'s capacity and configuration.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for a scenario the reference cannot take.
    pub fn new(structure: Box<dyn CountIndex>, scenario: Scenario) -> Result<Self, Error> {
        Ok(CountDifferential {
            structure,
            oracle: Counts::new(scenario.capacity, scenario.config)?,
            ops: Vec::new(),
        })
    }

    /// The reference beside the structure.
    pub fn oracle(&self) -> &Counts {
        &self.oracle
    }

    /// The ops applied so far.
    pub fn ops(&self) -> &[CountOp] {
        &self.ops
    }

    /// Applies `op` to both and returns the agreed outcome.
    ///
    /// # Errors
    /// A [`CountDivergence`] carrying the op sequence so far.
    pub fn step(&mut self, op: CountOp) -> Result<CountOutcome, Box<CountDivergence>> {
        let got = self.structure.apply_count(&op);
        let expected = self.oracle.apply_count(&op);
        self.ops.push(op);
        let kind = disagreement(&got, &expected, CountOutcome::refusal).or_else(|| {
            let invalid = self.oracle.validate().err()?;
            Some(Disagreement::Invalid(format!("the reference itself: {invalid}")))
        });
        match kind {
            None => Ok(got),
            Some(kind) => Err(Box::new(CountDivergence { kind, got, expected, ops: self.ops.clone() })),
        }
    }
}

/// Without `thorough`, how often (in ops) the driver validates the structure.
pub const VALIDATE_EVERY: usize = 1024;

/// A structure and the oracle driven in lock step.
pub struct Differential {
    scenario: Scenario,
    structure: Box<dyn AvailabilityIndex>,
    oracle: Oracle,
    ops: Vec<Op>,
    thorough: bool,
    /// The whole free space is compared up to here at most.
    state_until: Time,
    /// Whether the structure's size counts change points (checked in thorough runs).
    sized: bool,
}

impl Differential {
    /// A fresh structure of `kind` beside a fresh oracle. Outcomes and costs are compared
    /// after every op. `thorough` (tests, fuzzing) also validates the structure and
    /// compares the whole free space after every op, and the size when the registry says
    /// it counts change points; otherwise (long replays, where both are linear in the
    /// state) the structure is validated every [`VALIDATE_EVERY`] ops.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for a scenario no index can be built with.
    /// A structure that needs a horizon gets the default one if the scenario has none
    /// (see [`Kind::config_for`]); the oracle runs with the same.
    pub fn new(kind: Kind, scenario: Scenario, thorough: bool) -> Result<Self, Error> {
        let run =
            Self::with_structure(kind.build(scenario.capacity, kind.config_for(scenario.config))?, thorough)?;
        Ok(match kind.spec().size_unit {
            SizeUnit::ChangePoints(_) => run.counting_change_points(),
            SizeUnit::Own(_) => run,
        })
    }

    /// Any implementation of the trait (a structure of your own, say), fresh, beside an
    /// oracle of the same capacity and configuration.
    ///
    /// # Errors
    /// [`Error::BadConfig`] if the oracle cannot be built with the structure's settings.
    pub fn with_structure(structure: Box<dyn AvailabilityIndex>, thorough: bool) -> Result<Self, Error> {
        let scenario = Scenario { capacity: structure.capacity(), config: structure.config() };
        Ok(Self {
            scenario,
            structure,
            oracle: Oracle::new(scenario.capacity, scenario.config)?,
            ops: Vec::new(),
            thorough,
            state_until: Time::MAX,
            sized: false,
        })
    }

    /// Compares the whole free space up to `until` at most (the largest time a structure
    /// with a narrower time domain can state), rather than up to the limit.
    pub fn with_state_until(mut self, until: Time) -> Self {
        self.state_until = until;
        self
    }

    /// Also compares, in thorough runs, the structure's size with the oracle's count of
    /// the free set's change points ([`Oracle::change_points`]): for a structure whose
    /// size counts them, keeping no redundant entry.
    pub fn counting_change_points(mut self) -> Self {
        self.sized = true;
        self
    }

    /// The structure under test, for reading its costs.
    pub fn structure(&self) -> &dyn AvailabilityIndex {
        self.structure.as_ref()
    }

    /// The oracle beside it.
    pub fn oracle(&self) -> &Oracle {
        &self.oracle
    }

    /// Applies `op` to both and returns the agreed outcome.
    ///
    /// # Errors
    /// A [`Divergence`] carrying the op sequence so far.
    pub fn step(&mut self, op: Op) -> Result<Outcome, Box<Divergence>> {
        let op_kind = op.kind();
        let got = apply(self.structure.as_mut(), &op);
        let expected = apply(&mut self.oracle, &op);
        self.ops.push(op);
        let kind = disagreement(&got, &expected, Outcome::refusal)
            .or_else(|| self.cost_problem(op_kind, &got))
            .or_else(|| self.validation_problem())
            .or_else(|| self.state_problem())
            .or_else(|| self.size_problem());
        match kind {
            None => Ok(got),
            Some(kind) => Err(Box::new(Divergence {
                structure: self.structure.name(),
                kind,
                got,
                expected,
                scenario: self.scenario,
                ops: self.ops.clone(),
            })),
        }
    }

    /// Only `check` and `earliest` record a cost, and only when they answer.
    fn cost_problem(&self, op: OpKind, got: &Outcome) -> Option<Disagreement> {
        if !matches!(op, OpKind::Check | OpKind::Earliest) || got.is_failure() {
            return None;
        }
        let cost = self.structure.last_cost();
        match cost {
            Some(c) if c.visited <= c.worst => None,
            _ => Some(Disagreement::CostOutOfBounds(cost)),
        }
    }

    fn validation_problem(&self) -> Option<Disagreement> {
        if !self.thorough && !self.ops.len().is_multiple_of(VALIDATE_EVERY) {
            return None;
        }
        self.structure.validate().err().map(|e| Disagreement::Invalid(e.to_string()))
    }

    fn state_problem(&self) -> Option<Disagreement> {
        if !self.thorough {
            return None;
        }
        if let Err(message) = self.oracle.validate() {
            return Some(Disagreement::Invalid(format!("the oracle itself: {message}")));
        }
        let now = self.oracle.now();
        let limit = self.oracle.limit().min(self.state_until);
        let frames = |index: &dyn AvailabilityIndex| {
            (index.now(), if now < limit { index.free_frames(now, limit) } else { Ok(Vec::new()) })
        };
        let (structure, oracle) = (frames(self.structure.as_ref()), frames(&self.oracle));
        (structure != oracle).then(|| Disagreement::StateDiffers {
            structure: structure.1.unwrap_or_default(),
            oracle: oracle.1.unwrap_or_default(),
        })
    }

    /// A structure whose size counts change points holds as many as the oracle finds
    /// (thorough runs only: counting them is quadratic in the oracle's state).
    fn size_problem(&self) -> Option<Disagreement> {
        if !(self.thorough && self.sized) {
            return None;
        }
        let (structure, oracle) = (self.structure.size(), self.oracle.change_points());
        (structure != oracle).then_some(Disagreement::SizeDiffers { structure, oracle })
    }
}

/// Replays `ops` on a fresh structure of `kind` beside the oracle, comparing the whole
/// state after every op: the form in which reproducers become regression tests.
///
/// # Errors
/// The first [`Divergence`].
///
/// # Panics
/// If the scenario's capacity or configuration is invalid (a reproducer never has one).
pub fn replay(kind: Kind, scenario: Scenario, ops: &[Op]) -> Result<Vec<Outcome>, Box<Divergence>> {
    let mut run = Differential::new(kind, scenario, true).expect("a valid scenario");
    ops.iter().map(|op| run.step(op.clone())).collect()
}
