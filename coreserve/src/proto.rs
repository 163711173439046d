//! The protocol's identifiers and messages (calendar-token-reservation §3, "Agent
//! Primitives", and §4, "Multiple Resource Managers"). The paper names the primitives
//! (query, lock, release, wait, and the server's recall agent) but no fields; the fields
//! here are ours (design note D10).

use std::fmt;

use serde::{Deserialize, Serialize};

use structures::{RangeSet, Time};

use super::error::CalError;

/// A node of the system: a server (a manager with its coordinator) or a client.
pub type NodeId = u32;

/// A client, named by its node.
pub type ClientId = NodeId;

/// A request number, strictly increasing per client; `(client, req)` is the key that
/// makes a retried request idempotent.
pub type ReqId = u64;

/// A reservation's priority: the client's Lamport timestamp when the reservation began,
/// then the client; smaller is higher (older first), so a retrying reservation only
/// gets older and cannot starve (design note D7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Priority {
    /// The client's clock when the reservation started.
    pub ts: u64,
    /// The client, to break ties.
    pub client: ClientId,
}

/// A claim on a manager's calendar: the manager's incarnation and a counter, so that a
/// claim issued before a crash never matches one issued after it (D17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ClaimId {
    /// The manager's epoch when it issued the claim.
    pub epoch: u32,
    /// The claim's number within the epoch.
    pub seq: u64,
}

impl fmt::Display for ClaimId {
    /// `c<epoch>.<seq>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "c{}.{}", self.epoch, self.seq)
    }
}

/// One commit attempt of a client: fresh per attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnId {
    /// The client asking to commit.
    pub client: ClientId,
    /// Its attempt counter.
    pub seq: u64,
}

impl fmt::Display for TxnId {
    /// `t<client>.<seq>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}.{}", self.client, self.seq)
    }
}

/// A hold a manager granted: the claim, its ids and window, and the instant it lapses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldGrant {
    /// The claim to name in `Lock`, `Release` and `Prepare`.
    pub claim: ClaimId,
    /// The resources held.
    pub ids: RangeSet,
    /// First instant of the window.
    pub start: Time,
    /// First instant after the window.
    pub end: Time,
    /// The hold is usable while `now < deadline` (D13).
    pub deadline: Time,
}

/// One manager's share of a co-reservation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    /// The manager.
    pub manager: NodeId,
    /// The holds to lock there.
    pub claims: Vec<ClaimId>,
    /// How many resources they hold.
    pub n: u32,
}

/// How a wait ended without a grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WaitEnd {
    /// Its `until` passed.
    Expired,
    /// Part of its region was locked by someone else: it can never be granted.
    Locked,
}

/// A coordinator's answer about a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Lock the prepared holds.
    Commit,
    /// Release them.
    Abort,
    /// Not decided yet: ask again later.
    Pending,
}

