//! What a segment tree node holds: the aggregate of its slots and the change still to be
//! pushed to its children.

use std::borrow::Cow;

use crate::RangeSet;

/// A change to every slot under a node, not yet pushed to its children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tag {
    /// Every slot's free set becomes this set (a slot reused at the horizon).
    Assign(RangeSet),
    /// Every slot's free set `x` becomes `(x \ remove) ∪ add` and its count changes by
    /// `delta`. Updates are applied only where they are valid (an allocation's ids free
    /// in every slot, a release's busy in every slot), so the count changes by the same
    /// amount in every slot and the minimum moves with it.
    Shift { remove: RangeSet, add: RangeSet, delta: i64 },
}

impl Tag {
    /// The change that takes ids out of every slot's free set.
    pub(super) fn take(set: &RangeSet) -> Self {
        Tag::Shift { remove: set.clone(), add: RangeSet::new(), delta: -signed(set.count()) }
    }

    /// The change that puts ids into every slot's free set.
    pub(super) fn give(set: &RangeSet) -> Self {
        Tag::Shift { remove: RangeSet::new(), add: set.clone(), delta: signed(set.count()) }
    }

    /// `self` applied after `inner`: both changes as one.
    pub(super) fn after(&self, inner: &Tag) -> Tag {
        match (self, inner) {
            (Tag::Assign(a), _) => Tag::Assign(a.clone()),
            (Tag::Shift { remove, add, .. }, Tag::Assign(a)) => Tag::Assign(a.subtract(remove).union(add)),
            (
                Tag::Shift { remove: r2, add: a2, delta: d2 },
                Tag::Shift { remove: r1, add: a1, delta: d1 },
            ) => Tag::Shift { remove: r1.union(r2), add: a1.subtract(r2).union(a2), delta: d1 + d2 },
        }
    }

    /// The set `x` becomes. The change distributes over intersection and union, so it
    /// applies to a node's aggregate sets as it does to each slot's.
    fn apply(&self, x: &RangeSet) -> RangeSet {
        match self {
            Tag::Assign(a) => a.clone(),
            Tag::Shift { remove, add, .. } => x.subtract(remove).union(add),
        }
    }
}

fn signed(count: u64) -> i64 {
    // A count is at most `u32::MAX`.
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The tags pending below a node: those of its ancestors, then its own.
pub(super) fn below<'a>(pending: Option<&'a Tag>, own: Option<&'a Tag>) -> Option<Cow<'a, Tag>> {
    match (pending, own) {
        (pending, None) => pending.map(Cow::Borrowed),
        (None, Some(own)) => Some(Cow::Borrowed(own)),
        (Some(pending), Some(own)) => Some(Cow::Owned(pending.after(own))),
    }
}

/// The slots of a range summed up: the fewest free, the ids free in all of them, and the
/// ids free in any of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Agg {
    pub(super) min: u64,
    pub(super) all: RangeSet,
    pub(super) any: RangeSet,
}

impl Agg {
    /// One slot with free set `free`.
    pub(super) fn slot(free: RangeSet) -> Self {
        Self { min: free.count(), all: free.clone(), any: free }
    }

    /// Two neighbouring ranges as one.
    pub(super) fn join(&self, other: &Agg) -> Agg {
        Agg {
            min: self.min.min(other.min),
            all: self.all.intersect(&other.all),
            any: self.any.union(&other.any),
        }
    }

    /// The aggregate after `tag`.
    pub(super) fn under(&self, tag: &Tag) -> Agg {
        match tag {
            Tag::Assign(a) => Agg::slot(a.clone()),
            Tag::Shift { delta, .. } => Agg {
                min: self.min.saturating_add_signed(*delta),
                all: tag.apply(&self.all),
                any: tag.apply(&self.any),
            },
        }
    }

    /// The aggregate as stored, or after the tags pending above it.
    pub(super) fn seen<'a>(&'a self, pending: Option<&Tag>) -> Cow<'a, Agg> {
        match pending {
            None => Cow::Borrowed(self),
            Some(tag) => Cow::Owned(self.under(tag)),
        }
    }
}

/// A node: the aggregate of its slots (its own tag included) and the tag its children
/// have not seen yet. Leaves never hold a tag.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) agg: Agg,
    pub(super) tag: Option<Tag>,
}

impl Node {
    /// Applies `tag` to every slot under this node.
    pub(super) fn receive(&mut self, tag: &Tag, leaf: bool) {
        self.agg = self.agg.under(tag);
        if !leaf {
            self.tag = Some(match self.tag.take() {
                None => tag.clone(),
                Some(inner) => tag.after(&inner),
            });
        }
    }
}
