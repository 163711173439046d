//! What the runtime hosts: a [`Machine`] (one or more nodes' machines and their store)
//! with its timers, its deployment's [`Members`] and [`Keys`], the clients' addresses
//! and its counters. Every post it sends is signed, and every post it takes checked
//! ([`auth`](super::auth)). A step's outputs are applied here:
//! records are durable before the step's messages leave (the machine persists them
//! inside [`Machine::step`]), messages to a node it hosts are delivered in process, the
//! others are posted, timers are armed.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::mpsc::Sender;

use structures::Time;

use super::auth::Keys;
use super::members::Members;
use super::now_ms;
use super::wire::{decode, ErrorBody, Post};
use coreserve::durable::{Input, Output, StoreError, TimerId};
use coreserve::limits::MAX_BOOK;
use coreserve::proto::{Envelope, NodeId};

/// What a host runs: one or more nodes' machines (and their store).
pub trait Machine: 'static {
    /// Steps node `node` at `now`; every `Output::Persist` is durable when it returns.
    ///
    /// # Errors
    /// When the store failed: nothing of the step may be sent.
    fn step(&mut self, now: Time, node: NodeId, input: Input) -> Result<Vec<Output>, StoreError>;
    /// Whether it runs node `node`.
    fn hosts(&self, node: NodeId) -> bool;
    /// Whether it takes clients' requests (a server does; clients hear only managers).
    fn serves_clients(&self) -> bool {
        false
    }
    /// Notes a message one of its nodes sent (`true`) or received (`false`).
    fn observe(&mut self, _now: Time, _env: &Envelope, _sent: bool) {}
    /// `GET /v1/status`, if it answers it.
    fn status(&self, _now: Time, _counts: Counts) -> Option<serde_json::Value> {
        None
    }
    /// `GET /v1/state`, if it answers it.
    fn state(&self, _now: Time) -> Option<serde_json::Value> {
        None
    }
}

/// A host's message counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Posts accepted.
    pub received: u64,
    /// Messages sent (posted or delivered in process).
    pub sent: u64,
    /// Messages with no known address.
    pub dropped: u64,
    /// Posts refused because their sender or a manager they name is not a member.
    pub refused: u64,
}

/// A signed post on its way to `to` (`host:port`).
#[derive(Debug)]
pub(super) struct Outgoing {
    /// Where.
    pub to: String,
    /// The post's JSON.
    pub body: Vec<u8>,
    /// Its `authorization` header.
    pub auth: String,
}

/// A machine with its timers, address book and counters.
#[derive(Debug)]
pub struct Host<M> {
    /// The machine.
    pub machine: M,
    addr: String,
    members: Members,
    keys: Keys,
    /// Clients' addresses, from their requests' `reply_to` (never persisted).
    clients: HashMap<NodeId, String>,
    timers: BTreeMap<(NodeId, TimerId), Time>,
    now: Time,
    counts: Counts,
    failed: Option<String>,
    outbox: Sender<Outgoing>,
    on_stop: Option<Sender<Option<String>>>,
}

impl<M: Machine> Host<M> {
    /// A host of `machine` listening at `addr`, in a deployment of `members`, signing
    /// with `keys`, posting through `outbox`.
    pub(super) fn new(
        machine: M,
        addr: String,
        (members, keys): (Members, Keys),
        outbox: Sender<Outgoing>,
    ) -> Self {
        Self {
            machine,
            addr,
            members,
            keys,
            clients: HashMap::new(),
            timers: BTreeMap::new(),
            now: 0,
            counts: Counts::default(),
            failed: None,
            outbox,
            on_stop: None,
        }
    }

    /// Whom to tell the store's error (or `None`) when the host stops.
    pub(super) fn on_stop(&mut self, tx: Sender<Option<String>>) {
        self.on_stop = Some(tx);
    }

    /// Tells whoever waits for the host to stop.
    pub(super) fn stopped(&mut self) {
        if let Some(tx) = self.on_stop.take() {
            let _ = tx.send(self.failed.clone());
        }
    }

    /// The clock, never going back.
    pub fn clock(&mut self) -> Time {
        self.now = self.now.max(now_ms());
        self.now
    }

    /// Its deployment's managers.
    pub fn members(&self) -> &Members {
        &self.members
    }

