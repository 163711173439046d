//! Brown's calendar (CACM 31(10), 1988) holding the change points of an availability
//! profile: a circular array of day-buckets of one width; a point at time `t` lives in
//! bucket `(t / width) mod buckets`, which keeps its points sorted, so a bucket may hold
//! points of several "years". Each bucket also keeps GarQ's availability summary: the
//! fewest ids free at any of its points and the ids free at all of them.
//!
//! Walking forward or back visits one bucket a day; after a whole year of buckets with
//! nothing in the day looked at, it falls back to Brown's direct search over every
//! bucket, so a long empty stretch costs at most two years of bucket visits.

use super::Calendar;
#[cfg(feature = "planted")]
use crate::shell::Basis;
use crate::shell::Engine;
use crate::{Invalid, RangeSet, Time};

/// Brown starts with two buckets and never goes below.
const MIN_BUCKETS: usize = 2;
/// Brown estimates the width from the gaps between this many events at the head.
const SAMPLE: usize = 25;

/// One day-bucket: its points in time order and their summary.
#[derive(Debug, Clone)]
pub(super) struct Bucket {
    pub(super) points: Vec<(Time, RangeSet)>,
    /// The fewest ids free at any point (`u64::MAX` when empty).
    pub(super) min: u64,
    /// The ids free at every point (empty when the bucket is).
    pub(super) all: RangeSet,
}

impl Default for Bucket {
    fn default() -> Self {
        Self { points: Vec::new(), min: u64::MAX, all: RangeSet::new() }
    }
}

impl Bucket {
    fn summarise(&mut self) {
        self.min = self.points.iter().map(|(_, f)| f.count()).min().unwrap_or(u64::MAX);
        let mut sets = self.points.iter().map(|(_, f)| f);
        let first = sets.next().cloned().unwrap_or_default();
        self.all = sets.fold(first, |acc, f| acc.intersect(f));
    }

    fn find(&self, t: Time) -> Result<usize, usize> {
        self.points.binary_search_by_key(&t, |p| p.0)
    }
}

/// The calendar: buckets of `width` (a multiple of the slot), resized with the number of
/// points as Brown does.
#[derive(Debug, Clone)]
pub(super) struct Buckets {
    slot: Time,
    width: Time,
    days: Vec<Bucket>,
    points: usize,
}

/// One day's points as a walk meets them.
pub(super) struct Day<'a> {
    /// The day's points inside the walk's range, in order.
    pub(super) points: &'a [(Time, RangeSet)],
    /// The bucket, when `points` is all of it (so its summary describes them exactly).
    pub(super) whole: Option<&'a Bucket>,
}

/// A walk over the points in `[from, until)`, day by day; `buckets` counts the buckets it
/// looked at, direct searches included.
pub(super) struct Walk<'a> {
    calendar: &'a Buckets,
    day: Option<Time>,
    from: Time,
    until: Time,
    empty: usize,
    pub(super) buckets: u64,
}

impl<'a> Walk<'a> {
    /// The next day holding a point of the range.
    pub(super) fn next_day(&mut self) -> Option<Day<'a>> {
        let c = self.calendar;
        loop {
            let day = self.day?;
            let start = day.checked_mul(c.width)?;
            if start >= self.until {
                return None;
            }
            let end = start.saturating_add(c.width);
            let bucket = &c.days[c.bucket(day)];
            self.buckets += 1;
            self.day = day.checked_add(1).filter(|_| end < Time::MAX);
            let lo = bucket.points.partition_point(|p| p.0 < start.max(self.from));
            let hi = bucket.points.partition_point(|p| p.0 < end.min(self.until));
            if lo < hi {
                self.empty = 0;
                let whole = (lo == 0 && hi == bucket.points.len()).then_some(bucket);
                return Some(Day { points: &bucket.points[lo..hi], whole });
            }
            self.empty += 1;
            if self.empty == c.days.len() {
                // A year of empty days: Brown's direct search for the next point.
                self.buckets += c.days.len() as u64;
                self.empty = 0;
                // Only a later day: a point at `Time::MAX` ends no window, and would
                // otherwise bring the walk back to the day it has just left.
                self.day = c.first_from(end).map(|t| t / c.width).filter(|&next| next > day);
            }
        }
    }
}

impl Buckets {
    /// A calendar holding one point.
    pub(super) fn new(slot: Time, t: Time, free: RangeSet) -> Self {
        let mut calendar = Self { slot, width: slot, days: vec![Bucket::default(); MIN_BUCKETS], points: 0 };
        calendar.insert(t, free);
        calendar
    }

