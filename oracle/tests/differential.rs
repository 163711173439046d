//! The shared differential suite: every registered structure runs the same generated op
//! sequences beside the oracle through the one driver, which compares outcomes, cost
//! bounds, `validate()` and the whole free space after every op. One test covers every
//! [`Kind`], so a new structure needs no entry here; it prints, per structure and in
//! all, the ops and cases it ran, and reports every structure's failure at once.

use std::cell::Cell;
use std::thread;

use oracle::generate::{self, Drawn, Swarm};
use oracle::{apply, Differential, Op, Oracle, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest};
use structures::Kind;

/// The reference: the oracle itself, generating each op from its current state.
#[derive(Clone, Debug)]
struct Model {
    scenario: Scenario,
    swarm: Swarm,
    oracle: Oracle,
}

impl ReferenceStateMachine for Model {
    type State = Model;
    type Transition = Op;

    fn init_state() -> BoxedStrategy<Model> {
        prop::collection::vec(any::<u64>(), 6)
            .prop_map(|numbers| {
                let mut choices = Drawn::new(&numbers);
                let scenario = generate::scenario(&mut choices);
                let swarm = Swarm::draw(&mut choices);
                let oracle = Oracle::new(scenario.capacity, scenario.config).expect("valid scenario");
                Model { scenario, swarm, oracle }
            })
            .boxed()
    }

    fn transitions(state: &Model) -> BoxedStrategy<Op> {
        let (oracle, swarm) = (state.oracle.clone(), state.swarm);
        prop::collection::vec(any::<u64>(), 12)
            .prop_map(move |numbers| generate::op(&oracle, swarm, &mut Drawn::new(&numbers)))
            .boxed()
    }

    fn apply(mut state: Model, op: &Op) -> Model {
        apply(&mut state.oracle, op);
        state
    }
}

thread_local! {
    /// The structure this thread's suite runs.
    static KIND: Cell<Option<Kind>> = const { Cell::new(None) };
    /// Ops this thread has applied, shrinking included.
    static OPS: Cell<u64> = const { Cell::new(0) };
}

struct Suite;

impl StateMachineTest for Suite {
    type SystemUnderTest = Differential;
    type Reference = Model;

    fn init_test(model: &Model) -> Differential {
        let kind = KIND.get().expect("the suite sets its structure");
        Differential::new(kind, model.scenario, true).expect("valid scenario")
    }

    fn apply(mut run: Differential, _: &Model, op: Op) -> Differential {
        OPS.set(OPS.get() + 1);
        if let Err(divergence) = run.step(op) {
            panic!("{divergence}");
        }
        run
    }
}

/// Cases per structure; `PROPTEST_CASES` overrides it for longer runs.
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok());
    Config {
        cases: cases.unwrap_or(10_000),
        max_shrink_iters: 20_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel("proptest-regressions"))),
        source_file: Some(file!()),
        ..Config::default()
    }
}

/// What one structure's suite ran, and its failure.
struct Outcome {
    kind: Kind,
    ops: u64,
    cases: u64,
    failure: Option<String>,
}

fn suite(kind: Kind) -> Outcome {
    KIND.set(Some(kind));
    let cases = Cell::new(0);
    let mut runner = TestRunner::new(config());
    let result = runner.run(&Model::sequential_strategy(1..40), |(state, transitions, seen)| {
        cases.set(cases.get() + 1);
        Suite::test_sequential(config(), state, transitions, seen);
        Ok(())
    });
    Outcome { kind, ops: OPS.get(), cases: cases.get(), failure: result.err().map(|e| e.to_string()) }
}

#[test]
fn every_registered_structure_matches_the_oracle() {
    // Two at a time: the machines this runs on have two cores.
    let outcomes: Vec<Outcome> = Kind::ALL
        .chunks(2)
        .flat_map(|pair| {
            thread::scope(|s| {
                let runs: Vec<_> = pair.iter().map(|&kind| s.spawn(move || suite(kind))).collect();
                runs.into_iter().map(|run| run.join().expect("a suite thread")).collect::<Vec<_>>()
            })
        })
        .collect();
    let mut failures = Vec::new();
    for o in &outcomes {
        let divergences = u64::from(o.failure.is_some());
        println!("{}: {} ops, {} cases, {divergences} divergences", o.kind, o.ops, o.cases);
        if let Some(failure) = &o.failure {
            failures.push(format!("{}: {failure}", o.kind));
        }
    }
    let (ops, cases) = outcomes.iter().fold((0, 0), |(a, b), o| (a + o.ops, b + o.cases));
    println!("all: {ops} ops, {cases} cases, {} divergences", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} structures diverged:\n{}",
        failures.len(),
        outcomes.len(),
        failures.join("\n")
    );
}
