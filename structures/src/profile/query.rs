//! The profile's read-only walks: check (the anchor and the list walk), Algorithm 1's
//! earliest-start search, free frames and scheduling options.

use super::{Profile, Store};
use crate::shell::Basis;
use crate::sweep::intersect_until;
use crate::{Cost, RangeSet, Time, TimeFrame, COUNTING};

/// An earliest-start search's answer and what it cost.
type Found = (Option<TimeFrame>, Cost);

impl<S: Store> Profile<S> {
    /// The entries from the one holding `s` to the last one starting before `e`.
    pub(super) fn window_entries(&self, s: Time, e: Time) -> impl Iterator<Item = (Time, &RangeSet)> + '_ {
        self.store.iter_from(s, &mut 0).take_while(move |&(t, _)| t < e)
    }

    /// Entries from the one holding `t` to the end: rbtree-availability-profile's `m` (section III).
    fn entries_from(&self, t: Time) -> u64 {
        if !COUNTING {
            return 0;
        }
        (self.store.count() - self.store.rank(t) + 1) as u64
    }

    /// rbtree-availability-profile's check: find the anchor, then intersect along the list.
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

    /// Algorithm 1 of rbtree-availability-profile, never starting before `ready`: the candidate starts are
    /// `ready` and every entry after it; an entry with fewer than `n` free resources
    /// cannot anchor a window and is skipped.
    pub(super) fn earliest_start(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> Found {
        let from = at.config.floor(ready);
        let first_rank = if COUNTING { self.store.rank(from) } else { 0 };
        let mut cost = Cost::default();
        let mut walk = self.store.iter_from(from, &mut cost.search);
        let mut potential_rank = None;
        let mut index = 0;
        let answer = loop {
            let Some((key, anchor)) = walk.next() else { break None };
            let start = if index == 0 { ready } else { key };
            index += 1;
            let Some((end, window_end)) = at.candidate(start, duration) else { break None };
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
        if let Some(rank) = potential_rank.filter(|_| COUNTING) {
            let m = (self.store.count() - rank + 1) as u64;
            cost.worst = m * m;
        }
        (answer, cost)
    }

    /// `augtree`'s earliest-start search: Algorithm 1's answer, skipping what cannot
    /// host `n` for `duration`. Each candidate is walked as Algorithm 1 walks it; when
    /// it fails, the next is the first entry the subtree summaries cannot rule out (see
    /// [`Store::seek`]), past the blocker that ended the walk if one did: a blocker
    /// inside a window fails every candidate before it too. The search starts at an
    /// earlier answer's start where one bounds it (see [`bounds`](super::bounds)).
    pub(super) fn earliest_skipping(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> Found {
        let mut cost = Cost::default();
        let (mut walk, mut first) = match self.bounds.borrow().start(n, duration, ready) {
            None => (self.store.iter_from(at.config.floor(ready), &mut cost.search), true),
            Some(bound) => (self.entries_at_or_after(at, bound, &mut cost.search), false),
        };
        let mut potential = None;
        let answer = loop {
            let Some((key, anchor)) = walk.next() else { break None };
            let start = if first { ready } else { key };
            first = false;
            let Some((end, window_end)) = at.candidate(start, duration) else { break None };
            // The entries after the blocker that ended the walk, or after the candidate.
            let mut past = walk.clone();
            if anchor.count() < n {
                cost.search += 1;
            } else {
                potential.get_or_insert(key);
                cost.visited += 1;
                let (mut free, mut rest) = (anchor.clone(), walk.clone());
                let fits = loop {
                    let Some((_, next)) = rest.next().filter(|&(t, _)| t < window_end) else { break true };
                    cost.visited += 1;
                    // Fewer than `n` left: the window fails, and where `next` itself
                    // has fewer (it is a blocker), so does every candidate before it.
                    if free.intersect_count(next) < n {
                        if next.count() < n {
                            past = rest;
                        }
                        break false;
                    }
                };
                if fits {
                    break Some(TimeFrame { start, end, free });
                }
            }
            let Some(next) = self.store.seek(past, n, duration, &mut cost.search) else { break None };
            walk = next;
        };
        if let Some(key) = potential.filter(|_| COUNTING) {
            let m = (self.store.count() - self.store.rank(key) + 1) as u64;
            cost.worst = m * m;
        }
        // An answer at `ready` bounds no later search (each starts at or after its own
        // `ready`, at least as late), so only a later one is kept.
        if let Some(frame) = answer.as_ref().filter(|frame| frame.start > ready) {
            self.bounds.borrow_mut().record(n, duration, ready, frame.start);
        }
        (answer, cost)
    }

    /// The entries from the first at or after `bound` on: every candidate from an
    /// earlier answer's start on. Kept out of the search's own code, which runs it only
    /// when a bound applies.
    #[inline(never)]
    fn entries_at_or_after(&self, at: &Basis, bound: Time, steps: &mut u64) -> S::Iter<'_> {
        let mut walk = self.store.iter_from(at.config.floor(bound), steps);
        if walk.clone().next().is_some_and(|(key, _)| key < bound) {
            walk.next();
        }
        walk
    }
}
