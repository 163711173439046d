//! The shared differential suite: every registered structure runs the same generated op
//! sequences beside the oracle through the one driver, which compares outcomes, cost
//! bounds, `validate()` and the whole free space after every op. One test covers every
//! [`Kind`], so a new structure needs no entry here; it prints, per structure and in
//! all, the ops and cases it ran, and reports every structure's failure at once.

use std::any::Any;
use std::cell::Cell;
use std::fmt::Debug;
use std::sync::OnceLock;
use std::thread;

use oracle::generate::{self, Drawn, Swarm};
use oracle::{apply, Differential, Op, Oracle, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{Config, FailurePersistence, FileFailurePersistence, PersistedSeed, TestRunner};
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

/// The committed regressions file (`differential.proptest-regressions`) is read, and its
/// cases rerun first; a new failure's seed is written under the target folder instead,
/// so a failing run leaves the checkout as it was. Committing a seed is deliberate: copy
/// the line proptest names into the committed file.
#[derive(Debug, Clone, PartialEq)]
struct CommittedSeeds {
    /// Where new seeds go.
    scratch: &'static str,
}

impl CommittedSeeds {
    /// New seeds go to `name` in `proptest-regressions/` under the target folder.
    fn new(name: &str) -> Self {
        let target = std::env::var("CARGO_TARGET_DIR")
            .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../target").to_owned());
        let scratch = format!("{target}/proptest-regressions/{name}");
        Self { scratch: Box::leak(scratch.into_boxed_str()) }
    }
}

impl FailurePersistence for CommittedSeeds {
    fn load_persisted_failures2(&self, source_file: Option<&'static str>) -> Vec<PersistedSeed> {
        // Beside the source file: tests/ has no lib.rs for `SourceParallel` to find.
        FileFailurePersistence::WithSource("proptest-regressions").load_persisted_failures2(source_file)
    }

    fn save_persisted_failure2(
        &mut self,
        source_file: Option<&'static str>,
        seed: PersistedSeed,
        shrunken_value: &dyn Debug,
    ) {
        if let Some(dir) = std::path::Path::new(self.scratch).parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        FileFailurePersistence::Direct(self.scratch).save_persisted_failure2(
            source_file,
            seed,
            shrunken_value,
        );
    }

    fn box_clone(&self) -> Box<dyn FailurePersistence> {
        Box::new(self.clone())
    }

    fn eq(&self, other: &dyn FailurePersistence) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The suite's seeds: the committed file, and new ones under the target folder.
static SEEDS: OnceLock<CommittedSeeds> = OnceLock::new();

/// Cases per structure; `PROPTEST_CASES` overrides it for longer runs.
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok());
    Config {
        cases: cases.unwrap_or(10_000),
        max_shrink_iters: 20_000,
        // Made once: the name is leaked to give proptest its `&'static str`, and this
        // runs for every case.
        failure_persistence: Some(Box::new(
            SEEDS.get_or_init(|| CommittedSeeds::new("oracle-differential.txt")).clone(),
        )),
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
    // Up to 80 ops: long enough for a run of equal slots to be cut by a change to an
    // aligned block and then searched. A lazy tag left behind by the segment tree's
    // run-end search (planted in a clone) escaped 1 run of 11 at 40 ops, 0 of 20 at 80.
    let result = runner.run(&Model::sequential_strategy(1..80), |(state, transitions, seen)| {
        cases.set(cases.get() + 1);
        Suite::test_sequential(config(), state, transitions, seen);
        Ok(())
    });
    Outcome { kind, ops: OPS.get(), cases: cases.get(), failure: result.err().map(|e| e.to_string()) }
}

/// The structures to run: every registered one, or those `RESBENCH_STRUCTURES` names
/// (comma-separated, as `ci/mutants` sets it for the engine it mutates).
fn structures() -> Vec<Kind> {
    match std::env::var("RESBENCH_STRUCTURES") {
        Ok(names) => names
            .split(',')
            .map(|n| n.trim().parse().unwrap_or_else(|e| panic!("RESBENCH_STRUCTURES: {e}")))
            .collect(),
        Err(_) => Kind::ALL.to_vec(),
    }
}

#[test]
fn every_registered_structure_matches_the_oracle() {
    // Two at a time: the machines this runs on have two cores.
    let outcomes: Vec<Outcome> = structures()
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

/// A failing run reads the committed seeds but writes its own under the target folder:
/// the committed file is byte for byte what it was.
#[test]
fn a_failure_leaves_the_committed_seeds_untouched() {
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/differential.proptest-regressions");
    let before = std::fs::read(committed).unwrap();
    let persistence = CommittedSeeds::new(&format!("failing-{}.txt", std::process::id()));
    let scratch = persistence.scratch;
    let config = Config {
        cases: 50,
        failure_persistence: Some(Box::new(persistence)),
        source_file: Some(file!()),
        ..Config::default()
    };
    // The committed seeds run first and pass; the first new case fails, and proptest
    // saves only a new case's seed.
    let committed_seeds = CommittedSeeds::new("unused").load_persisted_failures2(Some(file!())).len();
    assert!(committed_seeds > 0, "the committed seeds are read");
    let calls = Cell::new(0);
    let result = TestRunner::new(config).run(&any::<u8>(), |_| {
        calls.set(calls.get() + 1);
        prop_assert!(calls.get() <= committed_seeds);
        Ok(())
    });
    assert!(result.is_err(), "the property must fail");
    assert_eq!(std::fs::read(committed).unwrap(), before);
    let saved = std::fs::read_to_string(scratch).unwrap();
    assert!(saved.contains("\ncc ") && saved.contains("shrinks to"), "{saved}");
    std::fs::remove_file(scratch).unwrap();
}
