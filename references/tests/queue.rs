//! `src/queue.rs` against the `easy` and `fcfs` policies in simulate mode: on random
//! small workloads whose jobs end early, every job's start and resources equal the
//! reference's on every structure; and the deviation planted in the policies (the first
//! job's reservation not planned again at an end) is caught.

#[path = "support/replayed.rs"]
mod replayed;
mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use references::queue::replay as reference;
use replayed::{ending_early, jobs, replayed};
use scheduling::policy::{Planted, PolicyKind};
use scheduling::replay::{horizon_for, Mode, Options, ReplayConfig};
use structures::{Config, Kind};
use support::agrees_and_catches;
use traces::workload::Workload;

/// A workload (up to 6 resources, tens of jobs, most ending before their requested time)
/// and whether the queue backfills (EASY) or not (FCFS).
fn case() -> impl Strategy<Value = (Workload, bool)> {
    (ending_early(), any::<bool>())
}

/// Replays the case on `kind` (with `planted`, if any) and compares every job with the
/// reference; returns how many jobs waited and how many started ahead of an earlier one.
fn compare(
    kind: Kind,
    (load, easy): &(Workload, bool),
    planted: Option<Planted>,
) -> Result<(usize, usize), TestCaseError> {
    let policy = if *easy { PolicyKind::Easy } else { PolicyKind::Fcfs };
    let options = Options { policy, mode: Mode::Simulate, ..Options::default() };
    let config = Config { slot: 1, horizon: Some(horizon_for(load, 1, &options).expect("a horizon")) };
    let setup = ReplayConfig { config, options, verify: false };
    let run = replayed(kind, load, &setup, planted);
    let jobs = jobs(load);
    let want = reference(load.capacity, &jobs, *easy);
    let (mut waited, mut ahead, mut latest) = (0, 0, 0);
    for (r, want) in load.requests.iter().zip(&want) {
        let got =
            run.schedule.iter().find(|p| p.id == r.id).map(|p| {
                (p.start, (0..load.capacity).filter(|&id| p.set.contains(id)).collect::<Vec<u32>>())
            });
        prop_assert_eq!(&got, want, "{} {} on job {}", kind, policy, r.id);
        if let Some((start, _)) = want {
            waited += usize::from(*start > r.submit);
            ahead += usize::from(*start < latest);
            latest = latest.max(*start);
        }
    }
    Ok((waited, ahead))
}

#[test]
fn the_policies_decide_as_the_reference_on_every_structure_and_the_planted_reservation_is_caught() {
    agrees_and_catches(case, ["waiting", "overtaking"], Planted::NoReplan, compare);
}
