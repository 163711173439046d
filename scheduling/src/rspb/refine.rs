//! Co-RSBFR's refineScheduling (rspb-priorities-benefit-functions, Fig 5.8): after
//! Co-RSBF has admitted a request's sub-requests at their minimum, each soft one is moved
//! to the machine that gives it `CPU_max` with the least to spare, or else the most
//! benefit (its own machine counting what it holds there); then each still short of
//! `CPU_max` takes what its machine has freed since. It never rejects. Line numbers are
//! Fig 5.8's.

use super::grid::{Candidate, Grid, Placed};
use super::model::Request;
use crate::runner::ReplayError;

/// Refines the reservations `placed` (in `r`'s sub-request order) of an admitted request.
pub(super) fn refine(grid: &mut Grid, r: &Request, placed: &mut [Placed]) -> Result<(), ReplayError> {
    let floating = r.floating();
    // Round 1, lines 2-33.
    for (i, sub) in r.subs.iter().enumerate() {
        if sub.hard() {
            continue;
        }
        let own = placed[i];
        // Lines 4-9: its own machine, what it holds there counted as free.
        let mine = grid.smallest(own.machine, r)? + own.cpu;
        let (mut hard, mut soft): (Candidate, Candidate) = if mine >= sub.cpu_max {
            (Some((own.machine, mine)), None)
        } else {
            (None, Some((own.machine, mine)))
        };
        // Lines 10-25 (a fixed request stays on its machines).
        for j in (0..grid.machines()).filter(|&j| floating && j != own.machine) {
            let smallest = grid.smallest(j, r)?;
            if smallest >= sub.cpu_max {
                if hard.is_none_or(|(_, tightest)| smallest < tightest) {
                    hard = Some((j, smallest));
                }
            } else if hard.is_none() && soft.is_none_or(|(_, best)| sub.benefit(smallest) > sub.benefit(best))
            {
                soft = Some((j, smallest));
            }
        }
        // Lines 26-32: cancel first, since the choice may be the machine it is on.
        let chosen = match (hard, soft) {
            (Some((j, _)), _) => Placed { machine: j, cpu: sub.cpu_max },
            (None, Some((j, cpu))) => Placed { machine: j, cpu },
            (None, None) => own,
        };
        if chosen != own {
            grid.cancel(own, r)?;
            grid.mark(chosen, r)?;
            placed[i] = chosen;
        }
    }
    #[cfg(feature = "planted")]
    if grid.planted == Some(super::Planted::OneRound) {
        return Ok(());
    }
    // Round 2, lines 34-44: a reservation on a machine another sub-request left may grow.
    for (i, sub) in r.subs.iter().enumerate() {
        let own = placed[i];
        if own.cpu >= sub.cpu_max {
            continue;
        }
        let grown = (grid.smallest(own.machine, r)? + own.cpu).min(sub.cpu_max);
        if grown != own.cpu {
            let chosen = Placed { machine: own.machine, cpu: grown };
            grid.cancel(own, r)?;
            grid.mark(chosen, r)?;
            placed[i] = chosen;
        }
    }
    Ok(())
}
