//! `src/replay/sim.rs`: the event loop, worked by hand. Ends go before arrivals at equal
//! times, a re-planned job's old end is dropped, windows past the horizon are counted
//! and never asked, how far windows reach is the horizon a replay needs, and every call
//! the loop makes on the structure is the one worked out here.

use std::collections::BTreeMap;

use oracle::{Op, OpKind};
use scheduling::replay::{
    horizon_for, replay, replay_on, Mode, Observer, Options, ReplayConfig, Run, Silent,
};
use structures::{Config, Kind, RangeSet};

use super::fixtures::tapped;
use super::{job, load, needed, on_every};

/// `(id, start)` of every placed job.
fn starts(run: &Run) -> Vec<(i64, u64)> {
    run.schedule.iter().map(|p| (p.id, p.start)).collect()
}

fn ops(counts: &[(OpKind, u64)]) -> BTreeMap<OpKind, u64> {
    counts.iter().copied().collect()
}

#[test]
fn ends_go_before_arrivals_at_equal_times() {
    // A holds both ids over [0, 10) but ends at 4; B (both for 3) arrives at 4. A's end
    // is handled first, so its tail is free when B is checked, and B starts at 4.
    let at = |submit_b| load(2, vec![job(1, 0, 2, 10, 4), job(2, submit_b, 2, 3, 3)]);
    let simulate = Options { compress: false, ..Options::default() };
    let run = on_every(&at(4), needed(&at(4), &simulate), simulate);
    assert_eq!(starts(&run), [(1, 0), (2, 4)]);
    // Events: A's arrival, A's end, B's arrival; B's check at 4 succeeds, so no search.
    let expected = [(OpKind::Check, 2), (OpKind::Allocate, 2), (OpKind::Release, 1), (OpKind::Advance, 3)];
    assert_eq!(run.ops, ops(&expected));
    // Arriving a moment before A's end, B finds nothing free and keeps its reservation
    // at 10 (no compression).
    let run = on_every(&at(3), needed(&at(3), &simulate), simulate);
    assert_eq!(starts(&run), [(1, 0), (2, 10)]);
    // Plan-only, nothing ends early: B waits for the whole reservation, and no end is
    // ever an event.
    let plan_only = Options { mode: Mode::PlanOnly, ..Options::default() };
    let run = on_every(&at(4), needed(&at(4), &plan_only), plan_only);
    assert_eq!(starts(&run), [(1, 0), (2, 10)]);
    let expected = [(OpKind::Check, 2), (OpKind::Earliest, 1), (OpKind::Allocate, 2), (OpKind::Advance, 2)];
    assert_eq!(run.ops, ops(&expected));
}

/// One id. A (for 10) ends at 2; B (for 5, runs 3) arrived at 1 and was reserved at 10,
/// so its end was due at 13. With compression B moves to 2 when A ends, and ends at 5.
fn moved_case() -> traces::workload::Workload {
    load(1, vec![job(1, 0, 1, 10, 2), job(2, 1, 1, 5, 3)])
}

