//! `resbench replay`: read the workload, run each structure, print the table, check the
//! schedules agree, and write the run files.

use std::path::PathBuf;
use strum::VariantArray;

use anyhow::{bail, Context, Result};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use rayon::prelude::*;
use reporting::report;
use reporting::run_file::{trace_info, RunFile, Setup, TraceInfo};
use scheduling::policy::{Attempts, Length, Model, Parameter, PolicyKind, Windows};
use scheduling::replay::metrics::Headline;
use scheduling::replay::{horizon_for, replay, table, Mode, Observer, Options, ReplayConfig, Run};
use strum::VariantNames;
use traces::synthetic::Synthetic;
use traces::workload::{declared_capacity, workload, Workload};
use traces::{limits, period, swf};

use crate::commands::{thread_pool, whole_command_line, Shard, MAX_JOBS};
use structures::{Config, Kind};
use traces::{BUNDLED_NAME, BUNDLED_TRACE};

/// The replay's command-line arguments.
#[derive(clap::Args)]
pub struct Args {
    /// An SWF trace (.swf or .swf.gz); the bundled KTH trace if omitted.
    #[arg(long, conflicts_with = "synthetic")]
    trace: Option<PathBuf>,
    /// The structures to replay on, comma-separated (`all`: every one).
    #[arg(long, default_value = "all", value_delimiter = ',', value_parser = structure_values(ALL))]
    structure: Vec<String>,
    /// The scheduling policy.
    #[arg(long, default_value = PolicyKind::default().name(), value_parser = policy_values())]
    policy: String,
    /// Run the oracle beside each structure and stop at the first divergence.
    #[arg(long)]
    verify: bool,
    /// Replay only the first N jobs of the trace.
    #[arg(long)]
    limit: Option<usize>,
    /// Machine size; the header's MaxProcs (else MaxNodes) if omitted (128 for a
    /// synthetic workload).
    #[arg(long)]
    capacity: Option<u32>,
    /// Skip malformed trace lines (and count them) instead of stopping at the first.
    #[arg(long)]
    lenient: bool,
    /// The most jobs a trace (or a synthetic workload) may hold.
    #[arg(long, default_value_t = limits::MAX_JOBS)]
    max_jobs: usize,
    /// With --lenient: the most malformed lines kept with their text; the rest are counted.
    #[arg(long, default_value_t = limits::MAX_ERRORS)]
    max_errors: usize,
    /// Give a job whose job number repeats an earlier one a new number (and count it),
    /// instead of refusing the trace.
    #[arg(long)]
    renumber: bool,
    /// Slot width, seconds: windows are rounded to slot boundaries (for every structure).
    #[arg(long, default_value_t = 1)]
    slot: u64,
    /// Horizon past the present, seconds (a multiple of the slot); computed from the
    /// workload when a slotted structure runs and none is given.
    #[arg(long)]
    horizon: Option<u64>,
    /// `simulate`: jobs complete at start plus run time and release the rest of their
    /// reservation; `plan-only`: nothing completes early (the first replay's behaviour)
    /// [default: simulate; plan-only under --model counted, which only plans].
    #[arg(long, value_parser = PossibleValuesParser::new(Mode::VARIANTS).try_map(|s| s.parse::<Mode>()))]
    mode: Option<Mode>,
    /// Conservative backfilling: keep each waiting job's planned start when earlier jobs
    /// end early, instead of re-planning the waiting jobs in queue order after every early
    /// end (simulate mode; rbtree-availability-profile's Algorithm 2 as written).
    #[arg(long)]
    no_compress: bool,
    /// FCFS-EDS and flexible: the longest lead of a request's earliest start over its
    /// arrival, in slots [default: 48].
    #[arg(long)]
    lead: Option<u64>,
    /// FCFS-EDS and flexible: the share of requests with a window of starts [default: 0.5].
    #[arg(long)]
    flexible_share: Option<f64>,
    /// FCFS-EDS and flexible: the shortest relax time t_ls - t_es, in slots [default: 1].
    #[arg(long)]
    relax_min: Option<u64>,
    /// FCFS-EDS and flexible: the longest relax time, in slots [default: 24].
    #[arg(long)]
    relax_max: Option<u64>,
    /// FCFS-EDS and flexible: what a reservation holds: counted, a count of nodes in each
    /// slot of its run, as fcfs-eds-slotted-array counts them (the paper's model, planned
    /// only), or ids, the same ids for its whole run (ours) [default: counted].
    #[arg(long, value_parser = PossibleValuesParser::new(Model::VARIANTS).try_map(|s| s.parse::<Model>()))]
    model: Option<Model>,
    /// coalloc: Δt, the step between a request's attempts, seconds [default: 900].
    #[arg(long)]
    delta_t: Option<u64>,
    /// coalloc: R_max, the most attempts after a request's first [default: Q/2, half the
    /// horizon in slots of Δt; the horizon is 30 days unless --horizon gives one].
    #[arg(long)]
    rmax: Option<u64>,
    /// coalloc: what a request reserves: run-time, its run time held exactly (the
    /// paper's l_r), or requested, its requested time with the unused tail freed when it
    /// ends (ours) [default: run-time].
    #[arg(long, value_parser = PossibleValuesParser::new(Length::VARIANTS).try_map(|s| s.parse::<Length>()))]
    length: Option<Length>,
    /// The fraction of jobs that are advance reservations (start 0-3 h after submit), or
    /// a sweep of fractions, comma-separated: each is replayed on every structure, and
    /// the runs of the whole sweep share the -j threads.
    #[arg(long, default_value = "0", value_delimiter = ',', num_args = 1)]
    ar_fraction: Vec<f64>,
    /// Seeds the choice of advance reservations and the synthetic workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Calls dropped at each end of each operation's series before summarising (the
    /// rbtree-availability-profile drops 4,000 in section V).
    #[arg(long, default_value_t = 4000)]
    trim: usize,
    /// Replay this many structures at once [default: one per core]. Everything but the
    /// wall times is the same whatever the number.
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u16).range(1..=MAX_JOBS))]
    jobs: Option<u16>,
    /// Write one run file per structure (JSON, `reports/SCHEMA.md`) into this folder,
    /// and a report of them (`index.md`, `index.html` and plots).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run only the K-th of N deterministic parts of the runs (structures × fractions)
    /// and write their run files, without a report: run every part, on this machine or
    /// others, then `resbench report` on all their run files makes the single run's
    /// report.
    #[arg(long, value_name = "K/N", requires = "out")]
    shard: Option<Shard>,
    /// Replay only the jobs submitted on or after this date (YYYY-MM-DD, the log's
    /// local time when its header gives `TimeZone`).
    #[arg(long)]
    since: Option<String>,
    /// Replay only the jobs submitted before this date (YYYY-MM-DD).
    #[arg(long)]
    until: Option<String>,
    /// Replay a synthetic workload of this many jobs instead of a trace.
    #[arg(long)]
    synthetic: Option<usize>,
    /// Synthetic: mean seconds between arrivals (Poisson).
    #[arg(long, default_value_t = 600.0)]
    mean_gap: f64,
    /// Synthetic: the largest job (sizes uniform from 1); the capacity if omitted.
    #[arg(long)]
    max_size: Option<u32>,
    /// Synthetic: the shortest requested time, seconds.
    #[arg(long, default_value_t = 60)]
    min_time: u64,
    /// Synthetic: the longest requested time, seconds.
    #[arg(long, default_value_t = 36_000)]
    max_time: u64,
}

