//! Hanson & Johnson's interval skip list (1996): a skip list of interval endpoints whose
//! edges carry markers. An interval is marked on a chain of edges from its start to its
//! end, each as high as the interval contains it, so a stabbing search finds every
//! interval holding a point on the markers of the edges it walks along.
//!
//! Intervals are half-open, `[start, end)`, and an edge `x -> y` spans `[x, y)`, so the
//! marked edges of an interval partition it and a point lies in exactly one of them: the
//! node markers the closed-interval original needs for endpoints are not needed. When a
//! node is inserted or removed, the intervals marked on the edges it splits or joins are
//! unmarked and marked again (the original adjusts them in place); the others keep
//! their markers, which stay correct, though no longer always maximal.

use super::Reservations;
use crate::shell::Engine;
#[cfg(feature = "planted")]
use crate::shell::{planted::nth, Basis};
use crate::{Invalid, RangeSet, Time};

/// Levels of the head; a node's height is at most this.
const MAX_LEVEL: usize = 32;
const HEAD: usize = 0;

#[derive(Debug, Clone)]
struct Node {
    key: Time,
    /// Per level, the next node, and the intervals marked on the edge to it.
    next: Vec<Option<usize>>,
    markers: Vec<Vec<usize>>,
    /// Intervals that start here.
    starts: Vec<usize>,
    /// Interval endpoints here; a node without any is removed.
    owners: u32,
}

/// A reservation: `ids` busy over `[start, end)`, and the edges it is marked on.
#[derive(Debug, Clone)]
pub(crate) struct Interval {
    pub(crate) start: Time,
    pub(crate) end: Time,
    pub(crate) ids: RangeSet,
    edges: Vec<(usize, usize)>,
}

/// The skip list, its nodes and intervals in arenas.
#[derive(Debug, Clone)]
pub(crate) struct List {
    nodes: Vec<Node>,
    spare_nodes: Vec<usize>,
    intervals: Vec<Option<Interval>>,
    spare_intervals: Vec<usize>,
    /// Markers on all edges.
    marked: u64,
}

/// Puts `item` in `arena` at a spare index if there is one, else at the end; its index.
fn put<T>(arena: &mut Vec<T>, spare: &mut Vec<usize>, item: T) -> usize {
    match spare.pop() {
        Some(i) => {
            arena[i] = item;
            i
        }
        None => {
            arena.push(item);
            arena.len() - 1
        }
    }
}

/// A node's height: 1 plus the trailing zeros of a hash of its key (p = 1/2), so the
/// list's shape depends only on the keys it holds and runs are reproducible.
fn height(key: Time) -> usize {
    let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z.trailing_zeros() as usize + 1).min(MAX_LEVEL)
}

impl List {
    pub(crate) fn new() -> Self {
        let head = Node {
            key: 0,
            next: vec![None; MAX_LEVEL],
            markers: vec![Vec::new(); MAX_LEVEL],
            starts: Vec::new(),
            owners: 0,
        };
        Self {
            nodes: vec![head],
            spare_nodes: Vec::new(),
            intervals: Vec::new(),
            spare_intervals: Vec::new(),
            marked: 0,
        }
    }

    pub(crate) fn nodes(&self) -> usize {
        self.nodes.len() - 1 - self.spare_nodes.len()
    }

    /// Live intervals.
    pub(crate) fn len(&self) -> usize {
        self.intervals.len() - self.spare_intervals.len()
    }

    pub(crate) fn interval(&self, i: usize) -> &Interval {
        self.intervals[i].as_ref().expect("a live interval")
    }

    /// For each level, the last node before `t` (the head if none).
    fn preds(&self, t: Time) -> [usize; MAX_LEVEL] {
        let mut preds = [HEAD; MAX_LEVEL];
        let mut x = HEAD;
        for level in (0..MAX_LEVEL).rev() {
            while let Some(y) = self.nodes[x].next[level].filter(|&y| self.nodes[y].key < t) {
                x = y;
            }
            preds[level] = x;
        }
        preds
    }

    fn find(&self, t: Time) -> Option<usize> {
        let before = self.preds(t)[0];
        self.nodes[before].next[0].filter(|&y| self.nodes[y].key == t)
    }

    /// Whether the edge from `x` at `level` lies inside `[start, end)`.
    fn inside(&self, x: usize, level: usize, start: Time, end: Time) -> bool {
        x != HEAD
            && self.nodes[x].key >= start
            && self.nodes[x].next[level].is_some_and(|y| self.nodes[y].key <= end)
    }

