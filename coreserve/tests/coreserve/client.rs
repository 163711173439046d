//! The client's agent alone, its replies scripted (design note §6.4).

use coreserve::client::{Client, ClientConfig, Failure, Outcome, Reservation};
use coreserve::durable::{Input, Output, TimerId};
use coreserve::proto::{ClaimId, HoldGrant, Msg, NodeId, Part, Priority, TxnId};
use structures::RangeSet;

use super::{env, sent, A, M1, M2};

const CFG: ClientConfig = ClientConfig {
    max_holds: 2,
    span: 20,
    rto: 5,
    max_tries: 3,
    wait_for: 10,
    give_up: 100,
    max_attempts: 2,
    lead: 0,
    plant: None,
};

fn h(manager: NodeId, seq: u64, start: u64) -> HoldGrant {
    HoldGrant {
        claim: ClaimId { epoch: manager + 1, seq },
        ids: RangeSet::from_ids([0]),
        start,
        end: start + 5,
        deadline: 50,
    }
}

fn res(parts: &[(NodeId, u32)], latest_start: u64) -> Reservation {
    Reservation { parts: parts.to_vec(), duration: 5, earliest: 0, latest_start }
}

fn reply(c: &mut Client, from: NodeId, req: u64, holds: Vec<HoldGrant>, dead: Vec<u64>) -> Vec<Output> {
    c.handle(0, Input::Msg(env(from, A, Msg::QueryReply { req, holds, dead })))
}

fn releases(out: &[Output]) -> Vec<(NodeId, Vec<ClaimId>)> {
    sent(out)
        .into_iter()
        .filter_map(|(to, m)| if let Msg::Release { claims, .. } = m { Some((to, claims)) } else { None })
        .collect()
}

#[test]
fn a1_one_manager_locks_directly_then_releases_the_rest() {
    let mut c = Client::new(A, CFG);
    let out = c.start(0, res(&[(M1, 1)], 15));
    let query = Msg::Query {
        req: 1,
        prio: Priority { ts: 0, client: A },
        from: 0,
        to: 20,
        duration: 5,
        n: 1,
        max_holds: 2,
    };
    assert_eq!(sent(&out), vec![(M1, query)]);
    assert!(out.contains(&Output::SetTimer { id: TimerId::GiveUp, at: 100 }));
    let out = reply(&mut c, M1, 1, vec![h(M1, 1, 0), h(M1, 2, 1)], vec![]);
    assert_eq!(sent(&out), vec![(M1, Msg::Lock { req: 2, claim: h(M1, 1, 0).claim })]);
    let out = c.handle(0, Input::Msg(env(M1, A, Msg::LockReply { req: 2, result: Ok(h(M1, 1, 0).claim) })));
    assert_eq!(releases(&out), vec![(M1, vec![h(M1, 2, 1).claim])]);
    assert_eq!(c.outcome(), Some(&Outcome::Committed { txn: None, start: 0 }));
}

#[test]
fn a1_its_own_claim_found_locked_already_is_its_lock() {
    let mut c = Client::new(A, CFG);
    c.start(0, res(&[(M1, 1)], 15));
    let out = reply(&mut c, M1, 1, vec![h(M1, 1, 0)], vec![]);
    let claim = h(M1, 1, 0).claim;
    assert_eq!(sent(&out), vec![(M1, Msg::Lock { req: 2, claim })]);
    let retried = Msg::LockReply { req: 2, result: Err(coreserve::error::CalError::AlreadyLocked { claim }) };
    c.handle(0, Input::Msg(env(M1, A, retried)));
    assert_eq!(
        c.outcome(),
        Some(&Outcome::Committed { txn: None, start: 0 }),
        "not a conflict to negotiate again"
    );
}

#[test]
fn a2_a_start_held_everywhere_is_committed_through_a_coordinator() {
    let mut c = Client::new(A, CFG);
    c.start(0, res(&[(M1, 1), (M2, 1)], 15));
    assert!(sent(&reply(&mut c, M1, 1, vec![h(M1, 1, 0), h(M1, 2, 1)], vec![])).is_empty());
    let out = reply(&mut c, M2, 2, vec![h(M2, 1, 1), h(M2, 2, 2)], vec![]);
    let txn = TxnId { client: A, seq: 1 };
    let parts = vec![
        Part { manager: M1, claims: vec![h(M1, 2, 1).claim], n: 1 },
        Part { manager: M2, claims: vec![h(M2, 1, 1).claim], n: 1 },
    ];
    assert_eq!(sent(&out), vec![(M1, Msg::CommitReq { txn, start: 1, end: 6, parts })]);
    // A4: an abort drops the start and the next attempt has a new transaction.
    let out = c.handle(0, Input::Msg(env(M1, A, Msg::Outcome { txn, committed: false })));
    assert!(c.outcome().is_none());
    assert!(sent(&out).iter().all(|(_, m)| !matches!(m, Msg::CommitReq { .. })), "no start is complete now");
    let waits = sent(&out).iter().filter(|(_, m)| matches!(m, Msg::Wait { .. })).count();
    assert_eq!(waits, 2, "it queues for the missing part at starts 0 and 2");
}

