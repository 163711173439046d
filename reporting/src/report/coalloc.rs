//! coallocation-2d-trees' section 5 reproduced for each workload its `coalloc` policy was
//! replayed on: attempts by size against Table 2, the batch baselines and the trace's own
//! recorded waits side by side (Figs 3, 4 a and 5), and the sweep over ρ (Figs 6 and 7).
//! Every comparison with the paper is a computed [`Claim`]: the paper's number (held
//! here with its table or section), ours, the difference and a verdict.

use std::path::Path;

use crate::error::Result;

use super::claims::{self, Claim, Quoted};
use super::doc::Block;
use super::plots::{self, Series};
use crate::run_file::{Group, RunFile, TraceInfo, SIZE_GROUP};
use scheduling::policy::{Length, PolicyKind};

/// coallocation-2d-trees' Table 2: mean scheduling attempts by spatial size group
/// `(upper bound of n_r, attempts)`, for the traces it names (matched by the start of
/// the trace's file name).
const TABLE_2: [(&str, &[(u32, f64)]); 2] = [
    ("CTC", &[(50, 2.96), (100, 5.34), (150, 7.22), (200, 13.25), (400, 127.44)]),
    ("KTH", &[(50, 10.27), (100, 60.0), (150, 120.0)]),
];

/// Table 2's size classes as the claims name them.
const TABLE_2_CLASSES: [(u32, &str); 5] = [
    (50, "attempts per request, n_r in (0:50]"),
    (100, "attempts per request, n_r in (50:100]"),
    (150, "attempts per request, n_r in (100:150]"),
    (200, "attempts per request, n_r in (150:200]"),
    (400, "attempts per request, n_r in (350:400]"),
];

/// coallocation-2d-trees' Table 1 by trace: the machine's size `N`, its jobs, and the
/// average estimated `l_r` in hours.
const TABLE_1: [(&str, u32, f64, f64); 3] =
    [("CTC", 512, 39_734.0, 5.82), ("KTH", 128, 28_481.0, 2.46), ("HPC2N", 240, 202_825.0, 4.72)];

/// coallocation-2d-trees, section 5.1: the longest wait under online co-allocation, hours.
const MAX_WAIT: [(&str, f64); 2] = [("CTC", 19.0), ("KTH", 75.0)];

/// How far ours may be from a number the paper states and still agree.
const TOLERANCE: f64 = 0.25;

/// Waits below this many hours are drawn at it on the logarithmic axes (a minute).
const FLOOR_HOURS: f64 = 1.0 / 60.0;

/// Penalties below this are drawn at it on the logarithmic axis.
const FLOOR_PENALTY: f64 = 1e-3;

/// Seconds as hours, one decimal.
fn hours(seconds: f64) -> String {
    format!("{:.1} h", seconds / 3600.0)
}

/// The share of jobs (0 to 1) that waited at most `seconds`, from quantiles `(q, wait)`.
fn share_at_most(quantiles: &[(f64, u64)], seconds: u64) -> f64 {
    quantiles.iter().filter(|&&(_, w)| w <= seconds).map(|&(q, _)| q).fold(0.0, f64::max)
}

/// Quantiles `(q, seconds)` as a distribution's points `(hours, percent)`.
fn in_hours(quantiles: &[(f64, u64)]) -> Vec<(f64, f64)> {
    quantiles.iter().map(|&(q, v)| (v as f64 / 3600.0, 100.0 * q)).collect()
}

/// The quantile `q` of `quantiles`, if kept.
fn at(quantiles: &[(f64, u64)], q: f64) -> Option<u64> {
    quantiles.iter().find(|&&(k, _)| (k - q).abs() < 1e-9).map(|&(_, w)| w)
}

/// The runs of one workload: co-allocation at each ρ and the other policies at ρ = 0.
struct Workload<'a> {
    trace: &'a TraceInfo,
    capacity: u32,
    /// `coalloc`, by increasing ρ, one run each.
    sweep: Vec<&'a RunFile>,
    /// Every policy at ρ = 0 (`coalloc` first), one run each.
    policies: Vec<&'a RunFile>,
}

