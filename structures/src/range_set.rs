//! Sets of resource ids as sorted, disjoint, coalesced half-open ranges.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ResourceId;

/// A set of resource ids kept as sorted, disjoint, non-adjacent half-open ranges
/// `[lo, hi)`.
///
/// The form is canonical, so `==` is set equality. Every constructor normalises its
/// input; no operation can produce a non-canonical value.
#[derive(Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Vec<(ResourceId, ResourceId)>", into = "Vec<(ResourceId, ResourceId)>")]
pub struct RangeSet {
    ranges: Vec<(ResourceId, ResourceId)>,
}

impl RangeSet {
    /// The empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The ids `lo..hi` (empty when `lo >= hi`).
    pub fn from_range(lo: ResourceId, hi: ResourceId) -> Self {
        let ranges = if lo < hi { vec![(lo, hi)] } else { Vec::new() };
        Self { ranges }
    }

    /// All ids of a machine with `capacity` resources: `0..capacity`.
    pub fn full(capacity: ResourceId) -> Self {
        Self::from_range(0, capacity)
    }

    /// Normalises any list of half-open ranges (unsorted, overlapping, adjacent or empty
    /// ones are all accepted) into the canonical set of their union.
    pub fn from_ranges(ranges: impl IntoIterator<Item = (ResourceId, ResourceId)>) -> Self {
        let mut input: Vec<_> = ranges.into_iter().filter(|(lo, hi)| lo < hi).collect();
        input.sort_unstable();
        let mut out: Vec<(ResourceId, ResourceId)> = Vec::with_capacity(input.len());
        for (lo, hi) in input {
            match out.last_mut() {
                Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        Self { ranges: out }
    }

    /// The set of the given ids.
    pub fn from_ids(ids: impl IntoIterator<Item = ResourceId>) -> Self {
        Self::from_ranges(ids.into_iter().filter_map(|id| Some((id, id.checked_add(1)?))))
    }

    /// The canonical ranges, sorted and disjoint.
    pub fn ranges(&self) -> &[(ResourceId, ResourceId)] {
        &self.ranges
    }

    /// The number of ids in the set.
    pub fn count(&self) -> u64 {
        self.ranges.iter().map(|(lo, hi)| u64::from(hi - lo)).sum()
    }

    /// Whether the set has no id.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: ResourceId) -> bool {
        let i = self.ranges.partition_point(|&(_, hi)| hi <= id);
        self.ranges.get(i).is_some_and(|&(lo, _)| lo <= id)
    }

    /// The largest id in the set, if any.
    pub fn max(&self) -> Option<ResourceId> {
        self.ranges.last().map(|&(_, hi)| hi - 1)
    }

    /// The ids in both sets.
    pub fn intersect(&self, other: &Self) -> Self {
        let (a, b) = (&self.ranges, &other.ranges);
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < a.len() && j < b.len() {
            let lo = a[i].0.max(b[j].0);
            let hi = a[i].1.min(b[j].1);
            if lo < hi {
                out.push((lo, hi));
            }
            if a[i].1 < b[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        Self { ranges: out }
    }

    /// The ids in `self` but not in `other`.
    pub fn subtract(&self, other: &Self) -> Self {
        let mut out = Vec::new();
        let mut j = 0;
        for &(lo, hi) in &self.ranges {
            let mut cur = lo;
            while j < other.ranges.len() && other.ranges[j].1 <= cur {
                j += 1;
            }
            let mut k = j;
            while cur < hi && k < other.ranges.len() && other.ranges[k].0 < hi {
                let (olo, ohi) = other.ranges[k];
                if olo > cur {
                    out.push((cur, olo));
                }
                cur = cur.max(ohi);
                k += 1;
            }
            if cur < hi {
                out.push((cur, hi));
            }
        }
        Self { ranges: out }
    }

    /// The ids in either set.
    pub fn union(&self, other: &Self) -> Self {
        Self::from_ranges(self.ranges.iter().chain(&other.ranges).copied())
    }

    /// Whether every id of `self` is in `other`.
    pub fn is_subset(&self, other: &Self) -> bool {
        self.subtract(other).is_empty()
    }

    /// Iterates the ids in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = ResourceId> + '_ {
        self.ranges.iter().flat_map(|&(lo, hi)| lo..hi)
    }

    /// The `n` lowest ids, the default selection policy; `None` when the set has fewer.
    pub fn first(&self, n: u64) -> Option<Self> {
        let mut left = n;
        let mut out = Vec::new();
        for &(lo, hi) in &self.ranges {
            if left == 0 {
                break;
            }
            let take = left.min(u64::from(hi - lo));
            // `take` fits: it is at most `hi - lo`, a u32.
            out.push((lo, lo + take as ResourceId));
            left -= take;
        }
        (left == 0).then_some(Self { ranges: out })
    }
}

impl From<Vec<(ResourceId, ResourceId)>> for RangeSet {
    fn from(ranges: Vec<(ResourceId, ResourceId)>) -> Self {
        Self::from_ranges(ranges)
    }
}

impl From<RangeSet> for Vec<(ResourceId, ResourceId)> {
    fn from(set: RangeSet) -> Self {
        set.ranges
    }
}

/// Shows `{0..4, 7}`: half-open ranges, single ids alone.
impl fmt::Display for RangeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, &(lo, hi)) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if hi - lo == 1 {
                write!(f, "{lo}")?;
            } else {
                write!(f, "{lo}..{hi}")?;
            }
        }
        f.write_str("}")
    }
}

/// Prints a paste-able constructor, so that reproducers can be copied into a test.
impl fmt::Debug for RangeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RangeSet::from_ranges({:?})", self.ranges)
    }
}