#[test]
fn a3_negotiation_releases_dead_starts_and_queues_for_the_missing_parts() {
    let mut c = Client::new(A, CFG);
    c.start(0, res(&[(M1, 1), (M2, 1)], 10));
    reply(&mut c, M1, 1, vec![h(M1, 1, 0), h(M1, 2, 5)], vec![]);
    let out = reply(&mut c, M2, 2, vec![h(M2, 1, 10)], vec![0]);
    assert_eq!(releases(&out), vec![(M1, vec![h(M1, 1, 0).claim])], "start 0 is locked at M2");
    let waits: Vec<(NodeId, u64)> = sent(&out)
        .into_iter()
        .filter_map(|(to, m)| if let Msg::Wait { start, .. } = m { Some((to, start)) } else { None })
        .collect();
    assert_eq!(waits, vec![(M2, 5), (M1, 10)]);
    let wait_at_m1 = sent(&out).iter().find_map(|(to, m)| match m {
        Msg::Wait { req, .. } if *to == M1 => Some(*req),
        _ => None,
    });
    let out =
        c.handle(0, Input::Msg(env(M1, A, Msg::Granted { req: wait_at_m1.unwrap(), grant: h(M1, 3, 10) })));
    assert!(matches!(&sent(&out)[..], [(_, Msg::CommitReq { start: 10, .. })]), "{out:?}");
}

#[test]
fn a5_a8_recalled_and_unwanted_grants_are_released() {
    let mut c = Client::new(A, CFG);
    c.start(0, res(&[(M1, 1), (M2, 1)], 10));
    reply(&mut c, M1, 1, vec![h(M1, 1, 5)], vec![]);
    reply(&mut c, M2, 2, vec![], vec![]);
    let out = c.handle(0, Input::Msg(env(M1, A, Msg::Recall { claim: h(M1, 1, 5).claim, deadline: 3 })));
    assert!(releases(&out).contains(&(M1, vec![h(M1, 1, 5).claim])));
    // A grant for a wait it no longer has.
    let out = c.handle(0, Input::Msg(env(M2, A, Msg::Granted { req: 99, grant: h(M2, 7, 5) })));
    assert_eq!(releases(&out), vec![(M2, vec![h(M2, 7, 5).claim])]);
}

#[test]
fn a7_a_request_without_answer_is_resent_identically() {
    let mut c = Client::new(A, CFG);
    let first = sent(&c.start(0, res(&[(M1, 1)], 15)));
    let again = sent(&c.handle(5, Input::Timer(TimerId::Retry(1))));
    assert_eq!(first, again);
}

#[test]
fn a9_no_window_and_a10_give_up_in_doubt() {
    let mut c = Client::new(A, CFG);
    c.start(0, res(&[(M1, 1)], 0));
    reply(&mut c, M1, 1, vec![], vec![0]);
    assert_eq!(c.outcome(), Some(&Outcome::Failed(Failure::NoWindow)));

    let mut c = Client::new(A, CFG);
    c.start(0, res(&[(M1, 1), (M2, 1)], 15));
    reply(&mut c, M1, 1, vec![h(M1, 1, 0)], vec![]);
    reply(&mut c, M2, 2, vec![h(M2, 1, 0)], vec![]);
    c.handle(100, Input::Timer(TimerId::GiveUp));
    let txn = TxnId { client: A, seq: 1 };
    assert_eq!(c.outcome(), Some(&Outcome::Failed(Failure::InDoubt(Some(txn)))), "not reported aborted");
}

#[test]
fn a_malformed_reservation_is_refused_at_once() {
    for parts in [vec![], vec![(M1, 1), (M1, 2)], vec![(M1, 0)]] {
        let mut c = Client::new(A, CFG);
        assert!(sent(&c.start(0, res(&parts, 15))).is_empty());
        assert!(matches!(c.outcome(), Some(Outcome::Failed(Failure::Refused(_)))), "{parts:?}");
    }
}
