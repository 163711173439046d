//! The simulator's ghost state and the invariants it checks after every step (design
//! note §3). The ghost sees every message a node actually sends and every node's memory
//! and store, and never forgets, so it can tell when a restart lost something.

use std::collections::{BTreeMap, BTreeSet};

use structures::{RangeSet, Time};

use crate::calendar::ClaimState;
use crate::durable::{Durable, Record};
use crate::error::CalError;
use crate::node::Server;
use crate::proto::{ClaimId, Envelope, Msg, NodeId, Part, TxnId, Verdict};

/// A broken invariant: which, when, and a witness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The invariant's id (design note §3.2): `I0` .. `I10`.
    pub invariant: &'static str,
    /// What broke, naming the manager, transaction or claim.
    pub detail: String,
    /// The transaction it is about, if one.
    pub txn: Option<TxnId>,
}

fn broken(invariant: &'static str, txn: Option<TxnId>, detail: String) -> Result<(), Violation> {
    Err(Violation { invariant, detail, txn })
}

/// A lock a manager confirmed (`Ack` or `LockReply`).
#[derive(Debug, Clone)]
struct Acked {
    ids: RangeSet,
    start: Time,
    end: Time,
}

/// What the simulator knows that no node may forget.
#[derive(Debug, Default)]
pub struct Ghost {
    /// The first decision announced for each transaction.
    decision: BTreeMap<TxnId, bool>,
    /// The parts each transaction's commit request named.
    parts: BTreeMap<TxnId, (Vec<Part>, Time, Time)>,
    /// Committed transactions per manager, to check while their window is ahead.
    committed_at: BTreeMap<NodeId, BTreeSet<TxnId>>,
    /// Locks each manager confirmed.
    acked: BTreeMap<NodeId, BTreeMap<ClaimId, Acked>>,
    /// Yes votes each manager sent and that are not resolved yet.
    voted: BTreeMap<NodeId, BTreeSet<TxnId>>,
    /// Decisions delivered to each manager.
    resolved: BTreeSet<(NodeId, TxnId)>,
    /// Decisions announced: commits and aborts.
    pub commits: u64,
    /// Aborts announced.
    pub aborts: u64,
}

