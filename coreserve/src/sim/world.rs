//! The simulated world: the scheduler, the network, the nodes and their stores.

use std::collections::{BTreeMap, BTreeSet};

use rand::rngs::StdRng;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use structures::{Config, Kind, RangeSet, Time};

use super::check::{Ghost, Violation};
use super::rules::Rules;
use super::{Fault, Faults, Report, SimConfig};
use crate::access::{Access, AccessRule};
use crate::client::{Client, ClientConfig, Failure, Outcome, Reservation};
use crate::coordinator::CoordinatorConfig;
use crate::durable::{Durable, Input, MemStore, Output, Record, Store, TimerId};
use crate::manager::ManagerConfig;
use crate::node::Server;
use crate::proto::{Envelope, Msg, NodeId};

/// Slot width, in virtual milliseconds.
const SLOT: Time = 10;
/// How far ahead a calendar reaches.
const HORIZON: Time = 256 * SLOT;
/// How long a hold lasts.
const HOLD_TTL: Time = 400;
/// The drain after the faulty steps ends by this much virtual time at the latest.
const DRAIN_TIME: Time = 200_000;
/// ... or after this many steps.
const DRAIN_STEPS: u64 = 2_000_000;
/// The most trace lines kept (the last ones).
pub const MAX_TRACE: usize = 100_000;

const CLIENT: ClientConfig = ClientConfig {
    max_holds: 4,
    span: 20 * SLOT,
    rto: 40,
    max_tries: 6,
    wait_for: 300,
    give_up: 6000,
    max_attempts: 4,
    lead: 250,
    plant: None,
};

/// One seed's sizes and fault rates.
#[derive(Debug, Clone)]
struct Params {
    managers: u32,
    clients: u32,
    capacity: u32,
    kinds: Vec<Kind>,
    access: Vec<Access>,
    faults: Faults,
    loss: f64,
    dup: f64,
    slow: f64,
    crash: f64,
    target: f64,
    torn: f64,
    vanish: f64,
}

impl Params {
    fn draw(seed: u64, cfg: &SimConfig, rng: &mut StdRng) -> Self {
        let log_uniform = |rng: &mut StdRng, (lo, hi): (u32, u32)| {
            let u: f64 = rng.random();
            let v = f64::from(lo) * (f64::from(hi) / f64::from(lo)).powf(u);
            (v.round() as u32).clamp(lo, hi)
        };
        let managers = log_uniform(rng, cfg.managers);
        let clients = log_uniform(rng, cfg.clients);
        let capacity = rng.random_range(4..=16);
        let kinds = (0..managers)
            .map(|_| cfg.structure.unwrap_or_else(|| Kind::ALL[rng.random_range(0..Kind::ALL.len())]))
            .collect();
        let access = (0..managers)
            .map(|_| {
                if rng.random_bool(0.3) {
                    // The top resource is open only to even-numbered clients.
                    let allow: BTreeSet<NodeId> =
                        (managers..managers + clients).filter(|c| c % 2 == 0).collect();
                    Access { rules: vec![AccessRule { ids: RangeSet::from_ids([capacity - 1]), allow }] }
                } else {
                    Access::default()
                }
            })
            .collect();
        let all = seed.is_multiple_of(10) || !cfg.swarm;
        // One draw per kind whatever is allowed, so that a run with fewer kinds allowed
        // (a shrunk one) draws the same numbers after this.
        let faults = Fault::ALL.into_iter().fold(Faults::NONE, |set, f| {
            let on = rng.random_bool(0.5);
            set.with(f, cfg.faults.has(f) && (all || on))
        });
        Self {
            managers,
            clients,
            capacity,
            kinds,
            access,
            faults,
            loss: rng.random_range(0.01..0.1),
            dup: rng.random_range(0.01..0.1),
            slow: rng.random_range(0.005..0.03),
            crash: rng.random_range(0.001..0.005),
            target: 0.5,
            torn: rng.random_range(0.001..0.01),
            vanish: rng.random_range(0.0005..0.002),
        }
    }