fn workloads(runs: &[RunFile]) -> Vec<Workload<'_>> {
    let mut out: Vec<Workload<'_>> = Vec::new();
    for run in runs.iter().filter(|r| r.attempts.is_some()) {
        if !out.iter().any(|w| *w.trace == run.trace && w.capacity == run.capacity) {
            out.push(Workload {
                trace: &run.trace,
                capacity: run.capacity,
                sweep: Vec::new(),
                policies: Vec::new(),
            });
        }
    }
    for w in &mut out {
        for run in runs.iter().filter(|r| r.trace == *w.trace && r.capacity == w.capacity) {
            let coalloc = run.options.policy == PolicyKind::Coalloc;
            if coalloc && !w.sweep.iter().any(|r| r.options == run.options) {
                w.sweep.push(run);
            }
            let first = !w.policies.iter().any(|r| r.options.policy == run.options.policy);
            if run.options.ar_fraction == 0.0 && first {
                w.policies.push(run);
            }
        }
        w.sweep.sort_by(|a, b| a.options.ar_fraction.total_cmp(&b.options.ar_fraction));
        w.policies.sort_by_key(|r| (r.options.policy != PolicyKind::Coalloc, r.options.policy));
    }
    out.sort_by(|a, b| a.trace.name.cmp(&b.trace.name).then(a.capacity.cmp(&b.capacity)));
    out
}

/// The co-allocation sections, one per workload, or nothing when no run retried.
///
/// # Errors
/// [`Error::Plot`](crate::Error::Plot) when a plot cannot be written.
pub(super) fn section(runs: &[RunFile], out: &Path) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for w in workloads(runs) {
        let stem = w.trace.stem();
        blocks.push(Block::Heading(2, format!("Online co-allocation on {stem}, {} resources", w.capacity)));
        if let Some(&run) = w.policies.first().filter(|r| r.options.policy == PolicyKind::Coalloc) {
            blocks.extend(at_zero(&w, run, &stem, out)?);
            blocks.push(Block::Para(claims::across_structures(runs, run)));
        }
        blocks.extend(against_rho(&w, &stem, out)?);
    }
    Ok(blocks)
}

/// Section 5.1 (ρ = 0): Table 2, the baselines, and Figs 3, 4 a and 5.
fn at_zero(w: &Workload<'_>, run: &RunFile, stem: &str, out: &Path) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    let Some(m) = &run.attempts else { return Ok(blocks) };
    let a = run.options.attempts.unwrap_or_default();
    let length = match a.length {
        Length::RunTime => "l_r is the job's run time, held exactly (the paper's model)",
        Length::Requested => "l_r is the requested time, its unused tail freed when the job ends (ours)",
    };
    blocks.push(Block::Para(format!(
        "{}; slot {} s, horizon {} s, Δt = {} s, R_max = {} (1 + R_max attempts at most); {length}; {} requests, {} rejected, {:.2} attempts per request on average, {:.1} structure operations per request.",
        w.trace.name,
        run.config.slot,
        run.config.horizon.unwrap_or(0),
        a.delta,
        a.rmax,
        m.requests,
        m.rejected,
        m.mean_attempts,
        run.operations.counts.values().sum::<u64>() as f64 / m.requests.max(1) as f64,
    )));
    let paper = TABLE_2.iter().find(|(name, _)| stem.starts_with(name)).map(|(_, row)| *row);
    let batch: Vec<&RunFile> =
        w.policies.iter().copied().filter(|r| r.options.policy != PolicyKind::Coalloc).collect();
    let mut header: Vec<String> =
        ["n_r", "requests", "attempts per request", "the paper's Table 2", "mean W_r, `coalloc` (Fig 5)"]
            .map(str::to_owned)
            .to_vec();
    header.extend(batch.iter().map(|r| format!("mean wait, `{}`", r.options.policy)));
    let rows = m
        .by_size
        .iter()
        .map(|g| {
            let quoted = paper.and_then(|row| row.iter().find(|(upto, _)| *upto == g.upto));
            let mut row = vec![
                format!("({}:{}]", g.upto - SIZE_GROUP, g.upto),
                g.requests.to_string(),
                format!("{:.2}", g.mean_attempts),
                quoted.map_or("—".to_owned(), |(_, v)| format!("{v:.2}")),
                hours(g.mean_wait),
            ];
            row.extend(batch.iter().map(|r| {
                let group = r
                    .schedule
                    .waits
                    .as_ref()
                    .and_then(|ws| ws.by_size.iter().find(|b| b.upto == u64::from(g.upto)));
                group.map_or("—".to_owned(), |b| hours(b.mean_wait))
            }));
            row
        })
        .collect();
    blocks.push(Block::Table(header, rows));
    blocks.push(Block::Table(
        ["policy", "mean wait", "median wait", "p99 wait", "rejected", "utilisation"]
            .map(str::to_owned)
            .to_vec(),
        baselines(w),
    ));
    blocks.extend(figures(w, stem, out)?);
    let claims = claims_at_zero(stem, run);
    if !claims.is_empty() {
        blocks.push(Block::Para(format!(
            "Against the paper (section 5.1), each number with its verdict at a tolerance of {}; the machine size must match exactly.",
            claims::tolerance(TOLERANCE)
        )));
        blocks.push(Block::Table(claims::header(), claims.iter().map(|c| c.row(2)).collect()));
    }
    blocks.push(Block::Para(against_batch(w, run)));
    Ok(blocks)
}

