//! A resource manager's calendar (calendar-token-reservation §3, "Our Model"): slots
//! that are available, held or locked, with access lists, kept over any
//! [`AvailabilityIndex`].
//!
//! The index holds the busy time: every cell (resource id × instant) that is held or
//! locked is allocated in it and nothing else is, so the index's free space is the
//! availability. The layer above it keeps the claims (who holds what, until when, in which
//! state) and the access list, and [`Calendar::validate`] checks that the two agree.
//! A refused call changes nothing.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use structures::{
    check_count, check_set, AvailabilityIndex, Config, Invalid, Kind, RangeSet, ResourceId, Time,
};

use super::access::Access;
use super::durable::LockRecord;
use super::error::CalError;
use super::proto::{ClaimId, ClientId, Priority, TxnId};

/// A broken invariant of the calendar layer ([`Calendar::validate`]), naming it and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvariantError {
    /// The index's own invariant check failed.
    #[error(transparent)]
    Index(#[from] Invalid),
    /// A claim covers ids its holder may not use.
    #[error("claim {claim}: client {client} is not on the access list of {denied}")]
    NotOnAccessList {
        /// The claim.
        claim: ClaimId,
        /// Its holder.
        client: ClientId,
        /// The ids not on the holder's access list.
        denied: RangeSet,
    },
    /// A held claim without its deadline entry.
    #[error("held claim {claim} has no deadline entry")]
    NoDeadline {
        /// The claim.
        claim: ClaimId,
    },
    /// A claim on an id at or above the capacity.
    #[error("claim {claim}: resource {resource} is beyond the capacity {capacity}")]
    BeyondCapacity {
        /// The claim.
        claim: ClaimId,
        /// The id.
        resource: ResourceId,
        /// The capacity.
        capacity: usize,
    },
    /// Deadline entries that are not one per held claim.
    #[error("{entries} deadline entries for {held} held claims")]
    Deadlines {
        /// The deadline entries.
        entries: usize,
        /// The held claims.
        held: usize,
    },
    /// The index refused to list its free frames.
    #[error("{0}")]
    FreeFrames(structures::Error),
    /// Two claims on one resource overlap.
    #[error("resource {resource}: claims {first} and {second} overlap at [{start}, {end})")]
    Overlap {
        /// The resource.
        resource: usize,
        /// The claim that starts first.
        first: ClaimId,
        /// The claim that starts inside it.
        second: ClaimId,
        /// The overlap's first instant.
        start: Time,
        /// Its end.
        end: Time,
    },
    /// The index is busy where the claims are not, or free where they are.
    #[error("resource {resource}: the index is busy over {index:?} but the claims cover {claims:?}")]
    Busy {
        /// The resource.
        resource: usize,
        /// Where the index is busy, from now to its horizon.
        index: Vec<(Time, Time)>,
        /// Where the claims are.
        claims: Vec<(Time, Time)>,
    },
}

/// Where a claim is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimState {
    /// Held: usable while `now < deadline`; `recalled` once a higher-priority waiter
    /// asked for it back.
    Held {
        /// When it lapses.
        deadline: Time,
        /// Whether a recall shortened it already.
        recalled: bool,
    },
    /// Voted Yes for `txn`: neither expires nor is recalled until the decision (D14).
    Prepared {
        /// The transaction.
        txn: TxnId,
    },
    /// Locked (read-only); `txn` is `None` for a one-manager lock.
    Locked {
        /// The transaction.
        txn: Option<TxnId>,
    },
}

/// A held, prepared or locked window of some resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// Who holds it.
    pub holder: ClientId,
    /// The holder's reservation priority.
    pub prio: Priority,
    /// The resources.
    pub ids: RangeSet,
    /// First instant (as granted; the index forgets the part before now).
    pub start: Time,
    /// First instant after.
    pub end: Time,
    /// Its state.
    pub state: ClaimState,
}

/// What one slot looks like to a reader (the paper's three states; a prepared slot
/// reads as held).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotState {
    /// Free.
    Available,
    /// Held by `holder`.
    Held {
        /// The client.
        holder: ClientId,
    },
    /// Locked by `holder`.
    Locked {
        /// The client.
        holder: ClientId,
    },
}

/// How a claim ended, kept a while so that errors can say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    Released,
    Expired { deadline: Time },
}

/// The most ended claims remembered.
const MAX_TOMBSTONES: usize = 65_536;