    fn bucket(&self, day: Time) -> usize {
        (day % self.days.len() as Time) as usize
    }

    fn home(&self, t: Time) -> usize {
        self.bucket(t / self.width)
    }

    /// The number of points.
    pub(super) fn len(&self) -> usize {
        self.points
    }

    /// The width of a day.
    pub(super) fn width(&self) -> Time {
        self.width
    }

    /// `(buckets, width, points in the fullest bucket)`.
    pub(super) fn shape(&self) -> (usize, Time, usize) {
        (self.days.len(), self.width, self.days.iter().map(|b| b.points.len()).max().unwrap_or(0))
    }

    /// The free set of the point at `t`.
    pub(super) fn get(&self, t: Time) -> Option<&RangeSet> {
        let bucket = &self.days[self.home(t)];
        bucket.find(t).ok().map(|i| &bucket.points[i].1)
    }

    /// Adds a point; `t` is not one yet.
    pub(super) fn insert(&mut self, t: Time, free: RangeSet) {
        let home = self.home(t);
        let bucket = &mut self.days[home];
        let at = bucket.find(t).unwrap_or_else(|at| at);
        bucket.points.insert(at, (t, free));
        bucket.summarise();
        self.points += 1;
    }

    /// Removes the point at `t`, which exists.
    pub(super) fn remove(&mut self, t: Time) {
        let home = self.home(t);
        let bucket = &mut self.days[home];
        if let Ok(at) = bucket.find(t) {
            bucket.points.remove(at);
            bucket.summarise();
            self.points -= 1;
        }
    }

    /// Applies `f` to the free set of every point in `[from, to)`.
    pub(super) fn update(&mut self, from: Time, to: Time, f: &mut dyn FnMut(&mut RangeSet)) {
        for t in self.times(from, to) {
            let home = self.home(t);
            let bucket = &mut self.days[home];
            if let Ok(at) = bucket.find(t) {
                f(&mut bucket.points[at].1);
                bucket.summarise();
            }
        }
    }

    /// The times of the points in `[from, to)`, in order.
    pub(super) fn times(&self, from: Time, to: Time) -> Vec<Time> {
        let mut walk = self.walk(from, to);
        std::iter::from_fn(|| walk.next_day()).flat_map(|day| day.points.iter().map(|p| p.0)).collect()
    }

