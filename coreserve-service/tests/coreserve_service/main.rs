//! Tests of `coreserve-service`, one module per source file, in one test binary. Servers
//! run in process, on 127.0.0.1 with port 0, each with its own scratch store; every wait
//! is bounded. (Tests that spawn `resbench` manager processes are the root crate's, in
//! `tests/coreserve_service/`.)

mod auth;
mod child;
mod client;
mod error;
mod host;
mod http;
mod load;
mod members;
mod runtime;
mod store;
mod wire;

use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use coreserve::durable::{DecisionRecord, Input, LockRecord, Output, PreparedRecord, StoreError};
use coreserve::proto::{ClaimId, Envelope, Msg, NodeId, Priority, TxnId};
use coreserve_service::auth::{Keys, HEADER};
use coreserve_service::child::free_ports;
use coreserve_service::host::{Host, Machine};
use coreserve_service::members::Members;
use coreserve_service::now_ms;
use coreserve_service::runtime::Running;
use coreserve_service::server::{ServeOptions, ServerNode};
use coreserve_service::wire::{ErrorBody, Post};
use structures::{Kind, RangeSet, Time};

/// The claim and the transaction of [`records`].
const C: ClaimId = ClaimId { epoch: 1, seq: 2 };
const T: TxnId = TxnId { client: 11, seq: 3 };

/// One durable record of each kind: `T`'s lock of `C` on ids {0, 1, 5} over [10, 15),
/// another transaction's Yes vote over [20, 25), and `T`'s commit.
fn records() -> (LockRecord, PreparedRecord, DecisionRecord) {
    let lock = LockRecord {
        claim: C,
        holder: 11,
        txn: Some(T),
        ids: RangeSet::from_ids([0, 1, 5]),
        start: 10,
        end: 15,
    };
    let prepared = PreparedRecord {
        txn: TxnId { client: 12, seq: 1 },
        coordinator: 1,
        prio: Priority { ts: 4, client: 12 },
        claims: vec![(ClaimId { epoch: 1, seq: 3 }, RangeSet::from_ids([2]))],
        start: 20,
        end: 25,
    };
    let decision = DecisionRecord { txn: T, commit: true, start: 10, end: 15, parts: vec![] };
    (lock, prepared, decision)
}

/// The tests' deployment key.
const KEY: Keys = Keys::Deployment([7; 32]);

/// `post` as its JSON and its `authorization` header under [`KEY`], where `manager`
/// tells the managers.
fn signed(post: &Post, manager: &dyn Fn(NodeId) -> bool) -> (Vec<u8>, String) {
    let body = serde_json::to_vec(post).expect("a post encodes");
    let auth = KEY.sign(&post.env, &body, manager).expect("the deployment key signs anything");
    (body, auth)
}

/// Has host `h` take `post`, signed as its sender would.
fn take<M: Machine>(h: &mut Host<M>, post: &Post) -> Result<(), ErrorBody> {
    let (body, auth) = signed(post, &|id| h.is_manager(id));
    h.accept(&body, Some(&auth))
}

/// Resources per in-process manager.
const CAPACITY: u32 = 4;

/// Manager `id` served in process on 127.0.0.1 (a free port), its store in `dir`, in a
/// deployment of itself alone.
fn manager(id: NodeId, dir: &Path) -> Running<ServerNode> {
    serve(id, 0, dir, Members::default())
}

/// Managers `ids` served in process on 127.0.0.1, each on a port chosen beforehand so
/// that each is configured with all of them.
fn managers(ids: &[NodeId], dir: &Path) -> Vec<Running<ServerNode>> {
    let ports = free_ports(ids.len()).expect("free ports");
    let members = Members::new(ids.iter().zip(&ports).map(|(id, p)| (*id, format!("127.0.0.1:{p}"))));
    let members = members.expect("the members are well formed");
    ids.iter().zip(ports).map(|(id, port)| serve(*id, port, dir, members.clone())).collect()
}

