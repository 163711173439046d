//! The slotted array: its configuration, the rolling horizon, and its cost accounting.

use structures::{AvailabilityIndex, Config, Cost, Error, RangeSet, SlottedArray, TimeFrame, MAX_SLOTS};

mod support;

use support::{allocate_all, fail_over_a_run_of_equal_slots, horizon, ids};

fn array(capacity: u32, slot: u64, slots: u64) -> SlottedArray {
    SlottedArray::new(capacity, horizon(slot, slots)).unwrap()
}

#[test]
fn it_needs_a_bounded_horizon() {
    assert!(SlottedArray::new(4, Config::default()).unwrap_err().to_string().contains("needs a horizon"));
    let huge = Config { slot: 1, horizon: Some(MAX_SLOTS + 1) };
    assert!(matches!(SlottedArray::new(4, huge), Err(Error::BadConfig { .. })));
}

#[test]
fn the_horizon_rolls_forward_with_advance() {
    let mut a = array(4, 10, 5);
    assert_eq!(a.check(0, 51, 1), Err(Error::BeyondHorizon { end: 51, limit: 50 }));
    a.allocate(0, 50, &ids(0, 4)).unwrap();
    assert_eq!(a.earliest(0, 10, 1), Ok(None));
    a.advance(23).unwrap();
    // The slot holding 23 is the first; two free slots were appended at the end.
    assert_eq!(a.now(), 20);
    assert_eq!(a.earliest(23, 10, 4).unwrap().map(|f| f.start), Some(50));
    a.validate().unwrap();
    // The running reservation moved to the new first slot, and its tail can be released.
    a.release(40, 50, &ids(0, 4)).unwrap();
    a.validate().unwrap();
    assert_eq!(a.free_frames(20, 70).unwrap(), vec![TimeFrame { start: 40, end: 70, free: ids(0, 4) }]);
}

#[test]
fn releasing_part_of_a_reservation_cuts_it_and_stays_valid() {
    let mut a = array(4, 1, 20);
    allocate_all(&mut a, &[(2, 12, ids(0, 3))]);
    release_all(&mut a, &[(5, 8, ids(1, 2)), (2, 12, ids(0, 1))]);
    let err = a.release(5, 8, &ids(1, 2)).unwrap_err();
    assert_eq!(err, Error::NotAllocated { start: 5, end: 8, free: ids(1, 2) });
    release_all(&mut a, &[(2, 5, ids(1, 3)), (5, 12, ids(2, 3)), (8, 12, ids(1, 2))]);
    assert_eq!(a.free_frames(0, 20).unwrap(), vec![TimeFrame { start: 0, end: 20, free: ids(0, 4) }]);
}

#[test]
fn a_release_finds_reservations_of_every_age() {
    let mut a = array(4, 1, 40);
    allocate_all(&mut a, &[(0, 40, ids(3, 4)), (5, 15, ids(0, 1)), (9, 20, ids(1, 2))]);
    // Ids 0, 1 and 3 are held by reservations starting at 5, 9 and 0: the walk back from
    // slot 10 must reach all three, and no further than slot 0.
    release_all(&mut a, &[(10, 12, ids(0, 2).union(&ids(3, 4)))]);
    assert_eq!(a.check(10, 12, 4), Ok(Some(ids(0, 4))));
    a.advance(7).unwrap();
    // What runs at the present moved to the first slot; the walk back ends there.
    release_all(&mut a, &[(8, 9, ids(0, 1).union(&ids(3, 4)))]);
    assert_eq!(
        a.free_frames(7, 20).unwrap(),
        vec![
            TimeFrame { start: 7, end: 9, free: ids(1, 2) },
            TimeFrame { start: 7, end: 20, free: ids(2, 3) },
            TimeFrame { start: 8, end: 9, free: ids(0, 1).union(&ids(3, 4)) },
            TimeFrame { start: 10, end: 12, free: ids(0, 2).union(&ids(3, 4)) },
            TimeFrame { start: 15, end: 20, free: ids(0, 1) },
        ]
    );
}

/// Releases each `(start, end, ids)` of `released` in turn, validating after each: a cut
/// reservation must leave the slots' reservation lists consistent.
fn release_all(a: &mut SlottedArray, released: &[(u64, u64, RangeSet)]) {
    for (start, end, set) in released {
        a.release(*start, *end, set).unwrap();
        a.validate().unwrap();
    }
}

#[test]
fn costs_count_slots_against_the_papers_worst_case() {
    let mut a = array(4, 10, 10);
    a.allocate(20, 40, &ids(0, 3)).unwrap();
    assert_eq!(a.check(0, 50, 2), Ok(None));
    // Slots 0 and 10 pass, 20 has one free: three of five slots examined.
    assert_eq!(a.last_cost(), Some(Cost { search: 0, visited: 3, worst: 5 }));
    let frame = a.earliest(5, 20, 2).unwrap().unwrap();
    assert_eq!((frame.start, frame.end), (40, 60));
    // Candidate 5 (slots 0..30) stops at 20 and skips to 30; candidate 30 (slots 30..50)
    // stops at 30 and skips to 40; candidate 40 passes with slots 40 and 50.
    // Worst: the first window's 3 slots, then 8 later candidates (10 to 80, the last
    // ending at the horizon, 100) of 2 slots each.
    assert_eq!(a.last_cost(), Some(Cost { search: 0, visited: 6, worst: 3 + 8 * 2 }));
}

#[test]
fn a_failed_candidate_passes_over_its_run_of_equal_slots() {
    let mut a = array(4, 1, 2_000);
    let cost = fail_over_a_run_of_equal_slots(&mut a);
    // Candidate 0 scans slots 0..=500 and fails; slots 1..500 equal slot 0, so they are
    // passed over once each instead of each scanning its window; candidate 500 scans
    // its 600 slots. Worst: the first window's 600 slots, then 1,400 later candidates of
    // 600 slots each.
    assert_eq!(cost, Cost { search: 0, visited: 501 + 499 + 600, worst: 600 + 1_400 * 600 });
    a.validate().unwrap();
}
