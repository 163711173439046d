//! A deterministic simulator over the sans-IO machines: one seeded scheduler, clients
//! against tens of managers, with message loss, duplication, reordering and delay,
//! manager crashes with restarts, and targeted coordinator crashes. Everything is drawn
//! from one RNG seed, so a run is reproducible from it. A step is one delivered message,
//! fired timer, crash, restart or reservation start (D28); the invariants of [`check`]
//! are checked after every step.

pub mod check;
pub mod rules;
mod world;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use structures::{Kind, UnknownName};

use super::Plant;
use crate::limits;
pub use check::Violation;
pub use world::{run, MAX_TRACE};

/// A kind of injected fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fault {
    /// Messages lost.
    Loss,
    /// Messages delivered twice.
    Duplicate,
    /// Messages overtaking each other (a wide delay jitter).
    Reorder,
    /// A heavy tail of slow messages, some slower than a hold lasts.
    Delay,
    /// Server nodes crash and restart later with their durable state.
    CrashManager,
    /// A node crashes right after writing a commit decision, before or after sending it.
    CrashCoordinator,
    /// A node crashes between a step's durable writes and its sends.
    TornStep,
    /// A client stops for good, leaving its holds to expire.
    ClientVanish,
}

impl Fault {
    /// Every kind.
    pub const ALL: [Fault; 8] = [
        Fault::Loss,
        Fault::Duplicate,
        Fault::Reorder,
        Fault::Delay,
        Fault::CrashManager,
        Fault::CrashCoordinator,
        Fault::TornStep,
        Fault::ClientVanish,
    ];

    /// Its name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Fault::Loss => "loss",
            Fault::Duplicate => "duplicate",
            Fault::Reorder => "reorder",
            Fault::Delay => "delay",
            Fault::CrashManager => "crash-manager",
            Fault::CrashCoordinator => "crash-coordinator",
            Fault::TornStep => "torn-step",
            Fault::ClientVanish => "client-vanish",
        }
    }
}

/// A set of fault kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Faults(u16);

impl Faults {
    /// No faults.
    pub const NONE: Faults = Faults(0);
    /// Every fault.
    pub const ALL: Faults = Faults((1 << Fault::ALL.len()) - 1);

    /// Whether `f` is in the set.
    pub fn has(self, f: Fault) -> bool {
        self.0 & (1 << f as u16) != 0
    }

    /// The set with `f` added (`on`) or removed.
    pub fn with(self, f: Fault, on: bool) -> Faults {
        if on {
            Faults(self.0 | (1 << f as u16))
        } else {
            Faults(self.0 & !(1 << f as u16))
        }
    }

    /// The kinds in the set.
    pub fn kinds(self) -> impl Iterator<Item = Fault> {
        Fault::ALL.into_iter().filter(move |f| self.has(*f))
    }
}

impl fmt::Display for Faults {
    /// `all`, `none`, or the kinds separated by commas.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Faults::ALL => f.write_str("all"),
            Faults::NONE => f.write_str("none"),
            s => f.write_str(&s.kinds().map(Fault::name).collect::<Vec<_>>().join(",")),
        }
    }
}

impl FromStr for Faults {
    type Err = UnknownName;

    /// `all`, `none`, or a comma-separated list of kinds.
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        match s {
            "all" => Ok(Faults::ALL),
            "none" => Ok(Faults::NONE),
            list => list.split(',').try_fold(Faults::NONE, |set, name| {
                let f = structures::registry::by_name(&Fault::ALL, Fault::name, "fault", name.trim())?;
                Ok(set.with(f, true))
            }),
        }
    }
}

/// A simulation's size out of its limits, naming it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A range of managers or clients that is empty or outside its limits.
    #[error("{what} {lo}..={hi} must lie within {min}..={max} with the low end first")]
    Range {
        /// `managers` or `clients`.
        what: &'static str,
        /// The range's low end.
        lo: u32,
        /// Its high end.
        hi: u32,
        /// The least allowed.
        min: u32,
        /// The most allowed ([`limits`]).
        max: u32,
    },
    /// No steps, or more than [`limits::MAX_STEPS`].
    #[error("steps {steps} must be 1..={max}")]
    Steps {
        /// The steps asked for.
        steps: u64,
        /// The most allowed.
        max: u64,
    },
}

/// What to simulate. Sizes are drawn per RNG seed from the ranges given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimConfig {
    /// Steps with faults on; then faults stop and the system drains.
    pub steps: u64,
    /// The fault kinds allowed.
    pub faults: Faults,
    /// Whether each seed switches each allowed kind on with probability 1/2 (every tenth
    /// seed all of them: swarm testing), rather than all of them.
    pub swarm: bool,
    /// Managers, drawn from this inclusive range.
    pub managers: (u32, u32),
    /// Clients, drawn from this inclusive range.
    pub clients: (u32, u32),
    /// Every manager's structure, or `None` to draw each from the registry.
    pub structure: Option<Kind>,
    /// A planted bug.
    pub plant: Option<Plant>,
    /// Keep one line per step.
    pub trace: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            steps: 1000,
            faults: Faults::ALL,
            swarm: true,
            managers: (2, 20),
            clients: (2, 200),
            structure: None,
            plant: None,
            trace: false,
        }
    }
}

