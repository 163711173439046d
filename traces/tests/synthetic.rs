//! Seeded synthetic workloads (`src/synthetic.rs`).

use traces::synthetic::{Synthetic, SyntheticError};

fn params() -> Synthetic {
    Synthetic {
        jobs: 2_000,
        capacity: 64,
        mean_gap: 300.0,
        max_size: 16,
        min_time: 60,
        max_time: 7_200,
        seed: 5,
    }
}

#[test]
fn the_same_seed_gives_the_same_workload() {
    let a = params().workload().unwrap();
    assert_eq!(a.requests, params().workload().unwrap().requests);
    let other = Synthetic { seed: 6, ..params() }.workload().unwrap();
    assert_ne!(a.requests, other.requests);
}

#[test]
fn jobs_follow_the_parameters() {
    let load = params().workload().unwrap();
    assert_eq!((load.capacity, load.requests.len()), (64, 2_000));
    assert!(load.requests.windows(2).all(|w| w[0].submit <= w[1].submit));
    assert!(load.requests.iter().all(|r| (1..=16).contains(&r.n)
        && (60..=7_200).contains(&r.duration)
        && (1..=r.duration).contains(&r.runtime)));
    // Poisson arrivals 300 s apart on average: the last arrival is near 2000 * 300.
    let last = load.requests.last().unwrap().submit as f64;
    assert!((0.9 * 600_000.0..1.1 * 600_000.0).contains(&last), "{last}");
}

#[test]
fn bad_parameters_are_named() {
    let wide = Synthetic { max_size: 65, ..params() };
    assert_eq!(wide.workload().unwrap_err().to_string(), "sizes 1-65 do not fit a machine of 64");
    let empty = Synthetic { min_time: 0, ..params() };
    assert!(empty.workload().unwrap_err().to_string().contains("times 0-7200"));
    let gap = Synthetic { mean_gap: f64::NAN, ..params() };
    assert!(gap.workload().unwrap_err().to_string().contains("mean gap"));
    assert_eq!(empty.workload().unwrap_err(), SyntheticError::Times { min_time: 0, max_time: 7_200 });
    assert_eq!(empty.workload().unwrap_err().to_string(), "times 0-7200 s are not a range of positive times");
    let late = Synthetic { jobs: 2, mean_gap: 1e30, ..params() };
    assert_eq!(late.workload().unwrap_err(), SyntheticError::PastLatest { job: 1 });
    assert_eq!(
        late.workload().unwrap_err().to_string(),
        format!(
            "job 1 would end past {} s (the time limit); choose a smaller --mean-gap or --max-time",
            1u64 << 60
        )
    );
}
