//! One server's idle periods, by start, in a sorted list: a server holds a few at a
//! time, and an ordered map allocated a node for each server and searched it from the
//! root. A change shifts the periods after it, linear in the server's periods, as the
//! runs' update is in the periods each tree holds.

use crate::Time;

/// A server's idle periods `(start, end)`, by ascending start; one per start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Server(Vec<(Time, Time)>);

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
    pub(crate) fn last_from(&self, t: Time) -> Option<(Time, Time)> {
        self.upto(t).checked_sub(1).map(|i| self.0[i])
    }

    /// The period with the latest start before `t`.
    pub(crate) fn last_before(&self, t: Time) -> Option<(Time, Time)> {
        t.checked_sub(1).and_then(|t| self.last_from(t))
    }

    /// The end of the period starting at `t`.
    pub(crate) fn end_of(&self, t: Time) -> Option<Time> {
        self.last_from(t).filter(|p| p.0 == t).map(|p| p.1)
    }

    /// Whether a period starts in `[s, e)`.
    pub(crate) fn starts_in(&self, s: Time, e: Time) -> bool {
        self.0.get(self.0.partition_point(|p| p.0 < s)).is_some_and(|p| p.0 < e)
    }

    /// Forgets the period starting at `start`, if there is one.
    pub(crate) fn remove(&mut self, start: Time) {
        if let Ok(i) = self.0.binary_search_by_key(&start, |p| p.0) {
            self.0.remove(i);
        }
    }

    /// Puts in `[start, end)`, in place of any period with the same start.
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
