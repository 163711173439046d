//! The profile's read-only walks: check (the anchor and the list walk), Algorithm 1's
//! earliest-start search, free frames and scheduling options.

use super::{Profile, Store};
use crate::{Cost, RangeSet, Time, TimeFrame};

/// Intersects `acc` with the entries of `rest` that start before `end`, counting each in
/// `visited`; stops with `None` as soon as fewer than `n` resources remain.
fn intersect_until<'a>(
    mut acc: RangeSet,
    rest: impl Iterator<Item = (Time, &'a RangeSet)>,
    end: Time,
    n: u64,
    visited: &mut u64,
) -> Option<RangeSet> {
    for (_, free) in rest.take_while(|&(t, _)| t < end) {
        *visited += 1;
        if free.count() < n {
            return None;
        }
        acc = acc.intersect(free);
        if acc.count() < n {
            return None;
        }
    }
    Some(acc)
}

impl<S: Store> Profile<S> {
    /// The entries from the one holding `s` to the last one starting before `e`.
    fn window_entries(&self, s: Time, e: Time) -> impl Iterator<Item = (Time, &RangeSet)> + '_ {
        self.store.iter_from(s, &mut 0).take_while(move |&(t, _)| t < e)
    }

    /// Entries from the one holding `t` to the end: the seed's `m`.
    fn entries_from(&self, t: Time) -> u64 {
        (self.store.count() - self.store.rank(t) + 1) as u64
    }

    /// The ids free at every instant of `[s, e)`.
    pub(super) fn free_throughout(&self, s: Time, e: Time) -> RangeSet {
        self.window_entries(s, e).fold(self.full.clone(), |acc, (_, free)| acc.intersect(free))
    }

    /// The ids free at some instant of `[s, e)`.
    pub(super) fn free_somewhere(&self, s: Time, e: Time) -> RangeSet {
        self.window_entries(s, e).fold(RangeSet::new(), |acc, (_, free)| acc.union(free))
    }

    /// The seed's check: find the anchor, then intersect along the list.
    pub(super) fn check_window(&self, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost) {
        let mut cost = Cost { worst: self.entries_from(s), ..Cost::default() };
        let mut walk = self.store.iter_from(s, &mut cost.search);
        let answer = walk.next().and_then(|(_, anchor)| {
            cost.visited += 1;
            if anchor.count() < n {
                return None;
            }
            intersect_until(anchor.clone(), walk, e, n, &mut cost.visited)
        });
        (answer, cost)
    }

    /// Algorithm 1 of the seed, never starting before `ready`: the candidate starts are
    /// `ready` and every entry after it; an entry with fewer than `n` free resources
    /// cannot anchor a window and is skipped.
    pub(super) fn earliest_start(&self, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost) {
        let limit = self.config.limit(self.now);
        let from = self.config.floor(ready);
        let first_rank = self.store.rank(from);
        let mut cost = Cost::default();
        let mut walk = self.store.iter_from(from, &mut cost.search);
        let mut potential_rank = None;
        let mut index = 0;
        let answer = loop {
            let Some((key, anchor)) = walk.next() else { break None };
            let start = if index == 0 { ready } else { key };
            index += 1;
            let Some(end) = start.checked_add(duration) else { break None };
            let Some(window_end) = self.config.ceil(end).filter(|&q| q <= limit) else {
                break None;
            };
            if potential_rank.is_none() {
                if anchor.count() < n {
                    cost.search += 1;
                    continue;
                }
                potential_rank = Some(first_rank + index - 1);
            }
            cost.visited += 1;
            if anchor.count() < n {
                continue;
            }
            let rest = walk.clone();
            if let Some(free) = intersect_until(anchor.clone(), rest, window_end, n, &mut cost.visited) {
                break Some(TimeFrame { start, end, free });
            }
        };
        if let Some(rank) = potential_rank {
            let m = (self.store.count() - rank + 1) as u64;
            cost.worst = m * m;
        }
        (answer, cost)
    }

    /// Sweeps the window keeping, per start time, the ids whose free run began then.
    pub(super) fn frames_in(&self, s: Time, e: Time) -> Vec<TimeFrame> {
        let mut open: Vec<(Time, RangeSet)> = Vec::new();
        let mut frames = Vec::new();
        for (key, free) in self.window_entries(s, e) {
            let t = key.max(s);
            let mut running = RangeSet::new();
            open.retain_mut(|(start, ids)| {
                let ended = ids.subtract(free);
                if !ended.is_empty() {
                    frames.push(TimeFrame { start: *start, end: t, free: ended });
                    *ids = ids.intersect(free);
                }
                running = running.union(ids);
                !ids.is_empty()
            });
            let started = free.subtract(&running);
            if !started.is_empty() {
                open.push((t, started));
            }
        }
        frames.extend(open.into_iter().map(|(start, free)| TimeFrame { start, end: e, free }));
        frames.sort_by_key(|f| (f.start, f.end, f.free.ranges().first().copied()));
        frames
    }

    /// The maximal free rectangles: from each entry, intersect forward; a rectangle is
    /// kept where its set would shrink on either side (or meets the clip edge).
    pub(super) fn options_in(&self, s: Time, e: Time, min_duration: Time, min_n: u64) -> Vec<TimeFrame> {
        let entries: Vec<(Time, &RangeSet)> =
            self.window_entries(s, e).map(|(t, free)| (t.max(s), free)).collect();
        let mut options = Vec::new();
        for (i, &(start, first)) in entries.iter().enumerate() {
            let mut acc = first.clone();
            for j in i..entries.len() {
                if j > i {
                    acc = acc.intersect(entries[j].1);
                }
                if acc.is_empty() {
                    break;
                }
                let end = entries.get(j + 1).map_or(e, |&(t, _)| t);
                let right_max = entries.get(j + 1).is_none_or(|(_, next)| !acc.is_subset(next));
                let left_max = i == 0 || !acc.is_subset(entries[i - 1].1);
                if right_max && left_max && end - start >= min_duration && acc.count() >= min_n {
                    options.push(TimeFrame { start, end, free: acc.clone() });
                }
            }
        }
        options
    }
}