#[test]
fn every_call_of_a_replay_with_a_re_planned_job_is_the_one_worked_out_by_hand() {
    let load = moved_case();
    let options = Options::default();
    let config = needed(&load, &options);
    let id0 = || RangeSet::from_range(0, 1);
    let expected = [
        // A arrives and fits.
        Op::Advance { now: 0 },
        Op::Check { start: 0, end: 10, n: 1 },
        Op::Allocate { start: 0, end: 10, set: id0() },
        // B arrives: busy now, reserved at 10.
        Op::Advance { now: 1 },
        Op::Check { start: 1, end: 6, n: 1 },
        Op::Earliest { ready: 1, duration: 5, n: 1 },
        Op::Allocate { start: 10, end: 15, set: id0() },
        // A ends: its tail is released, then B is re-planned from now.
        Op::Advance { now: 2 },
        Op::Release { start: 2, end: 10, set: id0() },
        Op::Release { start: 10, end: 15, set: id0() },
        Op::Earliest { ready: 2, duration: 5, n: 1 },
        Op::Allocate { start: 2, end: 7, set: id0() },
        // B ends at its new start plus its run time. Its old end, 13, is never an event:
        // handled, it would release B's tail a second time, which the structure refuses.
        Op::Advance { now: 5 },
        Op::Release { start: 5, end: 7, set: id0() },
    ];
    for &kind in Kind::ALL {
        let (index, log) = tapped(kind, 1, config, None);
        let index = replay_on(index, &load, &options).unwrap();
        assert_eq!(*log.borrow(), expected, "{kind}");
        assert_eq!(index.now(), 5, "{kind}");
    }
    let run = on_every(&load, config, options);
    assert_eq!(starts(&run), [(1, 0), (2, 2)]);
    // The structure's size is sampled after every event (a small replay samples them all).
    assert_eq!(run.sizes.iter().map(|&(t, _)| t).collect::<Vec<_>>(), [0, 1, 2, 5]);
}

#[test]
fn the_observer_hears_of_every_arrival_and_nothing_else() {
    #[derive(Default)]
    struct Heard(Vec<(u64, u64)>);
    impl Observer for Heard {
        fn arrived(&mut self, done: u64, total: u64) {
            self.0.push((done, total));
        }
    }
    let load = moved_case();
    let options = Options::default();
    for &kind in Kind::ALL {
        let mut heard = Heard::default();
        let setup = ReplayConfig { config: needed(&load, &options), options, verify: true };
        replay(kind, &load, &setup, &mut heard).unwrap();
        // Two arrivals, not the two ends between and after them.
        assert_eq!(heard.0, [(1, 2), (2, 2)], "{kind}");
    }
}

#[test]
fn a_window_past_the_horizon_is_counted_and_never_asked() {
    // A horizon of 20: A (for 30) cannot be placed and no op is made for it (a
    // structure would refuse the window); B (for 5) is placed as usual.
    let load = load(2, vec![job(1, 0, 1, 30, 30), job(2, 0, 1, 5, 5)]);
    let config = Config { slot: 1, horizon: Some(20) };
    let run = on_every(&load, config, Options::default());
    assert_eq!(starts(&run), [(2, 0)]);
    assert_eq!(run.unplaced, 1);
    // Both of A's tries, the check at its submit and the search after it, are counted.
    assert_eq!(run.counts, BTreeMap::from([("windows beyond the horizon", 2)]));
    assert_eq!(run.ops, ops(&[(OpKind::Check, 1), (OpKind::Allocate, 1), (OpKind::Advance, 2)]));
}

#[test]
fn how_far_windows_reach_is_the_horizon_the_replay_needs() {
    // A holds all 4 ids over [0, 10); B (all 4 for 5) arrives at 2 and is reserved over
    // [10, 15): 13 past the present, the furthest any window reaches.
    let load = load(4, vec![job(1, 0, 4, 10, 10), job(2, 2, 4, 5, 5)]);
    let options = Options { mode: Mode::PlanOnly, ..Options::default() };
    let setup = ReplayConfig { config: Config::default(), options, verify: true };
    assert_eq!(replay(Kind::REFERENCE, &load, &setup, &mut Silent).unwrap().reach, 13);
    assert_eq!(horizon_for(&load, 1, &options).unwrap(), 13);
    let with = |horizon| Config { slot: 1, horizon: Some(horizon) };
    assert_eq!(starts(&on_every(&load, with(13), options)), [(1, 0), (2, 10)]);
    // One less and B's only window ends past the horizon: asked, but not found.
    let short = on_every(&load, with(12), options);
    assert_eq!((starts(&short), short.unplaced), (vec![(1, 0)], 1));
    assert!(short.counts.is_empty(), "{:?}", short.counts);
}
