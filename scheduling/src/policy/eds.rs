//! FCFS-EDS, first come first served with ejection-based dynamic scheduling
//! (fcfs-eds-slotted-array, section 3, Algorithm 1), and its baseline, flexible advance
//! reservation without advance planning (section 4).
//!
//! This is our id-bound model (`--model ids`): a reservation keeps the same ids for its
//! whole run. The paper's own model, which counts nodes per slot, is
//! [`crate::fcfs_eds::Planner`] (`--model counted`).
//!
//! Every request is an advance reservation with a window of starts `[t_es, t_ls]`
//! ([`Windows`] draws them). Both policies first try first fit: the earliest start from
//! `t_es`, accepted if it is at most `t_ls` (Algorithm 1, lines 16-25). When that fails,
//! the baseline rejects. FCFS-EDS plans ahead (lines 28-47): for each start `s` of the
//! request in turn, while the request does not fit at `s`, one reservation that overlaps
//! `[s, s + t_e)` and can still move (flexible, not started, not moved yet for this
//! start) is shifted within its own window to a start that clears `[s, s + t_e)`; when
//! none can be, what moved for `s` goes back and the next `s` is tried. So, unlike the
//! paper, whose moves are kept until the request fits or fails (`putBackAllShiftedJob`),
//! each start begins from the plan as it was; either way a rejected request changes
//! nothing.
//!
//! Where the paper's `shiftNode` is silent, the reservation moved is the first one
//! accepted, to its first start that fits. At most [`MAX_CHECKS`] placements are tried
//! per request; requests whose search hit that bound are counted.

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use structures::{Time, TimeFrame};

use super::{ParameterError, Policy, Settings};
use crate::runner::{EventLoop, Placement, ReplayError};

/// The most placements FCFS-EDS tries for one request.
pub const MAX_CHECKS: u64 = 20_000;

/// How requests' windows of starts are drawn (fcfs-eds-slotted-array, section 4), in
/// slots: `t_es` is the arrival plus a lead uniform in `0..=lead`; a share of the
/// requests, picked at random, are flexible, with `t_ls = t_es + t_r` and `t_r` uniform
/// in `relax.0..=relax.1`; the others are rigid (`t_ls = t_es`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Windows {
    /// The longest lead of `t_es` over the arrival, in slots (the paper: 48).
    pub lead: u64,
    /// The share of flexible requests (the paper: at most 50 %).
    pub flexible: f64,
    /// The shortest and longest relax time `t_r` of a flexible request, in slots (the
    /// paper: 1 and 24).
    pub relax: (u64, u64),
    /// The model the policies run in (absent in run files written before there was a
    /// choice, which were all [`Model::Ids`]).
    #[serde(default, skip_serializing_if = "Model::is_ids")]
    pub model: Model,
}

impl Default for Windows {
    fn default() -> Self {
        Self { lead: 48, flexible: 0.5, relax: (1, 24), model: Model::Ids }
    }
}

/// What a reservation holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[derive(strum::Display, strum::EnumString, strum::VariantNames)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Model {
    /// A count of nodes in each slot of its run, whichever they are: the paper's model
    /// (section 3, the `tslot` array), planned by [`crate::fcfs_eds::Planner`]. Nothing
    /// ends early in it.
    Counted,
    /// The same ids for its whole run, as every other replay places jobs: ours, and what
    /// run files written before there was a choice did.
    #[default]
    Ids,
}

impl Model {
    /// Whether this is [`Model::Ids`].
    pub fn is_ids(&self) -> bool {
        *self == Model::Ids
    }
}

impl Windows {
    /// Checks the parameters.
    ///
    /// # Errors
    /// A share outside `[0, 1]` ([`ParameterError::FlexibleShare`]), or relax times that
    /// are not a range of positive slots ([`ParameterError::Relax`]: `t_ls < t_es` would
    /// follow from a negative one, and a flexible request needs one start besides
    /// `t_es`).
    pub fn validate(&self) -> Result<(), ParameterError> {
        if !(0.0..=1.0).contains(&self.flexible) {
            return Err(ParameterError::FlexibleShare { share: self.flexible });
        }
        let (min, max) = self.relax;
        if min == 0 || min > max {
            return Err(ParameterError::Relax { min, max });
        }
        Ok(())
    }

    /// The window of starts `[t_es, t_ls]` of request `i` (by index) arriving at
    /// `submit`, in slots of width `slot`: a function of `seed` and `i` alone, so that a
    /// test can know every request's window.
    pub fn draw(&self, seed: u64, i: usize, submit: Time, slot: Time) -> (Time, Time) {
        // Its own stream per request: the same seed draws the synthetic workload.
        let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xED5 ^ i as u64);
        let (lead, pick) = (rng.random_range(0..=self.lead), rng.random::<f64>());
        let relax = rng.random_range(self.relax.0..=self.relax.1);
        let es = submit.saturating_add(lead.saturating_mul(slot));
        let ls = if pick < self.flexible { es.saturating_add(relax.saturating_mul(slot)) } else { es };
        (es, ls)
    }
}

/// The state of FCFS-EDS or of its baseline.
pub(super) struct Eds {
    /// Plan ahead (FCFS-EDS), or never move an accepted reservation (the baseline).
    plan: bool,
    windows: Windows,
    seed: u64,
    /// Accepted flexible reservations, by request index (their starts may still move).
    movable: BTreeSet<usize>,
    /// Placements tried for the request being planned.
    checks: u64,
    /// Whether the request being planned hit a bound.
    bounded: bool,
    /// Planted (feature `planted`): first fit ignores `t_ls`.
    unbounded: bool,
    /// Planted (feature `planted`): `shiftNode` tries the latest accepted first.
    latest_first: bool,
}

