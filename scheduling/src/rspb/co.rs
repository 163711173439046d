//! rspb-priorities-benefit-functions' chapter 5: co-reserving a request's sub-requests,
//! on machines of its choice (fixScheduling) or any (floatScheduling). Co-RSPB gives each
//! sub-request all it asks for where it can (Figs 5.2, 5.3); Co-RSBF gives each only its
//! minimum, packing best fit (Figs 5.5, 5.6). A request with a sub-request no machine can
//! take is rejected, and what its earlier sub-requests reserved is cancelled (line 29 of
//! Fig 5.2 and its like). Line numbers are the figures'.

use super::grid::{Candidate, Decision, Grid, Placed};
use super::model::{Request, Sub};
use crate::runner::ReplayError;

/// How a sub-request is given CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// Co-RSPB: `CPU_max` on the tightest machine that has it, else as much as the
    /// machine of greatest benefit has.
    Most,
    /// Co-RSBF: `CPU_min` on the tightest machine that has it.
    Least,
}

/// Figs 5.2-5.3 (`Most`) or 5.5-5.6 (`Least`) for one request.
pub(super) fn schedule(grid: &mut Grid, r: &Request, fit: Fit) -> Result<Decision, ReplayError> {
    let floating = r.floating();
    // Fig 5.2/5.5 lines 2-5: floating sub-requests by descending CPU_min (stable);
    // fixed ones in their own order (Fig 5.3: "The sorting procedure ... is not
    // necessary here").
    let mut order: Vec<usize> = (0..r.subs.len()).collect();
    if floating {
        order.sort_by_key(|&i| std::cmp::Reverse(r.subs[i].cpu_min));
    }
    let mut placed: Vec<Option<Placed>> = vec![None; r.subs.len()];
    for &i in &order {
        let sub = &r.subs[i];
        let choice = match (sub.machine, fit) {
            (Some(j), _) => fixed(grid, r, sub, j, fit)?,
            (None, Fit::Most) => float_most(grid, r, sub)?,
            (None, Fit::Least) => float_least(grid, r, sub)?,
        };
        match choice {
            Some(p) => {
                grid.mark(p, r)?;
                placed[i] = Some(p);
            }
            None => {
                // Lines 28-30 (5.2), 13-15 (5.3), 18-20 (5.5), 10-12 (5.6).
                for p in placed.iter().flatten() {
                    grid.cancel(*p, r)?;
                }
                return Ok(Decision::Rejected { sub: i });
            }
        }
    }
    Ok(Decision::Accepted(placed.into_iter().flatten().collect()))
}

/// Fig 5.3 lines 4-11 (`Most`) or Fig 5.6 lines 4-8 (`Least`): the sub-request's own
/// machine, if it has at least `CPU_min`.
fn fixed(grid: &mut Grid, r: &Request, sub: &Sub, j: usize, fit: Fit) -> Result<Option<Placed>, ReplayError> {
    let smallest = grid.smallest(j, r)?;
    Ok(match fit {
        Fit::Most if smallest >= sub.cpu_max => Some(Placed { machine: j, cpu: sub.cpu_max }),
        Fit::Most if smallest >= sub.cpu_min => Some(Placed { machine: j, cpu: smallest }),
        Fit::Least if smallest >= sub.cpu_min => Some(Placed { machine: j, cpu: sub.cpu_min }),
        _ => None,
    })
}

/// Fig 5.2 lines 7-37: the machine with the least CPU free among those with `CPU_max`
/// (best fit), else, if none has, the one whose CPU gives the greatest benefit.
fn float_most(grid: &mut Grid, r: &Request, sub: &Sub) -> Result<Option<Placed>, ReplayError> {
    let mut hard: Candidate = None;
    let mut soft: Candidate = None;
    for j in 0..grid.machines() {
        let smallest = grid.smallest(j, r)?;
        if smallest >= sub.cpu_max {
            // Lines 10-15.
            if hard.is_none_or(|(_, tightest)| smallest < tightest) {
                hard = Some((j, smallest));
            }
        } else if smallest >= sub.cpu_min && hard.is_none() {
            // Lines 17-25.
            if soft.is_none_or(|(_, best)| sub.benefit(smallest) > sub.benefit(best)) {
                soft = Some((j, smallest));
            }
        }
    }
    // Lines 32-37.
    #[cfg(feature = "planted")]
    let sub = &match grid.planted {
        Some(super::Planted::MinOnRoomy) => Sub { cpu_max: sub.cpu_min, ..*sub },
        _ => *sub,
    };
    Ok(match (hard, soft) {
        (Some((j, _)), _) => Some(Placed { machine: j, cpu: sub.cpu_max }),
        (None, Some((j, smallest))) => Some(Placed { machine: j, cpu: smallest }),
        (None, None) => None,
    })
}

/// Fig 5.5 lines 7-23: `CPU_min` on the machine with the least CPU free among those that
/// have it (best fit decreasing, section 5.4).
fn float_least(grid: &mut Grid, r: &Request, sub: &Sub) -> Result<Option<Placed>, ReplayError> {
    let mut best: Candidate = None;
    #[cfg(feature = "planted")]
    let last_of_ties = grid.planted == Some(super::Planted::LastOfTies);
    #[cfg(not(feature = "planted"))]
    let last_of_ties = false;
    for j in 0..grid.machines() {
        let smallest = grid.smallest(j, r)?;
        let tighter = |tightest| smallest < tightest || last_of_ties && smallest == tightest;
        if smallest >= sub.cpu_min && best.is_none_or(|(_, tightest)| tighter(tightest)) {
            best = Some((j, smallest));
        }
    }
    Ok(best.map(|(j, _)| Placed { machine: j, cpu: sub.cpu_min }))
}