/// The section 5.1 numbers the paper states for `stem`'s trace, against `run`'s.
fn claims_at_zero(stem: &str, run: &RunFile) -> Vec<Claim> {
    let mut out = Vec::new();
    let Some(m) = &run.attempts else { return out };
    let claim = |what, source, value, ours, tolerance| Claim {
        quoted: Quoted { what, source, value },
        ours,
        tolerance,
    };
    if let Some(&(_, n, jobs, length)) = TABLE_1.iter().find(|(name, ..)| stem.starts_with(name)) {
        out.push(claim("machine size N", "Table 1", f64::from(n), f64::from(run.capacity), 0.0));
        out.push(claim("jobs", "Table 1", jobs, m.requests as f64, TOLERANCE));
        if m.mean_length > 0.0 {
            out.push(claim(
                "average estimated l_r, hours",
                "Table 1",
                length,
                m.mean_length / 3600.0,
                TOLERANCE,
            ));
        }
    }
    if let Some((_, row)) = TABLE_2.iter().find(|(name, _)| stem.starts_with(name)) {
        for g in &m.by_size {
            if let Some(&(_, v)) = row.iter().find(|(upto, _)| *upto == g.upto) {
                let what =
                    TABLE_2_CLASSES.iter().find(|(upto, _)| *upto == g.upto).map_or("attempts", |c| c.1);
                out.push(claim(what, "Table 2", v, g.mean_attempts, TOLERANCE));
            }
        }
    }
    if let Some(&(_, hours)) = MAX_WAIT.iter().find(|(name, _)| stem.starts_with(name)) {
        if let Some(max) = at(&m.wait_quantiles, 1.0) {
            out.push(claim(
                "longest wait W_r, hours",
                "section 5.1 (Fig 4 a)",
                hours,
                max as f64 / 3600.0,
                TOLERANCE,
            ));
        }
    }
    out
}

/// How `run` compares with the batch baselines on the same workload: facts, no verdict
/// (the paper's Figs 3 to 5 are plots, with no number to hold).
fn against_batch(w: &Workload<'_>, run: &RunFile) -> String {
    let two_hours =
        |r: &RunFile| r.schedule.waits.as_ref().map(|ws| 100.0 * share_at_most(&ws.quantiles, 7_200));
    let short_penalty =
        |r: &RunFile| r.schedule.waits.as_ref().and_then(|ws| ws.by_length.first()).map(|g| g.mean_penalty);
    let mut compared = Vec::new();
    for other in w.policies.iter().filter(|r| r.options.policy != PolicyKind::Coalloc) {
        if let (Some(a), Some(b), Some(pa), Some(pb)) =
            (two_hours(run), two_hours(other), short_penalty(run), short_penalty(other))
        {
            compared.push(format!(
                "{a:.0} % of jobs wait at most 2 h under `coalloc` and {b:.0} % under `{}`; jobs of at most an hour pay a mean temporal penalty of {pa:.2} against {pb:.2}",
                other.options.policy
            ));
        }
    }
    let mut text = String::new();
    if !compared.is_empty() {
        text.push_str(&format!("Against the batch baselines: {}. ", compared.join("; ")));
    }
    if let Some(m) = &run.attempts {
        let growing = m.by_size.windows(2).filter(|p| p[1].mean_attempts >= p[0].mean_attempts).count();
        text.push_str(&format!(
            "Attempts per request grow with n_r in {growing} of the {} steps between size groups. ",
            m.by_size.len().saturating_sub(1)
        ));
    }
    text.push_str("A job's length is what its policy reserves: under `coalloc` as the first paragraph says, under the baselines the requested time. The recorded waits are the trace's own scheduler on the machine it ran on.");
    text
}

