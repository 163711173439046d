//! gungraun (callgrind): instruction counts of the seeded `check` and `earliest` calls
//! per structure on two fixed states. The setup (building the state, checking every
//! answer against the oracle) is not counted. Needs `gungraun-runner` at the library's
//! version (`ci/gate` installs it).

use std::hint::black_box;

use benches::queries::{cases, check_answers};
use benches::states;
use gungraun::{library_benchmark, library_benchmark_group, main};
use oracle::{apply, Op};
use structures::{AvailabilityIndex, Kind};

/// Calls per benchmark.
const CALLS: usize = 40;

fn setup(kind: &str, state: &str, op: &str) -> (Box<dyn AvailabilityIndex>, Vec<Op>) {
    let state = match state {
        "kth-1000" => states::kth(1_000),
        _ => states::synthetic(1_000, 7),
    };
    let kind: Kind = kind.parse().expect("a registered structure");
    let all = cases(&state, CALLS, 11);
    let mut index = state.build(kind).expect("the state fits the structure");
    check_answers(index.as_mut(), &all).expect("the structure answers as the oracle does");
    (index, all.into_iter().filter(|c| c.op.name() == op).map(|c| c.op).collect())
}

#[library_benchmark]
#[benches::check(
    args = [
        ("rbtree", "kth-1000", "check"), ("list", "kth-1000", "check"), ("btree", "kth-1000", "check"),
        ("slotted", "kth-1000", "check"), ("segtree", "kth-1000", "check"), ("calendar", "kth-1000", "check"),
        ("rbtree", "synthetic-1000", "check"), ("list", "synthetic-1000", "check"),
        ("btree", "synthetic-1000", "check"), ("slotted", "synthetic-1000", "check"),
        ("segtree", "synthetic-1000", "check"), ("calendar", "synthetic-1000", "check"),
    ],
    setup = setup
)]
#[benches::earliest(
    args = [
        ("rbtree", "kth-1000", "earliest"), ("list", "kth-1000", "earliest"), ("btree", "kth-1000", "earliest"),
        ("slotted", "kth-1000", "earliest"), ("segtree", "kth-1000", "earliest"),
        ("calendar", "kth-1000", "earliest"), ("rbtree", "synthetic-1000", "earliest"),
        ("list", "synthetic-1000", "earliest"), ("btree", "synthetic-1000", "earliest"),
        ("slotted", "synthetic-1000", "earliest"), ("segtree", "synthetic-1000", "earliest"),
        ("calendar", "synthetic-1000", "earliest"),
    ],
    setup = setup
)]
fn calls(input: (Box<dyn AvailabilityIndex>, Vec<Op>)) -> usize {
    let (mut index, ops) = input;
    let mut answered = 0;
    for op in &ops {
        answered += usize::from(!black_box(apply(index.as_mut(), op)).is_failure());
    }
    answered
}

library_benchmark_group!(name = operations; benchmarks = calls);

main!(library_benchmark_groups = operations);
