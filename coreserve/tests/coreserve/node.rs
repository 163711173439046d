//! A server node (`src/node.rs`): one manager and one coordinator behind one inbox.
//! Each message and timer reaches the machine that handles it (the answer's kind tells
//! which), and a restart starts both machines from the one store.

use std::collections::BTreeMap;

use coreserve::calendar::ClaimState;
use coreserve::durable::{
    DecisionRecord, Durable, Input, LockRecord, Output, PreparedRecord, Record, TimerId,
};
use coreserve::error::CalError;
use coreserve::manager::ManagerConfig;
use coreserve::node::Server;
use coreserve::proto::{ClaimId, Msg, NodeId, Part, TxnId};
use structures::{Error, Kind, RangeSet};

use super::{env, manager_config, prio, sent, A, COORDINATOR, M1, M2};

const T: TxnId = TxnId { client: A, seq: 1 };

fn fresh() -> Server {
    Server::start(M1, manager_config(Kind::ALL[0]), COORDINATOR, &Durable::default(), 0).unwrap().0
}

/// Who got which kind of message.
type Answers = Vec<(NodeId, &'static str)>;

fn kinds(out: &[Output]) -> Answers {
    sent(out).into_iter().map(|(to, m)| (to, m.kind())).collect()
}

fn parts() -> Vec<Part> {
    vec![
        Part { manager: M1, claims: vec![ClaimId { epoch: 1, seq: 1 }], n: 1 },
        Part { manager: M2, claims: vec![ClaimId { epoch: 1, seq: 5 }], n: 1 },
    ]
}

#[test]
fn each_message_reaches_the_machine_that_answers_it() {
    let claim = ClaimId { epoch: 1, seq: 1 };
    // (message, sender, what comes back): the manager answers client requests and the
    // coordinator's phase messages; the coordinator answers commit requests, votes and
    // decision queries. The wrong machine would answer nothing.
    let cases: Vec<(Msg, NodeId, Answers)> = vec![
        (Msg::Hold { req: 1, prio: prio(A), n: 1, start: 20, end: 25 }, A, vec![(A, "HoldReply")]),
        (
            Msg::Query { req: 2, prio: prio(A), from: 20, to: 30, duration: 5, n: 1, max_holds: 1 },
            A,
            vec![(A, "QueryReply")],
        ),
        (Msg::Wait { req: 3, prio: prio(A), n: 1, start: 40, end: 45, until: 9 }, A, vec![(A, "WaitReply")]),
        (Msg::Release { req: 4, claims: vec![ClaimId { epoch: 1, seq: 9 }] }, A, vec![(A, "Released")]),
        (Msg::Lock { req: 5, claim }, A, vec![(A, "LockReply")]),
        (Msg::Prepare { txn: T, client: A, start: 60, end: 65, claims: vec![claim] }, M2, vec![(M2, "Vote")]),
        (Msg::Commit { txn: T, end: 65 }, M2, vec![(M2, "Error")]),
        (
            Msg::CommitReq { txn: T, start: 20, end: 25, parts: parts() },
            A,
            vec![(M1, "Prepare"), (M2, "Prepare")],
        ),
        (Msg::DecisionQuery { txn: T }, M2, vec![(M2, "Decision")]),
        (Msg::Vote { txn: T, yes: true, reason: None }, M2, vec![(M2, "Abort")]),
    ];
    for (msg, from, expected) in cases {
        let what = format!("{msg:?}");
        let out = fresh().handle(1, Input::Msg(env(from, M1, msg)));
        assert_eq!(kinds(&out), expected, "{what}");
    }
    // An Ack for nothing is the coordinator's to ignore; the manager is not asked.
    assert!(fresh().handle(1, Input::Msg(env(M2, M1, Msg::Ack { txn: T }))).is_empty());
}

#[test]
fn each_timer_reaches_the_machine_that_set_it() {
    let mut node = fresh();
    // A hold (deadline 10), then a commit request this node coordinates.
    node.handle(0, Input::Msg(env(A, M1, Msg::Hold { req: 1, prio: prio(A), n: 1, start: 20, end: 25 })));
    node.handle(0, Input::Msg(env(A, M1, Msg::CommitReq { txn: T, start: 20, end: 25, parts: parts() })));
    // The coordinator resends Prepare to both (no vote came).
    let out = node.handle(4, Input::Timer(TimerId::Resend(T)));
    assert_eq!(kinds(&out), vec![(M1, "Prepare"), (M2, "Prepare")]);
    // The manager prepares its part and, asked by its inquiry timer, asks this node's
    // coordinator for the decision.
    node.handle(
        5,
        Input::Msg(env(
            M1,
            M1,
            Msg::Prepare { txn: T, client: A, start: 20, end: 25, claims: vec![parts()[0].claims[0]] },
        )),
    );
    let out = node.handle(6, Input::Timer(TimerId::Inquiry(T)));
    assert_eq!(sent(&out), vec![(M1, Msg::DecisionQuery { txn: T })]);
    // The coordinator's vote timeout aborts, durably first.
    let out = node.handle(10, Input::Timer(TimerId::VoteTimeout(T)));
    let abort = DecisionRecord { txn: T, commit: false, start: 20, end: 25, parts: parts() };
    assert_eq!(out[0], Output::Persist(Record::Decision(abort)));
    assert_eq!(kinds(&out), vec![(M1, "Abort"), (M2, "Abort"), (A, "Outcome")]);
    // A hold's deadline is the manager's: a second hold lapses at 21.
    node.handle(11, Input::Msg(env(A, M1, Msg::Hold { req: 2, prio: prio(A), n: 1, start: 30, end: 35 })));
    let out = node.handle(21, Input::Timer(TimerId::Deadline));
    assert_eq!(kinds(&out), vec![(A, "Expired")]);
    // The clients' timers are no server's: nothing happens.
    for id in [TimerId::Retry(1), TimerId::WaitOver(1), TimerId::CommitRetry, TimerId::GiveUp] {
        assert!(sent(&node.handle(22, Input::Timer(id))).is_empty(), "{id:?}");
    }
}

#[test]
fn a_restart_starts_both_machines_from_the_one_store() {
    let u = TxnId { client: A, seq: 2 };
    let prepared_claim = ClaimId { epoch: 4, seq: 1 };
    let durable = Durable {
        epoch: 4,
        locks: BTreeMap::new(),
        // M1's manager voted Yes for U, which M2 coordinates ...
        prepared: BTreeMap::from([(
            u,
            PreparedRecord {
                txn: u,
                coordinator: M2,
                prio: prio(A),
                claims: vec![(prepared_claim, RangeSet::from_ids([0]))],
                start: 30,
                end: 35,
            },
        )]),
        // ... and its coordinator decided T commit, not yet acknowledged everywhere.
        decisions: BTreeMap::from([(
            T,
            (DecisionRecord { txn: T, commit: true, start: 20, end: 25, parts: parts() }, false),
        )]),
    };
    let (node, out) = Server::start(M1, manager_config(Kind::ALL[0]), COORDINATOR, &durable, 5).unwrap();
    let commit = Msg::Commit { txn: T, end: 25 };
    let expected = vec![
        // The manager: a new epoch, then the inquiry about U.
        Output::Persist(Record::Epoch(5)),
        Output::Send(env(M1, M2, Msg::DecisionQuery { txn: u })),
        Output::SetTimer { id: TimerId::Inquiry(u), at: 10 },
        // The coordinator: Commit again to both, and its resend timer.
        Output::Send(env(M1, M1, commit.clone())),
        Output::Send(env(M1, M2, commit)),
        Output::SetTimer { id: TimerId::Resend(T), at: 9 },
    ];
    assert_eq!(out, expected);
    assert_eq!(node.manager.calendar().claims()[&prepared_claim].state, ClaimState::Prepared { txn: u });
    assert_eq!(node.coordinator.decided(T), Some(true));
    assert_eq!(node.coordinator.decided(u), None, "U is M2's to decide");
}

#[test]
fn a_node_is_not_started_on_a_bad_configuration_or_a_corrupt_store() {
    for &kind in Kind::ALL {
        let cfg = ManagerConfig { capacity: 0, ..manager_config(kind) };
        let got = Server::start(M1, cfg, COORDINATOR, &Durable::default(), 0).map(|_| ());
        let bad = CalError::Outside(Error::BadConfig { reason: "capacity must be at least 1".to_owned() });
        assert_eq!(got, Err(bad), "{kind}");
        // Two durable locks on resource 1 over one slot cannot both be restored.
        let lock = |seq, start| LockRecord {
            claim: ClaimId { epoch: 1, seq },
            holder: A,
            txn: None,
            ids: RangeSet::from_ids([1]),
            start,
            end: start + 5,
        };
        let (a, b) = (lock(1, 20), lock(2, 24));
        let corrupt =
            Durable { epoch: 1, locks: BTreeMap::from([(a.claim, a), (b.claim, b)]), ..Durable::default() };
        let got = Server::start(M1, manager_config(kind), COORDINATOR, &corrupt, 0).map(|_| ());
        assert!(matches!(got, Err(CalError::Index(Error::NotFree { .. }))), "{kind}: {got:?}");
    }
}
