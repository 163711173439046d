//! Clients in the CLI process: the sans-IO client machine ([`Client`]) for each of
//! several client nodes, behind one loopback inbox, with blocking calls to run a
//! reservation and to read the managers' status and state.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{channel, Sender};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use structures::Time;

use super::auth::Keys;
use super::host::Machine;
use super::members::Members;
use super::runtime::{self, Running};
use super::wire::{Snapshot, Status};
use crate::error::{Error, Result};
use coreserve::client::{Client, ClientConfig, Outcome, Reservation};
use coreserve::durable::{Input, Output, StoreError};
use coreserve::limits::MAX_MANAGERS;
use coreserve::proto::{Envelope, Msg, NodeId, TxnId};
use coreserve::sim::check::{Ghost, Violation};

/// How a reservation run through a [`Pool`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    /// The client machine's outcome.
    pub outcome: Outcome,
    /// Milliseconds from its start to its outcome.
    pub latency_ms: u64,
}

/// What the clients saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// Messages the clients sent.
    pub sent: u64,
    /// Messages the clients received.
    pub received: u64,
    /// Commit attempts (`CommitReq` transactions).
    pub attempts: BTreeSet<TxnId>,
    /// Attempts whose outcome was abort.
    pub aborted: BTreeSet<TxnId>,
    /// The simulator's ghost, fed with the clients' messages.
    pub ghost: Ghost,
    /// What the ghost caught on the way.
    pub violations: Vec<Violation>,
}

struct Slot {
    client: Client,
    began: Time,
    done: Option<Sender<Done>>,
}

/// The client nodes of one process.
pub struct ClientHost {
    slots: BTreeMap<NodeId, Slot>,
    /// What the clients saw.
    pub seen: Seen,
}

impl std::fmt::Debug for ClientHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHost").field("clients", &self.slots.len()).finish_non_exhaustive()
    }
}

impl Machine for ClientHost {
    fn step(&mut self, now: Time, node: NodeId, input: Input) -> Result<Vec<Output>, StoreError> {
        let Some(slot) = self.slots.get_mut(&node) else { return Ok(Vec::new()) };
        let out = slot.client.handle(now, input);
        if let Some(outcome) = slot.client.outcome() {
            if let Some(tx) = slot.done.take() {
                let _ =
                    tx.send(Done { outcome: outcome.clone(), latency_ms: now.saturating_sub(slot.began) });
            }
        }
        Ok(out)
    }

    fn hosts(&self, node: NodeId) -> bool {
        self.slots.contains_key(&node)
    }

    fn observe(&mut self, now: Time, env: &Envelope, sent: bool) {
        let seen = &mut self.seen;
        if sent {
            seen.sent += 1;
        } else {
            seen.received += 1;
        }
        match env.msg {
            Msg::CommitReq { txn, .. } => {
                seen.attempts.insert(txn);
            }
            Msg::Outcome { txn, committed: false } => {
                seen.aborted.insert(txn);
            }
            _ => {}
        }
        if let Err(v) = seen.ghost.sent(env, None, now) {
            seen.violations.push(v);
        }
    }
}

/// Client nodes `first..first + count` serving on an ephemeral loopback port.
#[derive(Debug)]
pub struct Pool {
    running: Running<ClientHost>,
    first: NodeId,
    count: u32,
}

impl Pool {
    /// Starts `count` clients numbered from `first`, which talk to `managers` and sign
    /// with `keys`.
    ///
    /// # Errors
    /// [`Error::Members`] for a wrong list of managers, [`Error::Key`] when `keys` lack
    /// a client's key, [`Error::Io`] when the listener cannot be bound.
    pub fn start(
        managers: &[(NodeId, String)],
        keys: &Keys,
        first: NodeId,
        count: u32,
        cfg: ClientConfig,
    ) -> Result<Self> {
        let slots = (0..count)
            .map(|i| {
                let id = first.saturating_add(i);
                (id, Slot { client: Client::new(id, cfg), began: 0, done: None })
            })
            .collect();
        let host = ClientHost { slots, seen: Seen::default() };
        let members = Members::new(managers.iter().cloned())?;
        if let Some(id) = host.slots.keys().find(|id| keys.key_of(**id).is_none()) {
            return Err(Error::Key {
                at: format!("client {id}"),
                why: format!("{keys:?} does not hold its key"),
            });
        }
        let running = runtime::start(move || Ok((host, Vec::new())), 0, (members, keys.clone()))?;
        Ok(Self { running, first, count })
    }

    /// Runs `res` on client `i` (`0..count`) and waits for its outcome, at most
    /// `timeout`; `None` when it did not come or the client is unknown or busy.
    pub fn reserve(&self, i: u32, res: Reservation, timeout: Duration) -> Option<Done> {
        if i >= self.count {
            return None;
        }
        let node = self.first.saturating_add(i);
        let (tx, rx) = channel();
        let begun = self.running.call(move |h| {
            let now = h.clock();
            let slot = h.machine.slots.get_mut(&node)?;
            if !slot.client.idle() || slot.done.is_some() {
                return None;
            }
            let out = slot.client.start(now, res);
            slot.began = now;
            slot.done = Some(tx);
            h.begin(node, out).ok()
        });
        begun.flatten()?;
        rx.recv_timeout(timeout).ok()
    }

    /// Runs `f` on what the clients saw (`None` once the host has stopped).
    pub fn seen<T: Send + 'static>(&self, f: impl FnOnce(&Seen) -> T + Send + 'static) -> Option<T> {
        self.running.call(move |h| f(&h.machine.seen))
    }
}

/// A deadline for status and state requests.
const GET_TIMEOUT: Duration = Duration::from_secs(2);

fn get_json<T: DeserializeOwned>(addr: &str, path: &'static str) -> Result<T> {
    let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(GET_TIMEOUT)).build().into();
    let mut resp = agent.get(format!("http://{addr}{path}")).call().map_err(|e| Error::Get {
        addr: addr.to_owned(),
        path,
        cause: Box::new(e),
    })?;
    resp.body_mut().read_json().map_err(|e| Error::BadJson {
        addr: addr.to_owned(),
        path,
        cause: Box::new(e),
    })
}

/// A server node's counters.
///
/// # Errors
/// [`Error::Get`] when it does not answer in time, [`Error::BadJson`] when it answers
/// garbage.
pub fn status(addr: &str) -> Result<Status> {
    get_json(addr, "/v1/status")
}

/// A server node's durable state.
///
/// # Errors
/// As [`status`].
pub fn state(addr: &str) -> Result<Snapshot> {
    get_json(addr, "/v1/state")
}

/// The node id of each manager listening at `addrs`.
///
/// # Errors
/// [`Error::ManagerCount`] for none or more than [`MAX_MANAGERS`], as [`status`] for
/// one that does not answer, or [`Error::DuplicateId`] for two with one id.
pub fn discover(addrs: &[String]) -> Result<Vec<(NodeId, String)>> {
    if addrs.is_empty() || addrs.len() > MAX_MANAGERS as usize {
        return Err(Error::ManagerCount(addrs.len()));
    }
    let mut out: Vec<(NodeId, String)> = Vec::new();
    for a in addrs {
        let id = status(a)?.id;
        if out.iter().any(|(i, _)| *i == id) {
            return Err(Error::DuplicateId(id));
        }
        out.push((id, a.clone()));
    }
    Ok(out)
}

/// Waits until `f` holds or `timeout` passes; whether it held.
pub fn wait_until(timeout: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + timeout;
    loop {
        if f() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
