//! The calendar queue: Brown's resizing, GarQ's summaries, and the skewed distributions
//! that defeat calendar queues (they must cost bounded work and change no answer).

use structures::calendar::Shape;
use structures::{AvailabilityIndex, CalendarQueue, Config, RangeSet};

fn ids(lo: u32, hi: u32) -> RangeSet {
    RangeSet::from_range(lo, hi)
}

fn calendar(capacity: u32) -> CalendarQueue {
    CalendarQueue::new(capacity, Config::default()).unwrap()
}

/// Reservations of `len` on id `i % 4`, one every `gap` from `from`.
fn reserve(c: &mut CalendarQueue, from: u64, count: u64, gap: u64, len: u64) {
    for i in 0..count {
        let id = (i % 4) as u32;
        c.allocate(from + i * gap, from + i * gap + len, &ids(id, id + 1)).unwrap();
        c.validate().unwrap();
    }
}

#[test]
fn buckets_double_and_halve_with_the_points() {
    let mut c = calendar(8);
    assert_eq!(c.shape(), Shape { points: 1, buckets: 2, width: 1, fullest: 1 });
    reserve(&mut c, 0, 20, 10, 5);
    // 40 points: more than 2 a bucket until there are 32; the head's gaps are 5, so days
    // are 15 long.
    assert_eq!(c.shape().points, 40);
    assert_eq!((c.shape().buckets, c.shape().width), (32, 15));
    c.advance(150).unwrap();
    c.validate().unwrap();
    // 150, 155, ..., 195: fewer than one point in two buckets, so they halve once.
    assert_eq!(c.shape().points, 10);
    assert_eq!(c.shape().buckets, 16);
}

#[test]
fn a_day_whose_bucket_holds_only_it_is_taken_from_its_summary() {
    let mut c = calendar(8);
    reserve(&mut c, 0, 20, 10, 5);
    assert_eq!(c.check(0, 195, 4), Ok(Some(ids(4, 8))));
    let cost = c.last_cost().unwrap();
    // 13 days of 15, each one bucket visit; the 39 points in them are not visited.
    assert_eq!((cost.visited, cost.worst), (13, 40 + 2 * 13));
    // A window ending mid-day visits that day's bucket and its points in the window one
    // by one: three whole days, then the bucket of [45, 60) and its point 45.
    assert_eq!(c.check(0, 50, 4), Ok(Some(ids(4, 8))));
    assert_eq!(c.last_cost().unwrap().visited, 3 + 2);
}

#[test]
fn a_dense_head_and_a_sparse_tail_cost_two_years_of_buckets_not_the_gap() {
    let mut c = calendar(8);
    reserve(&mut c, 0, 30, 2, 1);
    c.allocate(10_000_000, 10_000_010, &ids(5, 6)).unwrap();
    c.validate().unwrap();
    let shape = c.shape();
    // Days are 3 long, so the gap is over 3 million empty days.
    assert_eq!(shape.width, 3);
    let quiet = ids(4, 5).union(&ids(6, 8));
    assert_eq!(c.check(0, 10_000_020, 3), Ok(Some(quiet)));
    let cost = c.last_cost().unwrap();
    let year = shape.buckets as u64;
    assert!(cost.visited <= shape.points as u64 + 4 * year, "{cost:?} for {shape:?}");
    assert!(cost.visited <= cost.worst);
    // The head's last reservation ends at 59; from there only the tail's id 5 is busy.
    let frame = c.earliest(1, 9_999_990, 7).unwrap().unwrap();
    assert_eq!((frame.start, frame.free), (59, ids(0, 8).subtract(&ids(5, 6))));
    let frame = c.earliest(1, 10, 8).unwrap().unwrap();
    assert_eq!((frame.start, frame.free), (59, ids(0, 8)));
    let frame = c.earliest(60, 10_000_000, 8).unwrap().unwrap();
    assert_eq!(frame.start, 10_000_010);
}

#[test]
fn a_sparse_head_and_a_dense_tail_crowd_a_few_buckets_but_answer_alike() {
    let mut c = calendar(8);
    reserve(&mut c, 0, 12, 1_000, 500);
    reserve(&mut c, 20_000, 60, 2, 1);
    c.validate().unwrap();
    let shape = c.shape();
    // Days sized from the sparse head hold the whole dense tail in one or two buckets.
    assert!(shape.width >= 1_000, "{shape:?}");
    assert!(shape.fullest >= 60, "{shape:?}");
    assert_eq!(c.check(20_000, 20_120, 4), Ok(Some(ids(4, 8))));
    assert_eq!(c.check(20_000, 20_120, 5), Ok(None));
    // The tail's last reservation is [20_118, 20_119).
    let frame = c.earliest(20_000, 3, 8).unwrap().unwrap();
    assert_eq!(frame.start, 20_119);
}
