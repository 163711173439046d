//! The tree itself, over physical slot positions `0..q`, laid out in one vector: the node
//! for `[lo, hi)` has its left child (`[lo, mid)`) right after it and its right child
//! (`[mid, hi)`) `2 (mid - lo)` places after it, so `2q - 1` nodes in all.
//!
//! Updates push tags down the paths they take; queries take `&self`, so they carry the
//! tags pending above a node down with them instead.

use super::node::{below, Agg, Node, Tag};
use super::SlotTree;
#[cfg(feature = "planted")]
use crate::shell::Basis;
use crate::shell::Engine;
use crate::{Invalid, RangeSet};

/// A node's position and the physical slots it covers.
#[derive(Clone, Copy)]
struct At {
    node: usize,
    lo: usize,
    hi: usize,
}

impl At {
    fn leaf(self) -> bool {
        self.hi - self.lo == 1
    }

    fn children(self) -> (At, At) {
        let mid = (self.lo + self.hi) / 2;
        (
            At { node: self.node + 1, lo: self.lo, hi: mid },
            At { node: self.node + 2 * (mid - self.lo), lo: mid, hi: self.hi },
        )
    }

    fn within(self, a: usize, b: usize) -> bool {
        a <= self.lo && self.hi <= b
    }

    fn meets(self, a: usize, b: usize) -> bool {
        self.lo < b && a < self.hi
    }
}

/// A segment tree of slot free sets with lazy range updates.
#[derive(Debug, Clone)]
pub(super) struct Tree {
    nodes: Vec<Node>,
    q: usize,
}

impl Tree {
    /// `q >= 1` slots, each with free set `free`.
    pub(super) fn new(q: usize, free: &RangeSet) -> Self {
        let node = Node { agg: Agg::slot(free.clone()), tag: None };
        Self { nodes: vec![node; 2 * q - 1], q }
    }

    fn root(&self) -> At {
        At { node: 0, lo: 0, hi: self.q }
    }

    /// Node levels from the root to the deepest leaf: `ceil(log2 q) + 1`.
    pub(super) fn levels(&self) -> u64 {
        u64::from(usize::BITS - (self.q - 1).leading_zeros()) + 1
    }

    /// Folds the slots `[a, b)` into `acc`, stopping once fewer than `n` ids are free in
    /// all of them; counts the nodes entered (at most 4 a level).
    pub(super) fn fold(&self, a: usize, b: usize, n: u64, acc: &mut Option<Agg>, visited: &mut u64) {
        self.fold_at(self.root(), a, b, None, n, acc, visited);
    }

    #[allow(clippy::too_many_arguments)] // one recursion's state; a struct would only rename it
    fn fold_at(
        &self,
        at: At,
        a: usize,
        b: usize,
        pending: Option<&Tag>,
        n: u64,
        acc: &mut Option<Agg>,
        visited: &mut u64,
    ) {
        if acc.as_ref().is_some_and(|acc| acc.all.count() < n) {
            return;
        }
        *visited += 1;
        let node = &self.nodes[at.node];
        if at.within(a, b) {
            let seen = node.agg.seen(pending);
            *acc = Some(match acc.take() {
                None => seen.into_owned(),
                Some(acc) => acc.join(&seen),
            });
            return;
        }
        let pending = below(pending, node.tag.as_ref());
        let (left, right) = at.children();
        for child in [left, right] {
            if child.meets(a, b) {
                self.fold_at(child, a, b, pending.as_deref(), n, acc, visited);
            }
        }
    }

    /// The last slot of `[a, b)` with fewer than `n` free, skipping every subtree whose
    /// minimum is at least `n`; counts the nodes entered (at most 6 a level: the range's
    /// 4, and 2 for the one descent inside the range that finds the slot).
    pub(super) fn last_below(&self, a: usize, b: usize, n: u64, visited: &mut u64) -> Option<usize> {
        self.find_at::<true>(self.root(), a, b, None, &|_, seen| seen.min >= n, visited)
    }

