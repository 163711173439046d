//! The manager machine (design note §6.2): envelopes in, outputs out.

use coreserve::calendar::ClaimState;
use coreserve::durable::{Durable, Input, LockRecord, Output, PreparedRecord, Record, TimerId};
use coreserve::error::CalError;
use coreserve::manager::Manager;
use coreserve::proto::{ClaimId, HoldGrant, Msg, NodeId, TxnId, Verdict, WaitEnd};
use structures::{Error, Kind, RangeSet};

use super::{env, manager_config, persisted, prio, sent, A, B, C, M1, M2};

fn ids(v: &[u32]) -> RangeSet {
    RangeSet::from_ids(v.iter().copied())
}

fn claim(seq: u64) -> ClaimId {
    ClaimId { epoch: 1, seq }
}

/// A fresh manager M1 at time 0 on `kind`.
fn fresh(kind: Kind) -> Manager {
    let (m, out) = Manager::start(M1, manager_config(kind), &Durable::default(), 0).unwrap();
    assert_eq!(persisted(&out), vec![Record::Epoch(1)]);
    m
}

/// Delivers `msg` from `from` at `now`; checks the calendar after it.
fn deliver(m: &mut Manager, now: u64, from: NodeId, msg: Msg) -> Vec<Output> {
    let out = m.handle(now, Input::Msg(env(from, M1, msg)));
    m.validate().unwrap();
    out
}

fn query(req: u64, client: u32) -> Msg {
    Msg::Query { req, prio: prio(client), from: 0, to: 20, duration: 5, n: 2, max_holds: 2 }
}

fn hold(req: u64, client: u32, n: u32, start: u64, end: u64) -> Msg {
    Msg::Hold { req, prio: prio(client), n, start, end }
}

fn grant(seq: u64, v: &[u32], start: u64, end: u64, deadline: u64) -> HoldGrant {
    HoldGrant { claim: claim(seq), ids: ids(v), start, end, deadline }
}

/// Every structure.
fn each(case: impl Fn(Kind, &mut Manager)) {
    for &kind in Kind::ALL {
        let mut m = fresh(kind);
        case(kind, &mut m);
    }
}

#[test]
fn m1_m2_m3_the_agent_holds_the_earliest_windows_and_a_retry_gets_the_same_reply() {
    each(|_, m| {
        let out = deliver(m, 0, A, query(1, A));
        let reply = Msg::QueryReply {
            req: 1,
            holds: vec![grant(1, &[0, 1], 0, 5, 10), grant(2, &[2, 3], 1, 6, 10)],
            dead: vec![],
        };
        assert_eq!(sent(&out), vec![(A, reply.clone())]);
        assert!(out.contains(&Output::SetTimer { id: TimerId::Deadline, at: 10 }));
        assert!(persisted(&out).is_empty());
        let again = deliver(m, 0, A, query(1, A));
        assert_eq!(sent(&again), vec![(A, reply)]);
        assert_eq!(m.calendar().claims().len(), 2, "a retried query holds nothing new");
        // B sees no id 3 and gets the windows A left.
        let out = deliver(m, 0, B, query(1, B));
        let reply = Msg::QueryReply {
            req: 1,
            holds: vec![grant(3, &[0, 1], 5, 10, 10), grant(4, &[0, 1], 10, 15, 10)],
            dead: vec![],
        };
        assert_eq!(sent(&out), vec![(B, reply)]);
    });
}

#[test]
fn m4_a_wait_recalls_a_lower_priority_hold_and_is_granted_when_it_lapses() {
    each(|_, m| {
        let out = deliver(m, 0, C, hold(1, C, 3, 10, 15));
        assert_eq!(
            sent(&out),
            vec![(C, Msg::HoldReply { req: 1, result: Ok(grant(1, &[0, 1, 2], 10, 15, 10)) })]
        );
        let wait = Msg::Wait { req: 2, prio: prio(A), n: 3, start: 10, end: 15, until: 30 };
        let out = deliver(m, 2, A, wait);
        assert_eq!(
            sent(&out),
            vec![
                (C, Msg::Recall { claim: claim(1), deadline: 5 }),
                (A, Msg::WaitReply { req: 2, result: Ok(None) })
            ]
        );
        assert!(out.contains(&Output::SetTimer { id: TimerId::Deadline, at: 5 }));
        let out = m.handle(5, Input::Timer(TimerId::Deadline));
        m.validate().unwrap();
        assert_eq!(
            sent(&out),
            vec![
                (C, Msg::Expired { claim: claim(1) }),
                (A, Msg::Granted { req: 2, grant: grant(2, &[0, 1, 3], 10, 15, 15) })
            ]
        );
        assert_eq!(m.waiting(), 0);
    });
}

