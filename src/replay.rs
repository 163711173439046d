//! Plan-only conservative backfilling (Algorithm 2 of the seed) on any structure: each
//! job at its submit time forgets the past, is checked for an immediate start and
//! otherwise reserved at its earliest start, on the lowest free ids, for its requested
//! time. No job completes early, so reservations are never released.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use oracle::{Differential, Divergence, Op, Outcome, Scenario};
use structures::{AvailabilityIndex, Config, Cost, Error, Kind, RangeSet, Time, TimeFrame};

use crate::workload::{Request, Workload};

/// Where a job was placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The trace's job number.
    pub id: i64,
    /// Its start (its submit time when it started at once).
    pub start: Time,
    /// Its end: start plus requested time.
    pub end: Time,
    /// The ids it holds.
    pub set: RangeSet,
}

/// What one structure did over a replay.
#[derive(Debug, Clone)]
pub struct Run {
    /// The structure.
    pub structure: Kind,
    /// Whether the oracle ran beside it (then `wall` includes the oracle's time).
    pub verified: bool,
    /// The cost of every `check`.
    pub checks: Vec<Cost>,
    /// The cost of every `earliest`.
    pub searches: Vec<Cost>,
    /// Jobs no window could be found for before the horizon.
    pub unplaced: usize,
    /// Time spent in the run.
    pub wall: Duration,
    /// Every job's placement, in submit order.
    pub schedule: Vec<Placement>,
}

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// No index can be built for the workload (a zero capacity).
    #[error("cannot build an index: {0}")]
    Build(Error),
    /// The structure and the oracle disagreed.
    #[error("{0}")]
    Divergence(Box<Divergence>),
    /// An op the scheduler built was refused (a bug in the scheduler or the trace).
    #[error("job {id}: {op:?} was refused: {error}")]
    Refused {
        /// The job.
        id: i64,
        /// The op.
        op: Op,
        /// The error.
        error: Error,
    },
}

/// A structure alone, or beside the oracle through the differential driver.
enum Runner {
    Plain(Box<dyn AvailabilityIndex>),
    Verified(Box<Differential>),
}

impl Runner {
    fn step(&mut self, id: i64, op: Op) -> Result<Outcome, ReplayError> {
        let outcome = match self {
            Runner::Plain(index) => oracle::apply(index.as_mut(), &op),
            Runner::Verified(run) => run.step(op.clone()).map_err(ReplayError::Divergence)?,
        };
        match outcome {
            Outcome::Failed(error) => Err(ReplayError::Refused { id, op, error }),
            outcome => Ok(outcome),
        }
    }

    fn cost(&self) -> Cost {
        let index = match self {
            Runner::Plain(index) => index.as_ref(),
            Runner::Verified(run) => run.structure(),
        };
        index.last_cost().unwrap_or_default()
    }
}

/// Replays `workload` on a fresh structure of `kind` with `config`, with the oracle
/// beside it if `verify`; `progress` advances once per job.
///
/// # Errors
/// The first divergence, or a refused op.
pub fn replay(
    kind: Kind,
    workload: &Workload,
    config: Config,
    verify: bool,
    progress: &ProgressBar,
) -> Result<Run, ReplayError> {
    let scenario = Scenario { capacity: workload.capacity, config: kind.config_for(config) };
    let mut runner = if verify {
        Runner::Verified(Box::new(Differential::new(kind, scenario, false).map_err(ReplayError::Build)?))
    } else {
        Runner::Plain(kind.build(scenario.capacity, scenario.config).map_err(ReplayError::Build)?)
    };
    let mut run = Run {
        structure: kind,
        verified: verify,
        checks: Vec::new(),
        searches: Vec::new(),
        unplaced: 0,
        wall: Duration::ZERO,
        schedule: Vec::with_capacity(workload.requests.len()),
    };
    let started = Instant::now();
    for request in &workload.requests {
        if let Some(placement) = schedule(&mut runner, &mut run, request)? {
            run.schedule.push(placement);
        } else {
            run.unplaced += 1;
        }
        progress.inc(1);
    }
    run.wall = started.elapsed();
    Ok(run)
}

