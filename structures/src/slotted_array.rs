//! The slotted time array of the FCFS-EDS seed ("tslot", section 3 of
//! `fcfs-eds-slotted-array`): one record per slot over the horizon, holding the slot's
//! free count and free set and the list of reservations that start in it. The array
//! rolls forward with `advance`, so its first slot always holds `now` (the thesis'
//! `update_slot_table`).
//!
//! The seed sorts each slot's list by user and job id; the trait has neither, so lists
//! are sorted by (end, lowest id), which identifies a reservation just as well. A release
//! may cover part of a reservation, so it cuts the reservations it overlaps.

use std::cell::Cell;
use std::collections::VecDeque;

use crate::sweep;
use crate::{
    check_count, rebuild, AvailabilityIndex, Config, Cost, Error, RangeSet, Time, TimeFrame, COUNTING,
};

/// A reservation: `ids` busy from the start of the slot whose list holds it to `end`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reservation {
    end: Time,
    ids: RangeSet,
}

impl Reservation {
    fn key(&self) -> (Time, u32) {
        (self.end, self.ids.ranges()[0].0)
    }
}

#[derive(Debug, Clone)]
struct Slot {
    free: RangeSet,
    count: u64,
    starts: Vec<Reservation>,
}

/// An array of time slots over a rolling horizon.
#[derive(Debug, Clone)]
pub struct SlottedArray {
    capacity: u32,
    config: Config,
    now: Time,
    full: RangeSet,
    slots: VecDeque<Slot>,
    /// No reservation is longer (only ever raised, so it stays a bound).
    longest: Time,
    cost: Cell<Option<Cost>>,
}

impl SlottedArray {
    /// An array of `horizon / slot` slots, all resources free, from time 0.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for an invalid configuration, or from [`Config::slots`].
    pub fn new(capacity: u32, config: Config) -> Result<Self, Error> {
        config.validate(capacity)?;
        let slots = config.slots("slotted array")?;
        let full = RangeSet::full(capacity);
        let mut array = Self {
            capacity,
            config,
            now: 0,
            full,
            slots: VecDeque::new(),
            longest: 0,
            cost: Cell::new(None),
        };
        array.slots.resize(slots, array.empty_slot());
        Ok(array)
    }

    fn empty_slot(&self) -> Slot {
        Slot { free: self.full.clone(), count: u64::from(self.capacity), starts: Vec::new() }
    }

    /// The index of the slot holding `t` (`now <= t < limit`).
    fn index(&self, t: Time) -> usize {
        ((t - self.now) / self.config.slot) as usize
    }

    fn start_of(&self, i: usize) -> Time {
        self.now + i as Time * self.config.slot
    }

