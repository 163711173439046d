//! `resbench rspb`: the schedulers of rspb-priorities-benefit-functions on the thesis's
//! workloads, one row per algorithm, on one structure or on every one (then their
//! decisions must be identical).

use std::path::{Path, PathBuf};

use crate::commands::{thread_pool, whole_command_line, Shard, MAX_JOBS};
use anyhow::{bail, Result};
use clap::builder::PossibleValuesParser;
use indicatif::{ProgressBar, ProgressStyle};
use scheduling::rspb::experiment::{figure_results, figures, samples, sweep, Estimate, Figure, Point};
use scheduling::rspb::generate::{Count, Params};
use scheduling::rspb::metrics::Metrics;
use scheduling::rspb::results::{PartFile, ResultsFile, RSPB_KIND, RSPB_PART_KIND, RSPB_SCHEMA};
use scheduling::rspb::{run, Algorithm, Run};
use structures::Kind;

use crate::commands::replay::structure_values;

/// The arguments of `resbench rspb`.
#[derive(clap::Args)]
pub struct Args {
    /// The thesis's experiment, at its defaults: chapter 4 (RB against RSPB) or chapter
    /// 5 (Co-RSPB, Co-RSBF, Co-RSBFR).
    #[arg(long, default_value = "chapter4", value_parser = PossibleValuesParser::new(["chapter4", "chapter5"]))]
    experiment: String,
    /// The structure of every machine's time slot table.
    #[arg(long, default_value = "all", value_parser = structure_values(ALL))]
    structure: String,
    /// The RNG seed of the first workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Workloads per algorithm, with RNG seeds `seed`, `seed + 1`, ...; the table shows
    /// their means, with a 95 % confidence interval from two on.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    seeds: u64,
    /// Run the oracle beside every table and check its invariants after every event.
    #[arg(long)]
    verify: bool,
    /// Machines (both chapters: 10).
    #[arg(long)]
    machines: Option<usize>,
    /// Exactly this many requests (chapter 5: 300).
    #[arg(long, conflicts_with = "time")]
    requests: Option<usize>,
    /// Requests arriving within this many time units (chapter 4: 100,000).
    #[arg(long)]
    time: Option<u64>,
    /// The scheduling interval Δt (50).
    #[arg(long)]
    interval: Option<u64>,
    /// The share of requests on machines of their own choice (chapter 5: 0.2).
    #[arg(long)]
    fixed: Option<f64>,
    /// The highest priority (100).
    #[arg(long)]
    priority_max: Option<u32>,
    /// The mean time between arrivals (100,000 / 10,505; chapter 5 gives none, so
    /// chapter 4's).
    #[arg(long)]
    mean_gap: Option<f64>,
    /// Instead of the table, run the sweeps of these figures of the thesis (4.3 to 4.7,
    /// 5.9 to 5.13), of `floor` (ours: the soft shapes' CPU_min floor from 25 % to 100 %
    /// on chapter 5's workload), or `all` of them, on one structure at the chapters'
    /// defaults, and write their results and report into `--out`.
    #[arg(long, value_delimiter = ',', requires = "out", conflicts_with_all = ["machines", "requests", "time", "interval", "fixed", "priority_max", "mean_gap", "experiment"])]
    figure: Vec<String>,
    /// The folder for the figures' results (`rspb-figures.json`) and report.
    #[arg(long, requires = "figure")]
    out: Option<PathBuf>,
    /// With --figure: run this many of the sweeps' points and seeds at once [default: one
    /// per core]. The results are the same whatever the number.
    #[arg(short = 'j', long, requires = "figure", value_parser = clap::value_parser!(u16).range(1..=MAX_JOBS))]
    jobs: Option<u16>,
    /// With --figure: run only the K-th of N deterministic parts of the sweeps' runs
    /// (figures × points × seeds) and write them as `rspb-part-K-of-N.json`, without a
    /// report: once every part has run, `resbench report` on all the part files writes
    /// the single run's results file and report.
    #[arg(long, value_name = "K/N", requires = "figure")]
    shard: Option<Shard>,
}

const ALL: (&str, &str) = ("all", "every structure, failing unless their decisions are identical");

/// The thesis's chapter `--experiment` names.
fn chapter(args: &Args) -> u8 {
    if args.experiment == "chapter5" {
        5
    } else {
        4
    }
}

/// The parameters `args` choose.
fn params(args: &Args) -> Params {
    let mut p = if chapter(args) == 5 { Params::chapter5() } else { Params::chapter4() };
    p.machines = args.machines.unwrap_or(p.machines);
    if let Some(n) = args.requests {
        p.count = Count::Exactly(n);
    }
    if let Some(t) = args.time {
        p.count = Count::Within(t);
    }
    p.interval = args.interval.unwrap_or(p.interval);
    p.fixed = args.fixed.unwrap_or(p.fixed);
    p.priority_max = args.priority_max.unwrap_or(p.priority_max);
    p.mean_gap = args.mean_gap.unwrap_or(p.mean_gap);
    p
}

