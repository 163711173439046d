//! The two-phase-commit coordinator as a sans-IO state machine (calendar-token-reservation
//! §3: "We implement reservations atomically using a two-phase commit protocol"; design
//! note §2.4). Prepare = all holds in place, commit = lock, abort = release. The paper
//! says nothing more, so the rest is presumed-abort 2PC: no begin record, a forced
//! decision record before anyone hears the decision (aborts included, D23), unacknowledged
//! aborts, and "abort" (written first, D24) for a transaction nobody recorded.

use std::collections::{BTreeMap, BTreeSet};

use structures::Time;

use super::durable::{DecisionRecord, Durable, Input, Output, Record, TimerId};
use super::error::CalError;
use super::limits;
use super::proto::{ClientId, Envelope, Msg, NodeId, Part, TxnId, Verdict};
use super::Plant;

/// A coordinator's settings.
#[derive(Debug, Clone, Copy)]
pub struct CoordinatorConfig {
    /// How long to wait for every vote before aborting.
    pub vote_timeout: Time,
    /// How often to resend `Prepare` to the silent and `Commit` to the unacknowledged.
    pub resend: Time,
    /// A planted bug, for the simulator's checker tests.
    pub plant: Option<Plant>,
}

/// Where a transaction is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Waiting for votes; the managers that voted Yes.
    Collecting(BTreeSet<NodeId>),
    /// Decided commit; the managers that have not acknowledged.
    Committed(BTreeSet<NodeId>),
    /// Decided abort.
    Aborted,
    /// Committed and acknowledged everywhere.
    Ended,
}

#[derive(Debug, Clone)]
struct Txn {
    start: Time,
    end: Time,
    parts: Vec<Part>,
    phase: Phase,
}

/// A coordinator: the transactions it knows.
#[derive(Debug)]
pub struct Coordinator {
    id: NodeId,
    cfg: CoordinatorConfig,
    txns: BTreeMap<TxnId, Txn>,
    open: usize,
}

impl Coordinator {
    /// Starts (or restarts) coordinator `id` from its durable decisions: a committed
    /// transaction not yet acknowledged everywhere has its `Commit` sent again; an
    /// undecided one is forgotten (presumed abort).
    pub fn start(id: NodeId, cfg: CoordinatorConfig, durable: &Durable, now: Time) -> (Self, Vec<Output>) {
        let mut me = Self { id, cfg, txns: BTreeMap::new(), open: 0 };
        let mut out = Vec::new();
        for (txn, (d, ended)) in &durable.decisions {
            let phase = match (d.commit, ended) {
                (true, false) => Phase::Committed(d.parts.iter().map(|p| p.manager).collect()),
                (true, true) => Phase::Ended,
                (false, _) => Phase::Aborted,
            };
            me.txns.insert(*txn, Txn { start: d.start, end: d.end, parts: d.parts.clone(), phase });
            me.resend(now, *txn, &mut out);
        }
        (me, out)
    }

    /// Whether it has a record of `txn` (open, decided or ended).
    pub fn knows(&self, txn: TxnId) -> bool {
        self.txns.contains_key(&txn)
    }

    /// The decision it would announce for `txn`, if any.
    pub fn decided(&self, txn: TxnId) -> Option<bool> {
        match self.txns.get(&txn)?.phase {
            Phase::Collecting(_) => None,
            Phase::Committed(_) | Phase::Ended => Some(true),
            Phase::Aborted => Some(false),
        }
    }

    /// One step.
    pub fn handle(&mut self, now: Time, input: Input) -> Vec<Output> {
        let mut out = Vec::new();
        match input {
            Input::Msg(env) => self.on_msg(now, env, &mut out),
            Input::Timer(TimerId::VoteTimeout(txn)) => {
                if let Some(Txn { phase: Phase::Collecting(_), .. }) = self.txns.get(&txn) {
                    // The planted bug counts the missing votes as Yes.
                    let missing_are_yes = self.cfg.plant == Some(Plant::CommitWithoutAllPrepares);
                    self.decide(now, txn, missing_are_yes, &mut out);
                }
            }
            Input::Timer(TimerId::Resend(txn)) => self.resend(now, txn, &mut out),
            Input::Timer(_) => {}
        }
        out
    }

