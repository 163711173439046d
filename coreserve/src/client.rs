//! The client's agent as a sans-IO state machine (calendar-token-reservation §4,
//! "Multiple Resource Managers", steps 1–4; design note §2.3): query every manager,
//! schedule on a start held everywhere, otherwise negotiate (release the starts locked
//! somewhere, queue for the missing parts of the others), commit through a coordinator,
//! and release what is left. The client keeps nothing durable (D21).

use std::collections::{BTreeMap, BTreeSet};

use structures::Time;

use super::durable::{Input, Output, TimerId};
use super::error::CalError;
use super::limits;
use super::proto::{ClaimId, Envelope, HoldGrant, Msg, NodeId, Part, Priority, ReqId, TxnId};

/// A client's settings.
#[derive(Debug, Clone, Copy)]
pub struct ClientConfig {
    /// Holds asked of each manager per query.
    pub max_holds: u32,
    /// The length of the range of starts one query round covers.
    pub span: Time,
    /// The first retry delay; it doubles per retry.
    pub rto: Time,
    /// Sends of one request before it counts as lost.
    pub max_tries: u32,
    /// How long a queued wait lasts.
    pub wait_for: Time,
    /// How long a reservation may take in all.
    pub give_up: Time,
    /// Commit attempts before the reservation fails.
    pub max_attempts: u32,
    /// A start closer than this to now is given up: the commit could not finish before
    /// it.
    pub lead: Time,
    /// A planted bug, for the simulator's checker to catch (never set outside tests).
    pub plant: Option<crate::Plant>,
}

/// What to reserve: `n` resources at each of some managers, for one common window of
/// `duration` starting between `earliest` and `latest_start` (D4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reservation {
    /// Each manager and how many of its resources.
    pub parts: Vec<(NodeId, u32)>,
    /// The window's length.
    pub duration: Time,
    /// The earliest start.
    pub earliest: Time,
    /// The latest start.
    pub latest_start: Time,
}

/// How a reservation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Locked everywhere over `[start, start + duration)`; `txn` is `None` for a
    /// one-manager lock.
    Committed {
        /// The transaction.
        txn: Option<TxnId>,
        /// The window's start.
        start: Time,
    },
    /// Not reserved.
    Failed(Failure),
}

/// Why a reservation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No start in the range fits ("no reservation is possible", §4 step 3).
    NoWindow,
    /// The reservation ran out of time.
    Timeout,
    /// Every commit attempt aborted.
    Aborted,
    /// The commit's outcome never came back: it may have committed.
    InDoubt(Option<TxnId>),
    /// The request itself was refused.
    Refused(CalError),
}

impl Failure {
    /// Its name, for counts.
    pub fn name(&self) -> &'static str {
        match self {
            Failure::NoWindow => "no window",
            Failure::Timeout => "timeout",
            Failure::Aborted => "aborted",
            Failure::InDoubt(_) => "in doubt",
            Failure::Refused(_) => "refused",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    Idle,
    Querying,
    Negotiating,
    Locking { req: ReqId, start: Time },
    Committing { txn: TxnId, start: Time, to: NodeId, msg: Msg, tries: u32 },
    Done(Outcome),
}

/// A client: one reservation at a time.
#[derive(Debug)]
pub struct Client {
    id: NodeId,
    cfg: ClientConfig,
    next_req: ReqId,
    next_txn: u64,
    res: Reservation,
    prio: Priority,
    range: (Time, Time),
    phase: Phase,
    /// Holds by start, then manager.
    holds: BTreeMap<(Time, NodeId), HoldGrant>,
    /// Starts that cannot (or will not) be had this round.
    dead: BTreeSet<Time>,
    querying: BTreeSet<NodeId>,
    waits: BTreeMap<ReqId, (NodeId, Time)>,
    outstanding: BTreeMap<ReqId, (Envelope, u32)>,
    attempts: u32,
}

impl Client {
    /// A client with nothing to do.
    pub fn new(id: NodeId, cfg: ClientConfig) -> Self {
        Self {
            id,
            cfg,
            next_req: 0,
            next_txn: 0,
            res: Reservation { parts: Vec::new(), duration: 0, earliest: 0, latest_start: 0 },
            prio: Priority { ts: 0, client: id },
            range: (0, 0),
            phase: Phase::Idle,
            holds: BTreeMap::new(),
            dead: BTreeSet::new(),
            querying: BTreeSet::new(),
            waits: BTreeMap::new(),
            outstanding: BTreeMap::new(),
            attempts: 0,
        }
    }

