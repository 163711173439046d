//! rbtree-availability-profile, section IV, Algorithm 2: conservative backfilling. Each
//! job, at its arrival and in arrival order, gets the earliest window of its requested
//! time, from its arrival on, in which enough resources are free throughout, around
//! everything planned before; it takes the lowest-numbered of them. A window can only open
//! at the arrival or where some reservation ends, so those are the starts tried, in order.
//!
//! [`plan_only`] is the paper's measure (a job holds its whole requested time);
//! [`simulate`] is conservative backfilling as schedulers run it, jobs ending at their run
//! time and, with compression, the waiting jobs planned again at every early end.

use std::collections::BTreeSet;

use crate::timeline::{Job, Timeline};

/// The paper's measure: [`simulate`] with every job holding its whole requested time, so
/// that nothing ends early and nothing is planned again.
pub fn plan_only(capacity: u32, jobs: &[Job]) -> Vec<Option<(u64, Vec<u32>)>> {
    let whole: Vec<Job> = jobs.iter().map(|j| Job { runtime: j.duration, ..*j }).collect();
    simulate(capacity, &whole, false)
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
