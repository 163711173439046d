//! rbtree-availability-profile's container: a red-black tree (CLRS insert and delete fix-ups) in an arena of
//! nodes with parent links, threaded in key order by a doubly linked list for the forward
//! walk. Each node also keeps its subtree size (CLRS 14.1), so the worst case of a call
//! (entries from the anchor to the end) costs O(log n) to account for, and a
//! [`Summary`] of its subtree: nothing for the paper's tree, the free counts for the
//! tree that skips (`augtree`).

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt;

use super::Store;
use crate::{Invalid, Kind, RangeSet, Time};

/// What a node keeps about its subtree besides its size (CLRS 14.2's augmentation).
pub trait Summary: Copy + Default + PartialEq + fmt::Debug {
    /// The registry entry of the profile on a tree with this summary.
    const KIND: Kind;
    /// Whether there is anything to keep (`false` compiles the upkeep out).
    const ACTIVE: bool;
    /// What a node keeps about its own entry's free set.
    type Own: Copy + Default + PartialEq + fmt::Debug;
    /// The part of an entry's summary that depends on its free set.
    fn own(free: &RangeSet) -> Self::Own;
    /// A subtree's summary from its root's key, own part and children's summaries.
    /// `Default` is the empty subtree's. It must depend on the entries alone, not on the
    /// tree's shape, because a rotation moves a summary to another root.
    fn join(key: Time, own: Self::Own, left: &Self, right: &Self) -> Self;
    /// This stretch followed by one entry after it: `join` with an empty right, which
    /// rebuilds a small subtree's summary entry by entry.
    fn push(&mut self, key: Time, own: Self::Own) {
        *self = Self::join(key, own, self, &Self::default());
    }
    /// Whether an entry whose own part goes from `old` to `new` may change a summary:
    /// where it cannot, an update leaves the summaries above it as they are.
    fn differs(old: Self::Own, new: Self::Own) -> bool {
        old != new
    }
    /// The fewest entries a subtree has for its summary to be kept. A smaller subtree's
    /// is rebuilt from its entries when read, at most `KEPT_FROM - 1` pushes; most
    /// subtrees are small, so this keeps most summaries out of memory.
    const KEPT_FROM: u32 = 1;
    /// This stretch with its first entry's key moved to `key`, which is still below
    /// its second entry's, if that can be done in place; `false` where the summary is
    /// to be recomputed (left as it was or not). `advance` moves the first entry of
    /// every subtree on the left spine at almost every call.
    fn rekey_first(&mut self, key: Time) -> bool {
        let _ = key;
        false
    }
    /// The first entry at or after node `x` that may start a window of `duration` with
    /// at least `n` free ids throughout, judged from the summaries alone; `None` if none
    /// can. It may answer too early, never too late. Adds the nodes visited to `steps`.
    fn seek(tree: Summed<'_, Self>, x: u32, n: u64, duration: Time, steps: &mut u64) -> Option<u32> {
        let _ = (tree, n, duration, steps);
        Some(x)
    }
}

/// rbtree-availability-profile's tree keeps no summary.
impl Summary for () {
    const KIND: Kind = Kind::RbTree;
    const ACTIVE: bool = false;
    type Own = ();

    fn own(_: &RangeSet) {}

    fn join(_: Time, (): (), (): &Self, (): &Self) -> Self {}
}

/// Index of the sentinel: black, size 0, the `T.nil` of CLRS.
const NIL: u32 = 0;

/// A node's `kept` when its summary is not kept.
const UNKEPT: u32 = u32::MAX;

/// The most changes held back before their summaries are settled: an `advance` past a
/// long backlog deletes many entries, each delete renames the held nodes, and updates
/// with no search between them hold their changes until one comes.
const MAX_DIRTY: usize = 64;

/// The fields a descent reads come first, in declaration order, so that they share the
/// node's first cache line ahead of the free set.
#[derive(Debug, Clone)]
#[repr(C)]
struct Node<S: Summary> {
    key: Time,
    left: u32,
    right: u32,
    /// Where its subtree's summary is in the tree's `kept`, or `UNKEPT` (a cell, as
    /// the upkeep that a search settles moves summaries).
    kept: Cell<u32>,
    own: S::Own,
    parent: u32,
    prev: u32,
    next: u32,
    size: u32,
    red: bool,
    /// Set only inside `settle_dirty`: the summary is to be recomputed.
    marked: Cell<bool>,
    /// Set only inside `settle_dirty`: its own entry or its children changed, so its
    /// summary is recomputed even if its children's are as they were.
    stale: Cell<bool>,
    free: RangeSet,
}

impl<S: Summary> Default for Node<S> {
    fn default() -> Self {
        Self {
            key: 0,
            left: NIL,
            right: NIL,
            kept: Cell::new(UNKEPT),
            own: S::Own::default(),
            parent: NIL,
            prev: NIL,
            next: NIL,
            size: 0,
            red: false,
            marked: Cell::new(false),
            stale: Cell::new(false),
            free: RangeSet::default(),
        }
    }
}

