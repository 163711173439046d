//! `src/replay/ar.rs`: the seeded plan of advance reservations, and reservations
//! admitted at the start they ask for or offered options.

use scheduling::replay::{plan_reservations, Options, AR_WINDOW};
use traces::workload::Workload;

use super::{continuous, job, run};

#[test]
fn advance_reservations_are_admitted_at_their_start_or_offered_options() {
    let requests: Vec<_> = (0..40).map(|k| job(k + 1, 10 * k as u64, 3, 5_000, 5_000)).collect();
    let load = Workload { capacity: 4, requests, skipped: Default::default() };
    let options = Options { ar_fraction: 1.0, seed: 7, ..Options::default() };
    let plan = plan_reservations(load.requests.iter().map(|r| r.submit), 1.0, 7);
    for kind in continuous() {
        let run = run(kind, &load, options);
        assert_eq!(run.ar.requested, 40);
        assert_eq!(run.ar.admitted as usize + run.ar.offered.len(), 40);
        assert!(run.ar.admitted >= 1 && !run.ar.offered.is_empty(), "{:?}", run.ar);
        for p in &run.schedule {
            let asked = plan[(p.id - 1) as usize].unwrap().start;
            assert!(p.reserved && p.start == asked, "{p:?} asked for {asked}");
        }
    }
}

#[test]
fn the_reservation_plan_is_seeded_and_within_three_hours() {
    let submits = || (0..10_000).map(|k| k * 100);
    let plan = plan_reservations(submits(), 0.3, 42);
    assert_eq!(plan, plan_reservations(submits(), 0.3, 42));
    assert_ne!(plan, plan_reservations(submits(), 0.3, 43));
    let chosen: Vec<_> =
        plan.iter().zip(submits()).filter_map(|(r, s)| Some(r.as_ref()?.start - s)).collect();
    assert!((2_800..3_200).contains(&chosen.len()), "{} of 10000", chosen.len());
    assert!(chosen.iter().all(|&offset| offset <= AR_WINDOW));
    assert!(plan_reservations(submits(), 0.0, 42).iter().all(Option::is_none));
}
