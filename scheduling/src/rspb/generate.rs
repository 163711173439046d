//! The thesis's workloads (rspb-priorities-benefit-functions, sections 4.5 and 5.6), drawn
//! from one RNG seed. Each quantity has its own random stream, so an experiment that
//! sweeps one parameter changes nothing else about the requests.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use structures::Time;
use thiserror::Error;

use super::model::{Cpu, ModelError, Request, Shape, Sub, Workload, MAX_MACHINES, MAX_REQUESTS, MAX_SUBS};

/// How many requests a workload has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Count {
    /// As many as arrive in this many time units (chapter 4: 100,000).
    Within(Time),
    /// Exactly this many (chapter 5: 300).
    Exactly(usize),
}

/// A workload's parameters. Ranges are inclusive and drawn uniformly.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Machines.
    pub machines: usize,
    /// The CPU each gives to the Grid, percent.
    pub dedication: (Cpu, Cpu),
    /// How many requests.
    pub count: Count,
    /// Mean time between arrivals (a Poisson process).
    pub mean_gap: f64,
    /// Sub-requests per request.
    pub subs: (usize, usize),
    /// CPU asked for by each sub-request, percent.
    pub cpu: (Cpu, Cpu),
    /// Request durations.
    pub duration: (Time, Time),
    /// A request starts this long after its arrival, plus a uniform share of `spread`.
    pub lead: Time,
    /// See `lead`.
    pub spread: Time,
    /// Priorities are drawn from `1..=priority_max`.
    pub priority_max: u32,
    /// The share of requests on machines of their own choice (each sub-request's drawn
    /// uniformly); the others float.
    pub fixed: f64,
    /// `Δt`, the scheduling interval.
    pub interval: Time,
    /// The share of `CPU_max` below which a soft benefit function gives nothing.
    pub soft_floor: f64,
}

impl Params {
    /// Chapter 4 (section 4.5): 10 machines each giving 70 %, requests of 20-70 % for
    /// 20-300 time units starting uniformly over 4,320, Poisson arrivals over 100,000
    /// time units, "about 10,505 requests" (so a mean gap of 100,000 / 10,505). The
    /// thesis gives no interval or priorities for chapter 4: chapter 5's (50, 1-100).
    pub fn chapter4() -> Self {
        Self {
            machines: 10,
            dedication: (70, 70),
            count: Count::Within(100_000),
            mean_gap: 100_000.0 / 10_505.0,
            subs: (1, 1),
            cpu: (20, 70),
            duration: (20, 300),
            lead: 0,
            spread: 4_320,
            priority_max: 100,
            fixed: 0.0,
            interval: 50,
            soft_floor: Shape::SOFT_FLOOR,
        }
    }

    /// Chapter 5 (section 5.6): 10 machines giving 50-100 %, 300 requests of 1-6
    /// sub-requests of 10-90 % for 20-180 time units starting uniformly over 4,320,
    /// priorities 1-100, 80 % floating, interval 50. It gives no arrival rate: chapter 4's.
    pub fn chapter5() -> Self {
        Self {
            dedication: (50, 100),
            count: Count::Exactly(300),
            subs: (1, 6),
            cpu: (10, 90),
            duration: (20, 180),
            fixed: 0.2,
            ..Self::chapter4()
        }
    }

