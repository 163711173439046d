//! The shared differential suite: every registered structure runs the same generated op
//! sequences beside the oracle through the one driver, which compares outcomes, cost
//! bounds, `validate()` and the whole free space after every op. One test covers every
//! [`Kind`], so a new structure needs no entry here; it prints, per structure and in
//! all, the ops and cases it ran, and reports every structure's failure at once.

use std::any::Any;
use std::cell::Cell;
use std::fmt::Debug;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};
use std::thread;

use oracle::generate::{self, Drawn, Swarm};
use oracle::{apply, Differential, Op, OpKind, Oracle, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{Config, FailurePersistence, FileFailurePersistence, PersistedSeed, TestRunner};
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest};
use structures::{Kind, SHELL_INVARIANTS};

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
        prop::collection::vec(any::<u64>(), 8)
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

/// Under `RESBENCH_FAIL_FAST` (`ci/mutants` sets it), the first panic anywhere in this
/// binary ends the process with libtest's failure code: a mutant is caught by its first
/// failing check instead of waiting for the other tests, which a mutant can make very
/// slow. Nothing panics in a passing run (a failure the suite expects is an `Err`), so
/// this changes no verdict, only how soon a failing run ends.
fn fail_fast() {
    static HOOK: Once = Once::new();
    if std::env::var_os("RESBENCH_FAIL_FAST").is_some() {
        HOOK.call_once(|| {
            let report = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                report(info);
                std::process::exit(101);
            }));
        });
    }
}

/// Cases per structure (split over [`PARTS`]); `PROPTEST_CASES` overrides it for longer
/// runs, and `PROPTEST_MAX_SHRINK_ITERS` the shrinking (`ci/mutants` sets 0: a caught
/// mutant needs no minimal case).
fn config() -> Config {
    let env = |name| std::env::var(name).ok().and_then(|v| v.parse().ok());
    Config {
        cases: env("PROPTEST_CASES").unwrap_or(10_000),
        max_shrink_iters: env("PROPTEST_MAX_SHRINK_ITERS").unwrap_or(20_000),
        // Made once: the name is leaked to give proptest its `&'static str`, and this
        // runs for every case.
        failure_persistence: Some(Box::new(
            SEEDS.get_or_init(|| CommittedSeeds::new("oracle-differential.txt")).clone(),
        )),
        source_file: Some(file!()),
        ..Config::default()
    }
}

/// Each structure's cases run as this many independent parts (each from its own random
/// RNG seed), so that one structure alone, as `ci/mutants` runs it, keeps both cores busy.
const PARTS: u32 = 2;

/// What one structure's suite ran, and its failure.
struct Outcome {
    kind: Kind,
    ops: u64,
    cases: u64,
    failure: Option<String>,
}

/// Part `part` of [`PARTS`] of `kind`'s suite.
fn suite(kind: Kind, part: u32) -> Outcome {
    // Reports, reproducers and run files name a structure by what it answers here.
    let named = kind.build(1, kind.config_for(structures::Config::default())).map(|s| s.name());
    if named != Ok(kind.name()) {
        let failure = format!("it names itself {named:?}, its registry entry {:?}", kind.name());
        return Outcome { kind, ops: 0, cases: 0, failure: Some(failure) };
    }
    KIND.set(Some(kind));
    OPS.set(0);
    let cases = Cell::new(0);
    let outer = config();
    let all = outer.cases;
    let mut runner = TestRunner::new(Config { cases: all / PARTS + u32::from(part < all % PARTS), ..outer });
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
    fail_fast();
    // Two workers take the parts in turn: the machines this runs on have two cores.
    let jobs: Vec<(Kind, u32)> =
        structures().into_iter().flat_map(|k| (0..PARTS).map(move |p| (k, p))).collect();
    let next = AtomicUsize::new(0);
    let parts: Vec<Outcome> = thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(&(kind, part)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        done.push(suite(kind, part));
                    }
                    done
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a suite thread")).collect()
    });
    // One outcome per structure, in registry order: its parts' ops and cases added up,
    // and its first failure.
    let mut outcomes: Vec<Outcome> = Vec::new();
    for kind in structures() {
        let mut total = Outcome { kind, ops: 0, cases: 0, failure: None };
        for p in parts.iter().filter(|p| p.kind == kind) {
            total.ops += p.ops;
            total.cases += p.cases;
            total.failure = total.failure.or_else(|| p.failure.clone());
        }
        outcomes.push(total);
    }
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
    fail_fast();
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

/// The recorded counts, beside this file: one line per structure.
const WORK_COUNTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/work-counts.txt");

