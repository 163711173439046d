//! The protocol's identifiers and messages (`src/proto.rs`): every message's name is its
//! variant's, the coordinator's messages are told apart, ids print and order as the
//! design note says (D7, D17), and every limit refuses the value one past it with an
//! error naming the limit, while the limit itself is accepted. Every message round-trips
//! through JSON under its own name (the services' wire format; only the tests here read
//! JSON).

use std::collections::BTreeSet;

use coreserve::client::{Client, ClientConfig, Failure, Outcome, Reservation};
use coreserve::durable::{Durable, Input};
use coreserve::error::CalError;
use coreserve::limits;
use coreserve::manager::{Manager, ManagerConfig};
use coreserve::proto::{ClaimId, Envelope, HoldGrant, Msg, Part, Priority, TxnId, Verdict, WaitEnd};
use structures::{Config, Kind, RangeSet};

use super::{env, manager_config, prio, sent, A, M1, M2};

const C1: ClaimId = ClaimId { epoch: 1, seq: 2 };
const T: TxnId = TxnId { client: A, seq: 3 };

fn grant() -> HoldGrant {
    HoldGrant { claim: C1, ids: RangeSet::from_ids([0, 1]), start: 10, end: 15, deadline: 20 }
}

/// One message of every kind.
fn every_message() -> Vec<Msg> {
    let why = CalError::UnknownHold { claim: C1 };
    vec![
        Msg::Query { req: 1, prio: prio(A), from: 0, to: 20, duration: 5, n: 2, max_holds: 2 },
        Msg::QueryReply { req: 1, holds: vec![grant()], dead: vec![3] },
        Msg::Hold { req: 2, prio: prio(A), n: 1, start: 10, end: 15 },
        Msg::HoldReply { req: 2, result: Ok(grant()) },
        Msg::HoldReply {
            req: 2,
            result: Err(CalError::Busy { ids: RangeSet::from_ids([3]), start: 10, end: 15 }),
        },
        Msg::Wait { req: 3, prio: prio(A), n: 1, start: 10, end: 15, until: 30 },
        Msg::WaitReply { req: 3, result: Ok(None) },
        Msg::WaitReply { req: 3, result: Ok(Some(grant())) },
        Msg::Granted { req: 3, grant: grant() },
        Msg::WaitEnded { req: 3, reason: WaitEnd::Locked },
        Msg::Release { req: 4, claims: vec![C1] },
        Msg::Released { req: 4, released: vec![], refused: vec![(C1, why.clone())] },
        Msg::Lock { req: 5, claim: C1 },
        Msg::LockReply { req: 5, result: Err(why.clone()) },
        Msg::Recall { claim: C1, deadline: 12 },
        Msg::Expired { claim: C1 },
        Msg::CommitReq {
            txn: T,
            start: 10,
            end: 15,
            parts: vec![Part { manager: M1, claims: vec![C1], n: 2 }],
        },
        Msg::Outcome { txn: T, committed: true },
        Msg::Prepare { txn: T, client: A, start: 10, end: 15, claims: vec![C1] },
        Msg::Vote { txn: T, yes: false, reason: Some(why.clone()) },
        Msg::Commit { txn: T, end: 15 },
        Msg::Ack { txn: T },
        Msg::Abort { txn: T, claims: vec![C1] },
        Msg::DecisionQuery { txn: T },
        Msg::Decision { txn: T, verdict: Verdict::Pending },
        Msg::Error { req: Some(1), txn: None, error: why },
    ]
}

#[test]
fn every_message_is_named_by_its_variant_and_no_two_kinds_share_a_name() {
    let msgs = every_message();
    for msg in &msgs {
        // The derived Debug starts with the variant's name.
        let debug = format!("{msg:?}");
        assert!(debug.starts_with(&format!("{} {{", msg.kind())), "{} names {debug}", msg.kind());
    }
    let kinds: BTreeSet<&str> = msgs.iter().map(Msg::kind).collect();
    assert_eq!(kinds.len(), 24);
}

#[test]
fn every_message_round_trips_through_json_under_its_own_name() {
    for msg in every_message() {
        let e = Envelope { from: A, to: M1, msg };
        let v = serde_json::to_value(&e).unwrap();
        // Externally tagged: the message's one key is its kind.
        let keys: Vec<&String> = v["msg"].as_object().expect("an object").keys().collect();
        assert_eq!(keys, [e.msg.kind()], "{v}");
        let back: Envelope = serde_json::from_slice(&serde_json::to_vec(&e).unwrap()).unwrap();
        assert_eq!(back, e);
    }
}

#[test]
fn only_commit_requests_votes_acks_and_decision_queries_go_to_the_coordinator() {
    let ours: BTreeSet<&str> =
        every_message().iter().filter(|m| m.for_coordinator()).map(Msg::kind).collect();
    assert_eq!(ours, BTreeSet::from(["CommitReq", "Vote", "Ack", "DecisionQuery"]));
}

