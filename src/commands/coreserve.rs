//! `resbench coreserve`: calendar-token co-reservation (calendar-token-reservation) under
//! the deterministic simulator.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Subcommand;
use coreserve::limits;
use coreserve::polling::{self, Trials};
use coreserve::sim::{self, Faults, SimConfig};
use coreserve::Plant;
use reporting::report;

use crate::commands::command_line;
use structures::Kind;

use crate::commands::replay::structure_values;

/// The actions of `resbench coreserve`.
#[derive(Subcommand)]
pub enum Action {
    /// Run the protocol's managers, clients and coordinators in the deterministic
    /// simulator under injected faults, checking the invariants after every step.
    Simulate(Box<SimulateArgs>),
    /// The polling model of Fig 5: the cost of polling p of k homogeneous resources to get
    /// n, by formula and measured on real calendars, and where the best p lies.
    Polling(Box<PollingArgs>),
    /// Run a manager (with its coordinator) as an HTTP/JSON service on loopback, its
    /// state in a redb file.
    Serve(Box<crate::commands::coreserve_service::ServeArgs>),
    /// Make one co-reservation across running managers (the client and its agent run
    /// here).
    Reserve(Box<crate::commands::coreserve_service::ReserveArgs>),
    /// Write a new key file: a deployment's key, or (with --from and --node) one node's
    /// key derived from it, for a client.
    Keygen(Box<crate::commands::coreserve_service::KeygenArgs>),
    /// Start managers on loopback and measure commits per second, messages per
    /// reservation, the abort rate and latency under load.
    Load(Box<crate::commands::coreserve_service::LoadArgs>),
}

/// The arguments of `resbench coreserve polling`.
#[derive(clap::Args)]
pub struct PollingArgs {
    /// Resources needed.
    #[arg(long, default_value_t = 3)]
    n: u32,
    /// Homogeneous resources that exist (at most 1024).
    #[arg(long, default_value_t = 30)]
    k: u32,
    /// The probability that a slot of a resource is unavailable, in [0, 1).
    #[arg(long, default_value_t = 0.5)]
    q: f64,
    /// The message cost per polled resource, in slot lengths.
    #[arg(long, default_value_t = 0.5)]
    c: f64,
    /// Monte Carlo trials per point (0: formula only).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(0..=i64::from(polling::MAX_TRIALS)))]
    trials: u32,
    /// Slots per simulated calendar.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=polling::MAX_HORIZON))]
    horizon: u64,
    /// The job's length in slots (the formula is for 1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=polling::MAX_HORIZON))]
    duration: u64,
    /// The structure of the simulated calendars.
    #[arg(long, default_value = Kind::REFERENCE.name(), value_parser = structure_values(("any", "the reference structure")))]
    structure: String,
    /// The RNG seed of the trials.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write the report (`index.md` and `fig5-cost.svg`) into this folder.
    #[arg(long)]
    out: Option<PathBuf>,
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
    /// crash-manager, crash-coordinator, torn-step, client-vanish.
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
        Action::Polling(args) => poll(args),
        Action::Serve(args) => crate::commands::coreserve_service::run_serve(args),
        Action::Reserve(args) => crate::commands::coreserve_service::run_reserve(args),
        Action::Load(args) => crate::commands::coreserve_service::run_load(args),
        Action::Keygen(args) => crate::commands::coreserve_service::run_keygen(args),
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
    let (mut steps, mut messages, mut committed, mut stuck, mut vanished) = (0u64, 0u64, 0u64, 0u64, 0u64);
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
        vanished += report.vanished;
        commits += report.commits;
        aborts += report.aborts;
        if let Some((step, v)) = &report.violation {
            violations += 1;
            outln!("seed {seed}: {} violated at step {step}: {} ({})", v.invariant, v.detail, report.params)?;
            if first.is_none() {
                first = Some(report);
            }
        }
    }
    outln!("coreserve: {} seeds, {steps} steps, {violations} violations", args.seeds)?;
    let per =
        if committed == 0 { "n/a".to_owned() } else { format!("{:.1}", messages as f64 / committed as f64) };
    let why: Vec<String> = failed.iter().map(|(why, n)| format!("{n} {why}")).collect();
    let failures = if why.is_empty() { "none".to_owned() } else { why.join(", ") };
    outln!(
        "reservations: {committed} committed; failed: {failures}; {stuck} unfinished at the drain's end; {vanished} clients vanished"
    )?;
    outln!("messages per committed reservation: {per} ({messages} messages)")?;
    let decided = commits + aborts;
    let rate = if decided == 0 {
        "n/a".to_owned()
    } else {
        format!("{:.1} %", 100.0 * aborts as f64 / decided as f64)
    };
    outln!("two-phase commits: {commits} committed, {aborts} aborted; abort rate {rate}")?;
    let Some(report) = first else { return Ok(()) };
    let shrunk = sim::shrink(report.seed, &config, &report);
    let c = &shrunk.config;
    outln!(
        "shrunk in {} runs: seed {}, {} steps, faults {}, managers {}, clients {}",
        shrunk.attempts,
        report.seed,
        c.steps,
        c.faults,
        c.managers.0,
        c.clients.0
    )?;
    let plant = args.plant.map_or(String::new(), |p| format!(" --plant {p}"));
    outln!(
        "reproduce: resbench coreserve simulate --seed {} --seeds 1 --steps {} --faults {} --no-swarm --managers {} --clients {} --structure {}{plant}",
        report.seed, c.steps, c.faults, c.managers.0, c.clients.0, args.structure
    )?;
    if let Some((step, v)) = &shrunk.report.violation {
        outln!("shrunk run: {} at step {step}: {}", v.invariant, v.detail)?;
    }
    let trace = &shrunk.report.trace;
    // The steps that touch the witness transaction, and every crash and restart.
    let witness = shrunk.report.violation.as_ref().and_then(|(_, v)| v.txn).map(|txn| format!("{txn:?}"));
    let lines: Vec<&String> = match &witness {
        Some(txn) => trace
            .iter()
            .filter(|l| l.contains(txn.as_str()) || l.contains("Crash(") || l.contains("Restart("))
            .collect(),
        None => trace.iter().collect(),
    };
    let skip = lines.len().saturating_sub(args.trace_lines as usize);
    let about = witness.as_ref().map_or(String::new(), |txn| format!(" naming {txn} or a crash or restart"));
    outln!("trace ({} steps; the last {} steps{about}):", shrunk.report.steps, lines.len() - skip)?;
    for line in &lines[skip..] {
        outln!("  {line}")?;
    }
    bail!("{violations} invariant violations in {} seeds", args.seeds)
}

