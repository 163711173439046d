//! `src/flexible.rs` against the `flexible` policy, FCFS-EDS's baseline, in plan-only
//! mode (as the published FCFS-EDS reports run it): on random small workloads with their
//! windows of starts drawn as the replay draws them (leads up to 8, half flexible, relax
//! times 1 to 6), every request's start and resources
//! equal the reference's on every structure; and the deviation planted in the policy
//! (accepting a start past `t_ls`) is caught.

#[path = "support/replayed.rs"]
mod replayed;
mod support;

use proptest::prop_assert_eq;
use proptest::test_runner::TestCaseError;
use references::flexible::plan;
use replayed::{ending_early, jobs, replayed};
use scheduling::policy::{Model, Planted, PolicyKind, Windows};
use scheduling::replay::{horizon_for, Mode, Options, ReplayConfig};
use structures::{Config, Kind};
use support::agrees_and_catches;
use traces::workload::Workload;

const WINDOWS: Windows = Windows { lead: 8, flexible: 0.5, relax: (1, 6), model: Model::Ids };

/// Replays `load` on `kind` (with `planted`, if any) and compares every request with the
/// reference; returns how many were accepted after their `t_es` and how many rejected.
fn compare(kind: Kind, load: &Workload, planted: Option<Planted>) -> Result<(usize, usize), TestCaseError> {
    let options = Options {
        policy: PolicyKind::Flexible,
        mode: Mode::PlanOnly,
        windows: Some(WINDOWS),
        seed: 3,
        ..Options::default()
    };
    let config = Config { slot: 1, horizon: Some(horizon_for(load, 1, &options).expect("a horizon")) };
    let run = replayed(kind, load, &ReplayConfig { config, options, verify: false }, planted);
    let windows: Vec<(u64, u64)> =
        load.requests.iter().enumerate().map(|(i, r)| WINDOWS.draw(3, i, r.submit, 1)).collect();
    let want = plan(load.capacity, &jobs(load), &windows);
    let (mut later, mut rejected) = (0, 0);
    for ((r, want), &(tes, _)) in load.requests.iter().zip(&want).zip(&windows) {
        let got =
            run.schedule.iter().find(|p| p.id == r.id).map(|p| {
                (p.start, (0..load.capacity).filter(|&id| p.set.contains(id)).collect::<Vec<u32>>())
            });
        prop_assert_eq!(&got, want, "{} on request {}", kind, r.id);
        match want {
            Some((start, _)) => later += usize::from(*start > tes),
            None => rejected += 1,
        }
    }
    Ok((later, rejected))
}

#[test]
fn the_baseline_decides_as_the_reference_on_every_structure_and_the_planted_bound_is_caught() {
    agrees_and_catches(ending_early, ["later", "rejecting"], Planted::PastLatestStart, compare);
}