    fn describe(&self) -> String {
        let mut kinds: Vec<&str> = self.kinds.iter().map(|k| k.name()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        format!(
            "managers {}, clients {}, capacity {}, faults {}, structures {}",
            self.managers,
            self.clients,
            self.capacity,
            self.faults,
            kinds.join(",")
        )
    }
}

#[derive(Debug, Clone)]
enum Event {
    Deliver(Envelope),
    Timer { node: NodeId, id: TimerId, token: u64 },
    Crash(NodeId),
    Restart(NodeId),
    Start(NodeId),
}

struct Slot {
    server: Option<Server>,
    store: MemStore,
    manager: ManagerConfig,
    coordinator: CoordinatorConfig,
}

struct World {
    now: Time,
    seq: u64,
    queue: BTreeMap<(Time, u64), Event>,
    rng: StdRng,
    p: Params,
    servers: Vec<Slot>,
    clients: Vec<Client>,
    counted: Vec<bool>,
    gone: Vec<bool>,
    timers: Vec<BTreeMap<TimerId, u64>>,
    ghost: Ghost,
    rules: Rules,
    faulty: bool,
    starting: bool,
    trace: Option<Vec<String>>,
    digest: u64,
    steps: u64,
    messages: u64,
    committed: u64,
    failed: BTreeMap<&'static str, u64>,
}

/// Runs one seed.
pub fn run(seed: u64, cfg: &SimConfig) -> Report {
    let mut rng = StdRng::seed_from_u64(seed);
    let p = Params::draw(seed, cfg, &mut rng);
    let mut w = World::new(p, rng, cfg);
    let violation = w.go(cfg.steps).err();
    let stuck = w.clients.iter().zip(&w.gone).filter(|(c, gone)| !c.idle() && !**gone).count() as u64;
    let vanished = w.gone.iter().filter(|g| **g).count() as u64;
    Report {
        seed,
        params: w.p.describe(),
        faults: w.p.faults,
        managers: w.p.managers,
        clients: w.p.clients,
        steps: w.steps,
        messages: w.messages,
        committed: w.committed,
        failed: w.failed,
        stuck,
        vanished,
        commits: w.ghost.commits,
        aborts: w.ghost.aborts,
        violation,
        digest: w.digest,
        trace: w.trace.unwrap_or_default(),
    }
}

impl World {
    fn new(p: Params, rng: StdRng, cfg: &SimConfig) -> Self {
        let servers = (0..p.managers as usize)
            .map(|m| Slot {
                server: None,
                store: MemStore::default(),
                manager: ManagerConfig {
                    kind: p.kinds[m],
                    capacity: p.capacity,
                    config: Config { slot: SLOT, horizon: Some(HORIZON) },
                    access: p.access[m].clone(),
                    hold_ttl: HOLD_TTL,
                    recall_grace: 60,
                    inquiry: 200,
                    plant: cfg.plant,
                },
                coordinator: CoordinatorConfig { vote_timeout: 300, resend: 100, plant: cfg.plant },
            })
            .collect();
        let nodes = (p.managers + p.clients) as usize;
        let client = ClientConfig { plant: cfg.plant, ..CLIENT };
        let clients = (p.managers..p.managers + p.clients).map(|id| Client::new(id, client)).collect();
        Self {
            now: 0,
            seq: 0,
            queue: BTreeMap::new(),
            rng,
            servers,
            clients,
            counted: vec![true; p.clients as usize],
            gone: vec![false; p.clients as usize],
            timers: vec![BTreeMap::new(); nodes],
            ghost: Ghost::default(),
            rules: Rules::default(),
            faulty: true,
            starting: true,
            trace: cfg.trace.then(Vec::new),
            digest: 0xcbf2_9ce4_8422_2325,
            steps: 0,
            messages: 0,
            committed: 0,
            failed: BTreeMap::new(),
            p,
        }
    }

    fn push(&mut self, at: Time, ev: Event) {
        self.seq += 1;
        self.queue.insert((at, self.seq), ev);
    }

