//! Durable state (`src/durable.rs`): applying records builds the state they describe,
//! re-applied records change nothing, `MemStore` keeps what it is given, and replaying a
//! node's records rebuilds its state whatever the batching, so a restart finds its locks.

use std::collections::BTreeMap;

use coreserve::calendar::ClaimState;
use coreserve::durable::{
    DecisionRecord, Durable, Input, LockRecord, MemStore, PreparedRecord, Record, Store, TimerId,
};
use coreserve::node::Server;
use coreserve::proto::{ClaimId, Msg, NodeId, Part, TxnId};
use structures::{Kind, RangeSet};

use super::{env, manager_config, prio, route, A, COORDINATOR, M1, M2};

const T: TxnId = TxnId { client: A, seq: 1 };
const U: TxnId = TxnId { client: A, seq: 2 };

fn claim(epoch: u32, seq: u64) -> ClaimId {
    ClaimId { epoch, seq }
}

fn lock(seq: u64, txn: Option<TxnId>, start: u64) -> LockRecord {
    LockRecord {
        claim: claim(1, seq),
        holder: A,
        txn,
        ids: RangeSet::from_ids([0, 1]),
        start,
        end: start + 5,
    }
}

fn prepared(txn: TxnId) -> PreparedRecord {
    PreparedRecord {
        txn,
        coordinator: M2,
        prio: prio(A),
        claims: vec![(claim(1, 9), RangeSet::from_ids([2]))],
        start: 40,
        end: 45,
    }
}

fn decision(txn: TxnId, commit: bool) -> DecisionRecord {
    let parts = vec![
        Part { manager: M1, claims: vec![claim(1, 1)], n: 2 },
        Part { manager: M2, claims: vec![claim(1, 7)], n: 1 },
    ];
    DecisionRecord { txn, commit, start: 20, end: 25, parts }
}

#[test]
fn applying_records_builds_the_state_they_describe() {
    let (l1, l2) = (lock(1, Some(T), 20), lock(2, None, 30));
    let mut d = Durable::default();
    d.apply(&[
        Record::Epoch(1),
        Record::Lock(l1.clone()),
        Record::Lock(l2.clone()),
        Record::Prepared(prepared(U)),
        Record::Decision(decision(T, true)),
        Record::End(T),
        Record::DelLock(l1.claim),
        Record::Epoch(2),
    ]);
    let expected = Durable {
        epoch: 2,
        locks: BTreeMap::from([(l2.claim, l2)]),
        prepared: BTreeMap::from([(U, prepared(U))]),
        decisions: BTreeMap::from([(T, (decision(T, true), true))]),
    };
    assert_eq!(d, expected);
    d.apply(&[Record::DelPrepared(U), Record::Decision(decision(U, false))]);
    assert!(d.prepared.is_empty());
    assert_eq!(d.decisions[&U], (decision(U, false), false), "an abort is not ended");
}

#[test]
fn re_applied_records_change_nothing() {
    let base = [
        Record::Epoch(1),
        Record::Lock(lock(1, None, 20)),
        Record::Prepared(prepared(U)),
        Record::Decision(decision(T, true)),
    ];
    let mut once = Durable::default();
    once.apply(&base);
    for record in &base {
        let mut again = once.clone();
        again.apply(std::slice::from_ref(record));
        assert_eq!(again, once, "{record:?} applied twice");
    }
    // Ending twice is ending once; an end or a delete of what is not there invents or
    // removes nothing.
    let mut ended = once.clone();
    ended.apply(&[Record::End(T)]);
    let mut twice = ended.clone();
    twice.apply(&[Record::End(T), Record::End(U), Record::DelLock(claim(1, 99)), Record::DelPrepared(T)]);
    assert_eq!(twice, ended);
    assert!(ended.decisions[&T].1, "ended");
    assert!(!ended.decisions.contains_key(&U));
}

#[test]
fn a_mem_store_loads_what_it_applied_and_an_empty_batch_changes_nothing() {
    let batch = [Record::Epoch(3), Record::Lock(lock(1, None, 20)), Record::Decision(decision(T, false))];
    let mut store = MemStore::default();
    assert_eq!(store.load(), &Durable::default());
    store.apply(&batch).unwrap();
    store.apply(&[]).unwrap();
    let mut d = Durable::default();
    d.apply(&batch);
    assert_eq!(store.load(), &d);
}