/// `--structure all`: what it does.
const ALL: (&str, &str) = ("all", "every structure, failing unless their schedules are identical");

/// The values `--structure` takes: every registered structure with its description (so
/// `--help` lists them from the registry), and `extra`.
pub fn structure_values((name, help): (&'static str, &'static str)) -> PossibleValuesParser {
    let kinds =
        Kind::ALL.iter().copied().map(|kind| PossibleValue::new(kind.name()).help(kind.spec().description));
    PossibleValuesParser::new(kinds.chain([PossibleValue::new(name).help(help)]))
}

/// The values `--policy` takes: every registered policy with its description.
fn policy_values() -> PossibleValuesParser {
    PossibleValuesParser::new(
        PolicyKind::VARIANTS
            .iter()
            .copied()
            .map(|policy| PossibleValue::new(policy.name()).help(policy.spec().description)),
    )
}

/// Checks that every policy parameter given belongs to `policy`, and gathers them.
fn policy_parameters(args: &Args, policy: PolicyKind) -> Result<Option<Windows>> {
    let given = [
        (Parameter::NoCompress, args.no_compress),
        (Parameter::Lead, args.lead.is_some()),
        (Parameter::FlexibleShare, args.flexible_share.is_some()),
        (Parameter::RelaxMin, args.relax_min.is_some()),
        (Parameter::RelaxMax, args.relax_max.is_some()),
        (Parameter::DeltaT, args.delta_t.is_some()),
        (Parameter::Rmax, args.rmax.is_some()),
        (Parameter::Length, args.length.is_some()),
        (Parameter::Model, args.model.is_some()),
    ];
    if let Some(&(parameter, _)) = given.iter().find(|&&(parameter, set)| set && !policy.takes(parameter)) {
        let owners: Vec<&str> =
            PolicyKind::VARIANTS.iter().filter(|p| p.takes(parameter)).map(|p| p.name()).collect();
        bail!(
            "{} is a parameter of --policy {}, not of --policy {policy}",
            parameter.flag(),
            owners.join(" and ")
        );
    }
    if args.ar_fraction.iter().any(|&f| f > 0.0) && policy.takes(Parameter::Lead) {
        bail!("--ar-fraction: every request of --policy {policy} is an advance reservation already");
    }
    if !policy.takes(Parameter::Lead) {
        return Ok(None);
    }
    let d = Windows::default();
    let windows = Windows {
        lead: args.lead.unwrap_or(d.lead),
        flexible: args.flexible_share.unwrap_or(d.flexible),
        relax: (args.relax_min.unwrap_or(d.relax.0), args.relax_max.unwrap_or(d.relax.1)),
        model: args.model.unwrap_or(Model::Counted),
    };
    windows.validate().map_err(anyhow::Error::msg)?;
    Ok(Some(windows))
}

