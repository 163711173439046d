//! The slotted time array of fcfs-eds-slotted-array ("tslot", section 3): one record per slot over the horizon, holding the slot's
//! free count and free set and the list of reservations that start in it. The array
//! rolls forward with `advance`, so its first slot always holds `now` (the thesis'
//! `update_slot_table`).
//!
//! The paper sorts each slot's list by user and job id; the trait has neither, so lists
//! are sorted by (end, lowest id), which identifies a reservation just as well. A release
//! may cover part of a reservation, so it cuts the reservations it overlaps.

use std::borrow::Cow;
use std::collections::VecDeque;

use crate::shell::{changes, Basis, Engine, Shell, Step};
use crate::{Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame};

/// An array of time slots over a rolling horizon.
pub type SlottedArray = Shell<Slots>;

/// A reservation: `ids` busy from the start of the slot whose list holds it to `end`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reservation {
    end: Time,
    ids: RangeSet,
}

impl Reservation {
    fn key(&self) -> (Time, u32) {
        (self.end, self.ids.ranges().next().map_or(0, |r| r.0))
    }
}

#[derive(Debug, Clone)]
struct Slot {
    free: RangeSet,
    count: u64,
    starts: Vec<Reservation>,
}

impl Slot {
    fn empty(at: &Basis) -> Slot {
        Slot { free: at.full.clone(), count: u64::from(at.capacity), starts: Vec::new() }
    }
}

/// The engine of [`SlottedArray`]: one record per slot, the first holding `now`.
#[derive(Debug, Clone)]
pub struct Slots {
    slots: VecDeque<Slot>,
    /// No reservation is longer (only ever raised, so it stays a bound).
    longest: Time,
}

impl Slots {
    /// Files a reservation starting at `start` in slot `i`, the one holding `start`.
    fn insert(&mut self, i: usize, start: Time, reservation: Reservation) {
        self.longest = self.longest.max(reservation.end - start);
        let list = &mut self.slots[i].starts;
        let i = list.partition_point(|r| r.key() < reservation.key());
        list.insert(i, reservation);
    }

    /// Cuts `[s, e) x set` out of the reservations that overlap it, re-filing the pieces.
    /// The shell has checked that every id of `set` is busy throughout the window, so at
    /// `s` each is held by exactly one running reservation: the walk back from the
    /// window's first slot stops once all are found, instead of going back as far as the
    /// longest reservation could reach (which, after one long reservation, is every slot).
    fn cut(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        let (first, last) = (at.slot_index(s), at.slot_index(e - 1));
        let reach = at.slot_index(s.saturating_sub(self.longest).max(at.now));
        let mut pieces = Vec::new();
        // Reservations filed in the window's first slot start at `s`, so run at `s`.
        let mut missing = set.subtract(&self.take_overlapping(at, first, s, e, set, &mut pieces));
        for i in first + 1..=last {
            self.take_overlapping(at, i, s, e, set, &mut pieces);
        }
        for i in (reach..first).rev() {
            if missing.is_empty() {
                break;
            }
            missing.subtract_with(&self.take_overlapping(at, i, s, e, set, &mut pieces));
        }
        for (start, end, ids) in pieces {
            if start < end && !ids.is_empty() {
                self.insert(at.slot_index(start), start, Reservation { end, ids });
            }
        }
    }

    /// Takes the reservations of slot `i` that overlap `[s, e) x set` out of its list,
    /// adding the pieces of them to keep to `pieces`; returns the ids of `set` they held.
    fn take_overlapping(
        &mut self,
        at: &Basis,
        i: usize,
        s: Time,
        e: Time,
        set: &RangeSet,
        pieces: &mut Vec<(Time, Time, RangeSet)>,
    ) -> RangeSet {
        let start = at.slot_start(i);
        let list = std::mem::take(&mut self.slots[i].starts);
        let (hit, kept): (Vec<_>, Vec<_>) =
            list.into_iter().partition(|r| r.end > s && !r.ids.intersect(set).is_empty());
        self.slots[i].starts = kept;
        let mut held = RangeSet::new();
        for r in hit {
            let (mid_start, mid_end) = (start.max(s), r.end.min(e));
            held.union_with(&r.ids.intersect(set));
            pieces.push((start, mid_start, r.ids.clone()));
            pieces.push((mid_end, r.end, r.ids.clone()));
            pieces.push((mid_start, mid_end, r.ids.subtract(set)));
        }
        held
    }