/// A fixed stream of 64-bit numbers (splitmix64 from `seed`): the work test's ops must be
/// the same in every run, so they are not proptest's.
fn fixed_numbers(seed: &mut u64, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| {
            *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = *seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// `kind`'s costs summed over a fixed stream of generated runs (200 scenarios of 200 ops,
/// every op checked by the driver): one line of `work-counts.txt`.
fn counted_work(kind: Kind) -> String {
    // u128: a worst case can be near u64::MAX (m² of a long profile).
    let (mut search, mut visited, mut worst, mut calls) = (0u128, 0u128, 0u128, 0u64);
    let mut seed = 0;
    for _ in 0..200 {
        let numbers = fixed_numbers(&mut seed, 8);
        let mut choices = Drawn::new(&numbers);
        let scenario = generate::scenario(&mut choices);
        let swarm = Swarm::draw(&mut choices);
        let mut run = Differential::new(kind, scenario, false).expect("valid scenario");
        for _ in 0..200 {
            let numbers = fixed_numbers(&mut seed, 12);
            let op = generate::op(run.oracle(), swarm, &mut Drawn::new(&numbers));
            let measured = matches!(op.kind(), OpKind::Check | OpKind::Earliest);
            let outcome = run.step(op).unwrap_or_else(|d| panic!("{d}"));
            if let (true, false, Some(cost)) = (measured, outcome.is_failure(), run.structure().last_cost()) {
                (search, visited, worst, calls) = (
                    search + u128::from(cost.search),
                    visited + u128::from(cost.visited),
                    worst + u128::from(cost.worst),
                    calls + 1,
                );
            }
        }
    }
    format!("{kind} calls={calls} search={search} visited={visited} worst={worst}")
}

/// The suite above holds each call's visited work to its worst case, an upper bound; this
/// pins the counts themselves, so that a change to the accounting (a step not counted, a
/// wrong rank in a worst case) shows. After a deliberate change, `RESBENCH_BLESS=1`
/// rewrites `work-counts.txt` (every structure's line); commit it with the change.
#[test]
fn the_work_counted_on_a_fixed_stream_is_the_recorded_one() {
    fail_fast();
    let kinds = structures();
    let counted: Vec<String> = thread::scope(|s| {
        let halves: Vec<_> = kinds
            .chunks(kinds.len().div_ceil(2))
            .map(|half| s.spawn(move || half.iter().map(|&k| counted_work(k)).collect::<Vec<_>>()))
            .collect();
        halves.into_iter().flat_map(|h| h.join().expect("a work thread")).collect()
    });
    if std::env::var_os("RESBENCH_BLESS").is_some() {
        assert_eq!(
            kinds,
            Kind::ALL,
            "RESBENCH_BLESS rewrites every structure's line: unset RESBENCH_STRUCTURES"
        );
        std::fs::write(WORK_COUNTS, counted.join("\n") + "\n").unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(WORK_COUNTS).unwrap();
    let differ: Vec<String> = counted
        .iter()
        .filter(|line| !recorded.lines().any(|r| r == line.as_str()))
        .map(|line| {
            let name = line.split(' ').next().unwrap_or_default();
            let was = recorded.lines().find(|r| r.split(' ').next() == Some(name)).unwrap_or("no line");
            format!("{line}\n  recorded: {was}")
        })
        .collect();
    assert!(
        differ.is_empty(),
        "work counts differ from tests/work-counts.txt (RESBENCH_BLESS=1 rewrites it after a deliberate change):\n{}",
        differ.join("\n")
    );
}

/// `validate` refuses each invariant it names broken: for every structure, each
/// invariant its `invariants()` lists is corrupted at the end of runs of the fixed stream
/// (80 scenarios of 0 to 158 ops), at two places each, on a fresh copy of the run's
/// state, and `validate` must refuse every copy. Each invariant must find a place in some
/// run, so that none is skipped unseen. The suite above runs `validate` only on sound
/// states; this shows it is not a check that never fails.
#[test]
fn validate_refuses_every_invariant_broken() {
    fail_fast();
    for kind in structures() {
        let mut broken: Vec<u64> = Vec::new();
        let mut names = Vec::new();
        let mut seed = 1 << 32;
        for run in 0..80u64 {
            let numbers = fixed_numbers(&mut seed, 8);
            let mut choices = Drawn::new(&numbers);
            let scenario = generate::scenario(&mut choices);
            let swarm = Swarm::draw(&mut choices);
            let config = kind.config_for(scenario.config);
            let mut oracle = Oracle::new(scenario.capacity, config).expect("valid scenario");
            let mut ops = Vec::new();
            for _ in 0..2 * run {
                let numbers = fixed_numbers(&mut seed, 12);
                let op = generate::op(&oracle, swarm, &mut Drawn::new(&numbers));
                apply(&mut oracle, &op);
                ops.push(op);
            }
            let fresh = || {
                let mut index = kind.build(scenario.capacity, config).expect("valid scenario");
                ops.iter().for_each(|op| drop(apply(index.as_mut(), op)));
                index
            };
            names = fresh().invariants();
            broken.resize(names.len(), 0);
            for (invariant, name) in names.iter().enumerate() {
                for pick in [run, run * 7 + 3] {
                    let mut index = fresh();
                    if index.corrupt(invariant, pick) {
                        broken[invariant] += 1;
                        assert!(
                            index.validate().is_err(),
                            "{kind}: invariant {name:?} broken (run {run}, pick {pick}), yet validate passes"
                        );
                    }
                }
            }
        }
        assert!(names.len() > SHELL_INVARIANTS.len(), "{kind}'s engine names no invariant to break");
        let never: Vec<_> = names.iter().zip(&broken).filter(|(_, &b)| b == 0).map(|(n, _)| n).collect();
        assert!(never.is_empty(), "{kind}: no run had a place to break {never:?}");
    }
}
