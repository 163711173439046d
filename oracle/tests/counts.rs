//! `src/counts.rs`: the count view's reference, by hand and against a dense brute force
//! that looks at every instant.

use oracle::{rules, CountIndex, CountOp, CountOutcome, Counts, Fits, Op};
use proptest::prelude::*;
use structures::{Config, Error, RangeSet, Time};

const CONTINUOUS: Config = Config { slot: 1, horizon: None };

fn fits(fits: bool, fewest: u32) -> CountOutcome {
    CountOutcome::Fits(Fits { fits, fewest })
}

#[test]
fn counts_are_free_at_every_instant_whichever_ids_they_are() {
    // Two resources, one busy over [0, 5) and one over [5, 10): one is free at every
    // instant, though no single id is free throughout (the id view answers null).
    let mut counts = Counts::new(2, CONTINUOUS).unwrap();
    let allocate = |start, end, count| CountOp::Allocate { start, end, count };
    assert_eq!(counts.apply_count(&allocate(0, 5, 1)), CountOutcome::Done);
    assert_eq!(counts.apply_count(&allocate(5, 10, 1)), CountOutcome::Done);
    assert_eq!(counts.apply_count(&CountOp::Check { start: 0, end: 10, n: 1 }), fits(true, 1));
    assert_eq!(counts.apply_count(&CountOp::Check { start: 0, end: 10, n: 2 }), fits(false, 1));
    assert_eq!(
        counts.apply_count(&CountOp::Earliest { ready: 0, duration: 3, n: 2 }),
        CountOutcome::Time(Some(10))
    );
    assert_eq!(
        counts.apply_count(&CountOp::Earliest { ready: 2, duration: 3, n: 1 }),
        CountOutcome::Time(Some(2))
    );
    counts.validate().unwrap();
}

#[test]
fn refusals_come_in_the_id_views_order_with_no_ids() {
    let mut counts = Counts::new(3, Config { slot: 5, horizon: Some(20) }).unwrap();
    let refused = |counts: &mut Counts, op| match counts.apply_count(&op) {
        CountOutcome::Failed(error) => error,
        other => panic!("{op:?} answered {other:?}"),
    };
    let allocate = |start, end, count| CountOp::Allocate { start, end, count };
    assert_eq!(refused(&mut counts, allocate(5, 5, 0)), Error::EmptyWindow { start: 5, end: 5 });
    assert_eq!(refused(&mut counts, allocate(0, 21, 0)), Error::BeyondHorizon { end: 21, limit: 20 });
    assert_eq!(refused(&mut counts, allocate(0, 3, 0)), Error::BadCount { n: 0, capacity: 3 });
    assert_eq!(refused(&mut counts, allocate(0, 3, 4)), Error::BadCount { n: 4, capacity: 3 });
    assert_eq!(counts.apply_count(&allocate(1, 3, 2)), CountOutcome::Done, "[0, 5) once rounded");
    let not_free = Error::NotFree { start: 4, end: 6, busy: RangeSet::new() };
    assert_eq!(refused(&mut counts, allocate(4, 6, 2)), not_free, "2 busy at 4, so 1 free");
    let release = |start, end, count| CountOp::Release { start, end, count };
    let not_allocated = Error::NotAllocated { start: 0, end: 6, free: RangeSet::new() };
    assert_eq!(refused(&mut counts, release(0, 6, 1)), not_allocated, "none busy over [5, 10)");
    assert_eq!(counts.apply_count(&release(0, 5, 1)), CountOutcome::Done, "part of an allocation");
    assert_eq!(counts.apply_count(&CountOp::Check { start: 0, end: 5, n: 3 }), fits(false, 2));
    assert_eq!(counts.apply_count(&CountOp::Advance { now: 7 }), CountOutcome::Done);
    assert_eq!(counts.now(), 5);
    assert_eq!(
        refused(&mut counts, CountOp::Check { start: 4, end: 8, n: 1 }),
        Error::BeforePast { time: 4, now: 5 }
    );
    assert_eq!(counts.apply_count(&allocate(5, 25, 3)), CountOutcome::Done);
    let nothing = counts.apply_count(&CountOp::Earliest { ready: 5, duration: 5, n: 1 });
    assert_eq!(nothing, CountOutcome::Time(None), "no window ends within the limit of 25");
    counts.validate().unwrap();
}

