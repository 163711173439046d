//! The profile's own invariants broken on purpose (feature `planted`, for tests only),
//! after its container's, so that a test sees `validate` refuse each.

use crate::{RangeSet, Time};

use super::{Basis, Profile, Store};

/// The profile's invariants, in the order `validate` checks them.
const OWN: &[&str] = &[
    "the first entry is at now",
    "walking from now reaches every entry",
    "neighbouring entries differ",
    "entries lie on slot boundaries",
    "entries hold ids within the capacity",
];

/// `set` with `id` added or taken out.
fn toggled(set: &RangeSet, id: u32) -> RangeSet {
    let one = RangeSet::from_range(id, id + 1);
    if set.contains(id) {
        set.subtract(&one)
    } else {
        set.union(&one)
    }
}

impl<S: Store> Profile<S> {
    /// The container's invariants, then the profile's.
    pub(super) fn invariant_names() -> Vec<&'static str> {
        [S::INVARIANTS, OWN].concat()
    }

    /// Breaks invariant `invariant` of [`invariant_names`](Self::invariant_names) at the
    /// `pick`-th place, through the container's own operations for the profile's.
    pub(super) fn break_invariant(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        let Some(own) = invariant.checked_sub(S::INVARIANTS.len()) else {
            return self.store.corrupt(invariant, pick);
        };
        let entries: Vec<(Time, RangeSet)> =
            self.store.iter_from(at.now, &mut 0).map(|(t, free)| (t, free.clone())).collect();
        let place = |among: usize| (pick % among as u64) as usize;
        // `update` takes a window, so an entry at the end of time cannot be updated alone.
        let updatable = entries.iter().take_while(|e| e.0 < Time::MAX).count();
        let next_key = |i: usize| entries.get(i + 1).map_or(Time::MAX, |e| e.0);
        match own {
            // The first entry moved one past `now`, where the next entry leaves room.
            0 => {
                let Some(moved) = at.now.checked_add(1).filter(|&t| t < next_key(0)) else { return false };
                self.store.insert(moved, entries[0].1.clone());
                self.store.remove(at.now);
            }
            // An entry before `now`, which a walk from `now` never reaches.
            1 => {
                let Some(before) = at.now.checked_sub(1) else { return false };
                self.store.push_front(before, entries[0].1.clone());
            }
            // An entry given its predecessor's free set.
            2 => {
                if updatable < 2 {
                    return false;
                }
                let i = 1 + place(updatable - 1);
                let (t, previous) = (entries[i].0, entries[i - 1].1.clone());
                self.store.update(t, t.saturating_add(1), &mut |free| *free = previous.clone());
            }
            // An entry off the slot grid, inside an entry's span, unlike its neighbours.
            3 => {
                let i = place(entries.len());
                let (t, next) = (entries[i].0.saturating_add(1), entries.get(i + 1).map(|e| &e.1));
                let unlike = (0..at.capacity.min(3))
                    .map(|id| toggled(&entries[i].1, id))
                    .find(|free| Some(free) != next);
                match unlike {
                    Some(free) if at.config.slot > 1 && t < next_key(i) => self.store.insert(t, free),
                    _ => return false,
                }
            }
            // An entry holding the id one past the last.
            _ => {
                if updatable == 0 {
                    return false;
                }
                let t = entries[place(updatable)].0;
                let beyond = RangeSet::from_range(at.capacity, at.capacity + 1);
                self.store.update(t, t.saturating_add(1), &mut |free| free.union_with(&beyond));
            }
        }
        true
    }
}
