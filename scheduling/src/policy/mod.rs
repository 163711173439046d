//! Scheduling policies: what turns a stream of requests into decisions (start, reserve,
//! reject) through an [`structures::AvailabilityIndex`], above the trait and below the
//! CLI. A policy sees a structure only through the loop's services
//! ([`EventLoop`], which [`crate::replay`] implements), never its type, so every policy runs on every
//! structure, and a replay of several structures checks that they decide alike.
//!
//! [`PolicyKind::spec`] is the one place that names a policy and holds its facts.

mod coalloc;
mod conservative;
mod eds;
mod queue;

use std::str::FromStr;
use strum::VariantArray;

use serde::{Deserialize, Serialize};
use structures::registry::Source;
use structures::UnknownName;

pub use coalloc::{Attempts, Length};
pub use eds::{Model, Windows, MAX_CHECKS};

use crate::runner::{EventLoop, ReplayError};

/// What a policy does at each event of a replay.
pub(crate) trait Policy {
    /// Request `i` arrives at `sim.clock()`.
    ///
    /// # Errors
    /// An op the structure refused, or a divergence from the oracle.
    fn arrive(&mut self, sim: &mut dyn EventLoop, i: usize) -> Result<(), ReplayError>;

    /// Job `i` ended at `sim.clock()`; what it did not use is released already. Policies
    /// that decide everything at arrival do nothing here.
    ///
    /// # Errors
    /// As [`Policy::arrive`].
    fn ended(&mut self, sim: &mut dyn EventLoop, i: usize) -> Result<(), ReplayError> {
        let _ = (sim, i);
        Ok(())
    }

    /// Whether [`Policy::ended`] is wanted for every job, or only for those that end
    /// before their reservation does (the ones whose end changes the plan).
    fn every_end(&self) -> bool {
        false
    }
}

/// What the policies' parameters are set to; each policy reads only its own.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Settings {
    /// Conservative backfilling: re-plan the waiting jobs after every early end.
    pub compress: bool,
    /// Seeds FCFS-EDS's windows.
    pub seed: u64,
    /// FCFS-EDS and its baseline: how windows of starts are drawn.
    pub windows: Option<Windows>,
    /// Online co-allocation: `Δt` and `R_max`.
    pub attempts: Option<Attempts>,
    /// A deviation planted on purpose (feature `planted`, for tests only).
    #[cfg(feature = "planted")]
    pub planted: Option<Planted>,
}

/// A deviation from a paper planted in a policy on purpose (feature `planted`, for tests
/// only), to show that the comparison with its naive reference catches it.
#[cfg(feature = "planted")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planted {
    /// Online co-allocation makes `R_max` attempts in all, not the first and `R_max`
    /// more (its count before section 5.1 was read closely).
    RmaxInAll,
    /// Conservative backfilling never starts a job before the job planned before it: no
    /// backfilling.
    NoBackfill,
    /// EASY and FCFS keep the first waiting job's reservation where it was at an end,
    /// instead of planning it again.
    NoReplan,
    /// Flexible reservation (FCFS-EDS's baseline) accepts a request's earliest start even
    /// past its latest start `t_ls`.
    PastLatestStart,
    /// FCFS-EDS's `shiftNode` tries the reservations it may move latest accepted first,
    /// not in acceptance order (first come, first served).
    LatestFirst,
}

/// A registered policy. Its name (`--policy`, run files) is the kebab-case of its variant;
/// the list of all policies, `Display`, the name and serde are derived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[derive(strum::Display, strum::IntoStaticStr, strum::VariantArray)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
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

/// A policy's parameter. Its command-line flag is `--` and the kebab-case of its variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[derive(strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Parameter {
    /// Conservative backfilling without compression.
    NoCompress,
    /// FCFS-EDS's longest lead.
    Lead,
    /// FCFS-EDS's share of flexible requests.
    FlexibleShare,
    /// FCFS-EDS's shortest relax time.
    RelaxMin,
    /// FCFS-EDS's longest relax time.
    RelaxMax,
    /// Co-allocation's step between attempts.
    DeltaT,
    /// Co-allocation's most attempts after the first.
    Rmax,
    /// Co-allocation's reservation length.
    Length,
    /// FCFS-EDS's model.
    Model,
}

impl Parameter {
    /// The command-line flag that sets it.
    pub fn flag(self) -> String {
        format!("--{}", <&str>::from(self))
    }