    /// The slots from the one holding `t` on, as sweep steps.
    fn steps(&self, t: Time) -> impl Iterator<Item = (Time, &RangeSet)> + '_ {
        let from = self.index(t);
        self.slots.range(from..).enumerate().map(move |(i, slot)| (self.start_of(from + i), &slot.free))
    }

    fn insert(&mut self, start: Time, reservation: Reservation) {
        self.longest = self.longest.max(reservation.end - start);
        let i = self.index(start);
        let list = &mut self.slots[i].starts;
        let at = list.partition_point(|r| r.key() < reservation.key());
        list.insert(at, reservation);
    }

    /// Cuts `[s, e) x set` out of the reservations that overlap it, re-filing the pieces.
    fn cut(&mut self, s: Time, e: Time, set: &RangeSet) {
        let first = self.index(s.saturating_sub(self.longest).max(self.now));
        let mut pieces = Vec::new();
        for i in first..self.index(e - 1) + 1 {
            let start = self.start_of(i);
            let list = std::mem::take(&mut self.slots[i].starts);
            let (hit, kept): (Vec<_>, Vec<_>) =
                list.into_iter().partition(|r| r.end > s && !r.ids.intersect(set).is_empty());
            self.slots[i].starts = kept;
            for r in hit {
                let (mid_start, mid_end) = (start.max(s), r.end.min(e));
                pieces.push((start, mid_start, r.ids.clone()));
                pieces.push((mid_end, r.end, r.ids.clone()));
                pieces.push((mid_start, mid_end, r.ids.subtract(set)));
            }
        }
        for (start, end, ids) in pieces {
            if start < end && !ids.is_empty() {
                self.insert(start, Reservation { end, ids });
            }
        }
    }

    /// The free set over `[s, e)` intersected, and the ids free somewhere in it.
    fn window_sets(&self, s: Time, e: Time) -> (RangeSet, RangeSet) {
        self.slots
            .range(self.index(s)..self.index(e - 1) + 1)
            .fold((self.full.clone(), RangeSet::new()), |(all, any), slot| {
                (all.intersect(&slot.free), any.union(&slot.free))
            })
    }

    fn update(&mut self, s: Time, e: Time, f: impl Fn(&mut Slot)) {
        let (from, to) = (self.index(s), self.index(e - 1) + 1);
        self.slots.range_mut(from..to).for_each(f);
    }

    /// Scans the slots from `first` to the last one starting before `end`, counting each
    /// in `visited`: the intersection if it keeps `n`; else the index of a slot with fewer
    /// than `n` free (every window through it fails), or `None` when the intersection
    /// fell short first.
    fn scan(&self, first: usize, end: Time, n: u64, visited: &mut u64) -> Result<RangeSet, Option<usize>> {
        let mut acc = self.full.clone();
        for (i, slot) in self.slots.range(first..).enumerate() {
            if self.start_of(first + i) >= end {
                break;
            }
            *visited += 1;
            if slot.count < n {
                return Err(Some(first + i));
            }
            acc = acc.intersect(&slot.free);
            if acc.count() < n {
                return Err(None);
            }
        }
        Ok(acc)
    }
}

impl AvailabilityIndex for SlottedArray {
    fn name(&self) -> &'static str {
        "slotted"
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

