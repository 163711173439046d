//! Every idle period in the trees' primary order, which a run's tree reads its leaves off.
//!
//! Periods are grouped by start, each group's servers in ascending id with their ends:
//! an allocation's remainders after it all start at its end, so they make one group, and
//! an update sorts its periods once and changes each group in one pass, where a map
//! keyed by period took a search per period. Each group keeps its latest end, so a
//! read skips the groups that ended before its run (most of them, far from the present),
//! and its earliest, so a read copies a group that has not ended at all without looking
//! at each end.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use super::tree::Period;
use crate::{ResourceId, Time};

/// The periods by start, the latest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Index(BTreeMap<Reverse<Time>, Group>);

/// The periods of one start: `(id, end)` by ascending id, and the earliest and the latest
/// of their ends.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    first_end: Time,
    last_end: Time,
    members: Vec<(ResourceId, Time)>,
}

impl Group {
    const EMPTY: Self = Self { first_end: Time::MAX, last_end: 0, members: Vec::new() };
}

impl Index {
    /// The index of `periods`.
    pub(crate) fn of(periods: &[Period]) -> Self {
        let mut index = Self::default();
        index.update(&[], periods);
        index
    }

    /// Takes out `removed` (held) and puts in `added` (new).
    pub(crate) fn update(&mut self, removed: &[Period], added: &[Period]) {
        for gone in by_start(removed) {
            if let Entry::Occupied(mut group) = self.0.entry(Reverse(gone[0].start)) {
                let Group { first_end, last_end, members } = group.get_mut();
                // The servers before the first that goes stay where they are; those
                // between two that go move down over the gap the ones gone so far left,
                // and those after the last, with the gap's removal: a copy per block,
                // where the servers that go are mostly neighbours.
                let first = members.partition_point(|m| m.0 < gone[0].id);
                let (mut kept, mut at) = (first, first);
                for p in gone.iter() {
                    let mut next = at;
                    while members.get(next).is_some_and(|m| m.0 < p.id) {
                        next += 1;
                    }
                    if kept < at && at < next {
                        members.copy_within(at..next, kept);
                    }
                    kept += next - at;
                    at = next + usize::from(members.get(next).is_some_and(|m| m.0 == p.id));
                }
                members.drain(kept..at);
                // The earliest and latest ends change only if a period that had one went.
                if gone.iter().any(|p| p.end <= *first_end || p.end >= *last_end) {
                    let ends = members.iter().map(|m| m.1);
                    (*first_end, *last_end) =
                        (ends.clone().min().unwrap_or(Time::MAX), ends.max().unwrap_or(0));
                }
                if members.is_empty() {
                    group.remove();
                }
            }
        }
        for new in by_start(added) {
            let Group { first_end, last_end, members } =
                self.0.entry(Reverse(new[0].start)).or_insert(Group::EMPTY);
            *first_end = new.iter().map(|p| p.end).fold(*first_end, Time::min);
            *last_end = new.iter().map(|p| p.end).fold(*last_end, Time::max);
            if members.last().is_none_or(|last| last.0 < new[0].id) {
                members.extend(new.iter().map(|p| (p.id, p.end)));
            } else {
                *members = merged(members, &new);
            }
        }
    }

    /// The periods that overlap the run starting at `k`, in primary order: those starting
    /// at or before it (every start is a run's) that end after it. `len` is how many.
    pub(crate) fn held(&self, k: Time, len: usize) -> Vec<Period> {
        let mut periods = Vec::with_capacity(len);
        for (&Reverse(start), group) in self.0.range(Reverse(k)..).filter(|g| g.1.last_end > k) {
            let period = |&(id, end): &(ResourceId, Time)| Period { start, end, id };
            if group.first_end > k {
                periods.extend(group.members.iter().map(period));
            } else {
                periods.extend(group.members.iter().filter(|p| p.1 > k).map(period));
            }
        }
        periods
    }

    /// The periods that end by `now`, in primary order: all start before it.
    pub(crate) fn ended(&self, now: Time) -> Vec<Period> {
        // A group none of whose periods has ended is passed without looking at each.
        let groups = self.0.range(Reverse(now)..).filter(|g| g.1.first_end <= now);
        groups
            .flat_map(|(&Reverse(start), group)| {
                let ended = group.members.iter().filter(move |p| p.1 <= now);
                ended.map(move |&(id, end)| Period { start, end, id })
            })
            .collect()
    }

    /// The first period this index and `other` disagree on, in either: `(start, id, end)`.
    pub(crate) fn odd(&self, other: &Self) -> Option<(Time, ResourceId, Time)> {
        let has = |index: &Self, start: Time, p: &(ResourceId, Time)| {
            index.0.get(&Reverse(start)).is_some_and(|group| group.members.binary_search(p).is_ok())
        };
        let first = |a: &Self, b: &Self| {
            a.0.iter().find_map(|(&Reverse(start), group)| {
                group.members.iter().find(|p| !has(b, start, p)).map(|&(id, end)| (start, id, end))
            })
        };
        first(self, other).or_else(|| first(other, self))
    }
}

/// `periods` grouped by start, each group's periods by ascending id. The callers'
/// periods come in runs of equal starts, each by id (a server's periods, or an
/// allocation's remainders before and after it), so the runs are sorted, not the
/// periods, and a start with one run in order is that run, not a copy; a group whose ids
/// come out of order is sorted after.
fn by_start(periods: &[Period]) -> Vec<Cow<'_, [Period]>> {
    let mut runs: Vec<&[Period]> = periods.chunk_by(|a, b| a.start == b.start).collect();
    runs.sort_by_key(|run| run[0].start);
    runs.chunk_by(|a, b| a[0].start == b[0].start)
        .map(|same| match same {
            [run] if run.is_sorted_by_key(|p| p.id) => Cow::Borrowed(*run),
            _ => {
                let mut group = same.concat();
                group.sort_unstable_by_key(|p| p.id);
                Cow::Owned(group)
            }
        })
        .collect()
}

/// A group's servers and new periods of its start (by ascending id, none in both) in
/// one, by ascending id.
fn merged(a: &[(ResourceId, Time)], b: &[Period]) -> Vec<(ResourceId, Time)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut b = b.iter().peekable();
    for p in a {
        while let Some(q) = b.next_if(|q| q.id < p.0) {
            out.push((q.id, q.end));
        }
        out.push(*p);
    }
    out.extend(b.map(|q| (q.id, q.end)));
    out
}

/// Faults planted on purpose (feature `planted`, for tests only).
#[cfg(feature = "planted")]
impl Index {
    /// The latest end of the `pick`-th group, or for an odd `pick` its earliest, made a
    /// unit earlier; false if there is none.
    pub(super) fn misdate(&mut self, pick: u64) -> bool {
        let n = self.0.len() as u64;
        let group = self.0.values_mut().nth((pick % n.max(1)) as usize);
        group.map(|g| if pick.is_multiple_of(2) { g.last_end -= 1 } else { g.first_end -= 1 }).is_some()
    }

    /// The `pick`-th period dropped; false if there is none.
    pub(super) fn drop_one(&mut self, pick: u64) -> bool {
        let n: usize = self.0.values().map(|group| group.members.len()).sum();
        let Some(mut i) = (n > 0).then(|| (pick % n as u64) as usize) else { return false };
        for group in self.0.values_mut() {
            if i < group.members.len() {
                group.members.remove(i);
                return true;
            }
            i -= group.members.len();
        }
        false
    }
}
