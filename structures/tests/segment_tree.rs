//! The segment tree: its configuration, the ring that rolls with the horizon, and its
//! cost accounting in tree nodes.

use structures::{AvailabilityIndex, Config, Cost, Error, SegmentTree, TimeFrame, MAX_SLOTS};

mod support;

use support::{earliest_after, fail_over_a_run_of_equal_slots, horizon, ids};

fn tree(capacity: u32, slot: u64, slots: u64) -> SegmentTree {
    SegmentTree::new(capacity, horizon(slot, slots)).unwrap()
}

#[test]
fn it_needs_a_bounded_horizon() {
    let err = SegmentTree::new(4, Config::default()).unwrap_err();
    assert_eq!(err, Error::BadConfig { reason: "the segtree structure needs a horizon (--horizon)".into() });
    let huge = Config { slot: 1, horizon: Some(MAX_SLOTS + 1) };
    assert!(matches!(SegmentTree::new(4, huge), Err(Error::BadConfig { .. })));
}

#[test]
fn windows_across_the_end_of_the_ring_are_answered_whole() {
    let mut t = tree(4, 10, 8);
    t.allocate(0, 80, &ids(0, 2)).unwrap();
    // Slots 0..30 expire and come back free at the horizon, 80..110.
    t.advance(35).unwrap();
    assert_eq!(t.now(), 30);
    t.validate().unwrap();
    assert_eq!(t.check(30, 110, 3), Ok(None));
    assert_eq!(t.check(80, 110, 4), Ok(Some(ids(0, 4))));
    // An allocation across the ring's end, then a partial release of it.
    t.allocate(70, 100, &ids(2, 4)).unwrap();
    t.release(80, 90, &ids(3, 4)).unwrap();
    t.validate().unwrap();
    assert_eq!(t.allocate(60, 90, &ids(3, 4)), Err(Error::NotFree { start: 60, end: 90, busy: ids(3, 4) }));
    assert_eq!(
        t.free_frames(60, 110).unwrap(),
        vec![
            TimeFrame { start: 60, end: 70, free: ids(2, 4) },
            TimeFrame { start: 80, end: 90, free: ids(3, 4) },
            TimeFrame { start: 80, end: 110, free: ids(0, 2) },
            TimeFrame { start: 100, end: 110, free: ids(2, 4) },
        ]
    );
    let frame = t.earliest(31, 10, 4).unwrap().unwrap();
    assert_eq!((frame.start, frame.end), (100, 110));
    assert_eq!(t.earliest(31, 20, 4), Ok(None));
    assert_eq!(t.check(100, 111, 1), Err(Error::BeyondHorizon { end: 111, limit: 110 }));
}

#[test]
fn a_jump_past_the_horizon_frees_every_slot() {
    let mut t = tree(4, 1, 5);
    t.allocate(0, 5, &ids(0, 4)).unwrap();
    t.advance(1_000).unwrap();
    t.validate().unwrap();
    assert_eq!(t.check(1_000, 1_005, 4), Ok(Some(ids(0, 4))));
    assert_eq!(t.advance(999), Err(Error::BeforePast { time: 999, now: 1_000 }));
}

#[test]
fn check_costs_count_nodes_against_four_a_level_per_ring_range() {
    // Eight slots: four levels of nodes.
    let mut t = tree(4, 10, 8);
    assert_eq!(t.check(0, 80, 1), Ok(Some(ids(0, 4))));
    // The root covers the window.
    assert_eq!(t.last_cost(), Some(Cost { search: 0, visited: 1, worst: 16 }));
    t.advance(30).unwrap();
    assert_eq!(t.check(30, 110, 1), Ok(Some(ids(0, 4))));
    // Two ring ranges, [3, 8) and [0, 3), of five nodes each.
    assert_eq!(t.last_cost(), Some(Cost { search: 0, visited: 10, worst: 32 }));
}

#[test]
fn earliest_skips_past_the_last_slot_too_full() {
    let mut t = tree(4, 10, 8);
    let (frame, cost) = earliest_after(&mut t, &[(10, 20, ids(0, 3)), (30, 40, ids(0, 3))], 0, 40, 2);
    // Candidate 0 (slots 0..4) finds slot 3 too full and moves to slot 4, which fits.
    assert_eq!(frame, (40, 80, ids(0, 4)));
    // Two candidates, one ring range each, at most (6 + 4) nodes a level of four.
    assert_within(cost, 2 * 10 * 4);
    assert_eq!(t.earliest(0, 50, 2), Ok(None));
}

#[test]
fn a_failed_candidate_moves_to_the_end_of_its_run_of_equal_slots() {
    // 2,048 one-second slots: twelve levels of nodes.
    let mut t = tree(4, 1, 2_048);
    let cost = fail_over_a_run_of_equal_slots(&mut t);
    // Two candidates (0 and 500, not every slot between), one ring range each, at most
    // (6 + 4) nodes a level; after the failure, 1 + 6 a level to find where slot 0's run ends.
    assert_within(cost, 2 * 10 * 12 + 7 * 12);
    t.validate().unwrap();
}

/// Checks that `cost` has the worst case `worst` and visits some nodes, but no more: the
/// bound is per level, so the exact count is not the point.
fn assert_within(cost: Cost, worst: u64) {
    assert_eq!(cost.worst, worst);
    assert!(cost.visited > 0 && cost.visited <= cost.worst, "{cost:?}");
}
