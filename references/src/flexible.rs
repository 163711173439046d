//! fcfs-eds-slotted-array, section 4: flexible advance reservation without advance
//! planning, FCFS-EDS's baseline. Each request, in arrival order, takes the earliest start
//! from its `t_es` at which enough resources are free throughout its run, on the
//! lowest-numbered of them, if that start is at most its `t_ls`; otherwise it is rejected.
//! Nothing planned ever moves, and every request holds its whole requested time.

use crate::timeline::{Job, Timeline};

/// Plans `jobs` in order on `capacity` resources, job `i` starting in `windows[i]`
/// (`t_es`, `t_ls`): each one's start and resources, or `None` if rejected.
pub fn plan(capacity: u32, jobs: &[Job], windows: &[(u64, u64)]) -> Vec<Option<(u64, Vec<u32>)>> {
    let whole: Vec<Job> = jobs.iter().map(|j| Job { runtime: j.duration, ..*j }).collect();
    let mut plan = Timeline::new(capacity, &whole, false);
    for (i, &(tes, tls)) in windows.iter().enumerate().take(whole.len()) {
        if let Some((start, ids)) = plan.earliest(i, tes).filter(|&(start, _)| start <= tls) {
            plan.place(i, start, ids);
        }
    }
    plan.starts()
}
