//! Five manager processes on loopback under concurrent co-reservations, three of them
//! killed with SIGKILL and restarted on the same store mid-run; the final durable
//! state is checked with the simulator's checker. Bad posts get a 4xx JSON error and
//! leave the manager serving; `resbench coreserve reserve` commits across two managers.

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use coreserve::client::{ClientConfig, Outcome};
use coreserve::durable::{Durable, Input, Output, StoreError};
use coreserve::limits::MAX_BODY;
use coreserve::proto::{Envelope, Msg, NodeId};
use coreserve_service::auth::{Keys, HEADER};
use coreserve_service::child::deployment;
use coreserve_service::client::{self, wait_until, Done, Pool};
use coreserve_service::host::Machine;
use coreserve_service::load::{client_base, draw, AHEAD, DURATION_SLOTS, SLACK_SLOTS};
use coreserve_service::members::Members;
use coreserve_service::runtime;
use coreserve_service::wire::Post;
use coreserve_service::{CLIENT, SLOT};
use rand::rngs::StdRng;
use rand::SeedableRng;
use structures::Kind;

const MANAGERS: u32 = 5;
const CLIENTS: u32 = 8;
/// Resources per manager.
const CAPACITY: u32 = 32;
/// Hot start times the clients draw from.
const HOT: u32 = 8;
/// New reservations start until this long after the first.
const LOAD: Duration = Duration::from_millis(3500);
/// A client gives a reservation up after this many ms.
const GIVE_UP: u64 = 4000;

/// Posts `env` from `127.0.0.1:1` to a manager's inbox, signed with `keys` as a
/// deployment whose managers are `0..managers` would: the status and the answer.
fn post_as(addr: &str, keys: &Keys, env: &Envelope, managers: u32) -> (u16, serde_json::Value) {
    post_from("127.0.0.1:1", addr, keys, env, managers)
}

/// As [`post_as`], with the sender listening at `reply_to`.
fn post_from(
    reply_to: &str,
    addr: &str,
    keys: &Keys,
    env: &Envelope,
    managers: u32,
) -> (u16, serde_json::Value) {
    let body = serde_json::to_vec(&Post { reply_to: reply_to.to_owned(), env: env.clone() }).unwrap();
    let auth = keys.sign(env, &body, &|id| id < managers).expect("the keys sign it");
    post(addr, &body, Some(&auth))
}

/// Posts `body` to a manager's inbox with the `authorization` header `auth`: the status
/// and the body of the answer.
fn post(addr: &str, body: &[u8], auth: Option<&str>) -> (u16, serde_json::Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(2)))
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent.post(format!("http://{addr}/v1/inbox")).header("content-type", "application/json");
    if let Some(auth) = auth {
        req = req.header(HEADER, auth);
    }
    let mut resp = req.send(body).expect("the manager answers");
    let code = resp.status().as_u16();
    (code, resp.body_mut().read_json().expect("a JSON answer"))
}

/// Processes whose command line names `dir` (this test's own scratch directory).
fn left_behind(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&needle))
        .collect()
}

