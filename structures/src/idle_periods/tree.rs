//! One slot's 2-dimensional tree (coallocation-2d-trees section 4.1): a primary
//! balanced tree over idle periods in descending order of start, each node with the
//! median start, its size and a secondary tree of the same periods in ascending order of
//! end, with medians and sizes.
//!
//! Both dimensions are kept as index ranges: the primary leaves are one sorted array, a
//! node is an index range of it split at its middle, and a node's secondary tree is its
//! periods sorted by end, split the same way, so both walks are coallocation-2d-trees'
//! tree walks without a pointer per node.
//!
//! Only the secondary trees a search reads are kept. Every period of a run's tree starts
//! at or before the run does (each start is a run boundary), so Phase 1 takes the same
//! path in every search of the tree: down the left children (the later starts), marking
//! each right child and, at the bottom, the leftmost leaf. Those subtrees partition the
//! periods, so their secondary trees fit in one array of the periods' ends, each marked
//! subtree's range sorted: one sort of the ends in pieces, where a secondary tree at every
//! node (a level of leaves per depth) took a merge per level. A secondary tree keeps ends
//! alone: Phase 2 reads nothing else, and the feasible servers are those of the primary
//! leaves that end at or after the window (the leaves of the pieces Phase 2 marks).
//!
//! A tree is a cache: its leaves are made when a search first reads them, off the runs'
//! index of every period in primary order, and dropped when its periods change. An
//! update changes the tree of every run its periods overlap, and an open-ended period
//! overlaps every run to the end of time, while a search reads one run (`check`) or the
//! first few (`earliest`). So most trees would be made and dropped unread. What a tree
//! keeps up to date is how many periods it holds, which bounds every attempt's work.

use std::sync::OnceLock;

use smallvec::SmallVec;

use super::IdlePeriods;
use crate::shell::Engine;
use crate::{Invalid, RangeSet, ResourceId, Time};

/// A maximal interval `[start, end)` in which server `id` is idle; `end` is
/// `Time::MAX` when it stays idle to the end of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Period {
    pub(crate) start: Time,
    pub(crate) end: Time,
    pub(crate) id: ResourceId,
}

/// Neighbouring periods of a change that share their start and end, counted once: an
/// allocation's servers mostly had the same period and keep the same remainders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: Time,
    pub(crate) end: Time,
    pub(crate) count: usize,
}

/// `periods` as spans, equal neighbours summed.
pub(crate) fn spans(periods: &[Period]) -> Vec<Span> {
    periods
        .chunk_by(|a, b| (a.start, a.end) == (b.start, b.end))
        .map(|same| Span { start: same[0].start, end: same[0].end, count: same.len() })
        .collect()
}

/// A node of the primary tree: the periods `by_start[lo..hi]`.
#[derive(Debug, Clone, Copy)]
struct Node {
    lo: usize,
    hi: usize,
}

impl Node {
    fn mid(self) -> usize {
        (self.lo + self.hi) / 2
    }

    /// The left child holds the later starts, the right one the earlier.
    fn children(self) -> (Node, Node) {
        (Node { lo: self.lo, hi: self.mid() }, Node { lo: self.mid(), hi: self.hi })
    }
}

/// The work of one search: primary and secondary nodes touched.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Visits {
    pub(crate) primary: u64,
    pub(crate) secondary: u64,
}

/// The idle periods of a tree feasible for a window `[s, e)`: those that start at or
/// before `s` and end at or after `e`.
pub(crate) struct Feasible<'a> {
    periods: &'a [Period],
    window: (Time, Time),
    /// How many periods the pieces Phase 2 marked hold.
    pub(crate) count: u64,
}

impl Feasible<'_> {
    /// The servers of the first `limit` feasible periods in primary order; without a
    /// limit, of every feasible one: the leaves of the pieces Phase 2 marked.
    pub(crate) fn ids(&self, limit: u64) -> RangeSet {
        let (s, e) = self.window;
        let feasible = self.periods.iter().filter(|p| p.start <= s && p.end >= e);
        match usize::try_from(limit) {
            // Without a limit, no count is kept: `check` and `earliest` read every
            // feasible period, and counting them added about 12 % to this loop.
            Ok(limit) if limit < self.periods.len() => RangeSet::from_ids(feasible.take(limit).map(|p| p.id)),
            _ => RangeSet::from_ids(feasible.map(|p| p.id)),
        }
    }
}

