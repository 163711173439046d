//! `src/rspb/generate.rs`: the thesis's workloads at their defaults, seeded, one random
//! stream per quantity, and their parameters checked.

use scheduling::rspb::generate::{Count, Params};

#[test]
fn chapter_4_draws_about_10505_requests_of_one_floating_sub_request() {
    let w = Params::chapter4().workload(1).unwrap();
    let n = w.requests.len() as f64;
    // Poisson with mean 10,505: within 4 standard deviations.
    assert!((n - 10_505.0).abs() < 4.0 * 10_505.0_f64.sqrt(), "{n}");
    assert_eq!(w.dedication, [70; 10]);
    assert!(w.requests.iter().all(|r| r.subs.len() == 1 && r.floating()));
    assert!(w
        .requests
        .iter()
        .all(|r| (20..=70).contains(&r.subs[0].cpu_max) && (20..=300).contains(&r.duration)));
    assert!(w
        .requests
        .iter()
        .all(|r| r.start >= r.arrival && r.start - r.arrival <= 4_320 && r.arrival < 100_000));
    assert_eq!(w, Params::chapter4().workload(1).unwrap());
    assert_ne!(w, Params::chapter4().workload(2).unwrap());
}

#[test]
fn chapter_5_draws_300_requests_of_1_to_6_sub_requests_mostly_floating() {
    let w = Params::chapter5().workload(3).unwrap();
    assert_eq!(w.requests.len(), 300);
    assert!(w.dedication.iter().all(|d| (50..=100).contains(d)));
    assert!(w.requests.iter().all(|r| (1..=6).contains(&r.subs.len()) && (20..=180).contains(&r.duration)));
    assert!(w.requests.iter().flat_map(|r| &r.subs).all(|s| (10..=90).contains(&s.cpu_max)));
    let floating = w.requests.iter().filter(|r| r.floating()).count();
    assert!((210..=270).contains(&floating), "{floating} of 300 floating");
}

#[test]
fn sweeping_one_parameter_changes_nothing_else() {
    let base = Params::chapter5();
    let wider = Params { priority_max: 10, ..base.clone() };
    let (a, b) = (base.workload(5).unwrap(), wider.workload(5).unwrap());
    for (x, y) in a.requests.iter().zip(&b.requests) {
        assert_eq!((x.arrival, x.start, x.duration, &x.subs), (y.arrival, y.start, y.duration, &y.subs));
        assert!(y.priority <= 10);
    }
}

#[test]
fn bad_parameters_are_named() {
    let c4 = Params::chapter4;
    let cases = [
        (
            Params { cpu: (20, 80), ..c4() },
            "cpu: up to 80 % is above every machine's dedication (at most 70 %)",
        ),
        (Params { subs: (0, 3), ..c4() }, "sub-requests: 0-3"),
        (Params { interval: 0, ..c4() }, "interval: 0"),
        (Params { priority_max: 0, ..c4() }, "priority: a highest priority of 0"),
        (
            Params { soft_floor: 1.5, ..c4() },
            "soft floor: 1.5: the benefit minimum must be above 0 and not above the request",
        ),
        (Params { fixed: 1.2, ..c4() }, "fixed: 1.2"),
        (Params { machines: 0, ..c4() }, "machines: 0"),
        (Params { spread: 1 << 21, ..c4() }, "beyond the horizon"),
        (Params { count: Count::Within(u64::MAX / 2), ..c4() }, "requests: about"),
        (Params { mean_gap: f64::NAN, ..c4() }, "mean gap: NaN"),
    ];
    for (p, expected) in cases {
        let err = p.workload(1).unwrap_err().to_string();
        assert!(err.contains(expected), "{err:?} does not say {expected:?}");
    }
}