    /// Walks the points in `[from, until)`.
    pub(super) fn walk(&self, from: Time, until: Time) -> Walk<'_> {
        Walk { calendar: self, day: Some(from / self.width), from, until, empty: 0, buckets: 0 }
    }

    /// The earliest point at or after `t`: Brown's direct search.
    fn first_from(&self, t: Time) -> Option<Time> {
        self.days
            .iter()
            .filter_map(|b| b.points.get(b.points.partition_point(|p| p.0 < t)).map(|p| p.0))
            .min()
    }

    /// The latest point at or before `t`, walking back a day at a time and adding the
    /// buckets looked at to `steps`; `None` only when no point is that early.
    pub(super) fn at_or_before(&self, t: Time, steps: &mut u64) -> Option<(Time, &RangeSet)> {
        let mut day = t / self.width;
        for _ in 0..self.days.len() {
            *steps += 1;
            let bucket = &self.days[self.bucket(day)];
            let i = bucket.points.partition_point(|p| p.0 <= t);
            if let Some((p, free)) = i.checked_sub(1).map(|i| &bucket.points[i]) {
                if p / self.width == day {
                    return Some((*p, free));
                }
            }
            day = day.checked_sub(1)?;
        }
        // A year of empty days: the direct search.
        *steps += self.days.len() as u64;
        self.days
            .iter()
            .filter_map(|b| b.points.get(b.points.partition_point(|p| p.0 <= t).checked_sub(1)?))
            .max_by_key(|p| p.0)
            .map(|(p, free)| (*p, free))
    }

    /// Resizes as Brown does once the points outgrow the buckets (more than 2 a bucket)
    /// or shrink away from them (fewer than 1 in 2): the bucket count doubles or halves,
    /// and the width is re-estimated from the points at the head.
    pub(super) fn fit(&mut self) {
        let mut want = self.days.len();
        while self.points > 2 * want {
            want *= 2;
        }
        while want > MIN_BUCKETS && self.points < want / 2 {
            want /= 2;
        }
        if want == self.days.len() {
            return;
        }
        let mut all: Vec<(Time, RangeSet)> =
            self.days.iter_mut().flat_map(|b| std::mem::take(&mut b.points)).collect();
        all.sort_unstable_by_key(|p| p.0);
        self.width = self.estimate(&all);
        self.days = vec![Bucket::default(); want];
        for (t, free) in all {
            let home = self.home(t);
            self.days[home].points.push((t, free));
        }
        self.days.iter_mut().for_each(Bucket::summarise);
    }

    /// Brown's estimate: the mean gap between the first points, again without the gaps
    /// over twice that mean, times three; rounded up to whole slots.
    fn estimate(&self, sorted: &[(Time, RangeSet)]) -> Time {
        let gaps: Vec<u128> = sorted
            .iter()
            .take(SAMPLE)
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| u128::from(w[1].0 - w[0].0))
            .collect();
        if gaps.is_empty() {
            return self.width;
        }
        let mean = gaps.iter().sum::<u128>() / gaps.len() as u128;
        let kept: Vec<u128> = gaps.into_iter().filter(|&g| g <= 2 * mean).collect();
        let width = 3 * kept.iter().sum::<u128>() / kept.len().max(1) as u128;
        let slots = width.div_ceil(u128::from(self.slot)).max(1);
        Time::try_from(slots * u128::from(self.slot)).unwrap_or(Time::MAX - Time::MAX % self.slot)
    }

    /// Checks the buckets: sizes within Brown's bounds, every point in its home bucket,
    /// sorted, and summaries equal to a recomputation.
    ///
    /// # Errors
    /// The first broken invariant.
    pub(super) fn validate(&self) -> Result<(), Invalid> {
        let nb = self.days.len();
        if nb < MIN_BUCKETS || self.points > 2 * nb || (nb > MIN_BUCKETS && self.points < nb / 2) {
            return Err(Calendar::KIND
                .invalid(format!("{} points in {nb} buckets, outside Brown's bounds", self.points)));
        }
        if self.width == 0 || !self.width.is_multiple_of(self.slot) {
            return Err(Calendar::KIND.invalid(format!(
                "bucket width {} is not a whole number of slots of {}",
                self.width, self.slot
            )));
        }
        let mut count = 0;
        for (i, bucket) in self.days.iter().enumerate() {
            count += bucket.points.len();
            if let Some(w) = bucket.points.windows(2).find(|w| w[0].0 >= w[1].0) {
                return Err(Calendar::KIND.invalid(format!("bucket {i}: points {} then {}", w[0].0, w[1].0)));
            }
            if let Some((t, _)) = bucket.points.iter().find(|p| self.home(p.0) != i) {
                return Err(Calendar::KIND
                    .invalid(format!("point {t} is in bucket {i}, its home is {}", self.home(*t))));
            }
            let mut fresh = bucket.clone();
            fresh.summarise();
            if (fresh.min, &fresh.all) != (bucket.min, &bucket.all) {
                return Err(Calendar::KIND.invalid(format!(
                    "bucket {i}: summary ({}, {}) but its points make ({}, {})",
                    bucket.min, bucket.all, fresh.min, fresh.all
                )));
            }
        }
        if count != self.points {
            return Err(Calendar::KIND
                .invalid(format!("the buckets hold {count} points, the count says {}", self.points)));
        }
        Ok(())
    }

    /// Every point in time order.
    pub(super) fn sorted(&self) -> Vec<(Time, &RangeSet)> {
        let mut all: Vec<_> = self.days.iter().flat_map(|b| b.points.iter().map(|(t, f)| (*t, f))).collect();
        all.sort_unstable_by_key(|p| p.0);
        all
    }
}

/// Invariants broken on purpose (feature `planted`). Each change breaks its invariant
/// alone, so that `validate` refuses it even with any other check taken out.
#[cfg(feature = "planted")]
impl Buckets {
    /// The same points in `days` buckets of `width`, each in its home and summarised.
    fn rebucket(&mut self, days: usize, width: Time) {
        let all: Vec<_> = self.days.iter_mut().flat_map(|b| std::mem::take(&mut b.points)).collect();
        (self.days, self.width) = (vec![Bucket::default(); days], width);
        for (t, free) in all {
            let home = self.home(t);
            self.days[home].points.push((t, free));
        }
        self.days.iter_mut().for_each(|b| {
            b.points.sort_unstable_by_key(|p| p.0);
            b.summarise();
        });
    }

    /// Moves the point at `from` to `to`, in its home there.
    fn shift(&mut self, from: Time, to: Time) {
        let free = self.get(from).cloned().unwrap_or_default();
        self.remove(from);
        self.insert(to, free);
    }

