//! The services' durable store: one redb table of JSON records, written in one
//! transaction per step before any message of the step leaves (the write-ahead rule).
//! redb's default durability makes a transaction persistent once `commit` returns, so a
//! `kill -9` after it loses nothing.

use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use coreserve::durable::{DecisionRecord, Durable, LockRecord, PreparedRecord, Record, Store, StoreError};
use coreserve::proto::{ClaimId, TxnId};

/// Every record, keyed `epoch`, `lock/<claim>`, `prep/<txn>`, `dec/<txn>`. (Stores
/// written before membership was configured also hold `peer/<node>` keys: ignored.)
const RECORDS: TableDefinition<&str, &[u8]> = TableDefinition::new("records");

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

fn lock_key(c: ClaimId) -> String {
    format!("lock/{c}")
}

fn prep_key(t: TxnId) -> String {
    format!("prep/{t}")
}

fn dec_key(t: TxnId) -> String {
    format!("dec/{t}")
}

/// A node's durable state in a redb file, with a copy in memory for reading.
#[derive(Debug)]
pub struct RedbStore {
    db: Database,
    state: Durable,
}

impl RedbStore {
    /// Opens (or creates) the store at `path` and reads it.
    ///
    /// # Errors
    /// When the file cannot be opened or holds a record that does not parse.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let db = Database::create(path).map_err(err)?;
        let mut state = Durable::default();
        {
            let txn = db.begin_write().map_err(err)?;
            txn.open_table(RECORDS).map_err(err)?;
            txn.commit().map_err(err)?;
        }
        let txn = db.begin_read().map_err(err)?;
        let table = txn.open_table(RECORDS).map_err(err)?;
        for item in table.iter().map_err(err)? {
            let (k, v) = item.map_err(err)?;
            let (key, bytes) = (k.value(), v.value());
            let bad = |e: serde_json::Error| StoreError(format!("record {key}: {e}"));
            if key == "epoch" {
                state.epoch = serde_json::from_slice(bytes).map_err(bad)?;
            } else if key.starts_with("lock/") {
                let l: LockRecord = serde_json::from_slice(bytes).map_err(bad)?;
                state.locks.insert(l.claim, l);
            } else if key.starts_with("prep/") {
                let p: PreparedRecord = serde_json::from_slice(bytes).map_err(bad)?;
                state.prepared.insert(p.txn, p);
            } else if key.starts_with("dec/") {
                let d: (DecisionRecord, bool) = serde_json::from_slice(bytes).map_err(bad)?;
                state.decisions.insert(d.0.txn, d);
            }
        }
        drop(table);
        drop(txn);
        Ok(Self { db, state })
    }

    fn write(&self, batch: &[Record]) -> Result<(), StoreError> {
        let json = |v: &dyn erased::Json| v.bytes();
        let txn = self.db.begin_write().map_err(err)?;
        {
            let mut table = txn.open_table(RECORDS).map_err(err)?;
            let mut ended: Vec<TxnId> = Vec::new();
            for record in batch {
                match record {
                    Record::Epoch(e) => table.insert("epoch", json(e)?.as_slice()).map(drop),
                    Record::Lock(l) => {
                        table.insert(lock_key(l.claim).as_str(), json(l)?.as_slice()).map(drop)
                    }
                    Record::DelLock(c) => table.remove(lock_key(*c).as_str()).map(drop),
                    Record::Prepared(p) => {
                        table.insert(prep_key(p.txn).as_str(), json(p)?.as_slice()).map(drop)
                    }
                    Record::DelPrepared(t) => table.remove(prep_key(*t).as_str()).map(drop),
                    Record::Decision(d) => {
                        let v = json(&(d.clone(), ended.contains(&d.txn)))?;
                        table.insert(dec_key(d.txn).as_str(), v.as_slice()).map(drop)
                    }
                    Record::End(t) => {
                        ended.push(*t);
                        let key = dec_key(*t);
                        let old = table.get(key.as_str()).map_err(err)?.map(|v| v.value().to_vec());
                        match old {
                            Some(bytes) => {
                                let (d, _): (DecisionRecord, bool) =
                                    serde_json::from_slice(&bytes).map_err(err)?;
                                table.insert(key.as_str(), json(&(d, true))?.as_slice()).map(drop)
                            }
                            None => Ok(()),
                        }
                    }
                }
                .map_err(err)?;
            }
        }
        txn.commit().map_err(err)
    }
}

/// JSON encoding behind a trait object, so that one closure encodes every record type.
mod erased {
    use super::{err, StoreError};

    /// A value that encodes to JSON.
    pub trait Json {
        /// Its JSON bytes.
        fn bytes(&self) -> Result<Vec<u8>, StoreError>;
    }

    impl<T: serde::Serialize> Json for T {
        fn bytes(&self) -> Result<Vec<u8>, StoreError> {
            serde_json::to_vec(self).map_err(err)
        }
    }
}

impl Store for RedbStore {
    fn apply(&mut self, batch: &[Record]) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        self.write(batch)?;
        self.state.apply(batch);
        Ok(())
    }

    fn load(&self) -> &Durable {
        &self.state
    }
}
