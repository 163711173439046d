//! Our id-bound FCFS-EDS (the replay policy `fcfs-eds`): not fcfs-eds-slotted-array's
//! model but ours, with the structure of its Algorithm 1 (section 3), over a plain grid of
//! which request holds each resource in each slot.
//!
//! In our model a reservation holds the same resources, the lowest-numbered free ones,
//! for its whole window; the paper counts free nodes per slot instead (that model's
//! reference is [`crate::fcfs_eds`]). Time is cut into slots of width `slot`: a window
//! `[start, start + t_e)` holds every slot it touches, from the slot boundary at or before
//! `start` to the one at or after its end, and a request fits at `start` when at least
//! `n` resources are free in all those slots.
//!
//! Requests arrive in order, each with its window of starts `[t_es, t_ls]`:
//!
//! - first fit (lines 16-25): the first of `t_es` and the slot boundaries after it, up to
//!   `t_ls`, where the request fits;
//! - else plan ahead (lines 28-45): for each start `s = t_es + k * slot` up to `t_ls` in
//!   turn, while the request does not fit at `s`, `shiftNode` moves one reservation out
//!   of `[s, s + t_e)`; when none can move, the next `s` is tried. The reservations
//!   `shiftNode` tries, in acceptance order, are the accepted flexible ones
//!   (`t_ls > t_es`) that have not started (they start after the arrival), have not moved
//!   yet for this `s`, and overlap `[s, s + t_e)`. One moves to the first start of its own
//!   window (`t_es + k * slot`, from the arrival on) other than its current one whose run
//!   clears `[s, s + t_e)` and where it fits once lifted, on the lowest free resources;
//!   one that fits nowhere keeps its place and resources. Overlapping and clearing are
//!   read on the runs' times, not on the slots they hold;
//! - `putBackAllShiftedJob` (lines 46-47): here the moves made for one `s` are undone,
//!   latest first, before the next `s` is tried (the paper keeps them until the request
//!   fits nowhere), so a rejected request changes nothing.
//!
//! The policy stops a search after `scheduling::policy::MAX_CHECKS` placements tried;
//! this reference has no bound and counts the placements instead
//! ([`Decision::checks`]), for a test to show the bound was never reached.

use std::ops::Range;

/// One request: when it arrives, what it holds, and its window of starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Its arrival (requests come in this order).
    pub submit: u64,
    /// `t_e`, how long it holds its resources.
    pub duration: u64,
    /// How many resources.
    pub n: u32,
    /// `t_es`, its earliest start.
    pub tes: u64,
    /// `t_ls`, its latest start.
    pub tls: u64,
}

/// A reservation moved to make room: which request, from which start to which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// The moved request, by index.
    pub request: usize,
    /// Its start before.
    pub from: u64,
    /// Its start after.
    pub to: u64,
}

/// What became of a request when it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Its start and resources, or `None` if rejected.
    pub placed: Option<(u64, Vec<u32>)>,
    /// The moves kept for it, in order: those made for the start it took (none when
    /// rejected or placed by first fit).
    pub moves: Vec<Move>,
    /// The placements tried while planning ahead, as the policy counts them against its
    /// bound: the request at each `s`, and each move tried.
    pub checks: u64,
}

/// What a whole run decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Each request's decision, at its arrival.
    pub decisions: Vec<Decision>,
    /// Each request's final start and resources, after every later move.
    pub schedule: Vec<Option<(u64, Vec<u32>)>>,
}

/// Runs `requests`, in arrival order with their windows drawn, on `capacity` resources
/// with slots of width `slot`.
pub fn plan(capacity: u32, slot: u64, requests: &[Request]) -> Outcome {
    let mut grid = Grid { capacity, slot, requests, holder: Vec::new(), placed: vec![None; requests.len()] };
    let decisions = (0..requests.len()).map(|i| grid.arrive(i)).collect();
    Outcome { decisions, schedule: grid.placed }
}

/// The plan: for each slot, the request holding each resource.
struct Grid<'a> {
    capacity: u32,
    slot: u64,
    requests: &'a [Request],
    /// `holder[k][id]`: who holds resource `id` in slot `k` (`[k * slot, (k + 1) * slot)`).
    holder: Vec<Vec<Option<usize>>>,
    /// Each request's start and resources, while placed.
    placed: Vec<Option<(u64, Vec<u32>)>>,
}