    /// Changes the free set of the point at `t`, keeping its bucket's summary.
    fn change(&mut self, t: Time, f: impl FnOnce(&mut RangeSet)) {
        let home = self.home(t);
        let bucket = &mut self.days[home];
        if let Ok(i) = bucket.find(t) {
            f(&mut bucket.points[i].1);
            bucket.summarise();
        }
    }

    /// Breaks invariant `invariant` of [`Calendar`]'s `INVARIANTS` at the `pick`-th place
    /// for it; whether there was one.
    pub(super) fn plant(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        let times: Vec<Time> = self.sorted().into_iter().map(|p| p.0).collect();
        let nth = |n: usize| (n > 0).then(|| (pick % n as u64) as usize);
        let (nb, points, slot) = (self.days.len(), self.points, self.slot);
        match invariant {
            // Each of Brown's bounds broken where the other two still hold.
            0 if points <= 2 => self.rebucket(1, self.width),
            1 if points > 2 * MIN_BUCKETS => self.rebucket(MIN_BUCKETS, self.width),
            2 => self.rebucket(2 * points + 2, self.width),
            // `validate` checks it before dividing by it for a point's home.
            3 => self.width = 0,
            // A time unit short of whole slots (at least one slot long), the points rehomed.
            4 if slot > 1 => self.rebucket(nb, self.width - 1),
            // A point's time held twice, not two points swapped, so that the check weakened
            // to `>` fails too: right after it, with a free set unlike its own and its
            // neighbours', the count following.
            5 if points < 2 * nb => {
                let Some(k) = nth(times.len()) else { return false };
                let near = &times[k.saturating_sub(1)..(k + 2).min(times.len())];
                let near: Vec<&RangeSet> = near.iter().filter_map(|&t| self.get(t)).collect();
                let zero = RangeSet::from_ids([0]);
                let sets = [RangeSet::new(), at.full.subtract(&zero), zero, at.full.clone()];
                let Some(other) = sets.into_iter().find(|set| !near.contains(&set)) else { return false };
                let home = self.home(times[k]);
                let bucket = &mut self.days[home];
                let i = bucket.find(times[k]).unwrap_or_default();
                bucket.points.insert(i + 1, (times[k], other));
                bucket.summarise();
                self.points += 1;
            }
            // A point moved into the next bucket, in order and summarised there.
            6 => {
                let Some(t) = nth(times.len()).map(|k| times[k]) else { return false };
                let free = self.get(t).cloned().unwrap_or_default();
                let next = (self.home(t) + 1) % nb;
                self.remove(t);
                let next = &mut self.days[next];
                next.points.insert(next.find(t).unwrap_or_else(|i| i), (t, free));
                next.summarise();
                self.points += 1;
            }
            // A summary's minimum off by one (empty buckets too), or its common set swapped
            // for another.
            7 => self.days[nth(nb).unwrap_or(0)].min ^= 1,
            8 => {
                let bucket = &mut self.days[nth(nb).unwrap_or(0)];
                bucket.all = if bucket.all.is_empty() { at.full.clone() } else { RangeSet::new() };
            }
            // One off, whichever way keeps Brown's bounds.
            9 => self.points = if points < 2 * nb { points + 1 } else { points - 1 },
            // The first point moved a slot earlier, or later if it is at 0 and the next
            // point is further on.
            10 => {
                let later = at.now.checked_add(slot).filter(|&t| times.get(1).is_none_or(|&next| t < next));
                let Some(to) = at.now.checked_sub(slot).or(later) else { return false };
                self.shift(at.now, to);
            }
            // A point given its predecessor's free set.
            11 => {
                let Some(k) = nth(times.len().saturating_sub(1)).map(|k| k + 1) else { return false };
                let before = self.get(times[k - 1]).cloned().unwrap_or_default();
                self.change(times[k], |free| *free = before);
            }
            // A point after the first one time unit earlier: still after its predecessor.
            12 if slot > 1 => {
                let Some(k) = nth(times.len().saturating_sub(1)).map(|k| k + 1) else { return false };
                self.shift(times[k], times[k] - 1);
            }
            // The id past the capacity: the set stays unlike its neighbours'.
            13 => {
                let (Some(k), Some(beyond)) = (nth(times.len()), at.capacity.checked_add(1)) else {
                    return false;
                };
                self.change(times[k], |free| free.union_with(&RangeSet::from_range(at.capacity, beyond)));
            }
            _ => return false,
        }
        true
    }
}
