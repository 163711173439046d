//! The runtime (`src/runtime.rs`): a host listens on 127.0.0.1 at a free port and runs
//! its start outputs; a `make` that fails is an error; two hosts talk over HTTP at their
//! members' configured addresses; a stop flag, a drop or a store failure stops the host and
//! frees its port, and `wait` says which (the store's error, or none).

use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use coreserve::durable::{Input, Output, StoreError, TimerId};
use coreserve::proto::{Envelope, Msg, NodeId};
use coreserve_service::client::wait_until;
use coreserve_service::members::Members;
use coreserve_service::runtime::{self, Running};
use coreserve_service::wire::Post;

use super::{env, nothing, post, probe, probe_on, signed, silent, Probe, Script, KEY};

/// Whether something accepts connections at `addr` within 300 ms.
fn listening(addr: SocketAddr) -> bool {
    TcpStream::connect_timeout(&addr, Duration::from_millis(300)).is_ok()
}

/// `wait` on another thread, at most 5 s.
fn wait_bounded(r: Running<Probe>) -> Option<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(r.wait());
    });
    rx.recv_timeout(Duration::from_secs(5)).expect("wait returns within 5 s")
}

/// Fails its store on a release numbered 666.
fn fails_on_666() -> Script {
    Box::new(|_: NodeId, input: &Input| match input {
        Input::Msg(Envelope { msg: Msg::Release { req: 666, .. }, .. }) => {
            Err(StoreError("disk full".to_owned()))
        }
        _ => Ok(Vec::new()),
    })
}

fn post_666(addr: SocketAddr) -> u16 {
    let p = Post { reply_to: "127.0.0.1:9".to_owned(), env: env(9, 1, nothing(666)) };
    let (body, auth) = signed(&p, &|_| false);
    post(&addr.to_string(), &body, Some(&auth)).0
}

#[test]
fn a_host_listens_on_loopback_at_a_free_port_and_runs_its_start_outputs() {
    let start = vec![Output::SetTimer { id: TimerId::Retry(1), at: 0 }, Output::Send(env(1, 2, nothing(0)))];
    let r = runtime::start(
        move || {
            let p = Probe { nodes: vec![1, 2], server: true, script: silent(), log: Vec::new() };
            Ok((p, vec![(1, start)]))
        },
        0,
        (Members::default(), KEY),
    )
    .unwrap();
    assert_eq!(r.addr.ip().to_string(), "127.0.0.1");
    assert_ne!(r.addr.port(), 0);
    assert!(listening(r.addr));
    // The start's message reached node 2 in process, and its timer fired on node 1.
    let log = || r.call(|h| h.machine.log.clone()).unwrap();
    assert!(wait_until(Duration::from_secs(2), || log().len() == 2), "{:?}", log());
    assert_eq!(log(), vec![(2, Input::Msg(env(1, 2, nothing(0)))), (1, Input::Timer(TimerId::Retry(1)))]);
}

#[test]
fn a_make_that_fails_is_an_error_naming_why() {
    let got = runtime::start::<Probe>(|| Err(StoreError("no disk".to_owned())), 0, (Members::default(), KEY));
    assert_eq!(got.map(|_| ()).map_err(|e| e.to_string()), Err("no disk".to_owned()));
}

#[test]
fn two_hosts_talk_over_http() {
    // Node 2 answers whoever wrote; node 1 writes to node 2 when poked.
    let answer = || -> Script {
        Box::new(|node: NodeId, input: &Input| {
            Ok(match input {
                Input::Msg(e) if node == 2 && e.from == 1 => vec![Output::Send(env(2, 1, nothing(0)))],
                Input::Msg(e) if node == 1 && e.from == 9 => vec![Output::Send(env(1, 2, nothing(0)))],
                _ => Vec::new(),
            })
        })
    };
    // B serves manager 2; A hosts node 1, a client of it.
    let b = probe(&[2], Vec::new(), answer);
    let a = probe_on((0, false), &[1], vec![(2, b.addr.to_string())], answer);
    a.call(|h| h.deliver(1, Input::Msg(env(9, 1, nothing(1))))).unwrap().unwrap();
    let answered = || a.call(|h| h.machine.log.len()).unwrap() == 2;
    assert!(wait_until(Duration::from_secs(3), answered), "node 1 never heard back");
}

#[test]
fn a_dropped_host_stops_and_frees_its_port() {
    let p = probe(&[1], Vec::new(), silent);
    let addr = p.addr;
    assert!(listening(addr));
    let began = Instant::now();
    drop(p);
    assert!(began.elapsed() < Duration::from_secs(3), "the drop took {:?}", began.elapsed());
    assert!(!listening(addr), "{addr} still answers");
}

#[test]
fn the_stop_flag_stops_the_host_and_wait_returns_no_error() {
    let p = probe(&[1], Vec::new(), silent);
    let addr = p.addr;
    p.stopper().store(true, Ordering::SeqCst);
    assert!(wait_until(Duration::from_secs(2), || p.call(|_| ()).is_none()), "the driver still runs");
    assert_eq!(wait_bounded(p), None);
    assert!(!listening(addr));
}

#[test]
fn a_store_failure_stops_the_host_and_wait_returns_it_while_waiting() {
    let p = probe(&[1], Vec::new(), fails_on_666);
    let addr = p.addr;
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(p.wait());
    });
    // The failing post is answered 503; the host then stops.
    assert_eq!(post_666(addr), 503);
    let why = rx.recv_timeout(Duration::from_secs(5)).expect("wait returns within 5 s");
    assert_eq!(why.as_deref(), Some("disk full"));
    assert!(!listening(addr));
}

#[test]
fn a_store_failure_before_wait_is_still_returned_by_it() {
    let p = probe(&[1], Vec::new(), fails_on_666);
    assert_eq!(post_666(p.addr), 503);
    // The driver has stopped by the time it answers no more calls.
    assert!(wait_until(Duration::from_secs(2), || p.call(|_| ()).is_none()), "the driver still runs");
    assert_eq!(wait_bounded(p).as_deref(), Some("disk full"));
}
