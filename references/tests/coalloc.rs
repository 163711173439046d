//! `src/coalloc.rs` against the `coalloc` policy: on random small workloads, with and
//! without advance reservations, for either length, the reference's start, servers and
//! attempts for every request equal the replay's on every structure; and the deviation
//! planted in the policy (`R_max` attempts in all) is caught.

#[path = "support/replayed.rs"]
mod replayed;
mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use references::coalloc::{Request as Asked, System};
use replayed::{ending_early, jobs, replayed};
use scheduling::policy::{Attempts, Length, Planted, PolicyKind};
use scheduling::replay::{plan_reservations, Mode, Options, ReplayConfig};
use structures::{Config, Kind};
use support::agrees_and_catches;
use traces::workload::Workload;

const HORIZON: u64 = 300;

/// A case: the workload, Δt, R_max, whether a share are reservations, the length.
type Case = (Workload, u64, u64, bool, bool);

fn case() -> impl Strategy<Value = Case> {
    (ending_early(), 1u64..15, 0u64..10, any::<bool>(), any::<bool>())
}

/// Replays the case on `kind` (with `planted`, if any) and compares every request with
/// the reference.
fn compare(kind: Kind, case: &Case, planted: Option<Planted>) -> Result<(usize, usize), TestCaseError> {
    let (load, delta, rmax, reserving, run_time) = case;
    let (capacity, requests) = (&load.capacity, &load.requests);
    let length = if *run_time { Length::RunTime } else { Length::Requested };
    let ar_fraction = if *reserving { 0.5 } else { 0.0 };
    let attempts = Attempts { delta: *delta, rmax: *rmax, length };
    let options = Options {
        policy: PolicyKind::Coalloc,
        mode: Mode::PlanOnly,
        attempts: Some(attempts),
        ar_fraction,
        seed: 7,
        ..Options::default()
    };
    let setup = ReplayConfig { config: Config { slot: 1, horizon: Some(HORIZON) }, options, verify: false };
    let run = replayed(kind, load, &setup, planted);
    let asked = plan_reservations(requests.iter().map(|r| r.submit), ar_fraction, 7);
    let mut system = System::new(*capacity, HORIZON, *delta, *rmax);
    let (mut retried, mut rejected) = (0, 0);
    for (((r, job), reservation), trial) in requests.iter().zip(jobs(load)).zip(&asked).zip(&run.trials) {
        let l = if *run_time { job.runtime } else { job.duration };
        let s = reservation.map_or(job.submit, |res| res.start);
        let want = system.request(Asked { q: job.submit, s, l, n: job.n });
        let got = run.schedule.iter().find(|p| p.id == r.id).map(|p| {
            let ids: Vec<u32> = (0..*capacity).filter(|&id| p.set.contains(id)).collect();
            (p.start, ids)
        });
        prop_assert_eq!(&got, &want.placed, "{} on job {}", kind, r.id);
        prop_assert_eq!(trial.attempts, want.attempts, "{} on job {}: attempts", kind, r.id);
        retried += usize::from(want.attempts > 1 && want.placed.is_some());
        rejected += usize::from(want.placed.is_none());
    }
    Ok((retried, rejected))
}

#[test]
fn the_policy_decides_as_the_reference_on_every_structure_and_the_planted_attempt_count_is_caught() {
    agrees_and_catches(case, ["retrying", "rejecting"], Planted::RmaxInAll, compare);
}
