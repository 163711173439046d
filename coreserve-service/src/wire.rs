//! What travels over HTTP: a posted envelope with the sender's address, a node's status
//! and durable state, and the JSON error a refused post gets.

use serde::{Deserialize, Serialize};
use structures::Time;

use coreserve::durable::{DecisionRecord, Durable, LockRecord, PreparedRecord};
use coreserve::limits::{MAX_ADDR, MAX_BODY};
use coreserve::proto::{Envelope, NodeId};

/// `POST /v1/inbox`: a message and where its sender listens (used for clients only:
/// managers' addresses are configured).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Post {
    /// `host:port` of the sender.
    pub reply_to: String,
    /// The message.
    pub env: Envelope,
}

/// `GET /v1/status`: a server node's counters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// The node.
    pub id: NodeId,
    /// Its incarnation.
    pub epoch: u32,
    /// Its clock.
    pub now: Time,
    /// Messages it accepted.
    pub received: u64,
    /// Messages it posted.
    pub sent: u64,
    /// Messages it could not post (no address, or the post failed).
    pub dropped: u64,
    /// Posts it refused for naming a node outside its membership.
    pub refused: u64,
    /// Durable locks.
    pub locks: usize,
    /// Durable Yes votes.
    pub prepared: usize,
    /// Durable decisions.
    pub decisions: usize,
    /// Its calendar's check: `None` when it holds.
    pub broken: Option<String>,
}

/// `GET /v1/state`: a server node's durable state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The node.
    pub id: NodeId,
    /// Its clock.
    pub now: Time,
    /// Its epoch.
    pub epoch: u32,
    /// Its locks.
    pub locks: Vec<LockRecord>,
    /// Its Yes votes.
    pub prepared: Vec<PreparedRecord>,
    /// Its decisions, and whether each has ended.
    pub decisions: Vec<(DecisionRecord, bool)>,
}

impl Snapshot {
    /// Node `id`'s `durable` state at `now`.
    pub fn of(id: NodeId, now: Time, durable: &Durable) -> Self {
        Self {
            id,
            now,
            epoch: durable.epoch,
            locks: durable.locks.values().cloned().collect(),
            prepared: durable.prepared.values().cloned().collect(),
            decisions: durable.decisions.values().cloned().collect(),
        }
    }

    /// The durable state again.
    pub fn durable(&self) -> Durable {
        Durable {
            epoch: self.epoch,
            locks: self.locks.iter().map(|l| (l.claim, l.clone())).collect(),
            prepared: self.prepared.iter().map(|p| (p.txn, p.clone())).collect(),
            decisions: self.decisions.iter().map(|d| (d.0.txn, d.clone())).collect(),
        }
    }
}

/// A refused post's body: `{"error":{"kind","detail"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// What was wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// `too_large`, `malformed`, `wrong_node`, `unknown_node`, `unavailable`,
    /// `not_found` or `method_not_allowed`.
    pub kind: String,
    /// The detail.
    pub detail: String,
}

impl ErrorBody {
    /// An error of `kind`.
    pub fn new(kind: &str, detail: impl Into<String>) -> Self {
        Self { error: ErrorDetail { kind: kind.to_owned(), detail: detail.into() } }
    }
}

/// Decodes a posted body.
///
/// # Errors
/// `too_large` above [`MAX_BODY`], `malformed` for bad JSON, unknown fields (a
/// `peers` list among them: membership is configured), or a too long address.
pub fn decode(body: &[u8]) -> Result<Post, ErrorBody> {
    if body.len() > MAX_BODY {
        return Err(ErrorBody::new("too_large", format!("{} bytes; the limit is {MAX_BODY}", body.len())));
    }
    let post: Post = serde_json::from_slice(body).map_err(|e| ErrorBody::new("malformed", e.to_string()))?;
    if post.reply_to.len() > MAX_ADDR {
        return Err(ErrorBody::new("malformed", format!("reply_to over {MAX_ADDR} bytes")));
    }
    Ok(post)
}