/// Node M1's life: a one-manager lock, a co-reservation it coordinates and takes part in
/// (M2's part answered by hand), the first lock's window passing, then a restart.
/// Returns the batches it made durable, in order, and the node before the restart.
fn a_nodes_life(kind: Kind) -> (Vec<Vec<Record>>, Server) {
    let (mut node, out) =
        Server::start(M1, manager_config(kind), COORDINATOR, &Durable::default(), 0).unwrap();
    let mut batches = vec![super::persisted(&out)];
    let mut step = |node: &mut Server, now: u64, from: NodeId, msg: Msg| {
        let (b, away) = route(node, M1, now, Input::Msg(env(from, M1, msg)));
        batches.extend(b);
        away
    };
    step(&mut node, 0, A, Msg::Hold { req: 1, prio: prio(A), n: 2, start: 20, end: 25 });
    step(&mut node, 0, A, Msg::Lock { req: 2, claim: claim(1, 1) });
    step(&mut node, 0, A, Msg::Hold { req: 3, prio: prio(A), n: 1, start: 30, end: 35 });
    let parts = vec![
        Part { manager: M1, claims: vec![claim(1, 2)], n: 1 },
        Part { manager: M2, claims: vec![claim(1, 7)], n: 1 },
    ];
    let away = step(&mut node, 1, A, Msg::CommitReq { txn: T, start: 30, end: 35, parts });
    assert!(away.iter().any(|(to, m)| *to == M2 && m.kind() == "Prepare"), "{away:?}");
    let away = step(&mut node, 2, M2, Msg::Vote { txn: T, yes: true, reason: None });
    assert!(away.contains(&(A, Msg::Outcome { txn: T, committed: true })), "{away:?}");
    step(&mut node, 3, M2, Msg::Ack { txn: T });
    // The one-manager lock's window [20, 25) passes.
    let (b, _) = route(&mut node, M1, 26, Input::Timer(TimerId::Deadline));
    batches.extend(b);
    (batches, node)
}

#[test]
fn replaying_a_nodes_records_rebuilds_its_state_whatever_the_batching() {
    for &kind in Kind::ALL {
        let (batches, node) = a_nodes_life(kind);
        let mut store = MemStore::default();
        for b in &batches {
            store.apply(b).unwrap();
        }
        let all: Vec<Record> = batches.concat();
        let mut replayed = Durable::default();
        replayed.apply(&all);
        assert_eq!(&replayed, store.load(), "{kind}: one batch");
        let mut one_by_one = Durable::default();
        for r in &all {
            one_by_one.apply(std::slice::from_ref(r));
        }
        assert_eq!(&one_by_one, store.load(), "{kind}: one record at a time");
        // Worked by hand: the co-reservation's lock at M1 and its ended decision.
        let txn_lock = LockRecord {
            claim: claim(1, 2),
            holder: A,
            txn: Some(T),
            ids: RangeSet::from_ids([0]),
            start: 30,
            end: 35,
        };
        let parts = vec![
            Part { manager: M1, claims: vec![claim(1, 2)], n: 1 },
            Part { manager: M2, claims: vec![claim(1, 7)], n: 1 },
        ];
        let expected = Durable {
            epoch: 1,
            locks: BTreeMap::from([(txn_lock.claim, txn_lock)]),
            prepared: BTreeMap::new(),
            decisions: BTreeMap::from([(
                T,
                (DecisionRecord { txn: T, commit: true, start: 30, end: 35, parts }, true),
            )]),
        };
        assert_eq!(&replayed, &expected, "{kind}");
        // A restart from the replayed state finds the lock it had, under a new epoch.
        let locked = |s: &Server| -> Vec<(ClaimId, RangeSet, u64, u64)> {
            s.manager
                .calendar()
                .claims()
                .iter()
                .filter(|(_, c)| matches!(c.state, ClaimState::Locked { .. }))
                .map(|(id, c)| (*id, c.ids.clone(), c.start, c.end))
                .collect()
        };
        let (restarted, out) = Server::start(M1, manager_config(kind), COORDINATOR, &replayed, 27).unwrap();
        assert_eq!(locked(&restarted), locked(&node), "{kind}");
        assert_eq!(super::persisted(&out), vec![Record::Epoch(2)], "{kind}");
    }
}
