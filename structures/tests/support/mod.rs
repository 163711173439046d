//! Helpers the slotted structures' tests share.

use structures::{AvailabilityIndex, Config, Cost, RangeSet, Time};

/// The ids `lo..hi`.
pub fn ids(lo: u32, hi: u32) -> RangeSet {
    RangeSet::from_range(lo, hi)
}

/// `slots` slots of width `slot`.
pub fn horizon(slot: u64, slots: u64) -> Config {
    Config { slot, horizon: Some(slot * slots) }
}

/// Allocates each `(start, end, ids)` of `busy` in turn.
pub fn allocate_all(index: &mut impl AvailabilityIndex, busy: &[(Time, Time, RangeSet)]) {
    for (start, end, set) in busy {
        index.allocate(*start, *end, set).unwrap();
    }
}

/// With `busy` allocated, the earliest frame for `n` ids over `duration` from `ready`
/// (there must be one), as `(start, end, free)`, and what finding it cost.
pub fn earliest_after(
    index: &mut impl AvailabilityIndex,
    busy: &[(Time, Time, RangeSet)],
    ready: Time,
    duration: Time,
    n: u32,
) -> ((Time, Time, RangeSet), Cost) {
    allocate_all(index, busy);
    let frame = index.earliest(ready, duration, n).unwrap().unwrap();
    ((frame.start, frame.end, frame.free), index.last_cost().unwrap())
}

/// On 4 ids, makes every slot of `[0, 510)` have two ids free, though no window of 600
/// from `[0, 500)` keeps two, and checks that the earliest such window is `[500, 1_100)`
/// with ids 0..2: a search that fails at candidate 0 and must not try every slot after
/// it. What the search cost.
pub fn fail_over_a_run_of_equal_slots(index: &mut impl AvailabilityIndex) -> Cost {
    let (frame, cost) = earliest_after(index, &[(0, 500, ids(0, 2)), (500, 510, ids(2, 4))], 0, 600, 2);
    assert_eq!(frame, (500, 1_100, ids(0, 2)));
    cost
}
