//! The shape of the co-reservation services' runs (their time unit, horizon and load
//! workload) and the load file's data: plain data, so that reports can read what the
//! services (crate `coreserve-service`) measured without depending on their IO.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use structures::Time;

/// Slot width in milliseconds of wall time (the services' time unit).
pub const SLOT: Time = 100;
/// How far ahead a calendar reaches: 256 slots.
pub const HORIZON: Time = 256 * SLOT;

/// Managers per reservation.
pub const PARTS: usize = 2;
/// Resources per manager per reservation.
pub const NODES: u32 = 2;
/// Window length in slots.
pub const DURATION_SLOTS: u64 = 4;
/// How far the latest start is past the earliest, in slots.
pub const SLACK_SLOTS: u64 = 8;
/// The first hot start is this far ahead, in ms.
pub const AHEAD: u64 = 1000;
/// One load run's measures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadRun {
    /// Managers.
    pub managers: u32,
    /// Clients.
    pub clients: u32,
    /// Seconds of load asked.
    pub seconds: u64,
    /// Wall seconds from the first start to the last outcome.
    pub wall_s: f64,
    /// Hot start times.
    pub hot: u32,
    /// Resources per manager.
    pub capacity: u32,
    /// The calendars' structure.
    pub structure: String,
    /// Offered load: node-slots asked by the clients at once per node-slot of the hot pool.
    pub rho: f64,
    /// Reservations begun.
    pub reservations: u64,
    /// Reservations committed.
    pub committed: u64,
    /// Reservations failed, by reason.
    pub failed: BTreeMap<String, u64>,
    /// Commit attempts (two-phase commits begun).
    pub attempts: u64,
    /// Attempts aborted.
    pub aborted: u64,
    /// Messages sent by clients and managers.
    pub messages: u64,
    /// Commits per wall second.
    pub commits_per_s: f64,
    /// Messages per committed reservation.
    pub messages_per_commit: f64,
    /// Aborted attempts per attempt.
    pub abort_rate: f64,
    /// Latency of committed reservations, from start to outcome: median, ms.
    pub p50_ms: u64,
    /// 99th percentile, ms.
    pub p99_ms: u64,
    /// Maximum, ms.
    pub max_ms: u64,
    /// Invariant violations the clients' ghost saw.
    pub violations: u64,
    /// How `resbench` was compiled: `release` or `debug`.
    pub build: String,
}

/// What `load.json` holds: the command that made it and its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadFile {
    /// The command line.
    pub command: String,
    /// The runs.
    pub runs: Vec<LoadRun>,
}

/// The name of the load figures' results file in a report folder.
pub const LOAD_FILE: &str = "load.json";
