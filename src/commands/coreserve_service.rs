//! `resbench coreserve serve | reserve | load`: the co-reservation protocol
//! (calendar-token-reservation §3, §4) as processes on loopback.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use coreserve::client::{Outcome, Reservation};
use coreserve::limits::{MAX_CAPACITY, MAX_LOAD_CLIENTS, MAX_LOAD_SECONDS, MAX_MANAGERS};
use coreserve_service::auth::Keys;
use coreserve_service::child::LISTENING;
use coreserve_service::client::{discover, Pool};
use coreserve_service::load::{self, LoadOptions, MAX_HOT};
use coreserve_service::members::Members;
use coreserve_service::server::{serve, ServeOptions};
use coreserve_service::{now_ms, CLIENT, HORIZON};
use reporting::report;

use crate::commands::command_line;
use structures::Kind;

/// The highest manager node id (client ids lie above it).
const MAX_ID: u32 = (1 << 20) - 1;
/// The most `--managers`, `--clients` values one `load` sweeps.
const MAX_SWEEP: usize = 8;
/// The most runs one `load` makes.
const MAX_RUNS: usize = 64;

/// The arguments of `resbench coreserve serve`.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// The node's id (each manager of a system needs its own).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_ID)))]
    id: u32,
    /// The port on 127.0.0.1; 0 picks a free one. The bound address is printed.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The redb file holding the calendar's locks and the protocol's records.
    #[arg(long)]
    db: PathBuf,
    /// The calendar's structure.
    #[arg(long, default_value = Kind::REFERENCE.name(), value_parser = |s: &str| s.parse::<Kind>())]
    structure: Kind,
    /// Resources of this manager.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_CAPACITY)))]
    capacity: u32,
    /// A manager of the deployment, `ID=IP:PORT` (repeat it, or separate by commas).
    /// Membership comes from configuration only: posts from other nodes' managers, or
    /// naming them, are refused.
    #[arg(long = "peer", value_delimiter = ',')]
    peers: Vec<String>,
    /// A file of the deployment's managers, one `ID IP:PORT` per line (`#` comments).
    #[arg(long)]
    members: Option<PathBuf>,
    /// The deployment's key file (`resbench coreserve keygen`): every post is signed
    /// and checked with it.
    #[arg(long)]
    key: PathBuf,
    /// Stop when standard input closes.
    #[arg(long)]
    exit_on_stdin_eof: bool,
}

/// The arguments of `resbench coreserve keygen`.
#[derive(clap::Args)]
pub struct KeygenArgs {
    /// The new key file (never overwritten; readable by its owner only).
    #[arg(long)]
    out: PathBuf,
    /// Derive node `--node`'s key from this deployment key file instead.
    #[arg(long, requires = "node")]
    from: Option<PathBuf>,
    /// The node (a client id, above 2^20) whose key to derive.
    #[arg(long, requires = "from")]
    node: Option<u32>,
}

/// The arguments of `resbench coreserve reserve`.
#[derive(clap::Args)]
pub struct ReserveArgs {
    /// The managers, `host:port,...` (at most 64).
    #[arg(long, value_delimiter = ',', required = true)]
    managers: Vec<String>,
    /// A key file: the client's own (`keygen --from --node`), whose node it runs as, or
    /// the deployment's (a client id is then drawn at random).
    #[arg(long)]
    key: PathBuf,
    /// Resources at each manager.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_CAPACITY)))]
    nodes: u32,
    /// The window, `START..END` in ms from now; START is the earliest start and END -
    /// START the length, or `START..END+SLACK` to let the start move by SLACK ms.
    #[arg(long, value_parser = window)]
    window: (u64, u64, u64),
}

