//! Quantisation and the shared request checks.

use structures::{check_count, check_set, Config, Error, RangeSet};

#[test]
fn windows_round_start_down_and_end_up() {
    let c = Config { slot: 60, horizon: Some(600) };
    assert_eq!(c.window(0, 65, 130), Ok((60, 180)));
    assert_eq!(c.window(120, 130, 600), Ok((120, 600)));
    assert_eq!(c.limit(120), 720);
}

#[test]
fn window_errors_name_what_and_where_in_a_fixed_order() {
    let c = Config { slot: 10, horizon: Some(100) };
    assert_eq!(c.window(50, 40, 40), Err(Error::EmptyWindow { start: 40, end: 40 }));
    assert_eq!(c.window(50, 40, 60), Err(Error::BeforePast { time: 40, now: 50 }));
    assert_eq!(c.window(50, 60, 151), Err(Error::BeyondHorizon { end: 151, limit: 150 }));
}

#[test]
fn continuous_time_reaches_the_end_of_u64() {
    let c = Config::default();
    assert_eq!(c.window(0, u64::MAX - 1, u64::MAX), Ok((u64::MAX - 1, u64::MAX)));
    let slotted = Config { slot: 7, horizon: None };
    let limit = slotted.limit(0);
    assert!(limit.is_multiple_of(7) && u64::MAX - limit < 7);
    assert_eq!(slotted.window(0, 0, u64::MAX), Err(Error::BeyondHorizon { end: u64::MAX, limit }));
}

#[test]
fn bad_configurations_are_refused() {
    assert!(Config::default().validate(0).is_err());
    assert!(Config { slot: 0, horizon: None }.validate(4).is_err());
    assert!(Config { slot: 4, horizon: Some(6) }.validate(4).is_err());
    assert!(Config { slot: 4, horizon: Some(8) }.validate(4).is_ok());
}

#[test]
fn counts_and_sets_are_checked_against_the_capacity() {
    assert_eq!(check_count(0, 5), Err(Error::BadCount { n: 0, capacity: 5 }));
    assert_eq!(check_count(6, 5), Err(Error::BadCount { n: 6, capacity: 5 }));
    assert_eq!(check_set(&RangeSet::new(), 5), Err(Error::EmptySet));
    let set = RangeSet::from_ranges([(1, 2), (7, 9)]);
    assert_eq!(check_set(&set, 5), Err(Error::IdOutOfRange { id: 7, capacity: 5 }));
    assert_eq!(check_set(&RangeSet::from_range(0, 5), 5), Ok(()));
}
