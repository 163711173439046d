//! The reservation schedulers of rspb-priorities-benefit-functions: requests collected
//! into meta-requests at each scheduling event (Fig 4.1), ordered, and admitted on a grid
//! of machines whose CPU the Grid may reserve, with graceful degradation along benefit
//! functions instead of rejection. Chapter 4's RSPB against the Resource Broker (RB);
//! chapter 5's co-reservation of sub-requests, Co-RSPB, Co-RSBF and Co-RSBFR.
//!
//! Each machine's time slot table is a registered structure ([`table`]), driven through
//! the same ops as every replay, so every algorithm runs on every structure and a run of
//! several structures checks that they decide alike. [`Algorithm::spec`] is the one place
//! that names an algorithm and holds its facts.

mod batch;
mod co;
pub mod experiment;
pub mod generate;
mod grid;
pub mod metrics;
pub mod model;
mod refine;
pub mod results;
mod single;

use std::str::FromStr;
use strum::VariantArray;

use structures::registry::Source;
use structures::{Kind, UnknownName};
use thiserror::Error;

pub use batch::{batches, Batch};
pub use grid::{Decision, Placed};

use crate::runner::ReplayError;
use grid::Grid;
use model::{ModelError, Request, Workload};

/// A registered algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[derive(strum::Display, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Algorithm {
    /// The Resource Broker: arrival order, nothing less than the request.
    Rb,
    /// RSPB: priority order, graceful degradation, load balancing.
    Rspb,
    /// Co-RSPB: co-reservation in priority order, each sub-request given the most.
    CoRspb,
    /// Co-RSBF: co-reservation by best fit decreasing, each sub-request given the least.
    CoRsbf,
    /// Co-RSBFR: Co-RSBF, then each admitted request's reservations refined upward.
    CoRsbfr,
}

/// The order a meta-request's requests are scheduled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// As they arrived.
    Arrival,
    /// Descending priority `p_k` (ties as they arrived).
    Priority,
    /// Descending `Σ CPU_min` of the sub-requests (ties as they arrived).
    SumMin,
}

/// What the registry knows of an algorithm.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// One line for `--help` and reports.
    pub description: &'static str,
    /// Where in rspb-priorities-benefit-functions it comes from (see [`Algorithm::source`]).
    pub section: &'static str,
    /// The thesis's chapter whose model it schedules: 4 (one sub-request, any machine)
    /// or 5 (sub-requests, fixed or floating).
    pub chapter: u8,
    /// How each meta-request is ordered.
    pub order: Order,
}

const PAPER: &str = "rspb-priorities-benefit-functions";

impl Algorithm {
    /// The registry entry.
    pub fn spec(self) -> Spec {
        match self {
            Algorithm::Rb => Spec {
                description: "the Resource Broker baseline: each request in arrival order on the least loaded machine that has all it asks for, else rejected (no benefit functions)",
                section: "2.3.1 and 4.5 (its baseline; Fig 4.2 without lines 24-32, in arrival order)",
                chapter: 4,
                order: Order::Arrival,
            },
            Algorithm::Rspb => Spec {
                description: "RSPB: each meta-request by priority; the least loaded machine with all a request asks for, else the one whose CPU gives the most benefit",
                section: "4.4, Figs 4.1 and 4.2",
                chapter: 4,
                order: Order::Priority,
            },
            Algorithm::CoRspb => Spec {
                description: "Co-RSPB: requests by priority; each sub-request CPU_max on the tightest machine with it, else the most benefit; all or none",
                section: "5.3, Figs 5.1-5.3",
                chapter: 5,
                order: Order::Priority,
            },
            Algorithm::CoRsbf => Spec {
                description: "Co-RSBF: requests by the sum of their minimum CPU; each sub-request CPU_min on the tightest machine with it (best fit decreasing); all or none",
                section: "5.4, Figs 5.4-5.6",
                chapter: 5,
                order: Order::SumMin,
            },
            Algorithm::CoRsbfr => Spec {
                description: "Co-RSBFR: Co-RSBF, then each admitted request's soft sub-requests moved or grown toward CPU_max, rejecting nothing",
                section: "5.4, Figs 5.7 and 5.8",
                chapter: 5,
                order: Order::SumMin,
            },
        }
    }

    /// Where it comes from: its section of the thesis.
    pub fn source(self) -> Source {
        Source { paper: PAPER, section: Some(self.spec().section) }
    }

    /// The `--algorithm` value.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The algorithms of one chapter's model.
    pub fn of_chapter(chapter: u8) -> Vec<Algorithm> {
        Self::VARIANTS.iter().copied().filter(|a| a.spec().chapter == chapter).collect()
    }
}

impl FromStr for Algorithm {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        structures::registry::by_name(Self::VARIANTS, Self::name, "algorithm", s)
    }
}

