//! The `BTreeMap` container: what a Rust user would write first, and the bar the
//! hand-written red-black tree must beat. Its search steps are hidden inside the standard
//! library, so `search` counts one per lookup.

use std::collections::{btree_map, BTreeMap};
use std::iter::Map;

use super::Store;
use crate::{Kind, RangeSet, Time};

/// Entries in a `BTreeMap`.
#[derive(Debug, Clone)]
pub struct BTreeStore {
    map: BTreeMap<Time, RangeSet>,
}

type View<'a> = (Time, &'a RangeSet);

fn view<'a>((k, free): (&'a Time, &'a RangeSet)) -> View<'a> {
    (*k, free)
}

impl BTreeStore {
    fn floor_key(&self, t: Time) -> Time {
        self.map.range(..=t).next_back().map_or(t, |(k, _)| *k)
    }
}

impl Store for BTreeStore {
    const KIND: Kind = Kind::BTree;

    type Iter<'a> =
        Map<btree_map::Range<'a, Time, RangeSet>, for<'b> fn((&'b Time, &'b RangeSet)) -> View<'b>>;

    fn with_first(key: Time, free: RangeSet) -> Self {
        Self { map: BTreeMap::from([(key, free)]) }
    }

    fn count(&self) -> usize {
        self.map.len()
    }

    fn iter_from(&self, t: Time, steps: &mut u64) -> Self::Iter<'_> {
        *steps += 1;
        let from = self.floor_key(t);
        self.map.range(from..).map(view as for<'b> fn((&'b Time, &'b RangeSet)) -> View<'b>)
    }

    /// Counts the keys up to `t`: O(rank), cheap for the anchors near `now` that replays
    /// ask about; the map keeps no order statistics.
    fn rank(&self, t: Time) -> usize {
        self.map.range(..=t).count()
    }

    /// One range: its last entry is at `t` or before it, and if at `t`, the one before
    /// that is the entry before `t`.
    fn around(&self, t: Time) -> (Option<&RangeSet>, Option<&RangeSet>) {
        let mut upto = self.map.range(..=t);
        match upto.next_back() {
            Some((&key, free)) if key == t => (upto.next_back().map(|(_, before)| before), Some(free)),
            last => (last.map(|(_, free)| free), None),
        }
    }

    fn insert(&mut self, t: Time, free: RangeSet) {
        self.map.insert(t, free);
    }

    fn remove(&mut self, t: Time) {
        self.map.remove(&t);
    }

    fn update(&mut self, from: Time, to: Time, f: &mut dyn FnMut(&mut RangeSet)) {
        self.map.range_mut(from..to).for_each(|(_, free)| f(free));
    }

    fn drop_before(&mut self, t: Time) {
        let key = self.floor_key(t);
        self.map = self.map.split_off(&key);
        if key < t {
            if let Some(free) = self.map.remove(&key) {
                self.map.insert(t, free);
            }
        }
    }
}