    fn send(&self, out: &mut Vec<Output>, to: NodeId, msg: Msg) {
        out.push(Output::Send(Envelope { from: self.id, to, msg }));
    }

    /// Resends what the transaction's phase is waiting for, and re-arms the timer.
    fn resend(&mut self, now: Time, txn: TxnId, out: &mut Vec<Output>) {
        let Some(t) = self.txns.get(&txn) else { return };
        let mut waiting = false;
        for part in &t.parts {
            let msg = match &t.phase {
                Phase::Collecting(yes) if !yes.contains(&part.manager) => Msg::Prepare {
                    txn,
                    client: txn.client,
                    start: t.start,
                    end: t.end,
                    claims: part.claims.clone(),
                },
                Phase::Committed(unacked) if unacked.contains(&part.manager) => {
                    Msg::Commit { txn, end: t.end }
                }
                _ => continue,
            };
            waiting = true;
            self.send(out, part.manager, msg);
        }
        if waiting {
            out.push(Output::SetTimer { id: TimerId::Resend(txn), at: now + self.cfg.resend });
        }
    }

    fn on_msg(&mut self, now: Time, env: Envelope, out: &mut Vec<Output>) {
        let from = env.from;
        match env.msg {
            Msg::CommitReq { txn, start, end, parts } => match self.txns.get(&txn).map(|t| &t.phase) {
                Some(Phase::Collecting(_)) => {}
                Some(phase) => {
                    let committed = *phase != Phase::Aborted;
                    self.send(out, txn.client, Msg::Outcome { txn, committed });
                }
                None => match self.check(from, txn, start, end, &parts) {
                    Err(error) => self.send(out, from, Msg::Error { req: None, txn: Some(txn), error }),
                    Ok(()) => {
                        self.open += 1;
                        let phase = Phase::Collecting(BTreeSet::new());
                        self.txns.insert(txn, Txn { start, end, parts, phase });
                        out.push(Output::SetTimer {
                            id: TimerId::VoteTimeout(txn),
                            at: now + self.cfg.vote_timeout,
                        });
                        self.resend(now, txn, out);
                    }
                },
            },
            Msg::Vote { txn, yes, .. } => match self.txns.get_mut(&txn).map(|t| &mut t.phase) {
                Some(Phase::Collecting(voted)) if yes => {
                    voted.insert(from);
                    let all = self
                        .txns
                        .get(&txn)
                        .is_some_and(|t| t.parts.iter().all(|p| voted_has(&t.phase, p.manager)));
                    if all || self.cfg.plant == Some(Plant::CommitWithoutAllPrepares) {
                        self.decide(now, txn, true, out);
                    }
                }
                Some(Phase::Collecting(_)) => self.decide(now, txn, false, out),
                Some(Phase::Aborted) if yes => {
                    let claims = self.claims_at(txn, from);
                    self.send(out, from, Msg::Abort { txn, claims });
                }
                Some(Phase::Committed(_) | Phase::Ended) if yes => {
                    let end = self.txns.get(&txn).map_or(0, |t| t.end);
                    self.send(out, from, Msg::Commit { txn, end });
                }
                None if yes => {
                    // A Yes for a transaction lost in a crash before its decision:
                    // presumed abort, recorded first (D24).
                    self.record_unknown_abort(txn, out);
                    self.send(out, from, Msg::Abort { txn, claims: Vec::new() });
                }
                _ => {}
            },
            Msg::Ack { txn } => {
                if let Some(t) = self.txns.get_mut(&txn) {
                    if let Phase::Committed(unacked) = &mut t.phase {
                        unacked.remove(&from);
                        if unacked.is_empty() {
                            t.phase = Phase::Ended;
                            out.push(Output::Persist(Record::End(txn)));
                            out.push(Output::CancelTimer(TimerId::Resend(txn)));
                        }
                    }
                }
            }
            Msg::DecisionQuery { txn } => {
                let verdict = match self.txns.get(&txn).map(|t| &t.phase) {
                    Some(Phase::Collecting(_)) => Verdict::Pending,
                    Some(Phase::Committed(_) | Phase::Ended) => Verdict::Commit,
                    Some(Phase::Aborted) => Verdict::Abort,
                    None if self.cfg.plant == Some(Plant::PendingForUnknown) => Verdict::Pending,
                    None => {
                        self.record_unknown_abort(txn, out);
                        Verdict::Abort
                    }
                };
                self.send(out, from, Msg::Decision { txn, verdict });
            }
            _ => {}
        }
    }

