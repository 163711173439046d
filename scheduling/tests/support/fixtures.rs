//! What several test binaries of this crate build their cases from: hand-written jobs
//! and workloads, and structures behind a tap that logs the calls a replay makes.

use oracle::tap::{Log, Planted, Tap};
use structures::{AvailabilityIndex, Config, Kind};
use traces::workload::{Request, Workload};

/// A job with no recorded wait.
pub fn job(id: i64, submit: u64, n: u32, duration: u64, runtime: u64) -> Request {
    Request { id, submit, n, duration, runtime, recorded_wait: None }
}

/// A workload of `requests` on `capacity` ids, nothing skipped.
pub fn load(capacity: u32, requests: Vec<Request>) -> Workload {
    Workload { capacity, requests, skipped: Default::default() }
}

/// A fresh `kind` of `capacity` ids under `config`, behind a tap with `fault` planted,
/// and the log of its calls.
pub fn tapped(
    kind: Kind,
    capacity: u32,
    config: Config,
    fault: Option<Planted>,
) -> (Box<dyn AvailabilityIndex>, Log) {
    let inner = kind.build(capacity, kind.config_for(config)).unwrap();
    let (tap, log) = Tap::planted(inner, fault);
    (Box::new(tap), log)
}
