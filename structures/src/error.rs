//! The errors shared by every structure and the oracle: [`Error`] for a refused
//! operation, [`Invalid`] for a broken internal invariant.

use serde::{Deserialize, Serialize};

use crate::{RangeSet, ResourceId, Time};

/// Why an operation was refused. Every structure and the oracle return the same value
/// for the same input and state; a refused operation leaves the state unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Error {
    /// A window whose start is not before its end (or a zero duration).
    #[error("empty window [{start}, {end}): the start must be before the end")]
    EmptyWindow {
        /// Requested start.
        start: Time,
        /// Requested end.
        end: Time,
    },
    /// A resource count of zero or above the capacity.
    #[error("resource count {n} is invalid: it must be between 1 and the capacity {capacity}")]
    BadCount {
        /// Requested count.
        n: u32,
        /// The index's capacity.
        capacity: u32,
    },
    /// An allocation or release of no resource at all.
    #[error("empty resource set: an allocation or release needs at least one id")]
    EmptySet,
    /// A resource id at or above the capacity.
    #[error("resource id {id} is out of range: the capacity is {capacity}")]
    IdOutOfRange {
        /// The lowest offending id.
        id: ResourceId,
        /// The index's capacity.
        capacity: u32,
    },
    /// Some ids of an allocation are busy at some instant of its window.
    #[error("resources {busy} are not free throughout [{start}, {end})")]
    NotFree {
        /// Requested start.
        start: Time,
        /// Requested end.
        end: Time,
        /// The requested ids that are busy at some instant of the window.
        busy: RangeSet,
    },
    /// Some ids of a release are free at some instant of its window.
    #[error("resources {free} are not allocated throughout [{start}, {end})")]
    NotAllocated {
        /// Requested start.
        start: Time,
        /// Requested end.
        end: Time,
        /// The requested ids that are free at some instant of the window.
        free: RangeSet,
    },
    /// A time before the index's present; the past is forgotten.
    #[error("time {time} is before now ({now}): the past before now is forgotten")]
    BeforePast {
        /// The offending time.
        time: Time,
        /// The index's present.
        now: Time,
    },
    /// A window that ends after the last time the index can represent.
    #[error("window end {end} is beyond the horizon {limit}")]
    BeyondHorizon {
        /// Requested end.
        end: Time,
        /// The last representable end (the horizon, or the end of `u64` time).
        limit: Time,
    },
    /// `start + duration` does not fit in a `u64`.
    #[error("time overflow: {start} + {duration} does not fit in u64")]
    Overflow {
        /// Requested start.
        start: Time,
        /// Requested duration.
        duration: Time,
    },
    /// A capacity or configuration that no index can be built with.
    #[error("invalid configuration: {reason}")]
    BadConfig {
        /// What is wrong.
        reason: String,
    },
}

/// A broken internal invariant: what [`AvailabilityIndex::validate`] reports, for tests
/// and fuzzing to stop at. Its message is `why` alone, as it always read; the structure
/// it is about is a field, [`structure`](Invalid::structure).
///
/// [`AvailabilityIndex::validate`]: crate::AvailabilityIndex::validate
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{why}")]
pub struct Invalid {
    /// The name of the structure whose invariant is broken ([`Kind::name`](crate::Kind::name),
    /// or the name of another index, such as `"oracle"`).
    pub structure: &'static str,
    /// The first broken invariant and where, e.g. `slot 3: reservations overlap`.
    pub why: String,
}

impl Invalid {
    /// The invariant `why` broken in `structure`.
    pub fn new(structure: &'static str, why: impl Into<String>) -> Self {
        Self { structure, why: why.into() }
    }

    /// The same broken invariant, placed inside `part` (a partition, a slot's tree): the
    /// message becomes `part: why`.
    #[must_use]
    pub fn within(self, part: impl std::fmt::Display) -> Self {
        Self { why: format!("{part}: {}", self.why), ..self }
    }
}
