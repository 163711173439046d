//! FCFS-EDS in its paper's own model (fcfs-eds-slotted-array, section 3, Algorithm 1):
//! time in slots, each reservation one compute node (or `n`) counted per slot, kept in a
//! [`CountTable`] over any registered structure.
//!
//! A request `(userId, jobId, t_es, t_ls, t_e)` first tries first fit (lines 16-25):
//! from `start = t_es`, the least free count over `[start, start + t_e)` and the slot `t`
//! where it occurs; if some node is free throughout, the request is placed at `start`,
//! else `start` jumps to `t + 1`, until `start` passes `t_ls`. Then it plans ahead (lines
//! 28-47): from `t_es` again, while the request does not fit at `start`, `shiftNode(t)`
//! moves a reservation that starts at the blocking slot `t` off that slot, and the count
//! is read again; when nothing at `t` can move, `start` jumps to `t + 1`. Moves are kept
//! as the search goes on; if the request fits nowhere, every move is undone
//! (`putBackAllShiftedJob`), so a rejected request changes nothing.
//!
//! The paper gives no pseudo-code for `shiftNode` (it is in its reference [15]). Where it
//! is silent, this module decides, and `references::fcfs_eds` decides alike:
//! - `t` is the first slot of the window holding the least free count;
//! - the reservations starting at `t` are tried in the slot's list order, ascending by
//!   `userId` then `jobId` (Algorithm 2's order); only flexible ones (`t_ls > t_es`) that
//!   have not started (start at or after the present) move;
//! - one moves to the first start of its own window `[t_es, t_ls]` whose run no longer
//!   covers `t` and where it fits once lifted from `t`;
//! - each reservation moves at most once per request, which bounds the search.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use structures::{Kind, Time};
use thiserror::Error;

use crate::counting::CountTable;
use crate::runner::ReplayError;

/// The most slots a planner's table reaches ahead: a year of the paper's 5-minute slots.
pub const MAX_HORIZON: Time = 105_120;

/// A reservation request in the paper's terms (section 3, Table 1), in slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// `userId`.
    pub user: u32,
    /// `jobId`, unique per user.
    pub job: u32,
    /// `t_es`: the earliest start slot.
    pub tes: Time,
    /// `t_ls`: the latest start slot (`t_es` for a rigid request).
    pub tls: Time,
    /// `t_e`: the slots it runs.
    pub te: Time,
    /// Compute nodes per slot: the paper's are all 1 (Algorithm 2, line 43).
    #[serde(default = "one")]
    pub n: u32,
}

fn one() -> u32 {
    1
}

impl Request {
    /// `(userId, jobId)`, the key of a reservation.
    pub fn key(&self) -> (u32, u32) {
        (self.user, self.job)
    }
}

/// A reservation moved to make room for a request (`shiftNode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shift {
    /// Its `userId`.
    pub user: u32,
    /// Its `jobId`.
    pub job: u32,
    /// The start slot it left.
    pub from: Time,
    /// The start slot it moved to.
    pub to: Time,
}

/// What became of a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Placed at `start`, after moving `shifted` in that order (empty under first fit).
    Accepted {
        /// The start slot.
        start: Time,
        /// The reservations moved for it.
        shifted: Vec<Shift>,
    },
    /// Placed nowhere; nothing changed.
    Rejected,
}

/// Why a request was refused before it was planned, or why planning stopped.
#[derive(Debug, Error)]
pub enum EdsError {
    /// A request that no schedule can hold, named with why.
    #[error("request ({user}, {job}): {why}")]
    BadRequest {
        /// Its `userId`.
        user: u32,
        /// Its `jobId`.
        job: u32,
        /// What is wrong.
        why: String,
    },
    /// A horizon of no slots or past [`MAX_HORIZON`].
    #[error("a horizon of {horizon} slots; it must be 1 to {MAX_HORIZON}")]
    Horizon {
        /// The horizon asked for.
        horizon: Time,
    },
    /// The table's structure refused an op or diverged from the oracle.
    #[error(transparent)]
    Table(#[from] ReplayError),
}

/// A deviation from the paper planted on purpose, to show that the comparison with
/// `references::fcfs_eds` catches it (feature `planted`, for tests only).
#[cfg(feature = "planted")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planted {
    /// A reservation moves only to a start that clears the request's whole window, not
    /// just the blocking slot (the rule of the id-bound policy before this module).
    ClearsWholeWindow,
    /// First fit (the baseline's whole search) starts a slot after `t_es` when the
    /// window allows.
    FirstFitSkipsTes,
}

