//! Plan-only replays: a schedule worked by hand, and a verified prefix of the bundled
//! trace on every structure with identical schedules.

use indicatif::ProgressBar;
use resbench::replay::{horizon_for, ratios, replay};
use resbench::swf;
use resbench::workload::{workload, Request, Workload};
use resbench::{BUNDLED_NAME, BUNDLED_TRACE};
use structures::{Config, Cost, Kind, RangeSet};

#[test]
fn a_hand_worked_schedule() {
    // 4 resources. A takes all of them for 10; B (2 for 5) arrives at 5 and must wait
    // for A; C (1 for 3) arrives at 6 and backfills at 15 beside B on the next free id.
    let load = Workload {
        capacity: 4,
        requests: vec![
            Request { id: 1, submit: 0, n: 4, duration: 10 },
            Request { id: 2, submit: 5, n: 2, duration: 5 },
            Request { id: 3, submit: 6, n: 3, duration: 3 },
        ],
        skipped: Default::default(),
    };
    for kind in Kind::ALL {
        let run = replay(kind, &load, Config::default(), true, &ProgressBar::hidden()).unwrap();
        let placed: Vec<_> = run.schedule.iter().map(|p| (p.id, p.start, p.end, p.set.clone())).collect();
        assert_eq!(
            placed,
            [
                (1, 0, 10, RangeSet::from_range(0, 4)),
                (2, 10, 15, RangeSet::from_range(0, 2)),
                (3, 15, 18, RangeSet::from_range(0, 3))
            ],
            "{kind}"
        );
        assert_eq!((run.checks.len(), run.searches.len()), (3, 2));
    }
}

/// Every structure, verified against the oracle, on a prefix of the bundled trace with
/// slot width `slot` and the horizon the trace needs: identical schedules, none unplaced.
fn verified_prefix(slot: u64) {
    let trace = swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, false).unwrap();
    let load = workload(&trace, 100, Some(1500));
    let config = Config { slot, horizon: Some(horizon_for(&load, slot).unwrap()) };
    let runs: Vec<_> =
        Kind::ALL.iter().map(|&k| replay(k, &load, config, true, &ProgressBar::hidden()).unwrap()).collect();
    assert!(runs.iter().all(|r| r.schedule == runs[0].schedule && r.unplaced == 0));
    assert_eq!(runs[0].schedule.len(), load.requests.len());
}

#[test]
fn a_verified_prefix_of_the_bundled_trace_schedules_identically_with_minute_slots() {
    verified_prefix(60);
}

#[test]
fn and_with_hour_slots() {
    verified_prefix(3600);
}

#[test]
fn continuous_structures_need_no_horizon() {
    let trace = swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, false).unwrap();
    let load = workload(&trace, 100, Some(1500));
    let kinds = Kind::ALL.iter().filter(|k| !k.needs_horizon());
    let runs: Vec<_> =
        kinds.map(|&k| replay(k, &load, Config::default(), true, &ProgressBar::hidden()).unwrap()).collect();
    assert!(runs.len() >= 3 && runs.iter().all(|r| r.schedule == runs[0].schedule && r.unplaced == 0));
}

#[test]
fn ratio_percentiles_use_nearest_rank_and_skip_calls_without_a_worst_case() {
    let costs: Vec<Cost> =
        (1..=100).map(|v| Cost { search: 0, visited: v, worst: 100 }).chain([Cost::default()]).collect();
    let r = ratios(&costs);
    assert_eq!((r.calls, r.p50, r.p90, r.p99), (100, 0.5, 0.9, 0.99));
    assert!((r.mean - 0.505).abs() < 1e-12);
}