#[test]
fn m6_no_recall_downward_and_m7_a_wait_on_locked_slots_is_refused() {
    each(|_, m| {
        deliver(m, 0, A, hold(1, A, 4, 10, 15));
        let out = deliver(m, 1, C, Msg::Wait { req: 1, prio: prio(C), n: 2, start: 10, end: 15, until: 30 });
        assert_eq!(
            sent(&out),
            vec![(C, Msg::WaitReply { req: 1, result: Ok(None) })],
            "no recall of a higher priority"
        );
        let out = deliver(m, 2, A, Msg::Lock { req: 2, claim: claim(1) });
        assert_eq!(sent(&out)[0], (C, Msg::WaitEnded { req: 1, reason: WaitEnd::Locked }));
        let out = deliver(m, 3, B, Msg::Wait { req: 1, prio: prio(B), n: 1, start: 12, end: 13, until: 30 });
        let locked = CalError::Locked { n: 1, unlocked: 0, start: 12, end: 13 };
        assert_eq!(sent(&out), vec![(B, Msg::WaitReply { req: 1, result: Err(locked) })]);
    });
}

#[test]
fn m8_free_slots_are_reserved_for_a_higher_priority_waiter() {
    each(|_, m| {
        deliver(m, 0, C, hold(1, C, 2, 10, 15));
        deliver(m, 1, A, Msg::Wait { req: 1, prio: prio(A), n: 4, start: 10, end: 15, until: 30 });
        let out = deliver(m, 2, B, hold(1, B, 1, 10, 15));
        let reserved = CalError::ReservedForWaiter { start: 10, end: 15 };
        assert_eq!(sent(&out), vec![(B, Msg::HoldReply { req: 1, result: Err(reserved) })]);
    });
}

fn prepare(txn: TxnId, client: u32, claims: &[u64], start: u64, end: u64) -> Msg {
    Msg::Prepare { txn, client, start, end, claims: claims.iter().map(|&s| claim(s)).collect() }
}

const T7: TxnId = TxnId { client: A, seq: 7 };

#[test]
fn m5_m11_m14_prepare_is_durable_before_the_vote_and_commit_is_idempotent() {
    each(|_, m| {
        deliver(m, 0, A, hold(1, A, 2, 20, 25));
        let out = deliver(m, 1, M2, prepare(T7, A, &[1], 20, 25));
        let record = PreparedRecord {
            txn: T7,
            coordinator: M2,
            prio: prio(A),
            claims: vec![(claim(1), ids(&[0, 1]))],
            start: 20,
            end: 25,
        };
        assert_eq!(persisted(&out), vec![Record::Prepared(record)]);
        assert_eq!(sent(&out), vec![(M2, Msg::Vote { txn: T7, yes: true, reason: None })]);
        assert!(out.contains(&Output::SetTimer { id: TimerId::Inquiry(T7), at: 6 }));
        // Prepared: it outlives its hold deadline (10).
        m.handle(15, Input::Timer(TimerId::Deadline));
        assert_eq!(m.calendar().claims()[&claim(1)].state, ClaimState::Prepared { txn: T7 });
        let out = deliver(m, 16, M2, Msg::Commit { txn: T7, end: 25 });
        let lock =
            LockRecord { claim: claim(1), holder: A, txn: Some(T7), ids: ids(&[0, 1]), start: 20, end: 25 };
        assert_eq!(persisted(&out), vec![Record::Lock(lock), Record::DelPrepared(T7)]);
        assert_eq!(sent(&out), vec![(M2, Msg::Ack { txn: T7 })]);
        for dup in [Msg::Commit { txn: T7, end: 25 }, prepare(T7, A, &[1], 20, 25)] {
            let out = deliver(m, 17, M2, dup);
            assert!(persisted(&out).is_empty());
            assert!(matches!(sent(&out)[0].1, Msg::Ack { .. } | Msg::Vote { yes: true, .. }));
        }
        let out = deliver(m, 18, M2, Msg::Abort { txn: T7, claims: vec![claim(1)] });
        let error = CalError::ConflictingDecision { txn: T7 };
        assert_eq!(sent(&out), vec![(M2, Msg::Error { req: None, txn: Some(T7), error })]);
        assert_eq!(m.calendar().claims()[&claim(1)].state, ClaimState::Locked { txn: Some(T7) });
    });
}

