//! Tests of `src/coreserve/`, one module per source file, in one test binary. The
//! hand-worked cases follow the design note's §6 (docs/coreserve-design.md); every
//! calendar case runs on every registered structure.

mod access;
mod calendar;
mod client;
mod coordinator;
mod durable;
mod error;
mod manager;
mod node;
mod polling;
mod proto;
mod sim;

use std::collections::{BTreeSet, VecDeque};

use coreserve::access::{Access, AccessRule};
use coreserve::coordinator::CoordinatorConfig;
use coreserve::durable::{Input, Output, Record};
use coreserve::manager::ManagerConfig;
use coreserve::node::Server;
use coreserve::proto::{ClientId, Envelope, Msg, NodeId, Priority};
use structures::{Config, Kind, RangeSet, Time};

/// The first manager's node.
const M1: NodeId = 0;
/// The second manager's node.
const M2: NodeId = 1;
/// Clients, A the highest priority.
const A: ClientId = 11;
const B: ClientId = 12;
const C: ClientId = 13;

/// A client's reservation priority: A before B before C.
fn prio(client: ClientId) -> Priority {
    Priority { ts: u64::from(client - 10), client }
}

/// Slot 1, horizon 100.
fn config() -> Config {
    Config { slot: 1, horizon: Some(100) }
}

/// Resource 3 is on A's access list only.
fn access() -> Access {
    Access { rules: vec![AccessRule { ids: RangeSet::from_ids([3]), allow: BTreeSet::from([A]) }] }
}

/// The common manager: capacity 4, hold 10, recall grace 3, inquiry every 5.
fn manager_config(kind: Kind) -> ManagerConfig {
    ManagerConfig {
        kind,
        capacity: 4,
        config: config(),
        access: access(),
        hold_ttl: 10,
        recall_grace: 3,
        inquiry: 5,
        plant: None,
    }
}

/// The messages a step sends, with their receivers.
fn sent(out: &[Output]) -> Vec<(NodeId, Msg)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Send(Envelope { to, msg, .. }) => Some((*to, msg.clone())),
            _ => None,
        })
        .collect()
}

/// The records a step makes durable.
fn persisted(out: &[Output]) -> Vec<Record> {
    out.iter()
        .filter_map(|o| match o {
            Output::Persist(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// An envelope from `from` to `to`.
fn env(from: NodeId, to: NodeId, msg: Msg) -> Envelope {
    Envelope { from, to, msg }
}

/// The common coordinator: votes time out after 10, resends every 4.
const COORDINATOR: CoordinatorConfig = CoordinatorConfig { vote_timeout: 10, resend: 4, plant: None };

/// Steps server node `me` with `input` at `now`, then every message it sends itself, as
/// a runtime does: the batches it made durable and the messages for other nodes, in
/// order.
fn route(node: &mut Server, me: NodeId, now: Time, input: Input) -> (Vec<Vec<Record>>, Vec<(NodeId, Msg)>) {
    let (mut batches, mut away) = (Vec::new(), Vec::new());
    let mut queue = VecDeque::from([input]);
    while let Some(input) = queue.pop_front() {
        let out = node.handle(now, input);
        let batch = persisted(&out);
        if !batch.is_empty() {
            batches.push(batch);
        }
        for (to, msg) in sent(&out) {
            if to == me {
                queue.push_back(Input::Msg(env(me, me, msg)));
            } else {
                away.push((to, msg));
            }
        }
    }
    (batches, away)
}
