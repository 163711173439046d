//! The simulated world (`src/sim/world.rs`, through `sim::run`): only the faults a
//! configuration allows are injected (swarm testing picks among them per seed), sizes
//! are drawn within their ranges, virtual time never goes back, and tracing a run does
//! not change it. (The same seed giving the same run is `sim.rs`'s.)

use coreserve::sim::{run, Fault, Faults, Report, SimConfig};
use structures::Kind;

/// Small runs: 2 or 3 managers, 2 to 6 clients, every fault kind given is on.
fn small(faults: &str, steps: u64) -> SimConfig {
    SimConfig {
        steps,
        faults: faults.parse().unwrap(),
        swarm: false,
        managers: (2, 3),
        clients: (2, 6),
        trace: true,
        ..SimConfig::default()
    }
}

/// A trace line's step, virtual time and event: `"12 t=340 Crash(1)"`.
fn parse(line: &str) -> (u64, u64, &str) {
    let (step, rest) = line.split_once(" t=").unwrap();
    let (t, event) = rest.split_once(' ').unwrap();
    (step.parse().unwrap(), t.parse().unwrap(), event)
}

/// Checks that run `r` of `seed` broke no invariant and crashed no node: the only
/// (re)starts are the managers' first ones.
fn no_crash(r: &Report, seed: u64) {
    assert_eq!(r.violation, None, "seed {seed}");
    assert_eq!(count(r, "Crash("), 0, "seed {seed}");
    assert_eq!(count(r, "Restart("), u64::from(r.managers), "seed {seed}");
}

/// How many trace events start with `prefix`.
fn count(r: &Report, prefix: &str) -> u64 {
    r.trace.iter().filter(|l| parse(l).2.starts_with(prefix)).count() as u64
}

#[test]
fn without_faults_every_message_arrives_once_and_no_node_crashes_or_vanishes() {
    let config = small("none", 300);
    for seed in 0..4 {
        let r = run(seed, &config);
        no_crash(&r, seed);
        assert_eq!(r.faults, Faults::NONE);
        assert_eq!(count(&r, "Deliver("), r.messages, "seed {seed}: deliveries");
        assert_eq!((r.vanished, r.stuck), (0, 0), "seed {seed}");
    }
}

#[test]
fn loss_alone_only_loses_messages_and_duplication_alone_only_adds_copies() {
    let (mut lost, mut copied) = (false, false);
    for seed in 0..6 {
        let r = run(seed, &small("loss", 300));
        let delivered = count(&r, "Deliver(");
        assert!(delivered <= r.messages, "seed {seed}: {delivered} of {}", r.messages);
        lost |= delivered < r.messages;
        assert_eq!((count(&r, "Crash("), count(&r, "Restart("), r.vanished), (0, u64::from(r.managers), 0));
        let r = run(seed, &small("duplicate", 300));
        let delivered = count(&r, "Deliver(");
        assert!(delivered >= r.messages, "seed {seed}: {delivered} of {}", r.messages);
        copied |= delivered > r.messages;
        assert_eq!((count(&r, "Crash("), count(&r, "Restart("), r.vanished), (0, u64::from(r.managers), 0));
    }
    assert!(lost, "no seed lost a message");
    assert!(copied, "no seed duplicated a message");
}

#[test]
fn only_the_crash_faults_crash_nodes_and_a_crashed_node_restarts() {
    // Every fault but the three that crash nodes: nothing crashes.
    let quiet = small("loss,duplicate,reorder,delay,client-vanish", 1000);
    for seed in 0..4 {
        no_crash(&run(seed, &quiet), seed);
    }
    // Manager crashes alone: some seed crashes a node, and each crash is followed by a
    // restart of that node.
    let mut crashed = 0;
    for seed in 0..8 {
        let r = run(seed, &small("crash-manager", 1000));
        assert_eq!(r.violation, None, "seed {seed}");
        assert_eq!(r.vanished, 0);
        let events: Vec<&str> = r.trace.iter().map(|l| parse(l).2).collect();
        for (i, e) in events.iter().enumerate() {
            if let Some(m) = e.strip_prefix("Crash(") {
                crashed += 1;
                let restart = format!("Restart({m}");
                assert!(events[i..].iter().any(|later| *later == restart), "seed {seed}: {e} never restarts");
            }
        }
    }
    assert!(crashed > 0, "no seed crashed a manager");
}

