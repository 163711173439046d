//! The calendar queue: the availability profile's change points held in Brown's
//! calendar (`buckets.rs`) instead of a tree or list, with GarQ's per-bucket availability
//! summaries (Sulistio et al. 2009) letting a search take a whole day at once.
//!
//! The profile is the same as the other profile structures': the first point at `now`,
//! adjacent points different, every point on a slot boundary. Searches walk forward one
//! bucket a day from the point holding the window's start. A day whose bucket holds only
//! that day's points, all inside the window, is taken whole from its summary: one bucket
//! visit instead of a visit per point.
//!
//! Calendar queues are known to suffer when events are skewed: Brown's width comes from
//! the gaps at the head of the queue, so a dense cluster there makes days so short that a
//! sparse tail is a long run of empty days, and a sparse head makes them so long that a
//! dense tail crowds into a few buckets. The first is bounded by the direct search after
//! a year of empty days (a gap costs at most two years of bucket visits, whatever its
//! length); the second makes buckets long, which costs inserts (a sorted `Vec` per
//! bucket) but not correctness. `structures/tests/calendar.rs` keeps both cases.

mod buckets;

use std::borrow::Cow;

use buckets::Buckets;

use crate::shell::{Basis, Engine, Shell, Step};
use crate::{Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame};

/// The calendar's size, for reports and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Change points held.
    pub points: usize,
    /// Day-buckets.
    pub buckets: usize,
    /// The width of a day.
    pub width: Time,
    /// Points in the fullest bucket.
    pub fullest: usize,
}

/// An availability profile in a calendar queue.
pub type CalendarQueue = Shell<Calendar>;

/// The engine of [`CalendarQueue`]: the change points in day-buckets.
#[derive(Debug, Clone)]
pub struct Calendar {
    calendar: Buckets,
}

/// Why a window fails: a point with fewer than `n` free (no window through it fits), or
/// the intersection falling short.
enum Short {
    Blocked(Time),
    Narrow,
}

impl Shell<Calendar> {
    /// The calendar's current size.
    pub fn shape(&self) -> Shape {
        let calendar = &self.parts().0.calendar;
        let (buckets, width, fullest) = calendar.shape();
        Shape { points: calendar.len(), buckets, width, fullest }
    }
}

impl Calendar {
    /// The point holding `t >= now`.
    fn holding(&self, t: Time, steps: &mut u64) -> (Time, &RangeSet) {
        self.calendar.at_or_before(t, steps).expect("a point sits at now, and t is not earlier")
    }

    /// The window's points, from the one holding `s` to the last before `e`.
    fn points(&self, s: Time, e: Time) -> impl Iterator<Item = &(Time, RangeSet)> {
        let anchor = self.holding(s, &mut 0).0;
        let mut walk = self.calendar.walk(anchor, e);
        std::iter::from_fn(move || walk.next_day()).flat_map(|day| day.points.iter())
    }
    /// Intersects the free sets from the point `anchor` to the window end `e`, counting
    /// buckets and points in `visited`; a day whose bucket holds only points of that day
    /// inside the window is taken from the bucket's summary.
    fn intersect(
        &self,
        full: &RangeSet,
        anchor: Time,
        e: Time,
        n: u64,
        visited: &mut u64,
    ) -> Result<RangeSet, Short> {
        let mut walk = self.calendar.walk(anchor, e);
        let mut acc = full.clone();
        let result = loop {
            let Some(day) = walk.next_day() else { break Ok(acc) };
            if let Some(bucket) = day.whole.filter(|b| b.min >= n) {
                if acc.intersect_count(&bucket.all) < n {
                    break Err(Short::Narrow);
                }
                continue;
            }
            let mut short = None;
            for (t, free) in day.points {
                *visited += 1;
                if free.count() < n {
                    short = Some(Short::Blocked(*t));
                    break;
                }
                if acc.intersect_count(free) < n {
                    short = Some(Short::Narrow);
                    break;
                }
            }
            if let Some(short) = short {
                break Err(short);
            }
        };
        *visited += walk.buckets;
        result
    }

    /// The bound for one walk from `anchor` to `e`: every point held, and two bucket
    /// visits a day (each day once, plus at most a year of direct search per year of
    /// empty days).
    fn walk_bound(&self, anchor: Time, e: Time) -> u64 {
        let width = self.calendar.width();
        let days = (e - 1) / width - anchor / width + 1;
        (self.calendar.len() as u64).saturating_add(days.saturating_mul(2))
    }

    /// Applies `f` over `[s, e)` as the profile does: split at both ends, change the
    /// points between, drop the ends if they now equal their predecessors, then let the
    /// calendar resize.
    fn apply(&mut self, at: &Basis, s: Time, e: Time, f: &mut dyn FnMut(&mut RangeSet)) {
        for t in [s, e] {
            if self.calendar.get(t).is_none() {
                let free = self.holding(t, &mut 0).1.clone();
                self.calendar.insert(t, free);
            }
        }
        self.calendar.update(s, e, f);
        for t in [e, s] {
            let before = t.checked_sub(1).filter(|_| t > at.now).map(|p| self.holding(p, &mut 0).1);
            if before.is_some() && before == self.calendar.get(t) {
                self.calendar.remove(t);
            }
        }
        self.calendar.fit();
    }
}

