//! The interval skip list: reservations cut by releases, nodes coming and going with
//! their endpoints, the early stop and the cost bound.

use structures::{AvailabilityIndex, Config, Error, IntervalSkipList, RangeSet, TimeFrame};

fn ids(lo: u32, hi: u32) -> RangeSet {
    RangeSet::from_range(lo, hi)
}

#[test]
fn many_overlapping_reservations_keep_the_markers_consistent() {
    let mut l = IntervalSkipList::new(64, Config::default()).unwrap();
    // Staggered reservations, each id busy in one of them at a time.
    for i in 0..64u32 {
        let start = u64::from(i) * 7 % 50;
        l.allocate(start, start + 30 + u64::from(i % 5), &ids(i, i + 1)).unwrap();
        l.validate().unwrap();
    }
    for i in (0..64u32).step_by(3) {
        let start = u64::from(i) * 7 % 50;
        l.release(start + 10, start + 20, &ids(i, i + 1)).unwrap();
        l.validate().unwrap();
    }
    // Id 0 is busy over [0, 10) and [20, 30), and free between.
    assert_eq!(l.check(10, 20, 1).unwrap().map(|free| free.contains(0)), Some(true));
    assert_eq!(l.check(5, 15, 1).unwrap().map(|free| free.contains(0)), Some(false));
}

#[test]
fn nodes_are_the_distinct_endpoints_and_go_with_them() {
    let mut l = IntervalSkipList::new(4, Config::default()).unwrap();
    l.allocate(10, 20, &ids(0, 2)).unwrap();
    l.allocate(20, 30, &ids(0, 1)).unwrap();
    assert_eq!(l.size(), 3);
    // Cutting the middle out of [10, 20) adds its pieces' endpoints.
    l.release(12, 15, &ids(0, 2)).unwrap();
    assert_eq!(l.size(), 5);
    l.release(10, 12, &ids(0, 2)).unwrap();
    l.release(15, 20, &ids(0, 2)).unwrap();
    assert_eq!(l.size(), 2);
    l.advance(30).unwrap();
    assert_eq!(l.size(), 0);
    l.validate().unwrap();
    assert_eq!(l.free_frames(30, 40).unwrap(), vec![TimeFrame { start: 30, end: 40, free: ids(0, 4) }]);
}

#[test]
fn check_stops_once_too_few_stay_free_within_its_bound() {
    let mut l = IntervalSkipList::new(8, Config::default()).unwrap();
    for i in 0..8u32 {
        l.allocate(u64::from(i), 100, &ids(i, i + 1)).unwrap();
    }
    assert_eq!(l.check(0, 10, 8), Ok(None));
    let early = l.last_cost().unwrap();
    assert_eq!(l.check(0, 10, 1), Ok(None));
    let longer = l.last_cost().unwrap();
    assert!(early.visited < longer.visited, "{early:?} against {longer:?}");
    assert!(longer.visited <= longer.worst);
    assert_eq!(l.check(0, 3, 5), Ok(Some(ids(3, 8))));
}

#[test]
fn earliest_starts_where_a_reservation_ends() {
    let mut l = IntervalSkipList::new(4, Config { slot: 5, horizon: None }).unwrap();
    l.allocate(0, 20, &ids(0, 2)).unwrap();
    l.allocate(10, 40, &ids(2, 3)).unwrap();
    assert_eq!(
        l.earliest(3, 10, 3).unwrap(),
        Some(TimeFrame { start: 20, end: 30, free: RangeSet::from_ids([0, 1, 3]) })
    );
    let cost = l.last_cost().unwrap();
    assert!(cost.visited <= cost.worst, "{cost:?}");
    assert_eq!(l.allocate(3, 12, &ids(1, 3)), Err(Error::NotFree { start: 3, end: 12, busy: ids(1, 3) }));
    l.validate().unwrap();
}
