//! `resbench coreserve`: calendar-token co-reservation (calendar-token-reservation) under
//! the deterministic simulator.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use clap::Subcommand;
use resbench::coreserve::sim::{self, limits, Faults, SimConfig};
use resbench::coreserve::Plant;

use crate::replay_command::structure_values;

/// The actions of `resbench coreserve`.
#[derive(Subcommand)]
pub enum Action {
    /// Run the protocol's managers, clients and coordinators in the deterministic
    /// simulator under injected faults, checking the invariants after every step.
    Simulate(Box<SimulateArgs>),
}

/// The arguments of `resbench coreserve simulate`.
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// How many RNG seeds to run: `seed`, `seed + 1`, ...
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    seeds: u64,
    /// The first RNG seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Steps per seed with faults on (then faults stop and the system drains).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=limits::MAX_STEPS))]
    steps: u64,
    /// The fault kinds: `all`, `none`, or a list of loss, duplicate, reorder, delay,
    /// crash-manager, crash-coordinator, torn-step.
    #[arg(long, default_value = "all", value_parser = |s: &str| s.parse::<Faults>())]
    faults: Faults,
    /// Switch every listed fault kind on in every seed, instead of each with probability
    /// 1/2 (every tenth seed has all of them either way).
    #[arg(long)]
    no_swarm: bool,
    /// Managers per seed: `N` or `LO..HI` (drawn log-uniformly).
    #[arg(long, default_value = "2..20", value_parser = |s: &str| range(s, limits::MAX_MANAGERS))]
    managers: (u32, u32),
    /// Clients per seed: `N` or `LO..HI` (drawn log-uniformly).
    #[arg(long, default_value = "2..100", value_parser = |s: &str| range(s, limits::MAX_CLIENTS))]
    clients: (u32, u32),
    /// Every manager's structure, or `all` to draw each manager's from the registry.
    #[arg(long, default_value = "all", value_parser = structure_values(("all", "each manager's drawn from every structure")))]
    structure: String,
    /// Plant a bug, to see the checker catch it.
    #[arg(long, hide = true, value_parser = |s: &str| s.parse::<Plant>())]
    plant: Option<Plant>,
    /// Lines of the shrunk trace to print on a violation.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    trace_lines: u64,
}

/// `N` or `LO..HI`, within `1..=max`.
fn range(s: &str, max: u32) -> Result<(u32, u32), String> {
    let num = |t: &str| t.trim().parse::<u32>().map_err(|e| format!("{t:?}: {e}"));
    let (lo, hi) = match s.split_once("..") {
        Some((lo, hi)) => (num(lo)?, num(hi)?),
        None => (num(s)?, num(s)?),
    };
    if lo == 0 || hi > max || lo > hi {
        return Err(format!("{s}: must be LO..HI with 1 <= LO <= HI <= {max}"));
    }
    Ok((lo, hi))
}

/// Runs the command.
///
/// # Errors
/// Bad arguments, or any invariant violation (after printing it, its seed and its
/// shrunk trace).
pub fn run(action: &Action) -> Result<()> {
    match action {
        Action::Simulate(args) => simulate(args),
    }
}

fn simulate(args: &SimulateArgs) -> Result<()> {
    let structure = if args.structure == "all" {
        None
    } else {
        Some(args.structure.parse().map_err(anyhow::Error::msg)?)
    };
    let config = SimConfig {
        steps: args.steps,
        faults: args.faults,
        swarm: !args.no_swarm,
        managers: args.managers,
        clients: args.clients,
        structure,
        plant: args.plant,
        trace: false,
    };
    config.check().map_err(anyhow::Error::msg)?;
    let Some(last) = args.seed.checked_add(args.seeds) else {
        bail!("--seed {} --seeds {}: past the last RNG seed", args.seed, args.seeds);
    };
    let (mut steps, mut messages, mut committed, mut stuck) = (0u64, 0u64, 0u64, 0u64);
    let mut failed: BTreeMap<&str, u64> = BTreeMap::new();
    let (mut commits, mut aborts, mut violations) = (0u64, 0u64, 0u64);
    let mut first = None;
    for seed in args.seed..last {
        let report = sim::run(seed, &config);
        steps += report.steps;
        messages += report.messages;
        committed += report.committed;
        for (why, n) in &report.failed {
            *failed.entry(why).or_default() += n;
        }
        stuck += report.stuck;
        commits += report.commits;
        aborts += report.aborts;
        if let Some((step, v)) = &report.violation {
            violations += 1;
            println!(
                "seed {seed}: {} violated at step {step}: {} ({})",
                v.invariant, v.detail, report.params
            );
            if first.is_none() {
                first = Some(report);
            }
        }
    }
    println!("coreserve: {} seeds, {steps} steps, {violations} violations", args.seeds);
    let per =
        if committed == 0 { "n/a".to_owned() } else { format!("{:.1}", messages as f64 / committed as f64) };
    let why: Vec<String> = failed.iter().map(|(why, n)| format!("{n} {why}")).collect();
    let failures = if why.is_empty() { "none".to_owned() } else { why.join(", ") };
    println!(
        "reservations: {committed} committed; failed: {failures}; {stuck} unfinished at the drain's end"
    );
    println!("messages per committed reservation: {per} ({messages} messages)");
    let decided = commits + aborts;
    let rate = if decided == 0 {
        "n/a".to_owned()
    } else {
        format!("{:.1} %", 100.0 * aborts as f64 / decided as f64)
    };
    println!("two-phase commits: {commits} committed, {aborts} aborted; abort rate {rate}");
    let Some(report) = first else { return Ok(()) };
    let shrunk = sim::shrink(report.seed, &config, &report);
    let c = &shrunk.config;
    println!(
        "shrunk in {} runs: seed {}, {} steps, faults {}, managers {}, clients {}",
        shrunk.attempts, report.seed, c.steps, c.faults, c.managers.0, c.clients.0
    );
    let plant = args.plant.map_or(String::new(), |p| format!(" --plant {p}"));
    println!(
        "reproduce: resbench coreserve simulate --seed {} --seeds 1 --steps {} --faults {} --no-swarm --managers {} --clients {} --structure {}{plant}",
        report.seed, c.steps, c.faults, c.managers.0, c.clients.0, args.structure
    );
    if let Some((step, v)) = &shrunk.report.violation {
        println!("shrunk run: {} at step {step}: {}", v.invariant, v.detail);
    }
    let trace = &shrunk.report.trace;
    let skip = trace.len().saturating_sub(args.trace_lines as usize);
    println!("trace ({} steps, last {} shown):", shrunk.report.steps, trace.len() - skip);
    for line in &trace[skip..] {
        println!("  {line}");
    }
    bail!("{violations} invariant violations in {} seeds", args.seeds)
}
