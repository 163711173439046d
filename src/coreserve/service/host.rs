//! The runtime shared by server nodes and client processes: an axum inbox on loopback,
//! a timer loop, and sender threads that post messages. It steps whatever [`Machine`]
//! it hosts and applies the outputs: records are durable before the step's messages
//! leave (the machine persists them inside [`Machine::step`]), messages to a node it
//! hosts are delivered in process, the others are posted, timers are armed.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use structures::Time;

use super::limits::{MAX_BODY, MAX_BOOK};
use super::now_ms;
use super::wire::{decode, ErrorBody, Post};
use crate::coreserve::durable::{Input, Output, StoreError, TimerId};
use crate::coreserve::proto::{Envelope, NodeId};

/// Threads posting messages per process.
const SENDERS: usize = 4;
/// A post's deadline.
const POST_TIMEOUT: Duration = Duration::from_millis(1000);
/// How often the timer loop looks for due timers.
const TICK: Duration = Duration::from_millis(2);

/// What a host runs: one or more nodes' machines (and their store).
pub trait Machine: 'static {
    /// Steps node `node` at `now`; every `Output::Persist` is durable when it returns.
    ///
    /// # Errors
    /// When the store failed: nothing of the step may be sent.
    fn step(&mut self, now: Time, node: NodeId, input: Input) -> Result<Vec<Output>, StoreError>;
    /// Whether it runs node `node`.
    fn hosts(&self, node: NodeId) -> bool;
    /// Notes managers' addresses a post named.
    ///
    /// # Errors
    /// When they could not be stored.
    fn learn(&mut self, _peers: &[(NodeId, String)]) -> Result<(), StoreError> {
        Ok(())
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
}

/// A machine with its timers, address book and counters.
#[derive(Debug)]
pub struct Host<M> {
    /// The machine.
    pub machine: M,
    addr: String,
    peers: Vec<(NodeId, String)>,
    book: HashMap<NodeId, String>,
    timers: BTreeMap<(NodeId, TimerId), Time>,
    now: Time,
    counts: Counts,
    failed: Option<String>,
    outbox: Sender<(String, Vec<u8>)>,
    on_stop: Option<Sender<Option<String>>>,
}

impl<M: Machine> Host<M> {
    /// The clock, never going back.
    pub fn clock(&mut self) -> Time {
        self.now = self.now.max(now_ms());
        self.now
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
        let Some(to) = self.book.get(&env.to).cloned() else {
            self.counts.dropped += 1;
            return;
        };
        let post = Post { reply_to: self.addr.clone(), peers: self.peers.clone(), env };
        let sent = serde_json::to_vec(&post).ok().is_some_and(|body| self.outbox.send((to, body)).is_ok());
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

    /// Takes a decoded post: learns the sender's address and the peers it names, and
    /// steps the receiver.
    ///
    /// # Errors
    /// `wrong_node` when the receiver is not hosted here, `unavailable` when the store
    /// failed.
    pub fn accept(&mut self, post: Post) -> Result<(), ErrorBody> {
        let env = post.env;
        if !self.machine.hosts(env.to) {
            return Err(ErrorBody::new("wrong_node", format!("node {} is not served here", env.to)));
        }
        let unavailable = |e: StoreError| ErrorBody::new("unavailable", e.to_string());
        for (id, addr) in &post.peers {
            self.book.insert(*id, addr.clone());
        }
        self.machine.learn(&post.peers).map_err(unavailable)?;
        if self.book.len() >= MAX_BOOK {
            self.book = self.peers.iter().cloned().collect();
        }
        self.book.insert(env.from, post.reply_to);
        self.counts.received += 1;
        self.deliver(env.to, Input::Msg(env)).map_err(unavailable)
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

/// Work for the driver thread, which owns the host (the calendars' indexes are not
/// `Send`, so the machines stay on one thread).
pub type Job<M> = Box<dyn FnOnce(&mut Host<M>) + Send>;

/// A host serving on loopback, driven by a thread of its own; dropping it stops it.
#[derive(Debug)]
pub struct Running<M> {
    /// Where it listens.
    pub addr: SocketAddr,
    jobs: Sender<Job<M>>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl<M: Machine> Running<M> {
    /// A flag that stops it when set.
    pub fn stopper(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Runs `f` on the host and returns its result (`None` once the host has stopped).
    pub fn call<T: Send + 'static>(&self, f: impl FnOnce(&mut Host<M>) -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = channel();
        let job: Job<M> = Box::new(move |h| {
            let _ = tx.send(f(h));
        });
        self.jobs.send(job).ok()?;
        rx.recv().ok()
    }

    /// Blocks until it stops (the flag set or the store failed); the store's error, if
    /// one stopped it.
    pub fn wait(mut self) -> Option<String> {
        let (tx, rx) = channel();
        let job: Job<M> = Box::new(move |h| h.on_stop = Some(tx));
        let _ = self.jobs.send(job);
        let out = rx.recv().ok().flatten();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        out
    }
}

impl<M> Drop for Running<M> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn sender_threads(rx: Receiver<(String, Vec<u8>)>) {
    let rx = Arc::new(Mutex::new(rx));
    for _ in 0..SENDERS {
        let rx = Arc::clone(&rx);
        std::thread::spawn(move || {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .timeout_global(Some(POST_TIMEOUT))
                .http_status_as_error(false)
                .build()
                .into();
            loop {
                let next = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                let Ok((to, body)) = next else { return };
                let _ = agent
                    .post(format!("http://{to}/v1/inbox"))
                    .header("content-type", "application/json")
                    .send(&body[..]);
            }
        });
    }
}

/// Serves the machine `make` builds on `127.0.0.1:port` (0: any free port),
/// advertising `peers` in every post. `make` runs on the driver thread and returns the
/// machine with the start outputs of each node it hosts.
///
/// # Errors
/// When the port cannot be bound, the runtime not built, or `make` fails.
pub fn start<M: Machine>(
    make: impl FnOnce() -> Result<(M, Vec<(NodeId, Vec<Output>)>), StoreError> + Send + 'static,
    port: u16,
    peers: Vec<(NodeId, String)>,
) -> std::io::Result<Running<M>> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let listener = rt.block_on(bind(port))?;
    let addr = listener.local_addr()?;
    let (out_tx, out_rx) = channel();
    sender_threads(out_rx);
    let (jobs, job_rx) = channel::<Job<M>>();
    let stop = Arc::new(AtomicBool::new(false));
    let (ready_tx, ready_rx) = channel();
    let st = Arc::clone(&stop);
    let me = addr.to_string();
    let driver = std::thread::spawn(move || {
        let built = make().and_then(|(machine, starts)| {
            let book = peers.iter().cloned().collect();
            let mut host = Host {
                machine,
                addr: me,
                peers,
                book,
                timers: BTreeMap::new(),
                now: 0,
                counts: Counts::default(),
                failed: None,
                outbox: out_tx,
                on_stop: None,
            };
            for (node, out) in starts {
                host.begin(node, out)?;
            }
            Ok(host)
        });
        let mut host = match built {
            Ok(h) => {
                let _ = ready_tx.send(Ok(()));
                h
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e));
                st.store(true, Ordering::SeqCst);
                return;
            }
        };
        drive(&mut host, &job_rx, &st);
        st.store(true, Ordering::SeqCst);
        if let Some(tx) = host.on_stop.take() {
            let _ = tx.send(host.failed.clone());
        }
    });
    match ready_rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(std::io::Error::other(e.0)),
        Err(_) => return Err(std::io::Error::other("the driver thread died")),
    }
    let app = Router::new()
        .route("/v1/inbox", post(inbox::<M>))
        .route("/v1/status", get(status::<M>))
        .route("/v1/state", get(state::<M>))
        .with_state(Handle { jobs: Arc::new(Mutex::new(jobs.clone())) });
    let st = Arc::clone(&stop);
    let server = std::thread::spawn(move || {
        rt.block_on(async move {
            let until = async move {
                while !st.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            };
            let _ = axum::serve(listener, app).with_graceful_shutdown(until).await;
        });
        rt.shutdown_timeout(Duration::from_millis(100));
    });
    Ok(Running { addr, jobs, stop, threads: vec![driver, server] })
}

