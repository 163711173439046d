//! The structures the command line, the replays and the shared test suite know by name.
//! A new structure gets a variant here (see the README's checklist).

use std::fmt;
use std::str::FromStr;

use crate::{AvailabilityIndex, BTreeProfile, Config, Error, RbTreeProfile, SortedListProfile};

/// One kind of structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`RbTreeProfile`]: the seed's red-black tree with a linked list.
    RbTree,
    /// [`SortedListProfile`]: the sorted-list baseline.
    SortedList,
    /// [`BTreeProfile`]: the profile on `std::collections::BTreeMap`.
    BTree,
}

impl Kind {
    /// Every structure, in the order tables list them.
    pub const ALL: [Kind; 3] = [Kind::RbTree, Kind::SortedList, Kind::BTree];

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        match self {
            Kind::RbTree => "rbtree",
            Kind::SortedList => "list",
            Kind::BTree => "btree",
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
