//! The runtime shared by server nodes and client processes: a driver thread that owns a
//! [`Host`] and runs jobs and due timers, an axum inbox on loopback ([`http`](super::http))
//! that hands the driver jobs, and a queue and a sender thread per peer that post its
//! messages, so that a slow or dead peer delays only its own traffic.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::auth::{self, Keys};
use super::host::{Host, Machine, Outgoing};
use super::http;
use super::members::Members;
use coreserve::durable::{Output, StoreError};
use coreserve::proto::NodeId;

/// A post's deadline.
pub const POST_TIMEOUT: Duration = Duration::from_millis(1000);
/// Messages waiting for one peer; more are dropped (the protocol resends what matters).
const PEER_QUEUE: usize = 64;
/// Peers with a queue at once; a post to another while all are busy is dropped.
const MAX_PEER_QUEUES: usize = 256;
/// A peer's sender thread ends after this long without a message.
const PEER_IDLE: Duration = Duration::from_secs(5);
/// After a failed post, a peer's next post waits this long, doubling up to
/// [`MAX_BACKOFF`]; its messages that wait longer than a post's deadline are dropped.
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
/// The longest wait between failed posts to one peer.
const MAX_BACKOFF: Duration = Duration::from_millis(1000);
/// How often the driver looks for due timers.
const TICK: Duration = Duration::from_millis(2);

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
    /// The store's error the driver stopped on, kept for a `wait` that comes after it.
    failed: Arc<Mutex<Option<String>>>,
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
        let job: Job<M> = Box::new(move |h| h.on_stop(tx));
        let _ = self.jobs.send(job);
        let out = rx.recv().ok().flatten();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        // A driver that stopped on a failure before this call never took the job.
        out.or_else(|| self.failed.lock().unwrap_or_else(PoisonError::into_inner).take())
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

/// A peer's queue: each signed message with the instant it was queued.
type Queue = SyncSender<(Instant, Outgoing)>;

/// Hands each posted message to its peer's queue, making the queue (and its sender
/// thread) on first use, so that a peer that never answers holds up only its own queue.
fn dispatch(rx: Receiver<Outgoing>) {
    std::thread::spawn(move || {
        let mut queues: HashMap<String, (Queue, Arc<AtomicBool>)> = HashMap::new();
        for out in rx {
            let to = out.to.clone();
            let mut message = (Instant::now(), out);
            if let Some((queue, _)) = queues.get(&to) {
                match queue.try_send(message) {
                    // A full queue drops the message, as a congested network would.
                    Ok(()) | Err(TrySendError::Full(_)) => continue,
                    // Its thread ended after idling: a new one takes over.
                    Err(TrySendError::Disconnected(back)) => message = back,
                }
            }
            if queues.len() >= MAX_PEER_QUEUES {
                queues.retain(|_, (_, ended)| !ended.load(Ordering::SeqCst));
            }
            if queues.len() >= MAX_PEER_QUEUES {
                continue;
            }
            let (tx, queue) = sync_channel(PEER_QUEUE);
            let _ = tx.try_send(message);
            let (peer, ended) = (to.clone(), Arc::new(AtomicBool::new(false)));
            let done = Arc::clone(&ended);
            std::thread::spawn(move || {
                post_to(&peer, &queue);
                done.store(true, Ordering::SeqCst);
            });
            queues.insert(to, (tx, ended));
        }
    });
}

/// Posts one peer's messages in order until it has none for [`PEER_IDLE`], waiting
/// longer after each failed post (up to [`MAX_BACKOFF`]), and dropping those that
/// waited past a post's deadline: by then the protocol has moved on.
fn post_to(peer: &str, queue: &Receiver<(Instant, Outgoing)>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(POST_TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into();
    let mut backoff = Duration::ZERO;
    while let Ok((queued, out)) = queue.recv_timeout(PEER_IDLE) {
        if queued.elapsed() > POST_TIMEOUT {
            continue;
        }
        std::thread::sleep(backoff);
        let sent = agent
            .post(format!("http://{peer}/v1/inbox"))
            .header("content-type", "application/json")
            .header(auth::HEADER, &out.auth)
            .send(&out.body[..]);
        backoff = match sent {
            Ok(_) => Duration::ZERO,
            Err(_) => (backoff * 2).clamp(FIRST_BACKOFF, MAX_BACKOFF),
        };
    }
}

/// Serves the machine `make` builds on `127.0.0.1:port` (0: any free port), in a
/// deployment of `members`, signing and checking posts with `keys`. `make` runs on the driver thread and returns the
/// machine with the start outputs of each node it hosts.
///
/// # Errors
/// When the port cannot be bound, the runtime not built, or `make` fails.
pub fn start<M: Machine>(
    make: impl FnOnce() -> Result<(M, Vec<(NodeId, Vec<Output>)>), StoreError> + Send + 'static,
    port: u16,
    (members, keys): (Members, Keys),
) -> std::io::Result<Running<M>> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let listener = rt.block_on(bind(port))?;
    let addr = listener.local_addr()?;
    let (out_tx, out_rx) = channel();
    dispatch(out_rx);
    let (jobs, job_rx) = channel::<Job<M>>();
    let stop = Arc::new(AtomicBool::new(false));
    let failed = Arc::new(Mutex::new(None));
    let (ready_tx, ready_rx) = channel();
    let st = Arc::clone(&stop);
    let why = Arc::clone(&failed);
    let me = addr.to_string();
    let driver = std::thread::spawn(move || {
        let built = make().and_then(|(machine, starts)| {
            let mut host = Host::new(machine, me, (members, keys), out_tx);
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
        *why.lock().unwrap_or_else(PoisonError::into_inner) = host.failed().map(str::to_owned);
        st.store(true, Ordering::SeqCst);
        host.stopped();
    });
    match ready_rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(std::io::Error::other(e.0)),
        Err(_) => return Err(std::io::Error::other("the driver thread died")),
    }
    let app = http::router(jobs.clone());
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
    Ok(Running { addr, jobs, stop, failed, threads: vec![driver, server] })
}

/// The driver's loop: jobs as they come, due timers every tick, until stopped or failed.
fn drive<M: Machine>(host: &mut Host<M>, jobs: &Receiver<Job<M>>, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) && host.failed().is_none() {
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