    /// Visits the window's slots; the worst case is every slot of the window.
    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, start, end)?;
        check_count(n, self.capacity)?;
        let mut cost = Cost { worst: (e - s) / self.config.slot, ..Cost::default() };
        let answer = self.scan(self.index(s), e, u64::from(n), &mut cost.visited).ok();
        self.cost.set(COUNTING.then_some(cost));
        Ok(answer)
    }

    /// Tries `ready`, then each later slot start; a slot with fewer than `n` free rules
    /// out every window through it, so the search resumes after it. The worst case is
    /// every candidate window scanned in full (the seed's O(te * tr)).
    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.cost.set(None);
        self.config.search(self.now, ready, duration)?;
        check_count(n, self.capacity)?;
        let (w, limit, n) = (self.config.slot, self.config.limit(self.now), u64::from(n));
        let first = self.index(ready);
        // `search` has checked that the first window ends within the horizon.
        let first_slots =
            (self.config.ceil(ready + duration).unwrap_or(limit) - self.config.floor(ready)) / w;
        // Later candidates start on slots first + 1 ..= len - span, each `span` slots long.
        let span = self.config.ceil(duration).unwrap_or(limit) / w;
        let later = (self.slots.len() as u64).saturating_sub(span).saturating_sub(first as u64);
        let mut cost = Cost { worst: first_slots + later * span, ..Cost::default() };
        let mut candidate = first;
        let answer = loop {
            let start = if candidate == first { ready } else { self.start_of(candidate) };
            let Some(end) = start.checked_add(duration) else { break None };
            let Some(window_end) = self.config.ceil(end).filter(|&q| q <= limit) else { break None };
            match self.scan(candidate, window_end, n, &mut cost.visited) {
                Ok(free) => break Some(TimeFrame { start, end, free }),
                Err(Some(blocked)) => candidate = blocked + 1,
                Err(None) => candidate += 1,
            }
            if candidate >= self.slots.len() {
                break None;
            }
        };
        self.cost.set(COUNTING.then_some(cost));
        Ok(answer)
    }

    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.cost.set(None);
        let (s, e) = self
            .config
            .admit_allocation(self.now, self.capacity, start, end, set, |s, e| self.window_sets(s, e).0)?;
        let taken = set.count();
        self.update(s, e, |slot| {
            slot.free = slot.free.subtract(set);
            slot.count -= taken;
        });
        self.insert(s, Reservation { end: e, ids: set.clone() });
        Ok(())
    }

    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.cost.set(None);
        let (s, e) = self
            .config
            .admit_release(self.now, self.capacity, start, end, set, |s, e| self.window_sets(s, e).1)?;
        let given = set.count();
        self.update(s, e, |slot| {
            slot.free = slot.free.union(set);
            slot.count += given;
        });
        self.cut(s, e, set);
        Ok(())
    }

    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        Ok(sweep::free_frames(self.steps(s), s, e))
    }

    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        Ok(sweep::options(self.steps(s), s, e, min_duration, u64::from(min_n)))
    }

    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.cost.set(None);
        *self = rebuild(Self::new(self.capacity, self.config)?, self.now, frames)?;
        Ok(())
    }

    /// Drops the slots before `now` and appends as many empty ones at the horizon; the
    /// reservations still running at `now` move to the new first slot.
    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.cost.set(None);
        let now = self.config.advance(self.now, now)?;
        let gone = (((now - self.now) / self.config.slot).min(self.slots.len() as u64)) as usize;
        let running: Vec<Reservation> =
            self.slots.drain(..gone).flat_map(|slot| slot.starts).filter(|r| r.end > now).collect();
        let empty = self.empty_slot();
        self.slots.extend(std::iter::repeat_n(empty, gone));
        self.now = now;
        for r in running {
            self.insert(now, r);
        }
        Ok(())
    }

    fn size(&self) -> usize {
        self.slots.len() + self.slots.iter().map(|slot| slot.starts.len()).sum::<usize>()
    }

    fn last_cost(&self) -> Option<Cost> {
        self.cost.get()
    }

    fn validate(&self) -> Result<(), String> {
        let expected = self.config.horizon.unwrap_or(0) / self.config.slot;
        if self.slots.len() as u64 != expected || !self.now.is_multiple_of(self.config.slot) {
            return Err(format!(
                "{} slots from {}, expected {expected} from a slot start",
                self.slots.len(),
                self.now
            ));
        }
        let limit = self.config.limit(self.now);
        let mut running: Vec<&Reservation> = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            let t = self.start_of(i);
            if slot.count != slot.free.count() || !slot.free.is_subset(&self.full) {
                return Err(format!("slot {t}: count {} for free set {}", slot.count, slot.free));
            }
            if let Some(r) = slot.starts.iter().find(|r| {
                r.end <= t
                    || r.end > limit
                    || r.end - t > self.longest
                    || r.ids.is_empty()
                    || !r.ids.is_subset(&self.full)
            }) {
                return Err(format!("slot {t}: bad reservation {r:?}"));
            }
            if slot.starts.windows(2).any(|w| w[0].key() >= w[1].key()) {
                return Err(format!("slot {t}: its reservations are not sorted by (end, lowest id)"));
            }
            running.retain(|r| r.end > t);
            running.extend(&slot.starts);
            let busy = running.iter().fold(RangeSet::new(), |acc, r| acc.union(&r.ids));
            let held: u64 = running.iter().map(|r| r.ids.count()).sum();
            if held != busy.count() {
                return Err(format!("slot {t}: reservations overlap"));
            }
            if slot.free != self.full.subtract(&busy) {
                return Err(format!(
                    "slot {t}: free set {} but reservations leave {}",
                    slot.free,
                    self.full.subtract(&busy)
                ));
            }
        }
        Ok(())
    }
}
