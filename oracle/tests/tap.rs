//! `src/tap.rs`: a tap logs every call in order and, with nothing planted, changes no
//! answer; each planted fault changes exactly what it names (the driver's tests show
//! each is caught).

use oracle::tap::{Planted, Tap};
use oracle::{apply, Op, Outcome};
use structures::{AvailabilityIndex, Config, Error, Kind, RangeSet};

#[test]
fn an_unplanted_tap_logs_each_call_in_order_and_changes_no_answer() {
    let config = Config::default();
    let (mut tap, log) = Tap::new(Kind::RbTree.build(4, config).unwrap());
    let mut plain = Kind::RbTree.build(4, config).unwrap();
    let ops = [
        Op::Allocate { start: 0, end: 10, set: RangeSet::from_range(0, 2) },
        Op::Check { start: 5, end: 8, n: 3 },
        Op::Earliest { ready: 2, duration: 4, n: 3 },
        Op::Advance { now: 3 },
        Op::FreeFrames { from: 3, to: 12 },
    ];
    for op in &ops {
        assert_eq!(apply(&mut tap, op), apply(plain.as_mut(), op));
    }
    assert_eq!(*log.borrow(), ops);
}

#[test]
fn each_planted_fault_changes_what_it_names() {
    let build = |fault| Tap::planted(Kind::RbTree.build(4, Config::default()).unwrap(), Some(fault)).0;
    let busy = RangeSet::from_range(0, 2);
    let mut liar = build(Planted::ClaimsAllFree);
    liar.allocate(0, 10, &busy).unwrap();
    assert_eq!(liar.check(0, 5, 1), Ok(Some(RangeSet::from_range(0, 4))));
    assert_eq!(build(Planted::HidesCheckErrors).check(0, 5, 0), Ok(None));
    assert_eq!(
        build(Planted::MisnamesCheckErrors).check(0, 5, 0),
        Err(Error::BadCount { n: 0, capacity: 5 })
    );
    assert_eq!(build(Planted::RefusesAllocate).allocate(0, 10, &busy), Err(Error::EmptySet));
    let mut silent = build(Planted::IgnoresAllocate);
    assert_eq!(apply(&mut silent, &Op::Allocate { start: 0, end: 10, set: busy }), Outcome::Done);
    assert_eq!(silent.check(0, 5, 4), Ok(Some(RangeSet::from_range(0, 4))));
    assert!(build(Planted::Invalid).validate().is_err());
    let costly = build(Planted::CostAboveWorst);
    costly.check(0, 5, 1).unwrap();
    let cost = costly.last_cost().unwrap();
    assert!(cost.visited > cost.worst);
    assert_eq!(build(Planted::MiscountsSize).size(), 2, "a fresh profile's one entry, plus one");
}
