//! rspb-priorities-benefit-functions (R. Min's thesis), chapters 4 and 5, on plain
//! per-slot arrays: the dynamic scheduler of Fig 4.1, which collects arriving requests
//! into meta-requests, and the five `scheduleRmeta` of the thesis: RB (its baseline,
//! sections 2.3.1 and 4.5), RSPB (Fig 4.2), Co-RSPB (Figs 5.1-5.3), Co-RSBF (Figs
//! 5.4-5.6) and Co-RSBFR (Figs 5.7, 5.8). Every query scans the window's slots, and
//! every machine is scanned for every sub-request: slow on purpose.
//!
//! Where the thesis is silent, mangled in our copy or contradicts itself, this reads it as
//! `docs/rspb-design.md` resolves it:
//!
//! - a window is `[t_start, t_end)`, one slot per time unit (A7);
//! - the benefit shapes of Fig 1.1, lost in our copy (A3): the step is hard (`CPU_min =
//!   CPU_max`); linear, concave and convex give `x`, `sqrt(x)` and `x²` of the share `x`
//!   reserved, down to `CPU_min = ceil(CPU_max / 4)`, below which they give nothing;
//! - every sort is stable (ties keep arrival, or submission, order) and every comparison
//!   of machines strict, so the first machine scanned wins ties (A16);
//! - RB is Fig 4.2 in arrival order with `CPU_min = CPU_max` (section 1.7 of the note);
//! - Fig 4.2 line 38 takes the least load summed over the window's slots, in CPU units
//!   (every candidate shares the window, so the sum orders as the average does);
//! - a machine chosen for a soft requirement gives all it has free over the window (A5,
//!   A9); a rejected request gives back what its earlier sub-requests took (A32);
//! - refinement counts a sub-request's own reservation as free, starts each sub-request
//!   with empty queues, cancels before it marks, keeps a fixed request on its machines and
//!   takes the sub-requests in submission order (A20-A24).

mod co;
mod machines;
mod refine;
mod single;

use std::cmp::Reverse;

use machines::Machines;

/// The shapes of benefit function (Fig 1.1), as reconstructed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// (a): nothing below the request: a hard QoS requirement.
    Step,
    /// (b): the share reserved.
    Linear,
    /// (c): the share's square root.
    Concave,
    /// (d): the share squared.
    Convex,
}

/// One sub-request `R_k^i` (one in chapter 4): a share of one machine's CPU over its
/// request's whole window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sub {
    /// `CPU_max-k^i`: the CPU that gives the whole benefit, percent.
    pub cpu_max: u32,
    /// The shape of `B_k^i`.
    pub shape: Shape,
    /// The machine it must run on; read only when its request is not floating.
    pub machine: usize,
}

impl Sub {
    /// `CPU_min-k^i`: the least CPU of acceptable benefit (Fig 4.2 line 17, Fig 5.2 line 3).
    pub fn cpu_min(&self) -> u32 {
        match self.shape {
            Shape::Step => self.cpu_max,
            // ceil(25 % of the request), in whole percent.
            _ => self.cpu_max.div_ceil(4),
        }
    }

    /// `B_k^i(cpu)`, in `[0, 1]`.
    pub fn benefit(&self, cpu: u32) -> f64 {
        if cpu >= self.cpu_max {
            return 1.0;
        }
        if cpu < self.cpu_min() {
            return 0.0;
        }
        let x = f64::from(cpu) / f64::from(self.cpu_max);
        match self.shape {
            // Unreachable: a step's minimum is its request.
            Shape::Step => 0.0,
            Shape::Linear => x,
            Shape::Concave => x.sqrt(),
            Shape::Convex => x * x,
        }
    }

    /// Whether it has a hard QoS requirement (Fig 5.8 line 3 refines the others).
    fn soft(&self) -> bool {
        self.cpu_min() < self.cpu_max
    }
}

/// A request `R_k`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// When it reaches the scheduler (requests come in this order).
    pub arrival: u64,
    /// `t_k-start`.
    pub start: u64,
    /// `t_k-end`.
    pub end: u64,
    /// `p_k`.
    pub priority: u32,
    /// `isFloating`: its sub-requests may go to any machine, else each to its own.
    pub floating: bool,
    /// Its sub-requests, in submission order.
    pub subs: Vec<Sub>,
}

/// A reservation a machine holds before the first request: `cpu` over `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// The machine.
    pub machine: usize,
    /// Its first slot.
    pub start: u64,
    /// The slot after its last.
    pub end: u64,
    /// CPU, percent.
    pub cpu: u32,
}

/// A `scheduleRmeta` as the thesis's five differ: the order a meta-request is taken in,
/// how each request is placed, and whether admitted requests are refined after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Algorithm {
    /// The order.
    pub order: Order,
    /// The placement.
    pub place: Place,
    /// Fig 5.7 lines 13-18: refine each admitted request, in the same order.
    pub refine: bool,
}

/// How a meta-request's requests are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// As they arrived (RB).
    Arrival,
    /// By descending priority (Fig 4.2 line 12, Fig 5.1 line 3).
    Priority,
    /// By descending sum of the sub-requests' `CPU_min` (Figs 5.4 and 5.7, line 3).
    SumMin,
}

