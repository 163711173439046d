//! The invariants of the idle periods broken on purpose (feature `planted`, for tests
//! only), so that a test sees `validate` refuse each.

use super::runs::Runs;
use super::tree::Period;
use super::IdlePeriods;
use crate::shell::Basis;
use crate::Time;

/// What `validate` checks, in its order: each server's periods, the boundary counts, the
/// index and its groups' earliest and latest ends, the runs, each tree's own invariants (as
/// [`Tree::corrupt`](super::tree::Tree::corrupt) numbers them, from [`TREES`] on), and
/// the periods each tree holds. That `now` is a slot boundary is the
/// shell's to break.
pub(super) const INVARIANTS: &[&str] = &[
    "a period is not empty",
    "a period has not ended",
    "a server's periods are in order and apart",
    "a period starts on a slot boundary after now",
    "a period ends on a slot boundary or never",
    "boundary counts are the periods' starts and ends",
    "the index holds the periods",
    "an index group keeps its periods' earliest and latest ends",
    "runs start at now and at each boundary after it",
    "a tree's periods are in descending start order",
    "a tree has a secondary leaf per period",
    "a marked subtree's secondary tree holds its periods' ends in order",
    "a tree holds one period per server",
    "a tree's free set is its servers",
    "a tree counts its periods",
    "a run's tree holds the periods overlapping it",
];

/// The first of [`INVARIANTS`] that a tree breaks.
const TREES: usize = 9;

/// Breaks invariant `invariant` at the `pick`-th place the state has for it.
pub(super) fn corrupt(engine: &mut IdlePeriods, at: &Basis, invariant: usize, pick: u64) -> bool {
    match invariant {
        0..=4 => periods(engine, at, invariant, pick),
        5 => engine.runs.miscount(pick),
        6 => engine.runs.unindex(pick),
        7 => engine.runs.misdate(pick),
        8 => engine.runs.extra_run(at.config.slot),
        i => engine.runs.corrupt_tree(i - TREES, pick),
    }
}

/// Breaks check `check` of the servers' periods at the `pick`-th place, then makes the
/// runs again from the periods as they are: only that check fails.
fn periods(engine: &mut IdlePeriods, at: &Basis, check: usize, pick: u64) -> bool {
    let (now, slot) = (at.now, at.config.slot);
    // A server, the start of the period that goes (if one does), and the periods added.
    let mut places: Vec<(usize, Option<Time>, Vec<Period>)> = Vec::new();
    for (server, periods) in engine.servers.iter().enumerate() {
        let id = server as u32;
        if check == 1 {
            // A period that ended, a slot apart from the server's first.
            let end = periods.iter().next().map_or(now, |(first, _)| now.min(first.saturating_sub(slot)));
            if end > 0 {
                places.push((server, None, vec![Period { start: 0, end, id }]));
            }
            continue;
        }
        for (start, end) in periods.iter() {
            let p = Period { start, end, id };
            // The period's first slot boundary from now on: a slot or more before its end.
            let from = start.max(now);
            let added = match check {
                // Emptied to its start if that is after now, else to its end.
                0 => match if start > now { start } else { end } {
                    Time::MAX => continue,
                    t => vec![Period { start: t, end: t, id }],
                },
                // Split in two at a slot boundary after now.
                2 if from.saturating_add(slot) < end => {
                    let cut = from + slot;
                    vec![Period { end: cut, ..p }, Period { start: cut, ..p }]
                }
                // Off the slots, and still after now and not empty.
                3 if slot > 1 => vec![Period { start: from + 1, ..p }],
                // (An end at the end of time would read as never.)
                4 if slot > 1 && from + 1 < Time::MAX => vec![Period { end: from + 1, ..p }],
                _ => continue,
            };
            places.push((server, Some(start), added));
        }
    }
    if places.is_empty() {
        return false;
    }
    let (server, gone, added) = places.swap_remove((pick % places.len() as u64) as usize);
    let periods = &mut engine.servers[server];
    if let Some(start) = gone {
        periods.remove(start);
    }
    for p in &added {
        periods.insert(p.start, p.end);
    }
    let all: Vec<Period> = (engine.servers.iter().enumerate())
        .flat_map(|(id, periods)| {
            periods.iter().map(move |(start, end)| Period { start, end, id: id as u32 })
        })
        .collect();
    engine.runs = Runs::new(now, &all);
    true
}
