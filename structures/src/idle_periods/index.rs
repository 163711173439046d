//! Every idle period in the trees' primary order, which a run's tree reads its leaves off.
//!
//! Periods are grouped by start, each group's servers in ascending id with their ends:
//! an allocation's remainders after it all start at its end, so they make one group, and
//! an update sorts its periods once and changes each group in one pass, where a map
//! keyed by period took a search per period.

use std::cmp::Reverse;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use super::tree::Period;
use crate::{ResourceId, Time};

/// The periods by start, the latest first; per start, `(id, end)` by ascending id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Index(BTreeMap<Reverse<Time>, Vec<(ResourceId, Time)>>);

impl Index {
    /// The index of `periods`.
    pub(crate) fn of(periods: &[Period]) -> Self {
        let mut index = Self::default();
        index.update(&[], periods);
        index
    }

    /// Takes out `removed` (held) and puts in `added` (new).
    pub(crate) fn update(&mut self, removed: &[Period], added: &[Period]) {
        for (start, ids) in by_start(removed) {
            if let Entry::Occupied(mut group) = self.0.entry(Reverse(start)) {
                let mut gone = ids.iter().map(|&(id, _)| id).peekable();
                group.get_mut().retain(|&(id, _)| {
                    while gone.next_if(|&g| g < id).is_some() {}
                    gone.next_if_eq(&id).is_none()
                });
                if group.get().is_empty() {
                    group.remove();
                }
            }
        }
        for (start, new) in by_start(added) {
            let group = self.0.entry(Reverse(start)).or_default();
            if group.last().is_none_or(|last| last.0 < new[0].0) {
                group.extend_from_slice(&new);
            } else {
                *group = merged(group, &new);
            }
        }
    }

    /// The periods that overlap the run starting at `k`, in primary order: those starting
    /// at or before it (every start is a run's) that end after it. `len` is how many.
    pub(crate) fn held(&self, k: Time, len: usize) -> Vec<Period> {
        let mut periods = Vec::with_capacity(len);
        for (&Reverse(start), group) in self.0.range(Reverse(k)..) {
            periods.extend(group.iter().filter(|p| p.1 > k).map(|&(id, end)| Period { start, end, id }));
        }
        periods
    }

    /// The first period this index and `other` disagree on, in either: `(start, id, end)`.
    pub(crate) fn odd(&self, other: &Self) -> Option<(Time, ResourceId, Time)> {
        let has = |index: &Self, start: Time, p: &(ResourceId, Time)| {
            index.0.get(&Reverse(start)).is_some_and(|group| group.binary_search(p).is_ok())
        };
        let first = |a: &Self, b: &Self| {
            a.0.iter().find_map(|(&Reverse(start), group)| {
                group.iter().find(|p| !has(b, start, p)).map(|&(id, end)| (start, id, end))
            })
        };
        first(self, other).or_else(|| first(other, self))
    }
}

/// `periods` grouped by start, each group's `(id, end)` by ascending id.
fn by_start(periods: &[Period]) -> Vec<(Time, Vec<(ResourceId, Time)>)> {
    let mut sorted = periods.to_vec();
    sorted.sort_unstable_by_key(|p| (p.start, p.id));
    sorted
        .chunk_by(|a, b| a.start == b.start)
        .map(|same| (same[0].start, same.iter().map(|p| (p.id, p.end)).collect()))
        .collect()
}

/// Two groups' servers (by ascending id, none in both) in one, by ascending id.
fn merged(a: &[(ResourceId, Time)], b: &[(ResourceId, Time)]) -> Vec<(ResourceId, Time)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut b = b.iter().peekable();
    for p in a {
        while let Some(q) = b.next_if(|q| q.0 < p.0) {
            out.push(*q);
        }
        out.push(*p);
    }
    out.extend(b);
    out
}

/// Faults planted on purpose (feature `planted`, for tests only).
#[cfg(feature = "planted")]
impl Index {
    /// The `pick`-th period dropped; false if there is none.
    pub(super) fn drop_one(&mut self, pick: u64) -> bool {
        let n: usize = self.0.values().map(Vec::len).sum();
        let Some(mut i) = (n > 0).then(|| (pick % n as u64) as usize) else { return false };
        for group in self.0.values_mut() {
            if i < group.len() {
                group.remove(i);
                return true;
            }
            i -= group.len();
        }
        false
    }
}
