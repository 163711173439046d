//! What the comparisons of the policies that run in the replay loop share: a workload
//! whose jobs end early, and a policy's replay with a deviation planted or not.

use proptest::prelude::*;
use references::timeline::Job;
use scheduling::policy::Planted;
use scheduling::replay::{replay, replay_planted, ReplayConfig, Run, Silent};
use structures::Kind;
use traces::workload::{Request, Workload};

/// A workload of up to 6 resources and tens of jobs arriving 0 to 5 apart, most ending
/// before their requested time.
pub fn ending_early() -> impl Strategy<Value = Workload> {
    (1u32..=6).prop_flat_map(|capacity| {
        let job = (0u64..6, 1u64..30, 0u64..30, 1..=capacity);
        proptest::collection::vec(job, 5..30).prop_map(move |js| {
            let mut submit = 0;
            let requests = js
                .into_iter()
                .enumerate()
                .map(|(id, (gap, duration, less, n))| {
                    submit += gap;
                    let runtime = duration.saturating_sub(less).max(1);
                    Request { id: id as i64, submit, n, duration, runtime, recorded_wait: None }
                })
                .collect();
            Workload { capacity, requests, skipped: Default::default() }
        })
    })
}

/// `load` replayed on `kind` as `setup` says, with `planted` planted in the policy if any.
pub fn replayed(kind: Kind, load: &Workload, setup: &ReplayConfig, planted: Option<Planted>) -> Run {
    match planted {
        Some(p) => replay_planted(kind, load, setup, p),
        None => replay(kind, load, setup, &mut Silent),
    }
    .expect("a replay")
}

/// `load`'s requests as the references take them.
pub fn jobs(load: &Workload) -> Vec<Job> {
    load.requests
        .iter()
        .map(|r| Job { submit: r.submit, duration: r.duration, runtime: r.runtime, n: r.n })
        .collect()
}
