//! The requests of rspb-priorities-benefit-functions (sections 4.3 and 5.2): machines
//! that dedicate a share of their CPU to the Grid, and requests of one or more
//! sub-requests, each a share of one machine's CPU over the request's window, with a
//! priority and a benefit function. Every input is checked here, before any machine's
//! state changes.

use structures::Time;
use thiserror::Error;

/// CPU in percent of one machine: a machine giving 70 % to the Grid has 70 units.
pub type Cpu = u32;

/// The shapes of benefit function of the thesis's Fig 1.1. The figure's drawings are not
/// in our copy and the text gives no formula, so the four are reconstructed from what it
/// says (section 1.4, 4.5): (a) gives nothing below the requested CPU, the others give a
/// reduced benefit down to a floor of 25 % of it (the only number the thesis gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// Fig 1.1 (a): all or nothing, a hard QoS requirement.
    Step,
    /// Fig 1.1 (b): benefit in proportion to the share of the request reserved.
    Linear,
    /// Fig 1.1 (c): most of the benefit early, `sqrt` of the share.
    Concave,
    /// Fig 1.1 (d): little of the benefit until near the request, the share squared.
    Convex,
}

impl Shape {
    /// The four, each drawn for a quarter of the (sub-)requests (sections 4.5, 5.6).
    pub const ALL: [Shape; 4] = [Shape::Step, Shape::Linear, Shape::Concave, Shape::Convex];

    /// The share of the requested CPU below which a soft shape gives no benefit (section
    /// 4.5: "requested CPU * 25%").
    pub const SOFT_FLOOR: f64 = 0.25;

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Step => "step",
            Shape::Linear => "linear",
            Shape::Concave => "concave",
            Shape::Convex => "convex",
        }
    }

    /// The least CPU that still gives a benefit when `cpu_max` gives the full one:
    /// `cpu_max` for the step, else `ceil(floor * cpu_max)` (at least 1).
    pub fn cpu_min(self, cpu_max: Cpu, floor: f64) -> Cpu {
        match self {
            Shape::Step => cpu_max,
            // Less a hair, so that a product meant to be whole (0.3 * 10) is not rounded up.
            _ => ((floor * f64::from(cpu_max) - 1e-9).ceil() as Cpu).clamp(1, cpu_max.max(1)),
        }
    }

    /// The benefit of a share `x` in `[floor, 1)` of the request.
    fn partial(self, x: f64) -> f64 {
        match self {
            Shape::Step => 0.0,
            Shape::Linear => x,
            Shape::Concave => x.sqrt(),
            Shape::Convex => x * x,
        }
    }
}

/// One sub-request: a share of one machine's CPU for the request's whole window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sub {
    /// `CPU_max`: the CPU for the full benefit (what is asked for).
    pub cpu_max: Cpu,
    /// `CPU_min`: the least CPU with a benefit, from its shape.
    pub cpu_min: Cpu,
    /// The shape of its benefit function.
    pub shape: Shape,
    /// The machine it must run on, for a request on fixed machines; `None` when floating.
    pub machine: Option<usize>,
}

impl Sub {
    /// The benefit `B(cpu)` in `[0, 1]` of reserving `cpu` for it.
    pub fn benefit(&self, cpu: Cpu) -> f64 {
        if cpu >= self.cpu_max {
            1.0
        } else if cpu < self.cpu_min {
            0.0
        } else {
            self.shape.partial(f64::from(cpu) / f64::from(self.cpu_max))
        }
    }

    /// Whether it has a hard QoS requirement: nothing less than `CPU_max` will do.
    pub fn hard(&self) -> bool {
        self.cpu_min == self.cpu_max
    }
}

/// A reservation request `R_k`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Its number, from 1 in arrival order.
    pub id: u64,
    /// When it reaches the scheduler.
    pub arrival: Time,
    /// `t_start`: the start it asks for.
    pub start: Time,
    /// `t_end - t_start`.
    pub duration: Time,
    /// `p_k`: higher is more important.
    pub priority: u32,
    /// Its sub-requests (one in chapter 4's model).
    pub subs: Vec<Sub>,
}

impl Request {
    /// `t_end`.
    pub fn end(&self) -> Time {
        self.start.saturating_add(self.duration)
    }

    /// Whether its sub-requests may go to any machine (else each names its own).
    pub fn floating(&self) -> bool {
        self.subs.iter().all(|s| s.machine.is_none())
    }

    /// `Σ CPU_min`, Co-RSBF's sort key (section 5.4).
    pub fn sum_min(&self) -> u64 {
        self.subs.iter().map(|s| u64::from(s.cpu_min)).sum()
    }
}