impl Ghost {
    /// Notes a message a node sent (`sender` is its state right after the step), and
    /// checks what can be checked at once: decisions are stable (I4), clients are told
    /// the truth (I9), managers never report protocol errors (I10), no two confirmed
    /// locks share a slot (I1g), and every hold granted lapses within its lease.
    ///
    /// # Errors
    /// The broken invariant.
    pub fn sent(&mut self, env: &Envelope, sender: Option<&Server>, now: Time) -> Result<(), Violation> {
        let m = env.from;
        if let Some(s) = sender {
            // I6 on the wire: a grant names only ids its receiver may use.
            let cal = s.manager.calendar();
            let granted = env.msg.grants();
            for g in granted {
                // Every hold is leased: it lapses within the TTL of its grant (D13).
                if g.deadline > now.saturating_add(s.manager.hold_ttl()) {
                    return broken(
                        "lease",
                        None,
                        format!(
                            "manager {m} granted {} at {now} until {}, past its lease of {}",
                            g.claim,
                            g.deadline,
                            s.manager.hold_ttl()
                        ),
                    );
                }
                if !g.ids.is_subset(&cal.visible(env.to)) {
                    return broken(
                        "I6",
                        None,
                        format!("manager {m} granted {} to client {} off its access list", g.claim, env.to),
                    );
                }
            }
        }
        match &env.msg {
            Msg::CommitReq { txn, start, end, parts } => {
                self.parts.entry(*txn).or_insert_with(|| (parts.clone(), *start, *end));
            }
            Msg::Commit { txn, .. } | Msg::Decision { txn, verdict: Verdict::Commit } => {
                self.announce(*txn, true, "I4")?
            }
            Msg::Abort { txn, .. } | Msg::Decision { txn, verdict: Verdict::Abort } => {
                self.announce(*txn, false, "I4")?
            }
            Msg::Outcome { txn, committed } => self.announce(*txn, *committed, "I9")?,
            Msg::Vote { txn, yes: true, .. } => {
                self.voted.entry(m).or_default().insert(*txn);
            }
            Msg::Error {
                error: e @ (CalError::UnknownTxn { .. } | CalError::ConflictingDecision { .. }),
                ..
            } => {
                return broken("I10", None, format!("manager {m} answered {e}"));
            }
            Msg::LockReply { result: Ok(claim), .. } => {
                if let Some(c) = sender.and_then(|s| s.manager.calendar().claims().get(claim)) {
                    self.ack(m, *claim, Acked { ids: c.ids.clone(), start: c.start, end: c.end }, now)?;
                }
            }
            Msg::Ack { txn } => {
                let locks: Vec<(ClaimId, Acked)> = sender
                    .map(|s| {
                        s.manager
                            .calendar()
                            .claims()
                            .iter()
                            .filter(|(_, c)| c.state == ClaimState::Locked { txn: Some(*txn) })
                            .map(|(id, c)| (*id, Acked { ids: c.ids.clone(), start: c.start, end: c.end }))
                            .collect()
                    })
                    .unwrap_or_default();
                for (claim, lock) in locks {
                    self.ack(m, claim, lock, now)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Notes a message delivered to a running manager.
    pub fn delivered(&mut self, env: &Envelope) {
        match env.msg {
            Msg::Commit { txn, .. } | Msg::Abort { txn, .. } => {
                self.resolved.insert((env.to, txn));
            }
            Msg::Decision { txn, verdict } if verdict != Verdict::Pending => {
                self.resolved.insert((env.to, txn));
            }
            _ => {}
        }
    }

    fn announce(&mut self, txn: TxnId, commit: bool, invariant: &'static str) -> Result<(), Violation> {
        match self.decision.get(&txn) {
            Some(&first) if first != commit => {
                let say = |c: bool| if c { "commit" } else { "abort" };
                broken(
                    invariant,
                    Some(txn),
                    format!("{txn} was announced {} and then {}", say(first), say(commit)),
                )
            }
            Some(_) => Ok(()),
            None => {
                self.decision.insert(txn, commit);
                if commit {
                    self.commits += 1;
                    if let Some((parts, _, _)) = self.parts.get(&txn) {
                        for p in parts {
                            self.committed_at.entry(p.manager).or_default().insert(txn);
                        }
                    }
                } else {
                    self.aborts += 1;
                }
                Ok(())
            }
        }
    }

    fn ack(&mut self, m: NodeId, claim: ClaimId, lock: Acked, now: Time) -> Result<(), Violation> {
        let acked = self.acked.entry(m).or_default();
        for (other, a) in acked.iter() {
            let (s0, s1) = (lock.start.max(now), a.start.max(now));
            let overlap =
                *other != claim && s0.max(s1) < lock.end.min(a.end) && !lock.ids.intersect(&a.ids).is_empty();
            if overlap {
                return broken(
                    "I1g",
                    None,
                    format!(
                        "manager {m} confirmed locks {claim} and {other} on resources {} over one slot",
                        lock.ids.intersect(&a.ids)
                    ),
                );
            }
        }
        acked.insert(claim, lock);
        Ok(())
    }

    /// Checks one server node after a step of it (or its crash or restart):
    /// its calendar's own check (I0, I1, I6), holds within their deadline (I5), every
    /// committed transaction durably prepared or locked here for its window (I2), no lock
    /// without a commit decision (I3), no confirmed lock lost (I7), every Yes durable
    /// until resolved (I8), and its decision records equal to what was announced (I4).
    ///
    /// # Errors
    /// The first broken invariant.
    pub fn check_server(
        &mut self,
        m: NodeId,
        server: Option<&Server>,
        durable: &Durable,
        batch: &[Record],
        now: Time,
    ) -> Result<(), Violation> {
        if let Some(s) = server {
            Self::check_calendar(m, s, now)?;
        }
        self.check_decisions(m, batch)?;
        let by_txn = self.locks_by_txn(m, durable)?;
        self.check_committed(m, server, durable, &by_txn, now)?;
        self.check_acked(m, server, durable, now)?;
        self.check_voted(m, durable, &by_txn)
    }

    /// A running manager's calendar passes its own check (I0, I1, I6) and holds no hold
    /// past its deadline (I5).
    fn check_calendar(m: NodeId, s: &Server, now: Time) -> Result<(), Violation> {
        s.manager.validate().map_err(|e| Violation { invariant: "I0", detail: e.to_string(), txn: None })?;
        for (id, c) in s.manager.calendar().claims() {
            if let ClaimState::Held { deadline, .. } = c.state {
                if deadline < now {
                    return broken(
                        "I5",
                        None,
                        format!("manager {m}: hold {id} outlived its deadline {deadline} (now {now})"),
                    );
                }
            }
        }
        Ok(())
    }

    /// The decision records of `batch` equal what was announced (I4).
    fn check_decisions(&self, m: NodeId, batch: &[Record]) -> Result<(), Violation> {
        for record in batch {
            if let Record::Decision(d) = record {
                if self.decision.get(&d.txn).is_some_and(|&c| c != d.commit) {
                    return broken(
                        "I4",
                        Some(d.txn),
                        format!("node {m} recorded {} for {}, announced otherwise", d.commit, d.txn),
                    );
                }
            }
        }
        Ok(())
    }

    /// The store's locks by transaction: their ids counted and their window; a lock
    /// without a commit decision is broken (I3).
    fn locks_by_txn(
        &self,
        m: NodeId,
        durable: &Durable,
    ) -> Result<BTreeMap<TxnId, (u64, Time, Time)>, Violation> {
        let mut by_txn: BTreeMap<TxnId, (u64, Time, Time)> = BTreeMap::new();
        for lock in durable.locks.values() {
            if let Some(txn) = lock.txn {
                let e = by_txn.entry(txn).or_insert((0, lock.start, lock.end));
                e.0 += lock.ids.count();
                if self.decision.get(&txn) != Some(&true) {
                    let said = if self.decision.contains_key(&txn) { "aborted" } else { "undecided" };
                    broken(
                        "I3",
                        Some(txn),
                        format!("manager {m} holds lock {} for {said} {txn}", lock.claim),
                    )?;
                }
            }
        }
        Ok(by_txn)
    }

    /// Every transaction committed with a part here, its window still ahead, is durably
    /// prepared or locked here, and a running manager keeps all its ids (I2).
    fn check_committed(
        &mut self,
        m: NodeId,
        server: Option<&Server>,
        durable: &Durable,
        by_txn: &BTreeMap<TxnId, (u64, Time, Time)>,
        now: Time,
    ) -> Result<(), Violation> {
        // The ids a running manager keeps prepared or locked per transaction.
        let mut live: BTreeMap<TxnId, u64> = BTreeMap::new();
        if let Some(s) = server.filter(|_| self.committed_at.get(&m).is_some_and(|t| !t.is_empty())) {
            for c in s.manager.calendar().claims().values() {
                if let ClaimState::Prepared { txn } | ClaimState::Locked { txn: Some(txn) } = c.state {
                    *live.entry(txn).or_default() += c.ids.count();
                }
            }
        }
        let Some(txns) = self.committed_at.get_mut(&m) else { return Ok(()) };
        let mut past = Vec::new();
        for txn in txns.iter() {
            let Some((parts, start, end)) = self.parts.get(txn) else { continue };
            if *end <= now {
                past.push(*txn);
                continue;
            }
            let n = parts.iter().find(|p| p.manager == m).map_or(0, |p| u64::from(p.n));
            let prepared = durable.prepared.get(txn).is_some_and(|p| (p.start, p.end) == (*start, *end));
            let locked = by_txn.get(txn).is_some_and(|&(count, s, e)| count == n && (s, e) == (*start, *end));
            if server.is_some() && live.get(txn) != Some(&n) {
                return broken(
                    "I2",
                    Some(*txn),
                    format!(
                        "{txn} committed but manager {m} keeps {} of its {n} ids prepared or locked",
                        live.get(txn).unwrap_or(&0)
                    ),
                );
            }
            if !(prepared || locked) {
                return broken("I2", Some(*txn), format!("{txn} committed but manager {m} has neither its prepare nor {n} locks over [{start}, {end})"));
            }
        }
        for txn in past {
            txns.remove(&txn);
        }
        Ok(())
    }

    /// No lock this manager confirmed, its window still ahead, is lost from its store or
    /// its running calendar (I7).
    fn check_acked(
        &mut self,
        m: NodeId,
        server: Option<&Server>,
        durable: &Durable,
        now: Time,
    ) -> Result<(), Violation> {
        let Some(acked) = self.acked.get_mut(&m) else { return Ok(()) };
        acked.retain(|_, a| a.end > now);
        for claim in acked.keys() {
            let durable_ok = durable.locks.contains_key(claim);
            let live_ok = server.is_none_or(|s| {
                s.manager
                    .calendar()
                    .claims()
                    .get(claim)
                    .is_some_and(|c| matches!(c.state, ClaimState::Locked { .. }))
            });
            if !durable_ok || !live_ok {
                return broken("I7", None, format!("manager {m} lost confirmed lock {claim}"));
            }
        }
        Ok(())
    }

    /// Every Yes vote stays durable as a prepare record until it is resolved (I8).
    fn check_voted(
        &mut self,
        m: NodeId,
        durable: &Durable,
        by_txn: &BTreeMap<TxnId, (u64, Time, Time)>,
    ) -> Result<(), Violation> {
        let Some(voted) = self.voted.get_mut(&m) else { return Ok(()) };
        let mut done = Vec::new();
        for txn in voted.iter() {
            if by_txn.contains_key(txn) || self.resolved.contains(&(m, *txn)) {
                done.push(*txn);
            } else if !durable.prepared.contains_key(txn) {
                return broken(
                    "I8",
                    Some(*txn),
                    format!("manager {m} voted Yes for {txn} but kept no prepare record"),
                );
            }
        }
        for txn in done {
            voted.remove(&txn);
        }
        Ok(())
    }

    /// At quiescence: every committed transaction whose window is still ahead is locked
    /// at every manager it names, and no prepare record is left anywhere (I2q).
    ///
    /// # Errors
    /// The first broken invariant.
    pub fn check_quiescent(&self, stores: &[(NodeId, &Durable)], now: Time) -> Result<(), Violation> {
        for (m, d) in stores {
            if let Some(p) = d.prepared.keys().next() {
                return broken(
                    "I2q",
                    Some(*p),
                    format!("manager {m} still holds the prepare of {p} at quiescence"),
                );
            }
        }
        for (txn, _) in self.decision.iter().filter(|(_, &c)| c) {
            let Some((parts, _, end)) = self.parts.get(txn) else { continue };
            if *end <= now {
                continue;
            }
            for p in parts {
                let locked = stores
                    .iter()
                    .filter(|(m, _)| *m == p.manager)
                    .any(|(_, d)| d.locks.values().any(|l| l.txn == Some(*txn)));
                if !locked {
                    return broken(
                        "I2q",
                        Some(*txn),
                        format!("{txn} committed but manager {} has no lock for it at quiescence", p.manager),
                    );
                }
            }
        }
        Ok(())
    }

    /// On the final durable state of every server node (the services' kill test, where
    /// only the clients' messages are seen): no two locks at one manager share a slot
    /// (I1), every lock of a transaction has a durable commit decision (I3), every
    /// decision announced to a client is the durable one (I4, I9), then
    /// [`check_quiescent`](Self::check_quiescent).
    ///
    /// # Errors
    /// The first broken invariant.
    pub fn check_final(&self, stores: &[(NodeId, &Durable)], now: Time) -> Result<(), Violation> {
        let decided: BTreeMap<TxnId, bool> =
            stores.iter().flat_map(|(_, d)| d.decisions.values().map(|(r, _)| (r.txn, r.commit))).collect();
        for (m, d) in stores {
            let locks: Vec<_> = d.locks.values().collect();
            for (i, a) in locks.iter().enumerate() {
                for b in &locks[i + 1..] {
                    if a.start.max(b.start) < a.end.min(b.end) && !a.ids.intersect(&b.ids).is_empty() {
                        let detail = format!("manager {m} has locks {} and {} on one slot", a.claim, b.claim);
                        return broken("I1", a.txn, detail);
                    }
                }
                if let Some(txn) = a.txn {
                    if decided.get(&txn) != Some(&true) {
                        return broken(
                            "I3",
                            Some(txn),
                            format!("manager {m} locks {txn} with no commit decision"),
                        );
                    }
                }
            }
        }
        for (txn, commit) in &self.decision {
            match decided.get(txn) {
                Some(c) if c != commit => {
                    return broken("I4", Some(*txn), format!("{txn} was announced {commit} but decided {c}"));
                }
                None if *commit => {
                    return broken(
                        "I9",
                        Some(*txn),
                        format!("{txn} was announced committed with no decision"),
                    );
                }
                _ => {}
            }
        }
        self.check_quiescent(stores, now)
    }
}
