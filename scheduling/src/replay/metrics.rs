//! What a schedule achieved, the same on every structure that made it: its digest
//! (equal across structures exactly when their schedules are), utilisation and waits,
//! and the attempts of a policy that retries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use structures::Time;
use traces::workload::{Request, Workload};

use super::{Mode, Placement, Run, Trial};

/// The spatial sizes coallocation-2d-trees groups requests by (Table 2): 50 servers.
pub const SIZE_GROUP: u32 = 50;

/// The quantiles a run file keeps of waits and temporal penalties: every percentile,
/// enough to plot a distribution (coallocation-2d-trees' Figs 3, 4 and 6).
pub const QUANTILES: [f64; 100] = {
    let mut q = [0.0; 100];
    let mut k = 0;
    while k < q.len() {
        q[k] = (k + 1) as f64 / 100.0;
        k += 1;
    }
    q
};

/// Attempts and waits of a policy that retries (coallocation-2d-trees, section 5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptMetrics {
    /// Requests handled.
    pub requests: u64,
    /// Requests rejected (no attempt fitted).
    pub rejected: u64,
    /// Mean attempts per request.
    pub mean_attempts: f64,
    /// Mean `W_r` of the accepted requests, seconds (Fig 7 a).
    pub mean_wait: f64,
    /// By spatial size, in groups of [`SIZE_GROUP`] (Table 2 and Fig 5).
    pub by_size: Vec<SizeGroup>,
    /// `(q, W_r)`: quantiles of the accepted requests' waits, seconds (Fig 4 a, 6).
    pub wait_quantiles: Vec<(f64, Time)>,
    /// `(q, P)`: quantiles of the temporal penalty `W_r / l_r` (Fig 3).
    pub penalty_quantiles: Vec<(f64, f64)>,
    /// The mean `l_r` the requests reserved, seconds (Table 1's average estimated `l_r`;
    /// 0, and absent, in run files written before it was kept).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub mean_length: f64,
    /// The mean wait of the accepted requests counted from their submission `q_r`
    /// instead of the start `s_r` they asked for, seconds: section 5's Figs 6 and 7 a read
    /// as counting from `q_r` (0, and absent, in run files written before it was kept).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub mean_wait_from_submit: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The requests of one size group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeGroup {
    /// Sizes in `(upto - SIZE_GROUP, upto]`.
    pub upto: u32,
    /// Requests in the group.
    pub requests: u64,
    /// Mean attempts per request.
    pub mean_attempts: f64,
    /// Mean `W_r` of the accepted ones, seconds.
    pub mean_wait: f64,
}

/// The nearest-rank quantiles [`QUANTILES`] of `values` (sorted here).
pub fn quantiles<T: Copy + PartialOrd>(mut values: Vec<T>) -> Vec<(f64, T)> {
    values.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    sorted_quantiles(&values)
}

/// [`quantiles`] of values already sorted.
fn sorted_quantiles<T: Copy>(sorted: &[T]) -> Vec<(f64, T)> {
    if sorted.is_empty() {
        return Vec::new();
    }
    let len = sorted.len();
    QUANTILES.iter().map(|&q| (q, sorted[((q * len as f64).ceil() as usize).clamp(1, len) - 1])).collect()
}

impl AttemptMetrics {
    /// The metrics of `trials`, or `None` when the policy recorded none.
    pub fn new(trials: &[Trial]) -> Option<Self> {
        if trials.is_empty() {
            return None;
        }
        let mut groups: BTreeMap<u32, (u64, u64, u64, u64)> = BTreeMap::new();
        for t in trials {
            let g = groups.entry(t.n.div_ceil(SIZE_GROUP) * SIZE_GROUP).or_default();
            g.0 += 1;
            g.1 += t.attempts;
            if let Some(w) = t.wait {
                (g.2, g.3) = (g.2 + w, g.3 + 1);
            }
        }
        let accepted: Vec<&Trial> = trials.iter().filter(|t| t.wait.is_some()).collect();
        Some(Self {
            requests: trials.len() as u64,
            rejected: (trials.len() - accepted.len()) as u64,
            mean_attempts: trials.iter().map(|t| t.attempts as f64).sum::<f64>() / trials.len() as f64,
            mean_wait: accepted.iter().filter_map(|t| t.wait).map(|w| w as f64).sum::<f64>()
                / accepted.len().max(1) as f64,
            by_size: groups
                .into_iter()
                .map(|(upto, (requests, attempts, waited, accepted))| SizeGroup {
                    upto,
                    requests,
                    mean_attempts: attempts as f64 / requests as f64,
                    mean_wait: waited as f64 / accepted.max(1) as f64,
                })
                .collect(),
            wait_quantiles: quantiles(accepted.iter().filter_map(|t| t.wait).collect()),
            penalty_quantiles: quantiles(
                accepted.iter().filter_map(|t| t.wait.map(|w| w as f64 / t.length.max(1) as f64)).collect(),
            ),
            mean_length: trials.iter().map(|t| t.length as f64).sum::<f64>() / trials.len() as f64,
            mean_wait_from_submit: accepted
                .iter()
                .filter_map(|t| t.wait.map(|w| w.saturating_add(t.lead) as f64))
                .sum::<f64>()
                / accepted.len().max(1) as f64,
        })
    }
}

