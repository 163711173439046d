//! Scheduling policies: what turns a stream of requests into decisions (start, reserve,
//! reject) through an [`structures::AvailabilityIndex`], above the trait and below the
//! CLI. A policy sees a structure only through the replay's services
//! ([`crate::replay`]'s event loop), never its type, so every policy runs on every
//! structure, and a replay of several structures checks that they decide alike.
//!
//! [`PolicyKind::spec`] is the one place that names a policy and holds its facts.

mod coalloc;
mod conservative;
mod eds;
mod queue;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use structures::registry::Source;

pub use coalloc::Attempts;
pub use eds::{Windows, MAX_CHECKS};

use crate::replay::{Options, ReplayError, Sim};

/// What a policy does at each event of a replay.
pub(crate) trait Policy {
    /// Request `i` arrives at `sim.clock()`.
    ///
    /// # Errors
    /// An op the structure refused, or a divergence from the oracle.
    fn arrive(&mut self, sim: &mut Sim<'_>, i: usize) -> Result<(), ReplayError>;

    /// Job `i` ended at `sim.clock()`; what it did not use is released already. Policies
    /// that decide everything at arrival do nothing here.
    ///
    /// # Errors
    /// As [`Policy::arrive`].
    fn ended(&mut self, sim: &mut Sim<'_>, i: usize) -> Result<(), ReplayError> {
        let _ = (sim, i);
        Ok(())
    }

    /// Whether [`Policy::ended`] is wanted for every job, or only for those that end
    /// before their reservation does (the ones whose end changes the plan).
    fn every_end(&self) -> bool {
        false
    }
}

/// A registered policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PolicyKind {
    /// Conservative backfilling with advance reservations.
    #[default]
    Conservative,
    /// EASY backfilling.
    Easy,
    /// First come, first served, without backfilling.
    Fcfs,
    /// FCFS-EDS: flexible advance reservations, planned ahead by shifting earlier ones.
    FcfsEds,
    /// Flexible advance reservations without advance planning (FCFS-EDS's baseline).
    Flexible,
    /// Online co-allocation with `Δt` and `R_max`.
    Coalloc,
}

/// A policy's parameter, as `--help` and the reports describe it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameter {
    /// The command-line flag that sets it.
    pub flag: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

/// The windows of starts FCFS-EDS and its baseline draw (see [`Windows`]).
const WINDOW_PARAMETERS: &[Parameter] = &[
    Parameter {
        flag: "--lead",
        meaning: "the longest lead of a request's earliest start over its arrival, in slots",
    },
    Parameter {
        flag: "--flexible-share",
        meaning: "the share of requests with a window of starts; the others are rigid",
    },
    Parameter {
        flag: "--relax-min",
        meaning: "the shortest relax time t_r = t_ls - t_es of a flexible request, in slots",
    },
    Parameter { flag: "--relax-max", meaning: "the longest relax time of a flexible request, in slots" },
];

/// What the registry knows of a policy.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The `--policy` value and the name in run files.
    pub name: &'static str,
    /// One line for `--help` and reports.
    pub description: &'static str,
    /// Where it comes from.
    pub source: Source,
    /// The options that change what it decides (besides those every policy takes).
    pub parameters: &'static [Parameter],
    /// Builds a fresh policy for one replay.
    build: fn(&Options) -> Box<dyn Policy>,
}

impl PolicyKind {
    /// Every policy, in the order tables list them.
    pub const ALL: [PolicyKind; 6] = [
        PolicyKind::Conservative,
        PolicyKind::Easy,
        PolicyKind::Fcfs,
        PolicyKind::FcfsEds,
        PolicyKind::Flexible,
        PolicyKind::Coalloc,
    ];

    /// The registry entry.
    pub fn spec(self) -> Spec {
        match self {
            PolicyKind::Conservative => Spec {
                name: "conservative",
                description: "conservative backfilling: every job is given the earliest reservation that delays no earlier one, at arrival",
                source: Source { paper: "rbtree-availability-profile", section: Some("IV, Algorithm 2") },
                parameters: &[Parameter {
                    flag: "--compress",
                    meaning: "after every early end, re-plan the waiting jobs in queue order, each no later than before",
                }],
                build: |options| Box::new(conservative::Conservative::new(options.compress)),
            },
            PolicyKind::Easy => Spec {
                name: "easy",
                description: "EASY backfilling: only the first waiting job holds a reservation; later jobs start now if they do not delay it",
                source: Source { paper: "coallocation-2d-trees", section: Some("5.1 (its batch baseline)") },
                parameters: &[],
                build: |_| Box::new(queue::Queue::new(true)),
            },
            PolicyKind::Fcfs => Spec {
                name: "fcfs",
                description: "first come, first served without backfilling: jobs start in submit order, each when it fits",
                source: Source { paper: "coallocation-2d-trees", section: Some("5.1 (its batch baseline)") },
                parameters: &[],
                build: |_| Box::new(queue::Queue::new(false)),
            },
            PolicyKind::FcfsEds => Spec {
                name: "fcfs-eds",
                description: "FCFS-EDS: each request a reservation with a window of starts; when first fit fails, earlier flexible reservations shift within their windows to make room, or nothing changes",
                source: Source { paper: "fcfs-eds-slotted-array", section: Some("3, Algorithm 1") },
                parameters: WINDOW_PARAMETERS,
                build: |options| Box::new(eds::Eds::new(true, options.windows.unwrap_or_default(), options.seed)),
            },
            PolicyKind::Flexible => Spec {
                name: "flexible",
                description: "flexible advance reservation without advance planning: first fit within each request's window of starts, never moving an accepted one",
                source: Source { paper: "fcfs-eds-slotted-array", section: Some("4 (its baseline)") },
                parameters: WINDOW_PARAMETERS,
                build: |options| Box::new(eds::Eds::new(false, options.windows.unwrap_or_default(), options.seed)),
            },
            PolicyKind::Coalloc => Spec {
                name: "coalloc",
                description: "online co-allocation: each request tried at its start, then every Δt later, at most R_max times; rejected if none fits",
                source: Source { paper: "coallocation-2d-trees", section: Some("2 and 4.2") },
                parameters: &[
                    Parameter { flag: "--delta-t", meaning: "Δt, the step between attempts, seconds (the paper: 900)" },
                    Parameter { flag: "--rmax", meaning: "R_max, the most attempts per request (the paper: Q/2, half the slots of the horizon)" },
                ],
                build: |options| Box::new(coalloc::Coalloc::new(options.attempts.unwrap_or_default())),
            },
        }
    }

    /// The `--policy` value.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Whether the policy takes `flag` (one of its [`Spec::parameters`]).
    pub fn takes(self, flag: &str) -> bool {
        self.spec().parameters.iter().any(|p| p.flag == flag)
    }

    /// A fresh policy of this kind for one replay under `options`.
    pub(crate) fn build(self, options: &Options) -> Box<dyn Policy> {
        (self.spec().build)(options)
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PolicyKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        structures::registry::by_name(&Self::ALL, Self::name, "policy", s)
    }
}

impl Serialize for PolicyKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for PolicyKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
