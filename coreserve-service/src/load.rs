//! The load generator (`resbench coreserve load`; design note §7): it starts `M` manager
//! processes on loopback, runs `C` clients in threads of this process for some seconds,
//! each making co-reservations back to back over `r = 2` managers drawn at random, with
//! starts drawn from `W` hot start times, and measures commits per second, messages,
//! aborts and latency.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use structures::Kind;

use super::child::deployment;
use super::client::{self, Done, Pool};
use super::{now_ms, CLIENT, SLOT};
use crate::error::{Error, Result};
use coreserve::client::{Outcome, Reservation};
use coreserve::limits::{MAX_CAPACITY, MAX_LOAD_CLIENTS, MAX_LOAD_SECONDS, MAX_MANAGERS};
use coreserve::proto::NodeId;
pub use coreserve::services::{
    LoadFile, LoadRun, AHEAD, DURATION_SLOTS, LOAD_FILE, NODES, PARTS, SLACK_SLOTS,
};

/// The most hot start times.
pub const MAX_HOT: u32 = 32;

/// One load run's settings.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The `resbench` executable to start managers from.
    pub exe: PathBuf,
    /// Where the managers' stores go.
    pub dir: PathBuf,
    /// Managers.
    pub managers: u32,
    /// Clients.
    pub clients: u32,
    /// Seconds of load.
    pub seconds: u64,
    /// Hot start times.
    pub hot: u32,
    /// Resources per manager.
    pub capacity: u32,
    /// The calendars' structure.
    pub kind: Kind,
    /// The RNG seed of the clients' choices.
    pub seed: u64,
}

