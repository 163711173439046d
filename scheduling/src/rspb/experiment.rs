//! The thesis's figures as sweeps (rspb-priorities-benefit-functions, sections 4.5 and
//! 5.6), and a sensitivity sweep of ours: for each point, the workloads of several RNG
//! seeds, every algorithm of the chapter on each (paired), and each measure's mean with a
//! 95 % confidence interval. The thesis gives each sweep's range, not its steps; the
//! steps are ours.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use structures::{Kind, Time};

use super::generate::{Count, Params};
use super::metrics::{interval95, Metrics};
use super::{run, Algorithm, RspbError};

/// What a figure plots on its y axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Requests rejected.
    Rejected,
    /// Mean CPU reserved per request (with the CPU asked for as the "ideal").
    ReservedCpu,
    /// Priorities of the rejected, summed, against the rejections.
    RejectedPriority,
    /// System benefit (panel a) and rejections (panel b).
    Benefit,
}

/// One of the thesis's figures, or a sensitivity sweep of ours drawn like one.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Its number, `4.3` to `5.13`, or a name for a sweep of ours ([`FLOOR`]).
    pub id: &'static str,
    /// The thesis's caption, or one in its style for a sweep of ours (which a report
    /// labels as ours).
    pub caption: &'static str,
    /// The x axis.
    pub x_label: &'static str,
    /// The y axis.
    pub measure: Measure,
    /// The trends the thesis states about it, quoted; `None` for a sweep of ours, of
    /// which the thesis says nothing.
    pub trend: Option<&'static str>,
    /// Whether x is the mean number of requests created (a sweep of simulation time).
    pub x_requests: bool,
    /// Each point's x value and parameters (x of a request-count sweep is the mean
    /// number of requests created, computed when run).
    pub points: Vec<(f64, Params)>,
}

/// The chapter a figure belongs to.
impl Figure {
    /// 4 or 5; the sweeps of ours run chapter 5's algorithms.
    pub fn chapter(&self) -> u8 {
        if self.id.starts_with('4') {
            4
        } else {
            5
        }
    }
}

/// Durations uniform in `20..=2μ - 20`, so that their mean is `μ` (section 4.5 and 5.6
/// give only the range of means).
fn durations(mean: Time) -> (Time, Time) {
    (20, (2 * mean).saturating_sub(20).max(20))
}

/// The id of the sensitivity sweep of the benefit floor: the share of `CPU_max` a soft
/// sub-request's `CPU_min` is (the thesis's only number for it is 25 %, section 4.5).
pub const FLOOR: &str = "floor";

