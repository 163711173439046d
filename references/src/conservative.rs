//! rbtree-availability-profile, section IV, Algorithm 2: conservative backfilling. Each
//! job, at its arrival and in arrival order, gets the earliest window of its requested
//! time, from its arrival on, in which enough resources are free throughout, around
//! everything planned before; it takes the lowest-numbered of them. A window can only open
//! at the arrival or where some reservation ends, so those are the starts tried, in order.
//!
//! [`Machine`] is the paper's measure (plan-only: a job holds its whole requested time);
//! [`simulate`] is conservative backfilling as schedulers run it, jobs ending at their run
//! time and, with compression, the waiting jobs planned again at every early end.

use std::collections::BTreeSet;

use crate::timeline::{Job, Timeline};

/// The machine: per resource, the windows it is reserved for.
#[derive(Debug, Clone)]
pub struct Machine {
    reserved: Vec<Vec<(u64, u64)>>,
}

impl Machine {
    /// `capacity` free resources.
    pub fn new(capacity: u32) -> Self {
        Machine { reserved: vec![Vec::new(); capacity as usize] }
    }

    /// The resources free throughout `[start, end)`, lowest first.
    fn free(&self, start: u64, end: u64) -> Vec<u32> {
        (0..self.reserved.len())
            .filter(|&id| self.reserved[id].iter().all(|&(s, e)| e <= start || end <= s))
            .map(|id| id as u32)
            .collect()
    }

    /// The earliest start from `ready` at which `n` resources are free for `duration`,
    /// with the lowest-numbered of them: `ready` or a later reservation end.
    pub fn earliest(&self, ready: u64, duration: u64, n: u32) -> Option<(u64, Vec<u32>)> {
        let mut starts: Vec<u64> = vec![ready];
        for windows in &self.reserved {
            starts.extend(windows.iter().map(|&(_, e)| e).filter(|&e| e > ready));
        }
        starts.sort_unstable();
        starts.dedup();
        starts.into_iter().find_map(|start| {
            let free = self.free(start, start + duration);
            (free.len() >= n as usize).then(|| (start, free.into_iter().take(n as usize).collect()))
        })
    }

    /// Reserves `ids` over `[start, start + duration)`.
    pub fn reserve(&mut self, start: u64, duration: u64, ids: &[u32]) {
        for &id in ids {
            self.reserved[id as usize].push((start, start + duration));
        }
    }

    /// Plans a job of `n` resources for `duration` arriving at `submit`: its start and
    /// resources, or `None` if the machine has fewer than `n`.
    pub fn plan(&mut self, submit: u64, duration: u64, n: u32) -> Option<(u64, Vec<u32>)> {
        let (start, ids) = self.earliest(submit, duration, n)?;
        self.reserve(start, duration, &ids);
        Some((start, ids))
    }
}

/// Replays `jobs` (in submit order) on `capacity` resources, each job ending at its run
/// time and giving back the rest of its window. With `compress`, at every early end each
/// job still waiting, in queue order, gives up its reservation and takes the earliest one
/// from then on (never later: its old window is free again). Each job's start and
/// resources, or `None` for a job wider than the machine.
pub fn simulate(capacity: u32, jobs: &[Job], compress: bool) -> Vec<Option<(u64, Vec<u32>)>> {
    let mut plan = Timeline::new(capacity, jobs, false);
    let mut waiting: BTreeSet<usize> = BTreeSet::new();
    let mut next = 0;
    loop {
        let arrival = jobs.get(next).map(|j| j.submit);
        if let Some((now, _)) = plan.next_end(arrival) {
            if compress {
                for i in std::mem::take(&mut waiting) {
                    let Some(old) = plan.windows[i].clone().filter(|w| w.start > now) else { continue };
                    plan.unplace(i);
                    let (start, ids) = plan.earliest(i, now).unwrap_or((old.start, old.ids));
                    if start > now {
                        waiting.insert(i);
                    }
                    plan.place(i, start, ids);
                }
            }
            continue;
        }
        let Some(now) = arrival else { break };
        if let Some((start, ids)) =
            plan.fits(next, now).map(|ids| (now, ids)).or_else(|| plan.earliest(next, now))
        {
            if start > now {
                waiting.insert(next);
            }
            plan.place(next, start, ids);
        }
        next += 1;
    }
    plan.starts()
}
