//! The naive reference index: a list of allocated rectangles (a window and a set of
//! ids), every answer computed by brute force from the definitions. Short on purpose:
//! it must be obviously right. Two exact facts keep it fast enough to verify whole
//! trace replays: the rectangles are kept sorted by start with an upper bound on their
//! length, so a window only looks at those that can reach it; and an earliest start is
//! only ever `ready` or an instant where some rectangle ends.
//!
//! It takes only data types from the structures crate; its argument checks are its own
//! ([`rules`]), so that the structures' shared helpers are checked too.

use structures::{AvailabilityIndex, Config, Cost, Error, Invalid, RangeSet, Time, TimeFrame};

use crate::rules;

/// One allocated rectangle: `ids` are busy over `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Busy {
    start: Time,
    end: Time,
    ids: RangeSet,
}

/// The brute-force reference implementation of [`AvailabilityIndex`].
#[derive(Debug, Clone)]
pub struct Oracle {
    capacity: u32,
    config: Config,
    now: Time,
    /// Sorted by start.
    busy: Vec<Busy>,
    /// No rectangle is longer (only ever raised, so it stays a bound).
    longest: Time,
}

impl Oracle {
    /// An oracle of `capacity` resources, all free from time 0 on.
    ///
    /// # Errors
    /// [`Error::BadConfig`] from [`rules::validate`].
    pub fn new(capacity: u32, config: Config) -> Result<Self, Error> {
        rules::validate(capacity, config)?;
        Ok(Self { capacity, config, now: 0, busy: Vec::new(), longest: 0 })
    }

    /// The allocated rectangles, `free` holding the busy ids (for generators that
    /// release what is allocated).
    pub fn busy(&self) -> Vec<TimeFrame> {
        self.busy.iter().map(|b| TimeFrame { start: b.start, end: b.end, free: b.ids.clone() }).collect()
    }

    /// The instants from the present on where the free set changes, the present first:
    /// what a profile holds, entry for entry, when it keeps no redundant one. Nothing is
    /// busy at the limit or after, so the free set there is full.
    pub fn change_points(&self) -> usize {
        let limit = self.limit();
        let mut points = self.instants(self.now, limit);
        if limit > self.now && self.busy.iter().any(|b| b.end == limit) {
            points.push(limit);
        }
        let sets: Vec<RangeSet> =
            points.iter().map(|&t| if t == limit { self.full() } else { self.free_at(t) }).collect();
        1 + sets.windows(2).filter(|w| w[0] != w[1]).count()
    }

    /// The last window end accepted now (see [`rules::limit`]).
    pub fn limit(&self) -> Time {
        rules::limit(self.config, self.now)
    }

    fn full(&self) -> RangeSet {
        RangeSet::full(self.capacity)
    }

    /// The rectangles overlapping `[s, e)`. One starting at or before `s - longest`
    /// ends by `s`, so only those starting in `(s - longest, e)` are looked at.
    fn overlapping(&self, s: Time, e: Time) -> impl Iterator<Item = &Busy> {
        let from = self.busy.partition_point(|b| b.start.saturating_add(self.longest) <= s);
        let to = self.busy.partition_point(|b| b.start < e).max(from);
        self.busy[from..to].iter().filter(move |b| b.end > s)
    }

    /// The ids free at instant `t`.
    fn free_at(&self, t: Time) -> RangeSet {
        self.free_throughout(t, t + 1)
    }

    /// The ids free at every instant of `[s, e)`: no rectangle touching the window
    /// holds them.
    fn free_throughout(&self, s: Time, e: Time) -> RangeSet {
        self.overlapping(s, e).fold(self.full(), |free, b| free.subtract(&b.ids))
    }

    /// `s` and every rectangle edge inside `(s, e)`: the instants where freedom can change.
    fn instants(&self, s: Time, e: Time) -> Vec<Time> {
        let mut points: Vec<Time> =
            self.busy.iter().flat_map(|b| [b.start, b.end]).filter(|&t| s < t && t < e).chain([s]).collect();
        points.sort_unstable();
        points.dedup();
        points
    }

    /// `free_throughout` if it has at least `n` ids; gives up as soon as it cannot.
    fn check_window(&self, s: Time, e: Time, n: u32) -> Option<RangeSet> {
        let mut free = self.full();
        for b in self.overlapping(s, e) {
            free = free.subtract(&b.ids);
            if free.count() < u64::from(n) {
                return None;
            }
        }
        Some(free)
    }
}