/// The schedule's quality.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleMetrics {
    /// A fingerprint of every placement (FNV-1a over job id, start, end and ids, in
    /// submit order): equal across structures exactly when their schedules are.
    pub digest: String,
    /// Jobs placed.
    pub placed: usize,
    /// Jobs no window was found for.
    pub unplaced: usize,
    /// Busy resource-seconds over capacity times the span from the first submit to the
    /// last end.
    pub utilisation: f64,
    /// Mean wait (start minus submit) of the jobs that were not reservations, seconds.
    pub mean_wait: f64,
    /// 99th-percentile wait, seconds.
    pub p99_wait: u64,
    /// The same waits in the shapes coallocation-2d-trees plots them (absent from run
    /// files written before they were kept, and when no job waited in a queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits: Option<Waits>,
    /// Advance reservations requested.
    pub ar_requested: u64,
    /// Advance reservations admitted.
    pub ar_admitted: u64,
    /// Mean number of options offered to a rejected reservation.
    pub ar_mean_options: f64,
}

fn digest(run: &Run) -> String {
    const PRIME: u64 = 0x0100_0000_01b3;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |word: u64| {
        for byte in word.to_le_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    };
    for p in &run.schedule {
        eat(p.id as u64);
        eat(p.start);
        eat(p.end);
        for (lo, hi) in p.set.ranges() {
            eat(u64::from(lo) << 32 | u64::from(hi));
        }
    }
    format!("{hash:016x}")
}

impl ScheduleMetrics {
    /// What `run`'s schedule of `workload` achieved, jobs running for their run time
    /// (`Mode::Simulate`) or their whole reservation.
    pub fn new(run: &Run, workload: &Workload, mode: Mode) -> Self {
        let requests = requests_of(&run.schedule, &workload.requests);
        let (headline, mut waits) = Headline::of(run, workload, mode, &requests);
        waits.sort_unstable();
        let offered = &run.ar.offered;
        Self {
            digest: digest(run),
            placed: run.schedule.len(),
            unplaced: run.unplaced,
            utilisation: headline.utilisation,
            mean_wait: headline.mean_wait,
            p99_wait: headline.p99_wait,
            waits: Waits::new(run, &requests, &waits),
            ar_requested: run.ar.requested,
            ar_admitted: run.ar.admitted,
            ar_mean_options: if offered.is_empty() {
                0.0
            } else {
                offered.iter().sum::<u64>() as f64 / offered.len() as f64
            },
        }
    }
}

/// The schedule's quality in the three figures `replay` prints: [`ScheduleMetrics`]'
/// fields of the same names, without the digest and the wait groups, which cost a
/// whole-log replay's report more than the rest of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Headline {
    /// As [`ScheduleMetrics::utilisation`].
    pub utilisation: f64,
    /// As [`ScheduleMetrics::mean_wait`].
    pub mean_wait: f64,
    /// As [`ScheduleMetrics::p99_wait`].
    pub p99_wait: u64,
}

impl Headline {
    /// The headline figures of `run`'s schedule of `workload` (see [`ScheduleMetrics::new`]).
    pub fn new(run: &Run, workload: &Workload, mode: Mode) -> Self {
        Self::of(run, workload, mode, &requests_of(&run.schedule, &workload.requests)).0
    }

    /// The figures, and the waits of the jobs that were not reservations, in no order
    /// (`requests`: each placement's request).
    fn of(run: &Run, workload: &Workload, mode: Mode, requests: &[Option<&Request>]) -> (Self, Vec<u64>) {
        let runtime: Vec<Option<Time>> = requests.iter().map(|r| r.map(|r| ran(r, mode))).collect();
        let placed = || run.schedule.iter().zip(&runtime);
        let busy: f64 =
            placed().map(|(p, t)| p.set.count() as f64 * t.unwrap_or(p.end - p.start) as f64).sum();
        let first = workload.requests.first().map_or(0, |r| r.submit);
        let last = placed().map(|(p, t)| p.start + t.unwrap_or(0)).max().unwrap_or(first);
        let span = (last.saturating_sub(first)).max(1) as f64;
        let mut waits: Vec<u64> =
            run.schedule.iter().filter(|p| !p.reserved).map(|p| p.start - p.submit).collect();
        let mean_wait = if waits.is_empty() {
            0.0
        } else {
            waits.iter().map(|&w| w as f64).sum::<f64>() / waits.len() as f64
        };
        // A selection, not a sort: the headline needs one rank.
        let p99_wait = match waits.len() {
            0 => 0,
            len => *waits.select_nth_unstable(((0.99 * len as f64).ceil() as usize).clamp(1, len) - 1).1,
        };
        let headline =
            Self { utilisation: busy / (f64::from(workload.capacity) * span), mean_wait, p99_wait };
        (headline, waits)
    }
}

