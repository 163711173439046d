//! Trace replay as a discrete-event simulation of a scheduling policy ([`crate::policy`];
//! conservative backfilling by default) on any structure.
//!
//! Jobs arrive at their submit time and the policy places them, on the lowest free ids. A
//! job completes at its start plus its actual run time and releases the unused tail of
//! its reservation. A seeded fraction of jobs are advance reservations (`ar.rs`).
//! `Mode::PlanOnly` keeps the first version's behaviour: no completions.

mod ar;
mod counted;
pub mod metrics;
mod sim;

use sim::Sim;
mod summary;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use oracle::Scenario;
use serde::{Deserialize, Serialize};
use structures::{AvailabilityIndex, Config, Cost, Kind, Time};

pub use ar::{plan as plan_reservations, Reservation, AR_WINDOW};
pub use summary::{box_stats, ratios, table, trimmed, unvisited, BoxStats, Ratios, EXACT_BELOW};

use crate::policy::{PolicyKind, Settings};
use crate::runner::Runner;
pub use crate::runner::{Placement, Refusal, ReplayError};
use traces::workload::{Request, Workload};

/// How jobs end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[derive(strum::Display, strum::EnumString, strum::VariantNames)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Mode {
    /// Jobs complete at start plus run time and release the rest of their reservation.
    Simulate,
    /// Jobs never complete early and nothing is released (the first replay's behaviour).
    PlanOnly,
}

/// The scheduler's options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// The scheduling policy (absent in run files written before there was a choice,
    /// which were all conservative backfilling).
    #[serde(default)]
    pub policy: PolicyKind,
    /// How jobs end.
    pub mode: Mode,
    /// Conservative backfilling: re-plan the waiting jobs after every early end (the
    /// default; `false` keeps rbtree-availability-profile's Algorithm 2 as written).
    pub compress: bool,
    /// The fraction of jobs that are advance reservations.
    pub ar_fraction: f64,
    /// Seeds the choice of advance reservations (and FCFS-EDS's windows).
    pub seed: u64,
    /// FCFS-EDS and its baseline: how windows of starts are drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<crate::policy::Windows>,
    /// Online co-allocation: `Δt` and `R_max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<crate::policy::Attempts>,
}

impl Options {
    /// Whether FCFS-EDS or its baseline runs in the paper's counted model.
    pub fn counted(&self) -> bool {
        self.policy.takes(crate::policy::Parameter::Model)
            && self.windows.is_some_and(|w| w.model == crate::policy::Model::Counted)
    }

    /// The policy's name, with the model it ran in where it has a choice: how reports
    /// label a run.
    pub fn label(&self) -> String {
        match self.windows.filter(|_| self.policy.takes(crate::policy::Parameter::Model)) {
            Some(_) if self.counted() => format!("{} (counted, the paper's model)", self.policy),
            Some(_) => format!("{} (ids, ours)", self.policy),
            None => self.policy.to_string(),
        }
    }

    /// `" with compression"` or `" without compression"` where compression matters
    /// (conservative backfilling, simulated), else nothing: how a replay's header says it.
    pub fn compression(&self) -> &'static str {
        match (self.compression_matters(), self.compress) {
            (true, true) => " with compression",
            (true, false) => " without compression",
            (false, _) => "",
        }
    }

    /// Whether the run could have compressed and did not (`--no-compress`): how run files
    /// and report sections tell such a run from the default.
    pub fn uncompressed(&self) -> bool {
        self.compression_matters() && !self.compress
    }

    fn compression_matters(&self) -> bool {
        self.mode == Mode::Simulate && self.policy.takes(crate::policy::Parameter::NoCompress)
    }

    /// What the policy's parameters are set to.
    pub fn settings(&self) -> Settings {
        Settings {
            compress: self.compress,
            seed: self.seed,
            windows: self.windows,
            attempts: self.attempts,
            #[cfg(feature = "planted")]
            planted: None,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            policy: PolicyKind::default(),
            mode: Mode::Simulate,
            compress: true,
            ar_fraction: 0.0,
            seed: 1,
            windows: None,
            attempts: None,
        }
    }
}

