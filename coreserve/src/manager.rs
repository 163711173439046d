//! The resource manager as a sans-IO state machine (calendar-token-reservation §3 and
//! §4; design note §2.2): query, hold, wait with recall, release, lock, and the
//! participant's side of two-phase commit with durable prepare records.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use structures::{Config, Kind, RangeSet, Time};

use super::access::Access;
use super::calendar::{Calendar, Claim, ClaimState, InvariantError};
use super::durable::{Durable, Input, LockRecord, Output, PreparedRecord, Record, TimerId};
use super::error::CalError;
use super::limits;
use super::proto::{
    ClaimId, ClientId, Envelope, HoldGrant, Msg, NodeId, Priority, ReqId, TxnId, Verdict, WaitEnd,
};
use super::Plant;

/// A manager's settings.
#[derive(Debug, Clone)]
pub struct ManagerConfig {
    /// The structure its calendar is kept in.
    pub kind: Kind,
    /// Its resources (ids `0..capacity`).
    pub capacity: u32,
    /// Slot width and horizon.
    pub config: Config,
    /// Who may use which ids.
    pub access: Access,
    /// How long a hold lasts unless locked (D6).
    pub hold_ttl: Time,
    /// How long a recalled hold has left (§3: "within a certain time period").
    pub recall_grace: Time,
    /// How often to ask about an undecided prepared transaction.
    pub inquiry: Time,
    /// A planted bug, for the simulator's checker tests.
    pub plant: Option<Plant>,
}

/// A queued wait (§4 step 3: "enters a queue on other slots").
#[derive(Debug, Clone)]
struct Waiter {
    ids: RangeSet,
    start: Time,
    end: Time,
    until: Time,
}

/// Why a manager fails its check ([`Manager::validate`]), naming the manager.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Broken {
    /// An internal error it met while handling a step (a bug).
    #[error("manager {manager}: {error}")]
    Internal {
        /// The manager.
        manager: NodeId,
        /// The first such error.
        error: CalError,
    },
    /// Its calendar broke an invariant.
    #[error("manager {manager}: {invariant}")]
    Calendar {
        /// The manager.
        manager: NodeId,
        /// The invariant and where.
        invariant: InvariantError,
    },
}

/// A manager: its calendar plus the protocol's volatile state.
#[derive(Debug)]
pub struct Manager {
    id: NodeId,
    cfg: ManagerConfig,
    cal: Calendar,
    /// Queued waits by priority, then client and request.
    waits: BTreeMap<(Priority, ClientId, ReqId), Waiter>,
    /// Replies to client requests, so a retried request gets the same answer (D18).
    replies: BTreeMap<(ClientId, ReqId), Msg>,
    reply_order: VecDeque<(ClientId, ReqId)>,
    aborted: BTreeSet<TxnId>,
    aborted_order: VecDeque<TxnId>,
    /// Prepared transactions: their coordinator and claims.
    prepared: BTreeMap<TxnId, (NodeId, Vec<ClaimId>)>,
    /// Committed transactions whose window has not passed, with its end.
    locked: BTreeMap<TxnId, Time>,
    /// The deadline timer as last armed.
    armed: Option<Time>,
    /// The first internal error (the index refusing what the layer allowed).
    broken: Option<CalError>,
}

