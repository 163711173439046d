//! `augtree`: rbtree-availability-profile's red-black tree with each subtree augmented
//! (CLRS 14.2) by the most free ids among its entries. An entry with fewer than `n` free
//! ids can neither start a window for `n` nor lie inside one, so the earliest-start
//! search finds the next entry that can start one by descending past whole subtrees
//! instead of walking the list.
//!
//! Flux's planner keeps only counts; this tree keeps the exact sets in its entries and
//! uses the counts to skip, so its answers are the profile's.

use super::rbtree::{RbTree, Summary};
use super::Profile;
use crate::shell::Shell;
use crate::{Kind, RangeSet};

/// The availability profile in a red-black tree whose subtrees know their free counts.
pub type AugTreeProfile = Shell<Profile<RbTree<Counts>>>;

/// The most free ids among a subtree's entries; 0 for the empty subtree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    most: u32,
}

impl Summary for Counts {
    const KIND: Kind = Kind::AugTree;
    const ACTIVE: bool = true;

    fn leaf(free: &RangeSet) -> Self {
        // A set holds at most `capacity` ids, a u32.
        let count = u32::try_from(free.count()).unwrap_or(u32::MAX);
        Self { most: count }
    }

    fn join(own: Self, left: Self, right: Self) -> Self {
        Self { most: own.most.max(left.most).max(right.most) }
    }

    fn may_fit(self, n: u64) -> bool {
        u64::from(self.most) >= n
    }
}
