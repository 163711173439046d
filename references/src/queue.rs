//! coallocation-2d-trees' batch baselines (section 5.1): a queue in submit order on a
//! plain list of each resource's reserved windows, jobs ending at their run time and
//! giving back the rest of their window. FCFS starts the first waiting job as soon as
//! enough resources are free for its requested time, and no job before it; EASY also
//! holds a reservation for the first waiting job at its earliest start and starts any
//! later job at once if it fits around what is planned.
//!
//! The events, and what each tries, follow the policy's documented order
//! (`docs/policies.md`): ends before arrivals at the same instant, ends in order of time
//! then job; at an end, the first job's reservation is planned again (never later) and
//! every waiting job is tried for backfilling; at an arrival only the new job is, unless
//! the front of the queue changed. A job takes the lowest-numbered free resources.

use std::collections::VecDeque;

use crate::timeline::{Job, Timeline};

/// Replays `jobs` (in submit order) on `capacity` resources; each job's start and
/// resources, or `None` for a job wider than the machine. `backfill` makes it EASY.
pub fn replay(capacity: u32, jobs: &[Job], backfill: bool) -> Vec<Option<(u64, Vec<u32>)>> {
    let mut s = State { plan: Timeline::new(capacity, jobs, true), queue: VecDeque::new() };
    let mut next = 0;
    loop {
        let arrival = jobs.get(next).map(|j| j.submit);
        if let Some((t, _)) = s.plan.next_end(arrival) {
            s.start_front(t, true);
            if backfill {
                s.backfill(t, 1);
            }
            continue;
        }
        let Some(t) = arrival else { break };
        s.queue.push_back(next);
        let changed = s.start_front(t, false);
        if backfill && !s.queue.is_empty() {
            let from = if changed { 1 } else { s.queue.len() - 1 };
            s.backfill(t, from);
        }
        next += 1;
    }
    s.plan.starts()
}

struct State<'a> {
    plan: Timeline<'a>,
    queue: VecDeque<usize>,
}

impl State<'_> {
    /// Starts jobs from the front while they fit now; the first that does not gets its
    /// earliest reservation (planned again from now when `replan`). Whether the front
    /// changed.
    fn start_front(&mut self, now: u64, replan: bool) -> bool {
        let mut changed = false;
        while let Some(&first) = self.queue.front() {
            match self.plan.windows[first].as_ref().map(|w| w.start) {
                Some(start) if start <= now => {
                    self.queue.pop_front();
                    changed = true;
                    continue;
                }
                Some(_) if !replan => return changed,
                Some(_) => drop(self.plan.unplace(first)),
                None => {}
            }
            match self.plan.earliest(first, now) {
                None => {
                    self.queue.pop_front();
                    changed = true;
                }
                Some((start, ids)) => {
                    self.plan.place(first, start, ids);
                    if start > now {
                        return changed;
                    }
                    self.queue.pop_front();
                    changed = true;
                }
            }
        }
        changed
    }

    /// Every waiting job from position `from` (never the first) starts now if it fits.
    fn backfill(&mut self, now: u64, from: usize) {
        let mut k = from.max(1);
        while k < self.queue.len() {
            let i = self.queue[k];
            match self.plan.fits(i, now) {
                Some(ids) => {
                    self.plan.place(i, now, ids);
                    self.queue.remove(k);
                }
                None => k += 1,
            }
        }
    }
}
