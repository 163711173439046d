//! The structures the command line, the replays and the shared test suite know by name.
//! A new structure gets a variant here (see the README's checklist).

use std::fmt;
use std::str::FromStr;

use crate::{
    AvailabilityIndex, BTreeProfile, CalendarQueue, Config, Error, IdlePeriodTrees, IntervalSkipList,
    RbTreeProfile, SegmentTree, SlottedArray, SortedListProfile,
};

/// The horizon, in slots, a structure that needs one gets when none is given.
pub const DEFAULT_HORIZON_SLOTS: u64 = 256;

/// One kind of structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`RbTreeProfile`]: the seed's red-black tree with a linked list.
    RbTree,
    /// [`SortedListProfile`]: the sorted-list baseline.
    SortedList,
    /// [`BTreeProfile`]: the profile on `std::collections::BTreeMap`.
    BTree,
    /// [`SlottedArray`]: the FCFS-EDS seed's array of time slots.
    SlottedArray,
    /// [`SegmentTree`]: a segment tree of slots with lazy range updates.
    SegmentTree,
    /// [`CalendarQueue`]: the profile's change points in Brown's calendar queue.
    CalendarQueue,
    /// [`IdlePeriodTrees`]: the co-allocation seed's per-slot 2-D trees of idle periods.
    IdleTrees,
    /// [`IntervalSkipList`]: the RSPB thesis' time slot table as an interval skip list.
    SkipList,
}

impl Kind {
    /// Every structure, in the order tables list them.
    pub const ALL: [Kind; 8] = [
        Kind::RbTree,
        Kind::SortedList,
        Kind::BTree,
        Kind::SlottedArray,
        Kind::SegmentTree,
        Kind::CalendarQueue,
        Kind::IdleTrees,
        Kind::SkipList,
    ];

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        match self {
            Kind::RbTree => "rbtree",
            Kind::SortedList => "list",
            Kind::BTree => "btree",
            Kind::SlottedArray => "slotted",
            Kind::SegmentTree => "segtree",
            Kind::CalendarQueue => "calendar",
            Kind::IdleTrees => "idletrees",
            Kind::SkipList => "skiplist",
        }
    }

    /// Whether the structure covers a bounded horizon of slots.
    pub fn needs_horizon(self) -> bool {
        matches!(self, Kind::SlottedArray | Kind::SegmentTree)
    }

    /// `config` as this structure runs it: one that needs a horizon and has none gets
    /// [`DEFAULT_HORIZON_SLOTS`] slots.
    pub fn config_for(self, config: Config) -> Config {
        match config.horizon {
            None if self.needs_horizon() => {
                Config { horizon: Some(config.slot.saturating_mul(DEFAULT_HORIZON_SLOTS)), ..config }
            }
            _ => config,
        }
    }

    /// A new index of this kind with all resources free from time 0.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for a zero capacity or an invalid configuration.
    pub fn build(self, capacity: u32, config: Config) -> Result<Box<dyn AvailabilityIndex>, Error> {
        Ok(match self {
            Kind::RbTree => Box::new(RbTreeProfile::new(capacity, config)?),
            Kind::SortedList => Box::new(SortedListProfile::new(capacity, config)?),
            Kind::BTree => Box::new(BTreeProfile::new(capacity, config)?),
            Kind::SlottedArray => Box::new(SlottedArray::new(capacity, config)?),
            Kind::SegmentTree => Box::new(SegmentTree::new(capacity, config)?),
            Kind::CalendarQueue => Box::new(CalendarQueue::new(capacity, config)?),
            Kind::IdleTrees => Box::new(IdlePeriodTrees::new(capacity, config)?),
            Kind::SkipList => Box::new(IntervalSkipList::new(capacity, config)?),
        })
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = Kind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown structure {s:?}; known: {}", names.join(", "))
        })
    }
}
