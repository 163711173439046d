//! Figs 5.1-5.6 for one request: its sub-requests co-reserved on any machines
//! (`floatScheduling`, Figs 5.2 and 5.5) or each on its own (`fixScheduling`, Figs 5.3
//! and 5.6); all of them, or none.

use std::cmp::Reverse;

use super::machines::Machines;
use super::{Decision, Request, Sub};

/// Which pair of functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// Co-RSPB's, Figs 5.2 and 5.3.
    Most,
    /// Co-RSBF's, Figs 5.5 and 5.6.
    Least,
}

/// Fig 5.1 (5.4) lines 6-11 for `r`.
pub(super) fn schedule(m: &mut Machines, r: &Request, fit: Fit) -> Decision {
    let mut order: Vec<usize> = (0..r.subs.len()).collect();
    if r.floating {
        // Figs 5.2 and 5.5, line 4; fixScheduling does not sort.
        order.sort_by_key(|&i| Reverse(r.subs[i].cpu_min()));
    }
    let mut reserved: Vec<Option<(usize, u32)>> = vec![None; r.subs.len()];
    for i in order {
        let sub = &r.subs[i];
        let choice = match (r.floating, fit) {
            (true, Fit::Most) => float_most(m, r, sub),
            (true, Fit::Least) => float_least(m, r, sub),
            (false, Fit::Most) => fix_most(m, r, sub),
            (false, Fit::Least) => fix_least(m, r, sub),
        };
        let Some((j, cpu)) = choice else {
            // R_nonsatisfy; every sub-request marked before this one is cancelled.
            for &(j, cpu) in reserved.iter().flatten() {
                m.cancel(j, r.start, r.end, cpu);
            }
            return Decision::Rejected { sub: i };
        };
        // Fig 5.2 line 38 and the like: marked at once, so the next sub-request sees it.
        m.mark(j, r.start, r.end, cpu);
        reserved[i] = Some((j, cpu));
    }
    Decision::Accepted(reserved.into_iter().flatten().collect())
}

/// Fig 5.2 lines 7-37: the machine and the CPU for `sub`, if any.
fn float_most(m: &Machines, r: &Request, sub: &Sub) -> Option<(usize, u32)> {
    let smallest = |j: usize| m.smallest(j, r.start, r.end);
    let mut mach_q_hard: Option<usize> = None;
    let mut mach_q_soft: Option<usize> = None;
    for j in 0..m.count() {
        if smallest(j) >= sub.cpu_max {
            // Lines 11-15: the tightest that meets the hard requirement.
            match mach_q_hard {
                Some(m_r) if smallest(j) >= smallest(m_r) => {}
                _ => mach_q_hard = Some(j),
            }
        } else if smallest(j) >= sub.cpu_min() && mach_q_hard.is_none() {
            // Lines 19-25: the one of the most benefit.
            match mach_q_soft {
                Some(m_r) if sub.benefit(smallest(j)) <= sub.benefit(smallest(m_r)) => {}
                _ => mach_q_soft = Some(j),
            }
        }
    }
    match (mach_q_hard, mach_q_soft) {
        // Lines 33-34.
        (Some(j), _) => Some((j, sub.cpu_max)),
        // Lines 36-37: CPU_smallest of the machine chosen.
        (None, Some(j)) => Some((j, smallest(j))),
        (None, None) => None,
    }
}

/// Fig 5.5 lines 7-23: `CPU_min` on the tightest machine that has it.
fn float_least(m: &Machines, r: &Request, sub: &Sub) -> Option<(usize, u32)> {
    let smallest = |j: usize| m.smallest(j, r.start, r.end);
    let mut mach_q_soft: Option<usize> = None;
    for j in 0..m.count() {
        if smallest(j) >= sub.cpu_min() {
            match mach_q_soft {
                Some(m_r) if smallest(j) >= smallest(m_r) => {}
                _ => mach_q_soft = Some(j),
            }
        }
    }
    mach_q_soft.map(|j| (j, sub.cpu_min()))
}

/// Fig 5.3 lines 4-11: its own machine, all it asks for or all the machine has.
fn fix_most(m: &Machines, r: &Request, sub: &Sub) -> Option<(usize, u32)> {
    let j = sub.machine;
    let smallest = m.smallest(j, r.start, r.end);
    if smallest >= sub.cpu_max {
        Some((j, sub.cpu_max))
    } else if smallest >= sub.cpu_min() {
        Some((j, smallest))
    } else {
        None
    }
}

/// Fig 5.6 lines 4-8: its own machine, `CPU_min`.
fn fix_least(m: &Machines, r: &Request, sub: &Sub) -> Option<(usize, u32)> {
    let j = sub.machine;
    (m.smallest(j, r.start, r.end) >= sub.cpu_min()).then_some((j, sub.cpu_min()))
}