#[test]
fn m9_m10_m13_prepares_that_fail_vote_no_with_the_reason() {
    each(|_, m| {
        deliver(m, 0, A, hold(1, A, 1, 20, 25));
        let t1 = TxnId { client: A, seq: 1 };
        let out = deliver(m, 10, M2, prepare(t1, A, &[1], 20, 25));
        let expired = CalError::HoldExpired { claim: claim(1), deadline: 10, now: 10 };
        assert!(sent(&out).contains(&(M2, Msg::Vote { txn: t1, yes: false, reason: Some(expired) })));
        let out = deliver(m, 11, M2, prepare(t1, A, &[1], 20, 25));
        let aborted = CalError::TxnAborted { txn: t1 };
        assert_eq!(sent(&out), vec![(M2, Msg::Vote { txn: t1, yes: false, reason: Some(aborted) })]);

        deliver(m, 12, A, hold(2, A, 1, 30, 35));
        let t2 = TxnId { client: B, seq: 1 };
        let out = deliver(m, 12, M2, prepare(t2, B, &[2], 30, 35));
        let not_holder = CalError::NotHolder { claim: claim(2), holder: A, client: B };
        assert_eq!(sent(&out), vec![(M2, Msg::Vote { txn: t2, yes: false, reason: Some(not_holder) })]);
        assert!(m.calendar().claims().contains_key(&claim(2)), "not B's to release");
        let t3 = TxnId { client: A, seq: 3 };
        let out = deliver(m, 12, M2, prepare(t3, A, &[2], 30, 36));
        let mismatch = CalError::WindowMismatch { claim: claim(2), start: 30, end: 35 };
        assert_eq!(sent(&out), vec![(M2, Msg::Vote { txn: t3, yes: false, reason: Some(mismatch) })]);
        assert!(!m.calendar().claims().contains_key(&claim(2)), "a No releases the client's hold");

        deliver(m, 13, A, hold(3, A, 1, 40, 45));
        let t4 = TxnId { client: A, seq: 4 };
        let out = deliver(m, 13, M2, Msg::Abort { txn: t4, claims: vec![claim(3)] });
        assert!(sent(&out).is_empty(), "aborts are not acknowledged");
        assert!(m.calendar().claims().is_empty());
        let out = deliver(m, 14, M2, prepare(t4, A, &[3], 40, 45));
        assert_eq!(
            sent(&out),
            vec![(M2, Msg::Vote { txn: t4, yes: false, reason: Some(CalError::TxnAborted { txn: t4 }) })]
        );
    });
}

#[test]
fn m12_a_commit_for_an_unknown_transaction_is_an_error_and_changes_nothing() {
    each(|_, m| {
        deliver(m, 0, A, hold(1, A, 1, 20, 25));
        let before = format!("{:?}", m.calendar().claims());
        let t9 = TxnId { client: A, seq: 9 };
        let out = deliver(m, 1, M2, Msg::Commit { txn: t9, end: 25 });
        let error = CalError::UnknownTxn { txn: t9 };
        assert_eq!(sent(&out), vec![(M2, Msg::Error { req: None, txn: Some(t9), error })]);
        assert!(persisted(&out).is_empty());
        assert_eq!(format!("{:?}", m.calendar().claims()), before);
    });
}