fn poll(args: &PollingArgs) -> Result<()> {
    let (n, k, q, c) = (args.n, args.k, args.q, args.c);
    polling::check(n, k, q, c)?;
    let kind = if args.structure == "any" {
        Kind::REFERENCE
    } else {
        args.structure.parse().map_err(anyhow::Error::msg)?
    };
    outln!("polling (calendar-token-reservation §4, Fig 5): n {n} of k {k}, q {q}, c {c}")?;
    let trials =
        Trials { kind, trials: args.trials, horizon: args.horizon, duration: args.duration, seed: args.seed };
    let measured = if args.trials == 0 {
        Vec::new()
    } else {
        outln!(
            "simulated: {} trials on {kind} calendars of {} slots, job {} slot(s), RNG seed {}",
            args.trials,
            args.horizon,
            args.duration,
            args.seed
        )?;
        polling::simulate(n, k, q, &trials)?
    };
    let rows = polling::table(n, k, q, c, &measured)?;
    outln!("p | s(p) | E[T] formula | E[T] simulated | C(p) formula | C(p) simulated")?;
    for r in &rows {
        let (sim_delay, sim_cost) = match r.measured {
            Some(m) => {
                (format!("{:.4} ± {:.4}", m.mean, m.ci), format!("{:.4}", m.mean + c * f64::from(r.p)))
            }
            None if args.trials == 0 => ("-".to_owned(), "-".to_owned()),
            None => ("not simulated (censored)".to_owned(), "-".to_owned()),
        };
        outln!("{} | {:.6} | {:.6} | {sim_delay} | {:.6} | {sim_cost}", r.p, r.success, r.delay, r.cost)?;
    }
    let best = polling::best(n, k, q, c)?;
    let band = |p: u32| if p <= 2 * n { "yes" } else { "no" };
    out!("best p: formula {best} (in [n, 2n] = [{n}, {}]: {})", 2 * n, band(best))?;
    match polling::best_measured(&rows, c) {
        Some(p) => outln!("; simulated {p} ({})", band(p))?,
        None => outln!()?,
    }
    let cells = polling::grid()?;
    let inside = cells.iter().filter(|cell| cell.in_band()).count();
    outln!(
        "grid (n in {:?}, q in 0.1..0.9, c in {:?}, k in {:?}): best p in [n, 2n] in {inside} of {} cells ({:.0} %)",
        polling::GRID_N,
        polling::GRID_C,
        polling::GRID_K,
        cells.len(),
        100.0 * inside as f64 / cells.len() as f64
    )?;
    for q in polling::GRID_Q {
        let row: Vec<&polling::Cell> = cells.iter().filter(|cell| cell.q == q).collect();
        let inside = row.iter().filter(|cell| cell.in_band()).count();
        outln!("  q {q}: {inside} of {} cells", row.len())?;
    }
    if let Some(out) = &args.out {
        let page =
            report::coreserve::render_polling(out, (n, k, q, c), &trials, &rows, &cells, &command_line())?;
        outln!("wrote {}", page.display())?;
    }
    Ok(())
}