#[test]
fn five_managers_keep_the_invariants_across_kill_9() {
    let began = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let exe = Path::new(env!("CARGO_BIN_EXE_resbench"));
    let structure = Kind::REFERENCE.name();
    let (mut procs, keys) = deployment(exe, dir, MANAGERS, structure, CAPACITY).expect("the managers start");
    let managers: Vec<(NodeId, String)> = procs.iter().map(|p| (p.id, p.addr.clone())).collect();

    // Bad input: a 4xx JSON error, and the manager keeps serving.
    let (code, body) = post(&managers[0].1, b"{not json", None);
    assert_eq!((code, body["error"]["kind"].as_str()), (400, Some("malformed")), "{body}");
    let (code, body) = post(&managers[0].1, &vec![b' '; MAX_BODY + 1], None);
    assert_eq!((code, body["error"]["kind"].as_str()), (413, Some("too_large")), "{body}");
    assert_eq!(client::status(&managers[0].1).expect("still serving").id, 0);

    let cfg = ClientConfig { give_up: GIVE_UP, ..CLIENT };
    let pool = Pool::start(&managers, &keys, client_base(3), CLIENTS, cfg).expect("the clients start");
    let dones: Mutex<Vec<Done>> = Mutex::new(Vec::new());
    let stop_at = Instant::now() + LOAD;
    let mut kills = 0;
    std::thread::scope(|s| {
        for i in 0..CLIENTS {
            let (pool, managers, dones) = (&pool, &managers, &dones);
            s.spawn(move || {
                let mut rng = StdRng::seed_from_u64(u64::from(i));
                while Instant::now() < stop_at {
                    let parts = 2 + (i as usize % 2);
                    let res = draw(&mut rng, managers, parts, HOT);
                    let Some(d) = pool.reserve(i, res, Duration::from_millis(GIVE_UP + 3000)) else { break };
                    dones.lock().expect("outcomes").push(d);
                }
            });
        }
        // Chaos: kill -9 three managers in turn, each restarted on its store.
        for (victim, down) in [(1, 400), (3, 300), (0, 500)] {
            std::thread::sleep(Duration::from_millis(700));
            procs[victim].kill();
            kills += 1;
            std::thread::sleep(Duration::from_millis(down));
            procs[victim].restart().expect("a restart");
            assert_eq!(procs[victim].addr, managers[victim].1, "a restart binds the same port");
        }
    });
    assert_eq!(kills, 3);

    // Quiescence: no Yes vote left undecided anywhere.
    let settled = wait_until(Duration::from_secs(15), || {
        managers.iter().all(|(_, a)| client::status(a).is_ok_and(|s| s.prepared == 0 && s.broken.is_none()))
    });
    assert!(settled, "prepared transactions remain after 15 s");
    let snaps: Vec<(NodeId, Durable, u64)> = managers
        .iter()
        .map(|(id, a)| {
            let snap = client::state(a).expect("state");
            (*id, snap.durable(), snap.now)
        })
        .collect();
    let now = snaps.iter().map(|s| s.2).min().unwrap_or(0);
    let verdict = pool
        .seen(move |seen| {
            let stores: Vec<(NodeId, &Durable)> = snaps.iter().map(|(id, d, _)| (*id, d)).collect();
            (seen.violations.clone(), seen.ghost.check_final(&stores, now), seen.attempts.len())
        })
        .expect("the clients answer");
    let (violations, final_check, attempts) = verdict;
    assert!(violations.is_empty(), "{violations:?}");
    assert_eq!(final_check, Ok(()));
    let dones = dones.into_inner().expect("outcomes");
    let committed = dones.iter().filter(|d| matches!(d.outcome, Outcome::Committed { .. })).count();
    assert!(committed > 0, "nothing committed of {} ({attempts} attempts)", dones.len());
    drop(pool);

    // The CLI client: one co-reservation over two managers, after every window the load
    // could have touched (its last draw starts at most `load_reach` ms after `stop_at`),
    // so that the load's locks cannot leave it without a window.
    let load_reach = AHEAD + u64::from(HOT) * (DURATION_SLOTS + SLACK_SLOTS) * SLOT;
    let window = format!("{}..{}+1000", load_reach + 500, load_reach + 900);
    let out = Command::new(exe)
        .args(["coreserve", "reserve", "--nodes", "1", "--window", &window, "--key"])
        .arg(dir.join("deployment.key"))
        .arg("--managers")
        .arg(format!("{},{}", managers[2].1, managers[4].1))
        .output()
        .expect("reserve runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("reserve prints JSON");
    assert!(out.status.success() && json["committed"] == true, "{json}");

    drop(procs);
    assert!(left_behind(dir).is_empty(), "processes left behind: {:?}", left_behind(dir));
    let mut failed = std::collections::BTreeMap::new();
    for d in &dones {
        if let Outcome::Failed(f) = &d.outcome {
            *failed.entry(f.name()).or_insert(0) += 1;
        }
    }
    println!(
        "kill test: {} reservations, {committed} committed, failed {failed:?}, {attempts} commit attempts, {:.1} s",
        dones.len(),
        began.elapsed().as_secs_f64()
    );
    assert!(began.elapsed() < Duration::from_secs(45), "took {:?}", began.elapsed());
}

/// Reservations through two managers, one after another: how long each took, in ms.
fn latencies(pool: &Pool, managers: &[(NodeId, String)], rng: &mut StdRng, count: usize) -> Vec<u64> {
    (0..count)
        .map(|_| {
            let res = draw(rng, managers, 2, HOT);
            let done =
                pool.reserve(0, res, Duration::from_millis(GIVE_UP + 3000)).expect("the client answers");
            assert!(matches!(done.outcome, Outcome::Committed { .. }), "{:?}", done.outcome);
            done.latency_ms
        })
        .collect()
}

fn median(mut ms: Vec<u64>) -> u64 {
    ms.sort_unstable();
    ms[ms.len() / 2]
}

/// A peer that accepts connections and never answers holds up only the posts to it: with
/// 40 replies queued to it, reservations through the same manager still commit, none
/// waiting out a post's deadline as one queued behind a post to it would, and their
/// median within five times the unloaded one (a single reservation on a loaded machine
/// may take longer).
#[test]
fn a_slow_peer_delays_only_its_own_traffic() {
    use coreserve::proto::Priority;
    let tmp = tempfile::tempdir().unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_resbench"));
    let (procs, keys) =
        deployment(exe, tmp.path(), 2, Kind::REFERENCE.name(), CAPACITY).expect("the managers start");
    let managers: Vec<(NodeId, String)> = procs.iter().map(|p| (p.id, p.addr.clone())).collect();
    let cfg = ClientConfig { give_up: GIVE_UP, ..CLIENT };
    let pool = Pool::start(&managers, &keys, client_base(11), 1, cfg).expect("the client starts");
    let mut rng = StdRng::seed_from_u64(11);
    let unloaded = median(latencies(&pool, &managers, &mut rng, 9));

    // The black hole: it accepts every connection and never reads or answers.
    let hole = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hole_addr = hole.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in hole.incoming() {
            held.push(stream);
        }
    });
    // 40 queries from a client that lives at the black hole: manager 0 owes it 40 replies.
    let far = coreserve_service::now_ms() + 36_000_000;
    for req in 0..40 {
        let msg = Msg::Query {
            req,
            prio: Priority { ts: far, client: 999 },
            from: far,
            to: far + 60_000,
            duration: 1_000,
            n: 1,
            max_holds: 1,
        };
        let query = Post { reply_to: hole_addr.clone(), env: Envelope { from: 999, to: 0, msg } };
        let body = serde_json::to_vec(&query).unwrap();
        let auth = keys.sign(&query.env, &body, &|id| id < 2).unwrap();
        let (code, body) = post(&managers[0].1, &body, Some(&auth));
        assert_eq!(code, 202, "{body}");
    }
    let loaded = latencies(&pool, &managers, &mut rng, 9);
    let deadline = coreserve_service::runtime::POST_TIMEOUT.as_millis() as u64;
    assert!(
        loaded.iter().all(|&ms| ms < deadline) && median(loaded.clone()) <= 5 * unloaded.max(20),
        "unloaded median {unloaded} ms; with a slow peer: {loaded:?} ms"
    );
    eprintln!("unloaded median {unloaded} ms; with a slow peer: {loaded:?} ms");
    drop(pool);
    drop(procs);
}