/// Runs the command.
///
/// # Errors
/// Bad parameters, or structures that decided differently (or a divergence, verified).
pub fn run_command(args: &Args) -> Result<()> {
    if let Some(out) = &args.out {
        return run_figures(args, out);
    }
    let chapter = chapter(args);
    let kinds = if args.structure == "all" {
        Kind::ALL.to_vec()
    } else {
        vec![args.structure.parse().map_err(anyhow::Error::msg)?]
    };
    let params = params(args);
    params.validate()?;
    let Some(last) = args.seed.checked_add(args.seeds) else {
        bail!("--seed {} --seeds {}: past the last RNG seed", args.seed, args.seeds);
    };
    outln!(
        "{}: rspb-priorities-benefit-functions, chapter {chapter}; {} seed(s) from {}",
        args.experiment,
        args.seeds,
        args.seed
    )?;
    let header = [
        "algorithm",
        "requests",
        "rejected",
        "rejected priority",
        "reserved CPU %",
        "requested CPU %",
        "system benefit",
        "ops per request",
    ];
    outln!("{}", header.join(" | "))?;
    for algorithm in Algorithm::of_chapter(chapter) {
        let mut rows: Vec<(Metrics, f64)> = Vec::new();
        for seed in args.seed..last {
            let workload = params.workload(seed)?;
            let runs = kinds
                .iter()
                .map(|&kind| run(algorithm, &workload, kind, args.verify))
                .collect::<Result<Vec<Run>, _>>()?;
            if let Some(other) = runs.iter().find(|r| r.decisions != runs[0].decisions) {
                bail!(
                    "{algorithm}, seed {seed}: {} and {} decided differently",
                    runs[0].structure.name(),
                    other.structure.name()
                );
            }
            let metrics = Metrics::new(&workload, &runs[0].decisions);
            rows.push((metrics, runs[0].ops as f64 / metrics.requests.max(1) as f64));
        }
        let p = Point::of(0.0, &rows);
        // An interval from two workloads on.
        let show = |e: Estimate, digits: usize| match rows.len() {
            1 => format!("{:.digits$}", e.mean),
            _ => format!("{:.digits$} ± {:.digits$}", e.mean, e.half),
        };
        outln!(
            "{algorithm} | {} | {} | {} | {} | {} | {} | {}",
            show(p.requests, 0),
            show(p.rejected, 1),
            show(p.rejected_priority, 0),
            show(p.reserved_cpu, 2),
            show(p.requested_cpu, 2),
            show(p.system_benefit, 4),
            show(p.ops_per_request, 1),
        )?;
    }
    for algorithm in Algorithm::of_chapter(chapter) {
        outln!("{algorithm}: {} ({})", algorithm.spec().description, algorithm.source())?;
    }
    if kinds.len() > 1 {
        outln!("decisions: identical across {} structures for every algorithm and seed", kinds.len())?;
    }
    Ok(())
}

/// `--figure`: the sweeps, their results file and their report.
fn run_figures(args: &Args, out: &Path) -> Result<()> {
    let known = figures();
    let chosen: Vec<&Figure> = if args.figure.iter().any(|f| f == "all") {
        known.iter().collect()
    } else {
        args.figure
            .iter()
            .map(|id| {
                known.iter().find(|f| f.id == id).ok_or_else(|| {
                    let ids = |thesis: bool| {
                        known.iter().filter(|f| f.trend.is_some() == thesis).map(|f| f.id).collect::<Vec<_>>()
                    };
                    anyhow::anyhow!(
                        "no figure {id}: the thesis's are {}, ours {} (or all)",
                        ids(true).join(", "),
                        ids(false).join(", ")
                    )
                })
            })
            .collect::<Result<_>>()?
    };
    // A figure named twice runs once.
    let chosen: Vec<&Figure> = chosen
        .iter()
        .enumerate()
        .filter(|&(i, f)| !chosen[..i].iter().any(|g| g.id == f.id))
        .map(|(_, f)| *f)
        .collect();
    if args.structure == "all" {
        bail!("--figure runs on one structure (--structure NAME); `resbench rspb --structure all` checks that every structure decides alike");
    }
    let kind: Kind = args.structure.parse().map_err(anyhow::Error::msg)?;
    let mut runs = sweep(&chosen, args.seed, args.seeds)?;
    let total = runs.len();
    if let Some(shard) = args.shard {
        runs = shard.part(runs);
        outln!("shard {}/{}: {} of the sweep's {total} runs", shard.index, shard.count, runs.len())?;
    }
    let bar = ProgressBar::new(runs.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} workloads, every algorithm on each, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let pool = thread_pool(args.jobs)?;
    let samples = pool.install(|| samples(&chosen, &runs, kind, args.verify, &|| bar.inc(1)))?;
    bar.finish_and_clear();
    let command = whole_command_line();
    if let Some(shard) = args.shard {
        let part = PartFile {
            kind: RSPB_PART_KIND.to_owned(),
            schema: RSPB_SCHEMA,
            git_revision: reporting::GIT_REVISION.to_owned(),
            command,
            structure: kind,
            first_seed: args.seed,
            seeds: args.seeds,
            figures: chosen.iter().map(|f| f.id.to_owned()).collect(),
            part: shard.index,
            parts: shard.count,
            samples,
        };
        outln!("wrote {}", part.write(out)?.display())?;
        outln!(
            "no report from one shard: once every shard has run, `resbench report {}/rspb-part-*-of-{}.json --out {0}` makes it",
            out.display(),
            shard.count
        )?;
        return Ok(());
    }
    let file = ResultsFile {
        kind: RSPB_KIND.to_owned(),
        schema: RSPB_SCHEMA,
        git_revision: reporting::GIT_REVISION.to_owned(),
        command: command.clone(),
        structure: kind,
        first_seed: args.seed,
        seeds: args.seeds,
        figures: figure_results(&chosen, &samples, args.seeds),
    };
    outln!("wrote {}", file.write(out)?.display())?;
    outln!("wrote {}", reporting::report::rspb::render(&file, out, &command)?.display())?;
    Ok(())
}
