//! Tests of `src/replay/`, one module per source file, in one test binary. This file
//! holds those of `src/replay/mod.rs`: schedules worked by hand (plan-only, with
//! completions, with compression), verified prefixes of the bundled trace on every
//! structure with identical schedules, and the index `replay_on` hands back.

mod ar;
mod metrics;
mod sim;
mod summary;

#[path = "../support/fixtures.rs"]
mod fixtures;

use fixtures::{job, load};
use oracle::OpKind;
use scheduling::replay::{
    final_state, horizon_for, replay, replay_on, Mode, Options, ReplayConfig, Run, Silent,
};
use structures::{Config, Kind, RangeSet};
use traces::swf;
use traces::workload::{workload, Workload};
use traces::{BUNDLED_NAME, BUNDLED_TRACE};

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

/// The horizon `load` needs under `options`, with slot 1, as `resbench replay` computes it.
fn needed(load: &Workload, options: &Options) -> Config {
    Config { slot: 1, horizon: Some(horizon_for(load, 1, options).unwrap()) }
}

/// Replays `load` under `config` and `options` on every structure beside the oracle;
/// they must decide alike (schedule, unplaced jobs, the policy's counts, reservations,
/// and the ops made). Returns the reference structure's run.
fn on_every(load: &Workload, config: Config, options: Options) -> Run {
    let setup = ReplayConfig { config, options, verify: true };
    let runs: Vec<Run> = Kind::ALL.iter().map(|&k| replay(k, load, &setup, &mut Silent).unwrap()).collect();
    for r in &runs[1..] {
        let what = |r: &Run| (r.schedule.clone(), r.unplaced, r.counts.clone(), r.ar.clone(), r.ops.clone());
        assert_eq!(what(r), what(&runs[0]), "{} and {} differ", r.structure, runs[0].structure);
    }
    runs.into_iter().next().unwrap()
}

#[test]
fn a_hand_worked_plan_only_schedule() {
    // 4 resources. A takes all of them for 10; B (2 for 5) arrives at 5 and must wait
    // for A; C (3 for 3) arrives at 6 and waits for B, since only 2 are free beside it.
    let load = load(4, vec![job(1, 0, 4, 10, 1), job(2, 5, 2, 5, 1), job(3, 6, 3, 3, 1)]);
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
    let load = load(4, vec![job(1, 0, 4, 10, 4), job(2, 1, 2, 5, 5), job(3, 2, 4, 3, 3)]);
    for kind in continuous() {
        let plain = run(kind, &load, Options { compress: false, ..Options::default() });
        assert_eq!(plain.ops.get(&OpKind::Release), Some(&1), "{kind}");
        let starts: Vec<_> = plain.schedule.iter().map(|p| p.start).collect();
        assert_eq!(starts, [0, 10, 15], "{kind}: without compression nothing moves");
        let compressed = run(kind, &load, Options::default());
        // At 4, B moves to 4 and C to 9, right after B.
        let starts: Vec<_> = compressed.schedule.iter().map(|p| (p.id, p.start, p.end)).collect();
        assert_eq!(starts, [(1, 0, 10), (2, 4, 9), (3, 9, 12)], "{kind}");
        assert_eq!(compressed.ops.get(&OpKind::Release), Some(&3), "{kind}: A's tail, then B and C");
    }
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
    verified_prefix(60, Options { ar_fraction: 0.2, ..Options::default() });
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

#[test]
fn replay_on_hands_back_the_index_as_the_replay_left_it() {
    // The plan-only case above: A holds all 4 ids over [0, 10), B ids 0-1 over [10, 15),
    // C ids 0-2 over [15, 18); the last event is C's arrival at 6.
    let load = load(4, vec![job(1, 0, 4, 10, 1), job(2, 5, 2, 5, 1), job(3, 6, 3, 3, 1)]);
    let options = Options { mode: Mode::PlanOnly, ..Options::default() };
    let config = needed(&load, &options);
    let (now, frames) = final_state(&load, config, &options).unwrap();
    assert_eq!(now, 6);
    for &kind in Kind::ALL {
        let index = kind.build(load.capacity, config).unwrap();
        let index = replay_on(index, &load, &options).unwrap();
        assert_eq!(index.now(), 6, "{kind}");
        assert_eq!(index.check(10, 15, 2).unwrap(), Some(RangeSet::from_range(2, 4)), "{kind}");
        assert_eq!(index.check(10, 15, 3).unwrap(), None, "{kind}");
        assert_eq!(index.check(15, 18, 1).unwrap(), Some(RangeSet::from_range(3, 4)), "{kind}");
        // `final_state` is the same state, read off the reference structure.
        assert_eq!(index.free_frames(now, config.limit(now)).unwrap(), frames, "{kind}");
    }
}
