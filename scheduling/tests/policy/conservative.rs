//! `src/policy/conservative.rs`: conservative backfilling worked by hand on two ids, and
//! compression, which re-plans waiting jobs in queue order after an early end, each no
//! later than it was.

use rand::rngs::StdRng;
use rand::SeedableRng;
use scheduling::policy::PolicyKind;
use scheduling::replay::{horizon_for, replay_on, Mode, Options, Run};
use structures::{Config, Kind, RangeSet};
use traces::workload::Workload;

use super::fixtures::tapped;
use super::{job, load, random_load, run_with};

/// Two ids. A (1 for 10) starts at once; B (both for 5) must wait for A, so is reserved
/// at 10; C (1 for 8) fits beside A before B's reservation; D (1 for 6) fits nowhere
/// before B ends, so at 15.
fn two_ids(runtime_a: u64) -> Workload {
    load(2, vec![job(1, 0, 1, 10, runtime_a), job(2, 1, 2, 5, 5), job(3, 2, 1, 8, 8), job(4, 3, 1, 6, 6)])
}

fn options(mode: Mode, compress: bool) -> Options {
    Options { policy: PolicyKind::Conservative, mode, compress, ..Options::default() }
}

fn placed(run: &Run) -> Vec<(i64, u64, u64, RangeSet)> {
    run.schedule.iter().map(|p| (p.id, p.start, p.end, p.set.clone())).collect()
}

#[test]
fn each_job_takes_the_earliest_window_that_delays_no_earlier_one() {
    let ids = RangeSet::from_range;
    let expected =
        [(1, 0, 10, ids(0, 1)), (2, 10, 15, ids(0, 2)), (3, 2, 10, ids(1, 2)), (4, 15, 21, ids(0, 1))];
    for mode in [Mode::Simulate, Mode::PlanOnly] {
        for &kind in Kind::ALL {
            let run = run_with(kind, &two_ids(10), options(mode, false));
            assert_eq!(placed(&run), expected, "{kind} {mode}");
            // C was placed by its check at submit; B and D needed a search.
            assert_eq!((run.checks.len(), run.searches.len()), (4, 2), "{kind} {mode}");
        }
    }
}

#[test]
fn compression_moves_a_waiting_job_into_what_an_early_end_freed() {
    // A ends at 4, freeing id 0 over [4, 10). Re-planned in queue order, B still needs
    // id 1, busy with C until 10, so it keeps 10; D fits exactly in [4, 10).
    let starts = |run: &Run| run.schedule.iter().map(|p| (p.id, p.start)).collect::<Vec<_>>();
    for &kind in Kind::ALL {
        let compressed = run_with(kind, &two_ids(4), options(Mode::Simulate, true));
        assert_eq!(starts(&compressed), [(1, 0), (2, 10), (3, 2), (4, 4)], "{kind}");
        assert_eq!(compressed.schedule[3].set, RangeSet::from_range(0, 1), "{kind}");
        // Without compression the early end changes no plan.
        let plain = run_with(kind, &two_ids(4), options(Mode::Simulate, false));
        assert_eq!(starts(&plain), [(1, 0), (2, 10), (3, 2), (4, 15)], "{kind}");
        // Plan-only, nothing ends early, so there is nothing to compress.
        let plan_only = run_with(kind, &two_ids(4), options(Mode::PlanOnly, true));
        assert_eq!(starts(&plan_only), [(1, 0), (2, 10), (3, 2), (4, 15)], "{kind}");
    }
}

#[test]
fn compression_never_moves_a_job_later_on_random_workloads() {
    // A re-plan is the only place a release is followed by a search and an allocation
    // (`unplace`, `earliest`, `place`): the new window must start no later than the
    // one given up, and be as long.
    let mut rng = StdRng::seed_from_u64(28);
    let (mut replans, mut earlier) = (0, 0);
    for case in 0..20 {
        let load = random_load(&mut rng, 25);
        let options = options(Mode::Simulate, true);
        let config = Config { slot: 1, horizon: Some(horizon_for(&load, 1, &options).unwrap()) };
        let logs: Vec<Vec<oracle::Op>> = Kind::ALL
            .iter()
            .map(|&kind| {
                let (index, log) = tapped(kind, load.capacity, config, None);
                replay_on(index, &load, &options).unwrap();
                log.take()
            })
            .collect();
        // Every structure answers alike, so the policy makes the same calls on each.
        assert!(logs.iter().all(|l| *l == logs[0]), "case {case}: structures differ");
        for w in logs[0].windows(3) {
            use oracle::Op::{Allocate, Earliest, Release};
            if let [Release { start, end, .. }, Earliest { .. }, Allocate { start: s, end: e, .. }] = w {
                assert!(s <= start && e - s == end - start, "case {case}: [{start}, {end}) to [{s}, {e})");
                replans += 1;
                earlier += usize::from(s < start);
            }
        }
    }
    // The property was put to the test, and compression did move jobs up.
    assert!(replans > 500 && earlier > 100, "{replans} re-plans, {earlier} earlier");
}
