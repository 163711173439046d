//! What the sans-IO machines take and give back, and the durable state behind them.
//!
//! A step returns [`Output`]s. The runtime (the simulator now, a server later) applies
//! every [`Output::Persist`] of the step as one atomic batch **before** it sends any
//! message of that step (the write-ahead rule), then arms the timers. A crash loses the
//! machines' memory and keeps the [`Store`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use structures::{RangeSet, Time};

use super::proto::{ClaimId, ClientId, Envelope, NodeId, Part, Priority, TxnId};

/// A timer of a node; setting one replaces the same id's earlier setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimerId {
    /// Manager: the earliest hold deadline or wait end.
    Deadline,
    /// Manager: ask the coordinator about a prepared transaction again.
    Inquiry(TxnId),
    /// Coordinator: stop waiting for votes.
    VoteTimeout(TxnId),
    /// Coordinator: resend `Prepare` to the silent, or `Commit` to the unacknowledged.
    Resend(TxnId),
    /// Client: resend a request that has no answer.
    Retry(u64),
    /// Client: a queued wait that has not ended by now is given up.
    WaitOver(u64),
    /// Client: resend the commit request.
    CommitRetry,
    /// Client: give up the reservation.
    GiveUp,
}

/// An input of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A delivered message.
    Msg(Envelope),
    /// A timer that fired.
    Timer(TimerId),
}

/// An effect of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Make this durable before any send of the step.
    Persist(Record),
    /// Send this.
    Send(Envelope),
    /// Fire `id` at `at` (replacing its earlier setting).
    SetTimer {
        /// Which timer.
        id: TimerId,
        /// When.
        at: Time,
    },
    /// Forget `id`.
    CancelTimer(TimerId),
}

/// A lock as stored: it survives crashes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockRecord {
    /// The claim locked.
    pub claim: ClaimId,
    /// Its client.
    pub holder: ClientId,
    /// The co-reservation it belongs to (`None` for a one-manager lock).
    pub txn: Option<TxnId>,
    /// Its resources.
    pub ids: RangeSet,
    /// First instant.
    pub start: Time,
    /// First instant after.
    pub end: Time,
}

/// A participant's durable Yes vote: its claims stay held until the decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreparedRecord {
    /// The attempt.
    pub txn: TxnId,
    /// Whom to ask about it.
    pub coordinator: NodeId,
    /// The client's priority.
    pub prio: Priority,
    /// The claims and their cells.
    pub claims: Vec<(ClaimId, RangeSet)>,
    /// First instant.
    pub start: Time,
    /// First instant after.
    pub end: Time,
}

/// A coordinator's decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionRecord {
    /// The attempt.
    pub txn: TxnId,
    /// Commit (`true`) or abort.
    pub commit: bool,
    /// The window.
    pub start: Time,
    /// Its end.
    pub end: Time,
    /// Every manager's share (empty for an abort the coordinator never began).
    pub parts: Vec<Part>,
}

/// One durable write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// The manager's incarnation, written before it serves.
    Epoch(u32),
    /// A lock.
    Lock(LockRecord),
    /// A lock whose window has passed.
    DelLock(ClaimId),
    /// A Yes vote.
    Prepared(PreparedRecord),
    /// A vote resolved.
    DelPrepared(TxnId),
    /// A decision.
    Decision(DecisionRecord),
    /// Every participant acknowledged the commit.
    End(TxnId),
}

/// Everything a server node keeps across crashes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Durable {
    /// The manager's last epoch (0 for a new store).
    pub epoch: u32,
    /// Its locks.
    pub locks: BTreeMap<ClaimId, LockRecord>,
    /// Its Yes votes.
    pub prepared: BTreeMap<TxnId, PreparedRecord>,
    /// The coordinator's decisions, and whether each has ended.
    pub decisions: BTreeMap<TxnId, (DecisionRecord, bool)>,
}

/// Why a store could not apply a batch (the batch is then not applied).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("store: {0}")]
pub struct StoreError(pub String);

/// Durable storage for one server node: [`MemStore`] is the in-memory one the simulator
/// uses, [`RedbStore`](super::service::store::RedbStore) the embedded database the
/// services use.
pub trait Store {
    /// Applies one step's records as one atomic batch.
    ///
    /// # Errors
    /// When the batch could not be made durable; the store is then unchanged.
    fn apply(&mut self, batch: &[Record]) -> Result<(), StoreError>;
    /// What survives a crash.
    fn load(&self) -> &Durable;
}

/// A store kept in memory, outliving the machines it serves (the simulator keeps it
/// across a node's crash).
#[derive(Debug, Clone, Default)]
pub struct MemStore {
    state: Durable,
}

impl Store for MemStore {
    fn apply(&mut self, batch: &[Record]) -> Result<(), StoreError> {
        self.state.apply(batch);
        Ok(())
    }

    fn load(&self) -> &Durable {
        &self.state
    }
}

impl Durable {
    /// Applies `batch` to this state in memory.
    pub fn apply(&mut self, batch: &[Record]) {
        let s = self;
        for record in batch {
            match record {
                Record::Epoch(e) => s.epoch = *e,
                Record::Lock(l) => {
                    s.locks.insert(l.claim, l.clone());
                }
                Record::DelLock(c) => {
                    s.locks.remove(c);
                }
                Record::Prepared(p) => {
                    s.prepared.insert(p.txn, p.clone());
                }
                Record::DelPrepared(t) => {
                    s.prepared.remove(t);
                }
                Record::Decision(d) => {
                    s.decisions.insert(d.txn, (d.clone(), false));
                }
                Record::End(t) => {
                    if let Some(entry) = s.decisions.get_mut(t) {
                        entry.1 = true;
                    }
                }
            }
        }
    }
}