    /// How the last reservation ended, once it has.
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Done(o) => Some(o),
            _ => None,
        }
    }

    /// Whether it is between reservations.
    pub fn idle(&self) -> bool {
        matches!(self.phase, Phase::Idle | Phase::Done(_))
    }

    /// Begins `res` at `now`. Its priority is its start time, then the client: older
    /// reservations win (D7).
    pub fn start(&mut self, now: Time, res: Reservation) -> Vec<Output> {
        let mut out = Vec::new();
        self.holds.clear();
        self.waits.clear();
        self.dead.clear();
        self.attempts = 0;
        self.prio = Priority { ts: now, client: self.id };
        let managers: BTreeSet<NodeId> = res.parts.iter().map(|p| p.0).collect();
        let refused = if res.parts.is_empty() || res.parts.len() > limits::MAX_PARTS {
            Some(format!("a reservation spans 1..={} managers, not {}", limits::MAX_PARTS, res.parts.len()))
        } else if managers.len() != res.parts.len() {
            Some("a manager is named twice".to_owned())
        } else if res.duration == 0 || res.parts.iter().any(|p| p.1 == 0) || res.latest_start < res.earliest {
            Some(
                "a reservation needs a duration, a count at every manager and earliest <= latest start"
                    .to_owned(),
            )
        } else {
            None
        };
        self.res = res;
        if let Some(why) = refused {
            self.phase = Phase::Done(Outcome::Failed(Failure::Refused(CalError::BadRequest(why))));
            return out;
        }
        out.push(Output::SetTimer { id: TimerId::GiveUp, at: now.saturating_add(self.cfg.give_up) });
        self.range.0 = self.res.earliest;
        self.query_round(now, &mut out);
        out
    }

    fn query_round(&mut self, now: Time, out: &mut Vec<Output>) {
        let to = self
            .range
            .0
            .saturating_add(self.cfg.span)
            .min(self.res.latest_start.saturating_add(self.res.duration));
        self.range.1 = to.max(self.range.0.saturating_add(self.res.duration));
        self.dead.clear();
        self.phase = Phase::Querying;
        let parts = self.res.parts.clone();
        for (manager, n) in parts {
            self.querying.insert(manager);
            let (prio, (from, to), duration, max_holds) =
                (self.prio, self.range, self.res.duration, self.cfg.max_holds);
            self.request(now, manager, |req| Msg::Query { req, prio, from, to, duration, n, max_holds }, out);
        }
    }

    fn request(
        &mut self,
        now: Time,
        to: NodeId,
        msg: impl FnOnce(ReqId) -> Msg,
        out: &mut Vec<Output>,
    ) -> ReqId {
        self.next_req += 1;
        let req = self.next_req;
        let env = Envelope { from: self.id, to, msg: msg(req) };
        out.push(Output::Send(env.clone()));
        out.push(Output::SetTimer { id: TimerId::Retry(req), at: now + self.cfg.rto });
        self.outstanding.insert(req, (env, 1));
        req
    }

    fn release(&mut self, now: Time, manager: NodeId, claims: Vec<ClaimId>, out: &mut Vec<Output>) {
        for chunk in claims.chunks(limits::MAX_CLAIMS) {
            let claims = chunk.to_vec();
            self.request(now, manager, |req| Msg::Release { req, claims }, out);
        }
    }

    /// Releases the holds at the starts `keep` rejects.
    fn release_where(&mut self, now: Time, keep: impl Fn(Time) -> bool, out: &mut Vec<Output>) {
        let mut by_manager: BTreeMap<NodeId, Vec<ClaimId>> = BTreeMap::new();
        self.holds.retain(|&(t, m), h| {
            keep(t) || {
                by_manager.entry(m).or_default().push(h.claim);
                false
            }
        });
        for (m, claims) in by_manager {
            self.release(now, m, claims, out);
        }
    }

    fn finish(&mut self, now: Time, outcome: Outcome, out: &mut Vec<Output>) {
        let kept = match &self.phase {
            Phase::Committing { start, .. } | Phase::Locking { start, .. } => Some(*start),
            _ => None,
        };
        let committed = matches!(outcome, Outcome::Committed { .. });
        self.release_where(now, |t| committed && Some(t) == kept, out);
        self.holds.clear();
        self.waits.clear();
        self.querying.clear();
        out.push(Output::CancelTimer(TimerId::GiveUp));
        out.push(Output::CancelTimer(TimerId::CommitRetry));
        self.phase = Phase::Done(outcome);
    }

    /// One step.
    pub fn handle(&mut self, now: Time, input: Input) -> Vec<Output> {
        let mut out = Vec::new();
        match input {
            Input::Timer(id) => self.on_timer(now, id, &mut out),
            Input::Msg(env) => self.on_msg(now, env, &mut out),
        }
        out
    }

    fn on_timer(&mut self, now: Time, id: TimerId, out: &mut Vec<Output>) {
        match id {
            TimerId::Retry(req) => {
                let Some((env, tries)) = self.outstanding.get_mut(&req) else { return };
                if *tries >= self.cfg.max_tries {
                    let env = env.clone();
                    self.outstanding.remove(&req);
                    self.lost(now, req, env, out);
                } else {
                    *tries += 1;
                    let backoff = self.cfg.rto << (*tries).min(4);
                    out.push(Output::Send(env.clone()));
                    out.push(Output::SetTimer { id, at: now + backoff });
                }
            }
            TimerId::WaitOver(req) => {
                if let Some((_, t)) = self.waits.remove(&req) {
                    self.dead.insert(t);
                    self.evaluate(now, out);
                }
            }
            TimerId::CommitRetry => {
                if let Phase::Committing { txn, to, msg, tries, .. } = &mut self.phase {
                    if *tries >= 2 * self.cfg.max_tries {
                        let txn = *txn;
                        self.finish(now, Outcome::Failed(Failure::InDoubt(Some(txn))), out);
                    } else {
                        *tries += 1;
                        out.push(Output::Send(Envelope { from: self.id, to: *to, msg: msg.clone() }));
                        // Backing off outlasts a coordinator's restart.
                        out.push(Output::SetTimer { id, at: now + ((2 * self.cfg.rto) << (*tries).min(4)) });
                    }
                }
            }
            TimerId::GiveUp => {
                let failure = match self.phase {
                    Phase::Committing { txn, .. } => Failure::InDoubt(Some(txn)),
                    Phase::Locking { .. } => Failure::InDoubt(None),
                    _ => Failure::Timeout,
                };
                if !self.idle() {
                    self.finish(now, Outcome::Failed(failure), out);
                }
            }
            _ => {}
        }
    }

    /// A request that got no answer after every retry.
    fn lost(&mut self, now: Time, req: ReqId, env: Envelope, out: &mut Vec<Output>) {
        match env.msg {
            Msg::Query { .. } if self.querying.remove(&env.to) && self.querying.is_empty() => {
                self.evaluate(now, out)
            }
            Msg::Wait { .. } => {
                if let Some((_, t)) = self.waits.remove(&req) {
                    self.dead.insert(t);
                    self.evaluate(now, out);
                }
            }
            Msg::Lock { .. } if matches!(self.phase, Phase::Locking { req: r, .. } if r == req) => {
                self.finish(now, Outcome::Failed(Failure::InDoubt(None)), out);
            }
            _ => {}
        }
    }

    /// A grant nobody wants any more is released (D19).
    fn unwanted(&mut self, now: Time, from: NodeId, grants: Vec<HoldGrant>, out: &mut Vec<Output>) {
        // A duplicated reply repeats grants this client still uses: keep those.
        let held: BTreeSet<ClaimId> = self.holds.values().map(|h| h.claim).collect();
        let claims: Vec<ClaimId> =
            grants.into_iter().map(|g| g.claim).filter(|c| !held.contains(c)).collect();
        if !claims.is_empty() {
            self.release(now, from, claims, out);
        }
    }

    fn wanted(&self) -> bool {
        matches!(
            self.phase,
            Phase::Querying | Phase::Negotiating | Phase::Committing { .. } | Phase::Locking { .. }
        )
    }

    fn on_msg(&mut self, now: Time, env: Envelope, out: &mut Vec<Output>) {
        let from = env.from;
        match env.msg {
            Msg::QueryReply { req, holds, dead } => self.on_query_reply(now, from, req, holds, dead, out),
            Msg::WaitReply { req, result } => {
                self.outstanding.remove(&req);
                match result {
                    Ok(Some(grant)) => self.granted(now, from, req, grant, out),
                    Ok(None) => {
                        if self.waits.contains_key(&req) {
                            out.push(Output::SetTimer {
                                id: TimerId::WaitOver(req),
                                at: now + self.cfg.wait_for + self.cfg.rto,
                            });
                        }
                    }
                    Err(_) => self.wait_ended(now, req, out),
                }
            }
            Msg::Granted { req, grant } => self.granted(now, from, req, grant, out),
            Msg::WaitEnded { req, .. } => self.wait_ended(now, req, out),
            Msg::Released { req, .. } => {
                self.outstanding.remove(&req);
            }
            // Its own claim locked already is its lock (a retry the manager could not
            // match to the first answer): success, not a conflict.
            Msg::LockReply { req, result } => {
                let locked = matches!(result, Ok(_) | Err(CalError::AlreadyLocked { .. }))
                    && self.cfg.plant != Some(crate::Plant::FailHoldingLock);
                self.on_lock_reply(now, req, locked, out)
            }
            Msg::Recall { claim, .. } => self.hold_lost(now, from, claim, true, out),
            Msg::Expired { claim } => self.hold_lost(now, from, claim, false, out),
            Msg::Outcome { txn, committed } => self.on_outcome(now, txn, committed, out),
            Msg::Error { req, txn, error } => {
                if let Some(req) = req {
                    if let Some((env, _)) = self.outstanding.remove(&req) {
                        self.lost(now, req, env, out);
                    }
                } else if matches!((txn, &self.phase), (Some(t), Phase::Committing { txn: mine, .. }) if t == *mine)
                {
                    self.finish(now, Outcome::Failed(Failure::Refused(error)), out);
                }
            }
            _ => {}
        }
    }

    /// A manager answered a query: its holds are kept, and once every manager asked has
    /// answered, the holds are weighed. A reply nobody waits for gives its holds back.
    fn on_query_reply(
        &mut self,
        now: Time,
        from: NodeId,
        req: ReqId,
        holds: Vec<HoldGrant>,
        dead: Vec<Time>,
        out: &mut Vec<Output>,
    ) {
        let ours = self.outstanding.remove(&req).is_some() && self.phase == Phase::Querying;
        if !ours {
            return self.unwanted(now, from, holds, out);
        }
        for h in holds {
            self.holds.insert((h.start, from), h);
        }
        self.dead.extend(dead);
        self.querying.remove(&from);
        if self.querying.is_empty() {
            self.evaluate(now, out);
        }
    }

    /// A wait will bring no grant: its start is dead, and the holds are weighed again.
    fn wait_ended(&mut self, now: Time, req: ReqId, out: &mut Vec<Output>) {
        if let Some((_, t)) = self.waits.remove(&req) {
            self.dead.insert(t);
            self.evaluate(now, out);
        }
    }

    /// The answer to a single-manager lock: committed, or back to negotiating without the
    /// holds at that start.
    fn on_lock_reply(&mut self, now: Time, req: ReqId, locked: bool, out: &mut Vec<Output>) {
        self.outstanding.remove(&req);
        let Phase::Locking { req: r, start } = self.phase else { return };
        if r != req {
            return;
        }
        if locked {
            self.finish(now, Outcome::Committed { txn: None, start }, out);
        } else {
            self.holds.retain(|&(t, _), _| t != start);
            self.phase = Phase::Negotiating;
            self.evaluate(now, out);
        }
    }

    /// A manager recalled (`recall`) or expired one of our holds: unless it is the start
    /// being committed, the hold is dropped (a recalled one released at once) and the
    /// rest weighed again.
    fn hold_lost(&mut self, now: Time, from: NodeId, claim: ClaimId, recall: bool, out: &mut Vec<Output>) {
        let committing = match self.phase {
            Phase::Committing { start, .. } | Phase::Locking { start, .. } => Some(start),
            _ => None,
        };
        let key = self.holds.iter().find(|(_, h)| h.claim == claim).map(|(k, _)| *k);
        if let Some(key) = key.filter(|k| Some(k.0) != committing) {
            self.holds.remove(&key);
            if recall {
                self.release(now, from, vec![claim], out);
            }
            self.evaluate(now, out);
        }
    }

    /// The coordinator's decision on our commit: done, or, after an abort, another
    /// attempt without that start while attempts remain.
    fn on_outcome(&mut self, now: Time, txn: TxnId, committed: bool, out: &mut Vec<Output>) {
        let Phase::Committing { txn: mine, start, .. } = self.phase else { return };
        if mine != txn {
            return;
        }
        out.push(Output::CancelTimer(TimerId::CommitRetry));
        if committed {
            self.finish(now, Outcome::Committed { txn: Some(txn), start }, out);
            return;
        }
        // The abort released the holds at `start`.
        self.holds.retain(|&(t, _), _| t != start);
        self.dead.insert(start);
        self.attempts += 1;
        if self.attempts >= self.cfg.max_attempts {
            self.finish(now, Outcome::Failed(Failure::Aborted), out);
        } else {
            self.phase = Phase::Negotiating;
            self.evaluate(now, out);
        }
    }

    fn granted(&mut self, now: Time, from: NodeId, req: ReqId, grant: HoldGrant, out: &mut Vec<Output>) {
        match self.waits.remove(&req) {
            Some((_, t)) if self.wanted() && grant.start == t => {
                self.holds.insert((t, from), grant);
                self.evaluate(now, out);
            }
            _ => self.unwanted(now, from, vec![grant], out),
        }
    }

    /// §4 step 2 (schedule on a start held everywhere) or step 3 (negotiate).
    fn evaluate(&mut self, now: Time, out: &mut Vec<Output>) {
        match self.phase {
            Phase::Querying if self.querying.is_empty() => {}
            Phase::Negotiating => {}
            _ => return,
        }
        // Holds this client saw lapse, or starting too soon to commit, are no use.
        let soon = now.saturating_add(self.cfg.lead);
        self.holds.retain(|_, h| h.deadline > now);
        self.release_where(now, |t| t >= soon, out);
        let parts = self.res.parts.clone();
        let starts: BTreeSet<Time> = self.holds.keys().map(|k| k.0).collect();
        let complete = starts.iter().copied().find(|t| {
            !self.dead.contains(t) && parts.iter().all(|(m, _)| self.holds.contains_key(&(*t, *m)))
        });
        if let Some(t) = complete {
            return self.commit(now, t, out);
        }
        // Negotiate: a start locked at some manager can never be had; give it up.
        let dead = self.dead.clone();
        self.release_where(now, |t| !dead.contains(&t), out);
        let alive: BTreeSet<Time> = self.holds.keys().map(|k| k.0).collect();
        if alive.is_empty() {
            self.waits.clear();
            self.range.0 = self.range.1;
            if self.range.0 > self.res.latest_start {
                return self.finish(now, Outcome::Failed(Failure::NoWindow), out);
            }
            return self.query_round(now, out);
        }
        self.phase = Phase::Negotiating;
        let waiting: BTreeSet<(NodeId, Time)> = self.waits.values().copied().collect();
        for t in alive {
            for &(m, n) in &parts {
                if self.holds.contains_key(&(t, m)) || waiting.contains(&(m, t)) {
                    continue;
                }
                let (prio, end, until) =
                    (self.prio, t.saturating_add(self.res.duration), now + self.cfg.wait_for);
                let req = self.request(now, m, |req| Msg::Wait { req, prio, n, start: t, end, until }, out);
                self.waits.insert(req, (m, t));
            }
        }
    }

    /// Commits start `t`: a direct lock at one manager (D8), else a two-phase commit
    /// through one of the managers' coordinators, picked by the transaction (D20).
    fn commit(&mut self, now: Time, t: Time, out: &mut Vec<Output>) {
        let parts: Vec<Part> = self
            .res
            .parts
            .iter()
            .filter_map(|&(m, n)| {
                self.holds.get(&(t, m)).map(|h| Part { manager: m, claims: vec![h.claim], n })
            })
            .collect();
        if let [part] = parts.as_slice() {
            let claim = part.claims[0];
            let req = self.request(now, part.manager, |req| Msg::Lock { req, claim }, out);
            self.phase = Phase::Locking { req, start: t };
            return;
        }
        self.next_txn += 1;
        let txn = TxnId { client: self.id, seq: self.next_txn };
        let to = parts
            [(u64::from(txn.client).wrapping_mul(31).wrapping_add(txn.seq) % parts.len() as u64) as usize]
            .manager;
        let msg = Msg::CommitReq { txn, start: t, end: t.saturating_add(self.res.duration), parts };
        out.push(Output::Send(Envelope { from: self.id, to, msg: msg.clone() }));
        out.push(Output::SetTimer { id: TimerId::CommitRetry, at: now + 2 * self.cfg.rto });
        self.phase = Phase::Committing { txn, start: t, to, msg, tries: 1 };
    }
}
