//! The availability profile of rbtree-availability-profile (de Assunção, "Enhanced
//! Red-Black-Tree Data Structure for Facilitating the Scheduling of Reservations",
//! section III), generic over the ordered container that holds its entries.
//!
//! An entry is a time and the set of resources free from that time until the next
//! entry's. The entries are exactly the change points of the free space from `now` on:
//! the first entry is at `now` and adjacent entries always differ, so two requests that
//! start or end at the same time share an entry, and an entry no longer needed after a
//! release is removed. The red-black tree, the sorted list and the `BTreeMap` hold the
//! same entries and run the same algorithms; they differ in how fast an anchor is found
//! and how an entry is inserted or removed.

mod augtree;
mod bounds;
mod btree;
#[cfg(feature = "planted")]
mod planted;
mod query;
mod rbtree;
mod sorted_list;
mod update;

use std::borrow::Cow;
use std::cell::RefCell;

pub use augtree::{AugTreeProfile, Runs};
pub use btree::BTreeStore;
pub use rbtree::{RbTree, Summary, Summed};
pub use sorted_list::SortedList;

use crate::shell::{Basis, Engine, Shell, Step};
use crate::{Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame};

/// The red-black tree threaded by a doubly linked list: the rbtree-availability-profile
/// structure.
pub type RbTreeProfile = Shell<Profile<RbTree>>;
/// The same profile as a sorted list walked from its head: the O(n) baseline.
pub type SortedListProfile = Shell<Profile<SortedList>>;
/// The same profile on `std::collections::BTreeMap`: what a Rust user writes first.
pub type BTreeProfile = Shell<Profile<BTreeStore>>;

/// An ordered container of profile entries, keyed by time with unique keys.
pub trait Store: Sized {
    /// The registry entry of the profile built on this container.
    const KIND: Kind;

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

    /// The free sets of the entry with the greatest key `< t` and of the entry with key
    /// exactly `t`, found together: an update asks for both at each end of its window.
    fn around(&self, t: Time) -> (Option<&RangeSet>, Option<&RangeSet>);

    /// Inserts an entry; `t` is not a key yet.
    fn insert(&mut self, t: Time, free: RangeSet);

    /// Removes the entry with key `t`, which exists.
    fn remove(&mut self, t: Time);

    /// Whether [`seek`](Store::seek) answers from subtree summaries, so that the
    /// earliest-start search may skip with it.
    const SEEKS: bool = false;

    /// The walk from the first entry at or after `from`'s next that may start a window
    /// of `duration` with at least `n` free ids throughout, judged from subtree
    /// summaries: never later than the first that does, `None` if none can. It starts
    /// where `from` stands rather than at the root, so a search that rejects candidate
    /// after candidate pays for the distance it moves, not for the tree's height each
    /// time. Adds the nodes visited to `steps`. Only called when
    /// [`SEEKS`](Store::SEEKS); other containers answer `from`.
    fn seek<'a>(
        &'a self,
        from: Self::Iter<'a>,
        n: u64,
        duration: Time,
        steps: &mut u64,
    ) -> Option<Self::Iter<'a>> {
        let _ = (n, duration, steps);
        Some(from)
    }

    /// Applies `f` to the free set of every entry with key in `[from, to)`.
    fn update(&mut self, from: Time, to: Time, f: &mut dyn FnMut(&mut RangeSet));

    /// Holds back the upkeep of what the container derives from its entries (subtree
    /// summaries) until the next [`seek`](Store::seek) or [`settle`](Store::settle),
    /// so that the changes in between pay for it once. Does nothing for a container
    /// that derives nothing.
    fn hold(&mut self) {}

    /// Brings what [`hold`](Store::hold) held back up to date.
    fn settle(&mut self) {}

    /// Removes the entries before the one holding `t` and moves that one's key to `t`.
    fn drop_before(&mut self, t: Time);

    /// Checks the container's own invariants (key order, tree shape, links, sizes); the
    /// profile checks the entries themselves. A container that keeps its keys in order
    /// by construction (the `BTreeMap`) has none.
    ///
    /// # Errors
    /// [`Invalid`] naming [`KIND`](Store::KIND) and the first broken invariant.
    fn validate(&self) -> Result<(), Invalid> {
        Ok(())
    }

    /// The invariants the container's own [`validate`](Store::validate) checks that
    /// [`corrupt`](Store::corrupt) can break (feature `planted`).
    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = &[];

    /// Breaks the container's invariant `invariant` (an index into
    /// [`INVARIANTS`](Store::INVARIANTS)), keeping the checks before it, at the `pick`-th
    /// place it has; whether it had one (feature `planted`).
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, invariant: usize, pick: u64) -> bool {
        let _ = (invariant, pick);
        false
    }

    /// Inserts an entry with a key below every other, which [`insert`](Store::insert)
    /// need not take (feature `planted`).
    #[cfg(feature = "planted")]
    fn push_front(&mut self, t: Time, free: RangeSet) {
        self.insert(t, free);
    }
}