impl Engine for Calendar {
    const KIND: Kind = Kind::CalendarQueue;

    fn new(at: &Basis) -> Result<Self, Error> {
        Ok(Self { calendar: Buckets::new(at.config.slot, at.now, at.full.clone()) })
    }

    /// Finds the point holding `s` walking back (`search`), then walks the window;
    /// `visited` counts buckets and points, the worst case is every point held plus two
    /// bucket visits per day of the walk.
    #[inline]
    fn check(&self, at: &Basis, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost) {
        let mut cost = Cost::default();
        let anchor = self.holding(s, &mut cost.search).0;
        cost.worst = self.walk_bound(anchor, e);
        let answer = self.intersect(&at.full, anchor, e, n, &mut cost.visited).ok();
        (answer, cost)
    }

    /// The profile's Algorithm 1 over the calendar: the candidates are `ready` and every
    /// later point; a point with fewer than `n` free rules out every candidate up to it.
    /// Finding the next candidate counts in `search`; the worst case is the `check` bound
    /// of every candidate tried, each reaching the last window's end.
    fn earliest(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost) {
        let mut cost = Cost::default();
        let (mut anchor, mut free) = self.holding(at.config.floor(ready), &mut cost.search);
        let first = anchor;
        let (mut tried, mut reach) = (0, None);
        let answer = loop {
            // `ready` for the first candidate; every later point is after it.
            let start = ready.max(anchor);
            let Some((end, window_end)) = at.candidate(start, duration) else { break None };
            let mut skip_to = anchor;
            if free.count() >= n {
                tried += 1;
                reach = Some(window_end);
                match self.intersect(&at.full, anchor, window_end, n, &mut cost.visited) {
                    Ok(free) => break Some(TimeFrame { start, end, free }),
                    Err(Short::Blocked(t)) => skip_to = t,
                    Err(Short::Narrow) => {}
                }
            }
            let mut walk = self.calendar.walk(skip_to.saturating_add(1), Time::MAX);
            let next = walk.next_day().map(|day| &day.points[0]);
            cost.search += walk.buckets;
            let Some((t, f)) = next else { break None };
            (anchor, free) = (*t, f);
        };
        if let Some(reach) = reach {
            cost.worst = self.walk_bound(first, reach).saturating_mul(tried);
        }
        (answer, cost)
    }

    fn free_throughout(&self, at: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        self.points(s, e).fold(at.full.clone(), |acc, (_, f)| acc.intersect(f))
    }

    fn free_somewhere(&self, _: &Basis, s: Time, e: Time, _: &RangeSet) -> RangeSet {
        self.points(s, e).fold(RangeSet::new(), |acc, (_, f)| acc.union(f))
    }

    fn allocate(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        self.apply(at, s, e, &mut |free| free.subtract_with(set));
    }

    fn release(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet) {
        self.apply(at, s, e, &mut |free| free.union_with(set));
    }

    fn steps<'a>(&'a self, _: &'a Basis, s: Time, e: Time) -> impl Iterator<Item = Step<'a>> {
        self.points(s, e).map(|(t, f)| (*t, Cow::Borrowed(f)))
    }

    /// Removes the points before `now`, keeping the free set that holds at `now`.
    fn advance(&mut self, at: &Basis, now: Time) {
        let free = self.holding(now, &mut 0).1.clone();
        for t in self.calendar.times(at.now, now) {
            self.calendar.remove(t);
        }
        if self.calendar.get(now).is_none() {
            self.calendar.insert(now, free);
        }
        self.calendar.fit();
    }

    fn size(&self) -> usize {
        self.calendar.len()
    }

    /// The buckets' invariants first, in the order `Buckets::validate` checks them.
    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = &[
        "at least two buckets",
        "at most two points a bucket",
        "past two buckets, at least one point for every two",
        "a day is at least a slot long",
        "a day is a whole number of slots",
        "a bucket's points are in time order, each time once",
        "every point is in its home bucket",
        "a bucket's fewest free is its points' fewest",
        "a bucket's ids free throughout are those free at all its points",
        "the point count is the buckets' total",
        "the first point is at now",
        "adjacent points hold different free sets",
        "points are on slot boundaries",
        "free sets are within the capacity",
    ];

    /// See `Buckets::plant`.
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        self.calendar.plant(at, invariant, pick)
    }

    fn validate(&self, at: &Basis) -> Result<(), Invalid> {
        self.calendar.validate()?;
        let points = self.calendar.sorted();
        match points.first() {
            Some(&(t, _)) if t == at.now => {}
            first => {
                return Err(Self::KIND.invalid(format!("first point {first:?} is not at now = {}", at.now)))
            }
        }
        if let Some(w) = points.windows(2).find(|w| w[0].1 == w[1].1) {
            return Err(Self::KIND
                .invalid(format!("points at {} and {} hold the same free set {}", w[0].0, w[1].0, w[0].1)));
        }
        if let Some((t, f)) = points.iter().find(|(t, f)| t % at.config.slot != 0 || !f.is_subset(&at.full)) {
            return Err(
                Self::KIND.invalid(format!("point {t} ({f}) is off a slot boundary or beyond the capacity"))
            );
        }
        Ok(())
    }
}