/// The driver's loop: jobs as they come, due timers every tick, until stopped or failed.
fn drive<M: Machine>(host: &mut Host<M>, jobs: &Receiver<Job<M>>, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) && host.failed.is_none() {
        match jobs.recv_timeout(TICK) {
            Ok(job) => job(host),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
        }
        if host.fire_due().is_err() {
            return;
        }
    }
}

/// What the HTTP handlers hold: a way to the driver.
struct Handle<M> {
    jobs: Arc<Mutex<Sender<Job<M>>>>,
}

impl<M> Clone for Handle<M> {
    fn clone(&self) -> Self {
        Self { jobs: Arc::clone(&self.jobs) }
    }
}

impl<M: Machine> Handle<M> {
    async fn call<T: Send + 'static>(&self, f: impl FnOnce(&mut Host<M>) -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job<M> = Box::new(move |h| {
            let _ = tx.send(f(h));
        });
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner).send(job).ok()?;
        rx.await.ok()
    }
}

async fn bind(port: u16) -> std::io::Result<tokio::net::TcpListener> {
    let mut tries = 0;
    loop {
        match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => return Ok(l),
            Err(e) if tries >= 20 || port == 0 => return Err(e),
            Err(_) => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

fn refuse(code: StatusCode, e: ErrorBody) -> Response {
    (code, Json(e)).into_response()
}

fn gone() -> Response {
    refuse(StatusCode::SERVICE_UNAVAILABLE, ErrorBody::new("unavailable", "the node is stopping"))
}

async fn inbox<M: Machine>(State(handle): State<Handle<M>>, body: Body) -> Response {
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(e) => {
            let detail = format!("body over {MAX_BODY} bytes or unreadable: {e}");
            return refuse(StatusCode::PAYLOAD_TOO_LARGE, ErrorBody::new("too_large", detail));
        }
    };
    let post = match decode(&bytes) {
        Ok(p) => p,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e),
    };
    match handle.call(move |h| h.accept(post)).await {
        Some(Ok(())) => (StatusCode::ACCEPTED, Json(serde_json::json!({ "ok": true }))).into_response(),
        Some(Err(e)) if e.error.kind == "unavailable" => refuse(StatusCode::SERVICE_UNAVAILABLE, e),
        Some(Err(e)) => refuse(StatusCode::BAD_REQUEST, e),
        None => gone(),
    }
}

async fn status<M: Machine>(State(handle): State<Handle<M>>) -> Response {
    let v = handle.call(|h| {
        let now = h.clock();
        h.machine.status(now, h.counts)
    });
    match v.await {
        Some(Some(v)) => Json(v).into_response(),
        Some(None) => StatusCode::NOT_FOUND.into_response(),
        None => gone(),
    }
}

async fn state<M: Machine>(State(handle): State<Handle<M>>) -> Response {
    let v = handle.call(|h| {
        let now = h.clock();
        h.machine.state(now)
    });
    match v.await {
        Some(Some(v)) => Json(v).into_response(),
        Some(None) => StatusCode::NOT_FOUND.into_response(),
        None => gone(),
    }
}