/// The ten figures, in the thesis's order, then the floor sweep of ours ([`FLOOR`]).
pub fn figures() -> Vec<Figure> {
    let (c4, c5) = (Params::chapter4(), Params::chapter5());
    let sweep = |xs: Vec<u64>, f: &dyn Fn(u64) -> Params| xs.into_iter().map(|x| (x as f64, f(x))).collect();
    vec![
        Figure {
            id: "4.3",
            caption: "Number of rejections versus number of requests",
            x_label: "requests created (simulation time 10,000 to 120,000)",
            measure: Measure::Rejected,
            trend: Some("\"the number of rejections for RSPB is considerably lower than that for RB in all three cases\" (section 4.5, of Figs 4.3-4.5)"),
            x_requests: true,
            points: sweep((1..=12).map(|k| k * 10_000).collect(), &|t| Params { count: Count::Within(t), ..c4.clone() }),
        },
        Figure {
            id: "4.4",
            caption: "Number of rejections versus number of machines",
            x_label: "machines",
            measure: Measure::Rejected,
            trend: Some("\"the number of rejections for RSPB is considerably lower than that for RB in all three cases\" (section 4.5, of Figs 4.3-4.5)"),
            x_requests: false,
            points: sweep((1..=10).map(|k| 2 * k).collect(), &|m| Params { machines: m as usize, ..c4.clone() }),
        },
        Figure {
            id: "4.5",
            caption: "Number of rejections versus request duration",
            x_label: "mean requested duration",
            measure: Measure::Rejected,
            trend: Some("\"the number of rejections for RSPB is considerably lower than that for RB in all three cases\" (section 4.5, of Figs 4.3-4.5)"),
            x_requests: false,
            points: sweep((0..=8).map(|k| 30 + 40 * k).collect(), &|mu| Params { duration: durations(mu), ..c4.clone() }),
        },
        Figure {
            id: "4.6",
            caption: "The average of reserved CPU versus the average of requested CPU",
            x_label: "mean requested CPU (%)",
            measure: Measure::ReservedCpu,
            trend: Some("\"when the average of requested CPU is less than 25%, reserved CPU for all three curves are the same\"; above, \"RB and RSPB deviate from the ideal approach\"; \"The curve for RB is lowest before the average of requested CPU is less than 63%\", the difference growing up to 50 % and \"almost the zero after 63%\" (section 4.5)"),
            x_requests: false,
            points: sweep((0..=10).map(|k| 20 + 5 * k).collect(), &|mu| {
                let mu = mu as u32;
                Params { cpu: ((2 * mu).saturating_sub(70).max(20), (2 * mu).saturating_sub(20).min(70)), ..c4.clone() }
            }),
        },
        Figure {
            id: "4.7",
            caption: "Sum of rejected priorities versus number of rejections",
            x_label: "rejections (simulation time 10,000 to 100,000; starts 300 later)",
            measure: Measure::RejectedPriority,
            trend: Some("\"the sum of rejected priorities of RSPB is less than that of RB. This is due to priority ordering in RSPB\" (section 4.5)"),
            x_requests: false,
            points: sweep((1..=10).map(|k| k * 10_000).collect(), &|t| Params { count: Count::Within(t), lead: 300, ..c4.clone() }),
        },
        Figure {
            id: "5.9",
            caption: "(a) System benefit and (b) number of rejections versus number of requests",
            x_label: "requests",
            measure: Measure::Benefit,
            trend: Some(CHAPTER_5_TREND),
            x_requests: false,
            points: sweep((0..10).map(|k| 100 + 200 * k).collect(), &|n| Params { count: Count::Exactly(n as usize), ..c5.clone() }),
        },
        Figure {
            id: "5.10",
            caption: "(a) System benefit and (b) number of rejections versus number of machines",
            x_label: "machines",
            measure: Measure::Benefit,
            trend: Some(CHAPTER_5_TREND),
            x_requests: false,
            points: sweep((1..=10).map(|k| 4 * k).collect(), &|m| Params { machines: m as usize, ..c5.clone() }),
        },
        Figure {
            id: "5.11",
            caption: "(a) System benefit and (b) number of rejections versus requested duration",
            x_label: "mean requested duration",
            measure: Measure::Benefit,
            trend: Some(CHAPTER_5_TREND),
            x_requests: false,
            points: sweep(vec![24, 40, 60, 80, 100, 120, 140, 159], &|mu| Params { duration: durations(mu), ..c5.clone() }),
        },
        Figure {
            id: "5.12",
            caption: "(a) System benefit and (b) number of rejections versus percentage of floating requests",
            x_label: "floating requests (%)",
            measure: Measure::Benefit,
            trend: Some("\"when all requests ask for fixed machines, the number of rejections are highest, therefore the system benefit are lowest for all three algorithms. As the percentage of requests requiring floating machines increases, the number of rejections for all three algorithms decreases and the system benefit increases\" (section 5.6)"),
            x_requests: false,
            points: sweep((0..=10).map(|k| 10 * k).collect(), &|f| Params { fixed: 1.0 - f as f64 / 100.0, ..c5.clone() }),
        },
        Figure {
            id: "5.13",
            caption: "(a) System benefit and (b) number of rejections versus scope of priority",
            x_label: "highest priority",
            measure: Measure::Benefit,
            trend: Some("\"the scope of priority does not affect the value of system benefit and the number of rejections\" (section 5.6)"),
            x_requests: false,
            points: sweep((1..=10).map(|k| 10 * k).collect(), &|p| Params { priority_max: p as u32, ..c5.clone() }),
        },
        Figure {
            id: FLOOR,
            caption: "(a) System benefit and (b) number of rejections versus the CPU_min floor",
            x_label: "CPU_min floor (% of the CPU asked for)",
            measure: Measure::Benefit,
            trend: None,
            x_requests: false,
            // From the thesis's 25 % up to 100 %, where every shape is a step: nothing
            // degrades, and the algorithms differ only in their order.
            points: (0..=6)
                .map(|k| {
                    let percent = 25.0 + 12.5 * f64::from(k);
                    (percent, Params { soft_floor: percent / 100.0, ..c5.clone() })
                })
                .collect(),
        },
    ]
}

