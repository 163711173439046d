//! Tests of `src/policy/`, one module per source file, in one test binary: the registry
//! and every policy deciding alike on every structure (random workloads and a prefix of
//! the bundled trace) here.

mod coalloc;
mod conservative;
mod eds;
mod queue;

#[path = "../support/fixtures.rs"]
mod fixtures;

use std::collections::BTreeSet;
use strum::VariantArray;

use fixtures::{job, load};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use scheduling::policy::PolicyKind;
use scheduling::replay::metrics::ScheduleMetrics;
use scheduling::replay::{horizon_for, replay, Mode, Options, ReplayConfig, Run, Silent};
use structures::{Config, Kind};
use traces::workload::Workload;

/// Replays `load` under `options` on `kind` beside the oracle, with the horizon the
/// workload needs (as `resbench replay` computes it), so that every structure can take it.
fn run_with(kind: Kind, load: &Workload, options: Options) -> Run {
    let horizon = horizon_for(load, 1, &options).unwrap();
    let setup = ReplayConfig { config: Config { slot: 1, horizon: Some(horizon) }, options, verify: true };
    replay(kind, load, &setup, &mut Silent).unwrap()
}

fn run(kind: Kind, load: &Workload, policy: PolicyKind, mode: Mode) -> Run {
    run_with(kind, load, Options { policy, mode, ..Options::default() })
}

/// `(id, start)` of every placed job.
fn starts(run: &Run) -> Vec<(i64, u64)> {
    run.schedule.iter().map(|p| (p.id, p.start)).collect()
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
fn every_policy_is_registered_once_with_its_source() {
    let names: BTreeSet<&str> = PolicyKind::VARIANTS.iter().map(|p| p.name()).collect();
    assert_eq!(names.len(), PolicyKind::VARIANTS.len());
    for &policy in PolicyKind::VARIANTS {
        assert_eq!(policy.name().parse::<PolicyKind>(), Ok(policy));
        let spec = policy.spec();
        assert!(!spec.description.is_empty() && spec.source.section.is_some(), "{policy}");
    }
    let e = "nope".parse::<PolicyKind>().unwrap_err().to_string();
    assert!(e.contains("unknown policy \"nope\"") && e.contains("conservative"), "{e}");
    assert_eq!(PolicyKind::default(), PolicyKind::VARIANTS[0]);
}

#[test]
fn every_policy_decides_alike_on_every_structure() {
    let mut rng = StdRng::seed_from_u64(21);
    let loads: Vec<Workload> = (0..10).map(|_| random_load(&mut rng, 30)).collect();
    for &policy in PolicyKind::VARIANTS {
        for mode in [Mode::Simulate, Mode::PlanOnly] {
            for load in &loads {
                let digests: BTreeSet<String> = Kind::ALL
                    .iter()
                    .copied()
                    .map(|kind| ScheduleMetrics::new(&run(kind, load, policy, mode), load, mode).digest)
                    .collect();
                assert_eq!(digests.len(), 1, "{policy} {mode:?}: {load:?}");
            }
        }
    }
}

#[test]
fn every_policy_decides_alike_on_every_structure_on_the_bundled_trace() {
    let trace = traces::swf::read_bytes(traces::BUNDLED_TRACE, traces::BUNDLED_NAME, false).unwrap();
    let load = traces::workload::workload(&trace, 100, Some(2000));
    for &policy in PolicyKind::VARIANTS {
        let options = Options { policy, ..Options::default() };
        let config = Config { slot: 300, horizon: Some(horizon_for(&load, 300, &options).unwrap()) };
        let setup = ReplayConfig { config, options, verify: false };
        let digests: BTreeSet<String> = Kind::ALL
            .iter()
            .map(|&kind| {
                let run = replay(kind, &load, &setup, &mut Silent).unwrap();
                ScheduleMetrics::new(&run, &load, options.mode).digest
            })
            .collect();
        assert_eq!(digests.len(), 1, "{policy}: {digests:?}");
    }
}
