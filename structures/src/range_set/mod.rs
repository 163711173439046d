//! Sets of resource ids: sorted, disjoint, coalesced half-open ranges as far as the API
//! shows, kept as an inline bitset ([`words`]) when every id is below [`INLINE_IDS`] and
//! as a list of ranges ([`runs`]) otherwise.

pub mod runs;
mod words;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ResourceId;
use runs::Run;
use words::Words;
pub use words::BITS as INLINE_IDS;

/// A set of resource ids, seen as sorted, disjoint, non-adjacent half-open ranges
/// `[lo, hi)`.
///
/// The form is canonical, so `==` is set equality: a set whose ids are all below
/// [`INLINE_IDS`] is a bitset held inline (no heap allocation), any other a list of
/// ranges. Every constructor normalises its input; no operation can produce a
/// non-canonical value.
#[derive(PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Vec<(ResourceId, ResourceId)>", into = "Vec<(ResourceId, ResourceId)>")]
pub struct RangeSet {
    repr: Repr,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// Every id is below `INLINE_IDS`.
    Words(Words),
    /// Canonical ranges, the last ending above `INLINE_IDS`.
    Runs(Vec<Run>),
}

impl Clone for RangeSet {
    fn clone(&self) -> Self {
        Self { repr: self.repr.clone() }
    }

    /// Copies a bitset's words in use only, and reuses a list's allocation: the shell
    /// keeps a copy of every answer it gives.
    fn clone_from(&mut self, source: &Self) {
        match (&mut self.repr, &source.repr) {
            (Repr::Words(to), Repr::Words(from)) => to.assign(from),
            (Repr::Runs(to), Repr::Runs(from)) => to.clone_from(from),
            (to, from) => *to = from.clone(),
        }
    }
}

impl Default for RangeSet {
    fn default() -> Self {
        Self { repr: Repr::Words(Words::EMPTY) }
    }
}

impl RangeSet {
    /// The empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The set of canonical `runs`, in its canonical form.
    fn canonical(runs: Vec<Run>) -> Self {
        match runs.last() {
            Some(&(_, hi)) if hi > INLINE_IDS => Self { repr: Repr::Runs(runs) },
            _ => Self { repr: Repr::Words(Words::from_runs(runs)) },
        }
    }

    /// The ids `lo..hi` (empty when `lo >= hi`).
    pub fn from_range(lo: ResourceId, hi: ResourceId) -> Self {
        if hi <= INLINE_IDS {
            Self { repr: Repr::Words(Words::from_runs((lo < hi).then_some((lo, hi)))) }
        } else {
            Self::canonical(if lo < hi { vec![(lo, hi)] } else { Vec::new() })
        }
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
        let mut out: Vec<Run> = Vec::with_capacity(input.len());
        for run in input {
            runs::push(&mut out, run);
        }
        Self::canonical(out)
    }

    /// The set of the ids whose bits are set in `bits`: id `i` is bit `i % 64` of word
    /// `i / 64`. For a structure that keeps sets as words of its own.
    pub(crate) fn from_bits(bits: &[u64]) -> Self {
        let used = bits.iter().rposition(|&w| w != 0).map_or(0, |last| last + 1);
        if used <= words::WORDS {
            Self { repr: Repr::Words(Words::from_bits(&bits[..used])) }
        } else {
            // Some id is at or above `INLINE_IDS`, so the list is canonical.
            Self { repr: Repr::Runs(words::runs_of(&bits[..used]).collect()) }
        }
    }

    /// Writes the set into `bits` as [`from_bits`](Self::from_bits) reads it, clearing
    /// the other bits. `bits` must hold every id of the set.
    pub(crate) fn write_bits(&self, bits: &mut [u64]) {
        bits.fill(0);
        match &self.repr {
            Repr::Words(words) => bits[..words.used().len()].copy_from_slice(words.used()),
            Repr::Runs(list) => list.iter().for_each(|&(lo, hi)| words::fill(bits, lo, hi)),
        }
    }

    /// The set of the given ids.
    pub fn from_ids(ids: impl IntoIterator<Item = ResourceId>) -> Self {
        // Ids below `INLINE_IDS` go straight into the bitset, in any order: no list, no
        // sort (idletrees builds a set per slot tree it rebuilds).
        let mut words = Words::EMPTY;
        let mut rest = Vec::new();
        for id in ids {
            if id < INLINE_IDS {
                words.insert_id(id);
            } else if let Some(hi) = id.checked_add(1) {
                rest.push((id, hi));
            }
        }
        words.settle();
        if rest.is_empty() {
            return Self { repr: Repr::Words(words) };
        }
        Self::from_ranges(words.runs().chain(rest))
    }