/// `workload` with each request's `duration` the length it reserves: its run time under
/// online co-allocation in the paper's model (`Length::RunTime`: a job then ends exactly
/// when its reservation does; one that ran 0 s reserves 1 s, since a window cannot be
/// empty), the requested time otherwise. Replays and their metrics
/// read the workload through this.
pub fn as_reserved<'a>(workload: &'a Workload, options: &Options) -> Cow<'a, Workload> {
    match options.attempts {
        Some(crate::policy::Attempts { length: crate::policy::Length::RunTime, .. }) => {
            Cow::Owned(Workload {
                capacity: workload.capacity,
                requests: workload
                    .requests
                    .iter()
                    .map(|r| Request { duration: r.runtime.max(1), runtime: r.runtime.max(1), ..*r })
                    .collect(),
                skipped: workload.skipped.clone(),
            })
        }
        _ => Cow::Borrowed(workload),
    }
}

/// Advance reservations over a replay.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArCounts {
    /// Reservations requested.
    pub requested: u64,
    /// Reservations admitted at the start asked for.
    pub admitted: u64,
    /// Scheduling options offered to each rejected reservation.
    pub offered: Vec<u64>,
}

/// One request's scheduling attempts under a policy that retries (coallocation-2d-trees).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trial {
    /// Its spatial size `n_r`.
    pub n: u32,
    /// Its temporal size `l_r`.
    pub length: Time,
    /// Attempts made.
    pub attempts: u64,
    /// `W_r`: how long after the start it asked for it starts; `None` if rejected.
    pub wait: Option<Time>,
    /// How long after its submission the start it asked for was: 0 for a job that asked
    /// for no later start, up to three hours for an advance reservation.
    pub lead: Time,
}

/// What one structure did over a replay.
#[derive(Debug, Clone)]
pub struct Run {
    /// The structure.
    pub structure: Kind,
    /// Whether the oracle ran beside it (then `wall` includes the oracle's time).
    pub verified: bool,
    /// Requests replayed.
    pub jobs: usize,
    /// The cost of every `check`, in call order.
    pub checks: Vec<Cost>,
    /// The cost of every `earliest` (rbtree-availability-profile's schedule operation), in call order.
    pub searches: Vec<Cost>,
    /// Calls per operation.
    pub ops: BTreeMap<oracle::OpKind, u64>,
    /// The structure's size at sampled events: `(time, size)`.
    pub sizes: Vec<(Time, u64)>,
    /// Jobs no window could be found for before the horizon.
    pub unplaced: usize,
    /// Advance reservations.
    pub ar: ArCounts,
    /// What the policy counted (requests accepted, reservations shifted, ...), by name.
    pub counts: BTreeMap<&'static str, u64>,
    /// Each request's attempts, for policies that retry (in arrival order).
    pub trials: Vec<Trial>,
    /// The furthest any window reached past the slot it was asked in.
    pub reach: Time,
    /// Time spent in the run.
    pub wall: Duration,
    /// Every placed job's final placement, in submit order.
    pub schedule: Vec<Placement>,
}

impl Run {
    fn fresh(structure: Kind, verified: bool, jobs: usize) -> Self {
        Run {
            structure,
            verified,
            jobs,
            // A policy checks and searches about once a job: room for that up front, so
            // that the replay does not copy them as they grow.
            checks: Vec::with_capacity(jobs),
            searches: Vec::with_capacity(jobs),
            ops: BTreeMap::new(),
            sizes: Vec::new(),
            unplaced: 0,
            ar: ArCounts::default(),
            counts: BTreeMap::new(),
            trials: Vec::new(),
            reach: 0,
            wall: Duration::ZERO,
            schedule: Vec::new(),
        }
    }
}

/// What a replay runs with, besides the structure and the workload.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReplayConfig {
    /// Slot width and horizon (a structure that needs a horizon and has none gets
    /// [`Kind::config_for`]'s default).
    pub config: Config,
    /// The scheduler's options.
    pub options: Options,
    /// Run the oracle beside the structure and stop at the first divergence.
    pub verify: bool,
}

/// Follows a replay as it goes, e.g. to draw a progress bar. Every method has a no-op
/// default, so an observer implements only what it shows.
pub trait Observer {
    /// Job `done` of `total` has arrived and been handled (`done` counts from 1).
    fn arrived(&mut self, done: u64, total: u64) {
        let _ = (done, total);
    }
}

/// An observer that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {}

/// Replays `workload` on a fresh structure of `kind` as `setup` says, telling `observer`
/// of every arrival.
///
/// # Errors
/// No index can be built for the configuration, the first divergence (with `verify`),
/// or a refused op.
pub fn replay(
    kind: Kind,
    workload: &Workload,
    setup: &ReplayConfig,
    observer: &mut dyn Observer,
) -> Result<Run, ReplayError> {
    replay_with(kind, workload, setup, &setup.options.settings(), observer)
}