/// The arguments of `resbench coreserve load`.
#[derive(clap::Args)]
pub struct LoadArgs {
    /// Manager counts to run, e.g. `5,20` (each 2 to 64).
    #[arg(long, value_delimiter = ',', default_value = "5")]
    managers: Vec<u32>,
    /// Client counts to run at each manager count (each 1 to 256).
    #[arg(long, value_delimiter = ',', default_value = "16")]
    clients: Vec<u32>,
    /// Seconds of load per run (1 to 600).
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Hot start times the clients draw from, one run per value (fewer: more
    /// contention; each 1 to 32).
    #[arg(long, value_delimiter = ',', default_value = "4")]
    hot: Vec<u32>,
    /// Resources per manager, one run per value (fewer: more contention).
    #[arg(long, value_delimiter = ',', default_value = "16")]
    capacity: Vec<u32>,
    /// The calendars' structure.
    #[arg(long, default_value = Kind::REFERENCE.name(), value_parser = |s: &str| s.parse::<Kind>())]
    structure: Kind,
    /// The RNG seed of the clients' choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write `load.json` and the load report (`load.md`, `load.html`) here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only render the report again from `OUT/load.json`, running nothing.
    #[arg(long, requires = "out")]
    rerender: bool,
}

/// `START..END[+SLACK]` in ms, with START < END and everything within the horizon.
fn window(s: &str) -> Result<(u64, u64, u64), String> {
    let num = |t: &str| t.trim().parse::<u64>().map_err(|e| format!("{t:?}: {e}"));
    let (start, rest) = s.split_once("..").ok_or_else(|| format!("{s}: expected START..END"))?;
    let (end, slack) = match rest.split_once('+') {
        Some((e, k)) => (num(e)?, num(k)?),
        None => (num(rest)?, 0),
    };
    let start = num(start)?;
    if start >= end || end.saturating_add(slack) > HORIZON {
        return Err(format!("{s}: need START < END and END + SLACK <= {HORIZON} ms (the horizon)"));
    }
    Ok((start, end, slack))
}

/// `resbench coreserve serve`.
///
/// # Errors
/// As [`serve`].
pub fn run_serve(args: &ServeArgs) -> Result<()> {
    let mut list = match &args.members {
        Some(path) => Members::read(path)?,
        None => Vec::new(),
    };
    for p in &args.peers {
        list.push(Members::entry(p)?);
    }
    let opts = ServeOptions {
        id: args.id,
        port: args.port,
        members: Members::new(list)?,
        keys: Keys::read(&args.key)?,
        db: args.db.clone(),
        kind: args.structure,
        capacity: args.capacity,
        exit_on_stdin_eof: args.exit_on_stdin_eof,
    };
    serve(&opts, |addr| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{LISTENING}{addr}");
        let _ = out.flush();
    })?;
    Ok(())
}

/// `resbench coreserve reserve`: one co-reservation, its outcome printed as JSON.
///
/// # Errors
/// Bad arguments, managers that do not answer, or a reservation that fails.
pub fn run_reserve(args: &ReserveArgs) -> Result<()> {
    if args.managers.len() > MAX_MANAGERS as usize {
        bail!("at most {MAX_MANAGERS} managers");
    }
    let managers = discover(&args.managers)?;
    let keys = Keys::read(&args.key)?;
    let id = match keys {
        Keys::Node { id, .. } => id,
        Keys::Deployment(_) => load::client_base(0),
    };
    let pool = Pool::start(&managers, &keys, id, 1, CLIENT)?;
    let (ahead, end, slack) = args.window;
    let duration = end - ahead;
    let earliest = now_ms() + ahead;
    let res = Reservation {
        parts: managers.iter().map(|(id, _)| (*id, args.nodes)).collect(),
        duration,
        earliest,
        latest_start: earliest + slack,
    };
    let Some(done) = pool.reserve(0, res, Duration::from_millis(CLIENT.give_up + 2000)) else {
        bail!("no outcome within {} ms", CLIENT.give_up + 2000);
    };
    let json = match &done.outcome {
        Outcome::Committed { txn, start } => serde_json::json!({
            "committed": true, "txn": txn.map(|t| t.to_string()), "start": start, "end": start + duration,
            "latency_ms": done.latency_ms,
        }),
        Outcome::Failed(f) => serde_json::json!({
            "committed": false, "failure": f.name(), "detail": format!("{f:?}"), "latency_ms": done.latency_ms,
        }),
    };
    outln!("{json}")?;
    match done.outcome {
        Outcome::Committed { .. } => Ok(()),
        Outcome::Failed(f) => bail!("not reserved: {}", f.name()),
    }
}

