//! FCFS-EDS and its baseline in fcfs-eds-slotted-array's own model (section 3): each
//! request's window of starts is drawn as in every replay ([`crate::policy::Windows`]),
//! turned into slots, and planned by [`Planner`], which counts nodes per slot. The paper's
//! requests end when their reservations do, so the model plans only (`--mode plan-only`).
//!
//! The workload names no users, so every request is user 0 with its arrival index as
//! `jobId`: a slot's list, in Algorithm 2's order, is then in arrival order.

use std::time::Instant;

use structures::{Kind, RangeSet};
use traces::workload::Workload;

use super::{Mode, Observer, Placement, ReplayConfig, ReplayError, Run};
use crate::fcfs_eds::{Decision, EdsError, Planner, Request, MAX_HORIZON};
use crate::policy::{PolicyKind, Settings};

/// Replays `workload` on a fresh `kind` in the counted model.
///
/// # Errors
/// [`ReplayError::Model`] for a simulated replay or a workload past the planner's
/// horizon; a refused op or a divergence from the oracle otherwise.
pub(super) fn replay(
    kind: Kind,
    workload: &Workload,
    setup: &ReplayConfig,
    settings: &Settings,
    observer: &mut dyn Observer,
    plant: impl FnOnce(&mut Planner),
) -> Result<Run, ReplayError> {
    let started = Instant::now();
    let options = &setup.options;
    if options.mode != Mode::PlanOnly {
        return Err(ReplayError::Model(
            "--model counted plans only, as in fcfs-eds-slotted-array, where a job ends when its reservation does: add --mode plan-only, or use --model ids".to_owned(),
        ));
    }
    let slot = setup.config.slot.max(1);
    let windows = settings.windows.unwrap_or_default();
    let asked = workload
        .requests
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (es, ls) = windows.draw(settings.seed, i, r.submit, slot);
            let job = u32::try_from(i)
                .map_err(|_| ReplayError::Model(format!("request {i}: more than {} requests", u32::MAX)))?;
            let te = r.duration.div_ceil(slot).max(1);
            Ok(Request { user: 0, job, tes: es.div_ceil(slot), tls: ls.div_ceil(slot), te, n: r.n })
        })
        .collect::<Result<Vec<Request>, ReplayError>>()?;
    let last = asked.iter().map(|r| r.tls.saturating_add(r.te)).max().unwrap_or(0);
    if last >= MAX_HORIZON {
        return Err(ReplayError::Model(format!(
            "--model counted: the requests reach slot {last} of {slot} s, past the planner's {MAX_HORIZON}; use a wider --slot or fewer jobs (--limit, --until)"
        )));
    }
    // Every start and end below is at most this, so none overflows.
    if (last + 1).checked_mul(slot).is_none() {
        return Err(ReplayError::Model(format!(
            "--model counted: slot {last} of {slot} s is past the last time there is; use a narrower --slot"
        )));
    }
    let mut planner = Planner::new(kind, workload.capacity, last + 1, setup.verify).map_err(from_eds)?;
    if options.policy == PolicyKind::Flexible {
        planner = planner.baseline();
    }
    plant(&mut planner);
    let mut run = Run::fresh(kind, setup.verify, workload.requests.len());
    let total = workload.requests.len() as u64;
    for (done, (r, a)) in (1..).zip(workload.requests.iter().zip(&asked)) {
        // Reservations that start in the arrival's slot or before have started.
        planner.advance(r.submit / slot + 1);
        *run.counts.entry("requests").or_insert(0) += 1;
        match planner.request(*a).map_err(from_eds)? {
            Decision::Accepted { shifted, .. } => {
                *run.counts.entry("accepted").or_insert(0) += 1;
                if !shifted.is_empty() {
                    *run.counts.entry("accepted after shifting").or_insert(0) += 1;
                    *run.counts.entry("reservations shifted").or_insert(0) += shifted.len() as u64;
                }
            }
            Decision::Rejected => run.unplaced += 1,
        }
        observer.arrived(done, total);
    }
    let starts = planner.starts();
    for (r, a) in workload.requests.iter().zip(&asked) {
        let Some(&start) = starts.get(&a.key()) else { continue };
        let (start, end) = (start * slot, (start + a.te) * slot);
        run.reach = run.reach.max(end.saturating_sub(r.submit));
        // A count holds no ids: `0..n` stands for its `n` nodes.
        let set = RangeSet::from_range(0, a.n);
        run.schedule.push(Placement { id: r.id, submit: r.submit, start, end, set, reserved: true });
    }
    run.ops = planner.ops_by_kind().clone();
    run.wall = started.elapsed();
    Ok(run)
}

fn from_eds(error: EdsError) -> ReplayError {
    match error {
        EdsError::Table(error) => error,
        other => ReplayError::Model(other.to_string()),
    }
}