    /// The slots of `[s, e)`.
    fn window(&self, at: &Basis, s: Time, e: Time) -> impl Iterator<Item = &Slot> {
        self.slots.range(at.slot_index(s)..at.slot_index(e - 1) + 1)
    }

    fn update(&mut self, at: &Basis, s: Time, e: Time, f: impl Fn(&mut Slot)) {
        let (from, to) = (at.slot_index(s), at.slot_index(e - 1) + 1);
        self.slots.range_mut(from..to).for_each(f);
    }

    /// Scans the slots from `first` to the last one starting before `end`, counting each
    /// in `visited`: the intersection if it keeps `n`; else the index of a slot with fewer
    /// than `n` free (every window through it fails), or `None` when the intersection
    /// fell short first.
    fn scan(
        &self,
        at: &Basis,
        first: usize,
        end: Time,
        n: u64,
        visited: &mut u64,
    ) -> Result<RangeSet, Option<usize>> {
        let mut acc = at.full.clone();
        for (i, slot) in self.slots.range(first..).enumerate() {
            if at.slot_start(first + i) >= end {
                break;
            }
            *visited += 1;
            if slot.count < n {
                return Err(Some(first + i));
            }
            if acc.intersect_count(&slot.free) < n {
                return Err(None);
            }
        }
        Ok(acc)
    }
}

impl Engine for Slots {
    const KIND: Kind = Kind::SlottedArray;

    /// `horizon / slot` slots, all resources free.
    fn new(at: &Basis) -> Result<Self, Error> {
        let slots = at.config.slots(Self::KIND.name())?;
        Ok(Self { slots: std::iter::repeat_n(Slot::empty(at), slots).collect(), longest: 0 })
    }

    /// Visits the window's slots; the worst case is every slot of the window.
    fn check(&self, at: &Basis, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost) {
        let mut cost = Cost { worst: (e - s) / at.config.slot, ..Cost::default() };
        let answer = self.scan(at, at.slot_index(s), e, n, &mut cost.visited).ok();
        (answer, cost)
    }

    /// Tries `ready`, then each later slot start; a slot with fewer than `n` free rules
    /// out every window through it, so the search resumes after it. The worst case is
    /// every candidate window scanned in full (the paper's O(te * tr)).
    fn earliest(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost) {
        let (w, limit) = (at.config.slot, at.limit);
        let first = at.slot_index(ready);
        // The shell has checked that the first window ends within the horizon.
        let first_slots = (at.config.ceil(ready + duration).unwrap_or(limit) - at.config.floor(ready)) / w;
        // Later candidates start on slots first + 1 ..= len - span, each `span` slots long.
        let span = at.config.ceil(duration).unwrap_or(limit) / w;
        let later = (self.slots.len() as u64).saturating_sub(span).saturating_sub(first as u64);
        // The last slot a later candidate can start on.
        let last = self.slots.len().saturating_sub(usize::try_from(span).unwrap_or(usize::MAX));
        let mut cost = Cost { worst: first_slots + later * span, ..Cost::default() };
        let mut candidate = first;
        let answer = loop {
            let start = if candidate == first { ready } else { at.slot_start(candidate) };
            let Some((end, window_end)) = at.candidate(start, duration) else { break None };
            match self.scan(at, candidate, window_end, n, &mut cost.visited) {
                Ok(free) => break Some(TimeFrame { start, end, free }),
                Err(Some(blocked)) => candidate = blocked + 1,
                // A window from a slot equal to its predecessor drops a slot equal to one
                // it keeps and can only add more, so it fails too: pass over the failed
                // candidate's run of equal slots, each counted once (a later candidate,
                // within the worst case's budget of `span` slots each).
                Err(None) => {
                    let set = &self.slots[candidate].free;
                    candidate += 1;
                    while candidate <= last && self.slots[candidate].free == *set {
                        cost.visited += 1;
                        candidate += 1;
                    }
                }
            }
            if candidate >= self.slots.len() {
                break None;
            }
        };
        (answer, cost)
    }

    fn free_throughout(&self, at: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        self.window(at, s, e).fold(at.full.clone(), |all, slot| all.intersect(&slot.free))
    }

