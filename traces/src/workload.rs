//! From a trace to the requests a replay schedules: the size and length of each job and
//! an account of every job that cannot be replayed, never dropped silently.

use std::collections::BTreeMap;

use structures::Time;

use crate::swf::Trace;

/// One job as a request: `n` resources for `duration` from `submit` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// The trace's job number.
    pub id: i64,
    /// Submit time, seconds.
    pub submit: Time,
    /// Resources: requested processors, else allocated ones.
    pub n: u32,
    /// Length of its reservation: requested time, else run time.
    pub duration: Time,
    /// How long it actually runs: its run time, at most `duration` (a scheduler ends a
    /// job at its limit); `duration` when the trace does not say.
    pub runtime: Time,
    /// The wait the trace logs for it on the machine it ran on (the "recorded" baseline
    /// of coallocation-2d-trees, section 5.1); `None` when the log does not say.
    pub recorded_wait: Option<Time>,
}

/// Why a job is not replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skip {
    /// Cancelled before it ran: no run time and no processors allocated.
    NeverRan,
    /// Neither requested nor allocated processors.
    NoSize,
    /// Neither requested time nor run time.
    NoTime,
    /// No submit time.
    NoSubmit,
    /// More processors than the machine has.
    TooWide,
}

impl Skip {
    /// How the report names it.
    pub fn describe(self) -> &'static str {
        match self {
            Skip::NeverRan => "cancelled before running",
            Skip::NoSize => "no usable size",
            Skip::NoTime => "no usable time",
            Skip::NoSubmit => "no submit time",
            Skip::TooWide => "wider than the machine",
        }
    }
}

/// The requests of a trace on a machine of `capacity` resources.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Resources on the machine.
    pub capacity: u32,
    /// Requests in submit order.
    pub requests: Vec<Request>,
    /// Jobs not replayed, by reason.
    pub skipped: BTreeMap<Skip, usize>,
}

/// The machine size a trace declares: `MaxProcs`, else `MaxNodes`. Each field is
/// checked on its own, so an unusable `MaxProcs` (0, or past `u32`) falls back to a
/// usable `MaxNodes`.
pub fn declared_capacity(trace: &Trace) -> Option<u32> {
    [trace.header.max_procs, trace.header.max_nodes]
        .into_iter()
        .flatten()
        .find_map(|size| u32::try_from(size).ok().filter(|&c| c > 0))
}

/// Turns the first `limit` jobs of `trace` into requests for `capacity` resources.
pub fn workload(trace: &Trace, capacity: u32, limit: Option<usize>) -> Workload {
    let mut requests = Vec::new();
    let mut skipped = BTreeMap::new();
    for job in trace.jobs.iter().take(limit.unwrap_or(usize::MAX)) {
        let n = if job.requested_procs > 0 { job.requested_procs } else { job.allocated };
        let duration = if job.requested_time > 0 { job.requested_time } else { job.run_time };
        let skip = if job.run_time < 0 && job.allocated <= 0 {
            Some(Skip::NeverRan)
        } else if n <= 0 {
            Some(Skip::NoSize)
        } else if duration <= 0 {
            Some(Skip::NoTime)
        } else if job.submit < 0 {
            Some(Skip::NoSubmit)
        } else if n > i64::from(capacity) {
            Some(Skip::TooWide)
        } else {
            None
        };
        match skip {
            Some(reason) => *skipped.entry(reason).or_insert(0) += 1,
            // The checks above bound n by the capacity and make both values positive.
            None => requests.push(Request {
                id: job.id,
                submit: job.submit as Time,
                n: n as u32,
                duration: duration as Time,
                runtime: if job.run_time >= 0 {
                    job.run_time.min(duration) as Time
                } else {
                    duration as Time
                },
                recorded_wait: u64::try_from(job.wait).ok(),
            }),
        }
    }
    // Archive logs are in submit order; sort anyway (stably) so `advance` never goes back.
    requests.sort_by_key(|r| r.submit);
    Workload { capacity, requests, skipped }
}