/// Membership is configured: 65 invented peers, offered in a post's `peers` or named in
/// a commit request, are refused and never stored, so after a restart the manager still
/// reaches its configured peers and reservations through it commit.
#[test]
fn invented_peers_cannot_cut_a_restarted_manager_off() {
    use coreserve::proto::{Part, TxnId};
    let tmp = tempfile::tempdir().unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_resbench"));
    let (mut procs, keys) =
        deployment(exe, tmp.path(), 3, Kind::REFERENCE.name(), CAPACITY).expect("the managers start");
    let managers: Vec<(NodeId, String)> = procs.iter().map(|p| (p.id, p.addr.clone())).collect();
    let invented: Vec<(NodeId, String)> =
        (100..165).map(|i| (i, format!("127.0.0.1:{}", 20_000 + i))).collect();
    let txn = TxnId { client: client_base(12), seq: 1 };
    let parts = invented.iter().map(|(id, _)| Part { manager: *id, claims: Vec::new(), n: 1 }).collect();
    let env = Envelope { from: txn.client, to: 0, msg: Msg::CommitReq { txn, start: 0, end: 1, parts } };
    let with_peers = serde_json::json!({"reply_to": "127.0.0.1:1", "peers": invented, "env": env});
    let (code, body) = post(&managers[0].1, &serde_json::to_vec(&with_peers).unwrap(), None);
    assert_eq!((code, body["error"]["kind"].as_str()), (400, Some("malformed")), "{body}");
    let (code, body) = post_as(&managers[0].1, &keys, &env, 3);
    assert_eq!((code, body["error"]["kind"].as_str()), (403, Some("unknown_node")), "{body}");
    assert_eq!(client::status(&managers[0].1).expect("status").refused, 1);
    procs[0].kill();
    procs[0].restart().expect("a restart");
    assert_eq!(procs[0].addr, managers[0].1, "a restart binds the same port");
    let cfg = ClientConfig { give_up: GIVE_UP, ..CLIENT };
    let pool = Pool::start(&managers, &keys, client_base(12), 1, cfg).expect("the client starts");
    let mut rng = StdRng::seed_from_u64(12);
    // Every reservation spans manager 0 and one other, so each goes through it.
    for other in [1, 2, 1] {
        let mut res = draw(&mut rng, &managers, 2, HOT);
        res.parts = vec![(0, 2), (other, 2)];
        let done = pool.reserve(0, res, Duration::from_millis(GIVE_UP + 3000)).expect("the client answers");
        assert!(matches!(done.outcome, Outcome::Committed { .. }), "{:?}", done.outcome);
    }
}

