//! The invariants about one manager step and one client's outcome (calendar-token-
//! reservation §3, §4, as the design note §3.2 lists them), checked by the simulator
//! beside [`Ghost`](super::check::Ghost)'s:
//! - `transition`: a claim only moves held → prepared → locked (or held → locked), keeps
//!   its holder, ids and window, and leaves only as a hold, an aborted prepare or a
//!   lock whose window has passed; a new claim is a hold;
//! - `refused`: a refused Lock or Release changes nothing;
//! - `stale`: no lock or prepare is taken from a hold whose lease had lapsed;
//! - `recall`: only holds are recalled, and only for a queued waiter of higher priority
//!   that wants some of their ids over their window;
//! - `queue`: no grant takes ids a higher-priority waiter is queued for;
//! - `hiding`: a query's dead starts are exactly those where the client's own view (its
//!   access list, less prepared and locked ids) has fewer than `n` ids;
//! - `all-or-nothing`: a client told its reservation failed (not "in doubt") holds no
//!   lock it asked for in it, at any manager;
//! - `pending`: a coordinator answers "pending" only for a transaction it has a record
//!   of (one it forgot was presumed aborted).

use std::collections::{BTreeMap, BTreeSet};

use structures::Time;

use super::check::Violation;
use crate::calendar::{Claim, ClaimState};
use crate::durable::Durable;
use crate::node::Server;
use crate::proto::{ClaimId, ClientId, Envelope, Msg, NodeId, ReqId, TxnId, Verdict};

fn broken(invariant: &'static str, detail: String) -> Result<(), Violation> {
    Err(Violation { invariant, detail, txn: None })
}

/// What the step rules remember between steps.
#[derive(Debug, Default)]
pub struct Rules {
    /// Each running manager's epoch and claims at its last check.
    last: BTreeMap<NodeId, (u32, BTreeMap<ClaimId, Claim>)>,
    /// The client's request the manager being stepped was delivered.
    request: Option<Envelope>,
    /// Claims the step being checked refused to write.
    refused: Vec<ClaimId>,
    /// Queries answered already, so that a reply cache's resend is not checked against
    /// a calendar that has moved on.
    answered: BTreeSet<(NodeId, ClientId, ReqId)>,
    /// What each client's current reservation asked to lock: one-manager claims, and
    /// commit attempts.
    asked: BTreeMap<ClientId, Asked>,
}

/// What one reservation asked to lock: one-manager claims (with their manager), and
/// commit attempts.
type Asked = (BTreeSet<(NodeId, ClaimId)>, BTreeSet<TxnId>);

impl Rules {
    /// Notes a message delivered to a running manager (the step's request).
    pub fn delivered(&mut self, env: &Envelope) {
        self.request = env.msg.from_client().then(|| env.clone());
    }