/// A manager's calendar: an availability index plus the hold-and-lock layer.
pub struct Calendar {
    index: Box<dyn AvailabilityIndex>,
    claims: BTreeMap<ClaimId, Claim>,
    /// Held claims by deadline, for expiry.
    deadlines: BTreeSet<(Time, ClaimId)>,
    ended: BTreeMap<ClaimId, Ended>,
    ended_order: VecDeque<ClaimId>,
    access: Access,
    epoch: u32,
    seq: u64,
}

impl std::fmt::Debug for Calendar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Calendar")
            .field("structure", &self.index.name())
            .field("epoch", &self.epoch)
            .field("claims", &self.claims)
            .finish_non_exhaustive()
    }
}

impl Calendar {
    /// An empty calendar of `capacity` resources kept in a `kind` index, issuing claims
    /// of `epoch`.
    ///
    /// # Errors
    /// [`CalError::Outside`] with the index's configuration error.
    pub fn new(
        kind: Kind,
        capacity: u32,
        config: Config,
        access: Access,
        epoch: u32,
    ) -> Result<Self, CalError> {
        let index = kind.build(capacity, kind.config_for(config)).map_err(CalError::Outside)?;
        Ok(Self {
            index,
            claims: BTreeMap::new(),
            deadlines: BTreeSet::new(),
            ended: BTreeMap::new(),
            ended_order: VecDeque::new(),
            access,
            epoch,
            seq: 0,
        })
    }

    /// The present (a slot boundary).
    pub fn now(&self) -> Time {
        self.index.now()
    }

    /// The manager's incarnation its claims are issued in.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The number of resources.
    pub fn capacity(&self) -> u32 {
        self.index.capacity()
    }

    /// The index's slot width and horizon.
    pub fn config(&self) -> Config {
        self.index.config()
    }

    /// Every claim.
    pub fn claims(&self) -> &BTreeMap<ClaimId, Claim> {
        &self.claims
    }

    /// The ids `client` may use (and see).
    pub fn visible(&self, client: ClientId) -> RangeSet {
        self.access.allowed(client, self.capacity())
    }

    /// Checks and quantises a window.
    ///
    /// # Errors
    /// [`CalError::Outside`] for an empty window, one before now or past the horizon.
    pub fn window(&self, start: Time, end: Time) -> Result<(Time, Time), CalError> {
        self.config().window(self.now(), start, end).map_err(CalError::Outside)
    }

    /// Checks a resource count against the capacity.
    ///
    /// # Errors
    /// [`CalError::Outside`] with [`structures::Error::BadCount`].
    pub fn count(&self, n: u32) -> Result<(), CalError> {
        check_count(n, self.capacity()).map_err(CalError::Outside)
    }

    /// The ids free throughout `[start, end)`.
    ///
    /// # Errors
    /// As [`Calendar::window`].
    pub fn free(&self, start: Time, end: Time) -> Result<RangeSet, CalError> {
        let (start, end) = self.window(start, end)?;
        Ok(self.index.check(start, end, 1).map_err(CalError::Outside)?.unwrap_or_default())
    }

    /// The ids `client` may see that no prepared or locked claim covers at any instant
    /// of `[start, end)`: the ids it could still get there.
    pub fn unlocked(&self, client: ClientId, start: Time, end: Time) -> RangeSet {
        let mut ids = self.visible(client);
        for claim in self.claims.values() {
            let committed = !matches!(claim.state, ClaimState::Held { .. });
            if committed && claim.start < end && start < claim.end {
                ids = ids.subtract(&claim.ids);
            }
        }
        ids
    }

    /// What slot `(id, t)` looks like.
    pub fn slot_state(&self, id: u32, t: Time) -> SlotState {
        let covering = self.claims.values().find(|c| c.ids.contains(id) && c.start <= t && t < c.end);
        match covering {
            None => SlotState::Available,
            Some(c) if matches!(c.state, ClaimState::Locked { .. }) => SlotState::Locked { holder: c.holder },
            Some(c) => SlotState::Held { holder: c.holder },
        }
    }