/// Every post is authenticated: against a committed reservation, a forged sender gets
/// 401, a forged priority and a foreign Abort 403, a foreign Release is refused by the
/// manager, and neither manager's durable state changes.
#[test]
fn forged_senders_priorities_and_foreign_aborts_are_refused_and_change_nothing() {
    use coreserve::proto::Priority;
    let tmp = tempfile::tempdir().unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_resbench"));
    let (procs, keys) =
        deployment(exe, tmp.path(), 2, Kind::REFERENCE.name(), CAPACITY).expect("the managers start");
    let managers: Vec<(NodeId, String)> = procs.iter().map(|p| (p.id, p.addr.clone())).collect();
    let (victim, attacker) = (client_base(13), client_base(13) + 1);
    // Each client holds its own key only.
    let (victim_keys, attacker_keys) = (keys.for_node(victim).unwrap(), keys.for_node(attacker).unwrap());
    let pool = Pool::start(&managers, &victim_keys, victim, 1, CLIENT).expect("the client starts");
    let res = draw(&mut StdRng::seed_from_u64(13), &managers, 2, HOT);
    let done = pool.reserve(0, res, Duration::from_millis(GIVE_UP + 3000)).expect("the client answers");
    let Outcome::Committed { txn: Some(txn), .. } = done.outcome else { panic!("{:?}", done.outcome) };
    let state = |a: &str| {
        let s = client::state(a).expect("state");
        (s.locks, s.prepared, s.decisions)
    };
    assert!(wait_until(Duration::from_secs(5), || managers.iter().all(|(_, a)| state(a).0.len() == 1)));
    let before: Vec<_> = managers.iter().map(|(_, a)| state(a)).collect();
    let claim = before[0].0[0].claim;
    let kind = |answer: &serde_json::Value| answer["error"]["kind"].as_str().map(str::to_owned);
    // A forged sender: the attacker signs a release that says it is the victim's.
    let release = Msg::Release { req: 1, claims: vec![claim] };
    let as_victim = Envelope { from: victim, to: 0, msg: release.clone() };
    let forger = Keys::Node { id: victim, key: attacker_keys.key_of(attacker).unwrap() };
    let (code, answer) = post_as(&managers[0].1, &forger, &as_victim, 2);
    assert_eq!((code, kind(&answer)), (401, Some("unauthenticated".to_owned())), "{answer}");
    // A forged priority: the attacker's own query, at the victim's (oldest) priority.
    let query = Msg::Query {
        req: 2,
        prio: Priority { ts: 0, client: victim },
        from: 0,
        to: 1_000,
        duration: 100,
        n: 1,
        max_holds: 1,
    };
    let (code, answer) =
        post_as(&managers[0].1, &attacker_keys, &Envelope { from: attacker, to: 0, msg: query }, 2);
    assert_eq!((code, kind(&answer)), (403, Some("forbidden".to_owned())), "{answer}");
    // A foreign Abort: only a coordinator may send one.
    let abort = Msg::Abort { txn, claims: vec![claim] };
    let (code, answer) =
        post_as(&managers[0].1, &attacker_keys, &Envelope { from: attacker, to: 0, msg: abort }, 2);
    assert_eq!((code, kind(&answer)), (403, Some("forbidden".to_owned())), "{answer}");
    // A foreign Release, authenticated as the attacker: the manager refuses it (the
    // claim is not the attacker's).
    let (code, answer) =
        post_as(&managers[0].1, &attacker_keys, &Envelope { from: attacker, to: 0, msg: release }, 2);
    assert_eq!(code, 202, "{answer}");
    std::thread::sleep(Duration::from_millis(200));
    let after: Vec<_> = managers.iter().map(|(_, a)| state(a)).collect();
    assert_eq!(after, before, "an attack changed a manager's durable state");
    assert_eq!(client::status(&managers[0].1).expect("status").refused, 3);
}