/// One row per policy at ρ = 0, then the trace's recorded waits.
fn baselines(w: &Workload<'_>) -> Vec<Vec<String>> {
    let q = |r: &RunFile, k: f64| r.schedule.waits.as_ref().and_then(|ws| at(&ws.quantiles, k));
    let mut rows: Vec<Vec<String>> = w
        .policies
        .iter()
        .map(|r| {
            vec![
                format!("`{}`", r.options.policy),
                hours(r.schedule.mean_wait),
                q(r, 0.5).map_or("—".to_owned(), |v| hours(v as f64)),
                hours(r.schedule.p99_wait as f64),
                r.schedule.unplaced.to_string(),
                format!("{:.1} %", 100.0 * r.schedule.utilisation),
            ]
        })
        .collect();
    if let Some(rec) = &w.trace.recorded_waits {
        let q = |k| at(&rec.quantiles, k).map_or("—".to_owned(), |v| hours(v as f64));
        rows.push(vec![
            format!("recorded: the trace's own log ({} jobs; {} without a wait)", rec.jobs, rec.unknown),
            hours(rec.mean),
            q(0.5),
            q(0.99),
            "—".into(),
            "—".into(),
        ]);
    }
    rows
}

/// Figs 3, 4 a and 5 for the policies at ρ = 0 (and the recorded waits in Fig 4 a).
fn figures(w: &Workload<'_>, stem: &str, out: &Path) -> Result<Vec<Block>> {
    let names: Vec<String> = w.policies.iter().map(|r| r.options.policy.to_string()).collect();
    let groups =
        |by: fn(&crate::run_file::Waits) -> &Vec<Group>, x: fn(&Group) -> f64, y: fn(&Group) -> f64| {
            w.policies
                .iter()
                .zip(&names)
                .filter_map(|(r, name)| {
                    let ws = r.schedule.waits.as_ref()?;
                    Some(Series { name, points: by(ws).iter().map(|g| (x(g), y(g))).collect() })
                })
                .collect::<Vec<_>>()
        };
    let mut blocks = Vec::new();
    let mut add =
        |n: &str, series: &[Series<'_>], draw: &dyn Fn(&Path, &[Series<'_>]) -> Result<()>, caption| {
            if series.is_empty() {
                return Ok(());
            }
            let file = format!("coalloc-fig{n}-{stem}-{}.svg", w.capacity);
            draw(&out.join(&file), series)?;
            blocks.push(Block::Figure { file, caption });
            Ok::<_, crate::Error>(())
        };
    let fig3 = groups(|ws| &ws.by_length, |g| g.upto as f64 / 3600.0, |g| g.mean_penalty);
    let axes = ("l_r, hours (upper end of each hour; the last holds everything longer)", "mean W_r / l_r");
    add(
        "3",
        &fig3,
        &|path, s| plots::log_lines(path, "Mean temporal penalty W_r / l_r by requested time", axes, FLOOR_PENALTY, s),
        format!("coallocation-2d-trees, Fig 3: the temporal penalty of the jobs of each hour of requested time, by policy (penalties under {FLOOR_PENALTY} drawn at it)."),
    )?;
    let mut fig4: Vec<Series<'_>> = w
        .policies
        .iter()
        .zip(&names)
        .filter_map(|(r, name)| {
            let ws = r.schedule.waits.as_ref()?;
            Some(Series { name, points: in_hours(&ws.quantiles) })
        })
        .collect();
    if let Some(rec) = &w.trace.recorded_waits {
        fig4.push(Series { name: "recorded", points: in_hours(&rec.quantiles) });
    }
    add(
        "4",
        &fig4,
        &|path, s| plots::distribution(path, "Waiting time distribution", "wait, hours", FLOOR_HOURS, s),
        "coallocation-2d-trees, Fig 4 a: the share of jobs that waited at most each time, by policy, and as the trace logs it (waits under a minute drawn at a minute).".into(),
    )?;
    let fig5 = groups(|ws| &ws.by_size, |g| g.upto as f64, |g| g.mean_wait / 3600.0);
    let axes = ("n_r (upper end of each group of 50)", "mean wait, hours");
    add(
        "5",
        &fig5,
        &|path, s| plots::lines(path, "Mean wait by spatial size", axes, s),
        "coallocation-2d-trees, Fig 5: the mean wait of the jobs of each group of 50 resources, by policy."
            .into(),
    )?;
    Ok(blocks)
}

