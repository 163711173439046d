//! The simulator's checker (`src/sim/check.rs`): for each invariant, a hand-made history
//! that breaks it and the same history without the break, and a real co-reservation
//! over two nodes and a client that breaks nothing. The invariants are the design
//! note's §3.2.

use std::collections::{BTreeMap, VecDeque};

use coreserve::client::{Client, ClientConfig, Outcome, Reservation};
use coreserve::durable::{
    DecisionRecord, Durable, Input, LockRecord, MemStore, Output, PreparedRecord, Record, Store,
};
use coreserve::error::CalError;
use coreserve::node::Server;
use coreserve::proto::{ClaimId, Envelope, HoldGrant, Msg, NodeId, Part, TxnId, Verdict};
use coreserve::sim::check::{Ghost, Violation};
use structures::{Kind, RangeSet, Time};

use crate::{env, manager_config, persisted, prio, A, B, COORDINATOR, M1, M2};

const T: TxnId = TxnId { client: A, seq: 1 };

fn claim(epoch: u32, seq: u64) -> ClaimId {
    ClaimId { epoch, seq }
}

fn ids(v: &[u32]) -> RangeSet {
    RangeSet::from_ids(v.iter().copied())
}

/// A lock at `[start, start + 5)`.
fn lock(claim: ClaimId, txn: Option<TxnId>, on: &[u32], start: Time) -> LockRecord {
    LockRecord { claim, holder: A, txn, ids: ids(on), start, end: start + 5 }
}

fn with_locks(locks: &[LockRecord]) -> Durable {
    Durable { locks: locks.iter().map(|l| (l.claim, l.clone())).collect(), ..Durable::default() }
}

fn with_prepare(txn: TxnId, start: Time, end: Time) -> Durable {
    let p = PreparedRecord {
        txn,
        coordinator: M2,
        prio: prio(A),
        claims: vec![(claim(1, 1), ids(&[0]))],
        start,
        end,
    };
    Durable { prepared: BTreeMap::from([(txn, p)]), ..Durable::default() }
}

/// Node M1 started at 0 from `durable`.
fn server(durable: &Durable) -> Server {
    Server::start(M1, manager_config(Kind::ALL[0]), COORDINATOR, durable, 0).unwrap().0
}

/// The invariant a result broke, and its detail.
fn broke(r: Result<(), Violation>) -> (&'static str, String) {
    let v = r.expect_err("a violation");
    (v.invariant, v.detail)
}

/// `T` over `[20, 25)`, 2 ids at M1 and 1 at M2, as its commit request named it and
/// then announced committed.
fn committed() -> Ghost {
    let mut g = Ghost::default();
    let parts = vec![
        Part { manager: M1, claims: vec![claim(1, 1)], n: 2 },
        Part { manager: M2, claims: vec![claim(1, 2)], n: 1 },
    ];
    g.sent(&env(A, M1, Msg::CommitReq { txn: T, start: 20, end: 25, parts }), None, 0).unwrap();
    g.sent(&env(M1, M2, Msg::Commit { txn: T, end: 25 }), None, 0).unwrap();
    g
}

#[test]
fn i4_a_decision_announced_both_ways_or_recorded_otherwise_breaks_i4() {
    let mut g = committed();
    assert_eq!(g.commits, 1);
    // The same decision again, or "ask later", changes nothing.
    g.sent(&env(M1, M2, Msg::Decision { txn: T, verdict: Verdict::Commit }), None, 1).unwrap();
    g.sent(&env(M1, M2, Msg::Decision { txn: T, verdict: Verdict::Pending }), None, 1).unwrap();
    let r = g.sent(&env(M1, M2, Msg::Abort { txn: T, claims: vec![] }), None, 2);
    assert_eq!(broke(r), ("I4", "t11.1 was announced commit and then abort".to_owned()));
    let mut g = Ghost::default();
    g.sent(&env(M1, M2, Msg::Decision { txn: T, verdict: Verdict::Abort }), None, 0).unwrap();
    let r = g.sent(&env(M1, M2, Msg::Decision { txn: T, verdict: Verdict::Commit }), None, 1);
    assert_eq!(broke(r).0, "I4");
    // A decision record that contradicts the announcement.
    let mut g = committed();
    let record = DecisionRecord { txn: T, commit: false, start: 20, end: 25, parts: vec![] };
    let d = with_prepare(T, 20, 25);
    let r = g.check_server(M1, None, &d, &[Record::Decision(record.clone())], 1);
    assert_eq!(broke(r), ("I4", "node 0 recorded false for t11.1, announced otherwise".to_owned()));
    let agreeing = Record::Decision(DecisionRecord { commit: true, ..record });
    g.check_server(M1, None, &d, &[agreeing], 1).unwrap();
}