    /// Marks interval `i` from its start node to its end node, each edge the highest one
    /// from its node that the interval contains.
    fn place(&mut self, i: usize) {
        let (start, end) = (self.interval(i).start, self.interval(i).end);
        let mut x = self.find(start).expect("the start node exists");
        let mut edges = Vec::new();
        while self.nodes[x].key < end {
            let level = (0..self.nodes[x].next.len())
                .rev()
                .find(|&l| self.inside(x, l, start, end))
                .expect("the edge to the next node lies inside");
            self.nodes[x].markers[level].push(i);
            edges.push((x, level));
            x = self.nodes[x].next[level].expect("inside edges have an end");
        }
        self.marked += edges.len() as u64;
        self.intervals[i].as_mut().expect("a live interval").edges = edges;
    }

    fn unplace(&mut self, i: usize) {
        let edges = std::mem::take(&mut self.intervals[i].as_mut().expect("a live interval").edges);
        self.marked -= edges.len() as u64;
        for (x, level) in edges {
            let markers = &mut self.nodes[x].markers[level];
            let at = markers.iter().position(|&m| m == i).expect("marked where it says");
            markers.swap_remove(at);
        }
    }

    /// Unmarks every interval marked on the given edges, and returns them.
    fn unplace_on(&mut self, edges: impl IntoIterator<Item = (usize, usize)>) -> Vec<usize> {
        let mut hit: Vec<usize> =
            edges.into_iter().flat_map(|(x, l)| self.nodes[x].markers[l].clone()).collect();
        hit.sort_unstable();
        hit.dedup();
        hit.iter().for_each(|&i| self.unplace(i));
        hit
    }

    /// The node holding `t`, inserted if there is none.
    fn node(&mut self, t: Time) -> usize {
        let preds = self.preds(t);
        if let Some(y) = self.nodes[preds[0]].next[0].filter(|&y| self.nodes[y].key == t) {
            return y;
        }
        let h = height(t);
        let split = self.unplace_on((0..h).map(|l| (preds[l], l)));
        let next = (0..h).map(|l| self.nodes[preds[l]].next[l]).collect();
        let node = Node { key: t, next, markers: vec![Vec::new(); h], starts: Vec::new(), owners: 0 };
        let x = put(&mut self.nodes, &mut self.spare_nodes, node);
        for (l, &p) in preds.iter().enumerate().take(h) {
            self.nodes[p].next[l] = Some(x);
        }
        split.into_iter().for_each(|i| self.place(i));
        x
    }

    /// Removes node `x`, which no interval starts or ends at.
    fn remove_node(&mut self, x: usize) {
        let preds = self.preds(self.nodes[x].key);
        let h = self.nodes[x].next.len();
        let joined = self.unplace_on((0..h).flat_map(|l| [(preds[l], l), (x, l)]));
        for (l, &p) in preds.iter().enumerate().take(h) {
            self.nodes[p].next[l] = self.nodes[x].next[l];
        }
        self.nodes[x].next.clear();
        self.spare_nodes.push(x);
        joined.into_iter().for_each(|i| self.place(i));
    }

    /// Adds `ids` busy over `[start, end)`.
    pub(crate) fn insert(&mut self, start: Time, end: Time, ids: RangeSet) {
        let (a, b) = (self.node(start), self.node(end));
        self.nodes[a].owners += 1;
        self.nodes[b].owners += 1;
        let interval = Some(Interval { start, end, ids, edges: Vec::new() });
        let i = put(&mut self.intervals, &mut self.spare_intervals, interval);
        self.nodes[a].starts.push(i);
        self.place(i);
    }

    /// Removes interval `i`, and its endpoint nodes if nothing else needs them.
    pub(crate) fn remove(&mut self, i: usize) -> Interval {
        self.unplace(i);
        let interval = self.intervals[i].take().expect("a live interval");
        self.spare_intervals.push(i);
        let a = self.find(interval.start).expect("the start node exists");
        let at = self.nodes[a].starts.iter().position(|&s| s == i).expect("listed at its start");
        self.nodes[a].starts.swap_remove(at);
        for t in [interval.start, interval.end] {
            let x = self.find(t).expect("endpoint nodes exist");
            self.nodes[x].owners -= 1;
            if self.nodes[x].owners == 0 {
                self.remove_node(x);
            }
        }
        interval
    }