impl Manager {
    /// Starts (or restarts) manager `id` from its durable state at `now`: a new epoch,
    /// the locks and prepared claims put back, a decision inquiry for every prepared
    /// transaction.
    ///
    /// # Errors
    /// [`CalError::Outside`] for a bad configuration, [`CalError::Index`] if two durable
    /// claims overlap (a corrupt store).
    pub fn start(
        id: NodeId,
        cfg: ManagerConfig,
        durable: &Durable,
        now: Time,
    ) -> Result<(Self, Vec<Output>), CalError> {
        let epoch = durable.epoch.saturating_add(1);
        let mut cal = Calendar::new(cfg.kind, cfg.capacity, cfg.config, cfg.access.clone(), epoch)?;
        cal.advance(now)?;
        let mut out = vec![Output::Persist(Record::Epoch(epoch))];
        let mut locked = BTreeMap::new();
        for lock in durable.locks.values() {
            if lock.end <= cal.now() {
                out.push(Output::Persist(Record::DelLock(lock.claim)));
                continue;
            }
            if let Some(txn) = lock.txn {
                locked.insert(txn, lock.end);
            }
            let prio = Priority { ts: 0, client: lock.holder };
            let state = ClaimState::Locked { txn: lock.txn };
            let claim = Claim {
                holder: lock.holder,
                prio,
                ids: lock.ids.clone(),
                start: lock.start,
                end: lock.end,
                state,
            };
            cal.restore(lock.claim, claim)?;
        }
        let mut prepared = BTreeMap::new();
        for p in durable.prepared.values() {
            for (claim, ids) in &p.claims {
                let state = ClaimState::Prepared { txn: p.txn };
                let c = Claim {
                    holder: p.txn.client,
                    prio: p.prio,
                    ids: ids.clone(),
                    start: p.start,
                    end: p.end,
                    state,
                };
                cal.restore(*claim, c)?;
            }
            prepared.insert(p.txn, (p.coordinator, p.claims.iter().map(|(c, _)| *c).collect()));
            out.push(Output::Send(Envelope {
                from: id,
                to: p.coordinator,
                msg: Msg::DecisionQuery { txn: p.txn },
            }));
            out.push(Output::SetTimer { id: TimerId::Inquiry(p.txn), at: now + cfg.inquiry });
        }
        let manager = Self {
            id,
            cfg,
            cal,
            waits: BTreeMap::new(),
            replies: BTreeMap::new(),
            reply_order: VecDeque::new(),
            aborted: BTreeSet::new(),
            aborted_order: VecDeque::new(),
            prepared,
            locked,
            armed: None,
            broken: None,
        };
        Ok((manager, out))
    }

    /// Its calendar.
    pub fn calendar(&self) -> &Calendar {
        &self.cal
    }

    /// How long a hold granted now lasts at most: its lease (D13).
    pub fn hold_ttl(&self) -> Time {
        self.cfg.hold_ttl
    }

    /// The deadline of a hold granted at `now`.
    fn lease(&self, now: Time) -> Time {
        match self.cfg.plant {
            Some(Plant::HoldWithoutLease) => Time::MAX,
            _ => now + self.cfg.hold_ttl,
        }
    }

    /// The number of queued waits.
    pub fn waiting(&self) -> usize {
        self.waits.len()
    }

    /// The queued waits, highest priority first: each one's priority, the ids it is
    /// promised, and its window.
    pub fn waits(&self) -> impl Iterator<Item = (Priority, &RangeSet, Time, Time)> {
        self.waits.iter().map(|((prio, _, _), w)| (*prio, &w.ids, w.start, w.end))
    }

    /// Its calendar's invariant check, and any internal error it met.
    ///
    /// # Errors
    /// A [`Broken`] naming the manager and what is broken.
    pub fn validate(&self) -> Result<(), Broken> {
        let manager = self.id;
        if let Some(error) = &self.broken {
            return Err(Broken::Internal { manager, error: error.clone() });
        }
        self.cal.validate().map_err(|invariant| Broken::Calendar { manager, invariant })
    }

    /// One step: moves to `now` (forgetting the past, expiring lapsed holds and waits),
    /// then handles `input`.
    pub fn handle(&mut self, now: Time, input: Input) -> Vec<Output> {
        let mut out = Vec::new();
        let stale = self.cfg.plant == Some(Plant::LockLapsedHold)
            && matches!(&input, Input::Msg(Envelope { msg: Msg::Lock { .. }, .. }));
        if !stale {
            self.tick(now, &mut out);
        }
        match input {
            Input::Msg(env) => self.on_msg(now, env, &mut out),
            Input::Timer(TimerId::Inquiry(txn)) => {
                if let Some((coordinator, _)) = self.prepared.get(&txn) {
                    self.send(&mut out, *coordinator, Msg::DecisionQuery { txn });
                    out.push(Output::SetTimer { id: TimerId::Inquiry(txn), at: now + self.cfg.inquiry });
                }
            }
            Input::Timer(_) => {}
        }
        if stale {
            self.tick(now, &mut out);
        }
        self.arm(&mut out);
        out
    }