impl SimConfig {
    /// Checks the sizes.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the size out of its limit.
    pub fn check(&self) -> Result<(), ConfigError> {
        let range = |what: &'static str, (lo, hi): (u32, u32), min: u32, max: u32| {
            if lo < min || hi > max || lo > hi {
                Err(ConfigError::Range { what, lo, hi, min, max })
            } else {
                Ok(())
            }
        };
        range("managers", self.managers, 1, limits::MAX_MANAGERS)?;
        range("clients", self.clients, 1, limits::MAX_CLIENTS)?;
        if self.steps == 0 || self.steps > limits::MAX_STEPS {
            return Err(ConfigError::Steps { steps: self.steps, max: limits::MAX_STEPS });
        }
        Ok(())
    }
}

/// What one seed's run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The RNG seed.
    pub seed: u64,
    /// The sizes and faults drawn, in one line.
    pub params: String,
    /// The fault kinds switched on for this seed.
    pub faults: Faults,
    /// Managers.
    pub managers: u32,
    /// Clients.
    pub clients: u32,
    /// Steps run, the drain included.
    pub steps: u64,
    /// Messages sent.
    pub messages: u64,
    /// Reservations committed (at one manager or several).
    pub committed: u64,
    /// Reservations failed, by why.
    pub failed: BTreeMap<&'static str, u64>,
    /// Clients still busy when the drain ended (vanished ones aside).
    pub stuck: u64,
    /// Clients that vanished.
    pub vanished: u64,
    /// Commit decisions announced.
    pub commits: u64,
    /// Abort decisions announced.
    pub aborts: u64,
    /// The first broken invariant and the step it broke at.
    pub violation: Option<(u64, Violation)>,
    /// A digest of every step: equal runs have equal digests.
    pub digest: u64,
    /// One line per step, when traced: the last [`MAX_TRACE`] to
    /// 2 × [`MAX_TRACE`] steps.
    pub trace: Vec<String>,
}

/// A failing seed, shrunk: the smallest configuration found that still breaks the same
/// invariant, and its report (traced).
#[derive(Debug, Clone)]
pub struct Shrunk {
    /// The configuration.
    pub config: SimConfig,
    /// Its run.
    pub report: Report,
    /// Runs tried.
    pub attempts: u32,
}

/// The most runs shrinking tries.
pub const MAX_SHRINK_ATTEMPTS: u32 = 60;

/// Shrinks a failing seed: cut the steps to the one that broke, then switch fault kinds
/// off and halve the clients and managers while the same invariant still breaks.
pub fn shrink(seed: u64, config: &SimConfig, failing: &Report) -> Shrunk {
    let Some((step, v)) = &failing.violation else {
        return Shrunk { config: config.clone(), report: failing.clone(), attempts: 0 };
    };
    let invariant = v.invariant;
    let mut best = SimConfig { steps: (*step).clamp(1, config.steps), ..config.clone() };
    best.faults = failing.faults;
    best.swarm = false;
    best.managers = (failing.managers, failing.managers);
    best.clients = (failing.clients, failing.clients);
    let mut attempts = 0;
    // A candidate counts only if it breaks the same invariant no later: a smaller
    // system whose run is longer is not simpler to read.
    let mut at = *step;
    let fails = |c: &SimConfig, attempts: &mut u32, at: &mut u64| {
        *attempts += 1;
        match run(seed, c).violation {
            Some((s, v)) if v.invariant == invariant && s <= *at => {
                *at = s;
                true
            }
            _ => false,
        }
    };
    let mut candidates: Vec<SimConfig> = Vec::new();
    let mut improved = true;
    while improved && attempts < MAX_SHRINK_ATTEMPTS {
        improved = false;
        candidates.clear();
        for f in best.faults.kinds() {
            candidates.push(SimConfig { faults: best.faults.with(f, false), ..best.clone() });
        }
        if best.clients.0 > 1 {
            let c = best.clients.0 / 2;
            candidates.push(SimConfig { clients: (c, c), ..best.clone() });
        }
        if best.managers.0 > 2 {
            let m = best.managers.0 / 2;
            candidates.push(SimConfig { managers: (m, m), ..best.clone() });
        }
        for c in candidates.drain(..) {
            if attempts >= MAX_SHRINK_ATTEMPTS {
                break;
            }
            if fails(&c, &mut attempts, &mut at) {
                best = c;
                improved = true;
                break;
            }
        }
    }
    let traced = SimConfig { trace: true, ..best.clone() };
    let mut report = run(seed, &traced);
    // A violation in the faulty phase needs no step after it; one in the drain needs
    // the faulty phase as it was.
    if let Some((step, _)) = report.violation.as_ref().filter(|(step, _)| *step < best.steps) {
        best.steps = (*step).max(1);
        report = run(seed, &SimConfig { trace: true, ..best.clone() });
    }
    if report.violation.is_none() {
        // Not reproduced (it cannot happen while runs are deterministic): show the
        // original run.
        best = config.clone();
        report = run(seed, &SimConfig { trace: true, ..best.clone() });
    }
    Shrunk { config: best, report, attempts }
}