    /// Checks a commit request: from its client, two to [`limits::MAX_PARTS`] distinct
    /// managers, each naming 1 to [`limits::MAX_CLAIMS`] claims, a non-empty window.
    fn check(
        &self,
        from: ClientId,
        txn: TxnId,
        start: Time,
        end: Time,
        parts: &[Part],
    ) -> Result<(), CalError> {
        let bad = |why: String| Err(CalError::BadRequest(why));
        if txn.client != from {
            return bad(format!("transaction {txn} is not client {from}'s"));
        }
        if parts.len() < 2 || parts.len() > limits::MAX_PARTS {
            return bad(format!(
                "a co-reservation spans 2..={} managers, not {}",
                limits::MAX_PARTS,
                parts.len()
            ));
        }
        let managers: BTreeSet<NodeId> = parts.iter().map(|p| p.manager).collect();
        if managers.len() != parts.len() {
            return bad("a manager is named twice".to_owned());
        }
        if let Some(p) = parts.iter().find(|p| p.claims.is_empty() || p.claims.len() > limits::MAX_CLAIMS) {
            return bad(format!(
                "manager {} has {} claims, not 1..={}",
                p.manager,
                p.claims.len(),
                limits::MAX_CLAIMS
            ));
        }
        if start >= end {
            return Err(CalError::Outside(structures::Error::EmptyWindow { start, end }));
        }
        if self.open >= limits::MAX_OPEN_TXNS {
            return bad(format!("{} transactions are open already", limits::MAX_OPEN_TXNS));
        }
        Ok(())
    }

    fn claims_at(&self, txn: TxnId, manager: NodeId) -> Vec<super::proto::ClaimId> {
        let t = self.txns.get(&txn);
        t.and_then(|t| t.parts.iter().find(|p| p.manager == manager))
            .map(|p| p.claims.clone())
            .unwrap_or_default()
    }

    fn record_unknown_abort(&mut self, txn: TxnId, out: &mut Vec<Output>) {
        if self.txns.contains_key(&txn) {
            return;
        }
        let record = DecisionRecord { txn, commit: false, start: 0, end: 0, parts: Vec::new() };
        out.push(Output::Persist(Record::Decision(record)));
        self.txns.insert(txn, Txn { start: 0, end: 0, parts: Vec::new(), phase: Phase::Aborted });
    }

    /// Decides, durably before anyone hears of it, and tells everyone.
    fn decide(&mut self, now: Time, txn: TxnId, commit: bool, out: &mut Vec<Output>) {
        let Some(t) = self.txns.get_mut(&txn) else { return };
        self.open = self.open.saturating_sub(1);
        let record = DecisionRecord { txn, commit, start: t.start, end: t.end, parts: t.parts.clone() };
        if !(commit && self.cfg.plant == Some(Plant::ForgetDecision)) {
            out.push(Output::Persist(Record::Decision(record)));
        }
        out.push(Output::CancelTimer(TimerId::VoteTimeout(txn)));
        out.push(Output::CancelTimer(TimerId::Resend(txn)));
        if commit {
            t.phase = Phase::Committed(t.parts.iter().map(|p| p.manager).collect());
            self.resend(now, txn, out);
        } else {
            t.phase = Phase::Aborted;
            let parts = t.parts.clone();
            for part in parts {
                self.send(out, part.manager, Msg::Abort { txn, claims: part.claims });
            }
        }
        self.send(out, txn.client, Msg::Outcome { txn, committed: commit });
    }
}

fn voted_has(phase: &Phase, manager: NodeId) -> bool {
    matches!(phase, Phase::Collecting(yes) if yes.contains(&manager))
}