const CHAPTER_5_TREND: &str = "\"the system benefit for Co-RSPB is considerably higher than that for Co-RSBF and Co-RSBFR in all three cases\"; \"the number of rejections for Co-RSBFR is much higher than that for Co-RSPB and Co-RSBF. The number of rejections for Co-RSBF is the lowest as we expected. The number of rejections for Co-RSPB is about 10% higher than that for Co-RSBF\" (section 5.6, of Figs 5.9-5.11)";

/// A measure's mean over the seeds and the half-width of its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Half the 95 % confidence interval (Student's t); 0 for one seed.
    pub half: f64,
}

impl Estimate {
    fn of(values: &[f64]) -> Self {
        let (mean, half) = interval95(values);
        Self { mean, half: half.unwrap_or(0.0) }
    }
}

/// One algorithm at one point of a figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// The x value.
    pub x: f64,
    /// Requests per workload.
    pub requests: Estimate,
    /// Rejections.
    pub rejected: Estimate,
    /// Priorities of the rejected, summed.
    pub rejected_priority: Estimate,
    /// CPU reserved per request.
    pub reserved_cpu: Estimate,
    /// CPU asked for per request.
    pub requested_cpu: Estimate,
    /// System benefit.
    pub system_benefit: Estimate,
    /// Ops on the tables per request.
    pub ops_per_request: Estimate,
}

impl Point {
    /// The point at `x` of runs on several workloads: each run's measures and its table
    /// ops per request.
    pub fn of(x: f64, runs: &[(Metrics, f64)]) -> Self {
        let of = |f: &dyn Fn(&(Metrics, f64)) -> f64| Estimate::of(&runs.iter().map(f).collect::<Vec<_>>());
        Self {
            x,
            requests: of(&|m| m.0.requests as f64),
            rejected: of(&|m| m.0.rejected as f64),
            rejected_priority: of(&|m| m.0.rejected_priority as f64),
            reserved_cpu: of(&|m| m.0.reserved_cpu),
            requested_cpu: of(&|m| m.0.requested_cpu),
            system_benefit: of(&|m| m.0.system_benefit),
            ops_per_request: of(&|m| m.1),
        }
    }
}

/// One algorithm's curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Series {
    /// The algorithm, by name.
    pub algorithm: String,
    /// Its points, in the sweep's order.
    pub points: Vec<Point>,
}

/// A figure's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureResult {
    /// The figure's number.
    pub id: String,
    /// One curve per algorithm of its chapter.
    pub series: Vec<Series>,
}

/// Runs `figure` with `seeds` workloads per point (RNG seeds `first..first + seeds`) on
/// `kind` (beside the oracle when `verify`), every algorithm on the same workloads.
///
/// # Errors
/// No seed, seeds past the last RNG seed, bad parameters, or a failed run.
pub fn run_figure(
    figure: &Figure,
    first: u64,
    seeds: u64,
    kind: Kind,
    verify: bool,
) -> Result<FigureResult, RspbError> {
    let figures = [figure];
    let runs = sweep(&figures, first, seeds)?;
    Ok(figure_result(figure, &samples(&figures, &runs, kind, verify, &|| {})?, seeds))
}

/// One workload of one point of a figure: each algorithm of its chapter (in their order)
/// on it, with its measures and table ops per request. The unit a sweep runs and a
/// shard of it records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    /// The figure's id.
    pub figure: String,
    /// The point, by its place in the figure's sweep.
    pub point: usize,
    /// The workload's RNG seed.
    pub seed: u64,
    /// Each algorithm's measures and ops per request.
    pub runs: Vec<(Metrics, f64)>,
}

