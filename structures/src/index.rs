//! The trait every structure implements, and the values it answers with.

use serde::{Deserialize, Serialize};

use crate::{Config, Error, Invalid, RangeSet, Time};

/// A window and a set of resources: a free time frame, a scheduling option, or the
/// answer of an earliest-start search.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeFrame {
    /// First instant of the window.
    pub start: Time,
    /// First instant after the window.
    pub end: Time,
    /// The resources free throughout the window.
    pub free: RangeSet,
}

/// The work one `check` or `earliest` call did, in the structure's own unit (list nodes,
/// tree nodes, slots, buckets), beside the theoretical worst case for that call in the
/// state it ran in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    /// Steps spent locating the first anchor (tree levels, list nodes skipped).
    pub search: u64,
    /// Entries examined from the first (potential) anchor on; at most `worst`.
    pub visited: u64,
    /// The worst case for this call: `m` for `check` and `m²` for `earliest`, where `m`
    /// counts the entries from the (first potential) anchor to the end.
    pub worst: u64,
}

/// Whether the structures keep the [`Cost`] of their calls. The `uncounted` feature turns
/// it off (then [`AvailabilityIndex::last_cost`] is always `None` and the worst cases are
/// not computed), so that benchmarks can measure what the accounting adds.
pub const COUNTING: bool = !cfg!(feature = "uncounted");

/// Answers admission-control questions about `capacity` resources over time.
///
/// Every implementation returns exactly the oracle's answer and the oracle's error for
/// every input; they differ only in speed, memory and the work they visit. Time before
/// [`now`](AvailabilityIndex::now) is forgotten. A refused operation changes nothing.
pub trait AvailabilityIndex {
    /// The structure's name, as the command line spells it.
    fn name(&self) -> &'static str;

    /// The number of resources; ids are `0..capacity`.
    fn capacity(&self) -> u32;

    /// The slot width and horizon.
    fn config(&self) -> Config;

    /// The present: the first instant the index still knows (a slot boundary).
    fn now(&self) -> Time;

    /// The resources free at every instant of `[start, end)` if there are at least `n`.
    ///
    /// # Errors
    /// A window error from [`Config::window`], or [`Error::BadCount`].
    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error>;

    /// The smallest `t >= ready` such that at least `n` resources are free throughout
    /// `[t, t + duration)`, with that full free set; `None` if no such window ends within
    /// the horizon.
    ///
    /// # Errors
    /// [`Error::EmptyWindow`] for a zero duration, [`Error::Overflow`] when
    /// `ready + duration` does not fit, a window error from [`Config::window`], or
    /// [`Error::BadCount`].
    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error>;

    /// Marks `set` busy over `[start, end)`.
    ///
    /// # Errors
    /// A window error, [`Error::EmptySet`], [`Error::IdOutOfRange`], or
    /// [`Error::NotFree`] naming the ids that are busy at some instant of the window.
    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error>;

    /// Marks `set` free over `[start, end)`; any part of an allocation may be released
    /// (a job that ends early releases the tail of its reservation).
    ///
    /// # Errors
    /// A window error, [`Error::EmptySet`], [`Error::IdOutOfRange`], or
    /// [`Error::NotAllocated`] naming the ids that are free at some instant of the window.
    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error>;

    /// Non-overlapping free frames: each resource's maximal free intervals clipped to
    /// `[from, to)`, one frame per distinct interval, sorted by `(start, end)`.
    ///
    /// # Errors
    /// A window error from [`Config::window`].
    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error>;

    /// Scheduling options: the maximal free rectangles inside `[from, to)` (a window and
    /// exactly the resources free throughout it, neither end movable outward without
    /// losing a resource; the clip edges count as maximal), keeping those lasting at
    /// least `min_duration` with at least `min_n` resources, sorted by `(start, end)`.
    ///
    /// # Errors
    /// A window error from [`Config::window`].
    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error>;

    /// Replaces the state by one whose free space from `now` to the horizon is exactly
    /// `frames` (the inverse of [`free_frames`](AvailabilityIndex::free_frames)); `now`
    /// is kept.
    ///
    /// # Errors
    /// As [`release`](AvailabilityIndex::release) for the first bad frame: a window
    /// error, an empty or out-of-range set, or [`Error::NotAllocated`] where two frames
    /// overlap.
    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error>;

    /// Forgets everything before `now` (rounded down to a slot boundary).
    ///
    /// # Errors
    /// [`Error::BeforePast`] if `now` is before the present.
    fn advance(&mut self, now: Time) -> Result<(), Error>;

    /// The number of records the structure holds, in its own unit: profile entries or
    /// calendar points (change points of the free space), slots, or tree nodes. Replays
    /// report it over time.
    fn size(&self) -> usize;

    /// The cost of the last `check` or `earliest` call, `None` if it failed or if another
    /// operation ran since.
    fn last_cost(&self) -> Option<Cost>;

    /// Checks every internal invariant.
    ///
    /// # Errors
    /// [`Invalid`] naming this structure and the first broken invariant and where.
    fn validate(&self) -> Result<(), Invalid>;

    /// Plants `fault` in the shared shell's window check, for tests that show the
    /// differential driver catching it (feature `planted`). Other implementations
    /// ignore it.
    #[cfg(feature = "planted")]
    fn plant(&mut self, fault: crate::Fault) {
        let _ = fault;
    }

    /// The invariants [`validate`](AvailabilityIndex::validate) checks that
    /// [`corrupt`](AvailabilityIndex::corrupt) can break, by name (feature `planted`).
    /// Other implementations name none.
    #[cfg(feature = "planted")]
    fn invariants(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Breaks invariant `invariant` (an index into
    /// [`invariants`](AvailabilityIndex::invariants)), keeping those `validate` checks
    /// before it, at the `pick`-th place this state has for it (modulo their number):
    /// for the test that shows `validate` refusing each broken invariant (feature
    /// `planted`). Returns whether the state had such a place. Answers after it are
    /// meaningless: drop the structure.
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, invariant: usize, pick: u64) -> bool {
        let _ = (invariant, pick);
        false
    }
}
