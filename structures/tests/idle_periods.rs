//! The 2-D trees of idle periods: the full feasible set against the paper's early stop,
//! the cost bound, runs of slots sharing a tree, and the server cap.

use structures::idle_periods::MAX_SERVERS;
use structures::{AvailabilityIndex, Config, Error, IdlePeriodTrees, RangeSet, TimeFrame};

fn ids(lo: u32, hi: u32) -> RangeSet {
    RangeSet::from_range(lo, hi)
}

/// Four servers: 0 busy over [0, 4), 1 over [0, 10) and [25, 40), 2 over [20, 30), 3 idle.
fn four() -> IdlePeriodTrees {
    let mut t = IdlePeriodTrees::new(4, Config::default()).unwrap();
    t.allocate(0, 4, &ids(0, 1)).unwrap();
    t.allocate(0, 10, &ids(1, 2)).unwrap();
    t.allocate(25, 40, &ids(1, 2)).unwrap();
    t.allocate(20, 30, &ids(2, 3)).unwrap();
    t.validate().unwrap();
    t
}

#[test]
fn check_returns_every_feasible_server_and_the_early_stop_only_n() {
    let t = four();
    // Over [12, 22): servers 0, 1 and 3 (2 is busy from 20).
    assert_eq!(t.check(12, 22, 2), Ok(Some(RangeSet::from_ids([0, 1, 3]))));
    let first = t.first_feasible(12, 22, 2).unwrap().unwrap();
    assert_eq!(first.count(), 2);
    assert!(first.is_subset(&RangeSet::from_ids([0, 1, 3])));
    assert_eq!(t.check(12, 22, 4), Ok(None));
    assert_eq!(t.first_feasible(12, 22, 4), Ok(None));
    assert_eq!(t.check(12, 26, 3), Ok(None));
    assert_eq!(t.check(12, 26, 2), Ok(Some(RangeSet::from_ids([0, 3]))));
}

#[test]
fn costs_stay_within_the_papers_bound_and_the_early_stop_does_no_more() {
    let t = four();
    // The run [10, 20) holds one period per server: 3 levels, a bound of 3 + 3².
    t.check(12, 22, 1).unwrap();
    let full = t.last_cost().unwrap();
    assert_eq!(full.worst, 12);
    assert_eq!(full.search, 3, "Phase 1 walks one path down the primary tree");
    assert!(full.visited > full.search && full.visited <= full.worst, "{full:?}");
    t.first_feasible(12, 22, 1).unwrap();
    let early = t.last_cost().unwrap();
    assert!(early.visited <= full.visited && early.worst == full.worst, "{early:?} against {full:?}");
}

#[test]
fn earliest_tries_ready_then_each_later_run_start() {
    let t = four();
    // All four are idle together over [10, 20), then from 40 on.
    assert_eq!(t.earliest(0, 5, 4).unwrap().map(|f| f.start), Some(10));
    let found = t.earliest(0, 15, 4).unwrap().unwrap();
    assert_eq!(found, TimeFrame { start: 40, end: 55, free: ids(0, 4) });
    let cost = t.last_cost().unwrap();
    assert!(cost.visited <= cost.worst, "{cost:?}");
    // From 7, three are idle (0, 2 and 3), but all four only once 1 is, at 10.
    assert_eq!(t.earliest(7, 10, 3).unwrap().map(|f| f.start), Some(7));
    assert_eq!(t.earliest(7, 10, 4).unwrap().map(|f| f.start), Some(10));
}

#[test]
fn slots_without_a_period_boundary_between_them_share_a_tree() {
    let mut t = IdlePeriodTrees::new(3, Config { slot: 10, horizon: Some(1000) }).unwrap();
    // One run from 0 holding three periods.
    assert_eq!(t.size(), 3);
    t.allocate(100, 200, &ids(0, 2)).unwrap();
    // Runs [0, 100), [100, 200), [200, ..): 3, 1 and 3 periods.
    assert_eq!(t.size(), 7);
    t.release(150, 200, &ids(0, 1)).unwrap();
    t.validate().unwrap();
    t.release(100, 150, &ids(0, 1)).unwrap();
    t.validate().unwrap();
    // Server 0 is whole again, and merged back into one period.
    assert_eq!(t.check(0, 1000, 1), Ok(Some(RangeSet::from_ids([0, 2]))));
    t.advance(205).unwrap();
    t.validate().unwrap();
    assert_eq!((t.now(), t.size()), (200, 3));
}

#[test]
fn refused_requests_change_nothing() {
    let mut t = four();
    let before = t.free_frames(0, 100).unwrap();
    assert_eq!(t.allocate(5, 12, &ids(0, 2)), Err(Error::NotFree { start: 5, end: 12, busy: ids(1, 2) }));
    assert_eq!(t.release(3, 5, &ids(0, 1)), Err(Error::NotAllocated { start: 3, end: 5, free: ids(0, 1) }));
    assert_eq!(t.free_frames(0, 100).unwrap(), before);
    t.validate().unwrap();
}

#[test]
fn the_number_of_servers_is_capped() {
    let err = IdlePeriodTrees::new(MAX_SERVERS + 1, Config::default()).unwrap_err();
    assert!(err.to_string().contains("at most"), "{err}");
    assert!(IdlePeriodTrees::new(MAX_SERVERS, Config::default()).is_ok());
}

/// Found by `ci/fuzz-coverage`: at the end of time a period reaching it has ended, and the
/// last run's tree lets it go (it kept it, and failed its own check).
#[test]
fn advancing_to_the_end_of_time_ends_the_periods_that_reach_it() {
    for slot in [1, 4] {
        let mut t = IdlePeriodTrees::new(2, Config { slot, horizon: None }).unwrap();
        t.allocate(0, 8, &ids(0, 1)).unwrap();
        t.advance(u64::MAX / slot * slot).unwrap();
        t.validate().unwrap();
    }
}
