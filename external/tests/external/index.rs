//! `src/external/index.rs`: the trait over the protocol.

use external::child::ChildError;
use oracle::{OpKind, Oracle, Scenario};
use structures::{AvailabilityIndex, Config, Error, RangeSet};

use super::{example, external, faulty, gone};

const SLOTTED: Scenario = Scenario { capacity: 4, config: Config { slot: 5, horizon: Some(100) } };

#[test]
fn a_child_answers_the_trait_as_the_oracle_does() {
    let (mut index, link) = external(&example("naive.py")).start(SLOTTED).unwrap();
    let mut oracle = Oracle::new(SLOTTED.capacity, SLOTTED.config).unwrap();
    assert_eq!((link.name(), link.supports().len()), ("naive.py".to_owned(), OpKind::ALL.len()));
    assert_eq!((index.capacity(), index.config(), index.name()), (4, SLOTTED.config, "external"));
    let set = RangeSet::from_range(0, 3);
    assert_eq!(index.allocate(3, 12, &set), oracle.allocate(3, 12, &set));
    assert_eq!(index.check(0, 20, 1), oracle.check(0, 20, 1));
    assert_eq!(index.earliest(1, 7, 4), oracle.earliest(1, 7, 4));
    assert_eq!(index.allocate(3, 12, &set), oracle.allocate(3, 12, &set));
    assert_eq!(index.free_frames(0, 100), oracle.free_frames(0, 100));
    assert_eq!(index.options(0, 30, 1, 1), oracle.options(0, 30, 1, 1));
    assert_eq!(index.advance(13), oracle.advance(13));
    assert_eq!((index.now(), oracle.now()), (10, 10), "the present follows accepted advances");
    assert_eq!(index.advance(2), oracle.advance(2));
    assert_eq!(index.now(), 10);
    assert!(index.last_cost().is_none(), "only queries keep a cost");
    index.check(10, 11, 1).unwrap();
    assert_eq!(
        index.last_cost(),
        Some(Default::default()),
        "a child that reports no cost did no counted work"
    );
    assert_eq!((index.size(), index.validate()), (0, Ok(())));
    let pid = link.pid().unwrap();
    assert!(link.close().is_some_and(|s| s.success()));
    assert!(gone(pid));
}

#[test]
fn after_a_fault_the_child_is_not_asked_again() {
    let (index, link) = external(&faulty("garbage", 1)).start(SLOTTED).unwrap();
    assert_eq!(index.check(0, 5, 1), Ok(Some(RangeSet::full(4))));
    let refused = index.check(0, 5, 1).unwrap_err();
    assert!(matches!(&refused, Error::BadConfig { reason } if reason.contains("not a record")), "{refused}");
    assert!(matches!(link.fault(), Some(ChildError::Protocol(_))));
    assert_eq!(index.check(0, 5, 1), Err(refused), "the first fault stays, and no new line is read");
    let pid = link.pid().unwrap();
    drop((index, link));
    assert!(gone(pid), "dropping the last handle kills and reaps the child");
}

#[test]
fn a_child_that_takes_resets_serves_one_index_after_another() {
    const CONTINUOUS: Scenario = Scenario { capacity: 3, config: Config { slot: 1, horizon: None } };
    let naive = external(&example("naive.py"));
    let (mut index, link) = naive.start(SLOTTED).unwrap();
    index.allocate(0, 50, &RangeSet::full(4)).unwrap();
    let pid = link.pid().unwrap();
    assert_eq!(link.finish(), None, "a child that takes resets is kept");
    let (index, link) = naive.start(CONTINUOUS).unwrap();
    assert_eq!(link.pid(), Some(pid), "the same process");
    let oracle = Oracle::new(CONTINUOUS.capacity, CONTINUOUS.config).unwrap();
    assert_eq!(
        index.check(0, 50, 3),
        oracle.check(0, 50, 3),
        "the reset index is fresh, of the new capacity"
    );
    link.finish();
    let mut fresh = naive.clone();
    fresh.reuse = false;
    let (_, link) = fresh.start(CONTINUOUS).unwrap();
    assert_ne!(link.pid(), Some(pid), "without reuse, a fresh child");
    assert!(link.finish().is_some_and(|s| s.success()), "and it is closed at the end");
    naive.close_spare();
    assert!(gone(pid));
}

#[test]
fn a_refused_reset_keeps_the_child_for_the_next_index() {
    const CONTINUOUS: Scenario = Scenario { capacity: 3, config: Config { slot: 1, horizon: None } };
    let unslotted = external(&faulty("unslotted", 0));
    let (_, link) = unslotted.start(CONTINUOUS).unwrap();
    let pid = link.pid().unwrap();
    link.finish();
    let refused = unslotted.start(SLOTTED).err().unwrap().to_string();
    assert_eq!(refused, "the child refused the index: slot 5: this index takes 1-second slots only");
    let (_, link) = unslotted.start(CONTINUOUS).unwrap();
    assert_eq!(link.pid(), Some(pid));
}

#[test]
fn a_reported_internal_error_is_a_fault_that_keeps_the_child() {
    let erring = external(&faulty("error", 1));
    let (index, link) = erring.start(SLOTTED).unwrap();
    index.check(0, 5, 1).unwrap();
    let refused = index.check(0, 5, 1).unwrap_err();
    assert!(
        matches!(link.fault(), Some(ChildError::Reported(m)) if m == "faulty: a planted exception"),
        "{refused}"
    );
    let pid = link.pid().unwrap();
    link.finish();
    let (index, link) = erring.start(SLOTTED).unwrap();
    assert_eq!((link.pid(), index.check(0, 5, 1)), (Some(pid), Ok(Some(RangeSet::full(4)))), "it goes on");
}

#[test]
fn a_child_that_wrote_more_than_it_was_asked_is_not_reused() {
    let twice = external(&faulty("twice", 1));
    let (index, link) = twice.start(SLOTTED).unwrap();
    index.check(0, 5, 1).unwrap();
    index.check(0, 5, 1).unwrap();
    let pid = link.pid().unwrap();
    // Its second answer to the second check is still unread: it is out of step.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(link.finish().is_some(), "closed, not kept");
    assert!(gone(pid));
    let (index, link) = twice.start(SLOTTED).unwrap();
    assert_ne!(link.pid(), Some(pid));
    assert_eq!(index.check(0, 5, 2), Ok(Some(RangeSet::full(4))), "a fresh child answers in step");
}