/// The most fractions one `--ar-fraction` sweep takes.
const MAX_FRACTIONS: usize = 101;

/// `--ar-fraction`'s values, checked: each between 0 and 1, none twice (two runs would
/// write one file), at most [`MAX_FRACTIONS`].
fn fractions(given: &[f64]) -> Result<&[f64]> {
    if given.len() > MAX_FRACTIONS {
        bail!("--ar-fraction: {} values, more than {MAX_FRACTIONS}", given.len());
    }
    for (i, &f) in given.iter().enumerate() {
        if !(0.0..=1.0).contains(&f) {
            bail!("--ar-fraction {f} is not between 0 and 1");
        }
        if given[..i].contains(&f) {
            bail!("--ar-fraction {f} is given twice");
        }
    }
    Ok(given)
}

/// Runs the command.
pub fn run(args: &Args) -> Result<()> {
    let fractions = fractions(&args.ar_fraction)?;
    let policy: PolicyKind = args.policy.parse().map_err(anyhow::Error::msg)?;
    let windows = policy_parameters(args, policy)?;
    let kinds = structures_named(&args.structure)?;
    if let Some(dir) = &args.out {
        check_writable(dir)?;
    }
    let (info, load) = read_workload(args)?;
    let mut config = Config { slot: args.slot, horizon: args.horizon };
    let attempts = coalloc_attempts(args, policy, &mut config)?;
    config.validate(load.capacity).map_err(|e| anyhow::anyhow!("--slot/--horizon: {e}"))?;
    print_workload(args, &info, &load)?;
    // One setup per fraction, each with its own horizon when one is computed (the
    // reservations' starts move the last end), and the structures that can take it.
    let mut setups = Vec::new();
    let mut jobs = Vec::new();
    for &ar_fraction in fractions {
        let options = Options {
            policy,
            mode: args.mode.unwrap_or(match windows {
                Some(w) if w.model == Model::Counted => Mode::PlanOnly,
                _ => Mode::Simulate,
            }),
            compress: !args.no_compress,
            ar_fraction,
            seed: args.seed,
            windows,
            attempts,
        };
        print_scheduler(args, &options)?;
        let mut config = config;
        if config.horizon.is_none() && kinds.iter().any(|k| k.needs_horizon()) {
            config.horizon = Some(horizon_for(&load, config.slot, &options)?);
        }
        match config.horizon {
            Some(h) => {
                outln!("slot {}, horizon {h} ({} slots), for every structure", config.slot, h / config.slot)?
            }
            None if config.slot > 1 => outln!("slot {}, no horizon, for every structure", config.slot)?,
            None => {}
        }
        let setup = ReplayConfig { config, options, verify: args.verify };
        jobs.extend(runnable(&kinds, &load, &setup)?.into_iter().map(|kind| (setups.len(), kind)));
        setups.push(setup);
    }
    let total = jobs.len();
    if let Some(shard) = args.shard {
        jobs = shard.part(jobs);
        outln!("shard {}/{}: {} of the sweep's {total} runs", shard.index, shard.count, jobs.len())?;
    }
    let pool = thread_pool(args.jobs)?;
    let runs = replay_each(&jobs, &setups, &load, &pool)?;
    let mut by_setup: Vec<Vec<Run>> = setups.iter().map(|_| Vec::new()).collect();
    for (&(index, _), run) in jobs.iter().zip(runs) {
        by_setup[index].push(run);
    }
    let command = whole_command_line();
    let mut files = Vec::new();
    for (setup, runs) in setups.iter().zip(&by_setup) {
        if runs.is_empty() {
            continue;
        }
        if setups.len() > 1 {
            outln!("== advance reservations {} %", 100.0 * setup.options.ar_fraction)?;
        }
        // The table's sorts and the schedule's figures are independent: one core each.
        let (text, headline) = pool.join(
            || table(runs, args.trim),
            || runs.first().map(|run| Headline::new(run, &load, setup.options.mode)),
        );
        out!("{text}")?;
        compare_schedules(runs)?;
        if let (Some(run), Some(headline)) = (runs.first(), headline) {
            print_schedule(run, &headline)?;
        }
        if args.out.is_some() {
            let setup = Setup {
                command: command.clone(),
                trace: info.clone(),
                config: setup.config,
                options: setup.options,
                trim: args.trim,
                sweep_runs: Some(total),
            };
            files.extend(runs.iter().map(|run| RunFile::new(&setup, &load, run)));
        }
    }
    if args.verify {
        outln!("divergences: 0")?;
    }
    if let Some(dir) = &args.out {
        for file in &files {
            outln!("wrote {}", file.write(dir)?.display())?;
        }
        match args.shard {
            None => outln!("wrote {}", report::render(&files, dir, &command)?.display())?,
            Some(_) => outln!(
                "no report from one shard: once every shard has run, `resbench report {}/*.json --out {0}` makes it",
                dir.display()
            )?,
        }
    }
    Ok(())
}