/// [`replay`] with `planted` planted in the policy (feature `planted`, for tests only).
///
/// # Errors
/// As [`replay`].
#[cfg(feature = "planted")]
pub fn replay_planted(
    kind: Kind,
    workload: &Workload,
    setup: &ReplayConfig,
    planted: crate::policy::Planted,
) -> Result<Run, ReplayError> {
    let settings = Settings { planted: Some(planted), ..setup.options.settings() };
    replay_with(kind, workload, setup, &settings, &mut Silent)
}

/// [`replay`] in the counted model (`--model counted`) with `planted` planted in its
/// planner (feature `planted`, for tests only).
///
/// # Errors
/// As [`replay`].
#[cfg(feature = "planted")]
pub fn counted_planted(
    kind: Kind,
    workload: &Workload,
    setup: &ReplayConfig,
    planted: crate::fcfs_eds::Planted,
) -> Result<Run, ReplayError> {
    counted::replay(kind, workload, setup, &setup.options.settings(), &mut Silent, |p| p.plant(planted))
}

fn replay_with(
    kind: Kind,
    workload: &Workload,
    setup: &ReplayConfig,
    settings: &Settings,
    observer: &mut dyn Observer,
) -> Result<Run, ReplayError> {
    if setup.options.counted() {
        return counted::replay(kind, workload, setup, settings, observer, |_| {});
    }
    let scenario = Scenario { capacity: workload.capacity, config: kind.config_for(setup.config) };
    let runner = Runner::build(kind, scenario, setup.verify)?;
    let run = Run::fresh(kind, setup.verify, workload.requests.len());
    let started = Instant::now();
    let mut policy = setup.options.policy.build(settings);
    let (mut run, _) = Sim::new(runner, run, workload, &setup.options).run(policy.as_mut(), observer)?;
    run.wall = started.elapsed();
    Ok(run)
}

/// The state a replay of `workload` on the reference structure (`Kind::REFERENCE`) leaves behind: its present and
/// its free frames up to the horizon, which [`AvailabilityIndex::load_frames`] turns into
/// the same state on any structure (the benchmarks' real-trace states).
///
/// # Errors
/// As [`replay`].
pub fn final_state(
    workload: &Workload,
    config: Config,
    options: &Options,
) -> Result<(Time, Vec<structures::TimeFrame>), ReplayError> {
    let index = Kind::REFERENCE.build(workload.capacity, config).map_err(ReplayError::Build)?;
    let index = replay_on(index, workload, options)?;
    let now = index.now();
    let frames = index.free_frames(now, config.limit(now)).map_err(ReplayError::Build)?;
    Ok((now, frames))
}

/// Replays `workload` on `index`, any implementation of the trait (one that records
/// its calls, say), without the oracle, and hands it back as the replay left it.
///
/// # Errors
/// A refused op.
///
/// # Panics
/// Never: the runner is built plain here.
pub fn replay_on(
    index: Box<dyn AvailabilityIndex>,
    workload: &Workload,
    options: &Options,
) -> Result<Box<dyn AvailabilityIndex>, ReplayError> {
    if options.counted() {
        return Err(ReplayError::Model(
            "--model counted keeps its counts in a plan of its own, not in a given index".to_owned(),
        ));
    }
    // The run's bookkeeping is dropped, so the kind it is filed under does not matter.
    let run = Run::fresh(Kind::REFERENCE, false, workload.requests.len());
    let mut policy = options.policy.build(&options.settings());
    let (_, runner) =
        Sim::new(Runner::Plain(index), run, workload, options).run(policy.as_mut(), &mut Silent)?;
    match runner {
        Runner::Plain(index) => Ok(index),
        Runner::Verified(_) => unreachable!("built plain above"),
    }
}

/// The horizon a structure with one needs to schedule `workload` exactly as an unbounded
/// one does: the furthest any window of the replay reaches past the slot it was asked in,
/// found by replaying on the reference structure (`Kind::REFERENCE`) with slot width `slot`.
///
/// # Errors
/// As [`replay`].
pub fn horizon_for(workload: &Workload, slot: Time, options: &Options) -> Result<Time, ReplayError> {
    let config = Config { slot, horizon: None };
    let setup = ReplayConfig { config, options: *options, verify: false };
    let run = replay(Kind::REFERENCE, workload, &setup, &mut Silent)?;
    Ok(config.ceil(run.reach).unwrap_or(config.floor(Time::MAX)).max(slot))
}