/// How long `request` keeps its resources: its run time (`Mode::Simulate`) or its whole
/// reservation.
fn ran(request: &Request, mode: Mode) -> Time {
    if mode == Mode::Simulate {
        request.runtime
    } else {
        request.duration
    }
}

/// How long each job of `run`'s schedule, in its order, keeps its resources (see
/// [`ScheduleMetrics::new`]); `None` for a job `workload` does not hold.
pub fn run_times(run: &Run, workload: &Workload, mode: Mode) -> Vec<Option<Time>> {
    requests_of(&run.schedule, &workload.requests).into_iter().map(|r| r.map(|r| ran(r, mode))).collect()
}

/// How far past the last placement's request the next one is looked for before the
/// requests are indexed by job id.
const AHEAD: usize = 64;

/// Each placement's request (`None` where `requests` has no job of its id). A replay
/// lists its schedule in the workload's order, leaving out the jobs it did not place, so
/// each request is found a few places past the last one found, reading both in order; a
/// schedule in another order is looked up by job id, in a map built when first needed.
fn requests_of<'a>(schedule: &[Placement], requests: &'a [Request]) -> Vec<Option<&'a Request>> {
    let mut by_id: Option<BTreeMap<i64, usize>> = None;
    let mut next = 0;
    schedule
        .iter()
        .map(|p| {
            let near = requests.get(next..).unwrap_or_default().iter().take(AHEAD).position(|r| r.id == p.id);
            let at = match near {
                Some(k) => Some(next + k),
                None => by_id
                    .get_or_insert_with(|| requests.iter().enumerate().map(|(i, r)| (r.id, i)).collect())
                    .get(&p.id)
                    .copied(),
            };
            next = at.map_or(next, |i| i + 1);
            at.map(|i| &requests[i])
        })
        .collect()
}

/// The waits (start minus submit) of the jobs that were not advance reservations, and
/// their temporal penalties `wait / l_r`, `l_r` being the time the job requested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waits {
    /// `(q, wait)`: quantiles [`QUANTILES`], seconds (coallocation-2d-trees, Figs 4 a and 6).
    pub quantiles: Vec<(f64, Time)>,
    /// By spatial size, in groups of [`SIZE_GROUP`] (Fig 5).
    pub by_size: Vec<Group>,
    /// By requested time, in groups of an hour; the last group holds everything longer
    /// than [`LENGTH_GROUPS`] hours (Fig 3).
    pub by_length: Vec<Group>,
}

/// Hourly groups of requested time [`Waits::by_length`] keeps before one for the rest.
pub const LENGTH_GROUPS: u64 = 48;

/// The jobs of one group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// The group holds values in `(upto - width, upto]`: sizes in resources, lengths in
    /// seconds.
    pub upto: u64,
    /// Jobs in it.
    pub jobs: u64,
    /// Their mean wait, seconds.
    pub mean_wait: f64,
    /// Their mean temporal penalty.
    pub mean_penalty: f64,
}

/// One job that waited in a queue, as [`Waits`] groups it.
struct Queued {
    size: u64,
    length: Time,
    wait: Time,
    penalty: f64,
}

/// The mean wait and penalty of `jobs` in each group `key` puts them in.
fn groups(jobs: &[Queued], key: impl Fn(&Queued) -> u64) -> Vec<Group> {
    let mut sums: BTreeMap<u64, (u64, f64, f64)> = BTreeMap::new();
    for job in jobs {
        let g = sums.entry(key(job)).or_default();
        *g = (g.0 + 1, g.1 + job.wait as f64, g.2 + job.penalty);
    }
    sums.into_iter()
        .map(|(upto, (n, waits, penalties))| Group {
            upto,
            jobs: n,
            mean_wait: waits / n as f64,
            mean_penalty: penalties / n as f64,
        })
        .collect()
}

impl Waits {
    /// The waits of `run`'s schedule (`requests`: each placement's request; `sorted`: the
    /// waits, sorted), or `None` when every job was a reservation.
    fn new(run: &Run, requests: &[Option<&Request>], sorted: &[Time]) -> Option<Self> {
        let queued: Vec<Queued> = run
            .schedule
            .iter()
            .zip(requests)
            .filter(|(p, _)| !p.reserved)
            .map(|(p, r)| {
                let length = r.map_or(p.end - p.start, |r| r.duration).max(1);
                let wait = p.start - p.submit;
                Queued { size: p.set.count(), length, wait, penalty: wait as f64 / length as f64 }
            })
            .collect();
        if queued.is_empty() {
            return None;
        }
        let (size, hour) = (u64::from(SIZE_GROUP), 3_600);
        Some(Self {
            quantiles: sorted_quantiles(sorted),
            by_size: groups(&queued, |j| j.size.div_ceil(size) * size),
            by_length: groups(&queued, |j| j.length.div_ceil(hour).min(LENGTH_GROUPS + 1) * hour),
        })
    }
}
