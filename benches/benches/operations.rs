//! Criterion: every operation per structure on every benchmark state, one group per
//! operation so structures are compared side by side in one run (whole replays are
//! `replays.rs`). Every input's answers are checked against the reference before it
//! is timed, so `cargo test --benches` runs this as a test; there (no `--bench`
//! argument) the states over [`TEST_ENTRIES`] entries are skipped, since building them
//! unoptimised takes minutes, and `cargo bench` checks them instead.
//!
//! With the `uncounted` feature the structures count no work; the groups then carry an
//! `uncounted/` prefix, so one report shows what the cost accounting adds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use benches::queries::{calls, check_answers, deep_calls, Calls};
use benches::{group_prefix, states};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oracle::{apply, OpKind};
use structures::{AvailabilityIndex, Kind};

/// Calls per measured operation and state.
const CALLS: usize = 100;

/// Under `cargo test`, states above this many entries are skipped.
const TEST_ENTRIES: usize = 20_000;

fn benchmarking() -> bool {
    std::env::args().any(|arg| arg == "--bench")
}

/// Runs every call, timing only the measured ones (one clock read around a call when
/// other calls interleave, about 20 ns, so allocate and release carry that too).
fn timed(index: &mut dyn AvailabilityIndex, calls: &Calls) -> Duration {
    if calls.timed.len() == calls.cases.len() {
        let start = Instant::now();
        for case in &calls.cases {
            black_box(apply(index, &case.op));
        }
        return start.elapsed();
    }
    let mut total = Duration::ZERO;
    let mut next = calls.timed.iter().peekable();
    for (i, case) in calls.cases.iter().enumerate() {
        if next.next_if_eq(&&i).is_some() {
            let start = Instant::now();
            black_box(apply(index, &case.op));
            total += start.elapsed();
        } else {
            black_box(apply(index, &case.op));
        }
    }
    total
}

fn operations(c: &mut Criterion) {
    let up_to = if benchmarking() { usize::MAX } else { TEST_ENTRIES };
    let mut built = Vec::new();
    for state in states::all(up_to) {
        if state.entries > up_to {
            println!("test mode: {} ({} entries) is checked by cargo bench only", state.name, state.entries);
            continue;
        }
        let mut indexes = Vec::new();
        for &kind in Kind::ALL {
            match state.build(kind) {
                Ok(index) => indexes.push(index),
                Err(why) => println!("{kind} on {} skipped: {why}", state.name),
            }
        }
        built.push((state, indexes));
    }
    let mut deep = Vec::new();
    for state in states::deep(up_to) {
        if state.entries <= up_to {
            let indexes = Kind::ALL.iter().copied().filter_map(|kind| state.build(kind).ok()).collect();
            deep.push((state, indexes));
        }
    }
    for op in OpKind::MEASURED {
        let mut group = c.benchmark_group(format!("{}{op}", group_prefix()));
        // Deep-backlog states are measured for `earliest` only, with calls that must
        // cross 90 % of the profile.
        let extra = if op == OpKind::Earliest { deep.as_mut_slice() } else { &mut [] };
        let states = built.iter_mut().map(|(s, i)| (s, i, false));
        for (state, indexes, deep) in states.chain(extra.iter_mut().map(|(s, i)| (s, i, true))) {
            let calls = if deep { deep_calls(state) } else { calls(state, op, CALLS, 11) };
            group.throughput(Throughput::Elements(calls.timed.len() as u64));
            for index in indexes.iter_mut() {
                check_answers(index.as_mut(), &calls.cases).unwrap_or_else(|e| panic!("{} {e}", state.name));
                let id = BenchmarkId::new(index.name(), &state.name);
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| (0..iters).map(|_| timed(index.as_mut(), &calls)).sum());
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Short runs: about 400 benchmarks in one `cargo bench`; medians are what we report.
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = operations
}
criterion_main!(benches);
