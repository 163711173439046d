//! The `resbench` command line.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use resbench::replay::{horizon_for, replay, table, Run};
use resbench::swf::{self, Trace};
use resbench::workload::{declared_capacity, workload};
use resbench::{ops_stream, BUNDLED_NAME, BUNDLED_TRACE};
use structures::{Config, Kind};

#[derive(Parser)]
#[command(version, about = "Verify and measure advance-reservation data structures on real traces")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a trace with plan-only conservative backfilling and report the work done.
    Replay {
        /// An SWF trace (.swf or .swf.gz); the bundled KTH trace if omitted.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// A structure name, or `all`.
        #[arg(long, default_value = "all")]
        structure: String,
        /// Run the oracle beside each structure and stop at the first divergence.
        #[arg(long)]
        verify: bool,
        /// Replay only the first N jobs of the trace.
        #[arg(long)]
        limit: Option<usize>,
        /// Machine size; the header's MaxProcs (else MaxNodes) if omitted.
        #[arg(long)]
        capacity: Option<u32>,
        /// Skip malformed trace lines (and count them) instead of stopping at the first.
        #[arg(long)]
        lenient: bool,
        /// Slot width, seconds: windows are rounded to slot boundaries (for every structure).
        #[arg(long, default_value_t = 1)]
        slot: u64,
        /// Horizon past the present, seconds (a multiple of the slot); computed from the
        /// trace when a slotted structure runs and none is given.
        #[arg(long)]
        horizon: Option<u64>,
    },
    /// Apply a JSON-lines op stream from stdin; write one JSON outcome per line.
    Ops {
        /// A structure name, or `oracle`.
        #[arg(long)]
        structure: String,
        /// Number of resources.
        #[arg(long)]
        capacity: u32,
        /// Slot width.
        #[arg(long, default_value_t = 1)]
        slot: u64,
        /// Horizon past the present, a multiple of the slot.
        #[arg(long)]
        horizon: Option<u64>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Replay { trace, structure, verify, limit, capacity, lenient, slot, horizon } => {
            let trace = match &trace {
                Some(path) => swf::read_path(path, lenient)?,
                None => swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, lenient)?,
            };
            let kinds = if structure == "all" {
                Kind::ALL.to_vec()
            } else {
                vec![structure.parse().map_err(anyhow::Error::msg)?]
            };
            replay_command(&trace, &kinds, verify, limit, capacity, Config { slot, horizon })
        }
        Command::Ops { structure, capacity, slot, horizon } => {
            let mut index = ops_stream::build(&structure, capacity, Config { slot, horizon })?;
            ops_stream::run(index.as_mut(), io::stdin().lock(), io::stdout().lock())?;
            Ok(())
        }
    }
}

fn replay_command(
    trace: &Trace,
    kinds: &[Kind],
    verify: bool,
    limit: Option<usize>,
    capacity: Option<u32>,
    mut config: Config,
) -> Result<()> {
    let capacity = capacity
        .or_else(|| declared_capacity(trace))
        .with_context(|| format!("{}: no MaxProcs or MaxNodes in the header; pass --capacity", trace.name))?;
    if capacity == 0 {
        bail!("the capacity must be at least 1");
    }
    config.validate(capacity).map_err(|e| anyhow::anyhow!("--slot/--horizon: {e}"))?;
    let load = workload(trace, capacity, limit);
    println!("trace: {} ({} jobs read, capacity {capacity})", trace.name, trace.jobs.len());
    if !trace.skipped.is_empty() {
        println!("malformed lines skipped: {} (first: {})", trace.skipped.len(), trace.skipped[0]);
    }
    for (reason, count) in &load.skipped {
        println!("jobs not replayed, {}: {count}", reason.describe());
    }
    println!(
        "requests replayed: {}{}",
        load.requests.len(),
        if verify { ", verified against the oracle" } else { "" }
    );
    if config.horizon.is_none() && kinds.iter().any(|k| k.needs_horizon()) {
        config.horizon = Some(horizon_for(&load, config.slot)?);
    }
    match config.horizon {
        Some(h) => {
            println!("slot {}, horizon {h} ({} slots), for every structure", config.slot, h / config.slot)
        }
        None if config.slot > 1 => println!("slot {}, no horizon, for every structure", config.slot),
        None => {}
    }
    let mut runs: Vec<Run> = Vec::new();
    for &kind in kinds {
        // With `all`, a structure that cannot take this configuration is skipped, saying why.
        if let (true, Err(e)) = (kinds.len() > 1, kind.build(capacity, kind.config_for(config))) {
            println!("skipped {kind}: {e} (choose a wider --slot)");
            continue;
        }
        let bar = ProgressBar::new(load.requests.len() as u64).with_style(
            ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} jobs {per_sec} eta {eta}")?
                .progress_chars("=> "),
        );
        bar.set_prefix(kind.name());
        let run = replay(kind, &load, config, verify, &bar)?;
        bar.finish_and_clear();
        runs.push(run);
    }
    print!("{}", table(&runs));
    if let Some(first) = runs.first() {
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
            println!(
                "schedules: identical across {} structures ({} jobs placed)",
                runs.len(),
                first.schedule.len()
            );
        }
    }
    if verify {
        println!("divergences: 0");
    }
    Ok(())
}
