//! The redb store keeps every record across a reopen, as the in-memory one does.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use coreserve::durable::{DecisionRecord, LockRecord, MemStore, PreparedRecord, Record, Store};
use coreserve::proto::{ClaimId, Part, Priority, TxnId};
use coreserve_service::store::RedbStore;
use structures::RangeSet;

#[test]
fn a_reopened_store_holds_what_was_applied() {
    let dir = scratch("store");
    let path = dir.join("m.redb");
    let txn = TxnId { client: 7, seq: 1 };
    let claim = ClaimId { epoch: 1, seq: 3 };
    let lock = LockRecord {
        claim,
        holder: 7,
        txn: Some(txn),
        ids: RangeSet::from_range(0, 2),
        start: 100,
        end: 200,
    };
    let prepared = PreparedRecord {
        txn: TxnId { client: 8, seq: 2 },
        coordinator: 1,
        prio: Priority { ts: 5, client: 8 },
        claims: vec![(ClaimId { epoch: 1, seq: 4 }, RangeSet::from_range(2, 3))],
        start: 100,
        end: 300,
    };
    let decision = DecisionRecord {
        txn,
        commit: true,
        start: 100,
        end: 200,
        parts: vec![Part { manager: 0, claims: vec![claim], n: 2 }],
    };
    let batches = [
        vec![Record::Epoch(1)],
        vec![Record::Prepared(prepared.clone()), Record::Decision(decision)],
        vec![Record::Lock(lock), Record::End(txn)],
        vec![Record::Lock(LockRecord { claim: ClaimId { epoch: 1, seq: 9 }, ..prepared_lock(&prepared) })],
        vec![
            Record::DelLock(ClaimId { epoch: 1, seq: 9 }),
            Record::DelPrepared(prepared.txn),
            Record::Epoch(2),
        ],
    ];
    let mut mem = MemStore::default();
    {
        let mut db = RedbStore::open(&path).expect("open");
        for b in &batches {
            db.apply(b).expect("apply");
            mem.apply(b).expect("apply");
        }
        db.set_peer(3, "127.0.0.1:9").expect("peer");
        assert_eq!(db.load(), mem.load());
    }
    let db = RedbStore::open(&path).expect("reopen");
    assert_eq!(db.load(), mem.load());
    assert_eq!(db.peers(), &[(3, "127.0.0.1:9".to_owned())]);
    let _ = std::fs::remove_dir_all(&dir);
}

fn prepared_lock(p: &PreparedRecord) -> LockRecord {
    LockRecord {
        claim: p.claims[0].0,
        holder: p.txn.client,
        txn: None,
        ids: p.claims[0].1.clone(),
        start: p.start,
        end: p.end,
    }
}

/// A fresh directory of this test run's own, named by `what`, the process and the time.
fn scratch(what: &str) -> PathBuf {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("resbench-{what}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}
