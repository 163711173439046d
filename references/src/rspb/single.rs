//! Fig 4.2, lines 15-42, for one request of chapter 4 (one sub-request, any machine).

use super::machines::Machines;
use super::{Decision, Request};

/// Schedules `r`; `graceful` is RSPB, without it RB, which has no benefit function:
/// anything less than the request would need re-negotiation, counted as a rejection.
pub(super) fn schedule(m: &mut Machines, r: &Request, graceful: bool) -> Decision {
    assert!(r.floating && r.subs.len() == 1, "chapter 4 schedules one sub-request on any machine");
    let sub = &r.subs[0];
    let (start, end) = (r.start, r.end);
    // Line 17.
    let cpu_min = if graceful { sub.cpu_min() } else { sub.cpu_max };
    // Line 22 queues every machine that meets the hard requirement; lines 30 and 32 keep
    // one soft machine.
    let mut mach_queue_hard: Vec<usize> = Vec::new();
    let mut mach_queue_soft: Option<usize> = None;
    for j in 0..m.count() {
        let smallest = m.smallest(j, start, end);
        if smallest >= sub.cpu_max {
            mach_queue_hard.push(j);
        } else if mach_queue_hard.is_empty() && smallest >= cpu_min {
            match mach_queue_soft {
                Some(i) => {
                    if sub.benefit(smallest) > sub.benefit(m.smallest(i, start, end)) {
                        mach_queue_soft = Some(j);
                    }
                }
                None => mach_queue_soft = Some(j),
            }
        }
    }
    // Lines 34-35.
    let (j, cpu) = if let Some(&first) = mach_queue_hard.first() {
        // Line 38: the lowest average load over the window; the first of equals.
        let mut least = first;
        for &j in &mach_queue_hard {
            if m.load_sum(j, start, end) < m.load_sum(least, start, end) {
                least = j;
            }
        }
        (least, sub.cpu_max)
    } else if let Some(j) = mach_queue_soft {
        // Line 40: all the machine can give.
        (j, m.smallest(j, start, end))
    } else {
        return Decision::Rejected { sub: 0 };
    };
    // Line 41.
    m.mark(j, start, end, cpu);
    Decision::Accepted(vec![(j, cpu)])
}