/// The structures `--structure` names, in the registry's order, each once.
fn structures_named(names: &[String]) -> Result<Vec<Kind>> {
    if names.iter().any(|n| n == ALL.0) {
        return Ok(Kind::ALL.to_vec());
    }
    let named: Vec<Kind> =
        names.iter().map(|n| n.parse().map_err(anyhow::Error::msg)).collect::<Result<_>>()?;
    Ok(Kind::ALL.iter().copied().filter(|k| named.contains(k)).collect())
}

/// Online co-allocation's `Δt` and `R_max` (`None` for the other policies); it needs a
/// horizon, so `config` gets its default one if it has none.
fn coalloc_attempts(args: &Args, policy: PolicyKind, config: &mut Config) -> Result<Option<Attempts>> {
    if !policy.takes(Parameter::Rmax) {
        return Ok(None);
    }
    let horizon = *config.horizon.get_or_insert(Attempts::HORIZON.div_ceil(args.slot.max(1)) * args.slot);
    let delta = args.delta_t.unwrap_or(Attempts::DELTA);
    let attempts = Attempts {
        delta,
        rmax: args.rmax.unwrap_or(Attempts::rmax_for(horizon, delta)),
        length: args.length.unwrap_or(Length::RunTime),
    };
    attempts.validate().map_err(anyhow::Error::msg)?;
    Ok(Some(attempts))
}

/// Prints what is replayed: the trace and what was left out.
fn print_workload(args: &Args, info: &TraceInfo, load: &Workload) -> Result<()> {
    outln!("trace: {} ({} jobs read, capacity {})", info.name, info.jobs_read, load.capacity)?;
    for (reason, count) in &info.skipped {
        outln!("jobs not replayed, {reason}: {count}")?;
    }
    outln!(
        "requests replayed: {}{}",
        load.requests.len(),
        if args.verify { ", verified against the oracle" } else { "" }
    )?;
    Ok(())
}

/// Prints how it is scheduled.
fn print_scheduler(args: &Args, options: &Options) -> Result<()> {
    outln!(
        "scheduler: {} ({}), {:?}{}, advance reservations {:.0} %, seed {}, {} calls trimmed at each end",
        options.label(),
        options.policy.spec().source,
        options.mode,
        options.compression(),
        100.0 * options.ar_fraction,
        options.seed,
        args.trim
    )?;
    Ok(())
}