#[test]
fn every_id_op_with_a_count_form_round_trips() {
    let allocate = Op::Allocate { start: 1, end: 4, set: RangeSet::from_ranges([(0, 2), (5, 6)]) };
    let count = CountOp::of(&allocate).unwrap();
    assert_eq!(count, CountOp::Allocate { start: 1, end: 4, count: 3 });
    assert_eq!(serde_json::to_string(&count).unwrap(), r#"{"op":"allocate","start":1,"end":4,"count":3}"#);
    assert_eq!(CountOp::of(&count.to_op()), Some(count));
    assert_eq!(CountOp::of(&Op::FreeFrames { from: 0, to: 1 }), None);
    let answer = serde_json::to_string(&fits(true, 2)).unwrap();
    assert_eq!(answer, r#"{"outcome":"fits","value":{"fits":true,"fewest":2}}"#);
    assert_eq!(
        serde_json::to_string(&CountOutcome::Time(None)).unwrap(),
        r#"{"outcome":"time","value":null}"#
    );
}

/// The count view by brute force: the busy count at every instant below `INSTANTS`.
struct Dense {
    capacity: u32,
    config: Config,
    now: Time,
    busy: Vec<u32>,
}

const INSTANTS: usize = 512;

impl Dense {
    fn apply(&mut self, op: &CountOp) -> CountOutcome {
        let (config, now, capacity) = (self.config, self.now, self.capacity);
        let window =
            |start, end| rules::window(config, now, start, end).map(|(s, e)| (s as usize, e as usize));
        let most = |busy: &[u32], s: usize, e: usize| busy[s..e].iter().copied().max().unwrap_or(0);
        let result = match *op {
            CountOp::Check { start, end, n } => {
                window(start, end).and_then(|w| rules::count(n, capacity).map(|()| w)).map(|(s, e)| {
                    let fewest = capacity - most(&self.busy, s, e);
                    CountOutcome::Fits(Fits { fits: fewest >= n, fewest })
                })
            }
            CountOp::Earliest { ready, duration, n } => rules::search(config, now, ready, duration)
                .and_then(|()| rules::count(n, capacity))
                .map(|()| {
                    // Every instant from ready, one by one.
                    let found = (ready..)
                        .map_while(|t| Some((t, window(t, t + duration).ok()?)))
                        .find(|&(_, (s, e))| capacity - most(&self.busy, s, e) >= n);
                    CountOutcome::Time(found.map(|(t, _)| t))
                }),
            CountOp::Allocate { start, end, count } | CountOp::Release { start, end, count } => {
                let allocating = matches!(op, CountOp::Allocate { .. });
                window(start, end).and_then(|w| rules::count(count, capacity).map(|()| w)).and_then(
                    |(s, e)| {
                        let span = &mut self.busy[s..e];
                        if allocating && span.iter().any(|&b| capacity - b < count) {
                            return Err(Error::NotFree { start, end, busy: RangeSet::new() });
                        }
                        if !allocating && span.iter().any(|&b| b < count) {
                            return Err(Error::NotAllocated { start, end, free: RangeSet::new() });
                        }
                        span.iter_mut().for_each(|b| if allocating { *b += count } else { *b -= count });
                        Ok(CountOutcome::Done)
                    },
                )
            }
            CountOp::Advance { now: to } => rules::advance(config, now, to).map(|now| {
                self.busy[..now as usize].iter_mut().for_each(|b| *b = 0);
                self.now = now;
                CountOutcome::Done
            }),
        };
        result.unwrap_or_else(CountOutcome::Failed)
    }
}

fn op() -> impl Strategy<Value = CountOp> {
    // Times below 200 and durations below 60 keep every window, and every earliest start
    // the brute force tries, below INSTANTS.
    prop_oneof![
        (0..200u64, 0..60u64, 0..6u32).prop_map(|(start, d, n)| CountOp::Check { start, end: start + d, n }),
        (0..200u64, 0..60u64, 0..6u32).prop_map(|(ready, duration, n)| CountOp::Earliest {
            ready,
            duration,
            n
        }),
        (0..200u64, 0..60u64, 0..6u32).prop_map(|(start, d, count)| CountOp::Allocate {
            start,
            end: start + d,
            count
        }),
        (0..200u64, 0..60u64, 0..6u32).prop_map(|(start, d, count)| CountOp::Release {
            start,
            end: start + d,
            count
        }),
        (0..120u64).prop_map(|now| CountOp::Advance { now }),
    ]
}

proptest! {
    #[test]
    fn the_reference_answers_as_every_instant_does(
        capacity in 1..5u32,
        slot in 1..4u64,
        horizon in proptest::option::of(1..6u64),
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        let config = Config { slot, horizon: horizon.map(|h| h * 40 * slot) };
        let mut counts = Counts::new(capacity, config).unwrap();
        let mut dense = Dense { capacity, config, now: 0, busy: vec![0; INSTANTS] };
        for op in &ops {
            prop_assert_eq!(counts.apply_count(op), dense.apply(op), "{:?}", op);
            prop_assert_eq!(counts.validate(), Ok(()));
        }
    }
}
