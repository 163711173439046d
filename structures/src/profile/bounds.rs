//! `augtree`'s memory of earlier earliest-start answers, which bound later searches
//! from below until free space grows.
//!
//! Allocations only take ids away, and advancing only drops the past, so a window
//! with `n` ids free throughout for `duration` now had them at every earlier call.
//! If a call for `(n1, d1)` from `r1` answered `s1`, no window of `d1` with `n1`
//! ids started in `[r1, s1)` then (one starting inside an entry holds the entry's
//! start too, or `r1`, both earlier candidates), so none of a larger or longer
//! request does now: a later call for `n >= n1` and `duration >= d1` from `r >= r1`
//! starts its search at `s1`. A release can free such a window, so it forgets them all.
//! In a plan-only replay, where nothing is released, this is what stops every job of
//! a common size from walking the same failed windows of a deep backlog again.
//!
//! Only answers from before the latest change bound a search. On the state it was
//! found in, an answer bounds the same request by itself, which would make a repeated
//! search cost nothing: callers do not repeat one, and the benchmarks time repeated
//! searches on unchanged states to measure the search.

use crate::Time;

/// How many answers are kept: the most recent ones.
const KEPT: usize = 16;

/// One earlier answer: the request, and where its window started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Answer {
    n: u64,
    duration: Time,
    ready: Time,
    start: Time,
    /// The [`changes`](Bounds::changes) when it was found.
    at: u64,
}

/// The most recent earliest-start answers since free space last grew.
#[derive(Debug, Clone, Default)]
pub(super) struct Bounds {
    /// A ring: `answers[..len]` are kept, and `next` is where the next one goes.
    answers: [Answer; KEPT],
    len: usize,
    next: usize,
    /// The oldest kept answer's `at`: answers come in order of it, so this alone tells
    /// whether any can be used (on an unchanged state none can, and a search pays one
    /// comparison, not a scan).
    oldest: u64,
    /// Allocations and advances so far.
    changes: u64,
}

impl Bounds {
    /// The latest start before which no window for `n` ids and `duration` from
    /// `ready` on can start, if an earlier answer tells one later than `ready`.
    #[inline]
    pub(super) fn start(&self, n: u64, duration: Time, ready: Time) -> Option<Time> {
        if self.len == 0 || self.oldest >= self.changes {
            return None;
        }
        self.latest(n, duration, ready)
    }

    /// [`start`](Self::start) once some answer is from before the latest change.
    #[inline(never)]
    fn latest(&self, n: u64, duration: Time, ready: Time) -> Option<Time> {
        self.answers[..self.len]
            .iter()
            .filter(|a| a.at < self.changes && a.n <= n && a.duration <= duration && a.ready <= ready)
            .map(|a| a.start)
            .max()
            .filter(|&start| start > ready)
    }

    /// Keeps an answer: a window for `n` ids and `duration`, from `ready` on, starts
    /// first at `start`.
    #[inline(never)]
    pub(super) fn record(&mut self, n: u64, duration: Time, ready: Time, start: Time) {
        self.answers[self.next] = Answer { n, duration, ready, start, at: self.changes };
        self.next = (self.next + 1) % KEPT;
        self.len = (self.len + 1).min(KEPT);
        self.oldest = self.answers[if self.len < KEPT { 0 } else { self.next }].at;
    }

    /// Notes an allocation or an advance: free space shrank or the past went.
    pub(super) fn changed(&mut self) {
        self.changes += 1;
    }

    /// Forgets every answer: free space grew, so earlier failures may not hold.
    pub(super) fn clear(&mut self) {
        (self.len, self.next) = (0, 0);
    }
}