    /// The canonical ranges, sorted and disjoint.
    pub fn ranges(&self) -> impl Iterator<Item = (ResourceId, ResourceId)> + Clone + '_ {
        let (words, list) = match &self.repr {
            Repr::Words(words) => (Some(words.runs()), None),
            Repr::Runs(list) => (None, Some(list.iter().copied())),
        };
        words.into_iter().flatten().chain(list.into_iter().flatten())
    }

    /// The ranges as a list (a copy when the set is a bitset).
    fn run_list(&self) -> std::borrow::Cow<'_, [Run]> {
        match &self.repr {
            Repr::Words(words) => words.runs().collect::<Vec<_>>().into(),
            Repr::Runs(list) => list.as_slice().into(),
        }
    }

    /// The number of ids in the set.
    pub fn count(&self) -> u64 {
        match &self.repr {
            Repr::Words(words) => words.count(),
            Repr::Runs(list) => runs::count(list),
        }
    }

    /// Whether the set has no id.
    pub fn is_empty(&self) -> bool {
        match &self.repr {
            Repr::Words(words) => words.is_empty(),
            Repr::Runs(_) => false,
        }
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: ResourceId) -> bool {
        match &self.repr {
            Repr::Words(words) => words.contains(id),
            Repr::Runs(list) => {
                let i = list.partition_point(|&(_, hi)| hi <= id);
                list.get(i).is_some_and(|&(lo, _)| lo <= id)
            }
        }
    }

    /// The largest id in the set, if any.
    pub fn max(&self) -> Option<ResourceId> {
        match &self.repr {
            Repr::Words(words) => words.max(),
            Repr::Runs(list) => list.last().map(|&(_, hi)| hi - 1),
        }
    }

    /// A copy of `self` changed in place by `op` with `other`: the by-value form of each
    /// `*_with` operation.
    fn changed(&self, other: &Self, op: impl FnOnce(&mut Self, &Self)) -> Self {
        let mut out = self.clone();
        op(&mut out, other);
        out
    }

    /// The ids in both sets.
    pub fn intersect(&self, other: &Self) -> Self {
        self.changed(other, Self::intersect_with)
    }

    /// Keeps only the ids also in `other`; no allocation when `self` is inline.
    pub fn intersect_with(&mut self, other: &Self) {
        match (&mut self.repr, &other.repr) {
            (Repr::Words(a), Repr::Words(b)) => a.and(b),
            (Repr::Words(a), Repr::Runs(b)) => a.and(&Words::clipped(b)),
            (Repr::Runs(a), Repr::Words(b)) => {
                let mut words = Words::clipped(a);
                words.and(b);
                self.repr = Repr::Words(words);
            }
            (Repr::Runs(a), Repr::Runs(b)) => {
                let mut out = Vec::new();
                runs::intersect(a, b, &mut out);
                *self = Self::canonical(out);
            }
        }
    }

    /// [`intersect_with`](Self::intersect_with), then the number of ids left: counted
    /// as the words are intersected, where a [`count`](Self::count) after it reads them
    /// again. The walks that intersect a window's sets ask for both at every step.
    pub fn intersect_count(&mut self, other: &Self) -> u64 {
        match (&mut self.repr, &other.repr) {
            (Repr::Words(a), Repr::Words(b)) => a.and_count(b),
            _ => {
                self.intersect_with(other);
                self.count()
            }
        }
    }

    /// The ids in `self` but not in `other`.
    pub fn subtract(&self, other: &Self) -> Self {
        self.changed(other, Self::subtract_with)
    }

    /// Drops the ids in `other`; no allocation when `self` is inline.
    pub fn subtract_with(&mut self, other: &Self) {
        match (&mut self.repr, &other.repr) {
            (Repr::Words(a), Repr::Words(b)) => a.and_not(b),
            (Repr::Words(a), Repr::Runs(b)) => a.and_not(&Words::clipped(b)),
            (Repr::Runs(a), _) => {
                let mut out = Vec::new();
                runs::subtract(a, &other.run_list(), &mut out);
                *self = Self::canonical(out);
            }
        }
    }

    /// The ids in either set.
    pub fn union(&self, other: &Self) -> Self {
        self.changed(other, Self::union_with)
    }

    /// Adds the ids in `other`; no allocation when both are inline.
    pub fn union_with(&mut self, other: &Self) {
        match (&mut self.repr, &other.repr) {
            (Repr::Words(a), Repr::Words(b)) => a.or(b),
            _ => *self = Self::canonical(runs::union(&self.run_list(), &other.run_list())),
        }
    }

    /// Whether every id of `self` is in `other`.
    pub fn is_subset(&self, other: &Self) -> bool {
        match (&self.repr, &other.repr) {
            (Repr::Words(a), Repr::Words(b)) => a.is_subset(b),
            (Repr::Words(a), Repr::Runs(b)) => a.is_subset(&Words::clipped(b)),
            (Repr::Runs(_), Repr::Words(_)) => false,
            (Repr::Runs(_), Repr::Runs(_)) => self.subtract(other).is_empty(),
        }
    }

    /// Iterates the ids in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = ResourceId> + '_ {
        self.ranges().flat_map(|(lo, hi)| lo..hi)
    }

    /// The `n` lowest ids, the default selection policy; `None` when the set has fewer.
    pub fn first(&self, n: u64) -> Option<Self> {
        match &self.repr {
            Repr::Words(words) => Some(Self { repr: Repr::Words(words.first(n)?) }),
            Repr::Runs(list) => {
                let mut out = Vec::new();
                runs::first(list, n, &mut out)?;
                Some(Self::canonical(out))
            }
        }
    }
}

impl From<Vec<(ResourceId, ResourceId)>> for RangeSet {
    fn from(ranges: Vec<(ResourceId, ResourceId)>) -> Self {
        Self::from_ranges(ranges)
    }
}

impl From<RangeSet> for Vec<(ResourceId, ResourceId)> {
    fn from(set: RangeSet) -> Self {
        match set.repr {
            Repr::Words(words) => words.runs().collect(),
            Repr::Runs(list) => list,
        }
    }
}

/// Shows `{0..4, 7}`: half-open ranges, single ids alone.
impl fmt::Display for RangeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (lo, hi)) in self.ranges().enumerate() {
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
        write!(f, "RangeSet::from_ranges({:?})", self.ranges().collect::<Vec<_>>())
    }
}