/// An accepted reservation.
#[derive(Debug, Clone, Copy)]
struct Placed {
    request: Request,
    start: Time,
}

/// FCFS-EDS's plan: the per-slot counts in a structure and the reservations behind them.
pub struct Planner {
    table: CountTable,
    capacity: u32,
    horizon: Time,
    now: Time,
    placed: BTreeMap<(u32, u32), Placed>,
    /// `(start, userId, jobId)`: each slot's list, in Algorithm 2's order.
    by_start: BTreeSet<(Time, u32, u32)>,
    /// Plan ahead (Algorithm 1), or first fit alone (the baseline of section 4).
    plan: bool,
    #[cfg(feature = "planted")]
    planted: Option<Planted>,
}

impl Planner {
    /// An empty plan of `capacity` compute nodes over slots `0..horizon`, in a fresh
    /// `kind`, beside the oracle when `verify`.
    ///
    /// # Errors
    /// A horizon out of range ([`EdsError::Horizon`]), or a structure that cannot be
    /// built with that capacity ([`EdsError::Table`]).
    pub fn new(kind: Kind, capacity: u32, horizon: Time, verify: bool) -> Result<Self, EdsError> {
        if horizon == 0 || horizon > MAX_HORIZON {
            return Err(EdsError::Horizon { horizon });
        }
        Ok(Self {
            table: CountTable::new(kind, capacity, horizon, verify)?,
            capacity,
            horizon,
            now: 0,
            placed: BTreeMap::new(),
            by_start: BTreeSet::new(),
            plan: true,
            #[cfg(feature = "planted")]
            planted: None,
        })
    }

    /// The same plan for the paper's baseline (section 4, flexible advance reservation
    /// without advance planning): first fit alone, never moving an accepted reservation.
    pub fn baseline(self) -> Self {
        Self { plan: false, ..self }
    }

    /// Plants `deviation` for every later request.
    #[cfg(feature = "planted")]
    pub fn plant(&mut self, deviation: Planted) {
        self.planted = Some(deviation);
    }

    /// Moves the present to slot `now`: reservations starting before it no longer move.
    /// Time never goes back; an earlier `now` is ignored.
    pub fn advance(&mut self, now: Time) {
        self.now = self.now.max(now);
    }

    /// The free compute nodes in `slot`.
    ///
    /// # Errors
    /// A slot past the horizon, or the structure refuses.
    pub fn free(&mut self, slot: Time) -> Result<u32, EdsError> {
        Ok(self.table.smallest(0, slot, slot.saturating_add(1))?)
    }

    /// Ops applied to the structure so far.
    pub fn ops(&self) -> u64 {
        self.table.ops
    }

    /// The same, by kind.
    pub fn ops_by_kind(&self) -> &BTreeMap<oracle::OpKind, u64> {
        &self.table.by_kind
    }

    /// Where each reservation starts now, by `(userId, jobId)`.
    pub fn starts(&self) -> BTreeMap<(u32, u32), Time> {
        self.placed.iter().map(|(&k, p)| (k, p.start)).collect()
    }

    /// Algorithm 1, `searchAndAlloc`: places `r`, moving earlier reservations if it must.
    ///
    /// # Errors
    /// [`EdsError::BadRequest`] for a request no plan can hold (no slots, `t_ls` before
    /// `t_es`, no nodes or more than there are, a window past the horizon, a key already
    /// placed), with the plan unchanged; [`EdsError::Table`] if the structure refuses.
    pub fn request(&mut self, r: Request) -> Result<Decision, EdsError> {
        self.admissible(&r)?;
        let key = u64::from(r.user) << 32 | u64::from(r.job);
        // Lines 16-25: first fit, jumping past the slot that blocks.
        let mut start = r.tes;
        #[cfg(feature = "planted")]
        if self.planted == Some(Planted::FirstFitSkipsTes) && r.tls > r.tes {
            start += 1;
        }
        while start <= r.tls {
            let (min, t) = self.least_free(key, start, start + r.te)?;
            if min >= r.n {
                self.place(key, r, start)?;
                return Ok(Decision::Accepted { start, shifted: Vec::new() });
            }
            start = t + 1;
        }
        if !self.plan {
            return Ok(Decision::Rejected);
        }
        // Lines 28-45: the same walk, shifting what starts at the blocking slot.
        let mut moved = Vec::new();
        let mut start = r.tes;
        while start <= r.tls {
            let (min, t) = self.least_free(key, start, start + r.te)?;
            if min >= r.n {
                self.place(key, r, start)?;
                return Ok(Decision::Accepted { start, shifted: moved });
            }
            if !self.shift_node(key, t, (start, start + r.te), &mut moved)? {
                start = t + 1;
            }
        }
        // Lines 46-47: putBackAllShiftedJob, latest first.
        for s in moved.iter().rev() {
            self.lift(key, (s.user, s.job))?;
            let p = self.placed_request((s.user, s.job));
            self.place(key, p, s.from)?;
        }
        Ok(Decision::Rejected)
    }