    fn free_somewhere(&self, at: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        self.window(at, s, e).fold(RangeSet::new(), |any, slot| any.union(&slot.free))
    }

    fn allocate(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        let taken = set.count();
        self.update(at, s, e, |slot| {
            slot.free.subtract_with(set);
            slot.count -= taken;
        });
        self.insert(at.slot_index(s), s, Reservation { end: e, ids: set.clone() });
    }

    fn release(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        let given = set.count();
        self.update(at, s, e, |slot| {
            slot.free.union_with(set);
            slot.count += given;
        });
        self.cut(at, s, e, set);
    }

    /// One step per run of equal slots in the window.
    fn steps<'a>(&'a self, at: &'a Basis, s: Time, e: Time) -> impl Iterator<Item = Step<'a>> {
        let from = at.slot_index(s);
        changes(
            self.window(at, s, e)
                .enumerate()
                .map(move |(i, slot)| (at.slot_start(from + i), Cow::Borrowed(&slot.free))),
        )
    }

    /// Drops the slots before `now` and appends as many empty ones at the horizon; the
    /// reservations still running at `now` move to the new first slot.
    fn advance(&mut self, at: &Basis, now: Time) {
        let gone = (((now - at.now) / at.config.slot).min(self.slots.len() as u64)) as usize;
        let running: Vec<Reservation> =
            self.slots.drain(..gone).flat_map(|slot| slot.starts).filter(|r| r.end > now).collect();
        self.slots.extend(std::iter::repeat_n(Slot::empty(at), gone));
        for r in running {
            self.insert(0, now, r);
        }
    }

    fn size(&self) -> usize {
        self.slots.len() + self.slots.iter().map(|slot| slot.starts.len()).sum::<usize>()
    }

    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = &[
        "one slot per slot of the horizon",
        "a slot's count is the size of its free set",
        "a reservation ends after the start of its slot",
        "a reservation ends within the horizon",
        "no reservation is longer than the longest",
        "a reservation holds some id",
        "a reservation's ids are within the capacity",
        "a slot's reservations are sorted by (end, lowest id)",
        "reservations running together hold different ids",
        "a slot's free set is what its running reservations leave",
    ];

    /// See [`Slots::plant`].
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        self.plant(at, invariant, pick)
    }

    fn validate(&self, at: &Basis) -> Result<(), Invalid> {
        let expected = at.config.horizon.unwrap_or(0) / at.config.slot;
        if self.slots.len() as u64 != expected || !at.now.is_multiple_of(at.config.slot) {
            return Err(Self::KIND.invalid(format!(
                "{} slots from {}, expected {expected} from a slot start",
                self.slots.len(),
                at.now
            )));
        }
        let limit = at.limit;
        let mut running: Vec<&Reservation> = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            let t = at.slot_start(i);
            if slot.count != slot.free.count() || !slot.free.is_subset(&at.full) {
                return Err(
                    Self::KIND.invalid(format!("slot {t}: count {} for free set {}", slot.count, slot.free))
                );
            }
            if let Some(r) = slot.starts.iter().find(|r| {
                r.end <= t
                    || r.end > limit
                    || r.end - t > self.longest
                    || r.ids.is_empty()
                    || !r.ids.is_subset(&at.full)
            }) {
                return Err(Self::KIND.invalid(format!("slot {t}: bad reservation {r:?}")));
            }
            if slot.starts.windows(2).any(|w| w[0].key() >= w[1].key()) {
                return Err(Self::KIND
                    .invalid(format!("slot {t}: its reservations are not sorted by (end, lowest id)")));
            }
            running.retain(|r| r.end > t);
            running.extend(&slot.starts);
            let busy = running.iter().fold(RangeSet::new(), |acc, r| acc.union(&r.ids));
            let held: u64 = running.iter().map(|r| r.ids.count()).sum();
            if held != busy.count() {
                return Err(Self::KIND.invalid(format!("slot {t}: reservations overlap")));
            }
            if slot.free != at.full.subtract(&busy) {
                return Err(Self::KIND.invalid(format!(
                    "slot {t}: free set {} but reservations leave {}",
                    slot.free,
                    at.full.subtract(&busy)
                )));
            }
        }
        Ok(())
    }
}

