//! The oracle's own counts, on states small enough to count by hand.

use oracle::Oracle;
use structures::{AvailabilityIndex, Config, RangeSet};

#[test]
fn change_points_count_only_where_the_free_set_changes() {
    let ids = |lo, hi| RangeSet::from_range(lo, hi);
    let mut oracle = Oracle::new(4, Config::default()).unwrap();
    assert_eq!(oracle.change_points(), 1, "a fresh oracle: the present alone");
    oracle.allocate(10, 20, &ids(0, 1)).unwrap();
    assert_eq!(oracle.change_points(), 3, "0, 10, 20");
    oracle.allocate(20, 30, &ids(0, 1)).unwrap();
    assert_eq!(oracle.change_points(), 3, "0, 10, 30: at 20 the same id stays busy");
    oracle.allocate(30, 40, &ids(1, 2)).unwrap();
    assert_eq!(oracle.change_points(), 4, "0, 10, 30, 40: at 30 another id is busy");
    oracle.advance(15).unwrap();
    assert_eq!(oracle.change_points(), 3, "15, 30, 40");
    oracle.release(15, 40, &ids(0, 2)).unwrap_err();
    oracle.release(15, 30, &ids(0, 1)).unwrap();
    assert_eq!(oracle.change_points(), 3, "15, 30, 40");

    // A reservation ending at the horizon's limit changes the free set there.
    let mut bounded = Oracle::new(4, Config { slot: 1, horizon: Some(100) }).unwrap();
    bounded.allocate(50, 100, &ids(0, 4)).unwrap();
    assert_eq!(bounded.limit(), 100);
    assert_eq!(bounded.change_points(), 3, "0, 50, 100");
}