/// The engine of an availability profile over the container `S`.
#[derive(Debug, Clone)]
pub struct Profile<S> {
    store: S,
    /// Earlier earliest-start answers that bound later searches (read only where the
    /// container [`SEEKS`](Store::SEEKS): the paper's Algorithm 1 walks from `ready`).
    bounds: RefCell<bounds::Bounds>,
}

impl<S: Store> Shell<Profile<S>> {
    /// The entries as `(time, free)` pairs, in time order.
    pub fn entries(&self) -> impl Iterator<Item = (Time, &RangeSet)> + '_ {
        let (profile, at) = self.parts();
        profile.store.iter_from(at.now, &mut 0)
    }
}

impl<S: Store> Engine for Profile<S> {
    const KIND: Kind = S::KIND;

    fn new(at: &Basis) -> Result<Self, Error> {
        Ok(Self { store: S::with_first(at.now, at.full.clone()), bounds: RefCell::default() })
    }

    fn check(&self, _: &Basis, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost) {
        self.check_window(s, e, n)
    }

    fn earliest(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost) {
        if S::SEEKS {
            self.earliest_skipping(at, ready, duration, n)
        } else {
            self.earliest_start(at, ready, duration, n)
        }
    }

    fn free_throughout(&self, at: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        self.window_entries(s, e).fold(at.full.clone(), |mut acc, (_, free)| {
            acc.intersect_with(free);
            acc
        })
    }

    fn free_somewhere(&self, _: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        self.window_entries(s, e).fold(RangeSet::new(), |mut acc, (_, free)| {
            acc.union_with(free);
            acc
        })
    }

    fn allocate(&mut self, _: &Basis, s: Time, e: Time, set: &RangeSet) {
        self.bounds.get_mut().changed();
        self.apply(s, e, &mut |free| free.subtract_with(set));
    }

    fn release(&mut self, _: &Basis, s: Time, e: Time, set: &RangeSet) {
        self.bounds.get_mut().clear();
        self.apply(s, e, &mut |free| free.union_with(set));
    }

    fn steps<'a>(&'a self, _: &'a Basis, s: Time, _: Time) -> impl Iterator<Item = Step<'a>> {
        self.store.iter_from(s, &mut 0).map(|(t, free)| (t, Cow::Borrowed(free)))
    }

    fn advance(&mut self, _: &Basis, now: Time) {
        self.bounds.get_mut().changed();
        self.store.drop_before(now);
    }

    fn size(&self) -> usize {
        self.store.count()
    }

    #[cfg(feature = "planted")]
    fn invariants() -> Vec<&'static str> {
        Self::invariant_names()
    }

    #[cfg(feature = "planted")]
    fn corrupt(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        self.break_invariant(at, invariant, pick)
    }

    fn validate(&self, at: &Basis) -> Result<(), Invalid> {
        self.store.validate()?;
        let entries: Vec<_> = self.store.iter_from(at.now, &mut 0).collect();
        match entries.first() {
            Some(&(t, _)) if t == at.now => {}
            first => {
                return Err(Self::KIND.invalid(format!("first entry {first:?} is not at now = {}", at.now)))
            }
        }
        if entries.len() != self.store.count() {
            return Err(Self::KIND.invalid(format!(
                "walking from now reaches {} entries, the store holds {}",
                entries.len(),
                self.store.count()
            )));
        }
        for pair in entries.windows(2) {
            let ((t0, f0), (t1, f1)) = (pair[0], pair[1]);
            if f0 == f1 {
                return Err(
                    Self::KIND.invalid(format!("entries at {t0} and {t1} hold the same free set {f0}"))
                );
            }
            if t1 % at.config.slot != 0 {
                return Err(Self::KIND.invalid(format!("entry {t1} is not on a slot boundary")));
            }
        }
        if let Some((t, f)) = entries.iter().find(|(_, f)| !f.is_subset(&at.full)) {
            return Err(Self::KIND.invalid(format!("entry {t} holds ids beyond the capacity: {f}")));
        }
        Ok(())
    }
}
