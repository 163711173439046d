//! The calendar queue (issue 3): the availability profile's change points held in Brown's
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

use std::cell::Cell;

use buckets::Buckets;

use crate::{
    check_count, rebuild, sweep, AvailabilityIndex, Config, Cost, Error, RangeSet, Time, TimeFrame, COUNTING,
};

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
#[derive(Debug, Clone)]
pub struct CalendarQueue {
    capacity: u32,
    config: Config,
    now: Time,
    full: RangeSet,
    calendar: Buckets,
    cost: Cell<Option<Cost>>,
}

/// Why a window fails: a point with fewer than `n` free (no window through it fits), or
/// the intersection falling short.
enum Short {
    Blocked(Time),
    Narrow,
}

impl CalendarQueue {
    /// An index of `capacity` resources, all free from time 0 on.
    ///
    /// # Errors
    /// [`Error::BadConfig`] from [`Config::validate`].
    pub fn new(capacity: u32, config: Config) -> Result<Self, Error> {
        config.validate(capacity)?;
        let full = RangeSet::full(capacity);
        let calendar = Buckets::new(config.slot, 0, full.clone());
        Ok(Self { capacity, config, now: 0, full, calendar, cost: Cell::new(None) })
    }

    /// The calendar's current size.
    pub fn shape(&self) -> Shape {
        let (buckets, width, fullest) = self.calendar.shape();
        Shape { points: self.calendar.len(), buckets, width, fullest }
    }

    /// The point holding `t >= now`.
    fn holding(&self, t: Time, steps: &mut u64) -> (Time, &RangeSet) {
        self.calendar.at_or_before(t, steps).expect("a point sits at now, and t is not earlier")
    }

    /// The window's points, from the one holding `s` to the last before `e`.
    fn steps(&self, s: Time, e: Time) -> Vec<(Time, RangeSet)> {
        let anchor = self.holding(s, &mut 0).0;
        let mut walk = self.calendar.walk(anchor, e);
        std::iter::from_fn(|| walk.next_day()).flat_map(|day| day.points.iter().cloned()).collect()
    }