impl AvailabilityIndex for Oracle {
    fn name(&self) -> &'static str {
        "oracle"
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
        let (s, e) = rules::window(self.config, self.now, start, end)?;
        rules::count(n, self.capacity)?;
        Ok(self.check_window(s, e, n))
    }

    /// Tries `ready`, then every rectangle end after it, in order. No other start can be
    /// the earliest: moving a start back by one unit (or one slot) drops only the
    /// rectangles that end there, so without an end there it frees no id.
    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        rules::search(self.config, self.now, ready, duration)?;
        rules::count(n, self.capacity)?;
        let (slot, limit) = (self.config.slot, self.limit());
        let mut starts: Vec<Time> = self.busy.iter().map(|b| b.end).filter(|&t| t > ready).collect();
        starts.push(ready);
        starts.sort_unstable();
        starts.dedup();
        for start in starts {
            let Some(end) = start.checked_add(duration) else { return Ok(None) };
            let Some(e) = rules::ceil(slot, end).filter(|&e| e <= limit) else { return Ok(None) };
            if let Some(free) = self.check_window(rules::floor(slot, start), e, n) {
                return Ok(Some(TimeFrame { start, end, free }));
            }
        }
        Ok(None)
    }

    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        let (s, e) = rules::window(self.config, self.now, start, end)?;
        rules::set(set, self.capacity)?;
        let busy = set.subtract(&self.free_throughout(s, e));
        if !busy.is_empty() {
            return Err(Error::NotFree { start, end, busy });
        }
        let at = self.busy.partition_point(|b| b.start <= s);
        self.busy.insert(at, Busy { start: s, end: e, ids: set.clone() });
        self.longest = self.longest.max(e - s);
        Ok(())
    }

    /// Cuts the released rectangle out of every rectangle it overlaps.
    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        let (s, e) = rules::window(self.config, self.now, start, end)?;
        rules::set(set, self.capacity)?;
        let free_somewhere =
            self.instants(s, e).into_iter().fold(RangeSet::new(), |acc, t| acc.union(&self.free_at(t)));
        let free = set.intersect(&free_somewhere);
        if !free.is_empty() {
            return Err(Error::NotAllocated { start, end, free });
        }
        let mut kept = Vec::new();
        for b in self.busy.drain(..) {
            if b.end <= s || e <= b.start {
                kept.push(b);
                continue;
            }
            let (mid_start, mid_end) = (b.start.max(s), b.end.min(e));
            kept.push(Busy { start: b.start, end: mid_start, ids: b.ids.clone() });
            kept.push(Busy { start: mid_end, end: b.end, ids: b.ids.clone() });
            kept.push(Busy { start: mid_start, end: mid_end, ids: b.ids.subtract(set) });
        }
        kept.retain(|b| b.start < b.end && !b.ids.is_empty());
        kept.sort_by_key(|b| b.start);
        self.busy = kept;
        Ok(())
    }

    /// For each id, its free runs over the instants of the window, grouped by interval.
    /// Ids are taken in blocks: between two neighbouring range ends of the free sets,
    /// every id is in exactly the same sets, so one id speaks for its whole block (at
    /// capacity 2^32 - 1 there are billions of ids but only a few blocks).
    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        let (s, e) = rules::window(self.config, self.now, from, to)?;
        let points = self.instants(s, e);
        let free: Vec<RangeSet> = points.iter().map(|&t| self.free_at(t)).collect();
        let mut edges: Vec<u32> =
            free.iter().flat_map(|f| f.ranges().flat_map(|(lo, hi)| [lo, hi])).collect();
        edges.extend([0, self.capacity]);
        edges.sort_unstable();
        edges.dedup();
        let mut frames: Vec<TimeFrame> = Vec::new();
        for block in edges.windows(2) {
            let (id, ids) = (block[0], RangeSet::from_range(block[0], block[1]));
            let mut run_start = None;
            for (i, &t) in points.iter().chain([&e]).enumerate() {
                let is_free = free.get(i).is_some_and(|f| f.contains(id));
                match (run_start, is_free) {
                    (None, true) => run_start = Some(t),
                    (Some(start), false) => {
                        match frames.iter_mut().find(|f| f.start == start && f.end == t) {
                            Some(f) => f.free = f.free.union(&ids),
                            None => frames.push(TimeFrame { start, end: t, free: ids.clone() }),
                        }
                        run_start = None;
                    }
                    _ => {}
                }
            }
        }
        frames.sort_by_key(|f| (f.start, f.end));
        Ok(frames)
    }

    /// Every window between two instants, kept if no resource is lost by moving either
    /// end outward by one unit (or the end is the clip edge).
    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        let (s, e) = rules::window(self.config, self.now, from, to)?;
        let mut points = self.instants(s, e);
        points.push(e);
        let mut options = Vec::new();
        for (i, &a) in points.iter().enumerate() {
            for &b in &points[i + 1..] {
                let free = self.free_throughout(a, b);
                let left_max = a == s || !free.is_subset(&self.free_at(a - 1));
                let right_max = b == e || !free.is_subset(&self.free_at(b));
                if !free.is_empty()
                    && left_max
                    && right_max
                    && b - a >= min_duration
                    && free.count() >= u64::from(min_n)
                {
                    options.push(TimeFrame { start: a, end: b, free });
                }
            }
        }
        Ok(options)
    }

    /// Everything busy from now to the horizon, then each frame released, on a copy so
    /// that a refused frame changes nothing.
    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        let mut fresh = Self { busy: Vec::new(), longest: 0, ..*self };
        let limit = self.limit();
        if self.now < limit {
            fresh.allocate(self.now, limit, &self.full())?;
        }
        for frame in frames {
            fresh.release(frame.start, frame.end, &frame.free)?;
        }
        *self = fresh;
        Ok(())
    }

    fn advance(&mut self, now: Time) -> Result<(), Error> {
        let now = rules::advance(self.config, self.now, now)?;
        self.now = now;
        self.busy.retain(|b| b.end > now);
        self.busy.iter_mut().for_each(|b| b.start = b.start.max(now));
        Ok(())
    }

    /// The oracle counts no work.
    fn size(&self) -> usize {
        self.busy.len()
    }

    fn last_cost(&self) -> Option<Cost> {
        None
    }

    fn validate(&self) -> Result<(), Invalid> {
        if let Some(b) = self.busy.iter().find(|b| {
            b.start < self.now || b.start >= b.end || b.ids.is_empty() || b.end - b.start > self.longest
        }) {
            let why = format!("bad rectangle {b:?} (now = {}, longest = {})", self.now, self.longest);
            return Err(Invalid::new(self.name(), why));
        }
        match self.busy.windows(2).find(|w| w[0].start > w[1].start) {
            Some(w) => Err(Invalid::new(
                self.name(),
                format!("rectangles out of start order: {:?} then {:?}", w[0], w[1]),
            )),
            None => Ok(()),
        }
    }
}