    fn admissible(&self, r: &Request) -> Result<(), EdsError> {
        let why = if r.te == 0 {
            Some("t_e is 0 slots".to_owned())
        } else if r.tls < r.tes {
            Some(format!("t_ls {} is before t_es {}", r.tls, r.tes))
        } else if r.n == 0 || r.n > self.capacity {
            Some(format!("{} nodes of {}", r.n, self.capacity))
        } else if r.tls.checked_add(r.te).is_none_or(|end| end > self.horizon) {
            Some(format!("its latest run ends past the horizon of {} slots", self.horizon))
        } else if self.placed.contains_key(&r.key()) {
            Some("already placed".to_owned())
        } else {
            None
        };
        match why {
            Some(why) => Err(EdsError::BadRequest { user: r.user, job: r.job, why }),
            None => Ok(()),
        }
    }

    /// The least free count over `[start, end)` and the first slot holding it.
    fn least_free(&mut self, key: u64, start: Time, end: Time) -> Result<(u32, Time), EdsError> {
        let stretches = self.table.stretches(key, start, end)?;
        let lightest = stretches.iter().fold(None, |best: Option<(u32, Time)>, s| match best {
            Some((load, _)) if load >= s.load => best,
            _ => Some((s.load, s.start)),
        });
        let (load, t) = lightest.unwrap_or((0, start));
        Ok((self.capacity - load, t))
    }

    /// `shiftNode(t)`: moves the first reservation of slot `t`'s list that can leave `t`.
    fn shift_node(
        &mut self,
        key: u64,
        t: Time,
        window: (Time, Time),
        moved: &mut Vec<Shift>,
    ) -> Result<bool, EdsError> {
        let list: Vec<(u32, u32)> =
            self.by_start.range((t, 0, 0)..=(t, u32::MAX, u32::MAX)).map(|&(_, u, j)| (u, j)).collect();
        for k in list {
            let r = self.placed_request(k);
            let fixed = r.tls == r.tes || t < self.now;
            if fixed || moved.iter().any(|s| (s.user, s.job) == k) {
                continue;
            }
            self.lift(key, k)?;
            for to in r.tes..=r.tls {
                if !self.leaves(t, window, to, r.te) {
                    continue;
                }
                let (min, _) = self.least_free(key, to, to + r.te)?;
                if min >= r.n {
                    self.place(key, r, to)?;
                    moved.push(Shift { user: r.user, job: r.job, from: t, to });
                    return Ok(true);
                }
            }
            self.place(key, r, t)?;
        }
        Ok(false)
    }

    /// Whether a run of `te` slots from `to` gets out of the way: off the blocking slot
    /// `t` (or, planted, off the request's whole window).
    fn leaves(&self, t: Time, window: (Time, Time), to: Time, te: Time) -> bool {
        let (from, until) = (t, t + 1);
        #[cfg(feature = "planted")]
        let (from, until) = match self.planted {
            Some(Planted::ClearsWholeWindow) => window,
            Some(Planted::FirstFitSkipsTes) | None => (from, until),
        };
        #[cfg(not(feature = "planted"))]
        let _ = window;
        to + te <= from || to >= until
    }

    fn placed_request(&self, k: (u32, u32)) -> Request {
        self.placed[&k].request
    }

    fn place(&mut self, key: u64, r: Request, start: Time) -> Result<(), EdsError> {
        self.table.mark(key, start, start + r.te, r.n)?;
        self.placed.insert(r.key(), Placed { request: r, start });
        self.by_start.insert((start, r.user, r.job));
        Ok(())
    }

    /// Takes reservation `k` out of the table (it stays known, to be placed again).
    fn lift(&mut self, key: u64, k: (u32, u32)) -> Result<(), EdsError> {
        let Placed { request: r, start } = self.placed[&k];
        self.table.cancel(key, start, start + r.te, r.n)?;
        self.by_start.remove(&(start, r.user, r.job));
        Ok(())
    }
}