    /// Intersects the free sets from the point `anchor` to the window end `e`, counting
    /// buckets and points in `visited`; a day whose bucket holds only points of that day
    /// inside the window is taken from the bucket's summary.
    fn intersect(&self, anchor: Time, e: Time, n: u64, visited: &mut u64) -> Result<RangeSet, Short> {
        let mut walk = self.calendar.walk(anchor, e);
        let mut acc = self.full.clone();
        let result = loop {
            let Some(day) = walk.next_day() else { break Ok(acc) };
            if let Some(bucket) = day.whole.filter(|b| b.min >= n) {
                acc = acc.intersect(&bucket.all);
                if acc.count() < n {
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
                acc = acc.intersect(free);
                if acc.count() < n {
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

    fn free_throughout(&self, s: Time, e: Time) -> RangeSet {
        self.steps(s, e).iter().fold(self.full.clone(), |acc, (_, f)| acc.intersect(f))
    }

    fn free_somewhere(&self, s: Time, e: Time) -> RangeSet {
        self.steps(s, e).iter().fold(RangeSet::new(), |acc, (_, f)| acc.union(f))
    }

    /// Applies `f` over `[s, e)` as the profile does: split at both ends, change the
    /// points between, drop the ends if they now equal their predecessors, then let the
    /// calendar resize.
    fn apply(&mut self, s: Time, e: Time, f: &mut dyn FnMut(&mut RangeSet)) {
        for t in [s, e] {
            if self.calendar.get(t).is_none() {
                let free = self.holding(t, &mut 0).1.clone();
                self.calendar.insert(t, free);
            }
        }
        self.calendar.update(s, e, f);
        for t in [e, s] {
            let before = t.checked_sub(1).filter(|_| t > self.now).map(|p| self.holding(p, &mut 0).1);
            if before.is_some() && before == self.calendar.get(t) {
                self.calendar.remove(t);
            }
        }
        self.calendar.fit();
    }
}

impl AvailabilityIndex for CalendarQueue {
    fn name(&self) -> &'static str {
        "calendar"
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

    /// Finds the point holding `start` walking back (`search`), then walks the window;
    /// `visited` counts buckets and points, the worst case is every point held plus two
    /// bucket visits per day of the walk.
    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, start, end)?;
        check_count(n, self.capacity)?;
        let mut cost = Cost::default();
        let anchor = self.holding(s, &mut cost.search).0;
        cost.worst = self.walk_bound(anchor, e);
        let answer = self.intersect(anchor, e, u64::from(n), &mut cost.visited).ok();
        self.cost.set(COUNTING.then_some(cost));
        Ok(answer)
    }

    /// The profile's Algorithm 1 over the calendar: the candidates are `ready` and every
    /// later point; a point with fewer than `n` free rules out every candidate up to it.
    /// Finding the next candidate counts in `search`; the worst case is the `check` bound
    /// of every candidate tried, each reaching the last window's end.
    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.cost.set(None);
        self.config.search(self.now, ready, duration)?;
        check_count(n, self.capacity)?;
        let (limit, n) = (self.config.limit(self.now), u64::from(n));
        let mut cost = Cost::default();
        let (mut anchor, mut free) = self.holding(self.config.floor(ready), &mut cost.search);
        let first = anchor;
        let (mut tried, mut reach) = (0, None);
        let answer = loop {
            // `ready` for the first candidate; every later point is after it.
            let start = ready.max(anchor);
            let Some(end) = start.checked_add(duration) else { break None };
            let Some(window_end) = self.config.ceil(end).filter(|&q| q <= limit) else { break None };
            let mut skip_to = anchor;
            if free.count() >= n {
                tried += 1;
                reach = Some(window_end);
                match self.intersect(anchor, window_end, n, &mut cost.visited) {
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
        let steps = self.steps(s, e);
        Ok(sweep::free_frames(steps.iter().map(|(t, f)| (*t, f)), s, e))
    }

    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.config.window(self.now, from, to)?;
        let steps = self.steps(s, e);
        Ok(sweep::options(steps.iter().map(|(t, f)| (*t, f)), s, e, min_duration, u64::from(min_n)))
    }

    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.cost.set(None);
        *self = rebuild(Self::new(self.capacity, self.config)?, self.now, frames)?;
        Ok(())
    }

    /// Removes the points before `now`, keeping the free set that holds at `now`.
    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.cost.set(None);
        let now = self.config.advance(self.now, now)?;
        let free = self.holding(now, &mut 0).1.clone();
        for t in self.calendar.times(self.now, now) {
            self.calendar.remove(t);
        }
        if self.calendar.get(now).is_none() {
            self.calendar.insert(now, free);
        }
        self.now = now;
        self.calendar.fit();
        Ok(())
    }

    fn size(&self) -> usize {
        self.calendar.len()
    }

    fn last_cost(&self) -> Option<Cost> {
        self.cost.get()
    }

    fn validate(&self) -> Result<(), String> {
        self.calendar.validate()?;
        let points = self.calendar.sorted();
        match points.first() {
            Some(&(t, _)) if t == self.now => {}
            first => return Err(format!("first point {first:?} is not at now = {}", self.now)),
        }
        if let Some(w) = points.windows(2).find(|w| w[0].1 == w[1].1) {
            return Err(format!("points at {} and {} hold the same free set {}", w[0].0, w[1].0, w[0].1));
        }
        if let Some((t, f)) =
            points.iter().find(|(t, f)| t % self.config.slot != 0 || !f.is_subset(&self.full))
        {
            return Err(format!("point {t} ({f}) is off a slot boundary or beyond the capacity"));
        }
        Ok(())
    }
}