/// A node's key, own part, kept summary and children.
pub(super) type Parts<'k, S> = (Time, <S as Summary>::Own, Option<&'k S>, u32, u32);

/// A kept summary and the node whose subtree it summarises.
#[derive(Debug, Clone)]
struct Kept<S> {
    sub: S,
    owner: u32,
}

/// A red-black tree of entries threaded by a doubly linked list, each subtree summarised
/// by `S`.
///
/// The arena is dense: slot 0 is the sentinel and slots `1..=count` the entries. A
/// deleted node's slot takes the last node, so there are no vacant slots to keep. The
/// arena grows by a quarter at a time rather than doubling, and gives memory back when
/// `drop_before` leaves it less than half used. The summaries of the subtrees with at
/// least [`Summary::KEPT_FROM`] entries are kept beside the arena, densely too.
#[derive(Debug, Clone)]
pub struct RbTree<S: Summary = ()> {
    nodes: Vec<Node<S>>,
    kept: RefCell<Vec<Kept<S>>>,
    root: u32,
    head: u32,
    /// Whether the summaries' upkeep is held back until the next search, or
    /// [`settle`](Store::settle).
    held: Cell<bool>,
    /// While held, nodes whose subtree changed; their ancestors changed too.
    dirty: RefCell<Vec<u32>>,
    /// The nodes the last two uncounted lookups found, the latest first (NIL: none).
    /// An update looks up each end of its window three times (split, change,
    /// coalesce), so a lookup tries these before it descends.
    fingers: Cell<[u32; 2]>,
}

/// Walks the linked list from a node on.
#[derive(Debug, Clone)]
pub struct ListWalk<'a, S: Summary> {
    tree: &'a RbTree<S>,
    at: u32,
}

impl<'a, S: Summary> Iterator for ListWalk<'a, S> {
    type Item = (Time, &'a RangeSet);

    fn next(&mut self) -> Option<Self::Item> {
        if self.at == NIL {
            return None;
        }
        let node = &self.tree.nodes[self.at as usize];
        self.at = node.next;
        Some((node.key, &node.free))
    }
}

/// The tree as a [`seek`](Summary::seek) reads it: with its kept summaries settled and
/// borrowed for the search.
#[derive(Clone, Copy)]
pub struct Summed<'a, S: Summary> {
    tree: &'a RbTree<S>,
    kept: &'a [Kept<S>],
}

impl<'a, S: Summary> Summed<'a, S> {
    /// A node's key, own part, subtree summary and children; `None` for an empty
    /// subtree. The summary is `None` where it is not kept (fewer than
    /// [`Summary::KEPT_FROM`] entries).
    pub(super) fn parts(&self, x: u32) -> Option<Parts<'a, S>> {
        let node = self.tree.n(x);
        let sub = self.kept.get(node.kept.get() as usize).map(|kept| &kept.sub);
        (x != NIL).then_some((node.key, node.own, sub, node.left, node.right))
    }
}

impl<S: Summary> std::ops::Deref for Summed<'_, S> {
    type Target = RbTree<S>;

    fn deref(&self) -> &RbTree<S> {
        self.tree
    }
}

impl<S: Summary> RbTree<S> {
    /// The number of entries in `x`'s subtree.
    pub(super) fn size(&self, x: u32) -> u32 {
        self.n(x).size
    }

    /// `x`'s parent (NIL for the root).
    pub(super) fn parent(&self, x: u32) -> u32 {
        self.n(x).parent
    }

    /// The node with the greatest key `<= t`, found from node `x` (whose key is `<= t`)
    /// by climbing only as far as the subtree holding every key in `[x's key, t]`, then
    /// descending: O(log d) for a node d entries on. Counts the nodes visited.
    pub(super) fn floor_from(&self, mut x: u32, t: Time, steps: &mut u64) -> u32 {
        loop {
            let p = self.n(x).parent;
            // Every key between a left child's subtree and its parent lies in that subtree.
            if p == NIL || (self.n(p).left == x && self.n(p).key > t) {
                break;
            }
            *steps += 1;
            x = p;
        }
        self.floor_under(x, t, steps)
    }