#[test]
fn claims_and_transactions_print_short_and_order_by_epoch_and_client_first() {
    assert_eq!(C1.to_string(), "c1.2");
    assert_eq!(T.to_string(), "t11.3");
    // A claim of a later epoch sorts after every claim of an earlier one (D17).
    assert!(ClaimId { epoch: 1, seq: 100 } < ClaimId { epoch: 2, seq: 1 });
    assert!(TxnId { client: 11, seq: 9 } < TxnId { client: 12, seq: 1 });
}

#[test]
fn an_older_reservation_has_priority_and_the_client_breaks_ties() {
    // Smaller is higher priority (D7): the timestamp first, whatever the client.
    assert!(Priority { ts: 1, client: 20 } < Priority { ts: 2, client: 10 });
    assert!(Priority { ts: 5, client: 11 } < Priority { ts: 5, client: 12 });
    assert!(prio(A) < prio(super::B));
}

/// A manager whose horizon is wide enough to scan more than `MAX_SCAN` starts.
fn wide_manager() -> Manager {
    let cfg =
        ManagerConfig { config: Config { slot: 1, horizon: Some(1000) }, ..manager_config(Kind::ALL[0]) };
    Manager::start(M1, cfg, &Durable::default(), 0).unwrap().0
}

/// The one message a manager answers `msg` from A with.
fn answer(m: &mut Manager, msg: Msg) -> Msg {
    let out = m.handle(0, Input::Msg(env(A, M1, msg)));
    let mut replies: Vec<Msg> =
        sent(&out).into_iter().filter(|(to, _)| *to == A).map(|(_, msg)| msg).collect();
    assert_eq!(replies.len(), 1, "{out:?}");
    replies.remove(0)
}

fn query(req: u64, to: u64, max_holds: u32) -> Msg {
    Msg::Query { req, prio: prio(A), from: 0, to, duration: 1, n: 1, max_holds }
}

fn bad_request(msg: &Msg) -> Option<&str> {
    match msg {
        Msg::Error { error: CalError::BadRequest(why), .. } => Some(why.as_str()),
        Msg::Vote { yes: false, reason: Some(CalError::BadRequest(why)), .. } => Some(why.as_str()),
        _ => None,
    }
}

#[test]
fn a_query_past_max_holds_or_max_scan_is_refused_naming_the_limit() {
    let mut m = wide_manager();
    let over = answer(&mut m, query(1, 20, limits::MAX_HOLDS + 1));
    assert_eq!(bad_request(&over), Some("max_holds must be 1..=16, got 17"));
    match answer(&mut m, query(2, 20, limits::MAX_HOLDS)) {
        Msg::QueryReply { holds, .. } => assert_eq!(holds.len(), 16, "the limit itself is granted"),
        other => panic!("{other:?}"),
    }
    // Windows of 1 starting in [0, 257): 257 candidate starts, one past the limit.
    let over = answer(&mut m, query(3, 257, 1));
    assert_eq!(bad_request(&over), Some("257 candidate starts are more than 256"));
    assert!(matches!(answer(&mut m, query(4, 256, 1)), Msg::QueryReply { .. }));
    assert_eq!(m.calendar().claims().len(), 17, "the refused queries held nothing");
}

#[test]
fn a_prepare_or_release_naming_too_many_claims_is_cut_at_max_claims() {
    let mut m = wide_manager();
    let many: Vec<ClaimId> = (1..=65).map(|seq| ClaimId { epoch: 1, seq }).collect();
    let prepare = Msg::Prepare { txn: T, client: A, start: 10, end: 15, claims: many.clone() };
    let vote = m.handle(0, Input::Msg(env(M2, M1, prepare)));
    let vote = &sent(&vote)[0].1;
    assert_eq!(bad_request(vote), Some("a prepare names 1..=64 claims"));
    // A release answers for the first 64 claims only.
    match answer(&mut m, Msg::Release { req: 1, claims: many }) {
        Msg::Released { released, refused, .. } => {
            assert!(released.is_empty());
            let named: Vec<ClaimId> = refused.iter().map(|(c, _)| *c).collect();
            assert_eq!(named, (1..=64).map(|seq| ClaimId { epoch: 1, seq }).collect::<Vec<_>>());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_reservation_over_more_than_max_parts_managers_is_refused_at_the_client() {
    let cfg = ClientConfig {
        max_holds: 2,
        span: 20,
        rto: 4,
        max_tries: 2,
        wait_for: 10,
        give_up: 100,
        max_attempts: 2,
        lead: 2,
        plant: None,
    };
    let res = |m: u32| Reservation {
        parts: (0..m).map(|i| (i, 1)).collect(),
        duration: 5,
        earliest: 10,
        latest_start: 20,
    };
    let mut c = Client::new(100, cfg);
    assert!(c.start(0, res(65)).is_empty());
    let why = CalError::BadRequest("a reservation spans 1..=64 managers, not 65".to_owned());
    assert_eq!(c.outcome(), Some(&Outcome::Failed(Failure::Refused(why))));
    let mut c = Client::new(100, cfg);
    let queried: BTreeSet<u32> = sent(&c.start(0, res(64))).iter().map(|(to, _)| *to).collect();
    assert_eq!(queried, (0..64).collect(), "the limit itself is queried");
    assert_eq!(c.outcome(), None);
}