#[test]
fn i9_a_client_told_otherwise_than_the_decision_breaks_i9() {
    let mut g = Ghost::default();
    g.sent(&env(M1, M2, Msg::Abort { txn: T, claims: vec![] }), None, 0).unwrap();
    g.sent(&env(M1, A, Msg::Outcome { txn: T, committed: false }), None, 0).unwrap();
    let r = g.sent(&env(M1, A, Msg::Outcome { txn: T, committed: true }), None, 1);
    assert_eq!(broke(r), ("I9", "t11.1 was announced abort and then commit".to_owned()));
}

#[test]
fn i10_a_manager_reporting_a_protocol_error_breaks_i10() {
    let mut g = Ghost::default();
    for error in [CalError::UnknownTxn { txn: T }, CalError::ConflictingDecision { txn: T }] {
        let text = error.to_string();
        let r = g.sent(&env(M1, M2, Msg::Error { req: None, txn: Some(T), error }), None, 0);
        assert_eq!(broke(r), ("I10", format!("manager 0 answered {text}")));
    }
    // Refusing a client's bad request is no protocol error.
    let bad = CalError::BadRequest("no".to_owned());
    g.sent(&env(M1, A, Msg::Error { req: Some(1), txn: None, error: bad }), None, 0).unwrap();
}

#[test]
fn i6_a_grant_off_the_receivers_access_list_breaks_i6() {
    // Resource 3 is A's alone.
    let s = server(&Durable::default());
    let grant = HoldGrant { claim: claim(1, 1), ids: ids(&[2, 3]), start: 20, end: 25, deadline: 10 };
    let mut g = Ghost::default();
    g.sent(&env(M1, A, Msg::HoldReply { req: 1, result: Ok(grant.clone()) }), Some(&s), 0).unwrap();
    for msg in [
        Msg::QueryReply { req: 1, holds: vec![grant.clone()], dead: vec![] },
        Msg::HoldReply { req: 1, result: Ok(grant.clone()) },
        Msg::WaitReply { req: 1, result: Ok(Some(grant.clone())) },
        Msg::Granted { req: 1, grant: grant.clone() },
    ] {
        let r = g.sent(&env(M1, B, msg), Some(&s), 0);
        assert_eq!(broke(r), ("I6", "manager 0 granted c1.1 to client 12 off its access list".to_owned()));
    }
}

#[test]
fn i1g_two_confirmed_locks_on_one_slot_break_i1g() {
    // Two incarnations of M1, each with a lock the other lacks: on resource 1 over
    // [22, 25) they overlap.
    let first = lock(claim(1, 1), None, &[0, 1], 20);
    let second = lock(claim(2, 1), Some(T), &[1, 2], 22);
    let (s1, s2) = (server(&with_locks(&[first])), server(&with_locks(&[second])));
    let mut g = Ghost::default();
    g.sent(&env(M1, A, Msg::LockReply { req: 1, result: Ok(claim(1, 1)) }), Some(&s1), 0).unwrap();
    let mut clean = Ghost::default();
    clean.sent(&env(M1, A, Msg::LockReply { req: 1, result: Ok(claim(1, 1)) }), Some(&s1), 0).unwrap();
    let r = g.sent(&env(M1, M2, Msg::Ack { txn: T }), Some(&s2), 1);
    let detail = "manager 0 confirmed locks c2.1 and c1.1 on resources {1} over one slot";
    assert_eq!(broke(r), ("I1g", detail.to_owned()));
    // Once the first window has passed (at 25), what is left of the second overlaps it
    // nowhere.
    clean.sent(&env(M1, M2, Msg::Ack { txn: T }), Some(&s2), 25).unwrap();
}