fn serve(id: NodeId, port: u16, dir: &Path, members: Members) -> Running<ServerNode> {
    let opts = ServeOptions {
        id,
        port,
        db: dir.join(format!("m{id}.redb")),
        kind: Kind::REFERENCE,
        capacity: CAPACITY,
        members: members.clone(),
        keys: KEY,
        exit_on_stdin_eof: false,
    };
    coreserve_service::runtime::start(
        move || {
            let (node, out) = ServerNode::open(&opts, now_ms())?;
            Ok((node, vec![(id, out)]))
        },
        port,
        (members, KEY),
    )
    .expect("a manager starts")
}

/// An HTTP agent with a 2 s deadline that reads 4xx and 5xx answers as answers.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(2)))
        .http_status_as_error(false)
        .build()
        .into()
}

/// Posts `body` to a node's inbox with the `authorization` header `auth`: the status
/// and the JSON answer.
fn post(addr: &str, body: &[u8], auth: Option<&str>) -> (u16, serde_json::Value) {
    let mut req = agent().post(format!("http://{addr}/v1/inbox")).header("content-type", "application/json");
    if let Some(auth) = auth {
        req = req.header(HEADER, auth);
    }
    let mut resp = req.send(body).expect("the node answers");
    let code = resp.status().as_u16();
    (code, resp.body_mut().read_json().unwrap_or(serde_json::Value::Null))
}

/// GETs `path` from a node: the status and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut resp = agent().get(format!("http://{addr}{path}")).call().expect("the node answers");
    let code = resp.status().as_u16();
    (code, resp.body_mut().read_to_string().unwrap_or_default())
}

/// A loopback address nothing listens on: a port bound and let go at once.
fn dead_addr() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = l.local_addr().expect("its address").to_string();
    drop(l);
    addr
}

/// What a [`Probe`] node does with an input: its outputs, or a store failure.
type Script = Box<dyn FnMut(NodeId, &Input) -> Result<Vec<Output>, StoreError>>;

/// A machine of test nodes that logs every step and answers as its script says.
struct Probe {
    nodes: Vec<NodeId>,
    /// Whether it takes clients' requests, as a server does.
    server: bool,
    script: Script,
    /// `(node, input)` of every step, in order.
    log: Vec<(NodeId, Input)>,
}

impl Machine for Probe {
    fn step(&mut self, _now: Time, node: NodeId, input: Input) -> Result<Vec<Output>, StoreError> {
        let out = (self.script)(node, &input)?;
        self.log.push((node, input));
        Ok(out)
    }

    fn hosts(&self, node: NodeId) -> bool {
        self.nodes.contains(&node)
    }

    fn serves_clients(&self) -> bool {
        self.server
    }
}

/// A server probe hosting `nodes` on 127.0.0.1 (a free port), in a deployment of
/// `members`; `script` is made on the driver thread.
fn probe(
    nodes: &[NodeId],
    members: Vec<(NodeId, String)>,
    script: impl FnOnce() -> Script + Send + 'static,
) -> Running<Probe> {
    probe_on((0, true), nodes, members, script)
}

/// A probe on `port` (0: a free one), a server or not, hosting `nodes` in a deployment
/// of `members`.
fn probe_on(
    (port, server): (u16, bool),
    nodes: &[NodeId],
    members: Vec<(NodeId, String)>,
    script: impl FnOnce() -> Script + Send + 'static,
) -> Running<Probe> {
    let nodes = nodes.to_vec();
    coreserve_service::runtime::start(
        move || Ok((Probe { nodes, server, script: script(), log: Vec::new() }, Vec::new())),
        port,
        (Members::new(members).expect("the members are well formed"), KEY),
    )
    .expect("a probe starts")
}

/// A script that answers nothing.
fn silent() -> Script {
    Box::new(|_, _| Ok(Vec::new()))
}

/// A message from `from` to `to`.
fn env(from: NodeId, to: NodeId, msg: Msg) -> Envelope {
    Envelope { from, to, msg }
}

/// A message with no effect on a manager: a release of nothing.
fn nothing(req: u64) -> Msg {
    Msg::Release { req, claims: Vec::new() }
}