    fn send(&self, out: &mut Vec<Output>, to: NodeId, msg: Msg) {
        out.push(Output::Send(Envelope { from: self.id, to, msg }));
    }

    fn note(&mut self, r: Result<(), CalError>) {
        if let Err(e) = r {
            self.broken.get_or_insert(e);
        }
    }

    fn tick(&mut self, now: Time, out: &mut Vec<Output>) {
        match self.cal.advance(now.max(self.cal.now())) {
            Ok(used) => out.extend(used.into_iter().map(|c| Output::Persist(Record::DelLock(c)))),
            Err(e) => self.note(Err(e)),
        }
        let present = self.cal.now();
        self.locked.retain(|_, end| *end > present);
        match self.cal.expire(now) {
            Ok(gone) => {
                for (claim, holder) in &gone {
                    self.send(out, *holder, Msg::Expired { claim: *claim });
                }
            }
            Err(e) => self.note(Err(e)),
        }
        self.grant(now, out);
    }

    /// Re-arms the deadline timer at the earliest hold deadline or wait end.
    fn arm(&mut self, out: &mut Vec<Output>) {
        // (The planted stale lock leaves lapsed holds to the next step's tick.)
        let holds = self.cal.next_deadline().filter(|_| self.cfg.plant != Some(Plant::LockLapsedHold));
        let next = self.waits.values().map(|w| w.until).chain(holds).min();
        if next != self.armed {
            self.armed = next;
            out.push(match next {
                Some(at) => Output::SetTimer { id: TimerId::Deadline, at },
                None => Output::CancelTimer(TimerId::Deadline),
            });
        }
    }

    /// The ids over `[start, end)` promised to queued waiters that outrank `prio` (D12).
    fn reserved(&self, prio: Priority, start: Time, end: Time) -> RangeSet {
        let mut ids = RangeSet::new();
        for (key, w) in self.waits.range(..(prio, 0, 0)) {
            if key.0 < prio && w.start < end && start < w.end {
                ids = ids.union(&w.ids);
            }
        }
        ids
    }

    /// The grant rule: queued waits, highest priority first, get their ids once free;
    /// a wait whose ids got locked, or whose time ran out, ends.
    fn grant(&mut self, now: Time, out: &mut Vec<Output>) {
        let keys: Vec<_> = self.waits.keys().copied().collect();
        for key in keys {
            let Some(w) = self.waits.get(&key).cloned() else { continue };
            let (prio, client, req) = key;
            let ended = if w.until <= now || w.start < self.cal.now() {
                Some(WaitEnd::Expired)
            } else if !w.ids.is_subset(&self.cal.unlocked(client, w.start, w.end)) {
                Some(WaitEnd::Locked)
            } else {
                None
            };
            if let Some(reason) = ended {
                self.waits.remove(&key);
                self.send(out, client, Msg::WaitEnded { req, reason });
                continue;
            }
            // Ids a higher-priority waiter is queued for are its (queue order, §3).
            let promised = if self.cfg.plant == Some(Plant::GrantOutOfOrder) {
                RangeSet::new()
            } else {
                self.reserved(prio, w.start, w.end)
            };
            let free = self.cal.free(w.start, w.end).unwrap_or_default();
            if w.ids.is_subset(&free) && w.ids.intersect(&promised).is_empty() {
                let deadline = self.lease(now);
                match self.cal.hold(client, prio, &w.ids, (w.start, w.end), deadline) {
                    Ok(claim) => {
                        self.waits.remove(&key);
                        let grant = HoldGrant { claim, ids: w.ids, start: w.start, end: w.end, deadline };
                        self.send(out, client, Msg::Granted { req, grant });
                    }
                    Err(e) => self.note(Err(e)),
                }
            }
        }
    }