#[test]
fn i5_a_hold_kept_past_its_deadline_breaks_i5() {
    let mut s = server(&Durable::default());
    // Hold TTL 10: the hold lapses at 10.
    s.handle(0, Input::Msg(env(A, M1, Msg::Hold { req: 1, prio: prio(A), n: 1, start: 20, end: 25 })));
    let d = Durable { epoch: 1, ..Durable::default() };
    let mut g = Ghost::default();
    g.check_server(M1, Some(&s), &d, &[], 10).unwrap();
    let r = g.check_server(M1, Some(&s), &d, &[], 11);
    assert_eq!(broke(r), ("I5", "manager 0: hold c1.1 outlived its deadline 10 (now 11)".to_owned()));
    // A step at 11 expires it.
    s.handle(11, Input::Timer(coreserve::durable::TimerId::Deadline));
    g.check_server(M1, Some(&s), &d, &[], 11).unwrap();
}

#[test]
fn i3_a_lock_without_a_commit_decision_breaks_i3() {
    let d = with_locks(&[lock(claim(1, 1), Some(T), &[0, 1], 20)]);
    let r = Ghost::default().check_server(M1, None, &d, &[], 0);
    assert_eq!(broke(r), ("I3", "manager 0 holds lock c1.1 for undecided t11.1".to_owned()));
    let mut g = Ghost::default();
    g.sent(&env(M1, M2, Msg::Abort { txn: T, claims: vec![] }), None, 0).unwrap();
    assert_eq!(broke(g.check_server(M1, None, &d, &[], 0)).0, "I3");
    assert!(broke(g.check_server(M1, None, &d, &[], 0)).1.contains("for aborted t11.1"));
    committed().check_server(M1, None, &d, &[], 0).unwrap();
    // A one-manager lock needs no decision.
    let direct = with_locks(&[lock(claim(1, 1), None, &[0, 1], 20)]);
    Ghost::default().check_server(M1, None, &direct, &[], 0).unwrap();
}

#[test]
fn i2_a_committed_part_neither_prepared_nor_locked_breaks_i2() {
    let mut g = committed();
    let r = g.check_server(M1, None, &Durable::default(), &[], 1);
    let detail = "t11.1 committed but manager 0 has neither its prepare nor 2 locks over [20, 25)";
    assert_eq!(broke(r), ("I2", detail.to_owned()));
    // Its prepare (window [20, 25)) or both its ids locked will do; one id will not.
    g.check_server(M1, None, &with_prepare(T, 20, 25), &[], 1).unwrap();
    assert_eq!(broke(g.check_server(M1, None, &with_prepare(T, 20, 26), &[], 1)).0, "I2");
    g.check_server(M1, None, &with_locks(&[lock(claim(1, 1), Some(T), &[0, 1], 20)]), &[], 1).unwrap();
    let one = with_locks(&[lock(claim(1, 1), Some(T), &[0], 20)]);
    assert_eq!(broke(g.check_server(M1, None, &one, &[], 1)).0, "I2");
    // A running manager must keep the ids too, not just its store.
    let r = g.check_server(M1, Some(&server(&Durable::default())), &with_prepare(T, 20, 25), &[], 1);
    assert_eq!(
        broke(r),
        ("I2", "t11.1 committed but manager 0 keeps 0 of its 2 ids prepared or locked".to_owned())
    );
    // After the window, nothing is owed.
    g.check_server(M1, None, &Durable::default(), &[], 25).unwrap();
}