    /// The faulty phase, then the drain and the quiescence check.
    fn go(&mut self, steps: u64) -> Result<(), (u64, Violation)> {
        for m in 0..self.p.managers {
            self.push(0, Event::Restart(m));
        }
        for c in 0..self.p.clients {
            let at = self.rng.random_range(0..500);
            self.push(at, Event::Start(self.p.managers + c));
        }
        while self.steps < steps {
            let Some(((at, _), ev)) = self.queue.pop_first() else { break };
            self.now = at;
            self.step(ev).map_err(|v| (self.steps, v))?;
        }
        self.faulty = false;
        self.starting = false;
        let (end_time, end_steps) = (self.now + DRAIN_TIME, self.steps + DRAIN_STEPS);
        while self.now < end_time && self.steps < end_steps {
            let Some(((at, _), ev)) = self.queue.pop_first() else { break };
            self.now = at;
            self.step(ev).map_err(|v| (self.steps, v))?;
        }
        // Work left once faults have stopped and the drain's time is up is itself a
        // violation (termination), never a reason to skip the quiescence check.
        if let Some(((at, _), ev)) = self.queue.first_key_value() {
            let detail = format!(
                "did not drain: {} events left after {DRAIN_TIME} ms without faults, the first at t={at}: {ev:?}",
                self.queue.len()
            );
            return Err((self.steps, Violation { invariant: "drain", detail, txn: None }));
        }
        let stores = Self::stores(&self.servers);
        self.ghost.check_quiescent(&stores, self.now).map_err(|v| (self.steps, v))?;
        // A lock taken after its client gave up counts too.
        for (c, client) in self.clients.iter().enumerate() {
            if matches!(client.outcome(), Some(Outcome::Failed(f)) if !matches!(f, Failure::InDoubt(_))) {
                self.rules.failed(self.p.managers + c as NodeId, &stores).map_err(|v| (self.steps, v))?;
            }
        }
        Ok(())
    }

    /// Every manager's durable state.
    fn stores(servers: &[Slot]) -> Vec<(NodeId, &Durable)> {
        servers.iter().enumerate().map(|(m, s)| (m as NodeId, s.store.load())).collect()
    }