/// The `q`-quantile of sorted `v` (nearest rank); 0 when empty.
fn quantile(v: &[u64], q: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    let rank = (q * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// Checks a run's settings against the limits.
///
/// # Errors
/// [`Error::OutOfRange`] naming the first out of range.
pub fn check(o: &LoadOptions) -> Result<()> {
    let within = |name, low: u64, high: u64, value: u64| {
        if (low..=high).contains(&value) {
            Ok(())
        } else {
            Err(Error::OutOfRange { name, low, high })
        }
    };
    let wide = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    within("managers", wide(PARTS), MAX_MANAGERS.into(), o.managers.into())?;
    within("clients", 1, MAX_LOAD_CLIENTS.into(), o.clients.into())?;
    within("seconds", 1, MAX_LOAD_SECONDS, o.seconds)?;
    within("hot", 1, MAX_HOT.into(), o.hot.into())?;
    within("capacity", NODES.into(), MAX_CAPACITY.into(), o.capacity.into())
}

/// A reservation of [`NODES`] resources at each of `parts` of `managers` (at most all
/// of them), with a start from `hot` hot start times.
pub fn draw(rng: &mut StdRng, managers: &[(NodeId, String)], parts: usize, hot: u32) -> Reservation {
    let parts = sample(rng, managers.len(), parts.min(managers.len()))
        .iter()
        .map(|i| (managers[i].0, NODES))
        .collect();
    let base = now_ms() / SLOT * SLOT + AHEAD;
    let earliest = base + u64::from(rng.random_range(0..hot.max(1))) * DURATION_SLOTS * SLOT;
    Reservation {
        parts,
        duration: DURATION_SLOTS * SLOT,
        earliest,
        latest_start: earliest + SLACK_SLOTS * SLOT,
    }
}

/// Runs one load run.
///
/// # Errors
/// [`Error::OutOfRange`] for bad settings, [`Error::Io`] when the stores' folder
/// cannot be made or the clients' listener bound, or as [`deployment`] and
/// [`client::status`] for a manager that does not start or answer.
pub fn run(o: &LoadOptions) -> Result<LoadRun> {
    check(o)?;
    std::fs::create_dir_all(&o.dir)?;
    let (procs, keys) = deployment(&o.exe, &o.dir, o.managers, o.kind.name(), o.capacity)?;
    let managers: Vec<(NodeId, String)> = procs.iter().map(|p| (p.id, p.addr.clone())).collect();
    let before: u64 = managers.iter().map(|(_, a)| client::status(a).map(|s| s.sent)).sum::<Result<u64>>()?;
    let first = client_base(o.seed);
    let pool = Pool::start(&managers, &keys, first, o.clients, CLIENT)?;
    let dones: Mutex<Vec<Done>> = Mutex::new(Vec::new());
    let began = Instant::now();
    let stop_at = began + Duration::from_secs(o.seconds);
    let wait = Duration::from_millis(CLIENT.give_up + 2000);
    std::thread::scope(|s| {
        for i in 0..o.clients {
            let (pool, managers, dones) = (&pool, &managers, &dones);
            s.spawn(move || {
                let mut rng = StdRng::seed_from_u64(o.seed.wrapping_add(u64::from(i)));
                while Instant::now() < stop_at {
                    let res = draw(&mut rng, managers, PARTS, o.hot);
                    match pool.reserve(i, res, wait) {
                        Some(d) => dones.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(d),
                        None => break,
                    }
                }
            });
        }
    });
    let wall_s = began.elapsed().as_secs_f64();
    let after: u64 = managers.iter().map(|(_, a)| client::status(a).map(|s| s.sent)).sum::<Result<u64>>()?;
    let dones = dones.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (client_sent, attempts, aborted, violations) = pool
        .seen(|s| (s.sent, s.attempts.len() as u64, s.aborted.len() as u64, s.violations.len() as u64))
        .unwrap_or_default();
    drop(pool);
    drop(procs);
    let mut failed = BTreeMap::new();
    let mut lat: Vec<u64> = Vec::new();
    for d in &dones {
        match &d.outcome {
            Outcome::Committed { .. } => lat.push(d.latency_ms),
            Outcome::Failed(f) => *failed.entry(f.name().to_owned()).or_insert(0) += 1,
        }
    }
    lat.sort_unstable();
    let committed = lat.len() as u64;
    let messages = client_sent + after.saturating_sub(before);
    let per = |a: f64, b: u64| if b == 0 { 0.0 } else { a / b as f64 };
    let rho = (f64::from(o.clients) * PARTS as f64 * f64::from(NODES) * DURATION_SLOTS as f64)
        / (f64::from(o.managers) * f64::from(o.capacity) * f64::from(o.hot) * DURATION_SLOTS as f64);
    Ok(LoadRun {
        managers: o.managers,
        clients: o.clients,
        seconds: o.seconds,
        wall_s,
        hot: o.hot,
        capacity: o.capacity,
        structure: o.kind.name().to_owned(),
        rho,
        reservations: dones.len() as u64,
        committed,
        failed,
        attempts,
        aborted,
        messages,
        commits_per_s: committed as f64 / wall_s.max(1e-9),
        messages_per_commit: per(messages as f64, committed),
        abort_rate: per(aborted as f64, attempts),
        p50_ms: quantile(&lat, 0.5),
        p99_ms: quantile(&lat, 0.99),
        max_ms: lat.last().copied().unwrap_or(0),
        violations,
        build: if cfg!(debug_assertions) { "debug" } else { "release" }.to_owned(),
    })
}

/// The first client node id of a process: above every manager id, and different per
/// process and run (a coordinator remembers old transactions, so client ids must not
/// repeat across runs).
pub fn client_base(salt: u64) -> NodeId {
    // Hashed together, not XORed: with XOR, the clock's next millisecond and another salt
    // gave the same seed ((t + 1) ^ s = t ^ (s ^ 1) for even t).
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&(now_ms(), std::process::id(), salt), &mut hasher);
    let mut rng = StdRng::seed_from_u64(std::hash::Hasher::finish(&hasher));
    rng.random_range(1 << 20..u32::MAX - MAX_LOAD_CLIENTS)
}

/// Writes `file` as `load.json` into `out`.
///
/// # Errors
/// [`Error::Io`] when the folder or file cannot be written ([`Error::Encode`] cannot
/// happen to a well-formed file).
pub fn save(out: &Path, file: &LoadFile) -> Result<PathBuf> {
    std::fs::create_dir_all(out)?;
    let path = out.join(LOAD_FILE);
    std::fs::write(&path, serde_json::to_string_pretty(file).map_err(Error::Encode)?)?;
    Ok(path)
}

/// Reads `load.json` from `out`.
///
/// # Errors
/// [`Error::Read`] when it cannot be read, [`Error::NotLoadFile`] when it cannot be
/// parsed.
pub fn read(out: &Path) -> Result<LoadFile> {
    let path = out.join(LOAD_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(cause) => return Err(Error::Read { path, cause }),
    };
    serde_json::from_str(&text).map_err(|cause| Error::NotLoadFile { path, cause })
}