/// A run of a sweep of figures: the figure (its place in the list), the point and the
/// RNG seed.
pub type SweepRun = (usize, usize, u64);

/// Every run of the sweep of `figures`, `seeds` workloads per point from RNG seed
/// `first`, in the order figure, point, seed.
///
/// # Errors
/// No seed, or seeds past the last RNG seed.
pub fn sweep(figures: &[&Figure], first: u64, seeds: u64) -> Result<Vec<SweepRun>, RspbError> {
    let mut runs = Vec::new();
    for (f, figure) in figures.iter().enumerate() {
        let Some(last) = first.checked_add(seeds).filter(|_| seeds > 0) else {
            return Err(RspbError::Params {
                figure: figure.id,
                why: format!("{seeds} seeds from {first}: at least one, within the RNG seeds"),
            });
        };
        runs.extend((0..figure.points.len()).flat_map(|p| (first..last).map(move |seed| (f, p, seed))));
    }
    Ok(runs)
}

/// Runs `runs` of the sweep of `figures` on `kind` (beside the oracle when `verify`):
/// each is independent, so they run on rayon's threads (the caller's pool) and come back
/// in the order of `runs`. `done` is called as each ends (a progress bar's tick).
///
/// # Errors
/// Bad parameters, or a failed run (the first in the order of `runs`).
pub fn samples(
    figures: &[&Figure],
    runs: &[SweepRun],
    kind: Kind,
    verify: bool,
    done: &(dyn Fn() + Sync),
) -> Result<Vec<Sample>, RspbError> {
    runs.par_iter()
        .map(|&(f, p, seed)| {
            let figure = figures[f];
            let workload = figure.points[p]
                .1
                .workload(seed)
                .map_err(|e| RspbError::Params { figure: figure.id, why: e.to_string() })?;
            let runs = Algorithm::of_chapter(figure.chapter())
                .iter()
                .map(|&algorithm| {
                    let r = run(algorithm, &workload, kind, verify)?;
                    let m = Metrics::new(&workload, &r.decisions);
                    Ok((m, r.ops as f64 / m.requests.max(1) as f64))
                })
                .collect::<Result<_, RspbError>>()?;
            done();
            Ok(Sample { figure: figure.id.to_owned(), point: p, seed, runs })
        })
        .collect()
}

/// Each of `figures`' curves from the sweep's samples, in the order [`sweep`] lists them
/// (figure by figure, each point's seeds in order), so that the means and intervals are
/// summed alike however the samples were run.
///
/// # Panics
/// When a sample has fewer runs than its figure's chapter has algorithms.
pub fn figure_results(figures: &[&Figure], samples: &[Sample], seeds: u64) -> Vec<FigureResult> {
    let mut rest = samples;
    figures
        .iter()
        .map(|figure| {
            let (these, later) = rest.split_at(rest.iter().take_while(|s| s.figure == figure.id).count());
            rest = later;
            figure_result(figure, these, seeds)
        })
        .collect()
}

/// `figure`'s curves from its samples, `seeds` per point, in [`sweep`]'s order.
fn figure_result(figure: &Figure, samples: &[Sample], seeds: u64) -> FigureResult {
    let algorithms = Algorithm::of_chapter(figure.chapter());
    let mut series: Vec<Series> =
        algorithms.iter().map(|a| Series { algorithm: a.name().to_owned(), points: Vec::new() }).collect();
    let per_point = usize::try_from(seeds).unwrap_or(usize::MAX);
    for ((x, _), point_samples) in figure.points.iter().zip(samples.chunks(per_point)) {
        for (a, s) in series.iter_mut().enumerate() {
            let sample: Vec<(Metrics, f64)> = point_samples.iter().map(|sample| sample.runs[a]).collect();
            let mut point = Point::of(*x, &sample);
            // A request-count sweep is plotted against the requests created.
            if figure.x_requests {
                point.x = point.requests.mean;
            }
            s.points.push(point);
        }
    }
    FigureResult { id: figure.id.to_owned(), series }
}