    /// What it means, as `--help` and the reports describe it.
    pub fn meaning(self) -> &'static str {
        match self {
            Parameter::NoCompress => {
                "keep each waiting job's planned start when earlier jobs end early, instead of re-planning the waiting jobs in queue order after every early end (rbtree-availability-profile's Algorithm 2 as written)"
            }
            Parameter::Lead => "the longest lead of a request's earliest start over its arrival, in slots",
            Parameter::FlexibleShare => "the share of requests with a window of starts; the others are rigid",
            Parameter::RelaxMin => {
                "the shortest relax time t_r = t_ls - t_es of a flexible request, in slots"
            }
            Parameter::RelaxMax => "the longest relax time of a flexible request, in slots",
            Parameter::DeltaT => "Δt, the step between attempts, seconds (the paper: 900)",
            Parameter::Rmax => {
                "R_max, the most attempts after a request's first (the paper: Q/2, half the slots of the horizon, here in slots of Δt)"
            }
            Parameter::Model => {
                "what a reservation holds: counted, a count of nodes in each slot of its run, planned only, as fcfs-eds-slotted-array counts them (the paper's model), or ids, the same ids for its whole run (ours)"
            }
            Parameter::Length => {
                "what a request reserves: run-time, the job's run time held exactly (the paper's l_r), or requested, the requested time with its unused tail freed at the end (ours)"
            }
        }
    }
}

/// A policy parameter refused, naming its flag and the value given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParameterError {
    /// `--flexible-share` outside `[0, 1]`.
    #[error("--flexible-share {share} is not between 0 and 1")]
    FlexibleShare {
        /// The share given.
        share: f64,
    },
    /// `--relax-min` and `--relax-max` that are not a range of positive slots.
    #[error("--relax-min {min} and --relax-max {max} are not a range of at least one slot")]
    Relax {
        /// The shortest relax time given, slots.
        min: u64,
        /// The longest relax time given, slots.
        max: u64,
    },
    /// `--delta-t 0`: every attempt would be the same.
    #[error("--delta-t 0: attempts must be at least a second apart")]
    ZeroDeltaT,
}

/// The windows of starts FCFS-EDS and its baseline draw (see [`Windows`]).
const WINDOW_PARAMETERS: &[Parameter] =
    &[Parameter::Lead, Parameter::FlexibleShare, Parameter::RelaxMin, Parameter::RelaxMax, Parameter::Model];

/// What the registry knows of a policy.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// One line for `--help` and reports.
    pub description: &'static str,
    /// Where it comes from.
    pub source: Source,
    /// The options that change what it decides (besides those every policy takes).
    pub parameters: &'static [Parameter],
    /// Builds a fresh policy for one replay.
    build: fn(&Settings) -> Box<dyn Policy>,
}

impl PolicyKind {
    /// The registry entry.
    pub fn spec(self) -> Spec {
        match self {
            PolicyKind::Conservative => Spec {
                description: "conservative backfilling: every job is given the earliest reservation that delays no earlier one, at arrival",
                source: Source { paper: "rbtree-availability-profile", section: Some("IV, Algorithm 2") },
                parameters: &[Parameter::NoCompress],
                build: |options| Box::new(conservative::Conservative::new(options)),
            },
            PolicyKind::Easy => Spec {
                description: "EASY backfilling: only the first waiting job holds a reservation; later jobs start now if they do not delay it",
                source: Source { paper: "coallocation-2d-trees", section: Some("5.1 (its batch baseline)") },
                parameters: &[],
                build: |options| Box::new(queue::Queue::new(true, options)),
            },
            PolicyKind::Fcfs => Spec {
                description: "first come, first served without backfilling: jobs start in submit order, each when it fits",
                source: Source { paper: "coallocation-2d-trees", section: Some("5.1 (its batch baseline)") },
                parameters: &[],
                build: |options| Box::new(queue::Queue::new(false, options)),
            },
            PolicyKind::FcfsEds => Spec {
                description: "FCFS-EDS: each request a reservation with a window of starts; when first fit fails, earlier flexible reservations shift within their windows to make room, or nothing changes",
                source: Source { paper: "fcfs-eds-slotted-array", section: Some("3, Algorithm 1") },
                parameters: WINDOW_PARAMETERS,
                build: |options| Box::new(eds::Eds::new(true, options)),
            },
            PolicyKind::Flexible => Spec {
                description: "flexible advance reservation without advance planning: first fit within each request's window of starts, never moving an accepted one",
                source: Source { paper: "fcfs-eds-slotted-array", section: Some("4 (its baseline)") },
                parameters: WINDOW_PARAMETERS,
                build: |options| Box::new(eds::Eds::new(false, options)),
            },
            PolicyKind::Coalloc => Spec {
                description: "online co-allocation: each request tried at its start, then every Δt later, at most R_max times; rejected if none fits",
                source: Source { paper: "coallocation-2d-trees", section: Some("2 and 4.2") },
                parameters: &[Parameter::DeltaT, Parameter::Rmax, Parameter::Length],
                build: |options| Box::new(coalloc::Coalloc::new(options)),
            },
        }
    }

    /// The `--policy` value.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Whether the policy takes `parameter` (one of its [`Spec::parameters`]).
    pub fn takes(self, parameter: Parameter) -> bool {
        self.spec().parameters.contains(&parameter)
    }

    /// A fresh policy of this kind for one replay with `settings`.
    pub(crate) fn build(self, settings: &Settings) -> Box<dyn Policy> {
        (self.spec().build)(settings)
    }
}

impl FromStr for PolicyKind {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        structures::registry::by_name(Self::VARIANTS, Self::name, "policy", s)
    }
}