    fn on_msg(&mut self, now: Time, env: Envelope, out: &mut Vec<Output>) {
        let from = env.from;
        let req = match &env.msg {
            Msg::Query { req, .. }
            | Msg::Hold { req, .. }
            | Msg::Wait { req, .. }
            | Msg::Release { req, .. }
            | Msg::Lock { req, .. } => Some(*req),
            _ => None,
        };
        if let Some(req) = req {
            // A retried request gets the first answer again and changes nothing.
            let reply = match self.replies.get(&(from, req)) {
                Some(cached) => cached.clone(),
                None => {
                    let reply = self.request(now, from, env.msg, out);
                    self.replies.insert((from, req), reply.clone());
                    self.reply_order.push_back((from, req));
                    if self.reply_order.len() > limits::MAX_REPLIES {
                        if let Some(old) = self.reply_order.pop_front() {
                            self.replies.remove(&old);
                        }
                    }
                    reply
                }
            };
            self.send(out, from, reply);
            return;
        }
        match env.msg {
            Msg::Prepare { txn, client, start, end, claims } => {
                let vote = self.prepare(now, from, txn, client, (start, end), &claims, out);
                self.send(out, from, vote);
            }
            Msg::Commit { txn, end } => {
                if self.prepared.contains_key(&txn) {
                    self.commit(txn, out);
                    self.send(out, from, Msg::Ack { txn });
                } else if self.locked.contains_key(&txn) || end <= self.cal.now() {
                    self.send(out, from, Msg::Ack { txn });
                } else {
                    let error = CalError::UnknownTxn { txn };
                    self.send(out, from, Msg::Error { req: None, txn: Some(txn), error });
                }
            }
            Msg::Abort { txn, claims } => {
                if self.prepared.contains_key(&txn) {
                    self.abort(now, txn, out);
                } else if self.locked.contains_key(&txn) {
                    let error = CalError::ConflictingDecision { txn };
                    self.send(out, from, Msg::Error { req: None, txn: Some(txn), error });
                } else {
                    // Aborted before it was prepared here: free what it named.
                    for claim in claims.iter().take(limits::MAX_CLAIMS) {
                        let _ = self.cal.release(txn.client, *claim, now);
                    }
                    self.remember_abort(txn);
                    self.grant(now, out);
                }
            }
            Msg::Decision { txn, verdict } if self.prepared.contains_key(&txn) => match verdict {
                Verdict::Commit => self.commit(txn, out),
                Verdict::Abort => self.abort(now, txn, out),
                Verdict::Pending => {}
            },
            _ => {}
        }
    }

    fn remember_abort(&mut self, txn: TxnId) {
        if self.aborted.insert(txn) {
            self.aborted_order.push_back(txn);
            if self.aborted_order.len() > limits::MAX_ABORTED {
                if let Some(old) = self.aborted_order.pop_front() {
                    self.aborted.remove(&old);
                }
            }
        }
    }