    /// The first slot of `[a, b)` whose free set is not `set`, skipping every subtree
    /// whose slots all hold `set` (its intersection and union are both `set`); counts the
    /// nodes entered (at most 6 a level: the range's 2 boundaries and 2 whole subtrees
    /// beside them, and a descent's 2).
    pub(super) fn first_unlike(
        &self,
        a: usize,
        b: usize,
        set: &RangeSet,
        visited: &mut u64,
    ) -> Option<usize> {
        let alike = |at: At, seen: &Agg| at.within(a, b) && seen.all == *set && seen.any == *set;
        self.find_at::<false>(self.root(), a, b, None, &alike, visited)
    }

    /// The slot of `[a, b)` nearest its start (or its end, when `LAST`) under no subtree
    /// that `skip(at, aggregate)` passes over; counts the nodes entered. One walk serves
    /// both searches; the order is a const parameter so that each is compiled with it fixed.
    fn find_at<const LAST: bool>(
        &self,
        at: At,
        a: usize,
        b: usize,
        pending: Option<&Tag>,
        skip: &impl Fn(At, &Agg) -> bool,
        visited: &mut u64,
    ) -> Option<usize> {
        *visited += 1;
        let node = &self.nodes[at.node];
        if skip(at, &node.agg.seen(pending)) {
            return None;
        }
        if at.leaf() {
            return Some(at.lo);
        }
        let pending = below(pending, node.tag.as_ref());
        let (left, right) = at.children();
        let order = if LAST { [right, left] } else { [left, right] };
        order
            .into_iter()
            .filter(|child| child.meets(a, b))
            .find_map(|child| self.find_at::<LAST>(child, a, b, pending.as_deref(), skip, visited))
    }

    /// Applies `tag` to the slots `[a, b)`.
    pub(super) fn modify(&mut self, a: usize, b: usize, tag: &Tag) {
        self.modify_at(self.root(), a, b, tag);
    }

    fn modify_at(&mut self, at: At, a: usize, b: usize, tag: &Tag) {
        if at.within(a, b) {
            self.nodes[at.node].receive(tag, at.leaf());
            return;
        }
        let (left, right) = at.children();
        if let Some(pushed) = self.nodes[at.node].tag.take() {
            self.nodes[left.node].receive(&pushed, left.leaf());
            self.nodes[right.node].receive(&pushed, right.leaf());
        }
        for child in [left, right] {
            if child.meets(a, b) {
                self.modify_at(child, a, b, tag);
            }
        }
        self.nodes[at.node].agg = self.nodes[left.node].agg.join(&self.nodes[right.node].agg);
    }

    /// The free sets of the slots `[a, b)` in order, as runs: `emit(offset, set)` for each
    /// run, `offset` counted from `a`. A subtree whose slots all hold one set (its
    /// intersection is its union) is one run, so a stretch of equal slots costs the nodes
    /// covering it rather than a visit to each leaf.
    pub(super) fn runs(&self, a: usize, b: usize, emit: &mut impl FnMut(usize, RangeSet)) {
        self.runs_at(self.root(), a, b, None, emit);
    }

    fn runs_at(
        &self,
        at: At,
        a: usize,
        b: usize,
        pending: Option<&Tag>,
        emit: &mut impl FnMut(usize, RangeSet),
    ) {
        let node = &self.nodes[at.node];
        let seen = node.agg.seen(pending);
        if at.leaf() || seen.all == seen.any {
            emit(at.lo.max(a) - a, seen.all.clone());
            return;
        }
        let pending = below(pending, node.tag.as_ref());
        let (left, right) = at.children();
        for child in [left, right] {
            if child.meets(a, b) {
                self.runs_at(child, a, b, pending.as_deref(), emit);
            }
        }
    }

    /// Checks every aggregate against its children's, and every slot's count against its
    /// set (`full` bounds the ids).
    ///
    /// # Errors
    /// The physical slots of the first node whose aggregate is wrong.
    pub(super) fn validate(&self, full: &RangeSet) -> Result<(), Invalid> {
        self.validate_at(self.root(), None, full).map(|_| ())
    }

