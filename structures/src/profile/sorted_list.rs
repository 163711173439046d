//! The sorted-list container: the baseline rbtree-availability-profile improves on. Every lookup walks from
//! the head, as a linked list would; the entries sit in a `Vec` so the walk is cache
//! friendly, which flatters the baseline rather than handicapping it.

use std::cmp::Ordering;
use std::iter::Map;
use std::slice;

use super::Store;
use crate::{Invalid, Kind, RangeSet, Time};

/// Entries in a sorted sequence, searched from the head.
#[derive(Debug, Clone)]
pub struct SortedList {
    entries: Vec<(Time, RangeSet)>,
}

type Entry = (Time, RangeSet);

fn view(entry: &Entry) -> (Time, &RangeSet) {
    (entry.0, &entry.1)
}

impl SortedList {
    /// Walks from the head to the last entry with key `<= t`; returns its index and the
    /// number of entries stepped over.
    fn walk_to(&self, t: Time) -> (usize, u64) {
        let mut i = 0;
        while i + 1 < self.entries.len() && self.entries[i + 1].0 <= t {
            i += 1;
        }
        (i, i as u64)
    }
}

impl Store for SortedList {
    const KIND: Kind = Kind::SortedList;

    type Iter<'a> = Map<slice::Iter<'a, Entry>, fn(&Entry) -> (Time, &RangeSet)>;

    fn with_first(key: Time, free: RangeSet) -> Self {
        Self { entries: vec![(key, free)] }
    }

    fn count(&self) -> usize {
        self.entries.len()
    }

    fn iter_from(&self, t: Time, steps: &mut u64) -> Self::Iter<'_> {
        let (i, walked) = self.walk_to(t);
        *steps += walked + 1;
        self.entries[i..].iter().map(view as fn(&Entry) -> (Time, &RangeSet))
    }

    fn rank(&self, t: Time) -> usize {
        self.entries.partition_point(|e| e.0 <= t)
    }

    fn around(&self, t: Time) -> (Option<&RangeSet>, Option<&RangeSet>) {
        let (i, _) = self.walk_to(t);
        let (k, free) = &self.entries[i];
        match k.cmp(&t) {
            Ordering::Equal => (i.checked_sub(1).map(|j| &self.entries[j].1), Some(free)),
            Ordering::Less => (Some(free), None),
            Ordering::Greater => (None, None),
        }
    }

    fn insert(&mut self, t: Time, free: RangeSet) {
        let (i, _) = self.walk_to(t);
        self.entries.insert(i + 1, (t, free));
    }

    fn remove(&mut self, t: Time) {
        let (i, _) = self.walk_to(t);
        self.entries.remove(i);
    }

    fn update(&mut self, from: Time, to: Time, f: &mut dyn FnMut(&mut RangeSet)) {
        let (i, _) = self.walk_to(from);
        for (_, free) in self.entries[i..].iter_mut().take_while(|(k, _)| *k < to) {
            f(free);
        }
    }

    fn drop_before(&mut self, t: Time) {
        let (i, _) = self.walk_to(t);
        self.entries.drain(..i);
        self.entries[0].0 = t;
    }

    fn validate(&self) -> Result<(), Invalid> {
        match self.entries.windows(2).find(|w| w[0].0 >= w[1].0) {
            Some(w) => Err(Self::KIND.invalid(format!("list keys out of order: {} then {}", w[0].0, w[1].0))),
            None => Ok(()),
        }
    }

    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = &["list keys in order"];

    /// Gives an entry its predecessor's key: equal keys are out of order too.
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, _: usize, pick: u64) -> bool {
        if self.entries.len() < 2 {
            return false;
        }
        let i = 1 + (pick % (self.entries.len() as u64 - 1)) as usize;
        self.entries[i].0 = self.entries[i - 1].0;
        true
    }

    #[cfg(feature = "planted")]
    fn push_front(&mut self, t: Time, free: RangeSet) {
        self.entries.insert(0, (t, free));
    }
}
