//! `src/fcfs_eds.rs` against the replays of `fcfs-eds` and `flexible` in the paper's
//! counted model (`--model counted`): on random small workloads, with windows of starts
//! drawn as the replay draws them and turned into slots, every request's start equals
//! the reference's on every structure, FCFS-EDS's moves included; and the deviation
//! planted in the planner is caught through the replay.

#[path = "support/replayed.rs"]
mod replayed;
mod support;

use proptest::prop_assert_eq;
use proptest::test_runner::TestCaseError;
use references::fcfs_eds::{Answer, Tslot};
use replayed::{ending_early, jobs, replayed};
use scheduling::fcfs_eds::Planted;
use scheduling::policy::{Model, PolicyKind, Windows};
use scheduling::replay::{counted_planted, Mode, Options, ReplayConfig};
use structures::{Config, Kind};
use support::agrees_and_catches;
use traces::workload::Workload;

const WINDOWS: Windows = Windows { lead: 6, flexible: 0.6, relax: (1, 6), model: Model::Counted };
const SLOT: u64 = 3;
const SEED: u64 = 5;

/// Replays `load` under `policy` in the counted model on `kind` (with `planted`, if any)
/// and compares every request's start with the reference, fed the same windows in slots;
/// returns how many requests were accepted after a move (or, for the baseline, after
/// their `t_es`) and how many were rejected.
fn compare(
    kind: Kind,
    load: &Workload,
    policy: PolicyKind,
    planted: Option<Planted>,
) -> Result<(usize, usize), TestCaseError> {
    let options =
        Options { policy, mode: Mode::PlanOnly, windows: Some(WINDOWS), seed: SEED, ..Options::default() };
    let setup = ReplayConfig { config: Config { slot: SLOT, horizon: None }, options, verify: false };
    let run = match planted {
        Some(p) => counted_planted(kind, load, &setup, p).expect("a replay"),
        None => replayed(kind, load, &setup, None),
    };
    // fcfs-eds-slotted-array's terms: slots, each request user 0 with its index as jobId.
    let asked: Vec<(u64, u64, u64)> = jobs(load)
        .iter()
        .enumerate()
        .map(|(i, job)| {
            let (es, ls) = WINDOWS.draw(SEED, i, job.submit, SLOT);
            (es.div_ceil(SLOT), ls.div_ceil(SLOT), job.duration.div_ceil(SLOT).max(1))
        })
        .collect();
    let slots = asked.iter().map(|&(_, tls, te)| tls + te).max().unwrap_or(0) as usize + 1;
    let mut reference = if policy == PolicyKind::Flexible {
        Tslot::baseline(load.capacity, slots)
    } else {
        Tslot::new(load.capacity, slots)
    };
    let (mut moved, mut rejected) = (0, 0);
    for (i, (r, &(tes, tls, te))) in load.requests.iter().zip(&asked).enumerate() {
        reference.set_now(r.submit / SLOT + 1);
        match reference.search_and_alloc(0, i as u32, tes, tls, te, r.n) {
            Answer::Accepted { start, shifts } => {
                moved += usize::from(!shifts.is_empty() || (policy == PolicyKind::Flexible && start > tes))
            }
            Answer::Rejected => rejected += 1,
        }
    }
    let want: Vec<Option<u64>> = (0..load.requests.len() as u32)
        .map(|i| reference.starts().iter().find(|&&(_, j, _)| j == i).map(|&(_, _, s)| s * SLOT))
        .collect();
    for (r, want) in load.requests.iter().zip(&want) {
        let got = run.schedule.iter().find(|p| p.id == r.id).map(|p| p.start);
        prop_assert_eq!(got, *want, "{} under {} on request {}", kind, policy, r.id);
    }
    Ok((moved, rejected))
}

#[test]
fn fcfs_eds_replayed_in_the_counted_model_decides_as_the_reference_and_the_planted_rule_is_caught() {
    agrees_and_catches(
        ending_early,
        ["shifting", "rejecting"],
        Planted::ClearsWholeWindow,
        |kind, load, p| compare(kind, load, PolicyKind::FcfsEds, p),
    );
}

#[test]
fn the_baseline_replayed_in_the_counted_model_decides_as_the_reference_and_the_planted_skip_is_caught() {
    agrees_and_catches(ending_early, ["later", "rejecting"], Planted::FirstFitSkipsTes, |kind, load, p| {
        compare(kind, load, PolicyKind::Flexible, p)
    });
}

/// The count table behind the counted model is checked against the count view's own
/// reference when verified: a table that gives back too little on a cancellation is
/// caught at its next answer.
#[test]
fn a_count_table_that_miscounts_is_caught_by_the_count_reference() {
    let mut table = scheduling::counting::CountTable::new(structures::Kind::RbTree, 4, 20, true).unwrap();
    table.plant_short_cancel();
    table.mark(1, 0, 10, 2).unwrap();
    table.cancel(1, 0, 10, 2).unwrap();
    let caught = table.smallest(2, 0, 10).unwrap_err().to_string();
    assert!(caught.contains("diverged from the count view's reference"), "{caught}");
}
