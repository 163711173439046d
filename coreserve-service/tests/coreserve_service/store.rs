//! The redb store keeps every record across a reopen, as the in-memory one does.

use coreserve::durable::{LockRecord, MemStore, PreparedRecord, Record, Store};
use coreserve::proto::ClaimId;
use coreserve_service::store::RedbStore;

use super::records;

#[test]
fn a_reopened_store_holds_what_was_applied() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.redb");
    let (lock, prepared, decision) = records();
    let txn = decision.txn;
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
        assert_eq!(db.load(), mem.load());
    }
    let db = RedbStore::open(&path).expect("reopen");
    assert_eq!(db.load(), mem.load());
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