/// The structures of `kinds` that can take `setup`'s configuration, saying what a
/// window-scanning one is in for. With several kinds, one that cannot is skipped, saying
/// why; alone, it is an error that says which flags change it.
fn runnable(kinds: &[Kind], load: &Workload, setup: &ReplayConfig) -> Result<Vec<Kind>> {
    let mut runnable = Vec::new();
    for &kind in kinds {
        match (kinds.len() > 1, kind.build(load.capacity, kind.config_for(setup.config))) {
            (true, Err(e)) => {
                outln!("skipped {kind}: {e} (choose a wider --slot)")?;
                continue;
            }
            (false, Err(e)) => {
                bail!("{kind}: {e} (the slot limit; choose a wider --slot or a shorter --horizon)")
            }
            _ => {}
        }
        if kind.spec().scans_window_slots {
            outln!("{}", window_work(kind, load, setup.config.slot))?;
        }
        runnable.push(kind);
    }
    Ok(runnable)
}

/// Replays `load` for each job (a setup of `setups` and a structure), as many at a time
/// as `pool` has threads, each with a progress bar while it runs; the runs come back in
/// the order of `jobs`.
fn replay_each(
    jobs: &[(usize, Kind)],
    setups: &[ReplayConfig],
    load: &Workload,
    pool: &rayon::ThreadPool,
) -> Result<Vec<Run>> {
    let style = ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} jobs {per_sec} eta {eta}")?
        .progress_chars("=> ");
    let bars = MultiProgress::new();
    let runs: Vec<_> = pool.install(|| {
        jobs.par_iter()
            .map(|&(index, kind)| {
                let setup = &setups[index];
                let bar = bars.add(ProgressBar::new(load.requests.len() as u64).with_style(style.clone()));
                bar.set_prefix(match setups.len() {
                    1 => kind.name().to_owned(),
                    _ => format!("{kind} ρ={}", setup.options.ar_fraction),
                });
                let run = replay(kind, load, setup, &mut Progress(&bar));
                bar.finish_and_clear();
                bars.remove(&bar);
                run
            })
            .collect()
    });
    // The first failure in the sweep's order, whatever order they happened in.
    runs.into_iter().map(|run| run.map_err(anyhow::Error::from)).collect()
}

/// Prints the policy's counts, the schedule's quality and the advance reservations'
/// fate: `run` is the first run (every run's schedule is the same, checked before).
fn print_schedule(run: &Run, s: &Headline) -> Result<()> {
    if !run.counts.is_empty() {
        let counts: Vec<String> = run.counts.iter().map(|(what, n)| format!("{what} {n}")).collect();
        outln!("policy counts: {}", counts.join(", "))?;
    }
    outln!(
        "schedule: utilisation {:.1} %, wait mean {:.0} s, p99 {} s (jobs that are not advance reservations)",
        100.0 * s.utilisation,
        s.mean_wait,
        s.p99_wait
    )?;
    let ar = &run.ar;
    if ar.requested > 0 {
        let offered = ar.offered.iter().sum::<u64>() as f64 / ar.offered.len().max(1) as f64;
        outln!(
            "advance reservations: {} requested, {} admitted ({:.1} %), {offered:.2} options offered to each rejected one on average",
            ar.requested,
            ar.admitted,
            100.0 * ar.admitted as f64 / ar.requested as f64
        )?;
    }
    Ok(())
}

/// What a structure that scans its windows' slots is in for, said before it starts:
/// the slots the workload's windows hold, a lower bound on its visits, since each
/// `earliest` may scan one window per candidate start.
fn window_work(kind: Kind, load: &Workload, slot: u64) -> String {
    let windows = load.requests.iter().map(|r| r.duration.div_ceil(slot));
    let (total, longest) = windows.fold((0u128, 0u64), |(t, l), w| (t + u128::from(w), l.max(w)));
    format!(
        "{kind}: scans every slot of each window; the {} windows hold {total} slots at --slot {slot} (the longest {longest}), so expect at least {total} slot visits, and up to one window's more per candidate start each earliest tries (a wider --slot divides them)",
        load.requests.len()
    )
}

/// Shows a replay's arrivals on a progress bar (the library knows no UI types).
struct Progress<'a>(&'a ProgressBar);

