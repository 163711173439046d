//! The policy layer: the registry, EASY and FCFS worked by hand and against a
//! counting reference, and every policy deciding alike on every structure.

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use resbench::policy::PolicyKind;
use resbench::replay::{horizon_for, replay, Mode, Options, ReplayConfig, Run, Silent};
use resbench::run_file::ScheduleMetrics;
use resbench::workload::{Request, Workload};
use structures::{Config, Kind};

fn job(id: i64, submit: u64, n: u32, duration: u64, runtime: u64) -> Request {
    Request { id, submit, n, duration, runtime }
}

fn load(capacity: u32, requests: Vec<Request>) -> Workload {
    Workload { capacity, requests, skipped: Default::default() }
}

/// Replays `load` under `policy` on `kind` beside the oracle, with the horizon the
/// workload needs (as `resbench replay` computes it), so that every structure can take it.
fn run(kind: Kind, load: &Workload, policy: PolicyKind, mode: Mode) -> Run {
    let options = Options { policy, mode, ..Options::default() };
    let horizon = horizon_for(load, 1, &options).unwrap();
    let setup = ReplayConfig { config: Config { slot: 1, horizon: Some(horizon) }, options, verify: true };
    replay(kind, load, &setup, &mut Silent).unwrap()
}

/// `(id, start)` of every placed job.
fn starts(run: &Run) -> Vec<(i64, u64)> {
    run.schedule.iter().map(|p| (p.id, p.start)).collect()
}

#[test]
fn every_policy_is_registered_once_with_its_source() {
    let names: BTreeSet<&str> = PolicyKind::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(names.len(), PolicyKind::ALL.len());
    for policy in PolicyKind::ALL {
        assert_eq!(policy.name().parse::<PolicyKind>(), Ok(policy));
        let spec = policy.spec();
        assert!(!spec.description.is_empty() && spec.source.section.is_some(), "{policy}");
    }
    let e = "nope".parse::<PolicyKind>().unwrap_err();
    assert!(e.contains("unknown policy \"nope\"") && e.contains("conservative"), "{e}");
    assert_eq!(PolicyKind::default(), PolicyKind::ALL[0]);
}

/// 4 resources. A (2 for 100) starts at 0; B (all 4 for 100) must wait for A, so at 100;
/// C (2 for 50) at 2 fits beside A and ends before B starts; D (2 for 500) at 3 fits
/// beside A too, but would hold B back.
fn backfill_case(runtime_a: u64) -> Workload {
    load(
        4,
        vec![
            job(1, 0, 2, 100, runtime_a),
            job(2, 1, 4, 100, 100),
            job(3, 2, 2, 50, 50),
            job(4, 3, 2, 500, 500),
        ],
    )
}

#[test]
fn easy_backfills_only_what_does_not_delay_the_first_waiting_job() {
    for kind in Kind::ALL {
        let run = run(kind, &backfill_case(100), PolicyKind::Easy, Mode::Simulate);
        assert_eq!(starts(&run), [(1, 0), (2, 100), (3, 2), (4, 200)], "{kind}");
    }
}

#[test]
fn fcfs_starts_jobs_strictly_in_order() {
    for kind in Kind::ALL {
        let run = run(kind, &backfill_case(100), PolicyKind::Fcfs, Mode::Simulate);
        assert_eq!(starts(&run), [(1, 0), (2, 100), (3, 200), (4, 200)], "{kind}");
    }
}

#[test]
fn an_early_end_moves_the_first_waiting_job_up_under_easy_but_not_conservative() {
    // A ends at 30 instead of 100. C, backfilled, holds 2 resources until 52, so EASY
    // starts B at 52; conservative backfilling keeps B's reservation at 100 (no
    // compression) and, having planned D at arrival after B, at 200.
    let case = backfill_case(30);
    for kind in Kind::ALL {
        let easy = run(kind, &case, PolicyKind::Easy, Mode::Simulate);
        assert_eq!(starts(&easy), [(1, 0), (2, 52), (3, 2), (4, 152)], "{kind}");
        let conservative = run(kind, &case, PolicyKind::Conservative, Mode::Simulate);
        assert_eq!(starts(&conservative), [(1, 0), (2, 100), (3, 2), (4, 200)], "{kind}");
    }
}

/// FCFS by counting alone, sharing nothing with the policy: a job starts at the first
/// event (an arrival or an end) at or after its submit and its predecessor's start at
/// which enough resources are free, jobs running for their run time. Exact with slot 1:
/// what is free now stays free for a job that starts now, as nothing is planned ahead.
fn fcfs_by_counting(load: &Workload) -> Vec<(i64, u64)> {
    let mut running: Vec<(u64, u32)> = Vec::new(); // (end, n)
    let mut out = Vec::new();
    let mut t = 0;
    for r in &load.requests {
        t = t.max(r.submit);
        loop {
            running.retain(|&(end, _)| end > t);
            let busy: u32 = running.iter().map(|&(_, n)| n).sum();
            if load.capacity - busy >= r.n {
                break;
            }
            t = running.iter().map(|&(end, _)| end).min().expect("something runs while busy");
        }
        running.push((t + r.runtime, r.n));
        out.push((r.id, t));
    }
    out
}

fn random_load(rng: &mut StdRng, jobs: usize) -> Workload {
    let capacity = rng.random_range(1..=8);
    let mut submit = 0;
    let requests = (0..jobs)
        .map(|id| {
            submit += rng.random_range(0..20);
            let duration = rng.random_range(1..60);
            job(id as i64, submit, rng.random_range(1..=capacity), duration, rng.random_range(1..=duration))
        })
        .collect();
    load(capacity, requests)
}

#[test]
fn fcfs_matches_counting_on_random_workloads() {
    let mut rng = StdRng::seed_from_u64(20);
    for case in 0..200 {
        let load = random_load(&mut rng, 12);
        let kind = Kind::ALL[case % Kind::ALL.len()];
        let mut got = starts(&run(kind, &load, PolicyKind::Fcfs, Mode::Simulate));
        got.sort_unstable();
        assert_eq!(got, fcfs_by_counting(&load), "case {case} on {kind}: {load:?}");
    }
}

#[test]
fn every_policy_decides_alike_on_every_structure() {
    let mut rng = StdRng::seed_from_u64(21);
    let loads: Vec<Workload> = (0..10).map(|_| random_load(&mut rng, 30)).collect();
    for policy in PolicyKind::ALL {
        for mode in [Mode::Simulate, Mode::PlanOnly] {
            for load in &loads {
                let digests: BTreeSet<String> = Kind::ALL
                    .into_iter()
                    .map(|kind| ScheduleMetrics::new(&run(kind, load, policy, mode), load, mode).digest)
                    .collect();
                assert_eq!(digests.len(), 1, "{policy} {mode:?}: {load:?}");
            }
        }
    }
}
