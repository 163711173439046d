//! Online co-allocation (coallocation-2d-trees, sections 2 and 4.2): a request
//! `(q_r, s_r, l_r, n_r)` is tried at `s_r`, then at `s_r + Δt`, `s_r + 2Δt`, …, for at most
//! `R_max` attempts; the first start at which `n_r` resources are free for `l_r` takes the
//! lowest `n_r` of them (one range search finds them all: `check`). A request that finds
//! none, or whose next attempt would end beyond the horizon, is rejected and counted,
//! never retried. Requests ask for `s_r = q_r` (section 5.1), except the advance
//! reservations `--ar-fraction ρ` draws (section 5.2), which ask for 0 to 3 hours after.

use serde::{Deserialize, Serialize};
use structures::Time;

use super::{ParameterError, Policy};
use crate::runner::{EventLoop, ReplayError};

/// How often and how far apart a request is tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attempts {
    /// `Δt`: the step between attempts, seconds (the paper: 15 minutes).
    pub delta: Time,
    /// `R_max`: the most attempts per request (the paper: half the slots of the horizon).
    pub rmax: u64,
}

impl Attempts {
    /// The paper's `Δt`, seconds.
    pub const DELTA: Time = 15 * 60;

    /// The horizon assumed when none is given, seconds: 30 days (the paper's section 2:
    /// "in the order of weeks or months").
    pub const HORIZON: Time = 30 * 86_400;

    /// The paper's `R_max` for a horizon of `horizon` seconds in slots of `slot`: `Q / 2`.
    pub fn rmax_for(horizon: Time, slot: Time) -> u64 {
        (horizon / slot.max(1) / 2).max(1)
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// A zero `Δt` (every attempt would be the same: [`ParameterError::ZeroDeltaT`]) or a
    /// zero `R_max` (no attempt: [`ParameterError::ZeroRmax`]).
    pub fn validate(&self) -> Result<(), ParameterError> {
        if self.delta == 0 {
            return Err(ParameterError::ZeroDeltaT);
        }
        if self.rmax == 0 {
            return Err(ParameterError::ZeroRmax);
        }
        Ok(())
    }
}

impl Default for Attempts {
    /// The paper's settings with 5-minute slots and the default horizon.
    fn default() -> Self {
        Self { delta: Self::DELTA, rmax: Self::rmax_for(Self::HORIZON, 300) }
    }
}

/// The policy's state: its parameters alone (every decision is made at arrival).
pub(super) struct Coalloc {
    attempts: Attempts,
}

impl Coalloc {
    pub(super) fn new(attempts: Attempts) -> Self {
        Self { attempts }
    }
}

impl Policy for Coalloc {
    fn arrive(&mut self, sim: &mut dyn EventLoop, i: usize) -> Result<(), ReplayError> {
        let r = sim.request(i);
        let reservation = sim.reserved_start(i);
        let asked = reservation.unwrap_or(r.submit);
        let Attempts { delta, rmax } = self.attempts;
        for attempt in 0..rmax {
            let Some(start) = attempt.checked_mul(delta).and_then(|d| asked.checked_add(d)) else { break };
            if !sim.ends_within_horizon(start.saturating_add(r.duration)) {
                sim.count("rejected at the horizon", 1);
                break;
            }
            if let Some(frame) = sim.check(i, start)? {
                sim.place(i, frame, reservation.is_some())?;
                sim.tried(i, attempt + 1, Some(start - asked));
                return Ok(());
            }
            if attempt + 1 == rmax {
                sim.count("rejected after R_max attempts", 1);
            }
        }
        sim.tried(i, rmax, None);
        sim.unplaced();
        Ok(())
    }
}
