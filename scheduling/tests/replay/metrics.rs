//! `src/replay/metrics.rs`: what a schedule achieved, worked by hand: utilisation, waits
//! and their groups, the digest, nearest-rank quantiles, and the attempts of a policy
//! that retries.

use scheduling::replay::metrics::{
    quantiles, run_times, AttemptMetrics, Group, ScheduleMetrics, SizeGroup, LENGTH_GROUPS, QUANTILES,
};
use scheduling::replay::{ArCounts, Mode, Options, Placement, Run, Trial};
use structures::RangeSet;
use traces::workload::Workload;

use super::{job, load, needed, on_every};

/// Two ids. A takes both over [0, 10); B (1 for 5, runs 3) arrives at 2 and C (1 for 4)
/// at 4; both wait for A and start at 10, B on id 0 and C on id 1.
fn small() -> Workload {
    load(2, vec![job(1, 0, 2, 10, 10), job(2, 2, 1, 5, 3), job(3, 4, 1, 4, 4)])
}

fn replayed(mode: Mode) -> Run {
    let options = Options { mode, ..Options::default() };
    on_every(&small(), needed(&small(), &options), options)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn a_hand_worked_schedule_s_utilisation_and_waits() {
    let load = small();
    let run = replayed(Mode::Simulate);
    let placed: Vec<_> = run.schedule.iter().map(|p| (p.id, p.start, p.end, p.set.clone())).collect();
    let ids = RangeSet::from_range;
    assert_eq!(placed, [(1, 0, 10, ids(0, 2)), (2, 10, 15, ids(0, 1)), (3, 10, 14, ids(1, 2))]);
    let m = ScheduleMetrics::new(&run, &load, Mode::Simulate);
    assert_eq!((m.placed, m.unplaced, m.p99_wait), (3, 0, 8));
    // Busy: 2 x 10 + 1 x 3 + 1 x 4 = 27 id-seconds over 2 ids from 0 to the last end, 14.
    assert!(close(m.utilisation, 27.0 / 28.0), "{}", m.utilisation);
    // Waits 0, 8 and 6.
    assert!(close(m.mean_wait, 14.0 / 3.0), "{}", m.mean_wait);
    assert_eq!((m.ar_requested, m.ar_admitted, m.ar_mean_options), (0, 0, 0.0));
    // Plan-only, every job holds its whole reservation: 29 id-seconds up to 15.
    let plan = ScheduleMetrics::new(&replayed(Mode::PlanOnly), &load, Mode::PlanOnly);
    assert!(close(plan.utilisation, 29.0 / 30.0), "{}", plan.utilisation);
    // The same placements either way, so the same digest.
    assert_eq!(plan.digest, m.digest);
}

#[test]
fn waits_are_kept_as_nearest_rank_quantiles_and_by_size_and_length() {
    let m = ScheduleMetrics::new(&replayed(Mode::Simulate), &small(), Mode::Simulate);
    let waits = m.waits.unwrap();
    // Sorted waits 0, 6, 8: rank ceil(3q).
    let q = &waits.quantiles;
    assert_eq!(q.len(), 100);
    assert_eq!((q[0], q[32].1, q[33].1, q[65].1, q[66].1, q[99]), ((0.01, 0), 0, 6, 6, 8, (1.0, 8)));
    // Penalties wait / requested time: 0 / 10, 8 / 5 and 6 / 4.
    let group = |upto| Group { upto, jobs: 3, mean_wait: 14.0 / 3.0, mean_penalty: (1.6 + 1.5) / 3.0 };
    assert_eq!(waits.by_size, [group(50)]);
    assert_eq!(waits.by_length, [group(3_600)]);
}

/// A run whose schedule is `schedule`, for metrics of placements made by hand.
fn with_schedule(schedule: Vec<Placement>) -> Run {
    let mut run = on_every(&load(1, Vec::new()), Default::default(), Options::default());
    run.schedule = schedule;
    run
}

fn placement(id: i64, n: u32, start: u64, end: u64, reserved: bool) -> Placement {
    Placement { id, submit: 0, start, end, set: RangeSet::from_range(0, n), reserved }
}

#[test]
fn groups_are_fifty_ids_and_an_hour_wide_with_one_for_the_longest() {
    let hour = 3_600;
    let load = load(
        200,
        vec![
            job(1, 0, 50, hour, hour),
            job(2, 0, 51, hour + 1, 1),
            job(3, 0, 120, 100 * hour, 1),
            job(4, 0, 10, 5, 5),
        ],
    );
    // Waits 0, 1 h and 2 h; job 4 is a reservation and counts in no wait.
    let mut run = with_schedule(vec![
        placement(1, 50, 0, hour, false),
        placement(2, 51, hour, 2 * hour + 1, false),
        placement(3, 120, 2 * hour, 102 * hour, false),
        placement(4, 10, 100, 105, true),
    ]);
    run.ar = ArCounts { requested: 3, admitted: 1, offered: vec![4, 1] };
    let m = ScheduleMetrics::new(&run, &load, Mode::Simulate);
    assert!(close(m.mean_wait, hour as f64) && m.p99_wait == 2 * hour, "{m:?}");
    assert_eq!((m.ar_requested, m.ar_admitted, m.ar_mean_options), (3, 1, 2.5));
    let waits = m.waits.unwrap();
    let g = |upto, wait: u64, penalty| Group { upto, jobs: 1, mean_wait: wait as f64, mean_penalty: penalty };
    let (p2, p3) = (hour as f64 / (hour + 1) as f64, 2.0 / 100.0);
    assert_eq!(waits.by_size, [g(50, 0, 0.0), g(100, hour, p2), g(150, 2 * hour, p3)]);
    // 100 hours fall into the last group, past LENGTH_GROUPS hourly ones.
    assert_eq!(
        waits.by_length,
        [g(hour, 0, 0.0), g(2 * hour, hour, p2), g((LENGTH_GROUPS + 1) * hour, 2 * hour, p3)]
    );
    // Only reservations: no waits at all.
    let reserved = with_schedule(vec![placement(4, 10, 100, 105, true)]);
    assert_eq!(ScheduleMetrics::new(&reserved, &load, Mode::Simulate).waits, None);
}

#[test]
fn the_digest_is_equal_for_equal_schedules_and_changes_with_any_placement() {
    let run = replayed(Mode::Simulate);
    let digest = |run: &Run| ScheduleMetrics::new(run, &small(), Mode::Simulate).digest;
    assert_eq!(digest(&run), digest(&run.clone()));
    let mut later = run.clone();
    later.schedule[1].start += 1;
    let mut longer = run.clone();
    longer.schedule[1].end += 1;
    let mut other_ids = run.clone();
    other_ids.schedule[2].set = RangeSet::from_range(0, 1);
    let mut renumbered = run.clone();
    renumbered.schedule[0].id = 9;
    let all = [digest(&run), digest(&later), digest(&longer), digest(&other_ids), digest(&renumbered)];
    let distinct: std::collections::BTreeSet<&String> = all.iter().collect();
    assert_eq!(distinct.len(), all.len(), "{all:?}");
    // FNV-1a of nothing is its offset basis.
    assert_eq!(digest(&with_schedule(Vec::new())), "cbf29ce484222325");
}

#[test]
fn run_times_are_the_run_time_simulated_and_the_reservation_planned() {
    let (load, run) = (small(), replayed(Mode::Simulate));
    assert_eq!(run_times(&run, &load, Mode::Simulate), [Some(10), Some(3), Some(4)]);
    assert_eq!(run_times(&run, &load, Mode::PlanOnly), [Some(10), Some(5), Some(4)]);
}

#[test]
fn run_times_find_each_job_in_a_schedule_in_any_order() {
    let small = small();
    let run = replayed(Mode::Simulate);
    // Out of the workload's order, with a job the workload does not hold.
    let mut shuffled = run.clone();
    shuffled.schedule.reverse();
    shuffled.schedule.insert(1, placement(9, 1, 20, 25, false));
    assert_eq!(run_times(&shuffled, &small, Mode::Simulate), [Some(4), None, Some(3), Some(10)]);
    // Past the distance looked ahead in order: the last job of many, then the first.
    let many = load(2, (1..=200).map(|id| job(id, id as u64, 1, 5, 3)).collect());
    let far = with_schedule(vec![placement(200, 1, 300, 305, false), placement(1, 1, 0, 5, false)]);
    assert_eq!(run_times(&far, &many, Mode::PlanOnly), [Some(5), Some(5)]);
    // The order of the schedule changes no metric but its digest.
    let (a, b) = (
        ScheduleMetrics::new(&run, &small, Mode::Simulate),
        ScheduleMetrics::new(&shuffled, &small, Mode::Simulate),
    );
    assert_ne!(a.digest, b.digest);
    assert_eq!(b.placed, 4);
    shuffled.schedule.remove(1);
    let c = ScheduleMetrics::new(&shuffled, &small, Mode::Simulate);
    assert_eq!(
        (c.utilisation, c.mean_wait, c.p99_wait, c.waits),
        (a.utilisation, a.mean_wait, a.p99_wait, a.waits)
    );
}

#[test]
fn quantiles_are_every_percentile_by_nearest_rank() {
    assert_eq!((QUANTILES[0], QUANTILES[49], QUANTILES[99]), (0.01, 0.5, 1.0));
    let q = quantiles(vec![5, 1, 3]);
    let at = |k: usize| q[k].1;
    // Rank ceil(3q): 1 up to q = 0.33, 2 up to 0.66, then 3.
    assert_eq!((at(0), at(32), at(33), at(65), at(66), at(99)), (1, 1, 3, 3, 5, 5));
    assert!(quantiles(Vec::<u64>::new()).is_empty());
}

#[test]
fn attempts_are_grouped_by_size_and_waits_count_only_the_accepted() {
    let trial = |n, length, attempts, wait| Trial { n, length, attempts, wait, lead: 0 };
    // The second asked to start 600 s after its submission; the rejected one's lead counts
    // for nothing.
    let trials = [
        trial(10, 100, 1, Some(0)),
        Trial { lead: 600, ..trial(60, 900, 3, Some(1_800)) },
        Trial { lead: 900, ..trial(50, 100, 5, None) },
    ];
    let m = AttemptMetrics::new(&trials).unwrap();
    assert_eq!((m.requests, m.rejected, m.mean_attempts, m.mean_wait), (3, 1, 3.0, 900.0));
    assert_eq!(m.mean_wait_from_submit, 1_200.0);
    let group =
        |upto, requests, mean_attempts, mean_wait| SizeGroup { upto, requests, mean_attempts, mean_wait };
    assert_eq!(m.by_size, [group(50, 2, 3.0, 0.0), group(100, 1, 3.0, 1_800.0)]);
    // The accepted waits 0 and 1800, and penalties 0 and 2: rank ceil(2q).
    assert_eq!((m.wait_quantiles[49], m.wait_quantiles[50]), ((0.5, 0), (0.51, 1_800)));
    assert_eq!((m.penalty_quantiles[49], m.penalty_quantiles[99]), ((0.5, 0.0), (1.0, 2.0)));
    assert_eq!(AttemptMetrics::new(&[]), None);
}
