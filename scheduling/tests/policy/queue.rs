//! `src/policy/queue.rs`: EASY and FCFS worked by hand and FCFS against a counting
//! reference.

use rand::rngs::StdRng;
use rand::SeedableRng;
use scheduling::policy::PolicyKind;
use scheduling::replay::{Mode, Options};
use structures::Kind;
use traces::workload::Workload;

use super::{job, load, random_load, run, run_with, starts};

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
    for &kind in Kind::ALL {
        let run = run(kind, &backfill_case(100), PolicyKind::Easy, Mode::Simulate);
        assert_eq!(starts(&run), [(1, 0), (2, 100), (3, 2), (4, 200)], "{kind}");
    }
}

#[test]
fn fcfs_starts_jobs_strictly_in_order() {
    for &kind in Kind::ALL {
        let run = run(kind, &backfill_case(100), PolicyKind::Fcfs, Mode::Simulate);
        assert_eq!(starts(&run), [(1, 0), (2, 100), (3, 200), (4, 200)], "{kind}");
    }
}

#[test]
fn an_early_end_moves_the_first_waiting_job_up_under_easy_and_under_compression_alone() {
    // A ends at 30 instead of 100. C, backfilled, holds 2 resources until 52, so EASY
    // starts B at 52; conservative backfilling without compression keeps B's reservation
    // at 100 and, having planned D at arrival after B, at 200; with compression (the
    // default) B moves to 52 and D to 152, as under EASY.
    let case = backfill_case(30);
    for &kind in Kind::ALL {
        let easy = run(kind, &case, PolicyKind::Easy, Mode::Simulate);
        assert_eq!(starts(&easy), [(1, 0), (2, 52), (3, 2), (4, 152)], "{kind}");
        let options = Options { policy: PolicyKind::Conservative, compress: false, ..Options::default() };
        let kept = run_with(kind, &case, options);
        assert_eq!(starts(&kept), [(1, 0), (2, 100), (3, 2), (4, 200)], "{kind}");
        let compressed = run(kind, &case, PolicyKind::Conservative, Mode::Simulate);
        assert_eq!(starts(&compressed), starts(&easy), "{kind}");
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