    /// How far past its arrival a request may end.
    fn horizon(&self) -> Option<Time> {
        self.lead.checked_add(self.spread)?.checked_add(self.duration.1)
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// A message naming the parameter and the bad value.
    pub fn validate(&self) -> Result<(), ParamError> {
        let bad = |what: &'static str, why: String| Err(ParamError { what, why });
        let (d_lo, d_hi) = self.dedication;
        if self.machines == 0 || self.machines > MAX_MACHINES {
            return bad("machines", format!("{}: 1 to {MAX_MACHINES}", self.machines));
        }
        if d_lo == 0 || d_lo > d_hi || d_hi > 100 {
            return bad("dedication", format!("{d_lo}-{d_hi} %: a range within 1-100 %"));
        }
        let (c_lo, c_hi) = self.cpu;
        if c_lo == 0 || c_lo > c_hi {
            return bad("cpu", format!("{c_lo}-{c_hi} %: a range from 1 %"));
        }
        if c_hi > d_hi {
            return bad(
                "cpu",
                format!("up to {c_hi} % is above every machine's dedication (at most {d_hi} %)"),
            );
        }
        let (s_lo, s_hi) = self.subs;
        if s_lo == 0 || s_lo > s_hi || s_hi > MAX_SUBS {
            return bad("sub-requests", format!("{s_lo}-{s_hi}: a range within 1-{MAX_SUBS}"));
        }
        if self.duration.0 == 0 || self.duration.0 > self.duration.1 {
            return bad("duration", format!("{}-{}: a range from 1", self.duration.0, self.duration.1));
        }
        if self.interval == 0 {
            return bad("interval", "0: requests must be collected for at least one time unit".into());
        }
        if self.priority_max == 0 {
            return bad("priority", "a highest priority of 0: priorities run from 1".into());
        }
        if !(0.0..=1.0).contains(&self.fixed) {
            return bad("fixed", format!("{}: a share in 0-1", self.fixed));
        }
        if !(self.soft_floor > 0.0 && self.soft_floor <= 1.0) {
            return bad(
                "soft floor",
                format!("{}: the benefit minimum must be above 0 and not above the request", self.soft_floor),
            );
        }
        if !(self.mean_gap.is_finite() && self.mean_gap > 0.0) {
            return bad("mean gap", format!("{}: a positive time", self.mean_gap));
        }
        let expected = match self.count {
            Count::Within(t) => t as f64 / self.mean_gap,
            Count::Exactly(n) => n as f64,
        };
        if expected > MAX_REQUESTS as f64 {
            return bad("requests", format!("about {expected:.0}: more than {MAX_REQUESTS}"));
        }
        match self.horizon() {
            Some(h) if h <= super::model::MAX_HORIZON => Ok(()),
            _ => bad(
                "start",
                format!(
                    "lead {} plus spread {} plus duration {}: beyond the horizon of {} time units",
                    self.lead,
                    self.spread,
                    self.duration.1,
                    super::model::MAX_HORIZON
                ),
            ),
        }
    }

    /// The workload of `seed`.
    ///
    /// # Errors
    /// Bad parameters, or a workload its own checks refuse.
    pub fn workload(&self, seed: u64) -> Result<Workload, ParamError> {
        self.validate()?;
        // One stream per quantity (SplitMix-style spacing of the seeds).
        let stream = |k: u64| StdRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(k));
        let (mut arrivals, mut machines, mut sizes, mut cpus, mut durations) =
            (stream(1), stream(2), stream(3), stream(4), stream(5));
        let (mut starts, mut priorities, mut shapes, mut fixed, mut places) =
            (stream(6), stream(7), stream(8), stream(9), stream(10));
        let dedication = (0..self.machines)
            .map(|_| machines.random_range(self.dedication.0..=self.dedication.1))
            .collect();
        let mut requests = Vec::new();
        let mut clock = 0.0_f64;
        loop {
            clock += -self.mean_gap * (1.0 - arrivals.random::<f64>()).ln();
            let arrival = clock as Time;
            match self.count {
                Count::Within(t) if arrival >= t => break,
                Count::Exactly(n) if requests.len() >= n => break,
                _ if requests.len() >= MAX_REQUESTS => {
                    return Err(ParamError {
                        what: "requests",
                        why: format!("more than {MAX_REQUESTS} arrived"),
                    })
                }
                _ => {}
            }
            let n = sizes.random_range(self.subs.0..=self.subs.1);
            let is_fixed = fixed.random::<f64>() < self.fixed;
            let subs = (0..n)
                .map(|_| {
                    let cpu_max = cpus.random_range(self.cpu.0..=self.cpu.1);
                    let shape = Shape::ALL[shapes.random_range(0..Shape::ALL.len())];
                    // Drawn for every sub-request, so that the share of fixed requests
                    // changes which are fixed and nothing else.
                    let place = places.random_range(0..self.machines);
                    let machine = is_fixed.then_some(place);
                    Sub { cpu_max, cpu_min: shape.cpu_min(cpu_max, self.soft_floor), shape, machine }
                })
                .collect();
            requests.push(Request {
                id: requests.len() as u64 + 1,
                arrival,
                start: arrival + self.lead + starts.random_range(0..=self.spread),
                duration: durations.random_range(self.duration.0..=self.duration.1),
                priority: priorities.random_range(1..=self.priority_max),
                subs,
            });
        }
        let workload = Workload {
            dedication,
            requests,
            interval: self.interval,
            priority_max: self.priority_max,
            horizon: self.horizon().unwrap_or(Time::MAX),
            held: Vec::new(),
        };
        workload.validate().map_err(|e: ModelError| ParamError { what: "workload", why: e.to_string() })?;
        Ok(workload)
    }
}

/// A parameter out of range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what}: {why}")]
pub struct ParamError {
    /// The parameter.
    pub what: &'static str,
    /// What is wrong with it.
    pub why: String,
}