/// How one request is placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Fig 4.2 without benefit functions: all it asks for, or rejected (RB).
    Whole,
    /// Fig 4.2: all it asks for, else the machine whose CPU gives the most benefit.
    Benefit,
    /// Figs 5.2 and 5.3: each sub-request the most it can get.
    Most,
    /// Figs 5.5 and 5.6: each sub-request the least it accepts, by best fit.
    Least,
}

impl Algorithm {
    /// The Resource Broker (sections 2.3.1 and 4.5).
    pub const RB: Self = Self { order: Order::Arrival, place: Place::Whole, refine: false };
    /// RSPB (section 4.4).
    pub const RSPB: Self = Self { order: Order::Priority, place: Place::Benefit, refine: false };
    /// Co-RSPB (section 5.3).
    pub const CO_RSPB: Self = Self { order: Order::Priority, place: Place::Most, refine: false };
    /// Co-RSBF (section 5.4).
    pub const CO_RSBF: Self = Self { order: Order::SumMin, place: Place::Least, refine: false };
    /// Co-RSBFR (section 5.4).
    pub const CO_RSBFR: Self = Self { order: Order::SumMin, place: Place::Least, refine: true };
}

/// What became of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Admitted: each sub-request's `(machine, CPU)`, in submission order.
    Accepted(Vec<(usize, u32)>),
    /// Put in `R_nonsatisfy` when sub-request `sub` (its position in the request) found
    /// no machine.
    Rejected {
        /// The sub-request that failed.
        sub: usize,
    },
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Each request's decision, in arrival order.
    pub decisions: Vec<Decision>,
    /// The meta-requests scheduled (those holding a request).
    pub events: usize,
}

/// Runs `algorithm` over `requests` (in arrival order) on machines giving `cpu_sys` to
/// the Grid and holding `held` from the start, with meta-requests collected for
/// `interval` (Fig 4.1's `Δt`).
///
/// # Panics
/// If `interval` is 0, if RB or RSPB meets a request that is not one floating sub-request,
/// if a sub-request or a held reservation names a machine that does not exist, or if
/// `held` overfills a machine.
pub fn schedule(
    algorithm: Algorithm,
    cpu_sys: &[u32],
    held: &[Held],
    requests: &[Request],
    interval: u64,
) -> Outcome {
    assert!(interval > 0, "Δt of 0: Fig 4.1 would never advance");
    let slots = requests.iter().map(|r| r.end).chain(held.iter().map(|h| h.end)).max().unwrap_or(0);
    let mut machines = Machines::new(cpu_sys, slots as usize);
    for h in held {
        machines.mark(h.machine, h.start, h.end, h.cpu);
    }
    let mut decisions: Vec<Option<Decision>> = vec![None; requests.len()];
    let metas = meta_requests(requests, interval);
    for meta in &metas {
        schedule_meta(algorithm, &mut machines, requests, meta, &mut decisions);
    }
    let decisions = decisions.into_iter().map(|d| d.expect("every request is in a meta-request")).collect();
    Outcome { decisions, events: metas.len() }
}

/// Fig 4.1 from `t0 = 0`: each meta-request (indexes into `requests`) that holds a
/// request; an empty one schedules nothing.
fn meta_requests(requests: &[Request], interval: u64) -> Vec<Vec<usize>> {
    let mut metas = Vec::new();
    let (mut t, mut next) = (0, 0);
    while next < requests.len() {
        t += interval;
        let mut meta = Vec::new();
        // "while (current time < t)": every request that arrives before the event.
        while next < requests.len() && requests[next].arrival < t {
            meta.push(next);
            if requests[next].start < t {
                // Scheduled now, at its arrival: no later request arrives before it.
                t = requests[next].arrival;
            }
            next += 1;
        }
        if !meta.is_empty() {
            metas.push(meta);
        }
    }
    metas
}

/// `scheduleRmeta`: Fig 4.2, 5.1, 5.4 or 5.7 over one meta-request.
fn schedule_meta(
    algorithm: Algorithm,
    machines: &mut Machines,
    requests: &[Request],
    meta: &[usize],
    decisions: &mut [Option<Decision>],
) {
    let mut sorted = meta.to_vec();
    match algorithm.order {
        // RB decides as requests arrive.
        Order::Arrival => {}
        Order::Priority => sorted.sort_by_key(|&k| Reverse(requests[k].priority)),
        Order::SumMin => {
            let sum_min = |k: usize| requests[k].subs.iter().map(|s| u64::from(s.cpu_min())).sum::<u64>();
            sorted.sort_by_key(|&k| Reverse(sum_min(k)));
        }
    }
    for &k in &sorted {
        let r = &requests[k];
        decisions[k] = Some(match algorithm.place {
            Place::Whole => single::schedule(machines, r, false),
            Place::Benefit => single::schedule(machines, r, true),
            Place::Most => co::schedule(machines, r, co::Fit::Most),
            Place::Least => co::schedule(machines, r, co::Fit::Least),
        });
    }
    if algorithm.refine {
        // Fig 5.7 lines 13-18: the admitted ones, in the same order.
        for &k in &sorted {
            if let Some(Decision::Accepted(reserved)) = &mut decisions[k] {
                refine::refine(machines, &requests[k], reserved);
            }
        }
    }
}