impl Observer for Progress<'_> {
    fn arrived(&mut self, done: u64, total: u64) {
        // A bar moved every 256 jobs looks as smooth, and each move costs a lock and a
        // clock read: 1 % of a plan-only replay of SDSC-BLUE when done for every job.
        if done.is_multiple_of(256) || done == total {
            self.0.set_position(done);
        }
    }
}

/// Fails now, not after the replay, when the run files cannot be written.
fn check_writable(dir: &std::path::Path) -> Result<()> {
    let cannot = || format!("--out {}: cannot write there", dir.display());
    std::fs::create_dir_all(dir).with_context(cannot)?;
    let probe = dir.join(".resbench-write-test");
    std::fs::write(&probe, b"").with_context(cannot)?;
    std::fs::remove_file(&probe).with_context(cannot)
}

fn read_workload(args: &Args) -> Result<(TraceInfo, Workload)> {
    if let Some(jobs) = args.synthetic {
        if jobs > args.max_jobs {
            bail!(
                "--synthetic {jobs}: more than {} jobs (the job limit; raise it with --max-jobs)",
                args.max_jobs
            );
        }
        let capacity = args.capacity.unwrap_or(128);
        let synthetic = Synthetic {
            jobs,
            capacity,
            mean_gap: args.mean_gap,
            max_size: args.max_size.unwrap_or(capacity),
            min_time: args.min_time,
            max_time: args.max_time,
            seed: args.seed,
        };
        let load = synthetic.workload().map_err(|e| anyhow::anyhow!("synthetic workload: {e}"))?;
        let info = TraceInfo {
            name: synthetic.describe(),
            header: Vec::new(),
            selection: None,
            jobs_read: jobs,
            skipped: Default::default(),
            renumbered: 0,
            requests: load.requests.len(),
            recorded_waits: None,
        };
        return Ok((info, load));
    }
    let periods = args.since.is_some() || args.until.is_some();
    let read_limits = swf::ReadLimits {
        lenient: args.lenient,
        max_jobs: args.max_jobs,
        max_errors: args.max_errors,
        // With a period, --limit counts the jobs in it, so the whole trace is read.
        stop_after: args.limit.filter(|_| !periods),
    };
    let mut trace = match &args.trace {
        Some(path) => swf::read_path_with(path, read_limits)?,
        None => swf::read_with(BUNDLED_TRACE, BUNDLED_NAME, read_limits)?,
    };
    if trace.jobs.is_empty() && args.limit != Some(0) {
        bail!(
            "{}: no job lines ({} lines were malformed); is this an SWF trace?",
            trace.name,
            trace.skipped_count
        );
    }
    let renumbered = swf::check_ids(&mut trace, args.renumber)?;
    if renumbered > 0 {
        outln!("warning: {renumbered} jobs renumbered because their job number repeated an earlier one")?;
    }
    let mut selection = period::select(&mut trace, args.since.as_deref(), args.until.as_deref())
        .map_err(anyhow::Error::msg)?;
    if let Some(limit) = args.limit {
        let first = format!("the first {limit} jobs");
        selection = Some(selection.map_or(first.clone(), |s| format!("{first} of the {s}")));
    }
    if !trace.skipped.is_empty() {
        outln!("malformed lines skipped: {} (first: {})", trace.skipped_count, trace.skipped[0])?;
    }
    let capacity = args
        .capacity
        .or_else(|| declared_capacity(&trace))
        .with_context(|| format!("{}: no MaxProcs or MaxNodes in the header; pass --capacity", trace.name))?;
    if capacity == 0 {
        bail!("the capacity must be at least 1");
    }
    let load = workload(&trace, capacity, args.limit);
    Ok((TraceInfo { renumbered, ..trace_info(&trace, &load, selection) }, load))
}

/// Every structure must have produced the same schedule: a free end-to-end check.
fn compare_schedules(runs: &[Run]) -> Result<()> {
    let Some(first) = runs.first() else { return Ok(()) };
    for other in &runs[1..] {
        if let Some(i) = (0..first.schedule.len().max(other.schedule.len()))
            .find(|&i| first.schedule.get(i) != other.schedule.get(i))
        {
            bail!(
                "schedules differ: {} placed {:?} where {} placed {:?}",
                first.structure,
                first.schedule.get(i),
                other.structure,
                other.schedule.get(i)
            );
        }
    }
    if runs.len() > 1 {
        outln!(
            "schedules: identical across {} structures ({} jobs placed)",
            runs.len(),
            first.schedule.len()
        )?;
    }
    Ok(())
}