#[test]
fn m19_a_one_manager_lock_is_durable_before_its_reply_and_idempotent() {
    each(|_, m| {
        deliver(m, 0, A, hold(1, A, 1, 20, 25));
        let out = deliver(m, 4, A, Msg::Lock { req: 3, claim: claim(1) });
        let lock = LockRecord { claim: claim(1), holder: A, txn: None, ids: ids(&[0]), start: 20, end: 25 };
        assert_eq!(persisted(&out), vec![Record::Lock(lock)]);
        assert_eq!(sent(&out), vec![(A, Msg::LockReply { req: 3, result: Ok(claim(1)) })]);
        let out = deliver(m, 5, A, Msg::Lock { req: 3, claim: claim(1) });
        assert!(persisted(&out).is_empty());
        assert_eq!(sent(&out), vec![(A, Msg::LockReply { req: 3, result: Ok(claim(1)) })]);
        let out = deliver(m, 5, B, Msg::Lock { req: 1, claim: claim(1) });
        let error = CalError::NotHolder { claim: claim(1), holder: A, client: B };
        assert_eq!(sent(&out), vec![(B, Msg::LockReply { req: 1, result: Err(error) })]);
    });
}

#[test]
fn m15_m16_m17_a_restart_keeps_locks_and_prepares_and_asks_for_decisions() {
    for &kind in Kind::ALL {
        let t1 = TxnId { client: A, seq: 1 };
        let t2 = TxnId { client: B, seq: 2 };
        let mut durable = Durable { epoch: 1, ..Durable::default() };
        let lock =
            LockRecord { claim: claim(1), holder: A, txn: Some(t1), ids: ids(&[0]), start: 0, end: 50 };
        durable.locks.insert(claim(1), lock);
        let prepared = PreparedRecord {
            txn: t2,
            coordinator: M2,
            prio: prio(B),
            claims: vec![(claim(2), ids(&[1]))],
            start: 0,
            end: 50,
        };
        durable.prepared.insert(t2, prepared);
        let (mut m, out) = Manager::start(M1, manager_config(kind), &durable, 20).unwrap();
        m.validate().unwrap();
        assert_eq!(persisted(&out), vec![Record::Epoch(2)]);
        assert_eq!(sent(&out), vec![(M2, Msg::DecisionQuery { txn: t2 })]);
        assert!(out.contains(&Output::SetTimer { id: TimerId::Inquiry(t2), at: 25 }));
        assert_eq!(m.calendar().free(20, 50).unwrap(), ids(&[2, 3]));
        // A hold granted before the crash is gone, and says so.
        let out = deliver(&mut m, 21, A, Msg::Lock { req: 1, claim: claim(3) });
        let stale = CalError::StaleEpoch { claim: claim(3), current: 2 };
        assert_eq!(sent(&out), vec![(A, Msg::LockReply { req: 1, result: Err(stale) })]);
        let out = deliver(&mut m, 22, M2, Msg::Decision { txn: t2, verdict: Verdict::Commit });
        assert!(sent(&out).is_empty(), "a decision is not acknowledged");
        assert!(persisted(&out).contains(&Record::DelPrepared(t2)));
        assert_eq!(m.calendar().claims()[&claim(2)].state, ClaimState::Locked { txn: Some(t2) });
    }
}

#[test]
fn bad_requests_get_errors_naming_the_problem_and_change_nothing() {
    each(|_, m| {
        deliver(m, 0, A, hold(1, A, 1, 20, 25));
        let before = format!("{:?}", m.calendar().claims());
        let cases: Vec<(Msg, CalError)> = vec![
            (
                Msg::Query { req: 2, prio: prio(A), from: 0, to: 20, duration: 5, n: 2, max_holds: 0 },
                CalError::BadRequest("max_holds must be 1..=16, got 0".to_owned()),
            ),
            (
                Msg::Query { req: 3, prio: prio(A), from: 0, to: 20, duration: 5, n: 5, max_holds: 1 },
                CalError::Outside(Error::BadCount { n: 5, capacity: 4 }),
            ),
            (hold(4, A, 1, 95, 102), CalError::Outside(Error::BeyondHorizon { end: 102, limit: 101 })),
            (hold(5, B, 4, 2, 7), CalError::AccessDenied { client: B, ids: ids(&[3]), start: 2, end: 7 }),
            (hold(6, A, 1, 0, 5), CalError::Outside(Error::BeforePast { time: 0, now: 1 })),
            (Msg::Lock { req: 7, claim: claim(42) }, CalError::UnknownHold { claim: claim(42) }),
        ];
        for (msg, expected) in cases {
            let from = if matches!(msg, Msg::Hold { n: 4, .. }) { B } else { A };
            let out = deliver(m, 1, from, msg);
            let got = match &sent(&out)[0].1 {
                Msg::Error { error, .. } => error.clone(),
                Msg::HoldReply { result: Err(e), .. } | Msg::LockReply { result: Err(e), .. } => e.clone(),
                other => panic!("{other:?}"),
            };
            assert_eq!(got, expected);
            assert!(persisted(&out).is_empty());
            assert_eq!(format!("{:?}", m.calendar().claims()), before);
        }
    });
}