/// A client node that only logs what it hears.
struct Inbox {
    node: NodeId,
    heard: Vec<Msg>,
}

impl Machine for Inbox {
    fn step(&mut self, _now: u64, _node: NodeId, input: Input) -> Result<Vec<Output>, StoreError> {
        if let Input::Msg(env) = input {
            self.heard.push(env.msg);
        }
        Ok(Vec::new())
    }

    fn hosts(&self, node: NodeId) -> bool {
        node == self.node
    }
}

/// A one-manager Lock, its manager killed with SIGKILL and restarted before the Lock is
/// retried: the retry gets the first outcome, and the client holds exactly one lock.
#[test]
fn a_lock_retried_across_kill_9_gets_its_first_outcome_and_one_lock() {
    use coreserve::proto::{HoldGrant, Priority};
    let tmp = tempfile::tempdir().unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_resbench"));
    let (mut procs, keys) =
        deployment(exe, tmp.path(), 1, Kind::REFERENCE.name(), CAPACITY).expect("it starts");
    let manager = procs[0].addr.clone();
    let me = client_base(14);
    let members = Members::new([(0, manager.clone())]).unwrap();
    let inbox = runtime::start(
        move || Ok((Inbox { node: me, heard: Vec::new() }, Vec::new())),
        0,
        (members, keys.for_node(me).unwrap()),
    )
    .expect("the inbox listens");
    let reply_to = inbox.addr.to_string();
    let ask = |msg: Msg| {
        let (code, answer) = post_from(&reply_to, &manager, &keys, &Envelope { from: me, to: 0, msg }, 1);
        assert_eq!(code, 202, "{answer}");
    };
    let heard = |n: usize| {
        assert!(
            wait_until(Duration::from_secs(5), || inbox.call(|h| h.machine.heard.len()).unwrap() >= n),
            "no answer"
        );
        inbox.call(move |h| h.machine.heard[n - 1].clone()).unwrap()
    };
    let start = (coreserve_service::now_ms() / SLOT + 20) * SLOT;
    ask(Msg::Hold { req: 1, prio: Priority { ts: 1, client: me }, n: 2, start, end: start + 4 * SLOT });
    let Msg::HoldReply { result: Ok(HoldGrant { claim, .. }), .. } = heard(1) else { panic!("no hold") };
    ask(Msg::Lock { req: 2, claim });
    let first = heard(2);
    assert_eq!(first, Msg::LockReply { req: 2, result: Ok(claim) });
    procs[0].kill();
    procs[0].restart().expect("a restart");
    ask(Msg::Lock { req: 2, claim });
    assert_eq!(heard(3), first, "the retry gets the first outcome");
    let locks = client::state(&procs[0].addr).expect("state").locks;
    assert_eq!(locks.len(), 1, "{locks:?}");
    assert_eq!((locks[0].claim, locks[0].holder), (claim, me));
}