/// One slot's 2-dimensional tree, as much of it as has been read since it last changed.
#[derive(Debug, Clone)]
pub(crate) struct Tree {
    /// How many periods it holds.
    len: usize,
    /// Primary leaves: descending start, ties by ascending id; made on the first read.
    by_start: OnceLock<Vec<Period>>,
    /// Secondary leaves: the primary leaves' ends, each marked subtree's range sorted;
    /// made on the first search.
    by_end: OnceLock<Vec<Time>>,
    /// The servers of all periods held, for sweeps over the free space; made on the
    /// first sweep. Boxed: a set inline is most of a tree's size, and the runs' map
    /// moves its trees as runs come and go.
    free: OnceLock<Box<RangeSet>>,
}

/// The subtrees Phase 1 marks, one per level: inline up to the levels of a tree of
/// [`MAX_SERVERS`](super::MAX_SERVERS) periods (one per server). `earliest` runs Phase 1
/// at every candidate start, and a list on the heap each time was 6 % of the searches'
/// instructions.
type Marked = SmallVec<[Node; 21]>;

/// A tree with its primary leaves made: what searches read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Leaves<'a> {
    tree: &'a Tree,
    by_start: &'a [Period],
}

/// Levels of a tree of `m` leaves split at the middle: `ceil(log2 m) + 1`, 0 when empty.
pub(crate) fn levels(m: usize) -> u64 {
    match m {
        0 => 0,
        m => u64::from(usize::BITS - (m - 1).leading_zeros()) + 1,
    }
}

/// coallocation-2d-trees' bound (section 4.3) on the nodes one attempt touches in a tree of `m` periods: one path
/// down the primary tree (Phase 1) and one path down each of the at most one secondary
/// tree per level marked on it (Phase 2).
pub(crate) fn attempt_bound(m: usize) -> u64 {
    let l = levels(m);
    l + l * l
}

impl Tree {
    /// A tree of `len` periods, none read yet.
    pub(crate) fn new(len: usize) -> Self {
        Self { len, by_start: OnceLock::new(), by_end: OnceLock::new(), free: OnceLock::new() }
    }

    /// How many periods the tree holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Takes out the `removed` and puts in the `added` periods, as [`Span`]s, that
    /// overlap the run starting at `k`; what was read of the old ones goes.
    pub(crate) fn change(&mut self, k: Time, removed: &[Span], added: &[Span]) {
        let held = |spans: &[Span]| spans.iter().filter(|s| s.start <= k && s.end > k).map(|s| s.count).sum();
        let (out, into): (usize, usize) = (held(removed), held(added));
        if out + into > 0 {
            *self = Self::new((self.len + into).saturating_sub(out));
        }
    }

    /// The tree's leaves; `make` gives its periods in primary order if no read has since
    /// it last changed.
    pub(crate) fn read(&self, make: impl FnOnce() -> Vec<Period>) -> Leaves<'_> {
        Leaves { tree: self, by_start: self.by_start.get_or_init(make) }
    }
}