    /// The summary of `x`'s subtree: kept, or rebuilt from its entries.
    fn summary<'k>(&self, kept: &'k [Kept<S>], x: u32) -> Cow<'k, S> {
        match kept.get(self.n(x).kept.get() as usize) {
            Some(kept) => Cow::Borrowed(&kept.sub),
            None => {
                let mut sub = S::default();
                self.append(x, &mut sub);
                Cow::Owned(sub)
            }
        }
    }

    /// Adds the entries of `x`'s subtree, which keeps no summary, to `sub`, in order.
    fn append(&self, x: u32, sub: &mut S) {
        for (key, own) in self.entries_under(x) {
            sub.push(key, own);
        }
    }

    /// The keys and own parts of `x`'s subtree's entries, in order: its leftmost node,
    /// then along the list, which costs a small subtree a fraction of an in-order
    /// recursion's instructions.
    pub(super) fn entries_under(&self, x: u32) -> impl Iterator<Item = (Time, S::Own)> + '_ {
        let mut at = self.minimum(x);
        (0..self.n(x).size).map(move |_| {
            let node = self.n(at);
            at = node.next;
            (node.key, node.own)
        })
    }

    /// Keeps `x`'s summary, current, if its subtree is large enough, and frees its slot
    /// if it no longer is (a small subtree's summary is not computed until read);
    /// whether the summary may differ from the one kept before (always, for a small
    /// subtree, whose summary is not kept to compare).
    fn keep(&self, x: u32) -> bool {
        let slot = self.n(x).kept.get();
        if self.n(x).size < S::KEPT_FROM {
            if slot != UNKEPT {
                self.unkeep(x);
            }
            return true;
        }
        let sub = self.joined(&self.kept.borrow(), x);
        let mut kept = self.kept.borrow_mut();
        if slot == UNKEPT {
            grow(&mut kept);
            kept.push(Kept { sub, owner: x });
            self.n(x).kept.set((kept.len() - 1) as u32);
            true
        } else {
            let kept = &mut kept[slot as usize].sub;
            let changed = *kept != sub;
            *kept = sub;
            changed
        }
    }

    /// Frees `x`'s kept summary's slot by moving the last one into it.
    fn unkeep(&self, x: u32) {
        let slot = self.n(x).kept.get();
        let mut kept = self.kept.borrow_mut();
        kept.swap_remove(slot as usize);
        if let Some(moved) = kept.get(slot as usize) {
            self.n(moved.owner).kept.set(slot);
        }
        self.n(x).kept.set(UNKEPT);
    }

    fn n(&self, x: u32) -> &Node<S> {
        &self.nodes[x as usize]
    }

    fn m(&mut self, x: u32) -> &mut Node<S> {
        &mut self.nodes[x as usize]
    }

    fn is_red(&self, x: u32) -> bool {
        self.n(x).red
    }

    /// The node with the greatest key `<= t`, or NIL; counts levels descended.
    fn floor(&self, t: Time, steps: &mut u64) -> u32 {
        self.floor_under(self.root, t, steps)
    }

    /// The node with the greatest key `<= t` in `x`'s subtree, or NIL; counts levels
    /// descended.
    fn floor_under(&self, mut x: u32, t: Time, steps: &mut u64) -> u32 {
        let mut best = NIL;
        while x != NIL {
            *steps += 1;
            if self.n(x).key <= t {
                best = x;
                x = self.n(x).right;
            } else {
                x = self.n(x).left;
            }
        }
        best
    }

    /// [`floor`](Self::floor) for the upkeep, which counts no steps: a finger, or the
    /// node after it, where one of them is the floor (it holds `t` and the next key is
    /// above `t`, which the list's order makes exact, however the arena moved nodes
    /// since), else a descent, whose node becomes the latest finger.
    fn floor_near(&self, t: Time) -> u32 {
        let fingers = self.fingers.get();
        for (i, &finger) in fingers.iter().enumerate() {
            let mut x = finger;
            if x == NIL || self.nodes.get(x as usize).is_none_or(|node| node.key > t) {
                continue;
            }
            for _ in 0..2 {
                let next = self.n(x).next;
                if next == NIL || self.n(next).key > t {
                    self.fingers.set([x, fingers[1 - i]]);
                    return x;
                }
                x = next;
            }
        }
        let x = self.floor(t, &mut 0);
        self.fingers.set([x, fingers[0]]);
        x
    }

    fn find(&self, t: Time) -> u32 {
        let x = self.floor_near(t);
        if x != NIL && self.n(x).key == t {
            x
        } else {
            NIL
        }
    }

    fn minimum(&self, mut x: u32) -> u32 {
        while self.n(x).left != NIL {
            x = self.n(x).left;
        }
        x
    }

    fn resize(&mut self, x: u32) {
        let size = self.n(self.n(x).left).size + self.n(self.n(x).right).size + 1;
        self.m(x).size = size;
        if S::ACTIVE {
            if self.held.get() {
                self.dirty.get_mut().push(x);
            } else {
                self.keep(x);
            }
        }
    }

    /// [`resize`](Self::resize)s `w` and its ancestors; while held, one mark at `w`
    /// stands for the whole path.
    fn resize_path(&mut self, mut w: u32) {
        if S::ACTIVE && self.held.get() && w != NIL {
            self.dirty.get_mut().push(w);
            while w != NIL {
                self.m(w).size = self.n(self.n(w).left).size + self.n(self.n(w).right).size + 1;
                w = self.n(w).parent;
            }
        } else {
            while w != NIL {
                self.resize(w);
                w = self.n(w).parent;
            }
        }
    }

    /// Settles the held changes early once many wait, so that the renaming in
    /// [`vacate`](Self::vacate) stays short; called where the tree is whole.
    fn bound_dirty(&mut self) {
        if self.held.get() && self.dirty.get_mut().len() >= MAX_DIRTY {
            self.settle_dirty();
        }
    }

    /// Recomputes every summary that the held changes made stale, each once, children
    /// before parents: the dirty nodes and their ancestors are marked (a connected
    /// part of the tree that holds the root), then visited in post-order. O(c + log n)
    /// for c changed nodes close together, where keeping each change's path current as
    /// it happens costs O(log n) each.
    fn settle_dirty(&self) {
        let mut dirty = self.dirty.take();
        for &x in &dirty {
            self.n(x).stale.set(x != NIL);
            let mut x = x;
            while x != NIL && !self.n(x).marked.get() {
                self.n(x).marked.set(true);
                x = self.n(x).parent;
            }
        }
        // The list's memory is kept for the next changes.
        dirty.clear();
        self.dirty.replace(dirty);
        self.settle_under(self.root);
    }

    /// Settles what the upkeep held back, if anything: before a search reads the
    /// summaries, or when asked.
    fn settle_now(&self) {
        if self.held.get() {
            self.settle_dirty();
            self.held.set(false);
        }
    }

    /// The post-order pass of [`settle_dirty`](Self::settle_dirty) under `x`; whether
    /// `x`'s summary may have changed. A summary depends on its node's entry and its
    /// children's summaries alone, so where neither changed it is left as it is: a
    /// change deep in the tree that leaves a subtree's runs as they were (an entry
    /// that stays a blocker, or stays none, at every level) stops there, not at the root.
    fn settle_under(&self, x: u32) -> bool {
        if x == NIL || !self.n(x).marked.get() {
            return false;
        }
        self.n(x).marked.set(false);
        let stale = self.n(x).stale.take();
        let (left, right) = (self.n(x).left, self.n(x).right);
        let left_changed = self.settle_under(left);
        let right_changed = self.settle_under(right);
        // A subtree that grew to the size that keeps a summary, or shrank below it.
        let node = self.n(x);
        let misfiled = (node.size >= S::KEPT_FROM) != (node.kept.get() != UNKEPT);
        if stale || left_changed || right_changed || misfiled {
            self.keep(x)
        } else {
            false
        }
    }

    /// The summary of `x`'s subtree from its own and its children's.
    fn joined(&self, kept: &[Kept<S>], x: u32) -> S {
        let node = self.n(x);
        match kept.get(self.n(node.right).kept.get() as usize) {
            Some(right) => S::join(node.key, node.own, &self.summary(kept, node.left), &right.sub),
            // A small right subtree is appended entry by entry, not rebuilt to be joined.
            None => {
                let mut sub = self.summary(kept, node.left).into_owned();
                sub.push(node.key, node.own);
                self.append(node.right, &mut sub);
                sub
            }
        }
    }

    /// Moves the first key of every kept summary from `x` (the head, re-keyed to `t`)
    /// up the left spine in place, as far as no held change lies under it: none of
    /// them needs a join. Where a summary cannot be moved in place, or a held change
    /// below already makes it stale, it is left to the held upkeep, which recomputes
    /// it and, as its first key changed, every summary above it.
    fn rekey_path(&mut self, mut x: u32, t: Time) {
        // A node on the left spine holds exactly the entries before its parent's key,
        // so no held change is under it while the earliest changed node's key is at
        // least its parent's (the root holds them all).
        let first_change = self.dirty.borrow().iter().filter(|&&d| d != NIL).map(|&d| self.n(d).key).min();
        while x != NIL {
            let p = self.n(x).parent;
            if first_change.is_some_and(|first| p == NIL || first < self.n(p).key) {
                self.dirty.get_mut().push(x);
                return;
            }
            let slot = self.n(x).kept.get() as usize;
            if let Some(kept) = self.kept.get_mut().get_mut(slot) {
                if !kept.sub.rekey_first(t) {
                    self.dirty.get_mut().push(x);
                    return;
                }
            }
            x = self.n(x).parent;
        }
    }

    /// Puts `y` where `x` was under `x`'s parent.
    fn replace_child(&mut self, x: u32, y: u32) {
        let p = self.n(x).parent;
        if p == NIL {
            self.root = y;
        } else if self.n(p).left == x {
            self.m(p).left = y;
        } else {
            self.m(p).right = y;
        }
    }

    /// Rotates `x` down to the `left` (a left rotation) or to the right, keeping sizes.
    fn rotate(&mut self, x: u32, left: bool) {
        let y = self.child(x, !left);
        let b = self.child(y, left);
        self.set_child(x, !left, b);
        if b != NIL {
            self.m(b).parent = x;
        }
        self.m(y).parent = self.n(x).parent;
        self.replace_child(x, y);
        self.set_child(y, left, x);
        self.m(x).parent = y;
        // `y`'s subtree now holds `x`'s old entries, so it takes `x`'s summary; `x`
        // takes `y`'s slot, if any, for its own.
        self.m(y).size = self.n(x).size;
        let (from_x, from_y) = (self.n(x).kept.get(), self.n(y).kept.get());
        self.n(y).kept.set(from_x);
        self.n(x).kept.set(from_y);
        for (slot, owner) in [(from_x, y), (from_y, x)] {
            if slot != UNKEPT {
                self.kept.get_mut()[slot as usize].owner = owner;
            }
        }
        self.resize(x);
    }

    /// The child of `x` on one side (`left == true` for the left child).
    fn child(&self, x: u32, left: bool) -> u32 {
        if left {
            self.n(x).left
        } else {
            self.n(x).right
        }
    }

    fn set_child(&mut self, x: u32, left: bool, child: u32) {
        if left {
            self.m(x).left = child;
        } else {
            self.m(x).right = child;
        }
    }

    fn alloc(&mut self, node: Node<S>) -> u32 {
        grow(&mut self.nodes);
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// Frees `z`'s slot, which nothing links to any more, by moving the last node into
    /// it and relinking that node's neighbours.
    fn vacate(&mut self, z: u32) {
        if self.n(z).kept.get() != UNKEPT {
            self.unkeep(z);
        }
        let last = (self.nodes.len() - 1) as u32;
        if self.held.get() {
            let dirty = self.dirty.get_mut();
            dirty.retain(|&d| d != z);
            for d in dirty {
                if *d == last {
                    *d = z;
                }
            }
        }
        if z != last {
            // Everything that links to the last node is pointed at `z` first; then the
            // last node moves there.
            let node = self.n(last);
            let (left, right, prev, next, node_kept) =
                (node.left, node.right, node.prev, node.next, node.kept.get());
            self.replace_child(last, z);
            for child in [left, right] {
                if child != NIL {
                    self.m(child).parent = z;
                }
            }
            self.chain(prev, z);
            self.chain(z, next);
            if let Some(kept) = self.kept.get_mut().get_mut(node_kept as usize) {
                kept.owner = z;
            }
        }
        self.nodes.swap_remove(z as usize);
    }

    /// Makes `b` follow `a` in the list (`a` NIL: `b` is the head; `b` NIL: `a` is last).
    fn chain(&mut self, a: u32, b: u32) {
        if a == NIL {
            self.head = b;
        } else {
            self.m(a).next = b;
        }
        if b != NIL {
            self.m(b).prev = a;
        }
    }

    fn insert_fixup(&mut self, mut z: u32) {
        while self.is_red(self.n(z).parent) {
            let p = self.n(z).parent;
            let g = self.n(p).parent;
            let p_is_left = self.n(g).left == p;
            let uncle = self.child(g, !p_is_left);
            if self.is_red(uncle) {
                self.m(p).red = false;
                self.m(uncle).red = false;
                self.m(g).red = true;
                z = g;
            } else {
                if z == self.child(p, !p_is_left) {
                    z = p;
                    self.rotate(z, p_is_left);
                }
                let p = self.n(z).parent;
                let g = self.n(p).parent;
                self.m(p).red = false;
                self.m(g).red = true;
                self.rotate(g, !p_is_left);
            }
        }
        let root = self.root;
        self.m(root).red = false;
    }

    fn delete(&mut self, z: u32) {
        self.bound_dirty();
        let (prev, next) = (self.n(z).prev, self.n(z).next);
        self.chain(prev, next);

        let mut removed_red = self.is_red(z);
        let x;
        if self.n(z).left == NIL || self.n(z).right == NIL {
            x = if self.n(z).left == NIL { self.n(z).right } else { self.n(z).left };
            self.replace_child(z, x);
            self.m(x).parent = self.n(z).parent;
        } else {
            let y = self.minimum(self.n(z).right);
            removed_red = self.is_red(y);
            x = self.n(y).right;
            if self.n(y).parent == z {
                self.m(x).parent = y;
            } else {
                self.replace_child(y, x);
                self.m(x).parent = self.n(y).parent;
                let zr = self.n(z).right;
                self.m(y).right = zr;
                self.m(zr).parent = y;
            }
            self.replace_child(z, y);
            self.m(y).parent = self.n(z).parent;
            let zl = self.n(z).left;
            self.m(y).left = zl;
            self.m(zl).parent = y;
            self.m(y).red = self.is_red(z);
        }
        // Every subtree that lost a node lies on the path from x's parent to the root.
        self.resize_path(self.n(x).parent);
        if !removed_red {
            self.delete_fixup(x);
        }
        self.m(NIL).parent = NIL;
        self.vacate(z);
    }

    fn delete_fixup(&mut self, mut x: u32) {
        while x != self.root && !self.is_red(x) {
            let p = self.n(x).parent;
            let x_is_left = self.n(p).left == x;
            let mut w = self.child(p, !x_is_left);
            if self.is_red(w) {
                self.m(w).red = false;
                self.m(p).red = true;
                self.rotate(p, x_is_left);
                w = self.child(self.n(x).parent, !x_is_left);
            }
            if !self.is_red(self.n(w).left) && !self.is_red(self.n(w).right) {
                self.m(w).red = true;
                x = self.n(x).parent;
            } else {
                if !self.is_red(self.child(w, !x_is_left)) {
                    let near = self.child(w, x_is_left);
                    self.m(near).red = false;
                    self.m(w).red = true;
                    self.rotate(w, !x_is_left);
                    w = self.child(self.n(x).parent, !x_is_left);
                }
                let p = self.n(x).parent;
                self.m(w).red = self.is_red(p);
                self.m(p).red = false;
                let far = self.child(w, !x_is_left);
                self.m(far).red = false;
                self.rotate(p, x_is_left);
                x = self.root;
            }
        }
        self.m(x).red = false;
    }

    /// Checks the subtree at `x`: colours, parents, key bounds and sizes; returns its
    /// black height.
    fn check_subtree(&self, x: u32, lo: Option<Time>, hi: Option<Time>) -> Result<u32, Invalid> {
        if x == NIL {
            return Ok(1);
        }
        let node = self.n(x);
        if lo.is_some_and(|lo| node.key <= lo) || hi.is_some_and(|hi| node.key >= hi) {
            return Err(S::KIND.invalid(format!("key {} breaks the search order", node.key)));
        }
        for child in [node.left, node.right] {
            if child != NIL && self.n(child).parent != x {
                return Err(S::KIND.invalid(format!("child of {} does not point back to it", node.key)));
            }
            if node.red && self.is_red(child) {
                return Err(S::KIND.invalid(format!("red node {} has a red child", node.key)));
            }
        }
        let lh = self.check_subtree(node.left, lo, Some(node.key))?;
        let rh = self.check_subtree(node.right, Some(node.key), hi)?;
        if lh != rh {
            return Err(S::KIND.invalid(format!("black heights differ under {}: {lh} and {rh}", node.key)));
        }
        if node.size != self.n(node.left).size + self.n(node.right).size + 1 {
            return Err(S::KIND.invalid(format!("subtree size of {} is wrong", node.key)));
        }
        let keeps = S::ACTIVE && node.size >= S::KEPT_FROM;
        let all = self.kept.borrow();
        let kept = all.get(node.kept.get() as usize).filter(|kept| kept.owner == x);
        if keeps != kept.is_some() || (!keeps && node.kept.get() != UNKEPT) {
            return Err(S::KIND.invalid(format!(
                "the summary of {} is kept where it should not be, or not kept",
                node.key
            )));
        }
        if node.own != S::own(&node.free)
            || node.marked.get()
            || node.stale.get()
            || kept.is_some_and(|kept| kept.sub != self.joined(&all, x))
        {
            return Err(
                S::KIND.invalid(format!("the summary of {} is stale: {kept:?} of {:?}", node.key, node.own))
            );
        }
        Ok(lh + u32::from(!node.red))
    }

    fn in_order(&self, x: u32, out: &mut Vec<u32>) {
        if x != NIL {
            self.in_order(self.n(x).left, out);
            out.push(x);
            self.in_order(self.n(x).right, out);
        }
    }
}

