//! The replay: schedules worked by hand (plan-only, with completions, with compression,
//! with advance reservations), and verified prefixes of the bundled trace on every
//! structure with identical schedules.

use oracle::OpKind;
use scheduling::replay::{
    horizon_for, plan_reservations, replay, Mode, Options, ReplayConfig, Run, Silent, AR_WINDOW,
};
use structures::{Config, Kind, RangeSet};
use traces::swf;
use traces::workload::{workload, Request, Workload};
use traces::{BUNDLED_NAME, BUNDLED_TRACE};

fn job(id: i64, submit: u64, n: u32, duration: u64, runtime: u64) -> Request {
    Request { id, submit, n, duration, runtime, recorded_wait: None }
}

fn run(kind: Kind, load: &Workload, options: Options) -> Run {
    let setup = ReplayConfig { config: Config::default(), options, verify: true };
    replay(kind, load, &setup, &mut Silent).unwrap()
}

fn placed(run: &Run) -> Vec<(i64, u64, u64, RangeSet)> {
    run.schedule.iter().map(|p| (p.id, p.start, p.end, p.set.clone())).collect()
}

fn continuous() -> impl Iterator<Item = Kind> {
    Kind::ALL.iter().copied().filter(|k| !k.needs_horizon())
}

#[test]
fn a_hand_worked_plan_only_schedule() {
    // 4 resources. A takes all of them for 10; B (2 for 5) arrives at 5 and must wait
    // for A; C (3 for 3) arrives at 6 and waits for B, since only 2 are free beside it.
    let load = Workload {
        capacity: 4,
        requests: vec![job(1, 0, 4, 10, 1), job(2, 5, 2, 5, 1), job(3, 6, 3, 3, 1)],
        skipped: Default::default(),
    };
    let options = Options { mode: Mode::PlanOnly, ..Options::default() };
    for kind in continuous() {
        let run = run(kind, &load, options);
        assert_eq!(
            placed(&run),
            [
                (1, 0, 10, RangeSet::from_range(0, 4)),
                (2, 10, 15, RangeSet::from_range(0, 2)),
                (3, 15, 18, RangeSet::from_range(0, 3))
            ],
            "{kind}"
        );
        assert_eq!((run.checks.len(), run.searches.len()), (3, 2));
        assert_eq!(run.ops.get(&OpKind::Release), None);
    }
}

#[test]
fn an_early_end_releases_its_tail_and_compression_moves_the_queue_up() {
    // A (4 for 10) ends at 4. B (2 for 5) and C (4 for 3) were planned at 10 and 15.
    let load = Workload {
        capacity: 4,
        requests: vec![job(1, 0, 4, 10, 4), job(2, 1, 2, 5, 5), job(3, 2, 4, 3, 3)],
        skipped: Default::default(),
    };
    for kind in continuous() {
        let plain = run(kind, &load, Options::default());
        assert_eq!(plain.ops.get(&OpKind::Release), Some(&1), "{kind}");
        let starts: Vec<_> = plain.schedule.iter().map(|p| p.start).collect();
        assert_eq!(starts, [0, 10, 15], "{kind}: without compression nothing moves");
        let compressed = run(kind, &load, Options { compress: true, ..Options::default() });
        // At 4, B moves to 4 and C to 9, right after B.
        let starts: Vec<_> = compressed.schedule.iter().map(|p| (p.id, p.start, p.end)).collect();
        assert_eq!(starts, [(1, 0, 10), (2, 4, 9), (3, 9, 12)], "{kind}");
        assert_eq!(compressed.ops.get(&OpKind::Release), Some(&3), "{kind}: A's tail, then B and C");
    }
}

#[test]
fn advance_reservations_are_admitted_at_their_start_or_offered_options() {
    let requests: Vec<_> = (0..40).map(|k| job(k + 1, 10 * k as u64, 3, 5_000, 5_000)).collect();
    let load = Workload { capacity: 4, requests, skipped: Default::default() };
    let options = Options { ar_fraction: 1.0, seed: 7, ..Options::default() };
    let plan = plan_reservations(load.requests.iter().map(|r| r.submit), 1.0, 7);
    for kind in continuous() {
        let run = run(kind, &load, options);
        assert_eq!(run.ar.requested, 40);
        assert_eq!(run.ar.admitted as usize + run.ar.offered.len(), 40);
        assert!(run.ar.admitted >= 1 && !run.ar.offered.is_empty(), "{:?}", run.ar);
        for p in &run.schedule {
            let asked = plan[(p.id - 1) as usize].unwrap().start;
            assert!(p.reserved && p.start == asked, "{p:?} asked for {asked}");
        }
    }
}

#[test]
fn the_reservation_plan_is_seeded_and_within_three_hours() {
    let submits = || (0..10_000).map(|k| k * 100);
    let plan = plan_reservations(submits(), 0.3, 42);
    assert_eq!(plan, plan_reservations(submits(), 0.3, 42));
    assert_ne!(plan, plan_reservations(submits(), 0.3, 43));
    let chosen: Vec<_> =
        plan.iter().zip(submits()).filter_map(|(r, s)| Some(r.as_ref()?.start - s)).collect();
    assert!((2_800..3_200).contains(&chosen.len()), "{} of 10000", chosen.len());
    assert!(chosen.iter().all(|&offset| offset <= AR_WINDOW));
    assert!(plan_reservations(submits(), 0.0, 42).iter().all(Option::is_none));
}

/// Every structure, verified against the oracle, on a prefix of the bundled trace with
/// slot width `slot` and the horizon the trace needs: identical schedules, none unplaced.
fn verified_prefix(slot: u64, options: Options) {
    let trace = swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, false).unwrap();
    let load = workload(&trace, 100, Some(1500));
    let config = Config { slot, horizon: Some(horizon_for(&load, slot, &options).unwrap()) };
    let setup = ReplayConfig { config, options, verify: true };
    let runs: Vec<_> = Kind::ALL.iter().map(|&k| replay(k, &load, &setup, &mut Silent).unwrap()).collect();
    assert!(runs.iter().all(|r| r.schedule == runs[0].schedule && r.unplaced == 0));
    assert_eq!(runs[0].schedule.len() + runs[0].ar.offered.len(), load.requests.len());
}

#[test]
fn a_verified_prefix_of_the_bundled_trace_schedules_identically_with_minute_slots() {
    verified_prefix(60, Options { compress: true, ar_fraction: 0.2, ..Options::default() });
}

#[test]
fn and_with_hour_slots_plan_only() {
    verified_prefix(3600, Options { mode: Mode::PlanOnly, ..Options::default() });
}

#[test]
fn continuous_structures_need_no_horizon() {
    let trace = swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, false).unwrap();
    let load = workload(&trace, 100, Some(1500));
    let runs: Vec<_> = continuous().map(|k| run(k, &load, Options::default())).collect();
    assert!(runs.len() >= 4 && runs.iter().all(|r| r.schedule == runs[0].schedule && r.unplaced == 0));
    assert!(runs[0].ops.get(&OpKind::Release).is_some_and(|&n| n > 1000));
    assert!(!runs[0].sizes.is_empty());
}