/// Invariants broken on purpose (feature `planted`). Each change breaks its invariant
/// alone, so that `validate` refuses it even with any other check taken out.
#[cfg(feature = "planted")]
impl Slots {
    /// The `pick`-th of the reservations `(slot, position)` for which `fits(slot start,
    /// reservation)`, if any.
    fn nth(
        &self,
        at: &Basis,
        pick: u64,
        fits: impl Fn(Time, &Reservation) -> bool,
    ) -> Option<(usize, usize)> {
        let places: Vec<_> = (self.slots.iter().enumerate())
            .flat_map(|(i, slot)| slot.starts.iter().enumerate().map(move |(j, r)| (i, j, r)))
            .filter(|&(i, _, r)| fits(at.slot_start(i), r))
            .map(|(i, j, _)| (i, j))
            .collect();
        crate::shell::planted::nth(&places, pick)
    }

    /// Breaks invariant `invariant` of [`INVARIANTS`](Engine::INVARIANTS) at the `pick`-th
    /// place for it; whether there was one.
    fn plant(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        let w = at.config.slot;
        let slot = (pick % self.slots.len() as u64) as usize;
        match invariant {
            // One slot fewer: no later check looks past the last.
            0 => drop(self.slots.pop_back()),
            // Only `validate` reads a slot's count.
            1 => self.slots[slot].count += 1,
            // Only a one-slot reservation can end at its start without freeing an id: it
            // still runs in its slot and, as before, in no later one.
            2 => {
                let Some((i, j)) = self.nth(at, pick, |t, r| r.end == t + w) else { return false };
                self.slots[i].starts[j].end = at.slot_start(i);
                self.slots[i].starts.sort_by_key(Reservation::key);
            }
            // Only one ending at the horizon can end past it without busying an id more.
            3 => {
                let Some((i, j)) = self.nth(at, pick, |_, r| r.end == at.limit && r.end < Time::MAX) else {
                    return false;
                };
                self.slots[i].starts[j].end += 1;
                self.longest = self.longest.max(at.limit + 1 - at.slot_start(i));
                self.slots[i].starts.sort_by_key(Reservation::key);
            }
            // The bound just below the longest reservation held.
            4 => {
                let lengths = (self.slots.iter().enumerate())
                    .flat_map(|(i, slot)| slot.starts.iter().map(move |r| r.end - at.slot_start(i)));
                let Some(longest) = lengths.max() else { return false };
                self.longest = longest - 1;
            }
            // A one-slot reservation of no id, in a slot where none with its key is.
            5 => {
                let places: Vec<_> = (0..self.slots.len())
                    .filter_map(|i| Some((i, at.slot_start(i).checked_add(w).filter(|&e| e <= at.limit)?)))
                    .filter(|&(i, e)| self.slots[i].starts.iter().all(|r| r.key() != (e, 0)))
                    .collect();
                let Some((i, end)) = crate::shell::planted::nth(&places, pick) else { return false };
                self.insert(i, at.slot_start(i), Reservation { end, ids: RangeSet::new() });
            }
            // The id past the capacity: it changes neither the key nor any free set.
            6 => {
                let (Some((i, j)), Some(beyond)) =
                    (self.nth(at, pick, |_, _| true), at.capacity.checked_add(1))
                else {
                    return false;
                };
                self.slots[i].starts[j].ids.union_with(&RangeSet::from_range(at.capacity, beyond));
            }
            // The first two reservations of a slot swapped.
            7 => {
                let places: Vec<_> =
                    (0..self.slots.len()).filter(|&i| self.slots[i].starts.len() > 1).collect();
                let Some(i) = crate::shell::planted::nth(&places, pick) else { return false };
                self.slots[i].starts.swap(0, 1);
            }
            // A copy of a reservation in its next slot: it overlaps the original there and
            // busies nothing more (and its key is new there, as no other reservation
            // holds its lowest id then).
            8 => {
                let Some((i, j)) = self.nth(at, pick, |t, r| r.end > t + w) else { return false };
                let copy = self.slots[i].starts[j].clone();
                self.insert(i + 1, at.slot_start(i + 1), copy);
            }
            // One id more or less, the count following.
            9 => {
                let slot = &mut self.slots[slot];
                match slot.free.first(1) {
                    Some(id) => slot.free.subtract_with(&id),
                    None => slot.free = RangeSet::from_ids([0]),
                }
                slot.count = slot.free.count();
            }
            _ => return false,
        }
        true
    }
}