#[test]
fn a_lock_retried_after_a_restart_gets_its_first_outcome_and_one_lock_stays() {
    for &kind in Kind::ALL {
        let mut m = fresh(kind);
        let mut durable = Durable::default();
        durable.apply(&[Record::Epoch(1)]);
        durable.apply(&persisted(&deliver(&mut m, 0, A, hold(1, A, 1, 20, 25))));
        let out = deliver(&mut m, 4, A, Msg::Lock { req: 3, claim: claim(1) });
        durable.apply(&persisted(&out));
        assert_eq!(sent(&out), vec![(A, Msg::LockReply { req: 3, result: Ok(claim(1)) })], "{kind}");
        // kill -9: the reply cache is gone, the lock record is not.
        let (mut m, _) = Manager::start(M1, manager_config(kind), &durable, 10).unwrap();
        let out = deliver(&mut m, 11, A, Msg::Lock { req: 3, claim: claim(1) });
        assert_eq!(sent(&out), vec![(A, Msg::LockReply { req: 3, result: Ok(claim(1)) })], "{kind}");
        assert!(persisted(&out).is_empty(), "{kind}: nothing new to make durable");
        let locks: Vec<_> =
            m.calendar().claims().values().filter(|c| matches!(c.state, ClaimState::Locked { .. })).collect();
        assert_eq!(locks.len(), 1, "{kind}: exactly one lock");
        // Another client's Lock of it is still refused.
        let out = deliver(&mut m, 12, B, Msg::Lock { req: 1, claim: claim(1) });
        let refused = CalError::NotHolder { claim: claim(1), holder: A, client: B };
        assert_eq!(sent(&out), vec![(B, Msg::LockReply { req: 1, result: Err(refused) })], "{kind}");
    }
}

#[test]
fn a_release_retried_after_a_restart_gets_its_first_outcome() {
    for &kind in Kind::ALL {
        let mut m = fresh(kind);
        let mut durable = Durable::default();
        durable.apply(&[Record::Epoch(1)]);
        durable.apply(&persisted(&deliver(&mut m, 0, A, hold(1, A, 1, 20, 25))));
        let first = Msg::Released { req: 3, released: vec![claim(1)], refused: vec![] };
        let out = deliver(&mut m, 4, A, Msg::Release { req: 3, claims: vec![claim(1)] });
        durable.apply(&persisted(&out));
        assert_eq!(sent(&out), vec![(A, first.clone())], "{kind}");
        // kill -9: the reply cache and the hold are gone; the hold's epoch is over.
        let (mut m, _) = Manager::start(M1, manager_config(kind), &durable, 10).unwrap();
        let out = deliver(&mut m, 11, A, Msg::Release { req: 3, claims: vec![claim(1)] });
        assert_eq!(sent(&out), vec![(A, first)], "{kind}: released, as the first time");
        // A hold of this epoch that was never granted is still unknown.
        let new = ClaimId { epoch: 2, seq: 9 };
        let out = deliver(&mut m, 12, A, Msg::Release { req: 4, claims: vec![new] });
        let refused = vec![(new, CalError::UnknownHold { claim: new })];
        assert_eq!(sent(&out), vec![(A, Msg::Released { req: 4, released: vec![], refused })], "{kind}");
    }
}
