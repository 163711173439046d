//! The availability profile of the seed paper (de Assunção, "Enhanced Red-Black-Tree
//! Data Structure for Facilitating the Scheduling of Reservations"), generic over the
//! ordered container that holds its entries.
//!
//! An entry is a time and the set of resources free from that time until the next
//! entry's. The entries are exactly the change points of the free space from `now` on:
//! the first entry is at `now` and adjacent entries always differ, so two requests that
//! start or end at the same time share an entry, and an entry no longer needed after a
//! release is removed. The red-black tree, the sorted list and the `BTreeMap` hold the
//! same entries and run the same algorithms; they differ in how fast an anchor is found
//! and how an entry is inserted or removed.

mod btree;
mod query;
mod rbtree;
mod sorted_list;
mod update;

use std::cell::Cell;

pub use btree::BTreeStore;
pub use rbtree::RbTree;
pub use sorted_list::SortedList;

use crate::{
    check_count, rebuild, sweep, AvailabilityIndex, Config, Cost, Error, RangeSet, Time, TimeFrame, COUNTING,
};

/// The red-black tree threaded by a doubly linked list: the seed's structure.
pub type RbTreeProfile = Profile<RbTree>;
/// The same profile as a sorted list walked from its head: the O(n) baseline.
pub type SortedListProfile = Profile<SortedList>;
/// The same profile on `std::collections::BTreeMap`: what a Rust user writes first.
pub type BTreeProfile = Profile<BTreeStore>;

/// An ordered container of profile entries, keyed by time with unique keys.
pub trait Store: Sized {
    /// The name of the profile built on this container.
    const NAME: &'static str;

    /// Walks entries in key order from a position on.
    type Iter<'a>: Iterator<Item = (Time, &'a RangeSet)> + Clone
    where
        Self: 'a;

    /// A container holding the one entry `(key, free)`.
    fn with_first(key: Time, free: RangeSet) -> Self;

    /// The number of entries.
    fn count(&self) -> usize;

    /// The entries from the one holding `t` (the greatest key `<= t`) on, adding the
    /// steps taken to find it to `steps`. Callers guarantee `t >=` the first key.
    fn iter_from(&self, t: Time, steps: &mut u64) -> Self::Iter<'_>;

    /// The number of entries with key `<= t`.
    fn rank(&self, t: Time) -> usize;

    /// The entry with the greatest key `< t`.
    fn before(&self, t: Time) -> Option<(Time, &RangeSet)>;

    /// The free set of the entry with key exactly `t`.
    fn get(&self, t: Time) -> Option<&RangeSet>;

    /// Inserts an entry; `t` is not a key yet.
    fn insert(&mut self, t: Time, free: RangeSet);

    /// Removes the entry with key `t`, which exists.
    fn remove(&mut self, t: Time);

    /// Applies `f` to the free set of every entry with key in `[from, to)`.
    fn update(&mut self, from: Time, to: Time, f: &mut dyn FnMut(&mut RangeSet));

    /// Removes the entries before the one holding `t` and moves that one's key to `t`.
    fn drop_before(&mut self, t: Time);

    /// Checks the container's own invariants (tree shape, links, sizes).
    ///
    /// # Errors
    /// A message naming the first broken invariant.
    fn validate(&self) -> Result<(), String>;
}

/// An availability profile over the container `S`.
#[derive(Debug, Clone)]
pub struct Profile<S> {
    store: S,
    capacity: u32,
    config: Config,
    now: Time,
    full: RangeSet,
    cost: Cell<Option<Cost>>,
}

impl<S: Store> Profile<S> {
    /// An index of `capacity` resources, all free from time 0 on.
    ///
    /// # Errors
    /// [`Error::BadConfig`] from [`Config::validate`].
    pub fn new(capacity: u32, config: Config) -> Result<Self, Error> {
        config.validate(capacity)?;
        let full = RangeSet::full(capacity);
        Ok(Self {
            store: S::with_first(0, full.clone()),
            capacity,
            config,
            now: 0,
            full,
            cost: Cell::new(None),
        })
    }

    /// The entries as `(time, free)` pairs, in time order.
    pub fn entries(&self) -> impl Iterator<Item = (Time, &RangeSet)> + '_ {
        self.store.iter_from(self.now, &mut 0)
    }
}

impl<S: Store> AvailabilityIndex for Profile<S> {
    fn name(&self) -> &'static str {
        S::NAME
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn config(&self) -> Config {
        self.config
    }

    fn now(&self) -> Time {
        self.now
    }

    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, start, end)?;
        check_count(n, self.capacity)?;
        let (answer, cost) = self.check_window(s, e, u64::from(n));
        self.cost.set(COUNTING.then_some(cost));
        Ok(answer)
    }

    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.cost.set(None);
        self.config.search(self.now, ready, duration)?;
        check_count(n, self.capacity)?;
        let (answer, cost) = self.earliest_start(ready, duration, u64::from(n));
        self.cost.set(COUNTING.then_some(cost));
        Ok(answer)
    }

    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.cost.set(None);
        let (s, e) = self
            .config
            .admit_allocation(self.now, self.capacity, start, end, set, |s, e| self.free_throughout(s, e))?;
        self.apply(s, e, &mut |free| *free = free.subtract(set));
        Ok(())
    }

    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.cost.set(None);
        let (s, e) = self
            .config
            .admit_release(self.now, self.capacity, start, end, set, |s, e| self.free_somewhere(s, e))?;
        self.apply(s, e, &mut |free| *free = free.union(set));
        Ok(())
    }

    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        Ok(sweep::free_frames(self.store.iter_from(s, &mut 0), s, e))
    }

    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        Ok(sweep::options(self.store.iter_from(s, &mut 0), s, e, min_duration, u64::from(min_n)))
    }

    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.cost.set(None);
        *self = rebuild(Self::new(self.capacity, self.config)?, self.now, frames)?;
        Ok(())
    }

    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.cost.set(None);
        let now = self.config.advance(self.now, now)?;
        self.store.drop_before(now);
        self.now = now;
        Ok(())
    }

    fn size(&self) -> usize {
        self.store.count()
    }

    fn last_cost(&self) -> Option<Cost> {
        self.cost.get()
    }

    fn validate(&self) -> Result<(), String> {
        self.store.validate()?;
        let entries: Vec<_> = self.entries().collect();
        match entries.first() {
            Some(&(t, _)) if t == self.now => {}
            first => return Err(format!("first entry {first:?} is not at now = {}", self.now)),
        }
        if entries.len() != self.store.count() {
            return Err(format!(
                "walking from now reaches {} entries, the store holds {}",
                entries.len(),
                self.store.count()
            ));
        }
        for pair in entries.windows(2) {
            let ((t0, f0), (t1, f1)) = (pair[0], pair[1]);
            if t0 >= t1 {
                return Err(format!("entries out of order: {t0} then {t1}"));
            }
            if f0 == f1 {
                return Err(format!("entries at {t0} and {t1} hold the same free set {f0}"));
            }
            if t1 % self.config.slot != 0 {
                return Err(format!("entry {t1} is not on a slot boundary"));
            }
        }
        if let Some((t, f)) = entries.iter().find(|(_, f)| !f.is_subset(&self.full)) {
            return Err(format!("entry {t} holds ids beyond the capacity: {f}"));
        }
        Ok(())
    }
}
