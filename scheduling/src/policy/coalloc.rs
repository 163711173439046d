//! Online co-allocation (coallocation-2d-trees, sections 2 and 4.2): a request
//! `(q_r, s_r, l_r, n_r)` is tried at `s_r`, then at `s_r + Δt`, `s_r + 2Δt`, …: the first
//! attempt and up to `R_max` more (section 5.1: "up to R_max additional scheduling
//! attempts"); the first start at which `n_r` resources are free for `l_r` takes the
//! lowest `n_r` of them (one range search finds them all: `check`). A request that finds
//! none, or whose next attempt would end beyond the horizon, is rejected and counted,
//! never retried. Requests ask for `s_r = q_r` (section 5.1), except the advance
//! reservations `--ar-fraction ρ` draws (section 5.2), which ask for 0 to 3 hours after.
//!
//! `l_r` is "the estimated duration of the job" (section 2), and the paper has no
//! completion step: a job holds its servers for `l_r` exactly. Its Table 1 gives the
//! mean estimated `l_r` as the traces' mean run times (KTH 2.46 h, HPC2N 4.72 h), so
//! [`Length::RunTime`] is the paper's model; [`Length::Requested`], a reservation for the
//! requested time whose unused tail is freed when the job ends, is ours.

use serde::{Deserialize, Serialize};
use structures::Time;

use super::{ParameterError, Policy, Settings};
use crate::runner::{EventLoop, ReplayError};

/// What a request reserves: its `l_r`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[derive(strum::Display, strum::EnumString, strum::VariantNames)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Length {
    /// The job's run time (SWF field 4), held exactly: the paper's model.
    RunTime,
    /// The time the job requested (field 9), its unused tail freed when the job ends:
    /// ours, and what run files written before there was a choice did.
    #[default]
    Requested,
}

impl Length {
    /// Whether this is [`Length::Requested`].
    pub fn is_requested(&self) -> bool {
        *self == Length::Requested
    }
}

/// How often and how far apart a request is tried, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attempts {
    /// `Δt`: the step between attempts, seconds (the paper: 15 minutes).
    pub delta: Time,
    /// `R_max`: the most attempts after the first (the paper: `Q / 2`).
    pub rmax: u64,
    /// What a request reserves (absent in run files for [`Length::Requested`], which is
    /// what files written before the choice did).
    #[serde(default, skip_serializing_if = "Length::is_requested")]
    pub length: Length,
}

impl Attempts {
    /// The paper's `Δt`, seconds.
    pub const DELTA: Time = 15 * 60;

    /// The horizon assumed when none is given, seconds: 30 days (the paper's section 2:
    /// "in the order of weeks or months").
    pub const HORIZON: Time = 30 * 86_400;

    /// The paper's `R_max` for a horizon of `horizon` seconds and a step of `delta`:
    /// `Q / 2`, half the slots of the idle-period trees' horizon, `Q = ⌈H / τ⌉`. The paper
    /// takes `τ` as the least temporal size of a request and gives no number; here `τ` is
    /// `Δt`, the grain of its attempts, so that `R_max` attempts reach half the horizon
    /// whatever slot width a replay uses.
    pub fn rmax_for(horizon: Time, delta: Time) -> u64 {
        (horizon.div_ceil(delta.max(1)) / 2).max(1)
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// A zero `Δt` (every attempt would be the same: [`ParameterError::ZeroDeltaT`]).
    /// `R_max` 0 leaves the first attempt alone.
    pub fn validate(&self) -> Result<(), ParameterError> {
        if self.delta == 0 {
            return Err(ParameterError::ZeroDeltaT);
        }
        Ok(())
    }
}

impl Default for Attempts {
    /// The paper's settings with the default horizon.
    fn default() -> Self {
        Self { delta: Self::DELTA, rmax: Self::rmax_for(Self::HORIZON, Self::DELTA), length: Length::RunTime }
    }
}

/// The policy's state: its parameters alone (every decision is made at arrival).
pub(super) struct Coalloc {
    attempts: Attempts,
    /// The attempts after the first: `R_max`, or one fewer when planted.
    more: u64,
}

impl Coalloc {
    pub(super) fn new(settings: &Settings) -> Self {
        let attempts = settings.attempts.unwrap_or_default();
        #[cfg(feature = "planted")]
        if settings.planted == Some(super::Planted::RmaxInAll) {
            return Self { attempts, more: attempts.rmax.saturating_sub(1) };
        }
        Self { attempts, more: attempts.rmax }
    }
}

impl Policy for Coalloc {
    fn arrive(&mut self, sim: &mut dyn EventLoop, i: usize) -> Result<(), ReplayError> {
        let r = sim.request(i);
        let reservation = sim.reserved_start(i);
        let asked = reservation.unwrap_or(r.submit);
        let (delta, rmax) = (self.attempts.delta, self.more);
        // Attempts made: those that reached the structure.
        let mut made = 0;
        for attempt in 0..=rmax {
            let Some(start) = attempt.checked_mul(delta).and_then(|d| asked.checked_add(d)) else { break };
            if !sim.ends_within_horizon(start.saturating_add(r.duration)) {
                sim.count("rejected at the horizon", 1);
                break;
            }
            made += 1;
            if let Some(frame) = sim.check(i, start)? {
                sim.place(i, frame, reservation.is_some())?;
                sim.tried(i, made, Some(start - asked));
                return Ok(());
            }
            if attempt == rmax {
                sim.count("rejected after 1 + R_max attempts", 1);
            }
        }
        sim.tried(i, made, None);
        sim.unplaced();
        Ok(())
    }
}
