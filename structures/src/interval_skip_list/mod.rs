//! The time slot table of rspb-priorities-benefit-functions (section 3.4 and its
//! simulation set-up) kept, as the thesis keeps it, in an interval skip list (Hanson
//! & Johnson 1996; `list.rs`): the intervals are the reservations, each with the ids it
//! holds busy, and the trait's questions are stabbing and range queries on it.
//!
//! The thesis keeps one table per machine holding CPU percentages; the trait's resources
//! are whole, so one list holds every reservation with its id set, and what is free is
//! what no overlapping reservation holds. A release may cover part of a reservation, so
//! it cuts the reservations it overlaps into the pieces that stay busy.

mod list;
#[cfg(feature = "planted")]
mod planted;

use std::borrow::Cow;
use std::convert::Infallible;

use list::List;

use crate::shell::{Basis, Engine, Shell, Step};
use crate::{Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame, COUNTING};

/// Reservations in an interval skip list.
pub type IntervalSkipList = Shell<Reservations>;

/// The engine of [`IntervalSkipList`]: the reservations and their skip list.
#[derive(Debug, Clone)]
pub struct Reservations {
    list: List,
}

impl Reservations {
    /// The ids busy at some instant of `[s, e)`; with `n`, stops (with `None`) once fewer
    /// than `n` stay free.
    fn busy(&self, at: &Basis, s: Time, e: Time, n: Option<u64>, visited: &mut u64) -> Option<RangeSet> {
        let most = u64::from(at.capacity) - n.unwrap_or(0);
        // The ranges met so far, and a bound on how many ids they hold: they are merged
        // only when the bound passes `most`, not once per reservation.
        let (mut ranges, mut bound, mut enough) = (Vec::new(), 0, true);
        self.list.overlapping(s, e, visited, |i| {
            let ids = &self.list.interval(i).ids;
            ranges.extend(ids.ranges());
            bound += ids.count();
            if bound > most {
                let merged = RangeSet::from_ranges(ranges.drain(..));
                bound = merged.count();
                ranges.extend(merged.ranges());
                enough = bound <= most;
            }
            enough
        });
        enough.then(|| RangeSet::from_ranges(ranges))
    }

    /// A bound on what one range query examines: every node twice (the stabbing walk and
    /// the bottom-level walk each pass a node at most once), every marker and every start.
    fn attempt_bound(&self) -> u64 {
        2 * self.list.nodes() as u64 + self.list.markers() + self.list.len() as u64
    }

    /// The free set at `s` and at every reservation start or end inside `(s, e)`.
    fn step_sets(&self, at: &Basis, s: Time, e: Time) -> Vec<(Time, RangeSet)> {
        let mut events = Vec::new();
        self.list.overlapping(s, e, &mut 0, |i| {
            let v = self.list.interval(i);
            events.push((v.start.max(s), true, i));
            if v.end < e {
                events.push((v.end, false, i));
            }
            true
        });
        let mut steps = vec![(s, at.full.clone())];
        let Ok(()) = self.sweep(events, |t, _, _, busy| {
            let free = at.full.subtract(busy);
            match steps.last_mut() {
                Some(last) if last.0 == t => last.1 = free,
                _ => steps.push((t, free)),
            }
            Ok::<(), Infallible>(())
        });
        steps
    }

    /// Replays reservation starts and ends, `(time, starts, interval)`, in time order,
    /// calling `visit` after each with the ids busy from then on. At one instant ends come
    /// first: the ids an ending reservation frees may be taken by one starting there.
    ///
    /// # Errors
    /// The first error `visit` returns.
    fn sweep<E>(
        &self,
        mut events: Vec<(Time, bool, usize)>,
        mut visit: impl FnMut(Time, bool, &list::Interval, &RangeSet) -> Result<(), E>,
    ) -> Result<(), E> {
        events.sort_unstable_by_key(|&(t, starts, i)| (t, starts, i));
        let mut busy = RangeSet::new();
        for (t, starts, i) in events {
            let v = self.list.interval(i);
            busy = if starts { busy.union(&v.ids) } else { busy.subtract(&v.ids) };
            visit(t, starts, v, &busy)?;
        }
        Ok(())
    }
}

impl Engine for Reservations {
    const KIND: Kind = Kind::SkipList;

    /// An empty list: every resource free.
    fn new(_: &Basis) -> Result<Self, Error> {
        Ok(Self { list: List::new() })
    }

