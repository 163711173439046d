//! A server node as a process (`resbench coreserve serve`): the sans-IO manager and
//! coordinator of [`node::Server`](coreserve::node::Server) over a [`RedbStore`],
//! served by the [`host`](super::host) runtime.

use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use structures::{Kind, Time};

use super::auth::Keys;
use super::host::{Counts, Machine};
use super::members::Members;
use super::runtime;
use super::store::RedbStore;
use super::wire::{Snapshot, Status};
use super::{manager_config, now_ms, COORDINATOR};
use crate::error::{Error, Result};
use coreserve::durable::{Input, Output, Record, Store, StoreError};
use coreserve::node::Server;
use coreserve::proto::NodeId;

/// A server node and its store.
#[derive(Debug)]
pub struct ServerNode {
    id: NodeId,
    server: Server,
    store: RedbStore,
}

fn persisted(out: &[Output]) -> Vec<Record> {
    out.iter().filter_map(|o| if let Output::Persist(r) = o { Some(r.clone()) } else { None }).collect()
}

impl ServerNode {
    /// Opens node `id`'s store and starts its machines from it at `now` (a new epoch,
    /// durable before anything is sent). Returns the start's outputs.
    ///
    /// # Errors
    /// When the store cannot be opened or written, or the configuration is refused.
    pub fn open(opts: &ServeOptions, now: Time) -> Result<(Self, Vec<Output>), StoreError> {
        let mut store = RedbStore::open(&opts.db)?;
        let cfg = manager_config(opts.kind, opts.capacity);
        let (server, out) = Server::start(opts.id, cfg, COORDINATOR, store.load(), now)
            .map_err(|e| StoreError(e.to_string()))?;
        store.apply(&persisted(&out))?;
        Ok((Self { id: opts.id, server, store }, out))
    }
}

impl Machine for ServerNode {
    fn step(&mut self, now: Time, _node: NodeId, input: Input) -> Result<Vec<Output>, StoreError> {
        let out = self.server.handle(now, input);
        self.store.apply(&persisted(&out))?;
        Ok(out)
    }

    fn hosts(&self, node: NodeId) -> bool {
        node == self.id
    }

    fn serves_clients(&self) -> bool {
        true
    }

    fn status(&self, now: Time, counts: Counts) -> Option<serde_json::Value> {
        let d = self.store.load();
        let status = Status {
            id: self.id,
            epoch: d.epoch,
            now,
            received: counts.received,
            sent: counts.sent,
            dropped: counts.dropped,
            refused: counts.refused,
            locks: d.locks.len(),
            prepared: d.prepared.len(),
            decisions: d.decisions.len(),
            broken: self.server.manager.validate().err().map(|b| b.to_string()),
        };
        serde_json::to_value(status).ok()
    }

    fn state(&self, now: Time) -> Option<serde_json::Value> {
        serde_json::to_value(Snapshot::of(self.id, now, self.store.load())).ok()
    }
}

/// What `serve` runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The node's id.
    pub id: NodeId,
    /// The port on 127.0.0.1 (0: any free one).
    pub port: u16,
    /// The deployment's managers (it may name itself).
    pub members: Members,
    /// The deployment's key.
    pub keys: Keys,
    /// The redb file.
    pub db: PathBuf,
    /// The calendar's structure.
    pub kind: Kind,
    /// Resources.
    pub capacity: u32,
    /// Stop when standard input closes (so that a dead parent leaves no server behind).
    pub exit_on_stdin_eof: bool,
}

/// Runs a server node until its store fails or (with `exit_on_stdin_eof`) standard
/// input closes; `announce` gets the bound address once it listens.
///
/// # Errors
/// [`Error::Key`] for a node's key (a manager holds the deployment's), [`Error::Store`]
/// when the store cannot be opened, [`Error::Io`] when the port cannot be bound,
/// [`Error::Stopped`] when the store fails while serving.
pub fn serve(opts: &ServeOptions, announce: impl FnOnce(SocketAddr)) -> Result<()> {
    if let Keys::Node { id, .. } = opts.keys {
        let why = "a manager needs the deployment key, to check every node's posts".to_owned();
        return Err(Error::Key { at: format!("node {id}'s key"), why });
    }
    let (o, id) = (opts.clone(), opts.id);
    let running = runtime::start(
        move || {
            let (node, out) = ServerNode::open(&o, now_ms())?;
            Ok((node, vec![(o.id, out)]))
        },
        opts.port,
        (opts.members.clone(), opts.keys.clone()),
    )?;
    announce(running.addr);
    if opts.exit_on_stdin_eof {
        let stop = running.stopper();
        std::thread::spawn(move || {
            let mut sink = [0u8; 256];
            let mut stdin = std::io::stdin();
            while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
            stop.store(true, Ordering::SeqCst);
        });
    }
    match running.wait() {
        Some(why) => Err(Error::Stopped { id, why }),
        None => Ok(()),
    }
}