    /// Puts `ids` over `[start, end)` on hold for `client` until `deadline`.
    ///
    /// # Errors
    /// [`CalError::Outside`] for a bad window or set, [`CalError::AccessDenied`] for ids
    /// not on the client's access list, [`CalError::Busy`] for ids held or locked.
    pub fn hold(
        &mut self,
        client: ClientId,
        prio: Priority,
        ids: &RangeSet,
        window: (Time, Time),
        deadline: Time,
    ) -> Result<ClaimId, CalError> {
        let (start, end) = self.window(window.0, window.1)?;
        check_set(ids, self.capacity()).map_err(CalError::Outside)?;
        let denied = ids.subtract(&self.visible(client));
        if !denied.is_empty() {
            return Err(CalError::AccessDenied { client, ids: denied, start, end });
        }
        let busy = ids.subtract(&self.free(start, end)?);
        if !busy.is_empty() {
            return Err(CalError::Busy { ids: busy, start, end });
        }
        self.index.allocate(start, end, ids).map_err(CalError::Index)?;
        self.seq += 1;
        let claim = ClaimId { epoch: self.epoch, seq: self.seq };
        let state = ClaimState::Held { deadline, recalled: false };
        self.claims.insert(claim, Claim { holder: client, prio, ids: ids.clone(), start, end, state });
        self.deadlines.insert((deadline, claim));
        Ok(claim)
    }

    /// The claim `claim` of `client`, with the error a request naming it gets when it
    /// does not exist or is not the client's.
    fn own(&self, client: ClientId, claim: ClaimId, now: Time) -> Result<&Claim, CalError> {
        let Some(c) = self.claims.get(&claim) else {
            return Err(match self.ended.get(&claim) {
                _ if claim.epoch != self.epoch => CalError::StaleEpoch { claim, current: self.epoch },
                Some(Ended::Expired { deadline }) => {
                    CalError::HoldExpired { claim, deadline: *deadline, now }
                }
                _ => CalError::UnknownHold { claim },
            });
        };
        if c.holder != client {
            return Err(CalError::NotHolder { claim, holder: c.holder, client });
        }
        Ok(c)
    }

    /// Checks that `claim` is a usable hold of `client` at `now`: on the client's access
    /// list, the client's, held and not lapsed.
    ///
    /// # Errors
    /// [`CalError::UnknownHold`], [`CalError::StaleEpoch`], [`CalError::HoldExpired`],
    /// [`CalError::NotHolder`], [`CalError::AlreadyLocked`], [`CalError::Prepared`] or
    /// [`CalError::AccessDenied`].
    pub fn usable(&self, client: ClientId, claim: ClaimId, now: Time) -> Result<&Claim, CalError> {
        // A client off the slots' access list is told so first, whoever holds them.
        if let Some(c) = self.claims.get(&claim) {
            let denied = c.ids.subtract(&self.visible(client));
            if !denied.is_empty() {
                return Err(CalError::AccessDenied { client, ids: denied, start: c.start, end: c.end });
            }
        }
        let c = self.own(client, claim, now)?;
        match c.state {
            ClaimState::Locked { .. } => Err(CalError::AlreadyLocked { claim }),
            ClaimState::Prepared { txn } => Err(CalError::Prepared { claim, txn }),
            ClaimState::Held { deadline, .. } if deadline <= now => {
                Err(CalError::HoldExpired { claim, deadline, now })
            }
            ClaimState::Held { .. } => Ok(c),
        }
    }

    /// Locks a hold of `client` (a one-manager reservation, D8), and returns the record
    /// to make durable.
    ///
    /// # Errors
    /// As [`Calendar::usable`].
    pub fn lock(&mut self, client: ClientId, claim: ClaimId, now: Time) -> Result<LockRecord, CalError> {
        self.usable(client, claim, now)?;
        self.set_locked(claim, None).ok_or(CalError::UnknownHold { claim })
    }

    /// Marks a usable hold prepared for `txn` (the caller checked it with
    /// [`Calendar::usable`]): it stops expiring.
    pub fn set_prepared(&mut self, claim: ClaimId, txn: TxnId) {
        if let Some(c) = self.claims.get_mut(&claim) {
            if let ClaimState::Held { deadline, .. } = c.state {
                self.deadlines.remove(&(deadline, claim));
            }
            c.state = ClaimState::Prepared { txn };
        }
    }

    /// Locks `claim` for `txn` and returns its lock record; `None` if there is no such
    /// claim.
    pub fn set_locked(&mut self, claim: ClaimId, txn: Option<TxnId>) -> Option<LockRecord> {
        let c = self.claims.get_mut(&claim)?;
        if let ClaimState::Held { deadline, .. } = c.state {
            self.deadlines.remove(&(deadline, claim));
        }
        c.state = ClaimState::Locked { txn };
        Some(LockRecord { claim, holder: c.holder, txn, ids: c.ids.clone(), start: c.start, end: c.end })
    }