#[test]
fn i7_a_confirmed_lock_lost_before_its_window_ends_breaks_i7() {
    let d = with_locks(&[lock(claim(1, 1), None, &[0, 1], 20)]);
    let s = server(&d);
    let mut g = Ghost::default();
    g.sent(&env(M1, A, Msg::LockReply { req: 1, result: Ok(claim(1, 1)) }), Some(&s), 0).unwrap();
    g.check_server(M1, Some(&s), &d, &[], 1).unwrap();
    let r = g.check_server(M1, None, &Durable::default(), &[], 1);
    assert_eq!(broke(r), ("I7", "manager 0 lost confirmed lock c1.1".to_owned()));
    // Durable but gone from the running calendar is lost too.
    let forgetful = server(&Durable::default());
    assert_eq!(broke(g.check_server(M1, Some(&forgetful), &d, &[], 1)).0, "I7");
    g.check_server(M1, None, &Durable::default(), &[], 25).unwrap();
}

#[test]
fn i8_a_yes_vote_without_a_durable_prepare_breaks_i8() {
    let mut g = Ghost::default();
    g.sent(&env(M1, M2, Msg::Vote { txn: T, yes: false, reason: None }), None, 0).unwrap();
    g.check_server(M1, None, &Durable::default(), &[], 0).unwrap();
    g.sent(&env(M1, M2, Msg::Vote { txn: T, yes: true, reason: None }), None, 0).unwrap();
    g.check_server(M1, None, &with_prepare(T, 20, 25), &[], 0).unwrap();
    let r = g.check_server(M1, None, &Durable::default(), &[], 0);
    assert_eq!(broke(r), ("I8", "manager 0 voted Yes for t11.1 but kept no prepare record".to_owned()));
    // Once the decision reached it, the record may go.
    g.delivered(&env(M2, M1, Msg::Decision { txn: T, verdict: Verdict::Abort }));
    g.check_server(M1, None, &Durable::default(), &[], 0).unwrap();
}

#[test]
fn i2q_a_prepare_left_or_a_committed_part_unlocked_at_quiescence_breaks_i2q() {
    let g = committed();
    let r = g.check_quiescent(&[(M1, &with_prepare(T, 20, 25))], 1);
    assert_eq!(broke(r), ("I2q", "manager 0 still holds the prepare of t11.1 at quiescence".to_owned()));
    let at_m1 = with_locks(&[lock(claim(1, 1), Some(T), &[0, 1], 20)]);
    let at_m2 = with_locks(&[lock(claim(1, 2), Some(T), &[0], 20)]);
    let r = g.check_quiescent(&[(M1, &at_m1), (M2, &Durable::default())], 1);
    assert_eq!(
        broke(r),
        ("I2q", "t11.1 committed but manager 1 has no lock for it at quiescence".to_owned())
    );
    g.check_quiescent(&[(M1, &at_m1), (M2, &at_m2)], 1).unwrap();
    g.check_quiescent(&[(M1, &at_m1), (M2, &Durable::default())], 25).unwrap();
}

#[test]
fn the_final_check_catches_overlapping_locks_and_undecided_or_misreported_transactions() {
    let decided = |commit| {
        let d = DecisionRecord { txn: T, commit, start: 20, end: 25, parts: vec![] };
        Durable { decisions: BTreeMap::from([(T, (d, true))]), ..Durable::default() }
    };
    // I1: two locks of M1's store share resource 1 over [22, 25).
    let overlapping = with_locks(&[lock(claim(1, 1), None, &[0, 1], 20), lock(claim(1, 2), None, &[1], 22)]);
    let r = Ghost::default().check_final(&[(M1, &overlapping)], 0);
    assert_eq!(broke(r), ("I1", "manager 0 has locks c1.1 and c1.2 on one slot".to_owned()));
    // I3: a lock of T with no commit decision in any store; M2's decision will do.
    let locked = with_locks(&[lock(claim(1, 1), Some(T), &[0], 20)]);
    let r = Ghost::default().check_final(&[(M1, &locked)], 0);
    assert_eq!(broke(r), ("I3", "manager 0 locks t11.1 with no commit decision".to_owned()));
    Ghost::default().check_final(&[(M1, &locked), (M2, &decided(true))], 0).unwrap();
    // I4 and I9: the client was told committed, but the store says abort, or nothing.
    let mut told = Ghost::default();
    told.sent(&env(M2, A, Msg::Outcome { txn: T, committed: true }), None, 0).unwrap();
    let r = told.check_final(&[(M2, &decided(false))], 0);
    assert_eq!(broke(r), ("I4", "t11.1 was announced true but decided false".to_owned()));
    let r = told.check_final(&[(M2, &Durable::default())], 0);
    assert_eq!(broke(r), ("I9", "t11.1 was announced committed with no decision".to_owned()));
    // Told aborted with nothing recorded is presumed abort: fine.
    let mut aborted = Ghost::default();
    aborted.sent(&env(M2, A, Msg::Outcome { txn: T, committed: false }), None, 0).unwrap();
    aborted.check_final(&[(M2, &Durable::default())], 0).unwrap();
}