#[test]
fn clients_vanish_only_when_allowed() {
    let vanished: u64 = (0..10).map(|seed| run(seed, &small("client-vanish", 1000)).vanished).sum();
    assert!(vanished > 0);
    let none: u64 = (0..10).map(|seed| run(seed, &small("loss,crash-manager", 1000)).vanished).sum();
    assert_eq!(none, 0);
}

#[test]
fn swarm_testing_switches_on_only_allowed_kinds_and_every_tenth_seed_all_of_them() {
    let allowed: Faults = "loss,crash-manager,torn-step".parse().unwrap();
    let config = SimConfig { swarm: true, managers: (2, 2), clients: (2, 2), ..small("none", 20) };
    let config = SimConfig { faults: allowed, ..config };
    let mut fewer = false;
    for seed in 0..21 {
        let r = run(seed, &config);
        assert!(r.faults.kinds().all(|f| allowed.has(f)), "seed {seed}: {}", r.faults);
        if seed % 10 == 0 {
            assert_eq!(r.faults, allowed, "seed {seed}");
        }
        fewer |= r.faults != allowed;
    }
    assert!(fewer, "no seed switched a kind off");
    // Without swarm testing every allowed kind is on.
    let all = SimConfig { swarm: false, ..config };
    assert!((0..5).all(|seed| run(seed, &all).faults == allowed));
    assert!(!Faults::NONE.has(Fault::Loss));
}

#[test]
fn sizes_and_structures_are_drawn_within_the_configuration() {
    let config =
        SimConfig { managers: (3, 5), clients: (4, 9), structure: Some(Kind::ALL[1]), ..small("none", 50) };
    let (mut managers, mut clients) = (Vec::new(), Vec::new());
    for seed in 0..12 {
        let r = run(seed, &config);
        assert!((3..=5).contains(&r.managers) && (4..=9).contains(&r.clients), "seed {seed}: {}", r.params);
        managers.push(r.managers);
        clients.push(r.clients);
        let capacity: u32 =
            r.params.split("capacity ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
        assert!((4..=16).contains(&capacity), "{}", r.params);
        assert!(r.params.starts_with(&format!("managers {}, clients {}, ", r.managers, r.clients)));
        assert!(r.params.ends_with(&format!("structures {}", Kind::ALL[1].name())), "{}", r.params);
    }
    managers.dedup();
    clients.dedup();
    assert!(managers.len() > 1 && clients.len() > 1, "the sizes never vary: {managers:?} {clients:?}");
}

#[test]
fn time_never_goes_back_and_every_client_starts_in_the_first_half_second() {
    let r = run(7, &small("all", 600));
    let mut last = (0, 0);
    for line in &r.trace {
        let (step, t, _) = parse(line);
        assert_eq!(step, last.0 + 1, "{line}");
        assert!(t >= last.1, "{line} after t={}", last.1);
        last = (step, t);
    }
    assert_eq!(last.0, r.steps);
    let first = |node: u32| r.trace.iter().map(|l| parse(l)).find(|(_, _, e)| *e == format!("Start({node})"));
    for c in r.managers..r.managers + r.clients {
        let (_, t, _) = first(c).unwrap_or_else(|| panic!("client {c} never starts"));
        assert!(t < 500, "client {c} first starts at {t}");
    }
}

#[test]
fn tracing_a_run_does_not_change_it() {
    for seed in [2, 5] {
        let traced = run(seed, &small("all", 600));
        let plain = run(seed, &SimConfig { trace: false, ..small("all", 600) });
        assert!(plain.trace.is_empty());
        assert_eq!(Report { trace: Vec::new(), ..traced }, plain, "seed {seed}");
    }
}