impl<'a> Leaves<'a> {
    /// Every secondary leaf, filled now if no search has read them yet.
    fn ends(self) -> &'a [Time] {
        self.tree.by_end.get_or_init(|| {
            let mut by_end: Vec<Time> = self.by_start.iter().map(|p| p.end).collect();
            for u in self.marked() {
                sort_ends(&mut by_end[u.lo..u.hi]);
            }
            by_end
        })
    }

    /// The subtrees Phase 1 marks in every search of this tree (see the module's
    /// documentation): the right child at each depth down the left children, then the
    /// leftmost leaf.
    fn marked(self) -> impl Iterator<Item = Node> {
        let mut next = self.root();
        std::iter::from_fn(move || {
            let node = next?;
            if node.hi - node.lo == 1 {
                next = None;
                return Some(node);
            }
            let (left, right) = node.children();
            next = Some(left);
            Some(right)
        })
    }

    /// The periods held, in primary order.
    pub(crate) fn periods(self) -> &'a [Period] {
        self.by_start
    }

    /// The servers idle throughout the slot's run.
    pub(crate) fn free(self) -> &'a RangeSet {
        self.tree.free.get_or_init(|| Box::new(RangeSet::from_ids(self.by_start.iter().map(|p| p.id))))
    }

    fn root(self) -> Option<Node> {
        (!self.by_start.is_empty()).then_some(Node { lo: 0, hi: self.by_start.len() })
    }

    /// Phase 1: from the root, the subtrees whose periods all start at or before `s`
    /// (candidates), put in `marked` in the order they are marked; returns how many
    /// periods they hold. The tree's periods all start at or before `s` (its run's
    /// start), so this is the path of [`marked`](Leaves::marked); the paper's walk is
    /// kept, as it is what is counted.
    fn phase1(self, s: Time, marked: &mut Marked, visits: &mut Visits) -> u64 {
        let mut candidates = 0;
        let Some(mut node) = self.root() else { return 0 };
        loop {
            visits.primary += 1;
            if node.hi - node.lo == 1 {
                if self.by_start[node.lo].start <= s {
                    marked.push(node);
                    candidates += 1;
                }
                return candidates;
            }
            let (left, right) = node.children();
            // The median: the earliest start of the left half, no earlier than the right's.
            if self.by_start[node.mid() - 1].start > s {
                node = right;
            } else {
                candidates += (right.hi - right.lo) as u64;
                marked.push(right);
                node = left;
            }
        }
    }

    /// Phase 2 in one marked subtree's secondary tree: counts the periods of the pieces
    /// whose periods all end at or after `e`, stopping once `found` reaches `stop`.
    fn phase2(self, u: Node, e: Time, stop: u64, found: &mut Feasible<'_>, visits: &mut Visits) {
        let ends = self.ends();
        let (mut lo, mut hi) = (u.lo, u.hi);
        while found.count < stop {
            visits.secondary += 1;
            if hi - lo == 1 {
                if ends[lo] >= e {
                    found.count += 1;
                }
                return;
            }
            let mid = (lo + hi) / 2;
            // The median: the latest end of the left half, no later than the right's.
            if ends[mid - 1] >= e {
                found.count += (hi - mid) as u64;
                hi = mid;
            } else {
                lo = mid;
            }
        }
    }

    /// The periods feasible for `[s, e)` (start at or before `s`, end at or after `e`):
    /// Phase 1, then Phase 2 over the marked subtrees in reverse order of marking. With
    /// `stop`, the paper's early exit: `None` as soon as fewer than `need` candidates are
    /// found, and no more searching once `stop` feasible periods are. Without, every
    /// marked subtree is searched, so `count` is exact.
    pub(crate) fn feasible(
        self,
        s: Time,
        e: Time,
        need: u64,
        stop: Option<u64>,
        visits: &mut Visits,
    ) -> Option<Feasible<'a>> {
        let mut marked = Marked::new();
        let candidates = self.phase1(s, &mut marked, visits);
        if candidates < need {
            return None;
        }
        let mut found = Feasible { periods: self.by_start, window: (s, e), count: 0 };
        for &u in marked.iter().rev() {
            self.phase2(u, e, stop.unwrap_or(u64::MAX), &mut found, visits);
        }
        Some(found)
    }

    /// Checks the orders, that every marked subtree's secondary range holds its primary
    /// range's periods, the free set, and the count of periods.
    pub(crate) fn validate(self) -> Result<(), Invalid> {
        let p = self.by_start;
        if let Some(w) = p.windows(2).find(|w| (w[1].start, w[0].id) > (w[0].start, w[1].id) || w[0] == w[1])
        {
            return Err(IdlePeriods::KIND
                .invalid(format!("primary leaves out of descending start order at {:?}, {:?}", w[0], w[1])));
        }
        // Secondary leaves not filled yet have nothing to check: they are filled from
        // the primary leaves checked here.
        if let Some(ends) = self.tree.by_end.get() {
            if ends.len() != p.len() {
                return Err(IdlePeriods::KIND.invalid(format!(
                    "{} secondary leaves for {} periods",
                    ends.len(),
                    p.len()
                )));
            }
            for u in self.marked() {
                self.validate_node(u)?;
            }
        }
        let servers = RangeSet::from_ids(p.iter().map(|q| q.id));
        let free = self.tree.free.get();
        if servers.count() != p.len() as u64 || free.is_some_and(|free| **free != servers) {
            return Err(
                IdlePeriods::KIND.invalid(format!("free set {free:?} for periods {p:?} (one per server)"))
            );
        }
        if self.tree.len != p.len() {
            return Err(IdlePeriods::KIND.invalid(format!(
                "counted {} periods, holds {}",
                self.tree.len,
                p.len()
            )));
        }
        Ok(())
    }

    fn validate_node(self, u: Node) -> Result<(), Invalid> {
        let ends = &self.ends()[u.lo..u.hi];
        let mut own: Vec<Time> = self.by_start[u.lo..u.hi].iter().map(|p| p.end).collect();
        own.sort_unstable();
        if ends != own.as_slice() {
            return Err(IdlePeriods::KIND.invalid(format!(
                "secondary tree of node {u:?} holds {ends:?}, its periods end at {own:?}"
            )));
        }
        Ok(())
    }
}