    /// Its counters.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The store's error that stopped it, if one did.
    pub fn failed(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    /// Steps `node` with `input`, then every message it sends to a node hosted here.
    ///
    /// # Errors
    /// The store's error; the host then refuses everything.
    pub fn deliver(&mut self, node: NodeId, input: Input) -> Result<(), StoreError> {
        if let Some(e) = &self.failed {
            return Err(StoreError(e.clone()));
        }
        let mut queue = VecDeque::from([(node, input)]);
        while let Some((node, input)) = queue.pop_front() {
            let now = self.clock();
            if let Input::Msg(env) = &input {
                self.machine.observe(now, env, false);
            }
            let out = match self.machine.step(now, node, input) {
                Ok(out) => out,
                Err(e) => {
                    self.failed = Some(e.0.clone());
                    return Err(e);
                }
            };
            for env in self.apply(node, now, out) {
                queue.push_back((env.to, Input::Msg(env)));
            }
        }
        Ok(())
    }

    /// Applies a step's outputs but its records (already durable): arms and cancels
    /// timers, posts messages, and returns those for nodes hosted here.
    fn apply(&mut self, node: NodeId, now: Time, out: Vec<Output>) -> Vec<Envelope> {
        let mut local = Vec::new();
        for o in out {
            match o {
                Output::Persist(_) => {}
                Output::SetTimer { id, at } => {
                    self.timers.insert((node, id), at);
                }
                Output::CancelTimer(id) => {
                    self.timers.remove(&(node, id));
                }
                Output::Send(env) => {
                    self.counts.sent += 1;
                    self.machine.observe(now, &env, true);
                    if self.machine.hosts(env.to) {
                        local.push(env);
                    } else {
                        self.post(env);
                    }
                }
            }
        }
        local
    }

    fn post(&mut self, env: Envelope) {
        let to = self.members.addr(env.to).map(str::to_owned).or_else(|| self.clients.get(&env.to).cloned());
        let Some(to) = to else {
            self.counts.dropped += 1;
            return;
        };
        let post = Post { reply_to: self.addr.clone(), env };
        let signed = serde_json::to_vec(&post)
            .ok()
            .and_then(|body| Some((self.keys.sign(&post.env, &body, &|id| self.is_manager(id))?, body)));
        let sent = signed.is_some_and(|(auth, body)| self.outbox.send(Outgoing { to, body, auth }).is_ok());
        if !sent {
            self.counts.dropped += 1;
        }
    }

    /// Fires every due timer.
    ///
    /// # Errors
    /// The store's error.
    pub fn fire_due(&mut self) -> Result<(), StoreError> {
        let now = self.clock();
        let due: Vec<(NodeId, TimerId)> =
            self.timers.iter().filter(|(_, &at)| at <= now).map(|(k, _)| *k).collect();
        for key in due {
            self.timers.remove(&key);
            self.deliver(key.0, Input::Timer(key.1))?;
        }
        Ok(())
    }

    /// Takes a posted body with its `authorization` header and steps its receiver. A
    /// member's address is its configured one; a client's request teaches where the
    /// client listens.
    ///
    /// # Errors
    /// Nothing changes on an error: as [`decode`] for a bad body, `wrong_node` when the
    /// receiver is not hosted here, `unauthenticated` as [`Keys::verify`], `forbidden`
    /// when the sender is not a member and the message not a client's request to a
    /// server, or a client's request speaks for another client, `unknown_node` when it
    /// names a manager that is not a member, `unavailable` when the store failed.
    pub fn accept(&mut self, body: &[u8], auth: Option<&str>) -> Result<(), ErrorBody> {
        let post = decode(body)?;
        let env = post.env;
        if !self.machine.hosts(env.to) {
            return Err(ErrorBody::new("wrong_node", format!("node {} is not served here", env.to)));
        }
        let verified = self.keys.verify(auth, (&env, body), &|id| self.is_manager(id));
        let refusal = verified.err().or_else(|| self.stranger(&env));
        if let Some(e) = refusal {
            self.counts.refused += 1;
            return Err(e);
        }
        if !self.is_manager(env.from) {
            if self.clients.len() >= MAX_BOOK && !self.clients.contains_key(&env.from) {
                self.clients.clear();
            }
            self.clients.insert(env.from, post.reply_to);
        }
        self.counts.received += 1;
        let unavailable = |e: StoreError| ErrorBody::new("unavailable", e.to_string());
        self.deliver(env.to, Input::Msg(env)).map_err(unavailable)
    }

    /// Whether `id` is one of the deployment's managers: a member, or a node this host
    /// serves clients for (so a manager left out of its own list still signs as one).
    pub fn is_manager(&self, id: NodeId) -> bool {
        self.members.contains(id) || (self.machine.serves_clients() && self.machine.hosts(id))
    }

    /// Why an authenticated `env` is refused, if it is: a sender outside the membership
    /// that may not send it, a client speaking for another, or a manager not a member.
    fn stranger(&self, env: &Envelope) -> Option<ErrorBody> {
        let known = |id| self.members.contains(id) || self.machine.hosts(id);
        let kind = env.msg.kind();
        if !known(env.from) {
            if !self.machine.serves_clients() || !env.msg.from_client() {
                let why = format!("node {} is not a configured manager, so it may not send {kind}", env.from);
                return Some(ErrorBody::new("forbidden", why));
            }
            if let Some(other) = env.msg.on_behalf_of().filter(|c| *c != env.from) {
                let why = format!("{kind} from node {} speaks for client {other}", env.from);
                return Some(ErrorBody::new("forbidden", why));
            }
        }
        let unknown = env.msg.managers().into_iter().find(|m| !known(*m))?;
        Some(ErrorBody::new(
            "unknown_node",
            format!("{kind} names manager {unknown}, which is not configured"),
        ))
    }

    /// Starts node `node` with the outputs of its start.
    ///
    /// # Errors
    /// The store's error.
    pub fn begin(&mut self, node: NodeId, out: Vec<Output>) -> Result<(), StoreError> {
        let now = self.clock();
        for env in self.apply(node, now, out) {
            self.deliver(env.to, Input::Msg(env))?;
        }
        Ok(())
    }
}