/// A message (the envelope carries sender and receiver).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Msg {
    /// The agent (§4 step 1): hold up to `max_holds` windows of `n` ids for `duration`
    /// starting in `[from, to - duration]`, and report which starts are dead (fewer than
    /// `n` ids the client may see are unlocked there).
    Query {
        /// Request number.
        req: ReqId,
        /// The reservation's priority.
        prio: Priority,
        /// Earliest start.
        from: Time,
        /// Latest end.
        to: Time,
        /// Window length.
        duration: Time,
        /// Resources per window.
        n: u32,
        /// The most holds to grant.
        max_holds: u32,
    },
    /// The agent's answer.
    QueryReply {
        /// The request answered.
        req: ReqId,
        /// The holds granted, earliest first.
        holds: Vec<HoldGrant>,
        /// Candidate starts where the reservation can never fit (possibly stale).
        dead: Vec<Time>,
    },
    /// Hold `n` ids over `[start, end)` now or fail (a wait that refuses to queue).
    Hold {
        /// Request number.
        req: ReqId,
        /// The reservation's priority.
        prio: Priority,
        /// Resources wanted.
        n: u32,
        /// First instant.
        start: Time,
        /// First instant after.
        end: Time,
    },
    /// The answer to `Hold`.
    HoldReply {
        /// The request answered.
        req: ReqId,
        /// The grant or why not.
        result: Result<HoldGrant, CalError>,
    },
    /// Enter the queue for `n` ids over `[start, end)` until `until` (§4 step 3).
    Wait {
        /// Request number.
        req: ReqId,
        /// The reservation's priority.
        prio: Priority,
        /// Resources wanted.
        n: u32,
        /// First instant.
        start: Time,
        /// First instant after.
        end: Time,
        /// When to stop waiting.
        until: Time,
    },
    /// The answer to `Wait`: a grant at once (`Ok(Some)`), queued (`Ok(None)`), or why not.
    WaitReply {
        /// The request answered.
        req: ReqId,
        /// The outcome.
        result: Result<Option<HoldGrant>, CalError>,
    },
    /// A queued wait was granted.
    Granted {
        /// The wait's request.
        req: ReqId,
        /// The hold.
        grant: HoldGrant,
    },
    /// A queued wait ended without a grant.
    WaitEnded {
        /// The wait's request.
        req: ReqId,
        /// Why.
        reason: WaitEnd,
    },
    /// Release held slots (locked slots are read-only, §3).
    Release {
        /// Request number.
        req: ReqId,
        /// The holds.
        claims: Vec<ClaimId>,
    },
    /// The answer to `Release`.
    Released {
        /// The request answered.
        req: ReqId,
        /// Claims released now, or already gone (a retried release).
        released: Vec<ClaimId>,
        /// Claims not released, and why.
        refused: Vec<(ClaimId, CalError)>,
    },
    /// Lock a held slot directly: a reservation at one manager needs no two-phase
    /// commit (D8).
    Lock {
        /// Request number.
        req: ReqId,
        /// The hold.
        claim: ClaimId,
    },
    /// The answer to `Lock`.
    LockReply {
        /// The request answered.
        req: ReqId,
        /// The locked claim or why not.
        result: Result<ClaimId, CalError>,
    },
    /// The server's agent asking back a hold for a higher-priority client (§3): lock it
    /// before `deadline` or lose it.
    Recall {
        /// The hold.
        claim: ClaimId,
        /// When it lapses.
        deadline: Time,
    },
    /// A hold lapsed (informational; may be lost).
    Expired {
        /// The hold.
        claim: ClaimId,
    },
    /// A client asks a coordinator to commit a co-reservation.
    CommitReq {
        /// The attempt.
        txn: TxnId,
        /// First instant of the common window.
        start: Time,
        /// First instant after it.
        end: Time,
        /// Every manager's share (two or more).
        parts: Vec<Part>,
    },
    /// The coordinator's answer to the client.
    Outcome {
        /// The attempt.
        txn: TxnId,
        /// Committed (`true`) or aborted.
        committed: bool,
    },
    /// Phase 1: are all these holds in place?
    Prepare {
        /// The attempt.
        txn: TxnId,
        /// The client whose holds they must be.
        client: ClientId,
        /// The window every claim must have.
        start: Time,
        /// Its end.
        end: Time,
        /// The holds.
        claims: Vec<ClaimId>,
    },
    /// A participant's vote.
    Vote {
        /// The attempt.
        txn: TxnId,
        /// Yes: prepared, durably.
        yes: bool,
        /// Why no.
        reason: Option<CalError>,
    },
    /// Phase 2: lock.
    Commit {
        /// The attempt.
        txn: TxnId,
        /// The window's end, so that a late duplicate after the window passed is
        /// acknowledged rather than reported unknown.
        end: Time,
    },
    /// Locked, durably.
    Ack {
        /// The attempt.
        txn: TxnId,
    },
    /// Phase 2: release (not acknowledged: presumed abort).
    Abort {
        /// The attempt.
        txn: TxnId,
        /// The holds at this manager.
        claims: Vec<ClaimId>,
    },
    /// A prepared participant asks for the decision.
    DecisionQuery {
        /// The attempt.
        txn: TxnId,
    },
    /// The coordinator's answer to `DecisionQuery`.
    Decision {
        /// The attempt.
        txn: TxnId,
        /// The decision.
        verdict: Verdict,
    },
    /// A request was refused outright.
    Error {
        /// The request, for client requests.
        req: Option<ReqId>,
        /// The transaction, for protocol messages.
        txn: Option<TxnId>,
        /// Why.
        error: CalError,
    },
}

