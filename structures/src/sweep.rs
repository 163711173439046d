//! Walks over the free space of a window, shared by every structure: the space is given
//! as steps, `(t, free)` meaning `free` holds from `t` until the next step's time.
//! Neighbouring steps may hold equal sets, and the first step may start before the
//! window. Both walks work per step, so the slotted structures, whose steps are slots,
//! merge equal neighbours first ([`changes`](crate::shell::changes)).

use std::borrow::Borrow;

use crate::{RangeSet, Time, TimeFrame};

/// Intersects `acc` with the steps of `rest` that start before `end`, counting each in
/// `visited`; stops with `None` as soon as fewer than `n` resources remain.
pub(crate) fn intersect_until<'a>(
    mut acc: RangeSet,
    rest: impl Iterator<Item = (Time, &'a RangeSet)>,
    end: Time,
    n: u64,
    visited: &mut u64,
) -> Option<RangeSet> {
    for (_, free) in rest.take_while(|&(t, _)| t < end) {
        *visited += 1;
        // Fewer than `n` in `free` leaves fewer than `n` in `acc`.
        if acc.intersect_count(free) < n {
            return None;
        }
    }
    Some(acc)
}

/// The steps inside `[s, e)`, the first clipped to start at `s`.
fn clipped<F>(steps: impl Iterator<Item = (Time, F)>, s: Time, e: Time) -> impl Iterator<Item = (Time, F)> {
    steps.take_while(move |(t, _)| *t < e).map(move |(t, free)| (t.max(s), free))
}

/// Free frames: keeps, per start time, the ids whose free run began then, and closes a
/// frame for the ids that stop being free.
pub(crate) fn free_frames<F: Borrow<RangeSet>>(
    steps: impl Iterator<Item = (Time, F)>,
    s: Time,
    e: Time,
) -> Vec<TimeFrame> {
    let mut open: Vec<(Time, RangeSet)> = Vec::new();
    let mut frames = Vec::new();
    for (t, free) in clipped(steps, s, e) {
        let free = free.borrow();
        let mut running = RangeSet::new();
        open.retain_mut(|(start, ids)| {
            let ended = ids.subtract(free);
            if !ended.is_empty() {
                frames.push(TimeFrame { start: *start, end: t, free: ended });
                ids.intersect_with(free);
            }
            running.union_with(ids);
            !ids.is_empty()
        });
        let started = free.subtract(&running);
        if !started.is_empty() {
            open.push((t, started));
        }
    }
    frames.extend(open.into_iter().map(|(start, free)| TimeFrame { start, end: e, free }));
    frames.sort_by_key(|f| (f.start, f.end, f.free.ranges().next()));
    frames
}

/// The maximal free rectangles: from each step, intersect forward; a rectangle is kept
/// where its set would shrink on either side (or meets the clip edge). Steps equal to
/// their neighbours never start or end one. Once the set from step `i` is held on the
/// step before `i` too, it is not maximal to the left, and as it only shrinks further
/// right, nothing more starts at `i`.
pub(crate) fn options<F: Borrow<RangeSet>>(
    steps: impl Iterator<Item = (Time, F)>,
    s: Time,
    e: Time,
    min_duration: Time,
    min_n: u64,
) -> Vec<TimeFrame> {
    let steps: Vec<(Time, F)> = clipped(steps, s, e).collect();
    let set = |i: usize| steps[i].1.borrow();
    let mut options = Vec::new();
    for (i, (start, first)) in steps.iter().enumerate() {
        let (start, mut acc) = (*start, first.borrow().clone());
        for j in i..steps.len() {
            if j > i {
                acc.intersect_with(set(j));
            }
            if acc.is_empty() || (i > 0 && acc.is_subset(set(i - 1))) {
                break;
            }
            let end = steps.get(j + 1).map_or(e, |(t, _)| *t);
            let right_max = j + 1 == steps.len() || !acc.is_subset(set(j + 1));
            if right_max && end - start >= min_duration && acc.count() >= min_n {
                options.push(TimeFrame { start, end, free: acc.clone() });
            }
        }
    }
    options
}
