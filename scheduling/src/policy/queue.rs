//! The batch baselines coallocation-2d-trees compares against (section 5.1): a queue in
//! submit order whose first job starts as soon as it fits. With backfilling (EASY), the
//! first waiting job holds a reservation at its earliest start (its shadow time), and a
//! later job starts now if it fits around that reservation, so it cannot delay it.
//! Without (FCFS), jobs start strictly in order.
//!
//! Jobs are placed on the profile like any other: a job that starts is allocated its
//! window at once, and the first waiting job's reservation is re-planned (never later) at
//! every end. Advance reservations, if any, are admitted at arrival as conservative
//! backfilling admits them.

use std::collections::VecDeque;

use super::{Policy, Settings};
use crate::runner::{EventLoop, ReplayError};

/// The policy's state.
pub(super) struct Queue {
    backfill: bool,
    /// Jobs not started, in submit order; the first may hold a reservation.
    queue: VecDeque<usize>,
    /// Whether an end plans the first job's reservation again (always, unless planted).
    replan: bool,
}

impl Queue {
    pub(super) fn new(backfill: bool, settings: &Settings) -> Self {
        #[cfg(feature = "planted")]
        let replan = settings.planted != Some(super::Planted::NoReplan);
        #[cfg(not(feature = "planted"))]
        let (replan, _) = (true, settings);
        Self { backfill, queue: VecDeque::new(), replan }
    }

    /// Starts queued jobs from the front while they fit now, and gives the first one that
    /// does not its earliest reservation. With `replan`, a reservation the first job
    /// already holds is planned again from now, which can only move it earlier (after an
    /// end; after an arrival nothing was freed, so it would not move). Returns whether
    /// the front changed.
    fn start_front(&mut self, sim: &mut dyn EventLoop, replan: bool) -> Result<bool, ReplayError> {
        let now = sim.clock();
        let mut changed = false;
        while let Some(&first) = self.queue.front() {
            match sim.placement(first).map(|p| p.start) {
                // Its reservation has begun: it runs.
                Some(start) if start <= now => {
                    self.queue.pop_front();
                    changed = true;
                    continue;
                }
                Some(_) if !replan => return Ok(changed),
                Some(_) => drop(sim.unplace(first)?),
                None => {}
            }
            match sim.earliest(first, now)? {
                None => {
                    sim.unplaced();
                    self.queue.pop_front();
                    changed = true;
                }
                Some(frame) => {
                    let starts = frame.start <= now;
                    sim.place(first, frame, false)?;
                    if !starts {
                        return Ok(changed);
                    }
                    self.queue.pop_front();
                    changed = true;
                }
            }
        }
        Ok(changed)
    }

    /// EASY's backfilling: every queued job after the first, in order, starts now if it
    /// fits now around what is planned (the first job's reservation included).
    fn backfill(&mut self, sim: &mut dyn EventLoop, from: usize) -> Result<(), ReplayError> {
        let now = sim.clock();
        let mut k = from.max(1);
        while k < self.queue.len() {
            let i = self.queue[k];
            match sim.check(i, now)? {
                Some(frame) => {
                    sim.place(i, frame, false)?;
                    self.queue.remove(k);
                }
                None => k += 1,
            }
        }
        Ok(())
    }
}

impl Policy for Queue {
    fn arrive(&mut self, sim: &mut dyn EventLoop, i: usize) -> Result<(), ReplayError> {
        if let Some(start) = sim.reserved_start(i) {
            return sim.reserve(i, start);
        }
        self.queue.push_back(i);
        // Nothing was freed, so only the new job can start now, unless the front's
        // reservation began since the last event (then all may be tried again).
        let changed = self.start_front(sim, false)?;
        if self.backfill && !self.queue.is_empty() {
            let from = if changed { 1 } else { self.queue.len() - 1 };
            self.backfill(sim, from)?;
        }
        Ok(())
    }

    fn ended(&mut self, sim: &mut dyn EventLoop, _i: usize) -> Result<(), ReplayError> {
        self.start_front(sim, self.replan)?;
        if self.backfill {
            self.backfill(sim, 1)?;
        }
        Ok(())
    }

    fn every_end(&self) -> bool {
        true
    }
}
