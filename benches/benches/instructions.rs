//! gungraun (callgrind): instruction counts of seeded calls per structure: `check` and
//! `earliest` on two fixed states, the other operations on one. The setup (building the
//! state, checking every answer, the allocations a `release` undoes)
//! and dropping the state afterwards are not counted, nor the summaries' upkeep that the
//! calls of an update leave for the next search (augtree pays it there, or in the call
//! that finds 64 changes waiting); the gate also takes the
//! allocator's cost out of each count (`benches::gate::read_gungraun`). `cargo bench` needs `gungraun-runner` at the library's version
//! (`ci/gate` installs it); under `cargo test` (no `--bench` argument) every benchmark's
//! setup and calls run once instead, without valgrind, as a test, with the oracle's
//! answers (under callgrind, the reference structure's: [`Answers::Reference`]).

use std::hint::black_box;

use benches::instructions::{plan, Case, CALLS};
use benches::queries::{calls, check_answers};
use benches::states::{self, Answers};
use oracle::{apply, Op, OpKind};
use structures::AvailabilityIndex;

/// Builds the case's state into its structure and draws its calls, with the answers
/// they expect from `answers`; what this does is not counted.
fn setup(case: Case, answers: Answers) -> (Box<dyn AvailabilityIndex>, Vec<Op>) {
    let mut state = match case.state {
        "kth-1000" => states::kth(1_000),
        _ => states::synthetic(1_000, 7),
    };
    state.answers = answers;
    let calls = calls(&state, case.op, CALLS, 11);
    let mut index = state.build(case.kind).expect("the state fits the structure");
    check_answers(index.as_mut(), &calls.cases).expect("the structure answers as the reference does");
    // A release needs the allocations before it; they run here, uncounted.
    let first = calls.timed[0];
    for case in &calls.cases[..first] {
        apply(index.as_mut(), &case.op);
    }
    // A structure may leave its summaries' upkeep to the next search (augtree): one
    // search here settles the setup's, so that none of it is counted in the calls.
    let settle = Op::Earliest { ready: index.now(), duration: 1, n: 1 };
    apply(index.as_mut(), &settle);
    (index, calls.timed.iter().map(|&i| calls.cases[i].op.clone()).collect())
}

/// The calls; the index and the ops are handed back, so that dropping them happens
/// outside the measured function.
fn run(input: (Box<dyn AvailabilityIndex>, Vec<Op>)) -> (usize, Box<dyn AvailabilityIndex>, Vec<Op>) {
    let (mut index, ops) = input;
    let mut answered = 0;
    for op in &ops {
        answered += usize::from(!black_box(apply(index.as_mut(), op)).is_failure());
    }
    (answered, index, ops)
}

mod callgrind {
    use super::*;
    use gungraun::{library_benchmark, library_benchmark_group, main};

    /// The setup under callgrind: the test run checks the same calls against the oracle.
    fn measured(case: Case) -> (Box<dyn AvailabilityIndex>, Vec<Op>) {
        setup(case, Answers::Reference)
    }

    #[library_benchmark]
    #[benches::check(iter = plan(OpKind::Check), setup = measured)]
    #[benches::earliest(iter = plan(OpKind::Earliest), setup = measured)]
    #[benches::allocate(iter = plan(OpKind::Allocate), setup = measured)]
    #[benches::release(iter = plan(OpKind::Release), setup = measured)]
    #[benches::free_frames(iter = plan(OpKind::FreeFrames), setup = measured)]
    #[benches::options(iter = plan(OpKind::Options), setup = measured)]
    fn calls(input: (Box<dyn AvailabilityIndex>, Vec<Op>)) -> (usize, Box<dyn AvailabilityIndex>, Vec<Op>) {
        run(input)
    }

    library_benchmark_group!(name = operations; benchmarks = calls);

    main!(library_benchmark_groups = operations);

    /// gungraun's generated entry point.
    pub fn start() {
        main();
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if first.as_deref() == Some("--gungraun-run")
        || first.as_deref() == Some("--bench")
        || args.any(|a| a == "--bench")
    {
        return callgrind::start();
    }
    for op in OpKind::MEASURED {
        for case in plan(op) {
            let input = setup(case, Answers::Oracle);
            let expected = input.1.len();
            assert_eq!(run(input).0, expected, "{case:?}: a call was refused");
        }
    }
    println!("instructions: every benchmark's calls ran once and answered as the reference");
}
