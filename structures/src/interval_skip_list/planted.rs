//! The invariants of the reservations broken on purpose (feature `planted`, for tests
//! only), so that a test sees `validate` refuse each.

use super::list::List;
use super::Reservations;
use crate::shell::{Basis, Engine};
use crate::RangeSet;

/// What `validate` checks, in its order: the skip list's own invariants (the first
/// [`List::CHECKS`], as [`List::corrupt`] numbers them), then the reservations'. That
/// `now` is a slot boundary is the shell's to break.
pub(super) const INVARIANTS: &[&str] = &[
    "every allocated node is on the bottom level",
    "a node is as tall as the levels it is linked on",
    "each level is in ascending key order",
    "each level is a sub-list of the bottom one",
    "an interval's endpoints have nodes",
    "an interval is not empty",
    "an interval holds some ids",
    "an interval is listed at its start node",
    "an interval's markers form a chain of edges from its start",
    "an interval's marked edges lie inside it",
    "an interval's edges carry its marker",
    "an interval's markers reach its end",
    "the markers on edges are those the intervals record",
    "the marker count is kept",
    "the head carries no markers",
    "a node's endpoint count is kept",
    "every node is some interval's endpoint",
    "a reservation has not ended",
    "a reservation ends within the horizon",
    "a reservation starts on a slot boundary",
    "a reservation ends on a slot boundary",
    "a reservation's ids are below the capacity",
    "reservations holding one id are disjoint",
];

/// Breaks invariant `invariant` at the `pick`-th place the state has for it. The
/// reservations' are broken through the list's own updates, so that the list stays
/// sound.
pub(super) fn corrupt(engine: &mut Reservations, at: &Basis, invariant: usize, pick: u64) -> bool {
    let Some(check) = invariant.checked_sub(List::CHECKS) else {
        return engine.list.corrupt(at, invariant, pick);
    };
    let slot = at.config.slot;
    // The reservation the last four change: the `pick`-th.
    let held: Vec<usize> = engine.list.intervals().map(|(i, _)| i).collect();
    let picked = (!held.is_empty()).then(|| held[(pick % held.len() as u64) as usize]);
    let list = &mut engine.list;
    match (check, picked) {
        // A reservation over the slot before now, of the ids free then.
        (0, _) => {
            let Some(start) = at.now.checked_sub(slot) else { return false };
            let free = engine.free_throughout(at, start, at.now, &at.full);
            if free.is_empty() {
                return false;
            }
            engine.list.insert(start, at.now, free);
        }
        // A reservation of every id over the slot after the limit.
        (1, _) => {
            let Some(end) = at.limit.checked_add(slot) else { return false };
            list.insert(at.limit, end, at.full.clone());
        }
        // Moved in by one at its start or its end: slots wider than one leave it off a
        // boundary, and not empty.
        (2 | 3, Some(i)) if slot > 1 => {
            let v = list.remove(i);
            let (s, e) = if check == 2 { (v.start + 1, v.end) } else { (v.start, v.end - 1) };
            list.insert(s, e, v.ids);
        }
        // Holding an id past the capacity.
        (4, Some(i)) => {
            let v = list.remove(i);
            list.insert(v.start, v.end, v.ids.union(&RangeSet::from_ids([at.capacity])));
        }
        // Held twice.
        (5, Some(i)) => {
            let v = list.interval(i).clone();
            list.insert(v.start, v.end, v.ids);
        }
        _ => return false,
    }
    true
}
