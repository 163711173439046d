//! The driver classifies every divergence: a deliberately faulty structure (a correct
//! one with one fault switched on) must be caught, and named the right way.

use oracle::{Differential, Disagreement, Op, Outcome};
use structures::{AvailabilityIndex, Config, Cost, Error, Invalid, RangeSet, RbTreeProfile, Time, TimeFrame};

#[derive(Clone, Copy, PartialEq)]
enum Fault {
    None,
    WrongAnswer,
    FailsAlone,
    SucceedsAlone,
    WrongError,
    CostAboveWorst,
    Invalid,
    SilentAllocate,
}

struct Faulty {
    inner: RbTreeProfile,
    fault: Fault,
}

impl AvailabilityIndex for Faulty {
    fn name(&self) -> &'static str {
        "faulty"
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
        match self.fault {
            Fault::WrongAnswer => Ok(Some(RangeSet::from_range(0, 1))),
            Fault::SucceedsAlone if n == 0 => Ok(None),
            Fault::WrongError if n == 0 => Err(Error::BadCount { n, capacity: 99 }),
            _ => self.inner.check(start, end, n),
        }
    }
    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.inner.earliest(ready, duration, n)
    }
    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        match self.fault {
            Fault::FailsAlone => Err(Error::EmptySet),
            Fault::SilentAllocate => Ok(()),
            _ => self.inner.allocate(start, end, set),
        }
    }
    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.inner.release(start, end, set)
    }
    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        self.inner.free_frames(from, to)
    }
    fn options(&self, from: Time, to: Time, d: Time, n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.inner.options(from, to, d, n)
    }
    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.inner.load_frames(frames)
    }
    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.inner.advance(now)
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn last_cost(&self) -> Option<Cost> {
        let cost = self.inner.last_cost()?;
        Some(if self.fault == Fault::CostAboveWorst {
            Cost { visited: cost.worst + 1, ..cost }
        } else {
            cost
        })
    }
    fn validate(&self) -> Result<(), Invalid> {
        if self.fault == Fault::Invalid {
            return Err(Invalid::new(self.name(), "broken on purpose"));
        }
        self.inner.validate()
    }
}

fn driver(fault: Fault, thorough: bool) -> Differential {
    let inner = RbTreeProfile::new(4, Config::default()).unwrap();
    Differential::with_structure(Box::new(Faulty { inner, fault }), thorough).unwrap()
}

fn allocate() -> Op {
    Op::Allocate { start: 0, end: 10, set: RangeSet::from_range(0, 2) }
}

fn check(n: u32) -> Op {
    Op::Check { start: 0, end: 5, n }
}

/// The disagreement the driver reports for `ops` applied in order.
fn verdict(fault: Fault, thorough: bool, ops: &[Op]) -> Option<Disagreement> {
    let mut run = driver(fault, thorough);
    ops.iter().find_map(|op| run.step(op.clone()).err()).map(|d| d.kind)
}

#[test]
fn a_correct_structure_agrees_even_when_both_refuse_alike() {
    let mut run = driver(Fault::None, true);
    assert_eq!(run.step(allocate()).unwrap(), Outcome::Done);
    let both_refuse = run.step(check(0)).unwrap();
    assert_eq!(both_refuse, Outcome::Failed(Error::BadCount { n: 0, capacity: 4 }));
}

#[test]
fn each_fault_is_caught_and_classified() {
    assert_eq!(
        verdict(Fault::WrongAnswer, false, &[allocate(), check(1)]),
        Some(Disagreement::AnswersDiffer)
    );
    assert_eq!(verdict(Fault::FailsAlone, false, &[allocate()]), Some(Disagreement::OnlyStructureFailed));
    assert_eq!(verdict(Fault::SucceedsAlone, false, &[check(0)]), Some(Disagreement::OnlyOracleFailed));
    assert_eq!(verdict(Fault::WrongError, false, &[check(0)]), Some(Disagreement::ErrorsDiffer));
    assert!(matches!(
        verdict(Fault::CostAboveWorst, false, &[check(1)]),
        Some(Disagreement::CostOutOfBounds(_))
    ));
    assert_eq!(
        verdict(Fault::Invalid, true, &[check(1)]),
        Some(Disagreement::Invalid("broken on purpose".into()))
    );
}

#[test]
fn without_thorough_checks_validation_is_sampled() {
    let ops: Vec<Op> = (0..oracle::VALIDATE_EVERY).map(|_| check(1)).collect();
    assert_eq!(verdict(Fault::Invalid, false, &ops[..ops.len() - 1]), None);
    assert_eq!(verdict(Fault::Invalid, false, &ops), Some(Disagreement::Invalid("broken on purpose".into())));
}

#[test]
fn a_silent_state_change_is_caught_at_once_only_when_thorough() {
    assert!(matches!(
        verdict(Fault::SilentAllocate, true, &[allocate()]),
        Some(Disagreement::StateDiffers { .. })
    ));
    assert_eq!(verdict(Fault::SilentAllocate, false, &[allocate()]), None);
    // Without the comparison a later answer gives it away.
    assert_eq!(
        verdict(Fault::SilentAllocate, false, &[allocate(), check(3)]),
        Some(Disagreement::AnswersDiffer)
    );
}

#[test]
fn a_divergence_prints_a_reproducer() {
    let mut run = driver(Fault::WrongAnswer, false);
    run.step(allocate()).unwrap();
    let text = run.step(check(1)).unwrap_err().to_string();
    assert!(text.starts_with("faulty diverged from the oracle: AnswersDiffer"), "{text}");
    assert!(text.contains(r#"{"op":"check","start":0,"end":5,"n":1}"#), "{text}");
}

/// A fuzz case that names no structures runs on every registered one, so a new structure
/// is fuzzed without an entry anywhere.
#[test]
fn a_fuzz_case_naming_no_structures_runs_on_every_one() {
    if std::env::var_os(oracle::campaign::STRUCTURES_VAR).is_some() {
        return; // a campaign's own choice of structures overrides the case's
    }
    let scenario = oracle::Scenario { capacity: 4, config: structures::Config { slot: 1, horizon: None } };
    let case = oracle::campaign::Case {
        scenario,
        swarm: oracle::generate::Swarm::ALL,
        structures: None,
        ops: Vec::new(),
    };
    assert_eq!(oracle::campaign::kinds(&case), structures::Kind::ALL);
}