    /// Checks a message a running manager sent in the step just taken (`sender` is its
    /// state after the step).
    ///
    /// # Errors
    /// The broken rule: `recall`, `queue`, `hiding` or `pending`.
    pub fn sent(&mut self, env: &Envelope, sender: &Server) -> Result<(), Violation> {
        let (m, manager) = (env.from, &sender.manager);
        let cal = manager.calendar();
        let grants = env.msg.grants();
        // A wait this step queued came after any grant the step made.
        let queued_now = match self.request.as_ref().map(|r| &r.msg) {
            Some(Msg::Wait { prio, .. }) => Some(*prio),
            _ => None,
        };
        // A reply cache's resend repeats grants made before: only new claims count.
        let before = self.last.get(&m).filter(|(e, _)| *e == cal.epoch()).map(|(_, c)| c);
        for g in grants.into_iter().filter(|g| !before.is_some_and(|b| b.contains_key(&g.claim))) {
            let Some(prio) = cal.claims().get(&g.claim).map(|c| c.prio) else { continue };
            let promised = manager.waits().find(|(p, ids, start, end)| {
                *p < prio
                    && Some(*p) != queued_now
                    && *start < g.end
                    && g.start < *end
                    && !ids.intersect(&g.ids).is_empty()
            });
            if let Some((p, ids, start, end)) = promised {
                return broken(
                    "queue",
                    format!(
                        "manager {m} granted {} on {} over [{}, {}) to priority {prio:?} in a {}, though a waiter of priority {p:?} is queued for {ids} over [{start}, {end})",
                        g.claim,
                        g.ids,
                        g.start,
                        g.end,
                        env.msg.kind()
                    ),
                );
            }
        }
        match &env.msg {
            Msg::Recall { claim, .. } => {
                let Some(c) = cal.claims().get(claim) else {
                    return broken("recall", format!("manager {m} recalled {claim}, which it does not have"));
                };
                if !matches!(c.state, ClaimState::Held { .. }) {
                    return broken("recall", format!("manager {m} recalled {claim}, which is {:?}", c.state));
                }
                let wanted = manager.waits().any(|(p, ids, start, end)| {
                    p < c.prio && start < c.end && c.start < end && !ids.intersect(&c.ids).is_empty()
                });
                if !wanted {
                    return broken(
                        "recall",
                        format!("manager {m} recalled {claim} (priority {:?}) with no higher-priority waiter for it", c.prio),
                    );
                }
            }
            Msg::Decision { txn, verdict: Verdict::Pending } if !sender.coordinator.knows(*txn) => {
                return broken(
                    "pending",
                    format!("coordinator {m} answered pending for {txn}, which it has no record of (presumed abort)"),
                );
            }
            Msg::LockReply { result: Err(_), .. } => {
                if let Some(Msg::Lock { claim, .. }) = self.request.as_ref().map(|r| &r.msg) {
                    self.refused.push(*claim);
                }
            }
            Msg::Released { refused, .. } => self.refused.extend(refused.iter().map(|(c, _)| *c)),
            Msg::QueryReply { req, dead, .. } => {
                let Some(Msg::Query { from, to, duration, n, .. }) = self.request.as_ref().map(|r| &r.msg)
                else {
                    return Ok(());
                };
                if !self.answered.insert((m, env.to, *req)) {
                    return Ok(());
                }
                let (Ok((from, to)), Some(duration)) = (cal.window(*from, *to), cal.config().ceil(*duration))
                else {
                    return Ok(());
                };
                let slot = cal.config().slot;
                let starts =
                    (duration > 0 && duration <= to - from).then(|| (to - from - duration) / slot + 1);
                let expected: Vec<Time> = (0..starts.unwrap_or(0))
                    .map(|i| from + i * slot)
                    .filter(|t| (cal.unlocked(env.to, *t, t + duration).count()) < u64::from(*n))
                    .collect();
                if *dead != expected {
                    return broken(
                        "hiding",
                        format!(
                            "manager {m} told client {} its dead starts were {dead:?}; its own view makes them {expected:?}",
                            env.to
                        ),
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Checks manager `m` after a step (or its crash or restart): its claims' moves since
    /// the last check, and that what it refused is unchanged; then remembers its claims.
    ///
    /// # Errors
    /// The broken rule: `transition`, `refused` or `stale`.
    pub fn check(&mut self, m: NodeId, server: Option<&Server>, now: Time) -> Result<(), Violation> {
        let request = self.request.take();
        let refused = std::mem::take(&mut self.refused);
        let Some(s) = server else {
            self.last.remove(&m);
            return Ok(());
        };
        let cal = s.manager.calendar();
        let claims = cal.claims();
        if let Some((epoch, before)) = self.last.get(&m).filter(|(e, _)| *e == cal.epoch()) {
            for claim in refused {
                let (was, is) = (before.get(&claim), claims.get(&claim));
                // Time may end a claim in any step: a lapsed hold, a window that passed.
                let timed_out = is.is_none()
                    && was.is_some_and(|c| {
                        c.end <= now
                            || matches!(c.state, ClaimState::Held { deadline, .. } if deadline <= now)
                    });
                if was != is && !timed_out {
                    let why = request.as_ref().map_or("a request".to_owned(), |r| r.msg.kind().to_owned());
                    return broken(
                        "refused",
                        format!("manager {m} refused {why} on {claim} but changed it: {was:?} became {is:?}"),
                    );
                }
            }
            for (id, old) in before {
                Self::moved(m, *id, old, claims.get(id), now)?;
            }
            for (id, new) in claims.iter().filter(|(id, _)| !before.contains_key(id)) {
                if !matches!(new.state, ClaimState::Held { .. }) || id.epoch != *epoch {
                    return broken(
                        "transition",
                        format!("manager {m}: claim {id} appeared {:?}, not as a hold", new.state),
                    );
                }
            }
        }
        self.last.insert(m, (cal.epoch(), claims.clone()));
        Ok(())
    }

    /// Whether claim `id` of manager `m` moved legally from `old` to `new` (`None`: gone).
    fn moved(m: NodeId, id: ClaimId, old: &Claim, new: Option<&Claim>, now: Time) -> Result<(), Violation> {
        use ClaimState::{Held, Locked, Prepared};
        let Some(new) = new else {
            return match old.state {
                Locked { .. } if old.end > now => broken(
                    "transition",
                    format!(
                        "manager {m} dropped lock {id} before its window [{}, {}) ended",
                        old.start, old.end
                    ),
                ),
                _ => Ok(()),
            };
        };
        if (new.holder, &new.ids, new.start, new.end, new.prio)
            != (old.holder, &old.ids, old.start, old.end, old.prio)
        {
            return broken("transition", format!("manager {m}: claim {id} changed from {old:?} to {new:?}"));
        }
        let legal = match (old.state, new.state) {
            (Held { deadline: d0, recalled: r0 }, Held { deadline: d1, recalled: r1 }) => {
                d1 <= d0 && (r1 || !r0)
            }
            (Held { deadline, .. }, Prepared { .. } | Locked { .. }) => {
                if deadline <= now {
                    return broken(
                        "stale",
                        format!(
                            "manager {m} made {id} {:?} from a hold that lapsed at {deadline} (now {now})",
                            new.state
                        ),
                    );
                }
                !matches!(new.state, Prepared { txn } if txn.client != old.holder)
            }
            (Prepared { txn }, Prepared { txn: t } | Locked { txn: Some(t) }) => txn == t,
            (Locked { txn }, Locked { txn: t }) => txn == t,
            _ => false,
        };
        if legal {
            Ok(())
        } else {
            broken(
                "transition",
                format!("manager {m}: claim {id} moved from {:?} to {:?}", old.state, new.state),
            )
        }
    }

    /// Notes that `client` begins a reservation.
    pub fn begin(&mut self, client: ClientId) {
        self.asked.insert(client, Default::default());
    }

    /// Notes a message a client sent: what its reservation asks to lock.
    pub fn client_sent(&mut self, env: &Envelope) {
        let asked = self.asked.entry(env.from).or_default();
        match &env.msg {
            Msg::Lock { claim, .. } => {
                asked.0.insert((env.to, *claim));
            }
            Msg::CommitReq { txn, .. } => {
                asked.1.insert(*txn);
            }
            _ => {}
        }
    }

    /// Checks a client told its reservation definitely failed: no manager in `stores`
    /// holds a lock it asked for in it.
    ///
    /// # Errors
    /// `all-or-nothing`, naming a lock it holds.
    pub fn failed(&self, client: ClientId, stores: &[(NodeId, &Durable)]) -> Result<(), Violation> {
        let Some((claims, txns)) = self.asked.get(&client) else { return Ok(()) };
        for (m, d) in stores {
            let held = d.locks.values().find(|l| {
                l.holder == client
                    && (claims.contains(&(*m, l.claim)) || l.txn.is_some_and(|t| txns.contains(&t)))
            });
            if let Some(l) = held {
                return broken(
                    "all-or-nothing",
                    format!(
                        "client {client} was told its reservation failed, but holds lock {} at manager {m}",
                        l.claim
                    ),
                );
            }
        }
        Ok(())
    }
}