    /// A client request's reply (the caller caches and sends it).
    fn request(&mut self, now: Time, from: ClientId, msg: Msg, out: &mut Vec<Output>) -> Msg {
        match msg {
            Msg::Query { req, prio, from: t0, to, duration, n, max_holds } => {
                match self.query(now, from, prio, (t0, to), duration, n, max_holds) {
                    Ok((holds, dead)) => Msg::QueryReply { req, holds, dead },
                    Err(error) => Msg::Error { req: Some(req), txn: None, error },
                }
            }
            Msg::Hold { req, prio, n, start, end } => {
                let result = self.hold(now, from, prio, n, (start, end));
                Msg::HoldReply { req, result }
            }
            Msg::Wait { req, prio, n, start, end, until } => {
                let result = match self.hold(now, from, prio, n, (start, end)) {
                    Ok(grant) => Ok(Some(grant)),
                    Err(CalError::Busy { .. } | CalError::ReservedForWaiter { .. }) => {
                        self.enqueue(now, from, req, prio, n, (start, end), until, out).map(|()| None)
                    }
                    Err(e) => Err(e),
                };
                Msg::WaitReply { req, result }
            }
            Msg::Release { req, claims } => {
                let (mut released, mut refused) = (Vec::new(), Vec::new());
                for claim in claims.into_iter().take(limits::MAX_CLAIMS) {
                    match self.cal.release(from, claim, now) {
                        Ok(_) => released.push(claim),
                        Err(e) => {
                            if self.cfg.plant == Some(Plant::RefusalDropsClaim) {
                                let _ = self.cal.discard(claim);
                            }
                            refused.push((claim, e));
                        }
                    }
                }
                self.grant(now, out);
                Msg::Released { req, released, refused }
            }
            Msg::Lock { req, claim } => {
                let lapsed = self.cfg.plant == Some(Plant::LockLapsedHold)
                    && self.cal.claims().get(&claim).is_some_and(|c| {
                        c.holder == from
                            && matches!(c.state, ClaimState::Held { deadline, .. } if deadline <= now)
                    });
                let locked = match lapsed.then(|| self.cal.set_locked(claim, None)).flatten() {
                    Some(record) => Ok(record),
                    None => self.cal.lock(from, claim, now),
                };
                let result = match locked {
                    Ok(record) => {
                        self.persist_lock(record, out);
                        Ok(claim)
                    }
                    // The sender's own one-manager lock, durably there: a retry (after a
                    // restart lost the reply cache) gets the first outcome again.
                    Err(CalError::AlreadyLocked { claim })
                        if self
                            .cal
                            .claims()
                            .get(&claim)
                            .is_some_and(|c| c.state == ClaimState::Locked { txn: None }) =>
                    {
                        Ok(claim)
                    }
                    Err(e) => Err(e),
                };
                self.grant(now, out);
                Msg::LockReply { req, result }
            }
            other => {
                let error = CalError::BadRequest(format!("{} is not a request", other.kind()));
                Msg::Error { req: None, txn: None, error }
            }
        }
    }

    fn persist_lock(&self, record: LockRecord, out: &mut Vec<Output>) {
        if self.cfg.plant != Some(Plant::VolatileLock) {
            out.push(Output::Persist(Record::Lock(record)));
        }
    }

    /// The agent (§4 step 1, design note §2.2.3): scans the candidate starts in order and
    /// holds the first `max_holds` windows with `n` free ids the client may use, lowest
    /// ids first; reports the starts where fewer than `n` such ids are unlocked.
    #[allow(clippy::too_many_arguments)]
    fn query(
        &mut self,
        now: Time,
        client: ClientId,
        prio: Priority,
        range: (Time, Time),
        duration: Time,
        n: u32,
        max_holds: u32,
    ) -> Result<(Vec<HoldGrant>, Vec<Time>), CalError> {
        if max_holds == 0 || max_holds > limits::MAX_HOLDS {
            return Err(CalError::BadRequest(format!(
                "max_holds must be 1..={}, got {max_holds}",
                limits::MAX_HOLDS
            )));
        }
        self.cal.count(n)?;
        let (from, to) = self.cal.window(range.0, range.1)?;
        let slot = self.cal.config().slot;
        let duration = self.cal.config().ceil(duration).filter(|d| *d > 0 && *d <= to - from);
        let Some(duration) = duration else {
            return Err(CalError::BadRequest(format!(
                "duration must be 1..={} (the range), got it outside",
                to - from
            )));
        };
        let starts = (to - from - duration) / slot + 1;
        if starts > limits::MAX_SCAN {
            return Err(CalError::BadRequest(format!(
                "{starts} candidate starts are more than {}",
                limits::MAX_SCAN
            )));
        }
        let visible = self.cal.visible(client);
        let (mut holds, mut dead) = (Vec::new(), Vec::new());
        for i in 0..starts {
            let t = from + i * slot;
            let end = t + duration;
            let mut unlocked = self.cal.unlocked(client, t, end);
            if self.cfg.plant == Some(Plant::DeadCountsHidden) {
                unlocked = unlocked.union(&RangeSet::full(self.cal.capacity()).subtract(&visible));
            }
            if (unlocked.count() as u32) < n {
                dead.push(t);
                continue;
            }
            if holds.len() < max_holds as usize {
                let free = self.cal.free(t, end)?.intersect(&visible).subtract(&self.reserved(prio, t, end));
                if let Some(ids) = free.first(u64::from(n)) {
                    let deadline = self.lease(now);
                    let claim = self.cal.hold(client, prio, &ids, (t, end), deadline)?;
                    holds.push(HoldGrant { claim, ids, start: t, end, deadline });
                }
            }
        }
        Ok((holds, dead))
    }

