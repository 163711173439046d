//! `src/conservative.rs` against the `conservative` policy in plan-only mode (the paper's
//! measure): on random small workloads, every job's start and resources equal the
//! reference's on every structure; and the deviation planted in the policy (no
//! backfilling) is caught.

#[path = "support/replayed.rs"]
mod replayed;
mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use references::conservative::Machine;
use replayed::replayed;
use scheduling::policy::{Planted, PolicyKind};
use scheduling::replay::{horizon_for, Mode, Options, ReplayConfig};
use structures::{Config, Kind};
use support::agrees_and_catches;
use traces::workload::{Request, Workload};

/// A workload: up to 6 resources, tens of jobs arriving 0 to 5 apart.
fn workload() -> impl Strategy<Value = Workload> {
    (1u32..=6).prop_flat_map(|capacity| {
        let job = (0u64..6, 1u64..30, 1..=capacity);
        proptest::collection::vec(job, 5..30).prop_map(move |js| {
            let mut submit = 0;
            let requests = js
                .into_iter()
                .enumerate()
                .map(|(id, (gap, duration, n))| {
                    submit += gap;
                    Request { id: id as i64, submit, n, duration, runtime: duration, recorded_wait: None }
                })
                .collect();
            Workload { capacity, requests, skipped: Default::default() }
        })
    })
}

/// Replays `load` on `kind` (with `planted`, if any) and compares every job with the
/// reference; returns how many jobs backfilled (started before one planned earlier) and
/// how many waited.
fn compare(kind: Kind, load: &Workload, planted: Option<Planted>) -> Result<(usize, usize), TestCaseError> {
    let options = Options { policy: PolicyKind::Conservative, mode: Mode::PlanOnly, ..Options::default() };
    let config = Config { slot: 1, horizon: Some(horizon_for(load, 1, &options).expect("a horizon")) };
    let setup = ReplayConfig { config, options, verify: false };
    let run = replayed(kind, load, &setup, planted);
    let mut machine = Machine::new(load.capacity);
    let (mut backfilled, mut waited, mut latest) = (0, 0, 0);
    for r in &load.requests {
        let want = machine.plan(r.submit, r.duration, r.n);
        let got =
            run.schedule.iter().find(|p| p.id == r.id).map(|p| {
                (p.start, (0..load.capacity).filter(|&id| p.set.contains(id)).collect::<Vec<u32>>())
            });
        prop_assert_eq!(&got, &want, "{} on job {}", kind, r.id);
        if let Some((start, _)) = want {
            backfilled += usize::from(start < latest);
            waited += usize::from(start > r.submit);
            latest = latest.max(start);
        }
    }
    Ok((backfilled, waited))
}

#[test]
fn the_policy_plans_as_the_reference_on_every_structure_and_the_planted_lack_of_backfilling_is_caught() {
    agrees_and_catches(workload, ["backfilling", "waiting"], Planted::NoBackfill, compare);
}