    fn validate_at(&self, at: At, pending: Option<&Tag>, full: &RangeSet) -> Result<Agg, Invalid> {
        let node = &self.nodes[at.node];
        let seen = node.agg.seen(pending).into_owned();
        if at.leaf() {
            if node.tag.is_some() {
                return Err(SlotTree::KIND.invalid(format!("leaf {} holds a tag", at.lo)));
            }
            if seen.min != seen.all.count() || seen.all != seen.any || !seen.all.is_subset(full) {
                return Err(
                    SlotTree::KIND.invalid(format!("leaf {} holds {seen:?}, not one slot's free set", at.lo))
                );
            }
            return Ok(seen);
        }
        let pending = below(pending, node.tag.as_ref());
        let (left, right) = at.children();
        let joined = self.validate_at(left, pending.as_deref(), full)?.join(&self.validate_at(
            right,
            pending.as_deref(),
            full,
        )?);
        if joined != seen {
            return Err(SlotTree::KIND.invalid(format!(
                "node over slots [{}, {}) holds {seen:?}, its children make {joined:?}",
                at.lo, at.hi
            )));
        }
        Ok(seen)
    }
}

/// Invariants broken on purpose (feature `planted`). Each change breaks its invariant
/// alone, so that `validate` refuses it even with any other check taken out.
#[cfg(feature = "planted")]
impl Tree {
    /// Pushes every tag down to the leaves: the same slots, and every stored aggregate is
    /// the one `validate` sees, so a change to one shows.
    fn push_all(&mut self, at: At) {
        if at.leaf() {
            return;
        }
        let (left, right) = at.children();
        if let Some(pushed) = self.nodes[at.node].tag.take() {
            self.nodes[left.node].receive(&pushed, left.leaf());
            self.nodes[right.node].receive(&pushed, right.leaf());
        }
        self.push_all(left);
        self.push_all(right);
    }

    /// Recomputes every aggregate above the leaves (once no tag is left).
    fn rejoin(&mut self, at: At) -> Agg {
        if !at.leaf() {
            let (left, right) = at.children();
            self.nodes[at.node].agg = self.rejoin(left).join(&self.rejoin(right));
        }
        self.nodes[at.node].agg.clone()
    }

    /// Every node under `at`, `at` first.
    fn under(&self, at: At, out: &mut Vec<At>) {
        out.push(at);
        if !at.leaf() {
            let (left, right) = at.children();
            self.under(left, out);
            self.under(right, out);
        }
    }

    /// Breaks the tree's invariant `invariant` (`SlotTree`'s `INVARIANTS` from the third)
    /// at the `pick`-th place for it; whether there was one. A leaf is changed under
    /// aggregates rejoined above it, so that only the leaf is wrong.
    pub(super) fn plant(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        self.push_all(self.root());
        let mut nodes = Vec::new();
        self.under(self.root(), &mut nodes);
        let (leaves, inner): (Vec<At>, Vec<At>) = nodes.into_iter().partition(|at| at.leaf());
        let places = if invariant == 4 { inner } else { leaves };
        let Some(node) = places.get((pick % places.len().max(1) as u64) as usize).map(|p| p.node) else {
            return false;
        };
        let agg = &mut self.nodes[node].agg;
        match invariant {
            // No check but this one reads a leaf's own tag.
            0 => self.nodes[node].tag = Some(Tag::Assign(agg.all.clone())),
            1 => agg.min += 1,
            // `any` unlike `all`; `min` still `all`'s size.
            2 => agg.any = if agg.any.is_empty() { at.full.clone() } else { RangeSet::new() },
            // The id past the capacity, in all three sets.
            3 => {
                let Some(beyond) = at.capacity.checked_add(1) else { return false };
                *agg = Agg::slot(agg.all.union(&RangeSet::from_range(at.capacity, beyond)));
            }
            // An inner node's: its parent's check, if any, sees the change too.
            4 => agg.min += 1,
            _ => return false,
        }
        if invariant != 4 {
            self.rejoin(self.root());
        }
        true
    }
}