    /// A stabbing search at the window's start, then a walk over the reservations that
    /// start inside it, stopping once fewer than `n` ids stay free. Counts nodes and
    /// markers examined; the worst case is every node twice, every marker and every
    /// reservation.
    fn check(&self, at: &Basis, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost) {
        let mut cost = Cost { worst: if COUNTING { self.attempt_bound() } else { 0 }, ..Cost::default() };
        let answer = self.busy(at, s, e, Some(n), &mut cost.visited).map(|busy| at.full.subtract(&busy));
        (answer, cost)
    }

    /// One range query per candidate start: `ready`, then every later node (reservation
    /// ends are where the free set can grow). The worst case is the bound of `check` for
    /// every candidate whose window ends within the horizon.
    fn earliest(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost) {
        let candidates = std::iter::once(ready).chain(self.list.keys_after(ready));
        let mut cost = Cost::default();
        let mut answer = None;
        let mut tried = 0;
        for (t, (end, e)) in candidates.map_while(|t| at.candidate(t, duration).map(|w| (t, w))) {
            tried += 1;
            if answer.is_none() {
                let busy = self.busy(at, at.config.floor(t), e, Some(n), &mut cost.visited);
                answer = busy.map(|busy| TimeFrame { start: t, end, free: at.full.subtract(&busy) });
            } else if !COUNTING {
                break;
            }
        }
        cost.worst = if COUNTING { tried * self.attempt_bound() } else { 0 };
        (answer, cost)
    }

    fn free_throughout(&self, at: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        at.full.subtract(&self.busy(at, s, e, None, &mut 0).unwrap_or_default())
    }

    fn free_somewhere(&self, at: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        self.step_sets(at, s, e).into_iter().fold(RangeSet::new(), |any, (_, free)| any.union(&free))
    }

    fn allocate(&mut self, _: &Basis, s: Time, e: Time, set: &RangeSet) {
        self.list.insert(s, e, set.clone());
    }

    /// Cuts `[s, e) x set` out of the reservations it overlaps: each is removed and its
    /// pieces that stay busy are inserted.
    fn release(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        let mut hit = Vec::new();
        self.list.overlapping(s, e, &mut 0, |i| {
            if !self.list.interval(i).ids.intersect(set).is_empty() {
                hit.push(i);
            }
            true
        });
        for i in hit {
            let r = self.list.remove(i);
            let (mid_start, mid_end) = (r.start.max(s), r.end.min(e));
            let pieces = [
                (r.start, mid_start, r.ids.clone()),
                (mid_end, r.end, r.ids.clone()),
                (mid_start, mid_end, r.ids.subtract(set)),
            ];
            for (a, b, ids) in pieces {
                // A piece that ended before now is the forgotten past.
                if a < b && b > at.now && !ids.is_empty() {
                    self.list.insert(a, b, ids);
                }
            }
        }
    }

    fn steps<'a>(&'a self, at: &'a Basis, s: Time, e: Time) -> impl Iterator<Item = Step<'a>> {
        self.step_sets(at, s, e).into_iter().map(|(t, free)| (t, Cow::Owned(free)))
    }

    /// Removes the reservations that ended; those still running keep their start.
    fn advance(&mut self, _: &Basis, now: Time) {
        for i in self.list.ended(now) {
            self.list.remove(i);
        }
    }

    /// Skip-list nodes (distinct reservation endpoints).
    fn size(&self) -> usize {
        self.list.nodes()
    }

    fn validate(&self, at: &Basis) -> Result<(), Invalid> {
        self.list.validate()?;
        let limit = at.limit;
        let mut events = Vec::new();
        for (i, v) in self.list.intervals() {
            let aligned = v.start.is_multiple_of(at.config.slot) && v.end.is_multiple_of(at.config.slot);
            if v.end <= at.now || v.end > limit || !aligned || !v.ids.is_subset(&at.full) {
                return Err(Self::KIND.invalid(format!(
                    "reservation [{}, {}) {}: past, beyond the horizon, off the slots or out of range",
                    v.start, v.end, v.ids
                )));
            }
            events.extend([(v.start, true, i), (v.end, false, i)]);
        }
        // Disjoint reservations hold, at every instant, as many ids as their union.
        let mut held = 0;
        self.sweep(events, |t, starts, v, busy| {
            held = if starts { held + v.ids.count() } else { held - v.ids.count() };
            if held != busy.count() {
                return Err(Self::KIND.invalid(format!(
                    "at {t}: reservation [{}, {}) {} overlaps another",
                    v.start, v.end, v.ids
                )));
            }
            Ok(())
        })?;
        if !at.now.is_multiple_of(at.config.slot) {
            return Err(Self::KIND.invalid(format!("now {} is not a slot boundary", at.now)));
        }
        Ok(())
    }

    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = planted::INVARIANTS;

    /// See [`planted::corrupt`].
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        planted::corrupt(self, at, invariant, pick)
    }
}