/// Section 5.2: the sweep over ρ, as Fig 6 (wait distributions) and Fig 7 (mean wait and
/// operations per request).
fn against_rho(w: &Workload<'_>, stem: &str, out: &Path) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    if w.sweep.len() < 2 {
        return Ok(blocks);
    }
    blocks.push(Block::Heading(
        3,
        format!("Against ρ, the share of advance reservations (Figs 6 and 7), on {stem}"),
    ));
    let rows: Vec<(f64, &crate::run_file::AttemptMetrics, f64)> = w
        .sweep
        .iter()
        .filter_map(|r| {
            let m = r.attempts.as_ref()?;
            let ops = r.operations.counts.values().sum::<u64>() as f64 / m.requests.max(1) as f64;
            Some((r.options.ar_fraction, m, ops))
        })
        .collect();
    let table = rows
        .iter()
        .map(|(rho, m, ops)| {
            vec![
                format!("{rho}"),
                m.requests.to_string(),
                m.rejected.to_string(),
                format!("{:.2}", m.mean_attempts),
                hours(m.mean_wait),
                at(&m.wait_quantiles, 0.5).map_or("—".to_owned(), |v| hours(v as f64)),
                hours(m.mean_wait_from_submit),
                format!("{ops:.1}"),
            ]
        })
        .collect();
    let header = [
        "ρ",
        "requests",
        "rejected",
        "attempts per request",
        "mean W_r (Fig 7 a)",
        "median W_r",
        "mean wait from q_r (ours)",
        "operations per request (Fig 7 b)",
    ];
    blocks.push(Block::Table(header.map(str::to_owned).to_vec(), table));
    let labels: Vec<String> = rows.iter().map(|(rho, _, _)| format!("ρ = {rho}")).collect();
    let fig6: Vec<Series<'_>> = rows
        .iter()
        .zip(&labels)
        .map(|((_, m, _), name)| Series { name, points: in_hours(&m.wait_quantiles) })
        .collect();
    let file = format!("coalloc-fig6-{stem}-{}.svg", w.capacity);
    plots::distribution(&out.join(&file), "W_r distribution against ρ", "W_r, hours", FLOOR_HOURS, &fig6)?;
    blocks.push(Block::Figure { file, caption: "coallocation-2d-trees, Fig 6: the share of accepted requests whose start came at most each time after the start they asked for, for each share ρ of advance reservations (under a minute drawn at a minute).".into() });
    let (first, last) = (rows[0].1, rows[rows.len() - 1].1);
    let rising = rows.windows(2).filter(|p| p[1].1.mean_wait >= p[0].1.mean_wait).count();
    let rising_from_submit =
        rows.windows(2).filter(|p| p[1].1.mean_wait_from_submit >= p[0].1.mean_wait_from_submit).count();
    let (ops_lo, ops_hi) = rows.iter().fold((f64::MAX, 0.0_f64), |(lo, hi), r| (lo.min(r.2), hi.max(r.2)));
    let steps = rows.len() - 1;
    blocks.push(Block::Para(format!(
        "The mean W_r goes from {} at ρ = {} to {} at ρ = {}; operations per request stay between {ops_lo:.1} and {ops_hi:.1}. Operations here are calls on the structure (each `check` is one attempt); the paper counts its trees' computational operations. Section 5 defines W_r from the start a job asked for (`s_r`), but its Fig 6 peaks at 3 hours, which it explains by the 0 to 3 hours between submission and asked start, so its figures may count from submission (`q_r`); the column \"mean wait from q_r\" and the claims' last row read it that way. Against the paper (section 5.2), at a tolerance of {} for the ratio:",
        hours(first.mean_wait),
        rows[0].0,
        hours(last.mean_wait),
        rows[rows.len() - 1].0,
        claims::tolerance(TOLERANCE),
    )));
    let sweep = [
        Claim {
            quoted: Quoted {
                what: "steps of ρ where the mean W_r rises",
                source: "Fig 7 a (it grows with ρ)",
                value: steps as f64,
            },
            ours: rising as f64,
            tolerance: 0.0,
        },
        Claim {
            quoted: Quoted {
                what: "steps of ρ where the mean wait from q_r rises (ours: W_r read from submission)",
                source: "Fig 7 a (it grows with ρ)",
                value: steps as f64,
            },
            ours: rising_from_submit as f64,
            tolerance: 0.0,
        },
        Claim {
            quoted: Quoted {
                what: "operations per request, most over least across ρ",
                source: "Fig 7 b (about constant)",
                value: 1.0,
            },
            ours: ops_hi / ops_lo.max(f64::MIN_POSITIVE),
            tolerance: TOLERANCE,
        },
    ];
    blocks.push(Block::Table(claims::header(), sweep.iter().map(|c| c.row(2)).collect()));
    Ok(blocks)
}
