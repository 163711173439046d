//! `src/conservative.rs` against the `conservative` policy, plan-only (the paper's
//! measure) and simulated with early ends, with and without compression: on random small
//! workloads, every job's start and resources equal the reference's on every structure;
//! and the deviation planted in the policy (no backfilling) is caught.

#[path = "support/replayed.rs"]
mod replayed;
mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use references::conservative::{plan_only, simulate};
use replayed::{ending_early, jobs, replayed};
use scheduling::policy::{Planted, PolicyKind};
use scheduling::replay::{horizon_for, Mode, Options, ReplayConfig};
use structures::{Config, Kind};
use support::agrees_and_catches;
use traces::workload::Workload;

/// A workload (up to 6 resources, tens of jobs arriving 0 to 5 apart, most ending
/// before their requested time), whether it is simulated (else plan-only), and whether
/// simulated replays compress.
fn case() -> impl Strategy<Value = (Workload, bool, bool)> {
    (ending_early(), any::<bool>(), any::<bool>())
}

/// Replays the case on `kind` (with `planted`, if any) and compares every job with the
/// reference; returns how many jobs backfilled (started before one planned earlier) and
/// how many waited.
fn compare(
    kind: Kind,
    (load, simulated, compress): &(Workload, bool, bool),
    planted: Option<Planted>,
) -> Result<(usize, usize), TestCaseError> {
    let mode = if *simulated { Mode::Simulate } else { Mode::PlanOnly };
    let options =
        Options { policy: PolicyKind::Conservative, mode, compress: *compress, ..Options::default() };
    let config = Config { slot: 1, horizon: Some(horizon_for(load, 1, &options).expect("a horizon")) };
    let run = replayed(kind, load, &ReplayConfig { config, options, verify: false }, planted);
    let jobs = jobs(load);
    let want =
        if *simulated { simulate(load.capacity, &jobs, *compress) } else { plan_only(load.capacity, &jobs) };
    let (mut backfilled, mut waited, mut latest) = (0, 0, 0);
    for (r, want) in load.requests.iter().zip(&want) {
        let got =
            run.schedule.iter().find(|p| p.id == r.id).map(|p| {
                (p.start, (0..load.capacity).filter(|&id| p.set.contains(id)).collect::<Vec<u32>>())
            });
        prop_assert_eq!(&got, want, "{} ({:?}, compress {}) on job {}", kind, mode, compress, r.id);
        if let Some((start, _)) = want {
            backfilled += usize::from(*start < latest);
            waited += usize::from(*start > r.submit);
            latest = latest.max(*start);
        }
    }
    Ok((backfilled, waited))
}

#[test]
fn the_policy_plans_as_the_reference_on_every_structure_and_the_planted_lack_of_backfilling_is_caught() {
    agrees_and_catches(case, ["backfilling", "waiting"], Planted::NoBackfill, compare);
}
