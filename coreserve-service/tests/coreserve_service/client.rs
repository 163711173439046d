//! Clients in process (`src/client.rs`): a reservation over two in-process managers
//! commits and both lock it; managers are discovered by their status, and a bad list of
//! them is refused by name; a dead manager's address is a clear error within the
//! timeout, for status and for a reservation; a busy or unknown client takes no work.

use std::time::{Duration, Instant};

use coreserve::client::{ClientConfig, Failure, Outcome, Reservation};
use coreserve_service::client::{self, discover, wait_until, Pool};
use coreserve_service::load::{AHEAD, DURATION_SLOTS, SLACK_SLOTS};
use coreserve_service::{now_ms, Error, CLIENT, SLOT};

use super::{dead_addr, manager, managers, KEY};

/// Two resources at each of managers 0 and 1, starting from about a second ahead.
fn reservation(managers: [u32; 2]) -> Reservation {
    let earliest = (now_ms() + AHEAD) / SLOT * SLOT;
    Reservation {
        parts: vec![(managers[0], 2), (managers[1], 2)],
        duration: DURATION_SLOTS * SLOT,
        earliest,
        latest_start: earliest + SLACK_SLOTS * SLOT,
    }
}

#[test]
fn a_reservation_over_two_in_process_managers_commits_and_both_lock_it() {
    let dir = tempfile::tempdir().unwrap();
    let [m0, m1] = <[_; 2]>::try_from(managers(&[0, 1], dir.path())).expect("two");
    let addrs = [m0.addr.to_string(), m1.addr.to_string()];
    let managers = discover(&addrs).expect("both answer");
    assert_eq!(managers, vec![(0, addrs[0].clone()), (1, addrs[1].clone())]);
    let pool = Pool::start(&managers, &KEY, 100, 1, CLIENT).expect("the client starts");
    let res = reservation([0, 1]);
    let done = pool.reserve(0, res.clone(), Duration::from_secs(10)).expect("an outcome within 10 s");
    let Outcome::Committed { txn: Some(txn), start } = done.outcome else { panic!("{:?}", done.outcome) };
    assert!((res.earliest..=res.latest_start).contains(&start), "{start} outside the range");
    assert_eq!(txn.client, 100);
    // Both managers lock the client's two resources over the window (the second may
    // hear the commit after the client does).
    let locked = |a: &str| {
        client::state(a).is_ok_and(|s| {
            s.locks.len() == 1
                && s.locks[0].txn == Some(txn)
                && s.locks[0].ids.count() == 2
                && (s.locks[0].start, s.locks[0].end) == (start, start + res.duration)
                && s.prepared.is_empty()
        })
    };
    assert!(wait_until(Duration::from_secs(5), || addrs.iter().all(|a| locked(a))), "not locked at both");
    let decided = addrs.iter().filter(|a| client::status(a).unwrap().decisions == 1).count();
    assert_eq!(decided, 1, "one coordinator decided");
    let seen = pool.seen(|s| (s.attempts.len(), s.aborted.len(), s.violations.clone())).unwrap();
    assert_eq!(seen, (1, 0, Vec::new()));
}

#[test]
fn discover_refuses_no_managers_too_many_and_two_with_one_id() {
    assert_eq!(discover(&[]).unwrap_err().to_string(), "name 1 to 64 managers, not 0");
    let many: Vec<String> = (0..65).map(|_| "127.0.0.1:1".to_owned()).collect();
    assert!(matches!(discover(&many), Err(Error::ManagerCount(65))));
    let dir = tempfile::tempdir().unwrap();
    let m = manager(4, dir.path());
    let addr = m.addr.to_string();
    assert_eq!(discover(&[addr.clone(), addr]).unwrap_err().to_string(), "two managers have id 4");
}

#[test]
fn a_dead_managers_address_is_a_clear_error_within_the_timeout() {
    let dead = dead_addr();
    let began = Instant::now();
    let e = client::status(&dead).unwrap_err();
    assert!(matches!(e, Error::Get { ref addr, path: "/v1/status", .. } if *addr == dead), "{e:?}");
    assert!(e.to_string().starts_with(&format!("GET {dead}/v1/status: ")), "{e}");
    assert!(matches!(client::state(&dead), Err(Error::Get { path: "/v1/state", .. })));
    let dir = tempfile::tempdir().unwrap();
    let m = manager(0, dir.path());
    assert!(
        matches!(discover(&[m.addr.to_string(), dead.clone()]), Err(Error::Get { ref addr, .. }) if *addr == dead)
    );
    assert!(began.elapsed() < Duration::from_secs(3), "took {:?}", began.elapsed());
    // A reservation naming the dead manager gives up when its client's time is up.
    let cfg = ClientConfig { give_up: 400, ..CLIENT };
    let pool = Pool::start(&[(0, m.addr.to_string()), (1, dead)], &KEY, 100, 1, cfg).unwrap();
    let began = Instant::now();
    let done = pool.reserve(0, reservation([0, 1]), Duration::from_secs(3)).expect("an outcome within 3 s");
    assert_eq!(done.outcome, Outcome::Failed(Failure::Timeout));
    assert!((400..3000).contains(&done.latency_ms), "{} ms", done.latency_ms);
    assert!(began.elapsed() < Duration::from_secs(3));
}

#[test]
fn an_unknown_or_busy_client_takes_no_work_and_a_free_one_does_again() {
    let dead = dead_addr();
    let cfg = ClientConfig { give_up: 300, ..CLIENT };
    let pool = Pool::start(&[(0, dead.clone()), (1, dead)], &KEY, 100, 1, cfg).unwrap();
    assert_eq!(pool.reserve(1, reservation([0, 1]), Duration::from_secs(1)), None, "client 1 of 1");
    // Waiting 50 ms is too short: no outcome, and the client is still busy.
    assert_eq!(pool.reserve(0, reservation([0, 1]), Duration::from_millis(50)), None);
    let began = Instant::now();
    assert_eq!(pool.reserve(0, reservation([0, 1]), Duration::from_secs(1)), None, "busy");
    assert!(began.elapsed() < Duration::from_millis(500), "refused at once, not timed out");
    // Once it has given up (after 300 ms), it takes the next reservation.
    let mut done = None;
    assert!(wait_until(Duration::from_secs(3), || {
        done = pool.reserve(0, reservation([0, 1]), Duration::from_secs(3));
        done.is_some()
    }));
    assert_eq!(done.map(|d| d.outcome), Some(Outcome::Failed(Failure::Timeout)));
}

#[test]
fn wait_until_is_true_at_once_or_false_after_its_timeout() {
    let began = Instant::now();
    assert!(wait_until(Duration::from_secs(5), || true));
    assert!(began.elapsed() < Duration::from_millis(100));
    let began = Instant::now();
    let mut calls = 0;
    assert!(!wait_until(Duration::from_millis(100), || {
        calls += 1;
        false
    }));
    assert!((Duration::from_millis(100)..Duration::from_secs(1)).contains(&began.elapsed()));
    assert!(calls >= 2, "asked {calls} times");
}