    /// Holds `n` free ids over the window for `client`, or says why not.
    fn hold(
        &mut self,
        now: Time,
        client: ClientId,
        prio: Priority,
        n: u32,
        window: (Time, Time),
    ) -> Result<HoldGrant, CalError> {
        self.cal.count(n)?;
        let (start, end) = self.cal.window(window.0, window.1)?;
        let visible = self.cal.visible(client);
        if (visible.count() as u32) < n {
            let ids = RangeSet::full(self.cal.capacity()).subtract(&visible);
            return Err(CalError::AccessDenied { client, ids, start, end });
        }
        let free = self.cal.free(start, end)?.intersect(&visible);
        let open = free.subtract(&self.reserved(prio, start, end));
        match open.first(u64::from(n)) {
            Some(ids) => {
                let deadline = self.lease(now);
                let claim = self.cal.hold(client, prio, &ids, (start, end), deadline)?;
                Ok(HoldGrant { claim, ids, start, end, deadline })
            }
            None if free.count() >= u64::from(n) => Err(CalError::ReservedForWaiter { start, end }),
            None => Err(CalError::Busy { ids: visible.subtract(&free), start, end }),
        }
    }

    /// Queues a wait for `n` ids (free ones first, then ones others hold, lowest ids
    /// first) and recalls the holds of lower priority on them (§3, §4 step 3).
    #[allow(clippy::too_many_arguments)]
    fn enqueue(
        &mut self,
        now: Time,
        client: ClientId,
        req: ReqId,
        prio: Priority,
        n: u32,
        window: (Time, Time),
        until: Time,
        out: &mut Vec<Output>,
    ) -> Result<(), CalError> {
        let (start, end) = self.cal.window(window.0, window.1)?;
        let unlocked = self.cal.unlocked(client, start, end);
        if (unlocked.count() as u32) < n {
            return Err(CalError::Locked { n, unlocked: unlocked.count() as u32, start, end });
        }
        if self.waits.len() >= limits::MAX_WAITERS {
            return Err(CalError::BadRequest(format!(
                "the wait queue is full ({} waits)",
                limits::MAX_WAITERS
            )));
        }
        if until <= now {
            return Err(CalError::BadRequest(format!("wait until {until} is not after now ({now})")));
        }
        let free = self.cal.free(start, end)?.intersect(&unlocked);
        let take = free.first(free.count().min(u64::from(n))).unwrap_or_default();
        let rest = unlocked.subtract(&free).first(u64::from(n) - take.count()).unwrap_or_default();
        let ids = take.union(&rest);
        let recall: Vec<(ClaimId, ClientId)> = self
            .cal
            .claims()
            .iter()
            .filter(|(_, c)| {
                matches!(c.state, ClaimState::Held { recalled: false, .. })
                    && (c.prio > prio || self.cfg.plant == Some(Plant::RecallAnyPriority))
                    && c.start < end
                    && start < c.end
                    && !c.ids.intersect(&ids).is_empty()
            })
            .map(|(id, c)| (*id, c.holder))
            .collect();
        for (claim, holder) in recall {
            if let Some(deadline) = self.cal.recall(claim, now + self.cfg.recall_grace) {
                self.send(out, holder, Msg::Recall { claim, deadline });
            }
        }
        self.waits.insert((prio, client, req), Waiter { ids, start, end, until });
        Ok(())
    }