    /// The intervals that overlap `[s, e)`: those holding `s`, found by a stabbing search
    /// on the markers of the edges it walks along, then those starting inside, found by
    /// walking the bottom level. `visit` sees each in turn and stops the walk by
    /// returning `false`. Counts skip-list nodes and markers examined in `visited`.
    pub(crate) fn overlapping(
        &self,
        s: Time,
        e: Time,
        visited: &mut u64,
        mut visit: impl FnMut(usize) -> bool,
    ) {
        let mut x = HEAD;
        for level in (0..MAX_LEVEL).rev() {
            while let Some(y) = self.nodes[x].next[level].filter(|&y| self.nodes[y].key <= s) {
                x = y;
                *visited += 1;
            }
            if x != HEAD {
                for &i in self.nodes[x].markers.get(level).into_iter().flatten() {
                    *visited += 1;
                    if !visit(i) {
                        return;
                    }
                }
            }
        }
        let mut next = if x == HEAD { self.nodes[HEAD].next[0] } else { self.nodes[x].next[0] };
        while let Some(y) = next.filter(|&y| self.nodes[y].key < e) {
            *visited += 1;
            for &i in self.nodes[y].starts.iter().filter(|_| self.nodes[y].key > s) {
                *visited += 1;
                if !visit(i) {
                    return;
                }
            }
            next = self.nodes[y].next[0];
        }
        // A start at `s` itself: the stabbing search found it on a marker already.
    }

    /// Node keys after `t`, in order.
    pub(crate) fn keys_after(&self, t: Time) -> impl Iterator<Item = Time> + '_ {
        let first = self.nodes[self.preds(t.saturating_add(1))[0]].next[0];
        std::iter::successors(first, move |&y| self.nodes[y].next[0]).map(move |y| self.nodes[y].key)
    }

    /// Live intervals.
    pub(crate) fn intervals(&self) -> impl Iterator<Item = (usize, &Interval)> {
        self.intervals.iter().enumerate().filter_map(|(i, v)| v.as_ref().map(|v| (i, v)))
    }

    /// Markers on all edges: with the nodes and intervals, a bound on what any search
    /// can examine.
    pub(crate) fn markers(&self) -> u64 {
        self.marked
    }

    /// The intervals that end at or before `now`: all start at nodes before it.
    pub(crate) fn ended(&self, now: Time) -> Vec<usize> {
        let nodes = std::iter::successors(self.nodes[HEAD].next[0], |&y| self.nodes[y].next[0]);
        let before = nodes.take_while(|&y| self.nodes[y].key < now);
        before
            .flat_map(|y| self.nodes[y].starts.iter().copied())
            .filter(|&i| self.interval(i).end <= now)
            .collect()
    }

    /// Checks the levels (sorted, each a sub-list of the one below), endpoint counts,
    /// start lists, and that each interval's markers form a chain of edges inside it from
    /// its start to its end, recorded on exactly those edges.
    pub(crate) fn validate(&self) -> Result<(), Invalid> {
        let live: Vec<usize> =
            std::iter::successors(self.nodes[HEAD].next[0], |&y| self.nodes[y].next[0]).collect();
        if live.len() != self.nodes() {
            return Err(Reservations::KIND.invalid(format!(
                "{} nodes on the bottom level, {} allocated",
                live.len(),
                self.nodes()
            )));
        }
        for level in 0..MAX_LEVEL {
            let mut x = HEAD;
            let mut below = live.iter();
            while let Some(y) = self.nodes[x].next[level] {
                if self.nodes[y].next.len() <= level || (x != HEAD && self.nodes[x].key >= self.nodes[y].key)
                {
                    return Err(Reservations::KIND.invalid(format!(
                        "level {level}: node {} after {} out of order or too short",
                        self.nodes[y].key, self.nodes[x].key
                    )));
                }
                if !below.any(|&z| z == y) {
                    return Err(Reservations::KIND
                        .invalid(format!("level {level}: node {} is missing below", self.nodes[y].key)));
                }
                x = y;
            }
        }
        let mut owners = vec![0u32; self.nodes.len()];
        let mut marked = 0;
        for (i, v) in self.intervals() {
            let (Some(a), Some(b)) = (self.find(v.start), self.find(v.end)) else {
                return Err(Reservations::KIND
                    .invalid(format!("interval {i} [{}, {}): an endpoint node is missing", v.start, v.end)));
            };
            owners[a] += 1;
            owners[b] += 1;
            if v.start >= v.end || v.ids.is_empty() || !self.nodes[a].starts.contains(&i) {
                return Err(Reservations::KIND.invalid(format!(
                    "interval {i} [{}, {}) {}: empty, or not listed at its start",
                    v.start, v.end, v.ids
                )));
            }
            let mut x = a;
            for &(y, level) in &v.edges {
                if y != x
                    || !self.inside(y, level, v.start, v.end)
                    || !self.nodes[y].markers[level].contains(&i)
                {
                    return Err(Reservations::KIND.invalid(format!(
                        "interval {i} [{}, {}): marker on edge from {} at level {level} breaks the chain",
                        v.start, v.end, self.nodes[y].key
                    )));
                }
                x = self.nodes[y].next[level].expect("inside edges have an end");
            }
            if x != b {
                return Err(Reservations::KIND.invalid(format!(
                    "interval {i} [{}, {}): its markers stop at {}",
                    v.start, v.end, self.nodes[x].key
                )));
            }
            marked += v.edges.len();
        }
        let on_edges: usize = live.iter().flat_map(|&y| &self.nodes[y].markers).map(Vec::len).sum();
        if on_edges != marked
            || marked as u64 != self.marked
            || self.nodes[HEAD].markers.iter().any(|m| !m.is_empty())
        {
            return Err(Reservations::KIND
                .invalid(format!("{on_edges} markers on edges, the intervals record {marked}")));
        }
        if let Some(&y) = live.iter().find(|&&y| owners[y] != self.nodes[y].owners || owners[y] == 0) {
            return Err(Reservations::KIND.invalid(format!(
                "node {}: {} endpoints counted, {} there",
                self.nodes[y].key, self.nodes[y].owners, owners[y]
            )));
        }
        Ok(())
    }
}

