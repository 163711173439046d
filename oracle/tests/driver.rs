//! The driver classifies every divergence: a correct structure behind a tap with one
//! planted fault (`src/tap.rs`) must be caught, and named the right way.

use oracle::tap::{Planted, Tap};
use oracle::{Differential, Disagreement, Op, Outcome};
use structures::{Config, Error, RangeSet, RbTreeProfile};

fn driver(fault: Option<Planted>, thorough: bool) -> Differential {
    let inner = Box::new(RbTreeProfile::new(4, Config::default()).unwrap());
    Differential::with_structure(Box::new(Tap::planted(inner, fault).0), thorough).unwrap()
}

fn allocate() -> Op {
    Op::Allocate { start: 0, end: 10, set: RangeSet::from_range(0, 2) }
}

fn check(n: u32) -> Op {
    Op::Check { start: 0, end: 5, n }
}

/// The disagreement the driver reports for `ops` applied in order.
fn verdict(fault: Option<Planted>, thorough: bool, ops: &[Op]) -> Option<Disagreement> {
    let mut run = driver(fault, thorough);
    ops.iter().find_map(|op| run.step(op.clone()).err()).map(|d| d.kind)
}

#[test]
fn a_correct_structure_agrees_even_when_both_refuse_alike() {
    let mut run = driver(None, true);
    assert_eq!(run.step(allocate()).unwrap(), Outcome::Done);
    let both_refuse = run.step(check(0)).unwrap();
    assert_eq!(both_refuse, Outcome::Failed(Error::BadCount { n: 0, capacity: 4 }));
}

#[test]
fn each_fault_is_caught_and_classified() {
    assert_eq!(
        verdict(Some(Planted::ClaimsAllFree), false, &[allocate(), check(1)]),
        Some(Disagreement::AnswersDiffer)
    );
    assert_eq!(
        verdict(Some(Planted::RefusesAllocate), false, &[allocate()]),
        Some(Disagreement::OnlyStructureFailed)
    );
    assert_eq!(
        verdict(Some(Planted::HidesCheckErrors), false, &[check(0)]),
        Some(Disagreement::OnlyOracleFailed)
    );
    assert_eq!(
        verdict(Some(Planted::MisnamesCheckErrors), false, &[check(0)]),
        Some(Disagreement::ErrorsDiffer)
    );
    assert!(matches!(
        verdict(Some(Planted::CostAboveWorst), false, &[check(1)]),
        Some(Disagreement::CostOutOfBounds(_))
    ));
    assert_eq!(
        verdict(Some(Planted::Invalid), true, &[check(1)]),
        Some(Disagreement::Invalid("broken on purpose".into()))
    );
}

#[test]
fn without_thorough_checks_validation_is_sampled() {
    let ops: Vec<Op> = (0..oracle::VALIDATE_EVERY).map(|_| check(1)).collect();
    assert_eq!(verdict(Some(Planted::Invalid), false, &ops[..ops.len() - 1]), None);
    assert_eq!(
        verdict(Some(Planted::Invalid), false, &ops),
        Some(Disagreement::Invalid("broken on purpose".into()))
    );
}

#[test]
fn a_silent_state_change_is_caught_at_once_only_when_thorough() {
    assert!(matches!(
        verdict(Some(Planted::IgnoresAllocate), true, &[allocate()]),
        Some(Disagreement::StateDiffers { .. })
    ));
    assert_eq!(verdict(Some(Planted::IgnoresAllocate), false, &[allocate()]), None);
    // Without the comparison a later answer gives it away.
    assert_eq!(
        verdict(Some(Planted::IgnoresAllocate), false, &[allocate(), check(3)]),
        Some(Disagreement::AnswersDiffer)
    );
}

#[test]
fn a_miscounted_size_is_caught_only_where_size_counts_change_points() {
    let run = |counting: bool| {
        let mut run = driver(Some(Planted::MiscountsSize), true);
        if counting {
            run = run.counting_change_points();
        }
        run.step(allocate()).err().map(|d| d.kind)
    };
    // Entries at 0 and 10; the tap says 3.
    assert_eq!(run(true), Some(Disagreement::SizeDiffers { structure: 3, oracle: 2 }));
    assert_eq!(run(false), None);
    let mut correct = driver(None, true).counting_change_points();
    correct.step(allocate()).unwrap();
}

#[test]
fn a_divergence_prints_a_reproducer() {
    let mut run = driver(Some(Planted::ClaimsAllFree), false);
    run.step(allocate()).unwrap();
    let text = run.step(check(1)).unwrap_err().to_string();
    assert!(text.starts_with("rbtree diverged from the oracle: AnswersDiffer"), "{text}");
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