/// `resbench coreserve keygen`.
///
/// # Errors
/// When `--from` is not a deployment key file, or `--out` exists or cannot be written.
pub fn run_keygen(args: &KeygenArgs) -> Result<()> {
    let keys = match (&args.from, args.node) {
        (Some(from), Some(node)) => Keys::read(from)?.for_node(node)?,
        _ => Keys::generate(),
    };
    keys.write(&args.out)?;
    outln!("wrote {:?} to {}", keys, args.out.display())?;
    Ok(())
}

/// `resbench coreserve load`: every combination of `--managers` and `--clients`.
///
/// # Errors
/// Bad arguments, managers that do not start, or a report that cannot be written.
pub fn run_load(args: &LoadArgs) -> Result<()> {
    if let (true, Some(out)) = (args.rerender, &args.out) {
        let file = load::read(out)?;
        let page = report::coreserve::render_load(out, &file.runs, &file.command)?;
        outln!("report: {}", page.display())?;
        return Ok(());
    }
    let lists = [args.managers.len(), args.clients.len(), args.hot.len(), args.capacity.len()];
    if lists.iter().any(|&n| n > MAX_SWEEP) {
        bail!("at most {MAX_SWEEP} values each of --managers, --clients, --hot and --capacity");
    }
    if args.hot.iter().any(|&h| h == 0 || h > MAX_HOT) {
        bail!("--hot must be in 1..={MAX_HOT}");
    }
    if args.seconds == 0
        || args.seconds > MAX_LOAD_SECONDS
        || args.clients.iter().any(|&c| c == 0 || c > MAX_LOAD_CLIENTS)
    {
        bail!("--seconds must be in 1..={MAX_LOAD_SECONDS} and --clients in 1..={MAX_LOAD_CLIENTS}");
    }
    let dir = std::env::temp_dir().join(format!("resbench-load-{}", std::process::id()));
    let mut runs = Vec::new();
    let mut grid = Vec::new();
    for &m in &args.managers {
        for &cap in &args.capacity {
            for &c in &args.clients {
                grid.extend(args.hot.iter().map(|&h| (m, cap, c, h)));
            }
        }
    }
    if grid.len() > MAX_RUNS {
        bail!("{} runs asked; at most {MAX_RUNS}", grid.len());
    }
    for (managers, capacity, clients, hot) in grid {
        let opts = LoadOptions {
            exe: std::env::current_exe()?,
            dir: dir.clone(),
            managers,
            clients,
            seconds: args.seconds,
            hot,
            capacity,
            kind: args.structure,
            seed: args.seed,
        };
        let r = load::run(&opts)?;
        outln!(
            "managers {managers}, capacity {capacity}, clients {clients}, hot {hot}: {:.1} commits/s, {:.1} messages/commit, abort rate {:.3}, p50 {} ms, p99 {} ms, {} committed of {}, {} violations",
            r.commits_per_s, r.messages_per_commit, r.abort_rate, r.p50_ms, r.p99_ms, r.committed, r.reservations, r.violations
        )?;
        runs.push(r);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let violations: u64 = runs.iter().map(|r| r.violations).sum();
    if let Some(out) = &args.out {
        let file = load::LoadFile { command: command_line(), runs };
        load::save(out, &file)?;
        let page = report::coreserve::render_load(out, &file.runs, &file.command)?;
        outln!("report: {}", page.display())?;
    }
    if violations > 0 {
        bail!("the clients saw {violations} invariant violations");
    }
    Ok(())
}
