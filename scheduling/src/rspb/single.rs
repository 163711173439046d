//! rspb-priorities-benefit-functions' chapter 4: RSPB (Fig 4.2) and its baseline RB, for
//! requests of one sub-request that may go to any machine. Line numbers are Fig 4.2's.

use super::grid::{Candidate, Decision, Grid, Placed};
use super::model::Request;
use crate::runner::ReplayError;

/// Fig 4.2, lines 15-42, for one request. With `graceful` (RSPB) a machine that cannot
/// give `CPU_max` but can give at least `CPU_min` may take the request with a reduced
/// benefit; without (RB, which has no benefit functions) only `CPU_max` will do.
pub(super) fn schedule(grid: &mut Grid, r: &Request, graceful: bool) -> Result<Decision, ReplayError> {
    let sub = &r.subs[0];
    // Line 17 (RB: anything less than the request would need re-negotiation).
    let cpu_min = if graceful { sub.cpu_min } else { sub.cpu_max };
    let mut hard: Vec<usize> = Vec::new();
    let mut soft: Candidate = None;
    for j in 0..grid.machines() {
        // Lines 19-20.
        let smallest = grid.smallest(j, r)?;
        if smallest >= sub.cpu_max {
            // Lines 21-22: every machine that meets the hard requirement is kept.
            hard.push(j);
        } else if hard.is_empty() && smallest >= cpu_min {
            // Lines 24-32: the one soft machine of greatest benefit (the first of equals).
            match soft {
                Some((_, best)) if sub.benefit(smallest) <= sub.benefit(best) => {}
                _ => soft = Some((j, smallest)),
            }
        }
    }
    // Lines 34-42.
    let placed = if !hard.is_empty() {
        // Line 38: the least loaded over the window (the first of equals).
        let mut best: Option<(u64, usize)> = None;
        for &j in &hard {
            let load = grid.load_sum(j, r)?;
            if best.is_none_or(|(least, _)| load < least) {
                best = Some((load, j));
            }
        }
        let (_, j) = best.unwrap_or((0, hard[0]));
        #[cfg(feature = "planted")]
        let j = if grid.planted == Some(super::Planted::FirstRoomy) { hard[0] } else { j };
        Placed { machine: j, cpu: sub.cpu_max }
    } else if let Some((j, smallest)) = soft {
        // Line 40: all the machine can give over the window.
        Placed { machine: j, cpu: smallest }
    } else {
        return Ok(Decision::Rejected { sub: 0 });
    };
    // Line 41.
    grid.mark(placed, r)?;
    Ok(Decision::Accepted(vec![placed]))
}
