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
