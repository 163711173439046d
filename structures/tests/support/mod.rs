//! Helpers the slotted structures' tests share.

use structures::{Config, RangeSet};

/// The ids `lo..hi`.
pub fn ids(lo: u32, hi: u32) -> RangeSet {
    RangeSet::from_range(lo, hi)
}

/// `slots` slots of width `slot`.
pub fn horizon(slot: u64, slots: u64) -> Config {
    Config { slot, horizon: Some(slot * slots) }
}
