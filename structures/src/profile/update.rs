//! The profile's update: split at the window's ends, change the entries in between,
//! then drop the window's end entries if they no longer differ from their predecessors.

use super::{Profile, Store};
use crate::{RangeSet, Time};

impl<S: Store> Profile<S> {
    /// Applies `f` to the free sets over `[s, e)`, keeping the entries canonical.
    ///
    /// Only the two boundary entries can become redundant: inside the window every entry
    /// changes by the same set, which was wholly in (or wholly out of) each of them, so
    /// entries that differed before still differ.
    pub(super) fn apply(&mut self, s: Time, e: Time, f: &mut dyn FnMut(&mut RangeSet)) {
        // Two splits, the change and two coalesces each touch the same root path, and
        // the updates before the next search touch the same summaries near the present:
        // they are recomputed once, when that search reads them.
        self.store.hold();
        self.split(s);
        self.split(e);
        self.store.update(s, e, f);
        self.coalesce(e);
        self.coalesce(s);
    }

    /// Makes sure an entry starts at `t`, copying the free set of the one holding `t`.
    fn split(&mut self, t: Time) {
        if let (before, None) = self.store.around(t) {
            let free = before.cloned().expect("t is after now, so an entry holds it");
            self.store.insert(t, free);
        }
    }

    /// Removes the entry at `t` if it holds the same set as its predecessor.
    fn coalesce(&mut self, t: Time) {
        let same = match self.store.around(t) {
            (Some(prev), Some(cur)) => prev == cur,
            _ => false,
        };
        if same {
            self.store.remove(t);
        }
    }
}