/// Faults planted on purpose (feature `planted`, for tests only).
#[cfg(feature = "planted")]
impl List {
    /// How many checks [`List::validate`] makes that [`List::corrupt`] breaks.
    pub(super) const CHECKS: usize = 17;

    /// Breaks check `check` of [`List::validate`] (counted in its order), keeping those
    /// before it, at the `pick`-th place the list has for it; false if it has none. An
    /// empty interval planted holds `at.full` and sits after `at.now`.
    pub(super) fn corrupt(&mut self, at: &Basis, check: usize, pick: u64) -> bool {
        let live: Vec<usize> =
            std::iter::successors(self.nodes[HEAD].next[0], |&y| self.nodes[y].next[0]).collect();
        let intervals: Vec<usize> = self.intervals().map(|(i, _)| i).collect();
        // Every marked edge, as an interval and the edge's place in its chain.
        let edges: Vec<(usize, usize)> =
            self.intervals().flat_map(|(i, v)| (0..v.edges.len()).map(move |j| (i, j))).collect();
        let key = |y: usize| self.nodes[y].key;
        // Times no node holds: one after a key.
        let keys: Vec<Time> = live.iter().map(|&y| key(y)).collect();
        let unused: Vec<Time> = keys
            .iter()
            .filter_map(|&k| k.checked_add(1))
            .filter(|t| keys.binary_search(t).is_err())
            .collect();
        let edge = |(i, j): (usize, usize)| self.interval(i).edges[j];
        match check {
            // A node allocated but linked nowhere.
            0 => self.nodes.push(Node {
                key: 0,
                next: vec![None],
                markers: vec![Vec::new()],
                starts: Vec::new(),
                owners: 0,
            }),
            // A node one level lower, still linked on the level it lost.
            1 => {
                let tall: Vec<usize> = live.into_iter().filter(|&y| self.nodes[y].next.len() > 1).collect();
                let Some(y) = nth(&tall, pick) else { return false };
                self.nodes[y].next.pop();
                self.nodes[y].markers.pop();
            }
            // A node keyed as the one before it.
            2 => {
                let pairs: Vec<(usize, usize)> = live.windows(2).map(|w| (w[0], w[1])).collect();
                let Some((x, y)) = nth(&pairs, pick) else { return false };
                self.nodes[y].key = key(x);
            }
            // A freed node still linked on a level above the bottom one, after the last
            // node there: no search or edge reaches it.
            3 => {
                let Some(after_last) = keys.last().map_or(Some(1), |k| k.checked_add(1)) else {
                    return false;
                };
                let level = 1 + (pick % (MAX_LEVEL as u64 - 1)) as usize;
                let mut x = HEAD;
                while let Some(y) = self.nodes[x].next[level] {
                    x = y;
                }
                let node = Node {
                    key: after_last,
                    next: vec![None; level + 1],
                    markers: vec![Vec::new(); level + 1],
                    starts: Vec::new(),
                    owners: 0,
                };
                self.nodes.push(node);
                self.spare_nodes.push(self.nodes.len() - 1);
                self.nodes[x].next[level] = Some(self.nodes.len() - 1);
            }
            // An interval ending where no node is.
            4 => {
                let (Some(i), Some(t)) = (nth(&intervals, pick), nth(&unused, pick)) else { return false };
                self.intervals[i].as_mut().expect("a live interval").end = t;
            }
            // An empty interval, marked nowhere, at a node after now.
            5 => {
                let later: Vec<usize> = live.into_iter().filter(|&y| key(y) > at.now).collect();
                let Some(a) = nth(&later, pick) else { return false };
                let (t, ids) = (key(a), at.full.clone());
                let interval = Some(Interval { start: t, end: t, ids, edges: Vec::new() });
                let i = put(&mut self.intervals, &mut self.spare_intervals, interval);
                self.nodes[a].starts.push(i);
                self.nodes[a].owners += 2;
            }
            // An interval holding no id.
            6 => {
                let Some(i) = nth(&intervals, pick) else { return false };
                self.intervals[i].as_mut().expect("a live interval").ids = RangeSet::new();
            }
            // An interval missing from its start node's list.
            7 => {
                let Some(i) = nth(&intervals, pick) else { return false };
                let a = self.find(self.interval(i).start).expect("the start node exists");
                self.nodes[a].starts.retain(|&s| s != i);
            }
            // An edge of the chain but the last dropped, with its marker: the next one
            // starts where the dropped one did.
            8 => {
                let inner: Vec<_> =
                    edges.into_iter().filter(|&(i, j)| j + 1 < self.interval(i).edges.len()).collect();
                let Some((i, j)) = nth(&inner, pick) else { return false };
                self.drop_edge(i, j);
            }
            // An edge moved up to a level its node has no successor on.
            9 => {
                let top = |(y, _): (usize, usize)| self.nodes[y].next.iter().position(Option::is_none);
                let open: Vec<_> = edges.into_iter().filter(|&e| top(edge(e)).is_some()).collect();
                let Some((i, j)) = nth(&open, pick) else { return false };
                let (y, level) = edge((i, j));
                let up = top((y, level)).expect("filtered");
                self.unmark(y, level, i);
                self.nodes[y].markers[up].push(i);
                self.intervals[i].as_mut().expect("a live interval").edges[j] = (y, up);
            }
            // A marker moved off its edge onto the bottom edge of the next node: the
            // count on the edges stays.
            10 => {
                let Some((i, j)) = nth(&edges, pick) else { return false };
                let (y, level) = edge((i, j));
                let z = self.nodes[y].next[0].expect("a marked edge has an end");
                self.unmark(y, level, i);
                self.nodes[z].markers[0].push(i);
            }
            // The last edge of a chain dropped, with its marker.
            11 => {
                let Some(i) = nth(&intervals, pick) else { return false };
                self.drop_edge(i, self.interval(i).edges.len() - 1);
            }
            // A marker on an edge that no interval records.
            12 => {
                let Some(y) = nth(&live, pick) else { return false };
                self.nodes[y].markers[0].push(0);
            }
            // The marker count one too high.
            13 => self.marked += 1,
            // A marker on the head.
            14 => self.nodes[HEAD].markers[(pick % MAX_LEVEL as u64) as usize].push(0),
            // A node counting one endpoint too many.
            15 => {
                let Some(y) = nth(&live, pick) else { return false };
                self.nodes[y].owners += 1;
            }
            // A node that no interval starts or ends at, one after a key.
            16 => {
                let Some(t) = nth(&unused, pick) else { return false };
                self.node(t);
            }
            _ => return false,
        }
        true
    }

    /// Drops edge `j` of interval `i` and its marker.
    fn drop_edge(&mut self, i: usize, j: usize) {
        let (y, level) = self.intervals[i].as_mut().expect("a live interval").edges.remove(j);
        self.unmark(y, level, i);
        self.marked -= 1;
    }

    /// Takes interval `i`'s marker off the edge from `y` at `level`.
    fn unmark(&mut self, y: usize, level: usize, i: usize) {
        let markers = &mut self.nodes[y].markers[level];
        let at = markers.iter().position(|&m| m == i).expect("marked where it says");
        markers.swap_remove(at);
    }
}