impl Eds {
    pub(super) fn new(plan: bool, settings: &Settings) -> Self {
        let (windows, seed) = (settings.windows.unwrap_or_default(), settings.seed);
        #[cfg(feature = "planted")]
        let (unbounded, latest_first) = (
            settings.planted == Some(super::Planted::PastLatestStart),
            settings.planted == Some(super::Planted::LatestFirst),
        );
        #[cfg(not(feature = "planted"))]
        let (unbounded, latest_first) = (false, false);
        Self {
            plan,
            windows,
            seed,
            movable: BTreeSet::new(),
            checks: 0,
            bounded: false,
            unbounded,
            latest_first,
        }
    }

    /// Request `i`'s window of starts (drawn anew: it depends on the seed and `i` alone).
    fn window(&self, sim: &dyn EventLoop, i: usize) -> (Time, Time) {
        self.windows.draw(self.seed, i, sim.request(i).submit, sim.slot())
    }

    /// The starts of request `i` to try, in order: its window's slots from `from` on.
    fn starts(&self, sim: &dyn EventLoop, i: usize, from: Time) -> impl Iterator<Item = Time> {
        let (es, ls) = self.window(sim, i);
        let slot = sim.slot();
        let skip = from.saturating_sub(es).div_ceil(slot);
        (skip..=(ls - es) / slot).map(move |k| es + k * slot)
    }

    /// Places request `i` at `start` if it fits there, counting the try.
    fn try_at(&mut self, sim: &mut dyn EventLoop, i: usize, start: Time) -> Result<bool, ReplayError> {
        self.checks += 1;
        match sim.check(i, start)? {
            Some(frame) => sim.place(i, frame, true).map(|()| true),
            None => Ok(false),
        }
    }

    /// Moves one reservation that overlaps `[s, end)` out of it, somewhere else in its
    /// own window (`shiftNode`): the first in acceptance order not moved yet for this
    /// request, at its first start that fits and clears `[s, end)`. Returns whether one
    /// moved; its old placement is pushed on `moved`.
    fn shift_one(
        &mut self,
        sim: &mut dyn EventLoop,
        (s, end): (Time, Time),
        moved: &mut Vec<(usize, Placement)>,
    ) -> Result<bool, ReplayError> {
        let now = sim.clock();
        let mut candidates: Vec<usize> = self
            .movable
            .iter()
            .copied()
            .filter(|&j| !moved.iter().any(|&(k, _)| k == j))
            .filter(|&j| sim.placement(j).is_some_and(|p| p.start > now && p.start < end && s < p.end))
            .collect();
        if self.latest_first {
            candidates.reverse();
        }
        for j in candidates {
            let duration = sim.request(j).duration;
            let Some(old) = sim.unplace(j)? else { continue };
            let starts: Vec<Time> = self.starts(sim, j, now).collect();
            for start in starts {
                if self.checks >= MAX_CHECKS {
                    self.bounded = true;
                    break;
                }
                let clears = start.saturating_add(duration) <= s || start >= end;
                if start != old.start && clears && self.try_at(sim, j, start)? {
                    moved.push((j, old));
                    return Ok(true);
                }
            }
            sim.place(j, TimeFrame { start: old.start, end: old.end, free: old.set }, true)?;
            if self.bounded {
                break;
            }
        }
        Ok(false)
    }

    /// Algorithm 1, lines 28-47: for each start `s` of request `i` in turn, while it
    /// does not fit at `s`, move one overlapping reservation out of the way; when none can
    /// move, put back what moved for `s` and go on to the next start. Returns the number
    /// of reservations moved, or `None` with the old plan intact.
    fn plan(&mut self, sim: &mut dyn EventLoop, i: usize) -> Result<Option<u64>, ReplayError> {
        let now = sim.clock();
        self.movable.retain(|&j| sim.placement(j).is_some_and(|p| p.start > now));
        let duration = sim.request(i).duration;
        let starts: Vec<Time> = self.starts(sim, i, now).collect();
        for s in starts {
            let window = (s, s.saturating_add(duration));
            let mut moved = Vec::new();
            loop {
                if self.try_at(sim, i, s)? {
                    return Ok(Some(moved.len() as u64));
                }
                if self.bounded || !self.shift_one(sim, window, &mut moved)? {
                    break;
                }
            }
            // putBackAllShiftedJob, latest first, so each old place is free again.
            while let Some((j, old)) = moved.pop() {
                sim.unplace(j)?;
                sim.place(j, TimeFrame { start: old.start, end: old.end, free: old.set }, true)?;
            }
            if self.bounded {
                break;
            }
        }
        Ok(None)
    }
}

impl Policy for Eds {
    fn arrive(&mut self, sim: &mut dyn EventLoop, i: usize) -> Result<(), ReplayError> {
        let (es, ls) = self.window(sim, i);
        self.checks = 0;
        self.bounded = false;
        sim.count("requests", 1);
        let accepted = match sim.earliest(i, es)? {
            Some(frame) if frame.start <= ls || self.unbounded => {
                sim.place(i, frame, true)?;
                true
            }
            _ if self.plan => match self.plan(sim, i)? {
                Some(shifted) => {
                    if shifted > 0 {
                        sim.count("accepted after shifting", 1);
                        sim.count("reservations shifted", shifted);
                    }
                    true
                }
                None => false,
            },
            _ => false,
        };
        if accepted {
            sim.count("accepted", 1);
            if ls > es {
                self.movable.insert(i);
            }
        } else {
            sim.unplaced();
        }
        if self.bounded {
            sim.count("searches cut short", 1);
        }
        Ok(())
    }
}
