//! The simulator (design note §6.6): many seeds with every fault and no violation, the
//! same seed giving the same run, and every planted bug caught and shrunk. Its checker
//! and its world have modules of their own.

mod check;
mod rules;
mod world;

use coreserve::sim::{run, shrink, Faults, SimConfig};
use coreserve::Plant;

#[test]
fn many_seeds_with_every_fault_break_no_invariant() {
    let config = SimConfig { steps: 1000, ..SimConfig::default() };
    let (mut steps, mut committed) = (0, 0);
    for seed in 0..300 {
        let report = run(seed, &config);
        assert_eq!(report.violation, None, "seed {seed}: {}", report.params);
        steps += report.steps;
        committed += report.committed;
    }
    assert!(steps > 300 * 1000, "{steps} steps");
    assert!(committed > 1500, "{committed} reservations committed");
}

#[test]
fn without_faults_every_client_finishes_and_few_commits_abort() {
    let config = SimConfig { steps: 1000, faults: Faults::NONE, ..SimConfig::default() };
    for seed in 0..20 {
        let report = run(seed, &config);
        assert_eq!(report.violation, None, "seed {seed}");
        assert_eq!(report.stuck, 0, "seed {seed}");
        assert!(report.committed > 0, "seed {seed}: nothing committed");
        assert!(
            report.aborts * 10 <= report.commits.max(10),
            "seed {seed}: {} aborts of {}",
            report.aborts,
            report.commits
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let config = SimConfig { steps: 600, trace: true, ..SimConfig::default() };
    for seed in [3, 10] {
        let (a, b) = (run(seed, &config), run(seed, &config));
        assert_eq!(a.digest, b.digest);
        assert_eq!(a.trace, b.trace);
        assert_eq!(a, b);
    }
    assert_ne!(run(3, &config).digest, run(4, &config).digest);
}

/// The first seed in `0..200` on which `plant` breaks one of `invariants`; the same
/// seed without the plant breaks nothing.
fn caught(plant: Plant, invariants: &[&str]) {
    let planted = SimConfig { steps: 1000, plant: Some(plant), ..SimConfig::default() };
    let found = (0..200).find_map(|seed| {
        let report = run(seed, &planted);
        report.violation.clone().map(|v| (seed, report, v))
    });
    let Some((seed, report, (_, v))) = found else { panic!("{plant}: no seed of 200 caught it") };
    assert!(invariants.contains(&v.invariant), "{plant}: seed {seed} broke {} ({})", v.invariant, v.detail);
    let clean = run(seed, &SimConfig { plant: None, ..planted.clone() });
    assert_eq!(clean.violation, None, "{plant}: seed {seed} fails unplanted too");
    let shrunk = shrink(seed, &planted, &report);
    let (_, again) = shrunk.report.violation.clone().expect("the shrunk run still fails");
    assert_eq!(again.invariant, v.invariant);
    assert!(shrunk.report.steps <= report.steps, "{plant}: shrinking made it longer");
    assert!(!shrunk.report.trace.is_empty());
    let repeat = run(seed, &SimConfig { trace: true, ..shrunk.config.clone() });
    assert_eq!(repeat.violation, shrunk.report.violation, "{plant}: the shrunk run reproduces");
}

#[test]
fn planted_commit_without_all_prepares_is_caught() {
    caught(Plant::CommitWithoutAllPrepares, &["I2", "I10"]);
}

#[test]
fn planted_forgotten_decision_is_caught() {
    caught(Plant::ForgetDecision, &["I4", "I9"]);
}

#[test]
fn planted_volatile_lock_is_caught() {
    caught(Plant::VolatileLock, &["I7", "I2"]);
}

#[test]
fn planted_hold_without_a_lease_is_caught() {
    caught(Plant::HoldWithoutLease, &["lease"]);
}

#[test]
fn planted_pending_for_an_unknown_transaction_is_caught() {
    caught(Plant::PendingForUnknown, &["pending", "drain", "I2q"]);
}

#[test]
fn planted_refusal_that_drops_a_claim_is_caught() {
    caught(Plant::RefusalDropsClaim, &["refused"]);
}

#[test]
fn planted_recall_of_any_priority_is_caught() {
    caught(Plant::RecallAnyPriority, &["recall"]);
}

#[test]
fn planted_grant_out_of_queue_order_is_caught() {
    caught(Plant::GrantOutOfOrder, &["queue"]);
}

#[test]
fn planted_lock_of_a_lapsed_hold_is_caught() {
    // The lapsed holds it leaves are seen as such (I5) before most stale locks.
    caught(Plant::LockLapsedHold, &["stale", "I5"]);
}

#[test]
fn planted_dead_starts_counting_hidden_ids_are_caught() {
    caught(Plant::DeadCountsHidden, &["hiding"]);
}

#[test]
fn planted_failure_while_holding_a_lock_is_caught() {
    caught(Plant::FailHoldingLock, &["all-or-nothing"]);
}

#[test]
fn sizes_out_of_their_limits_are_refused() {
    let bad = [
        SimConfig { managers: (0, 3), ..SimConfig::default() },
        SimConfig { managers: (5, 3), ..SimConfig::default() },
        SimConfig { clients: (1, 10_001), ..SimConfig::default() },
        SimConfig { steps: 0, ..SimConfig::default() },
    ];
    for config in bad {
        assert!(config.check().is_err(), "{config:?}");
    }
    assert!("loss,bogus".parse::<Faults>().unwrap_err().to_string().contains("unknown fault \"bogus\""));
    assert_eq!("loss,torn-step".parse::<Faults>().unwrap().to_string(), "loss,torn-step");
}
