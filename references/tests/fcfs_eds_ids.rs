//! `src/fcfs_eds_ids.rs` against the `fcfs-eds` policy, our id-bound FCFS-EDS, in
//! plan-only mode: on random small workloads at slots of 2 to 4 seconds, with their windows
//! of starts drawn as the replay draws them (leads up to 10 slots, 60 to 100 % flexible,
//! relax times from 1 slot to up to 10), every request's final start and resources, the
//! requests accepted, those accepted after moving others and the moves kept equal the
//! reference's on every structure, and no search reaches the policy's bound; and the
//! deviation planted in the policy (`shiftNode` trying the latest accepted reservation
//! first) is caught.

#[path = "support/replayed.rs"]
mod replayed;
mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use references::fcfs_eds_ids::{plan, Request};
use replayed::{ending_early, jobs, replayed};
use scheduling::policy::{Model, Planted, PolicyKind, Windows, MAX_CHECKS};
use scheduling::replay::{Mode, Options, ReplayConfig};
use structures::{Config, Kind};
use support::agrees_and_catches;
use traces::workload::Workload;

/// A case: the workload, the slot width, the windows and their seed.
type Case = (Workload, u64, Windows, u64);

fn case() -> impl Strategy<Value = Case> {
    let windows = (0u64..=10, 0.6f64..1.0, 2u64..=10).prop_map(|(lead, flexible, relax)| Windows {
        lead,
        flexible,
        relax: (1, relax),
        model: Model::Ids,
    });
    (ending_early(), 2u64..=4, windows, any::<u64>())
}

/// Replays the case on `kind` (with `planted`, if any) and compares it with the reference;
/// returns how many requests were accepted after moving others, and how many rejected.
fn compare(kind: Kind, case: &Case, planted: Option<Planted>) -> Result<(usize, usize), TestCaseError> {
    let (load, slot, windows, seed) = case;
    let requests: Vec<Request> = jobs(load)
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let (tes, tls) = windows.draw(*seed, i, j.submit, *slot);
            Request { submit: j.submit, duration: j.duration, n: j.n, tes, tls }
        })
        .collect();
    // Every window the replay tries ends within this of its arrival's slot.
    let reach = requests.iter().map(|r| (r.tls + r.duration).div_ceil(*slot) * slot - r.submit / slot * slot);
    let horizon = reach.max().expect("a request");
    let options = Options {
        policy: PolicyKind::FcfsEds,
        mode: Mode::PlanOnly,
        windows: Some(*windows),
        seed: *seed,
        ..Options::default()
    };
    let config = Config { slot: *slot, horizon: Some(horizon) };
    let run = replayed(kind, load, &ReplayConfig { config, options, verify: false }, planted);
    let want = plan(load.capacity, *slot, &requests);
    for (r, want) in load.requests.iter().zip(&want.schedule) {
        let got =
            run.schedule.iter().find(|p| p.id == r.id).map(|p| {
                (p.start, (0..load.capacity).filter(|&id| p.set.contains(id)).collect::<Vec<u32>>())
            });
        prop_assert_eq!(&got, want, "{} on request {}", kind, r.id);
    }
    let decisions = &want.decisions;
    let accepted = decisions.iter().filter(|d| d.placed.is_some()).count();
    let shifting = decisions.iter().filter(|d| !d.moves.is_empty()).count();
    let moves: usize = decisions.iter().map(|d| d.moves.len()).sum();
    let count = |what: &str| run.counts.get(what).copied().unwrap_or(0) as usize;
    prop_assert_eq!(count("accepted"), accepted, "{}: accepted", kind);
    prop_assert_eq!(count("accepted after shifting"), shifting, "{}: accepted after shifting", kind);
    prop_assert_eq!(count("reservations shifted"), moves, "{}: reservations shifted", kind);
    prop_assert_eq!(count("searches cut short"), 0, "{}: a search reached the bound", kind);
    prop_assert!(decisions.iter().all(|d| d.checks < MAX_CHECKS), "a case too large for the bound");
    Ok((shifting, load.requests.len() - accepted))
}

#[test]
fn the_policy_decides_as_the_reference_on_every_structure_and_the_planted_candidate_order_is_caught() {
    agrees_and_catches(case, ["shifting", "rejecting"], Planted::LatestFirst, compare);
}
