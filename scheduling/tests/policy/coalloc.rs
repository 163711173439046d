//! `src/policy/coalloc.rs`: every attempt of online co-allocation against the oracle.

use oracle::Oracle;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use scheduling::policy::{Attempts, Length, PolicyKind};
use scheduling::replay::{plan_reservations, replay, Mode, Options, ReplayConfig, Silent};
use structures::{AvailabilityIndex, Config, Kind};
use traces::workload::Workload;

use super::{job, load};

#[test]
fn every_attempt_is_the_oracles_answer() {
    let mut rng = StdRng::seed_from_u64(18);
    let config = Config { slot: 1, horizon: Some(400) };
    let (mut placed, mut rejected, mut retried) = (0, 0, 0);
    for case in 0..80u64 {
        let capacity = rng.random_range(1..=6);
        let mut submit = 0;
        let requests: Vec<_> = (0..25)
            .map(|id| {
                submit += rng.random_range(0..6);
                let duration = rng.random_range(1..40);
                let runtime = rng.random_range(1..=duration);
                job(id, submit, rng.random_range(1..=capacity), duration, runtime)
            })
            .collect();
        let load: Workload = load(capacity, requests);
        let length = if case % 3 == 0 { Length::Requested } else { Length::RunTime };
        let attempts = Attempts { delta: rng.random_range(1..15), rmax: rng.random_range(0..12), length };
        let ar_fraction = if case % 2 == 0 { 0.0 } else { 0.5 };
        let options = Options {
            policy: PolicyKind::Coalloc,
            mode: Mode::PlanOnly,
            attempts: Some(attempts),
            ar_fraction,
            seed: case,
            ..Options::default()
        };
        let kind = Kind::ALL[case as usize % Kind::ALL.len()];
        let run = replay(kind, &load, &ReplayConfig { config, options, verify: true }, &mut Silent).unwrap();
        // The reference: the oracle, asked at s_r, s_r + Δt, ... for l_r, the first attempt
        // and up to R_max more, as the paper says.
        let asked = plan_reservations(load.requests.iter().map(|r| r.submit), ar_fraction, case);
        let mut oracle = Oracle::new(capacity, config).unwrap();
        let mut trials = run.trials.iter();
        for (r, reservation) in load.requests.iter().zip(&asked) {
            oracle.advance(r.submit).unwrap();
            let s_r = reservation.map_or(r.submit, |res| res.start);
            let l_r = if length == Length::RunTime { r.runtime } else { r.duration };
            let limit = config.limit(oracle.now());
            let mut expected = None;
            let mut made = 0;
            for a in 0..=attempts.rmax {
                let start = s_r + a * attempts.delta;
                if start + l_r > limit {
                    break;
                }
                made = a + 1;
                if let Some(free) = oracle.check(start, start + l_r, r.n).unwrap() {
                    expected = Some((start, free.first(u64::from(r.n)).unwrap()));
                    break;
                }
            }
            let trial = trials.next().expect("a trial per request");
            let got = run.schedule.iter().find(|p| p.id == r.id);
            match expected {
                Some((start, set)) => {
                    let p = got
                        .unwrap_or_else(|| panic!("case {case}: job {} not placed, expected {start}", r.id));
                    assert_eq!((p.start, &p.set), (start, &set), "case {case} job {}", r.id);
                    assert_eq!(
                        (trial.attempts, trial.wait),
                        (made, Some(start - s_r)),
                        "case {case} job {}",
                        r.id
                    );
                    assert_eq!(p.end, start + l_r, "case {case} job {}: holds l_r", r.id);
                    let earliest = oracle.earliest(s_r, l_r, r.n).unwrap().map(|f| f.start);
                    assert!(earliest.is_some_and(|e| e <= start), "case {case} job {}", r.id);
                    oracle.allocate(start, start + l_r, &set).unwrap();
                    (placed, retried) = (placed + 1, retried + usize::from(made > 1));
                }
                None => {
                    assert!(got.is_none(), "case {case}: job {} placed, the oracle found no attempt", r.id);
                    assert_eq!((trial.attempts, trial.wait), (made, None), "case {case} job {}", r.id);
                    rejected += 1;
                }
            }
        }
    }
    println!("{placed} placed ({retried} after more than one attempt), {rejected} rejected");
    assert!(
        retried > 50 && rejected > 20,
        "too few retries ({retried}) or rejections ({rejected}) to test them"
    );
}

#[test]
fn bad_parameters_are_refused_and_the_defaults_are_the_papers() {
    let zero_step = Attempts { delta: 0, rmax: 3, length: Length::RunTime };
    assert!(zero_step.validate().unwrap_err().to_string().contains("--delta-t 0"));
    // R_max 0 leaves the first attempt.
    assert!(Attempts { delta: 900, rmax: 0, length: Length::RunTime }.validate().is_ok());
    // Q / 2 with τ = Δt: 30 days of 15-minute slots, whatever the replay's slot width.
    assert_eq!(Attempts::rmax_for(30 * 86_400, 900), 1440);
    assert_eq!(Attempts::default().rmax, 1440);
    assert_eq!(Attempts::default().length, Length::RunTime);
}
