//! The load generator's pure parts (`src/load.rs`; a run itself spawns `resbench` and
//! is the root crate's to test): settings are checked against their limits by name,
//! reservations are drawn as the design note's §7 says, client ids stay clear of the
//! managers', and a results file reads back as written.

use std::collections::BTreeSet;
use std::path::PathBuf;

use coreserve::limits::{MAX_LOAD_CLIENTS, MAX_MANAGERS};
use coreserve_service::load::{
    check, client_base, draw, read, save, LoadFile, LoadOptions, LoadRun, AHEAD, DURATION_SLOTS, LOAD_FILE,
    NODES, SLACK_SLOTS,
};
use coreserve_service::{now_ms, Error, SLOT};
use rand::rngs::StdRng;
use rand::SeedableRng;
use structures::Kind;

fn options() -> LoadOptions {
    LoadOptions {
        exe: PathBuf::from("resbench"),
        dir: PathBuf::from("unused"),
        managers: 2,
        clients: 1,
        seconds: 1,
        hot: 1,
        capacity: 2,
        kind: Kind::REFERENCE,
        seed: 0,
    }
}

#[test]
fn each_setting_is_checked_against_its_range_by_name() {
    check(&options()).expect("every low end");
    let high = LoadOptions { managers: 64, clients: 256, seconds: 600, hot: 32, capacity: 1024, ..options() };
    check(&high).expect("every high end");
    let bad = [
        (LoadOptions { managers: 1, ..options() }, "managers must be in 2..=64"),
        (LoadOptions { managers: 65, ..options() }, "managers must be in 2..=64"),
        (LoadOptions { clients: 0, ..options() }, "clients must be in 1..=256"),
        (LoadOptions { clients: 257, ..options() }, "clients must be in 1..=256"),
        (LoadOptions { seconds: 0, ..options() }, "seconds must be in 1..=600"),
        (LoadOptions { seconds: 601, ..options() }, "seconds must be in 1..=600"),
        (LoadOptions { hot: 0, ..options() }, "hot must be in 1..=32"),
        (LoadOptions { hot: 33, ..options() }, "hot must be in 1..=32"),
        (LoadOptions { capacity: 1, ..options() }, "capacity must be in 2..=1024"),
        (LoadOptions { capacity: 1025, ..options() }, "capacity must be in 2..=1024"),
        // Two out of range: the first is named.
        (LoadOptions { clients: 0, capacity: 0, ..options() }, "clients must be in 1..=256"),
    ];
    for (o, message) in bad {
        assert_eq!(check(&o).map_err(|e| e.to_string()), Err(message.to_owned()));
    }
}

#[test]
fn a_drawn_reservation_asks_nodes_at_distinct_managers_on_a_hot_start() {
    let managers: Vec<(u32, String)> = (0..5).map(|i| (i, format!("127.0.0.1:{}", 9000 + i))).collect();
    let mut rng = StdRng::seed_from_u64(1);
    let mut starts = BTreeSet::new();
    for _ in 0..50 {
        let before = now_ms() / SLOT * SLOT + AHEAD;
        let res = draw(&mut rng, &managers, 2, 3);
        let after = now_ms() / SLOT * SLOT + AHEAD;
        let at: BTreeSet<u32> = res.parts.iter().map(|p| p.0).collect();
        assert_eq!(at.len(), 2, "{:?}", res.parts);
        assert!(at.iter().all(|m| *m < 5) && res.parts.iter().all(|p| p.1 == NODES));
        assert_eq!(res.duration, DURATION_SLOTS * SLOT);
        assert_eq!(res.latest_start, res.earliest + SLACK_SLOTS * SLOT);
        // One of the 3 hot starts, a window apart, from the base.
        let hot = (0..3).map(|k| k * DURATION_SLOTS * SLOT);
        let offsets: Vec<u64> = hot.filter(|k| (before + k..=after + k).contains(&res.earliest)).collect();
        assert!(!offsets.is_empty(), "{} is on no hot start", res.earliest);
        starts.insert(res.earliest - before);
    }
    assert!(starts.len() > 1, "always the same start: {starts:?}");
    // Asking for more parts than managers asks every manager.
    let all = draw(&mut rng, &managers[..2], 5, 1);
    assert_eq!(all.parts.iter().map(|p| p.0).collect::<BTreeSet<_>>(), BTreeSet::from([0, 1]));
}

#[test]
fn client_ids_are_above_every_manager_and_leave_room_for_every_client() {
    let firsts: BTreeSet<u32> = (0..1000).map(client_base).collect();
    for first in &firsts {
        assert!(*first > MAX_MANAGERS, "{first}");
        assert!(u64::from(*first) + u64::from(MAX_LOAD_CLIENTS) < u64::from(u32::MAX), "{first}");
    }
    assert!(firsts.len() > 990, "the salt changes the ids");
}

#[test]
fn a_results_file_reads_back_as_written_and_a_bad_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let run = LoadRun {
        managers: 2,
        clients: 3,
        seconds: 4,
        wall_s: 4.5,
        hot: 8,
        capacity: 32,
        structure: Kind::REFERENCE.name().to_owned(),
        rho: 0.25,
        reservations: 10,
        committed: 9,
        failed: [("timeout".to_owned(), 1)].into(),
        attempts: 11,
        aborted: 2,
        messages: 300,
        commits_per_s: 2.0,
        messages_per_commit: 33.3,
        abort_rate: 0.18,
        p50_ms: 120,
        p99_ms: 400,
        max_ms: 410,
        violations: 0,
        build: "debug".to_owned(),
    };
    let file = LoadFile { command: "resbench coreserve load".to_owned(), runs: vec![run] };
    let out = dir.path().join("report");
    assert_eq!(save(&out, &file).unwrap(), out.join(LOAD_FILE));
    assert_eq!(read(&out).unwrap(), file);
    let missing = dir.path().join("none");
    let err = read(&missing).unwrap_err();
    assert!(matches!(err, Error::Read { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!("cannot read {}: ", missing.join(LOAD_FILE).display())),
        "{err}"
    );
    std::fs::write(out.join(LOAD_FILE), "[]").unwrap();
    let err = read(&out).unwrap_err();
    assert!(matches!(err, Error::NotLoadFile { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!("{}: not a load file: ", out.join(LOAD_FILE).display())),
        "{err}"
    );
}