impl Msg {
    /// The message's name, for counts and traces.
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Query { .. } => "Query",
            Msg::QueryReply { .. } => "QueryReply",
            Msg::Hold { .. } => "Hold",
            Msg::HoldReply { .. } => "HoldReply",
            Msg::Wait { .. } => "Wait",
            Msg::WaitReply { .. } => "WaitReply",
            Msg::Granted { .. } => "Granted",
            Msg::WaitEnded { .. } => "WaitEnded",
            Msg::Release { .. } => "Release",
            Msg::Released { .. } => "Released",
            Msg::Lock { .. } => "Lock",
            Msg::LockReply { .. } => "LockReply",
            Msg::Recall { .. } => "Recall",
            Msg::Expired { .. } => "Expired",
            Msg::CommitReq { .. } => "CommitReq",
            Msg::Outcome { .. } => "Outcome",
            Msg::Prepare { .. } => "Prepare",
            Msg::Vote { .. } => "Vote",
            Msg::Commit { .. } => "Commit",
            Msg::Ack { .. } => "Ack",
            Msg::Abort { .. } => "Abort",
            Msg::DecisionQuery { .. } => "DecisionQuery",
            Msg::Decision { .. } => "Decision",
            Msg::Error { .. } => "Error",
        }
    }

    /// The holds it grants: a query's, a hold's or a wait's answer, or a queued wait's
    /// grant.
    pub fn grants(&self) -> Vec<&HoldGrant> {
        match self {
            Msg::QueryReply { holds, .. } => holds.iter().collect(),
            Msg::HoldReply { result: Ok(g), .. }
            | Msg::WaitReply { result: Ok(Some(g)), .. }
            | Msg::Granted { grant: g, .. } => vec![g],
            _ => Vec::new(),
        }
    }

    /// Whether a client sends it to a server: the only messages a server takes from a
    /// node that is not one of its configured managers.
    pub fn from_client(&self) -> bool {
        matches!(
            self,
            Msg::Query { .. }
                | Msg::Hold { .. }
                | Msg::Wait { .. }
                | Msg::Release { .. }
                | Msg::Lock { .. }
                | Msg::CommitReq { .. }
        )
    }

    /// The managers it names in its body (a commit request's parts), beside the
    /// envelope's sender and receiver.
    pub fn managers(&self) -> Vec<NodeId> {
        match self {
            Msg::CommitReq { parts, .. } => parts.iter().map(|p| p.manager).collect(),
            _ => Vec::new(),
        }
    }

    /// The client a client's request speaks for: its priority's owner, or its
    /// transaction's client; `None` for the others.
    pub fn on_behalf_of(&self) -> Option<ClientId> {
        match self {
            Msg::Query { prio, .. } | Msg::Hold { prio, .. } | Msg::Wait { prio, .. } => Some(prio.client),
            Msg::CommitReq { txn, .. } => Some(txn.client),
            _ => None,
        }
    }

    /// Whether a server's coordinator (not its manager) handles it.
    pub fn for_coordinator(&self) -> bool {
        matches!(self, Msg::CommitReq { .. } | Msg::Vote { .. } | Msg::Ack { .. } | Msg::DecisionQuery { .. })
    }
}

/// A message in transit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// The sender.
    pub from: NodeId,
    /// The receiver.
    pub to: NodeId,
    /// The message.
    pub msg: Msg,
}