/// Machines, requests and the scheduler's interval: one run's input.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// `CPU_sys_j`: each machine's CPU given to the Grid, percent.
    pub dedication: Vec<Cpu>,
    /// Requests in arrival order.
    pub requests: Vec<Request>,
    /// `Δt`: how long requests are collected into a meta-request (Fig 4.1).
    pub interval: Time,
    /// The highest priority a request may have (the lowest is 1).
    pub priority_max: u32,
    /// How far past its arrival a request's window may end: the reach of every machine's
    /// time slot table.
    pub horizon: Time,
    /// Reservations the machines hold before the first request (another scheduler's
    /// load, or a test's setting); the thesis's workloads start empty.
    pub held: Vec<Held>,
}

/// A reservation held from the start: `cpu` of `machine` over `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// The machine.
    pub machine: usize,
    /// First instant.
    pub start: Time,
    /// First instant after.
    pub end: Time,
    /// CPU, percent.
    pub cpu: Cpu,
}

/// The most machines, requests and sub-requests per request a run takes, so that
/// memory and time stay bounded whatever the input.
pub const MAX_MACHINES: usize = 1_000;
/// See [`MAX_MACHINES`].
pub const MAX_REQUESTS: usize = 1_000_000;
/// See [`MAX_MACHINES`].
pub const MAX_SUBS: usize = 64;
/// The longest reach of a time slot table, in time units (one slot each).
pub const MAX_HORIZON: Time = 1 << 20;

/// Why a workload is refused, naming the request (by id) and sub-request (from 0).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ModelError {
    /// No machine, too many, or one that gives none or more than all of its CPU.
    #[error("machines: {0}")]
    Machines(String),
    /// `Δt` of zero.
    #[error("scheduling interval 0: requests must be collected for at least one time unit")]
    Interval,
    /// More requests than [`MAX_REQUESTS`].
    #[error("{0} requests are more than {MAX_REQUESTS}")]
    TooMany(usize),
    /// A horizon of zero or past [`MAX_HORIZON`].
    #[error("horizon {0}: it must be 1 to {MAX_HORIZON} time units")]
    Horizon(Time),
    /// A request out of arrival order.
    #[error("request {id}: arrives at {arrival}, before the request listed ahead of it")]
    Order {
        /// The request.
        id: u64,
        /// Its arrival.
        arrival: Time,
    },
    /// A request with no sub-request, or more than [`MAX_SUBS`].
    #[error("request {id}: {count} sub-requests; a request has 1 to {MAX_SUBS}")]
    Subs {
        /// The request.
        id: u64,
        /// How many it has.
        count: usize,
    },
    /// A priority outside `1..=priority_max`.
    #[error("request {id}: priority {priority} outside 1..={max}")]
    Priority {
        /// The request.
        id: u64,
        /// Its priority.
        priority: u32,
        /// The highest allowed.
        max: u32,
    },
    /// A window that starts before its arrival, is empty, or ends beyond the horizon.
    #[error("request {id}: window [{start}, {end}) {why}")]
    Window {
        /// The request.
        id: u64,
        /// `t_start`.
        start: Time,
        /// `t_end` (saturated).
        end: Time,
        /// What is wrong.
        why: String,
    },
    /// A sub-request asking for more CPU than a whole machine, or for none.
    #[error("request {id}, sub-request {sub}: {cpu} % of CPU {why}")]
    Cpu {
        /// The request.
        id: u64,
        /// The sub-request.
        sub: usize,
        /// `CPU_max`.
        cpu: Cpu,
        /// What is wrong.
        why: String,
    },
    /// A benefit function whose least useful CPU is above what is asked for, or zero.
    #[error("request {id}, sub-request {sub}: benefit minimum {cpu_min} % {why} (requested {cpu_max} %)")]
    Benefit {
        /// The request.
        id: u64,
        /// The sub-request.
        sub: usize,
        /// `CPU_min`.
        cpu_min: Cpu,
        /// `CPU_max`.
        cpu_max: Cpu,
        /// What is wrong.
        why: &'static str,
    },
    /// A held reservation on no machine, beyond the horizon, empty, or more than the
    /// machine has free.
    #[error("held reservation {index}: {why}")]
    Held {
        /// Its position in the list, from 0.
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// Sub-requests that mix fixed and floating machines, or name a machine that does
    /// not exist.
    #[error("request {id}, sub-request {sub}: {why}")]
    Machine {
        /// The request.
        id: u64,
        /// The sub-request.
        sub: usize,
        /// What is wrong.
        why: String,
    },
}