/// Client A's settings for the clean run: one round of queries, commit at once.
const CLIENT: ClientConfig = ClientConfig {
    max_holds: 2,
    span: 20,
    rto: 4,
    max_tries: 3,
    wait_for: 10,
    give_up: 100,
    max_attempts: 2,
    lead: 2,
    plant: None,
};

#[test]
fn a_real_co_reservation_over_two_nodes_breaks_nothing() {
    let mut ghost = Ghost::default();
    let mut nodes: BTreeMap<NodeId, (Server, MemStore)> = BTreeMap::new();
    let mut queue: VecDeque<Envelope> = VecDeque::new();
    let now = 1;
    for m in [M1, M2] {
        let mut store = MemStore::default();
        let (s, out) = Server::start(m, manager_config(Kind::ALL[0]), COORDINATOR, store.load(), 0).unwrap();
        let batch = persisted(&out);
        store.apply(&batch).unwrap();
        ghost.check_server(m, Some(&s), store.load(), &batch, 0).unwrap();
        nodes.insert(m, (s, store));
    }
    let mut client = Client::new(A, CLIENT);
    let res = Reservation { parts: vec![(M1, 1), (M2, 1)], duration: 5, earliest: 20, latest_start: 40 };
    let sends = |out: Vec<Output>| {
        out.into_iter().filter_map(|o| if let Output::Send(e) = o { Some(e) } else { None })
    };
    for e in sends(client.start(now, res)) {
        ghost.sent(&e, None, now).unwrap();
        queue.push_back(e);
    }
    // Every message delivered once, in order, at one instant: no timer is needed. As in
    // the simulator, a server's step is checked after its sends are noted.
    let mut steps = 0;
    while let Some(e) = queue.pop_front() {
        steps += 1;
        assert!(steps < 200, "the run does not end");
        let to = e.to;
        if to == A {
            for e in sends(client.handle(now, Input::Msg(e))) {
                ghost.sent(&e, None, now).unwrap();
                queue.push_back(e);
            }
            continue;
        }
        ghost.delivered(&e);
        let (s, store) = nodes.get_mut(&to).unwrap();
        let out = s.handle(now, Input::Msg(e));
        let batch = persisted(&out);
        store.apply(&batch).unwrap();
        for e in sends(out) {
            ghost.sent(&e, Some(s), now).unwrap();
            queue.push_back(e);
        }
        ghost.check_server(to, Some(s), store.load(), &batch, now).unwrap();
    }
    assert!(
        matches!(client.outcome(), Some(Outcome::Committed { txn: Some(_), start: 20 })),
        "{:?}",
        client.outcome()
    );
    assert_eq!((ghost.commits, ghost.aborts), (1, 0));
    let stores: Vec<(NodeId, &Durable)> = nodes.iter().map(|(m, (_, st))| (*m, st.load())).collect();
    assert!(stores.iter().all(|(_, d)| d.locks.len() == 1), "one lock at each: {stores:?}");
    ghost.check_quiescent(&stores, now).unwrap();
    ghost.check_final(&stores, now).unwrap();
}
