//! The crate's errors: what failed and where. Where a step wraps a lower error (an I/O,
//! HTTP or JSON error), the message ends with that error's text (`cannot read P: <why>`)
//! and the lower error is not also given as [`source`](std::error::Error::source), so
//! `{:#}` of an `anyhow::Error` built from one prints it once.

use std::path::PathBuf;
use std::time::Duration;

use coreserve::durable::StoreError;
use coreserve::proto::NodeId;

use coreserve::limits::MAX_MANAGERS;

/// The crate's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a service, a manager process, a client or a load run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A manager process could not be started.
    #[error("cannot start {}: {}", exe.display(), cause)]
    Spawn {
        /// The executable.
        exe: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A manager process without a standard output to read its address from.
    #[error("manager {id}: no standard output")]
    NoStdout {
        /// Its node id.
        id: NodeId,
    },
    /// A manager process that did not print its address in time.
    #[error("manager {id} did not print its address within {timeout:?}")]
    StartTimeout {
        /// Its node id.
        id: NodeId,
        /// How long it had.
        timeout: Duration,
    },
    /// A manager process whose first line is not its address.
    #[error("manager {id} printed {line:?}, not its address")]
    NotAddress {
        /// Its node id.
        id: NodeId,
        /// What it printed.
        line: String,
    },
    /// A request to a node that failed or was not answered in time.
    #[error("GET {addr}{path}: {}", cause)]
    Get {
        /// The node's address.
        addr: String,
        /// The request's path.
        path: &'static str,
        /// Why.
        cause: Box<ureq::Error>,
    },
    /// A node's answer that is not the JSON asked for.
    #[error("GET {addr}{path}: bad JSON: {}", cause)]
    BadJson {
        /// The node's address.
        addr: String,
        /// The request's path.
        path: &'static str,
        /// Why.
        cause: Box<ureq::Error>,
    },
    /// Too few or too many managers named.
    #[error("name 1 to {MAX_MANAGERS} managers, not {0}")]
    ManagerCount(usize),
    /// Two managers that answer with the same node id.
    #[error("two managers have id {0}")]
    DuplicateId(NodeId),
    /// A membership entry (a `--peer` value or a members file's line) that is wrong.
    #[error("membership: {at}: {why}")]
    Members {
        /// The entry: the manager, the value, or the file and line.
        at: String,
        /// What is wrong.
        why: String,
    },
    /// A key file that is not one, or a key that cannot be had.
    #[error("key: {at}: {why}")]
    Key {
        /// The file, or the key asked for.
        at: String,
        /// What is wrong.
        why: String,
    },
    /// A load run's setting out of its range.
    #[error("{name} must be in {low}..={high}")]
    OutOfRange {
        /// The setting.
        name: &'static str,
        /// Its least value.
        low: u64,
        /// Its greatest value.
        high: u64,
    },
    /// A load file that could not be read.
    #[error("cannot read {}: {}", path.display(), cause)]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A load file that does not hold load runs.
    #[error("{}: not a load file: {}", path.display(), cause)]
    NotLoadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: serde_json::Error,
    },
    /// A load file that could not be encoded.
    #[error(transparent)]
    Encode(serde_json::Error),
    /// A file, folder or listener that could not be made (the I/O error, which names
    /// neither).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A node's store that could not be opened or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A server node that stopped because its store failed.
    #[error("node {id} stopped: {why}")]
    Stopped {
        /// Its node id.
        id: NodeId,
        /// Why.
        why: String,
    },
}
