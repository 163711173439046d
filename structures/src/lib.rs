//! Availability indexes for admission control of advance reservations.
//!
//! Every structure implements [`AvailabilityIndex`] with exactly the same semantics; they
//! differ only in speed, memory and the work they visit ([`Cost`]). The trait is in
//! [`index`] and implemented once, by [`Shell`], over each structure's engine (a module
//! of its own); every fact about a structure is in [`registry`].
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod calendar;
pub mod config;
pub mod error;
pub mod flat;
pub mod idle_periods;
pub mod index;
pub mod interval_skip_list;
pub mod partitioned;
pub mod profile;
pub mod range_set;
pub mod registry;
pub mod segment_tree;
mod shell;
pub mod slotted_array;
mod sweep;

pub use calendar::CalendarQueue;
pub use config::{check_count, check_set, Config, MAX_SLOTS};
pub use error::{Error, Invalid};
pub use flat::FlatProfile;
pub use idle_periods::IdlePeriodTrees;
pub use index::{AvailabilityIndex, Cost, TimeFrame, COUNTING};
pub use interval_skip_list::IntervalSkipList;
pub use partitioned::Partitioned;
pub use profile::{AugTreeProfile, BTreeProfile, RbTreeProfile, SortedListProfile};
pub use range_set::RangeSet;
pub use registry::{Kind, SizeUnit, UnknownName};
pub use segment_tree::SegmentTree;
#[cfg(feature = "planted")]
pub use shell::planted::{Fault, SHELL_INVARIANTS};
pub use shell::Shell;
pub use slotted_array::SlottedArray;

/// A point in time: unit-less (the traces use seconds).
pub type Time = u64;
/// A resource id, in `0..capacity`.
pub type ResourceId = u32;
