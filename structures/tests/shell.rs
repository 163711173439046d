//! The shell every structure shares: its argument checks come before any engine runs,
//! in the same order for every structure, and a refusal changes nothing.

use structures::{AvailabilityIndex, Config, Error, Invalid, Kind, RangeSet};

fn every_kind(config: Config) -> impl Iterator<Item = Box<dyn AvailabilityIndex>> {
    Kind::ALL.iter().copied().map(move |kind| {
        let mut index = kind.build(4, kind.config_for(config)).unwrap();
        index.advance(50).unwrap();
        index
    })
}

#[test]
fn earliest_checks_overflow_and_empty_windows_first() {
    for index in every_kind(Config { slot: 10, horizon: None }) {
        let name = index.name();
        assert_eq!(
            index.earliest(u64::MAX, 1, 1),
            Err(Error::Overflow { start: u64::MAX, duration: 1 }),
            "{name}"
        );
        assert_eq!(index.earliest(60, 0, 1), Err(Error::EmptyWindow { start: 60, end: 60 }), "{name}");
        assert_eq!(index.earliest(40, 5, 0), Err(Error::BeforePast { time: 40, now: 50 }), "{name}");
        assert_eq!(index.earliest(60, 5, 0), Err(Error::BadCount { n: 0, capacity: 4 }), "{name}");
        assert_eq!(index.last_cost(), None, "{name}");
    }
}

#[test]
fn update_errors_come_in_one_order_and_change_nothing() {
    for mut index in every_kind(Config { slot: 10, horizon: None }) {
        let name = index.name();
        let before = index.free_frames(50, 500).unwrap();
        let outside = RangeSet::from_range(3, 9);
        assert_eq!(
            index.allocate(60, 60, &outside),
            Err(Error::EmptyWindow { start: 60, end: 60 }),
            "{name}"
        );
        assert_eq!(index.allocate(60, 70, &RangeSet::new()), Err(Error::EmptySet), "{name}");
        assert_eq!(
            index.allocate(60, 70, &outside),
            Err(Error::IdOutOfRange { id: 4, capacity: 4 }),
            "{name}"
        );
        let ids = RangeSet::from_range(0, 2);
        assert_eq!(
            index.release(60, 70, &ids),
            Err(Error::NotAllocated { start: 60, end: 70, free: ids.clone() }),
            "{name}"
        );
        index.allocate(65, 75, &ids).unwrap();
        assert_eq!(
            index.allocate(60, 62, &RangeSet::from_range(1, 3)),
            Err(Error::NotFree { start: 60, end: 62, busy: RangeSet::from_range(1, 2) }),
            "{name}: windows are rounded out to slots before they are checked"
        );
        index.release(60, 80, &ids).unwrap();
        assert_eq!(index.free_frames(50, 500).unwrap(), before, "{name}");
        index.validate().unwrap();
    }
}

#[test]
fn an_offered_window_is_admitted_only_until_the_next_change() {
    // The shell admits an allocate of the window it just answered for from that answer,
    // so every change must forget it, or a second allocate of the same window would be
    // admitted from a stale answer.
    for mut index in every_kind(Config { slot: 10, horizon: None }) {
        let name = index.name();
        let (low, high) = (RangeSet::from_range(0, 2), RangeSet::from_range(2, 4));
        assert_eq!(index.check(60, 70, 2), Ok(Some(RangeSet::full(4))), "{name}");
        index.allocate(60, 70, &low).unwrap();
        assert_eq!(
            index.allocate(60, 70, &low),
            Err(Error::NotFree { start: 60, end: 70, busy: low.clone() }),
            "{name}: the allocate forgot the answer"
        );
        let frame = index.earliest(60, 10, 2).unwrap().unwrap();
        assert_eq!((frame.start, frame.free.clone()), (60, high.clone()), "{name}");
        // A change to another window forgets the answer too.
        index.allocate(65, 75, &RangeSet::from_range(3, 4)).unwrap();
        assert_eq!(
            index.allocate(frame.start, frame.end, &high),
            Err(Error::NotFree { start: 60, end: 70, busy: RangeSet::from_range(3, 4) }),
            "{name}"
        );
        // A set the answer did not offer is checked against the structure.
        assert_eq!(index.check(60, 70, 1), Ok(Some(RangeSet::from_range(2, 3))), "{name}");
        assert_eq!(
            index.allocate(60, 70, &RangeSet::from_range(1, 3)),
            Err(Error::NotFree { start: 60, end: 70, busy: RangeSet::from_range(1, 2) }),
            "{name}"
        );
        index.release(60, 70, &low).unwrap();
        index.validate().unwrap();
    }
}

#[test]
fn a_refused_load_keeps_the_state() {
    for mut index in every_kind(Config { slot: 10, horizon: Some(1000) }) {
        let name = index.name();
        index.allocate(60, 90, &RangeSet::from_range(0, 2)).unwrap();
        let before = index.free_frames(50, 1050).unwrap();
        let frames = index.free_frames(50, 1050).unwrap();
        let mut doubled = frames.clone();
        doubled.extend(frames);
        assert!(matches!(index.load_frames(&doubled), Err(Error::NotAllocated { .. })), "{name}");
        assert_eq!(index.free_frames(50, 1050).unwrap(), before, "{name}");
        index.validate().unwrap();
    }
}

#[test]
fn advance_rounds_down_and_refuses_the_past() {
    for mut index in every_kind(Config { slot: 10, horizon: None }) {
        let name = index.name();
        assert_eq!(index.advance(49), Err(Error::BeforePast { time: 49, now: 50 }), "{name}");
        index.advance(77).unwrap();
        assert_eq!(index.now(), 70, "{name}");
        index.validate().unwrap();
    }
}

#[test]
fn a_horizon_may_reach_past_the_end_of_time() {
    // The slotted array keeps every slot of its horizon; near 2^64 the last ones start
    // past the end of u64 time, which once overflowed (found by resbench verify's
    // boundary stream).
    for mut index in every_kind(Config { slot: 10, horizon: None }) {
        let name = index.name();
        index.advance(u64::MAX - 25).unwrap();
        index.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let now = index.now();
        index.allocate(now, now + 10, &RangeSet::full(4)).unwrap();
        let frames = index.free_frames(now, index.config().limit(now)).unwrap();
        assert!(frames.iter().all(|f| f.start >= now + 10), "{name}: {frames:?}");
        assert_eq!(index.check(now, now + 10, 1), Ok(None), "{name}");
    }
}

#[test]
fn a_broken_invariant_names_its_structure_and_reads_as_where_and_why() {
    for index in every_kind(Config { slot: 10, horizon: None }) {
        assert_eq!(index.validate(), Ok(()), "{}", index.name());
    }
    let e = Invalid::new("list", "list keys out of order: 3 then 2");
    assert_eq!(e.to_string(), "list keys out of order: 3 then 2");
    let e = e.within(format_args!("partition {}", "a"));
    assert_eq!(e, Invalid { structure: "list", why: "partition a: list keys out of order: 3 then 2".into() });
    assert_eq!(e.to_string(), "partition a: list keys out of order: 3 then 2");
}