impl Grid<'_> {
    /// The slots request `i` holds if it starts at `start`.
    fn slots(&self, i: usize, start: u64) -> Range<usize> {
        let end = start + self.requests[i].duration;
        (start / self.slot) as usize..end.div_ceil(self.slot) as usize
    }

    /// The lowest `n` resources free in every slot of request `i`'s run from `start`, if
    /// there are `n`.
    fn fits(&self, i: usize, start: u64) -> Option<Vec<u32>> {
        let slots = self.slots(i, start);
        let free: Vec<u32> = (0..self.capacity)
            .filter(|&id| {
                slots.clone().all(|k| self.holder.get(k).is_none_or(|ids| ids[id as usize].is_none()))
            })
            .collect();
        let n = self.requests[i].n as usize;
        (free.len() >= n).then(|| free[..n].to_vec())
    }

    /// Places request `i` at `start` on `ids`.
    fn hold(&mut self, i: usize, start: u64, ids: Vec<u32>) {
        let slots = self.slots(i, start);
        if self.holder.len() < slots.end {
            self.holder.resize(slots.end, vec![None; self.capacity as usize]);
        }
        for k in slots {
            for &id in &ids {
                assert!(self.holder[k][id as usize].is_none(), "resource {id} is held already in slot {k}");
                self.holder[k][id as usize] = Some(i);
            }
        }
        self.placed[i] = Some((start, ids));
    }

    /// Takes request `i` out of the plan, returning its start and resources.
    fn lift(&mut self, i: usize) -> (u64, Vec<u32>) {
        let (start, ids) = self.placed[i].take().expect("a placed request");
        for k in self.slots(i, start) {
            for &id in &ids {
                assert_eq!(
                    self.holder[k][id as usize],
                    Some(i),
                    "resource {id} is held by request {i} in slot {k}"
                );
                self.holder[k][id as usize] = None;
            }
        }
        (start, ids)
    }

    /// Request `i`'s starts `t_es + k * slot` up to `t_ls`, from `from` on.
    fn starts(&self, i: usize, from: u64) -> Vec<u64> {
        let Request { tes, tls, .. } = self.requests[i];
        (tes..=tls).step_by(self.slot as usize).filter(|&s| s >= from).collect()
    }

    /// Lines 16-25: the first of `t_es` and the slot boundaries after it, up to `t_ls`,
    /// where request `i` fits.
    fn first_fit(&self, i: usize) -> Option<(u64, Vec<u32>)> {
        let Request { tes, tls, .. } = self.requests[i];
        let boundaries = (tes / self.slot + 1..).map(|k| k * self.slot).take_while(|&b| b <= tls);
        std::iter::once(tes).chain(boundaries).find_map(|start| self.fits(i, start).map(|ids| (start, ids)))
    }

    /// `shiftNode`: moves one reservation out of `[s, end)` for request `i` (see the
    /// module doc), pushing the move and the resources it left on `moved`. Returns
    /// whether one moved.
    fn shift_node(
        &mut self,
        i: usize,
        (s, end): (u64, u64),
        moved: &mut Vec<(Move, Vec<u32>)>,
        checks: &mut u64,
    ) -> bool {
        let now = self.requests[i].submit;
        for j in 0..i {
            let Request { duration, tes, tls, .. } = self.requests[j];
            let Some((from, _)) = self.placed[j] else { continue };
            let overlaps = from < end && s < from + duration;
            if tls == tes || from <= now || moved.iter().any(|(m, _)| m.request == j) || !overlaps {
                continue;
            }
            let (from, ids) = self.lift(j);
            for to in self.starts(j, now) {
                let clears = to + duration <= s || to >= end;
                if to == from || !clears {
                    continue;
                }
                *checks += 1;
                if let Some(new) = self.fits(j, to) {
                    self.hold(j, to, new);
                    moved.push((Move { request: j, from, to }, ids));
                    return true;
                }
            }
            self.hold(j, from, ids);
        }
        false
    }

    /// Request `i` arrives.
    fn arrive(&mut self, i: usize) -> Decision {
        if let Some((start, ids)) = self.first_fit(i) {
            self.hold(i, start, ids.clone());
            return Decision { placed: Some((start, ids)), moves: Vec::new(), checks: 0 };
        }
        let (now, duration) = (self.requests[i].submit, self.requests[i].duration);
        let mut checks = 0;
        for s in self.starts(i, now) {
            let mut moved = Vec::new();
            loop {
                checks += 1;
                if let Some(ids) = self.fits(i, s) {
                    self.hold(i, s, ids.clone());
                    let moves = moved.into_iter().map(|(m, _)| m).collect();
                    return Decision { placed: Some((s, ids)), moves, checks };
                }
                if !self.shift_node(i, (s, s + duration), &mut moved, &mut checks) {
                    break;
                }
            }
            // putBackAllShiftedJob, for this `s`: latest first, so each old place is free.
            while let Some((m, ids)) = moved.pop() {
                self.lift(m.request);
                self.hold(m.request, m.from, ids);
            }
        }
        Decision { placed: None, moves: Vec::new(), checks }
    }
}