    fn mix(&mut self, x: u64) {
        for b in x.to_le_bytes() {
            self.digest = (self.digest ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn step(&mut self, ev: Event) -> Result<(), Violation> {
        self.steps += 1;
        let (tag, node) = match &ev {
            Event::Deliver(env) => (env.msg.kind().len() as u64 * 31 + u64::from(env.from), env.to),
            Event::Timer { node, .. } => (1, *node),
            Event::Crash(n) => (2, *n),
            Event::Restart(n) => (3, *n),
            Event::Start(n) => (4, *n),
        };
        self.mix(self.now);
        self.mix(tag);
        self.mix(u64::from(node));
        if let Some(trace) = &mut self.trace {
            // Only the last steps are kept, so a long run cannot exhaust memory.
            if trace.len() >= 2 * MAX_TRACE {
                trace.drain(..MAX_TRACE);
            }
            trace.push(format!("{} t={} {ev:?}", self.steps, self.now));
        }
        if self.faulty && self.p.faults.has(Fault::CrashManager) && self.rng.random_bool(self.p.crash) {
            let m = self.rng.random_range(0..self.p.managers);
            let at = self.now;
            self.push(at, Event::Crash(m));
        }
        if self.faulty && self.p.faults.has(Fault::ClientVanish) && self.rng.random_bool(self.p.vanish) {
            // Gone for good: its holds must expire on their own.
            let c = self.rng.random_range(0..self.clients.len());
            self.gone[c] = true;
        }
        match ev {
            Event::Deliver(env) => {
                let to = env.to;
                if let Some(c) = self.client_index(to) {
                    if self.gone[c] {
                        return Ok(());
                    }
                    let out = self.clients[c].handle(self.now, Input::Msg(env));
                    self.after_client(c, out)
                } else if self.servers[to as usize].server.is_some() {
                    self.ghost.delivered(&env);
                    self.rules.delivered(&env);
                    self.server_step(to, Input::Msg(env))
                } else {
                    Ok(())
                }
            }
            Event::Timer { node, id, token } => {
                if self.timers[node as usize].get(&id) != Some(&token) {
                    return Ok(());
                }
                self.timers[node as usize].remove(&id);
                match self.client_index(node) {
                    Some(c) if self.gone[c] => Ok(()),
                    Some(c) => {
                        let out = self.clients[c].handle(self.now, Input::Timer(id));
                        self.after_client(c, out)
                    }
                    None => self.server_step(node, Input::Timer(id)),
                }
            }
            Event::Crash(m) => {
                self.crash(m);
                self.check(m, &[])
            }
            Event::Restart(m) => {
                let slot = &self.servers[m as usize];
                if slot.server.is_some() {
                    return Ok(());
                }
                match Server::start(m, slot.manager.clone(), slot.coordinator, slot.store.load(), self.now) {
                    Ok((server, out)) => {
                        self.servers[m as usize].server = Some(server);
                        self.after_server(m, out)
                    }
                    Err(e) => Err(Violation {
                        invariant: "I0",
                        detail: format!("manager {m} cannot restart: {e}"),
                        txn: None,
                    }),
                }
            }
            Event::Start(id) => {
                let Some(c) = self.client_index(id) else { return Ok(()) };
                if !self.starting || self.gone[c] || !self.clients[c].idle() {
                    return Ok(());
                }
                let res = self.reservation();
                self.rules.begin(id);
                self.counted[c] = false;
                let out = self.clients[c].start(self.now, res);
                self.after_client(c, out)
            }
        }
    }

    fn client_index(&self, node: NodeId) -> Option<usize> {
        node.checked_sub(self.p.managers).map(|c| c as usize).filter(|&c| c < self.clients.len())
    }

    /// A reservation drawn for a client starting now.
    fn reservation(&mut self) -> Reservation {
        let m = self.p.managers as usize;
        let r = if m == 1 || self.rng.random_bool(0.2) { 1 } else { self.rng.random_range(2..=m.min(3)) };
        let managers = sample(&mut self.rng, m, r);
        let half = (self.p.capacity / 2).max(1);
        let parts = managers.iter().map(|i| (i as NodeId, self.rng.random_range(1..=half))).collect();
        let earliest = (self.now / SLOT + self.rng.random_range(30..=60)) * SLOT;
        let latest_start = earliest + self.rng.random_range(0..=30) * SLOT;
        Reservation { parts, duration: self.rng.random_range(1..=4) * SLOT, earliest, latest_start }
    }

    fn crash(&mut self, m: NodeId) {
        if self.servers[m as usize].server.take().is_some() {
            self.timers[m as usize].clear();
            let at = self.now + self.rng.random_range(50..=1500);
            self.push(at, Event::Restart(m));
        }
    }

    fn server_step(&mut self, m: NodeId, input: Input) -> Result<(), Violation> {
        let Some(server) = self.servers[m as usize].server.as_mut() else { return Ok(()) };
        let out = server.handle(self.now, input);
        self.after_server(m, out)
    }

    /// Applies a server step's outputs under the write-ahead rule: durable records first,
    /// then sends, then timers; a crash may fall between the records and the sends.
    fn after_server(&mut self, m: NodeId, out: Vec<Output>) -> Result<(), Violation> {
        let batch: Vec<Record> = out
            .iter()
            .filter_map(|o| if let Output::Persist(r) = o { Some(r.clone()) } else { None })
            .collect();
        if let Err(e) = self.servers[m as usize].store.apply(&batch) {
            return Err(Violation { invariant: "I0", detail: format!("manager {m}: {e}"), txn: None });
        }
        let decided = batch.iter().any(|r| matches!(r, Record::Decision(d) if d.commit));
        // A coordinator crashed between its Prepares and its decision leaves participants
        // asking about a transaction it may not know (presumed abort).
        let preparing =
            out.iter().any(|o| matches!(o, Output::Send(Envelope { msg: Msg::Prepare { .. }, .. })));
        let mut crash_before = false;
        let mut crash_after = false;
        if self.faulty
            && decided
            && self.p.faults.has(Fault::CrashCoordinator)
            && self.rng.random_bool(self.p.target)
        {
            if self.rng.random_bool(0.5) {
                crash_before = true;
            } else {
                crash_after = true;
            }
        }
        if self.faulty
            && preparing
            && self.p.faults.has(Fault::CrashCoordinator)
            && self.rng.random_bool(self.p.target / 4.0)
        {
            crash_after = true;
        }
        if self.faulty
            && !batch.is_empty()
            && self.p.faults.has(Fault::TornStep)
            && self.rng.random_bool(self.p.torn)
        {
            crash_before = true;
        }
        if crash_before {
            self.crash(m);
            return self.check(m, &batch);
        }
        self.emit(m, out)?;
        if crash_after {
            self.crash(m);
        }
        self.check(m, &batch)
    }

    fn check(&mut self, m: NodeId, batch: &[Record]) -> Result<(), Violation> {
        let slot = &self.servers[m as usize];
        // The step rules first: they name the step's own fault, where the state checks
        // would see only its consequence.
        self.rules.check(m, slot.server.as_ref(), self.now)?;
        self.ghost.check_server(m, slot.server.as_ref(), slot.store.load(), batch, self.now)
    }

    fn after_client(&mut self, c: usize, out: Vec<Output>) -> Result<(), Violation> {
        let id = self.clients[c].outcome().map(|_| ());
        let node = self.p.managers + c as NodeId;
        self.emit(node, out)?;
        if id.is_some() && !self.counted[c] {
            self.counted[c] = true;
            match self.clients[c].outcome() {
                Some(Outcome::Failed(why)) => {
                    *self.failed.entry(why.name()).or_default() += 1;
                    if !matches!(why, Failure::InDoubt(_)) {
                        let stores = Self::stores(&self.servers);
                        self.rules.failed(node, &stores)?;
                    }
                }
                _ => self.committed += 1,
            }
            if self.starting {
                let at = self.now + self.rng.random_range(0..200);
                self.push(at, Event::Start(node));
            }
        }
        Ok(())
    }

    /// Sends and timers of a step.
    fn emit(&mut self, node: NodeId, out: Vec<Output>) -> Result<(), Violation> {
        for o in out {
            match o {
                Output::Persist(_) => {}
                Output::Send(env) => {
                    let sender = self.servers.get(node as usize).and_then(|s| s.server.as_ref());
                    self.ghost.sent(&env, sender, self.now)?;
                    match sender {
                        Some(s) => self.rules.sent(&env, s)?,
                        None => self.rules.client_sent(&env),
                    }
                    self.network(env);
                }
                Output::SetTimer { id, at } => {
                    self.seq += 1;
                    let token = self.seq;
                    self.timers[node as usize].insert(id, token);
                    self.push(at.max(self.now), Event::Timer { node, id, token });
                }
                Output::CancelTimer(id) => {
                    self.timers[node as usize].remove(&id);
                }
            }
        }
        Ok(())
    }

    /// Puts a message on the network: lost, duplicated, delayed or reordered as the
    /// seed's faults say.
    fn network(&mut self, env: Envelope) {
        self.messages += 1;
        let f = self.p.faults;
        let faulty = self.faulty;
        if faulty && f.has(Fault::Loss) && self.rng.random_bool(self.p.loss) {
            return;
        }
        let copies =
            if faulty && f.has(Fault::Duplicate) && self.rng.random_bool(self.p.dup) { 2 } else { 1 };
        for _ in 0..copies {
            let jitter = if faulty && f.has(Fault::Reorder) { 100 } else { 5 };
            let mut delay = 1 + self.rng.random_range(0..=jitter);
            if faulty && f.has(Fault::Delay) && self.rng.random_bool(self.p.slow) {
                delay += self.rng.random_range(0..=3 * HOLD_TTL);
            }
            let at = self.now + delay;
            self.push(at, Event::Deliver(env.clone()));
        }
    }
}
