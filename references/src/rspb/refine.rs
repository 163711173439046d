//! Fig 5.8, `refineScheduling`, for one admitted request of Co-RSBFR: round 1 moves each
//! soft sub-request to the tightest machine that has all it asks for, else to the one of
//! most benefit, its own machine counting what it holds there; round 2 grows in place
//! what is still short, on CPU a later move freed.

use super::machines::Machines;
use super::Request;

/// Refines `reserved`, each sub-request's `(machine, CPU)` in submission order.
pub(super) fn refine(m: &mut Machines, r: &Request, reserved: &mut [(usize, u32)]) {
    let (start, end) = (r.start, r.end);
    // Round 1, lines 2-33.
    for (i, sub) in r.subs.iter().enumerate() {
        if !sub.soft() {
            continue;
        }
        let (s, cpu) = reserved[i];
        // Lines 4-9: what Co-RSBF gave it, CPU_min, is free to it. A queue holds a machine
        // and the CPU_smallest it is compared by.
        let own = sub.cpu_min() + m.smallest(s, start, end);
        let (mut mach_q_hard, mut mach_q_soft) =
            if own >= sub.cpu_max { (Some((s, own)), None) } else { (None, Some((s, own))) };
        // Lines 10-25; a fixed request stays on its machines (A20).
        for j in (0..m.count()).filter(|&j| r.floating && j != s) {
            let smallest = m.smallest(j, start, end);
            if smallest >= sub.cpu_max {
                match mach_q_hard {
                    Some((_, m_r)) if smallest >= m_r => {}
                    _ => mach_q_hard = Some((j, smallest)),
                }
            } else if mach_q_hard.is_none() {
                match mach_q_soft {
                    Some((_, m_r)) if sub.benefit(smallest) <= sub.benefit(m_r) => {}
                    _ => mach_q_soft = Some((j, smallest)),
                }
            }
        }
        // Lines 26-31.
        let chosen = match (mach_q_hard, mach_q_soft) {
            (Some((j, _)), _) => (j, sub.cpu_max),
            (None, Some(soft)) => soft,
            (None, None) => unreachable!("its own machine is in one queue"),
        };
        // Line 32, the cancel first: the choice may be the machine it is on.
        m.cancel(s, start, end, cpu);
        m.mark(chosen.0, start, end, chosen.1);
        reserved[i] = chosen;
    }
    // Round 2, lines 34-44.
    for (i, sub) in r.subs.iter().enumerate() {
        let (s, cpu) = reserved[i];
        if cpu < sub.cpu_max {
            // Line 38: what it holds counts as free.
            let adjusted = cpu + m.smallest(s, start, end);
            m.cancel(s, start, end, cpu);
            m.mark(s, start, end, adjusted.min(sub.cpu_max));
            reserved[i] = (s, adjusted.min(sub.cpu_max));
        }
    }
}
