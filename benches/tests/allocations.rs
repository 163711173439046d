//! The availability profiles allocate nothing in steady state: once two passes of the
//! benchmark calls have sized a tree's arena, the same calls again make no heap
//! allocation, counted by an instrumented global allocator. Free sets of ids below
//! `INLINE_IDS` are inline bitsets, the trees keep their arena's capacity, and the flat
//! profile its vectors' and its scratch words'.

use std::alloc::System;
use std::hint::black_box;

use benches::queries::calls;
use benches::states::kth;
use oracle::{Op, OpKind};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use structures::{AvailabilityIndex, Kind};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Runs the calls, keeping every answer alive until the call returns.
fn run(index: &mut dyn AvailabilityIndex, ops: &[Op]) {
    for op in ops {
        match *op {
            Op::Check { start, end, n } => drop(black_box(index.check(start, end, n))),
            Op::Earliest { ready, duration, n } => drop(black_box(index.earliest(ready, duration, n))),
            Op::Allocate { start, end, ref set } => drop(black_box(index.allocate(start, end, set))),
            Op::Release { start, end, ref set } => drop(black_box(index.release(start, end, set))),
            ref other => panic!("no allocation check for {other:?}"),
        }
    }
}

/// One test, so that no other test thread allocates while a region counts.
#[test]
fn profile_operations_allocate_nothing_in_steady_state() {
    let state = kth(1_000);
    let ops: Vec<Op> = [OpKind::Check, OpKind::Earliest, OpKind::Allocate]
        .into_iter()
        .flat_map(|kind| calls(&state, kind, 50, 11).cases.into_iter().map(|case| case.op))
        .collect();
    for name in ["rbtree", "augtree", "list", "flat"] {
        let kind: Kind = name.parse().unwrap();
        let mut index = state.build(kind).unwrap();
        // Two passes to size it: an allocation the first refused may succeed in the
        // second (the first changed the state), and grow a vector that was just full.
        run(index.as_mut(), &ops);
        run(index.as_mut(), &ops);
        let region = Region::new(GLOBAL);
        run(index.as_mut(), &ops);
        let change = region.change();
        assert_eq!(
            (change.allocations, change.reallocations),
            (0, 0),
            "{name}: the second pass of {} calls allocated",
            ops.len()
        );
    }
}
