//! `flat`: the capacities it takes, its word widths, and the shifts on both sides of an
//! update, each compared step by step with rbtree-availability-profile's tree through
//! the trait, `validate()` after every op.

use structures::flat::MAX_CAPACITY;
use structures::{AvailabilityIndex, Config, Error, FlatProfile, Kind, RangeSet};

fn ids(lo: u32, hi: u32) -> RangeSet {
    RangeSet::from_range(lo, hi)
}

/// The flat profile and the red-black tree, driven alike: every answer, error and free
/// frame must agree, and both must stay valid.
struct Pair {
    flat: Box<dyn AvailabilityIndex>,
    tree: Box<dyn AvailabilityIndex>,
}

impl Pair {
    fn new(capacity: u32, config: Config) -> Self {
        Self {
            flat: Kind::Flat.build(capacity, config).unwrap(),
            tree: Kind::RbTree.build(capacity, config).unwrap(),
        }
    }

    fn allocate(&mut self, s: u64, e: u64, set: &RangeSet) {
        assert_eq!(self.flat.allocate(s, e, set), self.tree.allocate(s, e, set), "allocate {s}..{e} {set}");
        self.agree();
    }

    fn release(&mut self, s: u64, e: u64, set: &RangeSet) {
        assert_eq!(self.flat.release(s, e, set), self.tree.release(s, e, set), "release {s}..{e} {set}");
        self.agree();
    }

    fn advance(&mut self, now: u64) {
        assert_eq!(self.flat.advance(now), self.tree.advance(now), "advance {now}");
        self.agree();
    }

    /// Same size, same free space, same answers to a few queries from the present.
    fn agree(&self) {
        self.flat.validate().unwrap();
        let now = self.tree.now();
        assert_eq!(self.flat.size(), self.tree.size());
        assert_eq!(self.flat.free_frames(now, now + 400), self.tree.free_frames(now, now + 400));
        let capacity = self.tree.capacity();
        for n in [1, capacity / 2 + 1, capacity] {
            assert_eq!(self.flat.check(now, now + 25, n), self.tree.check(now, now + 25, n), "check {n}");
            assert_eq!(self.flat.earliest(now, 25, n), self.tree.earliest(now, 25, n), "earliest {n}");
        }
    }
}

#[test]
fn capacities_past_its_limit_are_refused_by_name() {
    let e = FlatProfile::new(MAX_CAPACITY + 1, Config::default()).unwrap_err();
    assert_eq!(
        e,
        Error::BadConfig {
            reason: format!("{} ids are more than the {MAX_CAPACITY} a flat profile takes", MAX_CAPACITY + 1)
        }
    );
    FlatProfile::new(MAX_CAPACITY, Config::default()).unwrap().validate().unwrap();
}

/// Widths 1 to 4 words run the compiled-for-width loops, wider ones the general loop, and
/// ids at or above 1,152 are a list of ranges in the trait's sets: all answer alike.
#[test]
fn every_word_width_answers_as_the_tree() {
    for capacity in [1, 63, 64, 65, 200, 256, 257, 1152, 1153, 2200] {
        let mut pair = Pair::new(capacity, Config::default());
        let top = ids(capacity - capacity / 3 - 1, capacity);
        pair.allocate(10, 60, &top);
        pair.allocate(30, 90, &ids(0, capacity / 3 + 1).subtract(&top));
        pair.release(40, 50, &top);
        pair.release(30, 90, &ids(0, capacity / 3 + 1).subtract(&top));
        pair.advance(45);
    }
}

/// After `advance` leaves room before the present, updates near the present shift the
/// entries before them into it (and back), and updates near the end shift those after.
#[test]
fn updates_shift_the_shorter_side() {
    let mut pair = Pair::new(16, Config { slot: 5, horizon: None });
    for i in 0..120u64 {
        pair.allocate(10 * i, 10 * i + 5, &ids((i % 16) as u32, (i % 16) as u32 + 1));
    }
    // 40 entries' worth of the past: the room before the present.
    pair.advance(200);
    for i in 0..30u64 {
        // Near the present: new entries inside the first windows, then removed again.
        let s = 200 + 10 * i + 5;
        pair.allocate(s, s + 5, &ids(15, 16));
        pair.release(s, s + 5, &ids(15, 16));
        // Near the end.
        let s = 1150 - 10 * i;
        pair.allocate(s, s + 5, &ids(14, 15));
    }
    for i in 0..30u64 {
        pair.release(1150 - 10 * i, 1155 - 10 * i, &ids(14, 15));
    }
    pair.advance(1000);
}