    /// Phase 1 at this participant: Yes (durably) if every claim is a usable hold of
    /// `client` over exactly the window; otherwise No, releasing the client's claims
    /// (a unilateral abort).
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &mut self,
        now: Time,
        coordinator: NodeId,
        txn: TxnId,
        client: ClientId,
        window: (Time, Time),
        claims: &[ClaimId],
        out: &mut Vec<Output>,
    ) -> Msg {
        let no = |reason| Msg::Vote { txn, yes: false, reason: Some(reason) };
        if self.prepared.contains_key(&txn) || self.locked.contains_key(&txn) {
            return Msg::Vote { txn, yes: true, reason: None };
        }
        if self.aborted.contains(&txn) {
            return no(CalError::TxnAborted { txn });
        }
        if claims.is_empty() || claims.len() > limits::MAX_CLAIMS {
            return no(CalError::BadRequest(format!("a prepare names 1..={} claims", limits::MAX_CLAIMS)));
        }
        let config = self.cal.config();
        let (start, end) = (config.floor(window.0), config.ceil(window.1).unwrap_or(Time::MAX));
        let mut cells = Vec::new();
        let mut failure = None;
        for claim in claims {
            match self.cal.usable(client, *claim, now) {
                Ok(c) if (c.start, c.end) != (start, end) => {
                    failure = Some(CalError::WindowMismatch { claim: *claim, start: c.start, end: c.end });
                }
                Ok(c) => cells.push((*claim, c.ids.clone(), c.prio)),
                Err(e) => failure = Some(e),
            }
            if failure.is_some() {
                break;
            }
        }
        if let Some(reason) = failure {
            for claim in claims {
                let _ = self.cal.release(client, *claim, now);
            }
            self.remember_abort(txn);
            self.grant(now, out);
            return no(reason);
        }
        let prio = cells.first().map_or(Priority { ts: 0, client }, |c| c.2);
        for (claim, _, _) in &cells {
            self.cal.set_prepared(*claim, txn);
        }
        let claims: Vec<(ClaimId, RangeSet)> = cells.into_iter().map(|(c, ids, _)| (c, ids)).collect();
        self.prepared.insert(txn, (coordinator, claims.iter().map(|(c, _)| *c).collect()));
        let record = PreparedRecord { txn, coordinator, prio, claims, start, end };
        out.push(Output::Persist(Record::Prepared(record)));
        out.push(Output::SetTimer { id: TimerId::Inquiry(txn), at: now + self.cfg.inquiry });
        Msg::Vote { txn, yes: true, reason: None }
    }

    /// Phase 2, commit: the prepared claims become locks, durably, in one batch.
    fn commit(&mut self, txn: TxnId, out: &mut Vec<Output>) {
        let Some((_, claims)) = self.prepared.remove(&txn) else { return };
        let present = self.cal.now();
        let mut end = 0;
        for claim in claims {
            let Some(record) = self.cal.set_locked(claim, Some(txn)) else { continue };
            if record.end <= present {
                // Decided after its window passed: there is nothing ahead to lock.
                let r = self.cal.discard(claim);
                self.note(r);
            } else {
                end = end.max(record.end);
                self.persist_lock(record, out);
            }
        }
        if end > present {
            self.locked.insert(txn, end);
        }
        out.push(Output::Persist(Record::DelPrepared(txn)));
        out.push(Output::CancelTimer(TimerId::Inquiry(txn)));
    }

    /// Phase 2, abort: the prepared claims are released.
    fn abort(&mut self, now: Time, txn: TxnId, out: &mut Vec<Output>) {
        let Some((_, claims)) = self.prepared.remove(&txn) else { return };
        for claim in claims {
            let r = self.cal.discard(claim);
            self.note(r);
        }
        self.remember_abort(txn);
        out.push(Output::Persist(Record::DelPrepared(txn)));
        out.push(Output::CancelTimer(TimerId::Inquiry(txn)));
        self.grant(now, out);
    }
}