impl<S: Summary> Store for RbTree<S> {
    const KIND: Kind = S::KIND;
    const SEEKS: bool = S::ACTIVE;

    type Iter<'a>
        = ListWalk<'a, S>
    where
        S: 'a;

    fn with_first(key: Time, free: RangeSet) -> Self {
        let mut tree = Self {
            nodes: vec![Node::default()],
            kept: RefCell::new(Vec::new()),
            root: NIL,
            head: NIL,
            held: Cell::new(false),
            dirty: RefCell::new(Vec::new()),
            fingers: Cell::new([NIL; 2]),
        };
        tree.insert(key, free);
        tree
    }

    fn count(&self) -> usize {
        self.n(self.root).size as usize
    }

    fn iter_from(&self, t: Time, steps: &mut u64) -> ListWalk<'_, S> {
        ListWalk { tree: self, at: self.floor(t, steps) }
    }

    fn rank(&self, t: Time) -> usize {
        let (mut x, mut rank) = (self.root, 0);
        while x != NIL {
            if self.n(x).key <= t {
                rank += self.n(self.n(x).left).size as usize + 1;
                x = self.n(x).right;
            } else {
                x = self.n(x).left;
            }
        }
        rank
    }

    /// One descent: the entry at `t`, if any, is the floor, and its list predecessor is
    /// the entry before it.
    fn around(&self, t: Time) -> (Option<&RangeSet>, Option<&RangeSet>) {
        let set = |x: u32| (x != NIL).then(|| &self.n(x).free);
        let x = self.floor_near(t);
        if x != NIL && self.n(x).key == t {
            (set(self.n(x).prev), set(x))
        } else {
            (set(x), None)
        }
    }

    fn insert(&mut self, t: Time, free: RangeSet) {
        self.bound_dirty();
        let own = S::own(&free);
        let z = self.alloc(Node { key: t, free, own, size: 1, red: true, ..Node::default() });
        if S::ACTIVE {
            self.resize(z);
        }
        let (mut parent, mut x) = (NIL, self.root);
        let (mut pred, mut succ) = (NIL, NIL);
        while x != NIL {
            parent = x;
            self.m(x).size += 1;
            if t < self.n(x).key {
                succ = x;
                x = self.n(x).left;
            } else {
                pred = x;
                x = self.n(x).right;
            }
        }
        self.m(z).parent = parent;
        if parent == NIL {
            self.root = z;
        } else if t < self.n(parent).key {
            self.m(parent).left = z;
        } else {
            self.m(parent).right = z;
        }
        self.chain(pred, z);
        self.chain(z, succ);
        self.insert_fixup(z);
        if S::ACTIVE {
            // The sizes were counted on the way down; the summaries follow z up.
            self.resize_path(self.n(z).parent);
        }
    }

    fn remove(&mut self, t: Time) {
        let z = self.find(t);
        if z != NIL {
            self.delete(z);
        }
    }

    fn update(&mut self, from: Time, to: Time, f: &mut dyn FnMut(&mut RangeSet)) {
        let held = self.held.get();
        self.hold();
        let mut x = self.floor_near(from);
        while x != NIL && self.n(x).key < to {
            if self.n(x).key >= from {
                f(&mut self.m(x).free);
                if S::ACTIVE {
                    let own = S::own(&self.n(x).free);
                    if S::differs(std::mem::replace(&mut self.m(x).own, own), own) {
                        self.dirty.get_mut().push(x);
                    }
                }
            }
            x = self.n(x).next;
        }
        // Updates without a search between them would otherwise list changes unbounded.
        self.bound_dirty();
        if !held {
            self.settle();
        }
    }

    fn hold(&mut self) {
        self.held.set(S::ACTIVE);
    }

    fn settle(&mut self) {
        self.settle_now();
    }

    fn seek<'a>(
        &'a self,
        from: ListWalk<'a, S>,
        n: u64,
        duration: Time,
        steps: &mut u64,
    ) -> Option<ListWalk<'a, S>> {
        if from.at == NIL {
            return None;
        }
        // The upkeep the updates since the last search held back, settled once for all.
        self.settle_now();
        let at = S::seek(Summed { tree: self, kept: &self.kept.borrow() }, from.at, n, duration, steps)?;
        Some(ListWalk { tree: self, at })
    }

    fn drop_before(&mut self, t: Time) {
        // By key, not slot: a delete moves the last node to another slot.
        let keep = self.n(self.floor(t, &mut 0)).key;
        self.hold();
        while self.n(self.head).key != keep {
            self.delete(self.head);
        }
        // The head is the minimum and `t` is below the next key, so order is kept.
        let keep = self.head;
        let moved = self.n(keep).key != t;
        self.m(keep).key = t;
        if S::ACTIVE && moved {
            self.rekey_path(keep, t);
        }
        // What the deletes held back waits, with the updates' before, for the next search.
        // Memory goes back when time passes a backlog, not on every delete, so that
        // updates that come and go around one size never reallocate.
        let len = self.nodes.len();
        if self.nodes.capacity() > 2 * len + 8 {
            self.nodes.shrink_to(len + len / 4 + 4);
        }
        let kept = self.kept.get_mut();
        let len = kept.len();
        if kept.capacity() > 2 * len + 8 {
            kept.shrink_to(len + len / 4 + 4);
        }
    }

    fn validate(&self) -> Result<(), Invalid> {
        if self.held.get() {
            // The upkeep the updates held back is settled by the next search: the tree
            // that search would read is checked, and this one stays held, so that tests
            // run the batching across operations too.
            if self.dirty.borrow().iter().any(|&d| d as usize >= self.nodes.len()) {
                return Err(S::KIND.invalid("a held change names no node"));
            }
            let settled = self.clone();
            settled.settle_now();
            return settled.validate();
        }
        let nil = self.n(NIL);
        // Its size is checked with every leaf's.
        if nil.red || nil.left != NIL || nil.right != NIL {
            return Err(S::KIND.invalid("the sentinel was modified"));
        }
        if self.root == NIL || self.n(self.root).parent != NIL || self.is_red(self.root) {
            return Err(S::KIND.invalid("the root is missing, has a parent, or is red"));
        }
        self.check_subtree(self.root, None, None)?;
        let mut order = Vec::new();
        self.in_order(self.root, &mut order);
        if order.len() + 1 != self.nodes.len() {
            return Err(S::KIND.invalid("the arena holds nodes that are not in the tree"));
        }
        // Each tree node that keeps a summary owns its slot (checked above), so equal
        // counts leave no slot unowned.
        if order.iter().filter(|&&x| self.n(x).kept.get() != UNKEPT).count() != self.kept.borrow().len() {
            return Err(S::KIND.invalid("a kept summary belongs to no node"));
        }
        let (mut at, mut prev) = (self.head, NIL);
        for &x in &order {
            if at != x {
                return Err(
                    S::KIND.invalid(format!("list order differs from tree order at key {}", self.n(x).key))
                );
            }
            if self.n(x).prev != prev {
                return Err(S::KIND.invalid(format!("prev link of key {} is wrong", self.n(x).key)));
            }
            prev = x;
            at = self.n(x).next;
        }
        if at != NIL {
            return Err(S::KIND.invalid("the list runs past the last tree node"));
        }
        Ok(())
    }

    /// The summaries' invariant last, and only for a tree that keeps summaries.
    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = {
        let all: &[&str] = &[
            "the sentinel is untouched",
            "the root is present, parentless and black",
            "keys in search order",
            "children point back to their parent",
            "no red node has a red child",
            "black heights agree",
            "subtree sizes add up",
            "the arena holds only tree nodes",
            "the list follows tree order",
            "prev links are right",
            "the list ends at the last node",
            "summaries are current",
        ];
        if S::ACTIVE {
            all
        } else {
            all.split_last().expect("a non-empty list").1
        }
    };

    #[cfg(feature = "planted")]
    fn corrupt(&mut self, invariant: usize, pick: u64) -> bool {
        // On the tree a search reads: a summary that held upkeep would recompute anyway
        // is no fault.
        self.settle_now();
        let root = self.root;
        // Every arena slot but the sentinel's holds a tree node.
        let nodes = (1..self.nodes.len() as u32).collect::<Vec<_>>();
        let below: Vec<u32> = nodes.iter().copied().filter(|&x| x != root).collect();
        let reds: Vec<u32> = below.iter().copied().filter(|&x| self.n(x).red).collect();
        let flippable: Vec<u32> = reds
            .iter()
            .copied()
            .filter(|&x| {
                let children = [self.n(x).left, self.n(x).right];
                children.iter().all(|&c| c != NIL)
                    && children.iter().any(|&c| self.is_red(self.n(c).left) || self.is_red(self.n(c).right))
            })
            .collect();
        let among = |xs: &[u32]| xs.get((pick % xs.len().max(1) as u64) as usize).copied();
        match invariant {
            0 => match pick % 3 {
                0 => self.m(NIL).red = true,
                1 => self.m(NIL).left = root,
                _ => self.m(NIL).right = root,
            },
            1 => match pick % 3 {
                0 => self.root = NIL,
                1 => self.m(root).parent = root,
                _ => self.m(root).red = true,
            },
            // A key equal to its parent's: the bound it sits against.
            2 => {
                let Some(x) = among(&below) else { return false };
                self.m(x).key = self.n(self.n(x).parent).key;
            }
            3 => {
                let Some(x) = among(&below) else { return false };
                self.m(x).parent = x;
            }
            // A colour flip, which keeps every black height: a red node with two black
            // children turned black and its children red, under which a red grandchild
            // now has a red parent.
            4 => {
                let Some(x) = among(&flippable) else { return false };
                let (left, right) = (self.n(x).left, self.n(x).right);
                self.m(x).red = false;
                self.m(left).red = true;
                self.m(right).red = true;
            }
            // A red node turned black: one more black node on its paths alone.
            5 => {
                let Some(x) = among(&reds) else { return false };
                self.m(x).red = false;
            }
            6 => {
                let Some(x) = among(&nodes) else { return false };
                self.m(x).size += 1;
            }
            7 => self.nodes.push(Node::default()),
            8 => {
                if self.n(self.head).next == NIL {
                    return false;
                }
                self.head = self.n(self.head).next;
            }
            9 => {
                let Some(x) = among(&nodes) else { return false };
                self.m(x).prev = x;
            }
            10 => {
                let last = nodes.iter().copied().find(|&x| self.n(x).next == NIL).unwrap_or(NIL);
                self.m(last).next = self.head;
            }
            // A free set changed under its own summary, a subtree summary emptied, or a
            // node left marked or stale by the upkeep.
            _ => {
                let Some(x) = among(&nodes) else { return false };
                if pick % 4 == 2 {
                    self.n(x).marked.set(true);
                } else if pick % 4 == 3 {
                    self.n(x).stale.set(true);
                } else if pick.is_multiple_of(4) {
                    let free = &mut self.m(x).free;
                    *free = if free.is_empty() { RangeSet::from_range(0, 64) } else { RangeSet::new() };
                } else {
                    let slot = self.nodes[x as usize].kept.get() as usize;
                    let Some(kept) = self.kept.get_mut().get_mut(slot) else {
                        return false;
                    };
                    if kept.sub == S::default() {
                        return false;
                    }
                    kept.sub = S::default();
                }
            }
        }
        true
    }
}

/// Makes room for one more element, growing by a quarter: amortised O(1) like doubling,
/// with less slack.
fn grow<T>(items: &mut Vec<T>) {
    if items.len() == items.capacity() {
        items.reserve_exact(items.len() / 4 + 4);
    }
}
