//! The polling model of Fig 5 (design note §4, §6.6 P-1 to P-4).

use coreserve::polling::{best, cost, expected_delay, grid, simulate, success, PollingError, Trials};
use structures::Kind;

#[test]
fn p1_success_and_delay_match_the_worked_table() {
    let table = [
        (1, 0.5, 1, 0.5, 1.0),
        (1, 0.5, 2, 0.75, 1.0 / 3.0),
        (1, 0.5, 3, 0.875, 1.0 / 7.0),
        (3, 0.5, 3, 0.125, 7.0),
        (3, 0.5, 4, 0.3125, 2.2),
        (3, 0.5, 5, 0.5, 1.0),
        (3, 0.5, 6, 0.65625, 0.523_809_523_809_523_8),
        (2, 0.2, 2, 0.64, 0.5625),
        (2, 0.2, 3, 0.896, 0.104 / 0.896),
        (2, 0.2, 4, 0.9728, 0.0272 / 0.9728),
    ];
    for (n, q, p, s, delay) in table {
        assert!((success(n, p, q).unwrap() - s).abs() < 1e-9, "s({n}, {p}, {q})");
        assert!((expected_delay(n, p, q).unwrap() - delay).abs() < 1e-9, "E[T]({n}, {p}, {q})");
    }
    assert!((cost(3, 5, 0.5, 0.5).unwrap() - 3.5).abs() < 1e-9);
    assert_eq!(success(4, 1000, 0.0), Ok(1.0));
}

#[test]
fn p2_the_best_p() {
    assert_eq!(best(3, 30, 0.5, 0.5), Ok(5));
    assert_eq!(best(3, 30, 0.5, 0.1), Ok(8), "outside [n, 2n] when messages are cheap");
    assert_eq!(best(1, 30, 0.5, 0.2), Ok(2));
    let cells = grid().unwrap();
    assert_eq!(cells.len(), 540);
    let low_q = cells.iter().filter(|c| c.q <= 0.1 + 1e-9);
    assert!(low_q.clone().all(|c| c.in_band()), "slots mostly free: the paper's claim holds");
    let high_q: Vec<_> = cells.iter().filter(|c| c.q >= 0.9 - 1e-9).collect();
    assert!(high_q.iter().filter(|c| c.in_band()).count() * 2 < high_q.len(), "mostly unavailable: it fails");
}

#[test]
fn p3_the_calendars_measure_what_the_formula_predicts() {
    for (n, q, k) in [(2, 0.3, 6), (1, 0.5, 4)] {
        let t = Trials { kind: Kind::REFERENCE, trials: 2000, horizon: 256, duration: 1, seed: 5 };
        let measured = simulate(n, k, q, &t).unwrap();
        assert_eq!(measured.len(), (k - n + 1) as usize);
        for m in measured.into_iter().map(Option::unwrap) {
            let formula = expected_delay(n, m.p, q).unwrap();
            assert!(
                (m.mean - formula).abs() <= 2.0 * m.ci + 1e-9,
                "n {n} q {q} p {}: {} ± {} vs {formula}",
                m.p,
                m.mean,
                m.ci
            );
        }
    }
}

#[test]
fn every_structure_measures_the_same_delays() {
    let run =
        |kind| simulate(2, 5, 0.4, &Trials { kind, trials: 40, horizon: 64, duration: 2, seed: 9 }).unwrap();
    let reference = run(Kind::REFERENCE);
    for &kind in Kind::ALL {
        assert_eq!(run(kind), reference, "{kind}");
    }
}

#[test]
fn p4_bad_parameters_are_refused_by_name() {
    assert_eq!(best(0, 5, 0.5, 1.0), Err(PollingError::Counts { n: 0, k: 5 }));
    assert_eq!(best(6, 5, 0.5, 1.0), Err(PollingError::Counts { n: 6, k: 5 }));
    assert_eq!(best(1, 1025, 0.5, 1.0), Err(PollingError::Counts { n: 1, k: 1025 }));
    assert_eq!(best(1, 5, 1.0, 1.0), Err(PollingError::Unavailability { q: 1.0 }));
    assert_eq!(best(1, 5, 0.5, -1.0), Err(PollingError::MessageCost { c: -1.0 }));
    assert_eq!(success(3, 2, 0.5), Err(PollingError::Polled { p: 2, n: 3, k: 2 }));
    let t = Trials { kind: Kind::REFERENCE, trials: 0, horizon: 64, duration: 1, seed: 1 };
    let err = simulate(1, 2, 0.5, &t).unwrap_err();
    assert_eq!(err.to_string(), "trials 0 must be 1..=1000000");
}