/// Sorts a marked subtree's ends. They mostly take a few distinct values (periods
/// sharing a start often share their end), in runs: those are counted and written back
/// in order; more than a few are sorted.
fn sort_ends(ends: &mut [Time]) {
    const FEW: usize = 8;
    let (mut seen, mut k) = ([(0, 0); FEW], 0);
    // A run of equal ends is measured in one tight loop, then counted once.
    for run in ends.chunk_by(|a, b| a == b) {
        let t = run[0];
        match seen[..k].iter().position(|d: &(Time, usize)| d.0 == t) {
            Some(i) => seen[i].1 += run.len(),
            None if k < FEW => {
                seen[k] = (t, run.len());
                k += 1;
            }
            None => return ends.sort_unstable(),
        }
    }
    let seen = &mut seen[..k];
    seen.sort_unstable_by_key(|d| d.0);
    let mut at = 0;
    for &(t, n) in seen.iter() {
        ends[at..at + n].fill(t);
        at += n;
    }
}

/// Faults planted on purpose (feature `planted`, for tests only).
#[cfg(feature = "planted")]
impl Tree {
    /// Breaks check `check` of this tree, keeping those [`Leaves::validate`] makes
    /// before it: 0 the primary order, 1 the number of secondary leaves, 2 a marked
    /// subtree's secondary leaves, 3 one period per server, 4 the free set, 5 the count
    /// of periods; and 6 the periods held, which
    /// [`Runs::validate`](super::runs::Runs::validate) checks after. The leaves broken
    /// are the ones read, made by `make` first; the place is the `pick`-th (modulo their
    /// number). False if this tree has none.
    pub(super) fn corrupt(&mut self, check: usize, pick: u64, make: impl FnOnce() -> Vec<Period>) -> bool {
        self.read(make);
        let Some(leaves) = self.by_start.get_mut() else { return false };
        let m = leaves.len();
        let nth = |places: usize| (pick % places as u64) as usize;
        match check {
            // Two neighbours swapped. The caches go: they are filled from the order.
            0 if m >= 2 => {
                leaves.swap(nth(m - 1), nth(m - 1) + 1);
                self.forget();
            }
            // A leaf past the last level, which no node reads.
            1 => {
                let ends = [self.read(Vec::new).ends(), &[0]].concat();
                self.by_end = OnceLock::from(ends);
            }
            // Another end in the secondary tree of the marked subtree holding leaf `nth(m)`.
            2 if m >= 1 => {
                let mut ends = self.read(Vec::new).ends().to_vec();
                ends[nth(m)] ^= 1;
                self.by_end = OnceLock::from(ends);
            }
            // A second period of a server, ending earlier: in primary order right after
            // the first, and not equal to it (and counted).
            3 if m >= 1 => {
                let p = leaves[nth(m)];
                leaves.insert(nth(m) + 1, Period { end: p.end - 1, ..p });
                self.len += 1;
                self.forget();
            }
            // The free set one server short, or holding one for an empty tree.
            4 => {
                let leaves = self.read(Vec::new);
                let free = match leaves.periods().get(nth(m.max(1))) {
                    Some(p) => leaves.free().subtract(&RangeSet::from_ids([p.id])),
                    None => RangeSet::from_ids([0]),
                };
                self.free = OnceLock::from(Box::new(free));
            }
            // One period too many counted.
            5 => self.len += 1,
            // A period lost (and not counted), the rest in order.
            6 if m >= 1 => {
                leaves.remove(nth(m));
                self.len -= 1;
                self.forget();
            }
            _ => return false,
        }
        true
    }

    /// Drops the secondary leaves and the free set, to be made again when read.
    fn forget(&mut self) {
        self.by_end = OnceLock::new();
        self.free = OnceLock::new();
    }
}
