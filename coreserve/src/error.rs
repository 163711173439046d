//! Why a calendar, a manager or a coordinator refused a request: one error type for the
//! calendar layer and the protocol around it, each naming what was asked and where.

use structures::{RangeSet, Time};

use super::proto::{ClaimId, ClientId, TxnId};

/// Why the calendar (or the protocol around it) refused a request. Each names what was
/// asked and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum CalError {
    /// A slot outside the calendar: a window before now or past the horizon, an empty
    /// window or set, an id at or above the capacity, or a bad count.
    #[error("slot outside the calendar: {0}")]
    Outside(structures::Error),
    /// The client is not on the access list of these ids (§3).
    #[error("client {client} is not on the access list of resources {ids} over [{start}, {end})")]
    AccessDenied {
        /// The client.
        client: ClientId,
        /// The ids it may not use.
        ids: RangeSet,
        /// First instant.
        start: Time,
        /// First instant after.
        end: Time,
    },
    /// Some ids are held or locked by others.
    #[error("resources {ids} are not available throughout [{start}, {end})")]
    Busy {
        /// The ids that are not available.
        ids: RangeSet,
        /// First instant.
        start: Time,
        /// First instant after.
        end: Time,
    },
    /// Fewer than the ids asked for can ever be had here: the rest are locked.
    #[error("only {unlocked} resources are not locked over [{start}, {end}); {n} were asked for")]
    Locked {
        /// Resources asked for.
        n: u32,
        /// Resources the client may see that are not locked.
        unlocked: u32,
        /// First instant.
        start: Time,
        /// First instant after.
        end: Time,
    },
    /// The free ids are promised to a queued waiter of higher priority (D12).
    #[error("resources over [{start}, {end}) are reserved for a waiter of higher priority")]
    ReservedForWaiter {
        /// First instant.
        start: Time,
        /// First instant after.
        end: Time,
    },
    /// No such hold (never granted, or forgotten).
    #[error("unknown hold {claim}")]
    UnknownHold {
        /// The claim.
        claim: ClaimId,
    },
    /// The hold lapsed.
    #[error("hold {claim} expired at {deadline} (now {now})")]
    HoldExpired {
        /// The claim.
        claim: ClaimId,
        /// Its deadline.
        deadline: Time,
        /// The present.
        now: Time,
    },
    /// The hold was granted before the manager restarted, so it is gone.
    #[error("hold {claim} is from epoch {}, before the manager's restart (epoch {current})", claim.epoch)]
    StaleEpoch {
        /// The claim.
        claim: ClaimId,
        /// The manager's epoch.
        current: u32,
    },
    /// Somebody else's hold.
    #[error("hold {claim} belongs to client {holder}, not {client}")]
    NotHolder {
        /// The claim.
        claim: ClaimId,
        /// Its holder.
        holder: ClientId,
        /// Who asked.
        client: ClientId,
    },
    /// A locked slot is read-only (§3).
    #[error("hold {claim} is locked: locked slots cannot be released or locked again")]
    AlreadyLocked {
        /// The claim.
        claim: ClaimId,
    },
    /// A prepared hold waits for its transaction's decision.
    #[error("hold {claim} is prepared for {txn} and awaits its decision")]
    Prepared {
        /// The claim.
        claim: ClaimId,
        /// Its transaction.
        txn: TxnId,
    },
    /// A prepare names a claim whose window is not the transaction's.
    #[error("hold {claim} covers [{start}, {end}), not the transaction's window")]
    WindowMismatch {
        /// The claim.
        claim: ClaimId,
        /// Its first instant.
        start: Time,
        /// Its end.
        end: Time,
    },
    /// A commit for a transaction this manager never prepared.
    #[error("commit for unknown transaction {txn}")]
    UnknownTxn {
        /// The transaction.
        txn: TxnId,
    },
    /// A prepare after the transaction was aborted here.
    #[error("transaction {txn} was aborted")]
    TxnAborted {
        /// The transaction.
        txn: TxnId,
    },
    /// An abort for a transaction this manager committed: a protocol bug.
    #[error("abort for transaction {txn}, which was committed")]
    ConflictingDecision {
        /// The transaction.
        txn: TxnId,
    },
    /// A malformed request: what is wrong with it.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The index refused what the layer allowed: the two disagree (a bug).
    #[error("the index disagrees with the claims: {0}")]
    Index(structures::Error),
}