impl Workload {
    /// Checks every bound and every request.
    ///
    /// # Errors
    /// The first problem found, naming the request and sub-request.
    pub fn validate(&self) -> Result<(), ModelError> {
        let machines = self.dedication.len();
        if machines == 0 || machines > MAX_MACHINES {
            return Err(ModelError::Machines(format!("{machines}; a run has 1 to {MAX_MACHINES}")));
        }
        if let Some((j, &d)) = self.dedication.iter().enumerate().find(|(_, &d)| d == 0 || d > 100) {
            return Err(ModelError::Machines(format!(
                "machine {j} gives {d} % of its CPU; 1 to 100 % can be given"
            )));
        }
        if self.interval == 0 {
            return Err(ModelError::Interval);
        }
        if self.requests.len() > MAX_REQUESTS {
            return Err(ModelError::TooMany(self.requests.len()));
        }
        if self.horizon == 0 || self.horizon > MAX_HORIZON {
            return Err(ModelError::Horizon(self.horizon));
        }
        self.check_held()?;
        let mut last = 0;
        for r in &self.requests {
            if r.arrival < last {
                return Err(ModelError::Order { id: r.id, arrival: r.arrival });
            }
            last = r.arrival;
            self.check_request(r)?;
        }
        Ok(())
    }

    /// Held reservations must fit their machines.
    fn check_held(&self) -> Result<(), ModelError> {
        if self.held.len() > MAX_REQUESTS {
            return Err(ModelError::TooMany(self.held.len()));
        }
        // Per machine, where the load changes: (time, 0 for an end or 1 for a start, which
        // reservation, +cpu or -cpu). Ends go first at an instant (windows are half-open),
        // and the reservation named is the first in the list that does not fit.
        let mut changes: Vec<Vec<(Time, u8, usize, i64)>> = vec![Vec::new(); self.dedication.len()];
        for (index, h) in self.held.iter().enumerate() {
            let bad = |why: String| Err(ModelError::Held { index, why });
            let Some(machine) = changes.get_mut(h.machine) else {
                return bad(format!("machine {} does not exist", h.machine));
            };
            if h.start >= h.end || h.cpu == 0 {
                return bad(format!("[{}, {}) of {} %: empty", h.start, h.end, h.cpu));
            }
            if h.end > self.horizon {
                return bad(format!("ends at {}, beyond the horizon {}", h.end, self.horizon));
            }
            machine.push((h.start, 1, index, i64::from(h.cpu)));
            machine.push((h.end, 0, index, -i64::from(h.cpu)));
        }
        for (j, machine) in changes.iter_mut().enumerate() {
            machine.sort_unstable();
            let mut load = 0;
            for &(t, _, index, delta) in machine.iter() {
                load += delta;
                if load > i64::from(self.dedication[j]) {
                    let why = format!(
                        "at {t}, machine {j} would hold {load} % of the {} % it gives",
                        self.dedication[j]
                    );
                    return Err(ModelError::Held { index, why });
                }
            }
        }
        Ok(())
    }

    fn check_request(&self, r: &Request) -> Result<(), ModelError> {
        let id = r.id;
        if r.subs.is_empty() || r.subs.len() > MAX_SUBS {
            return Err(ModelError::Subs { id, count: r.subs.len() });
        }
        if r.priority == 0 || r.priority > self.priority_max {
            return Err(ModelError::Priority { id, priority: r.priority, max: self.priority_max });
        }
        let window = |why: String| ModelError::Window { id, start: r.start, end: r.end(), why };
        if r.duration == 0 {
            return Err(window("is empty".into()));
        }
        if r.start < r.arrival {
            return Err(window(format!("starts before the request arrives at {}", r.arrival)));
        }
        if r.start.checked_add(r.duration).is_none_or(|end| end - r.arrival > self.horizon) {
            return Err(window(format!(
                "ends beyond the horizon: at most {} time units after its arrival at {}",
                self.horizon, r.arrival
            )));
        }
        let floating = r.subs[0].machine.is_none();
        for (k, s) in r.subs.iter().enumerate() {
            let bad_cpu = |why: String| ModelError::Cpu { id, sub: k, cpu: s.cpu_max, why };
            let bad_benefit =
                |why| ModelError::Benefit { id, sub: k, cpu_min: s.cpu_min, cpu_max: s.cpu_max, why };
            if s.machine.is_none() != floating {
                return Err(ModelError::Machine {
                    id,
                    sub: k,
                    why: "fixed and floating sub-requests mixed in one request".into(),
                });
            }
            if let Some(j) = s.machine.filter(|&j| j >= self.dedication.len()) {
                let why = format!("machine {j} does not exist (there are {})", self.dedication.len());
                return Err(ModelError::Machine { id, sub: k, why });
            }
            if s.cpu_max == 0 {
                return Err(bad_cpu("is nothing to reserve".into()));
            }
            // More than a machine has: no machine could ever give it. Less than a machine
            // gives to the Grid but more than the ones it may use do is a request the
            // algorithms degrade or reject, as the thesis's own workloads hold them.
            if s.cpu_max > 100 {
                return Err(bad_cpu("is above all of a machine's CPU".into()));
            }
            if s.cpu_min == 0 {
                return Err(bad_benefit("is zero"));
            }
            if s.cpu_min > s.cpu_max {
                return Err(bad_benefit("is above the request"));
            }
        }
        Ok(())
    }
}