/// Why a run stopped.
#[derive(Debug, Error)]
pub enum RspbError {
    /// The workload is refused.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A request the algorithm's model cannot hold.
    #[error("{algorithm}: request {id}: {why}")]
    Unfit {
        /// The algorithm.
        algorithm: Algorithm,
        /// The request.
        id: u64,
        /// Why.
        why: &'static str,
    },
    /// A figure's parameters are refused.
    #[error("figure {figure}: {why}")]
    Params {
        /// The figure.
        figure: &'static str,
        /// Why.
        why: String,
    },
    /// A table op was refused or diverged from the oracle.
    #[error(transparent)]
    Table(#[from] ReplayError),
    /// A table broke its invariants (verified runs).
    #[error("after the event at {at}: {why}")]
    Invariant {
        /// The event.
        at: u64,
        /// What broke.
        why: InvariantError,
    },
}

/// A machine whose time slot table broke its invariants, and how.
#[derive(Debug, Error)]
#[error("machine {machine}: {broken}")]
pub struct InvariantError {
    /// The machine, from 0.
    pub machine: usize,
    /// What broke.
    pub broken: crate::counting::BrokenInvariant,
}

/// One algorithm's run on one structure.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The structure every machine's table was.
    pub structure: Kind,
    /// Each request's decision, in the workload's order.
    pub decisions: Vec<Decision>,
    /// Scheduling events that had requests.
    pub events: usize,
    /// Ops on the tables.
    pub ops: u64,
}

/// A deviation from the thesis planted on purpose, one per algorithm, to show that the
/// comparison with `references::rspb` catches it (feature `planted`, for tests only).
#[cfg(feature = "planted")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planted {
    /// RB: the first machine with all the request asks for, not the least loaded (Fig
    /// 4.2 line 38 skipped).
    FirstRoomy,
    /// RSPB: a meta-request in arrival order, not by priority (Fig 4.2 line 12 skipped).
    ArrivalOrder,
    /// Co-RSPB: a floating sub-request given `CPU_min`, not `CPU_max`, on a machine that
    /// has all it asks for (Fig 5.2 line 34).
    MinOnRoomy,
    /// Co-RSBF: best-fit ties go to the last machine scanned, not the first (Fig 5.5
    /// line 12's `<` read `<=`).
    LastOfTies,
    /// Co-RSBFR: no second round of refinement (Fig 5.8 lines 34-44 skipped).
    OneRound,
}

/// Runs `algorithm` over `workload` with every machine's table in a fresh `kind` (beside
/// the oracle, each table's invariants checked after every event, when `verify`).
///
/// # Errors
/// A refused workload, a request outside the algorithm's model, or (a bug) a refused op,
/// a divergence from the oracle or a broken invariant.
pub fn run(algorithm: Algorithm, workload: &Workload, kind: Kind, verify: bool) -> Result<Run, RspbError> {
    run_on(algorithm, workload, kind, verify, |_| {})
}

/// [`run`] with `planted` planted (feature `planted`, for tests only).
///
/// # Errors
/// As [`run`].
#[cfg(feature = "planted")]
pub fn run_planted(
    algorithm: Algorithm,
    workload: &Workload,
    kind: Kind,
    verify: bool,
    planted: Planted,
) -> Result<Run, RspbError> {
    run_on(algorithm, workload, kind, verify, |grid| grid.planted = Some(planted))
}

/// [`run`], `plant` given the grid first: it plants a test's deviation, or does nothing.
fn run_on(
    algorithm: Algorithm,
    workload: &Workload,
    kind: Kind,
    verify: bool,
    plant: impl FnOnce(&mut Grid),
) -> Result<Run, RspbError> {
    workload.validate()?;
    let spec = algorithm.spec();
    if spec.chapter == 4 {
        if let Some(r) = workload.requests.iter().find(|r| r.subs.len() != 1 || !r.floating()) {
            let why = "chapter 4's algorithms take requests of one sub-request on any machine";
            return Err(RspbError::Unfit { algorithm, id: r.id, why });
        }
    }
    let mut grid = Grid::new(kind, &workload.dedication, workload.horizon, verify)?;
    plant(&mut grid);
    for h in &workload.held {
        grid.hold(h)?;
    }
    let mut decisions = vec![Decision::Rejected { sub: 0 }; workload.requests.len()];
    let events = batches(&workload.requests, workload.interval);
    for event in &events {
        grid.advance(event.at)?;
        let mut order = event.requests.clone();
        let requests = &workload.requests;
        #[cfg(feature = "planted")]
        let spec = match grid.planted {
            Some(Planted::ArrivalOrder) => Spec { order: Order::Arrival, ..spec },
            _ => spec,
        };
        match spec.order {
            Order::Arrival => {}
            Order::Priority => order.sort_by_key(|&k| std::cmp::Reverse(requests[k].priority)),
            Order::SumMin => order.sort_by_key(|&k| std::cmp::Reverse(requests[k].sum_min())),
        }
        for &k in &order {
            decisions[k] = decide(algorithm, &mut grid, &requests[k])?;
        }
        if algorithm == Algorithm::CoRsbfr {
            // Fig 5.7 lines 13-18: refine the admitted ones, in the same order.
            for &k in &order {
                if let Decision::Accepted(placed) = &mut decisions[k] {
                    refine::refine(&mut grid, &requests[k], placed)?;
                }
            }
        }
        if verify {
            grid.validate(event.at, event.at.saturating_add(workload.horizon))
                .map_err(|why| RspbError::Invariant { at: event.at, why })?;
        }
    }
    Ok(Run { algorithm, structure: kind, decisions, events: events.len(), ops: grid.ops() })
}

fn decide(algorithm: Algorithm, grid: &mut Grid, r: &Request) -> Result<Decision, ReplayError> {
    match algorithm {
        Algorithm::Rb => single::schedule(grid, r, false),
        Algorithm::Rspb => single::schedule(grid, r, true),
        Algorithm::CoRspb => co::schedule(grid, r, co::Fit::Most),
        Algorithm::CoRsbf | Algorithm::CoRsbfr => co::schedule(grid, r, co::Fit::Least),
    }
}
