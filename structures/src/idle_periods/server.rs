//! One server's idle periods, by start, in a sorted list: a server holds a few at a
//! time, and an ordered map allocated a node for each server and searched it from the
//! root. A change shifts the periods after it, linear in the server's periods, as the
//! runs' update is in the periods each tree holds.

use crate::Time;

/// An idle period `(start, end)`.
type Idle = (Time, Time);

/// A server's idle periods `(start, end)`, by ascending start; one per start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Server(Vec<Idle>);

impl Server {
    /// Idle from `now` to the end of time.
    pub(crate) fn idle_from(now: Time) -> Self {
        Self(vec![(now, Time::MAX)])
    }

    /// How many periods start at or before `t`.
    fn upto(&self, t: Time) -> usize {
        self.0.partition_point(|p| p.0 <= t)
    }

    /// The period with the latest start at or before `t`.
    pub(crate) fn last_from(&self, t: Time) -> Option<Idle> {
        self.upto(t).checked_sub(1).map(|i| self.0[i])
    }

    /// Takes `[s, e)` out of the period holding it, which gives way to its parts before
    /// and after the window, each kept where `keep(start, end)` holds, in place: one
    /// search, and a shift only when both are kept. Returns the period, `None` (nothing
    /// changed) if no period holds `[s, e)`.
    pub(crate) fn split(&mut self, (s, e): Idle, keep: impl Fn(Time, Time) -> bool) -> Option<Idle> {
        let i = self.upto(s).checked_sub(1).filter(|&i| self.0[i].1 >= e)?;
        let (st, et) = self.0[i];
        match (keep(st, s), keep(e, et)) {
            (true, true) => {
                self.0[i].1 = s;
                self.0.insert(i + 1, (e, et));
            }
            (true, false) => self.0[i].1 = s,
            (false, true) => self.0[i] = (e, et),
            (false, false) => {
                self.0.remove(i);
            }
        }
        Some((st, et))
    }

    /// Puts in `[s, e)`, where the server is busy, merged with the period that ends at `s`
    /// and the one that begins at `e`, in place. Returns those two.
    pub(crate) fn merge(&mut self, s: Time, e: Time) -> (Option<Idle>, Option<Idle>) {
        // Busy throughout `[s, e)`: no period starts in it, and the one before ends by `s`.
        let i = self.upto(s);
        let before = i.checked_sub(1).map(|j| self.0[j]).filter(|p| p.1 == s);
        let after = self.0.get(i).copied().filter(|p| p.0 == e);
        match (before, after) {
            (Some(_), Some((_, et))) => {
                self.0[i - 1].1 = et;
                self.0.remove(i);
            }
            (Some(_), None) => self.0[i - 1].1 = e,
            (None, Some(_)) => self.0[i].0 = s,
            (None, None) => self.0.insert(i, (s, e)),
        }
        (before, after)
    }

    /// Whether the server is idle somewhere in `[s, e)`: the period starting last at or
    /// before `s` reaches past it, or the next starts before `e`. One search for both.
    pub(crate) fn idle_in(&self, s: Time, e: Time) -> bool {
        let i = self.upto(s);
        i.checked_sub(1).is_some_and(|j| self.0[j].1 > s) || self.0.get(i).is_some_and(|p| p.0 < e)
    }

    /// Forgets the period starting at `start`, if there is one.
    pub(crate) fn remove(&mut self, start: Time) {
        if let Ok(i) = self.0.binary_search_by_key(&start, |p| p.0) {
            self.0.remove(i);
        }
    }

    /// Puts in `[start, end)`, in place of any period with the same start (for the planted
    /// faults, which change a server's periods without the trees).
    #[cfg(feature = "planted")]
    pub(crate) fn insert(&mut self, start: Time, end: Time) {
        match self.0.binary_search_by_key(&start, |p| p.0) {
            Ok(i) => self.0[i].1 = end,
            Err(i) => self.0.insert(i, (start, end)),
        }
    }

    /// The periods, by start.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Time, Time)> + '_ {
        self.0.iter().copied()
    }
}
