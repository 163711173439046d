//! Slot width and horizon, their quantisation, and the argument checks the shell
//! (`shell/`) makes before any structure sees a request.
//!
//! Continuous structures run with the default (slot 1, no horizon); slotted ones declare
//! theirs, and the oracle is built with the same value so that both answer on equal terms.
//! Only the shell and composites of whole indexes ([`Partitioned`](crate::Partitioned))
//! call the checks, so the order in which argument errors are reported is the same
//! everywhere.

use serde::{Deserialize, Serialize};

use crate::{Error, RangeSet, Time};

/// The most slots a slotted structure may hold, so that no configuration can exhaust
/// memory.
pub const MAX_SLOTS: u64 = 1 << 20;

/// Time quantisation and reach of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Slot width: window starts are rounded down and ends up to multiples of it.
    pub slot: Time,
    /// How far past the slot holding "now" a window may end; `None` for all of `u64` time.
    pub horizon: Option<Time>,
}

impl Default for Config {
    /// Continuous time: slot 1, no horizon.
    fn default() -> Self {
        Self { slot: 1, horizon: None }
    }
}

impl Config {
    /// Checks the configuration and the capacity an index is built with.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for a zero capacity, a zero slot, or a horizon that is zero
    /// or not a multiple of the slot.
    pub fn validate(&self, capacity: u32) -> Result<(), Error> {
        let bad = |reason: &str| Err(Error::BadConfig { reason: reason.to_owned() });
        if capacity == 0 {
            return bad("capacity must be at least 1");
        }
        if self.slot == 0 {
            return bad("slot width must be at least 1");
        }
        match self.horizon {
            Some(h) if h == 0 || h % self.slot != 0 => {
                bad("horizon must be a positive multiple of the slot width")
            }
            _ => Ok(()),
        }
    }

    /// The number of slots in the horizon, for a structure that keeps one record per slot.
    ///
    /// # Errors
    /// [`Error::BadConfig`] naming `structure` when there is no horizon or it holds more
    /// than [`MAX_SLOTS`] slots.
    pub fn slots(&self, structure: &str) -> Result<usize, Error> {
        let horizon = self.horizon.ok_or_else(|| Error::BadConfig {
            reason: format!("the {structure} structure needs a horizon (--horizon)"),
        })?;
        match horizon / self.slot {
            slots if slots > MAX_SLOTS => {
                Err(Error::BadConfig { reason: format!("{slots} slots are more than {MAX_SLOTS}") })
            }
            // At most 2^20, so it fits.
            slots => Ok(slots as usize),
        }
    }

    /// `t` rounded down to a slot boundary.
    pub fn floor(&self, t: Time) -> Time {
        // Continuous time, the default, needs no division: a predicted branch costs less.
        if self.slot == 1 {
            return t;
        }
        t - t % self.slot
    }

    /// `t` rounded up to a slot boundary, `None` when that overflows.
    pub fn ceil(&self, t: Time) -> Option<Time> {
        if self.slot == 1 {
            return Some(t);
        }
        match t % self.slot {
            0 => Some(t),
            r => t.checked_add(self.slot - r),
        }
    }

    /// The last window end representable when the present is `now` (a slot boundary).
    pub fn limit(&self, now: Time) -> Time {
        match self.horizon {
            Some(h) => self.floor(now.saturating_add(h)),
            None => self.floor(Time::MAX),
        }
    }

    /// Checks a window `[start, end)` against the present `now` and quantises it.
    ///
    /// # Errors
    /// [`Error::EmptyWindow`], [`Error::BeforePast`] or [`Error::BeyondHorizon`], in that
    /// order of precedence.
    pub fn window(&self, now: Time, start: Time, end: Time) -> Result<(Time, Time), Error> {
        if start >= end {
            return Err(Error::EmptyWindow { start, end });
        }
        if start < now {
            return Err(Error::BeforePast { time: start, now });
        }
        let limit = self.limit(now);
        match self.ceil(end) {
            Some(qe) if qe <= limit => Ok((self.floor(start), qe)),
            _ => Err(Error::BeyondHorizon { end, limit }),
        }
    }

    /// Checks a move of the present from `now` to `to` and returns the new present, `to`
    /// rounded down to a slot boundary.
    ///
    /// # Errors
    /// [`Error::BeforePast`] if `to` is before `now`.
    pub fn advance(&self, now: Time, to: Time) -> Result<Time, Error> {
        if to < now {
            return Err(Error::BeforePast { time: to, now });
        }
        Ok(self.floor(to))
    }
}

/// Checks a resource count: `1 <= n <= capacity`.
///
/// # Errors
/// [`Error::BadCount`] otherwise.
pub fn check_count(n: u32, capacity: u32) -> Result<(), Error> {
    if n == 0 || n > capacity {
        return Err(Error::BadCount { n, capacity });
    }
    Ok(())
}

/// Checks the set of an allocation or release: not empty, every id below the capacity.
///
/// # Errors
/// [`Error::EmptySet`] or [`Error::IdOutOfRange`] (naming the lowest offending id).
pub fn check_set(set: &RangeSet, capacity: u32) -> Result<(), Error> {
    match set.max() {
        None => Err(Error::EmptySet),
        Some(max) if max >= capacity => {
            let id = set.subtract(&RangeSet::full(capacity)).ranges().next().map_or(max, |r| r.0);
            Err(Error::IdOutOfRange { id, capacity })
        }
        Some(_) => Ok(()),
    }
}