/// Places one job: start now if `check` finds room, else reserve at `earliest`.
fn schedule(runner: &mut Runner, run: &mut Run, r: &Request) -> Result<Option<Placement>, ReplayError> {
    runner.step(r.id, Op::Advance { now: r.submit })?;
    let end = r.submit + r.duration;
    let checked = runner.step(r.id, Op::Check { start: r.submit, end, n: r.n })?;
    run.checks.push(runner.cost());
    let frame = match checked {
        Outcome::Free(Some(free)) => TimeFrame { start: r.submit, end, free },
        _ => {
            let found = runner.step(r.id, Op::Earliest { ready: r.submit, duration: r.duration, n: r.n })?;
            run.searches.push(runner.cost());
            match found {
                Outcome::Start(Some(frame)) => frame,
                _ => return Ok(None),
            }
        }
    };
    let set = frame.free.first(u64::from(r.n)).unwrap_or(frame.free);
    runner.step(r.id, Op::Allocate { start: frame.start, end: frame.end, set: set.clone() })?;
    Ok(Some(Placement { id: r.id, start: frame.start, end: frame.end, set }))
}

/// The horizon a structure with one needs to schedule `workload` exactly as an unbounded
/// one does: the furthest any job's placement reaches past the slot it was submitted in,
/// found by replaying on the red-black tree with slot width `slot`.
///
/// # Errors
/// As [`replay`].
pub fn horizon_for(workload: &Workload, slot: Time) -> Result<Time, ReplayError> {
    let config = Config { slot, horizon: None };
    let run = replay(Kind::RbTree, workload, config, false, &ProgressBar::hidden())?;
    let reach = run
        .schedule
        .iter()
        .zip(&workload.requests)
        .map(|(p, r)| config.ceil(p.end).unwrap_or(Time::MAX) - config.floor(r.submit))
        .max()
        .unwrap_or(slot);
    Ok(config.ceil(reach).unwrap_or(config.floor(Time::MAX)).max(slot))
}

/// Mean and percentiles of `visited / worst` (calls with no worst case left out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratios {
    /// Calls measured.
    pub calls: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
}

/// Summarises costs; nearest-rank percentiles.
pub fn ratios(costs: &[Cost]) -> Ratios {
    let mut r: Vec<f64> =
        costs.iter().filter(|c| c.worst > 0).map(|c| c.visited as f64 / c.worst as f64).collect();
    r.sort_by(f64::total_cmp);
    let pick = |p: f64| match r.len() {
        0 => f64::NAN,
        len => r[((p * len as f64).ceil() as usize).clamp(1, len) - 1],
    };
    let mean = if r.is_empty() { f64::NAN } else { r.iter().sum::<f64>() / r.len() as f64 };
    Ratios { calls: r.len(), mean, p50: pick(0.5), p90: pick(0.9), p99: pick(0.99) }
}

/// The terminal table: one row per structure.
pub fn table(runs: &[Run]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<8} {:>7} {:>7} {:>8} {:>8} | {:>27} | {:>27} | {:>9}",
        "struct",
        "jobs",
        "checks",
        "earliest",
        "unplaced",
        "check visited/worst %",
        "earliest visited/worst %",
        "wall s"
    );
    let _ = writeln!(
        out,
        "{:<8} {:>7} {:>7} {:>8} {:>8} | {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6} |",
        "", "", "", "", "", "mean", "p50", "p90", "p99", "mean", "p50", "p90", "p99"
    );
    for run in runs {
        let (c, e) = (ratios(&run.checks), ratios(&run.searches));
        let pct = |x: f64| format!("{:.2}", 100.0 * x);
        let _ = writeln!(
            out,
            "{:<8} {:>7} {:>7} {:>8} {:>8} | {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6} | {:>9.3}{}",
            run.structure.name(),
            run.schedule.len() + run.unplaced,
            run.checks.len(),
            run.searches.len(),
            run.unplaced,
            pct(c.mean),
            pct(c.p50),
            pct(c.p90),
            pct(c.p99),
            pct(e.mean),
            pct(e.p50),
            pct(e.p90),
            pct(e.p99),
            run.wall.as_secs_f64(),
            if run.verified { " (with oracle)" } else { "" },
        );
    }
    out
}