    /// Releases a hold of `client`; `Ok(false)` if it is gone already: released (a
    /// retried release), lapsed, or held before the last restart.
    ///
    /// # Errors
    /// [`CalError::UnknownHold`], [`CalError::NotHolder`], [`CalError::AlreadyLocked`]
    /// or [`CalError::Prepared`].
    pub fn release(&mut self, client: ClientId, claim: ClaimId, now: Time) -> Result<bool, CalError> {
        let c = match self.own(client, claim, now) {
            Err(CalError::HoldExpired { .. }) => return Ok(false),
            Err(CalError::UnknownHold { .. }) if self.ended.contains_key(&claim) => return Ok(false),
            // Every hold of an earlier epoch ended with its crash (locked and prepared
            // ones are reloaded, so they are found): a retried release is answered as
            // the first one was.
            Err(CalError::StaleEpoch { .. }) => return Ok(false),
            other => other?,
        };
        match c.state {
            ClaimState::Locked { .. } => Err(CalError::AlreadyLocked { claim }),
            ClaimState::Prepared { txn } => Err(CalError::Prepared { claim, txn }),
            ClaimState::Held { .. } => {
                self.drop_claim(claim, Ended::Released)?;
                Ok(true)
            }
        }
    }

    /// Frees any claim (an abort of a prepared one, or a unilateral release), whatever
    /// its state.
    ///
    /// # Errors
    /// [`CalError::Index`] if the index refuses to free it (the layer and index
    /// disagree).
    pub fn discard(&mut self, claim: ClaimId) -> Result<(), CalError> {
        self.drop_claim(claim, Ended::Released)
    }

    fn drop_claim(&mut self, claim: ClaimId, how: Ended) -> Result<(), CalError> {
        let Some(c) = self.claims.remove(&claim) else { return Ok(()) };
        if let ClaimState::Held { deadline, .. } = c.state {
            self.deadlines.remove(&(deadline, claim));
        }
        let start = c.start.max(self.now());
        if start < c.end {
            self.index.release(start, c.end, &c.ids).map_err(CalError::Index)?;
        }
        self.ended.insert(claim, how);
        self.ended_order.push_back(claim);
        if self.ended_order.len() > MAX_TOMBSTONES {
            if let Some(old) = self.ended_order.pop_front() {
                self.ended.remove(&old);
            }
        }
        Ok(())
    }

    /// Shortens a hold's deadline to `deadline` for a recall; returns the new deadline,
    /// or `None` if it is not a held claim or was recalled already.
    pub fn recall(&mut self, claim: ClaimId, deadline: Time) -> Option<Time> {
        let c = self.claims.get_mut(&claim)?;
        let ClaimState::Held { deadline: old, recalled: false } = c.state else { return None };
        let new = old.min(deadline);
        c.state = ClaimState::Held { deadline: new, recalled: true };
        self.deadlines.remove(&(old, claim));
        self.deadlines.insert((new, claim));
        Some(new)
    }

    /// Ends every hold whose deadline is at or before `now`; returns them with their
    /// holders.
    ///
    /// # Errors
    /// [`CalError::Index`] as [`Calendar::discard`].
    pub fn expire(&mut self, now: Time) -> Result<Vec<(ClaimId, ClientId)>, CalError> {
        let mut gone = Vec::new();
        while let Some(&(deadline, claim)) = self.deadlines.first() {
            if deadline > now {
                break;
            }
            let holder = self.claims.get(&claim).map_or(0, |c| c.holder);
            self.drop_claim(claim, Ended::Expired { deadline })?;
            gone.push((claim, holder));
        }
        Ok(gone)
    }

    /// The earliest hold deadline.
    pub fn next_deadline(&self) -> Option<Time> {
        self.deadlines.first().map(|&(d, _)| d)
    }

    /// Moves the present to `now` (forgetting the past); returns the locks whose window
    /// has passed (used), which leave the calendar. Prepared claims stay until decided.
    ///
    /// # Errors
    /// [`CalError::Outside`] if `now` is before the present.
    pub fn advance(&mut self, now: Time) -> Result<Vec<ClaimId>, CalError> {
        if now < self.now() {
            return Err(CalError::Outside(structures::Error::BeforePast { time: now, now: self.now() }));
        }
        self.index.advance(now).map_err(CalError::Outside)?;
        let present = self.now();
        let past: Vec<(ClaimId, ClaimState)> = self
            .claims
            .iter()
            .filter(|(_, c)| c.end <= present && !matches!(c.state, ClaimState::Prepared { .. }))
            .map(|(id, c)| (*id, c.state))
            .collect();
        let mut used = Vec::new();
        for (id, state) in past {
            self.claims.remove(&id);
            match state {
                ClaimState::Held { deadline, .. } => {
                    self.deadlines.remove(&(deadline, id));
                }
                _ => used.push(id),
            }
        }
        Ok(used)
    }

    /// Puts back a lock or prepared claim read from durable state after a restart.
    ///
    /// # Errors
    /// [`CalError::Index`] if it overlaps another restored claim (the store is corrupt).
    pub fn restore(&mut self, id: ClaimId, claim: Claim) -> Result<(), CalError> {
        let start = claim.start.max(self.now());
        if start < claim.end {
            self.index.allocate(start, claim.end, &claim.ids).map_err(CalError::Index)?;
        }
        self.claims.insert(id, claim);
        Ok(())
    }

    /// Checks the layer: the index's own invariants; no cell in two claims; the index
    /// busy exactly where the claims are, from now to its horizon; every claim on its
    /// holder's access list; a deadline entry for every held claim and no other.
    ///
    /// # Errors
    /// An [`InvariantError`] naming the first broken invariant and where.
    pub fn validate(&self) -> Result<(), InvariantError> {
        self.index.validate()?;
        let (now, cap) = (self.now(), self.capacity() as usize);
        let limit = self.config().limit(now);
        let mut claimed: Vec<Vec<(Time, Time, ClaimId)>> = vec![Vec::new(); cap];
        let mut held = 0;
        for (&id, c) in &self.claims {
            let denied = c.ids.subtract(&self.visible(c.holder));
            if !denied.is_empty() {
                return Err(InvariantError::NotOnAccessList { claim: id, client: c.holder, denied });
            }
            if let ClaimState::Held { deadline, .. } = c.state {
                held += 1;
                if !self.deadlines.contains(&(deadline, id)) {
                    return Err(InvariantError::NoDeadline { claim: id });
                }
            }
            let start = c.start.max(now);
            if start < c.end {
                for r in c.ids.iter() {
                    let Some(cells) = claimed.get_mut(r as usize) else {
                        return Err(InvariantError::BeyondCapacity { claim: id, resource: r, capacity: cap });
                    };
                    cells.push((start, c.end, id));
                }
            }
        }
        if held != self.deadlines.len() {
            return Err(InvariantError::Deadlines { entries: self.deadlines.len(), held });
        }
        let mut free: Vec<Vec<(Time, Time)>> = vec![Vec::new(); cap];
        for frame in self.index.free_frames(now, limit).map_err(InvariantError::FreeFrames)? {
            for r in frame.free.iter() {
                if let Some(f) = free.get_mut(r as usize) {
                    f.push((frame.start, frame.end));
                }
            }
        }
        for (r, (cells, free)) in claimed.iter_mut().zip(&mut free).enumerate() {
            cells.sort_unstable();
            free.sort_unstable();
            let mut busy: Vec<(Time, Time)> = Vec::new();
            for pair in cells.windows(2) {
                if pair[1].0 < pair[0].1 {
                    return Err(InvariantError::Overlap {
                        resource: r,
                        first: pair[0].2,
                        second: pair[1].2,
                        start: pair[1].0,
                        end: pair[0].1,
                    });
                }
            }
            for &(s, e, _) in cells.iter() {
                match busy.last_mut() {
                    Some(last) if last.1 == s => last.1 = e,
                    _ => busy.push((s, e)),
                }
            }
            // The busy time is the complement of the free frames within [now, limit).
            let mut expected = Vec::new();
            let mut at = now;
            for &(s, e) in free.iter() {
                if at < s {
                    expected.push((at, s));
                }
                at = e;
            }
            if at < limit {
                expected.push((at, limit));
            }
            if busy != expected {
                return Err(InvariantError::Busy { resource: r, index: expected, claims: busy });
            }
        }
        Ok(())
    }
}
