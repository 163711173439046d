//! Conservative backfilling with advance reservations (rbtree-availability-profile,
//! section IV, Algorithm 2): each job, at arrival, gets the earliest window that fits
//! around everything already planned, so no later job delays an earlier one.

use super::{Policy, Settings};
use crate::runner::{EventLoop, ReplayError};

/// The policy's state: the jobs holding a reservation that has not started yet.
pub(super) struct Conservative {
    compress: bool,
    /// Best-effort jobs reserved to start later, in queue (submit) order. A list, not a
    /// set: arrivals come in queue order and compression re-places the jobs in it in
    /// that order, so each push keeps it sorted (a `BTreeSet` took 2.5 % of a plan-only
    /// replay of SDSC-BLUE, callgrind).
    waiting: Vec<usize>,
    /// Planted (feature `planted`): the start of the job planned last, before which no
    /// later job may start.
    #[cfg(feature = "planted")]
    floor: Option<structures::Time>,
}

impl Conservative {
    pub(super) fn new(settings: &Settings) -> Self {
        Self {
            compress: settings.compress,
            waiting: Vec::new(),
            #[cfg(feature = "planted")]
            floor: (settings.planted == Some(super::Planted::NoBackfill)).then_some(0),
        }
    }

    /// Places job `i` in `frame`, remembering it as waiting if it starts later.
    fn place(
        &mut self,
        sim: &mut dyn EventLoop,
        i: usize,
        frame: structures::TimeFrame,
    ) -> Result<(), ReplayError> {
        if frame.start > sim.clock() {
            self.waiting.push(i);
        }
        sim.place(i, frame, false)
    }

    /// Compression: each waiting job, in queue order, gives up its reservation and takes
    /// the earliest one now (never later than before, as its old window is free again).
    fn compress(&mut self, sim: &mut dyn EventLoop) -> Result<(), ReplayError> {
        let now = sim.clock();
        for i in std::mem::take(&mut self.waiting) {
            if sim.placement(i).is_none_or(|p| p.start <= now) {
                continue;
            }
            let Some(old) = sim.unplace(i)? else { continue };
            let frame = sim.earliest(i, now)?.unwrap_or(structures::TimeFrame {
                start: old.start,
                end: old.end,
                free: old.set,
            });
            self.place(sim, i, frame)?;
        }
        Ok(())
    }
}

impl Policy for Conservative {
    fn arrive(&mut self, sim: &mut dyn EventLoop, i: usize) -> Result<(), ReplayError> {
        if let Some(start) = sim.reserved_start(i) {
            return sim.reserve(i, start);
        }
        let submit = sim.request(i).submit;
        #[cfg(feature = "planted")]
        let submit = self.floor.map_or(submit, |floor| submit.max(floor));
        let frame = match sim.check(i, submit)? {
            Some(frame) => Some(frame),
            None => sim.earliest(i, submit)?,
        };
        match frame {
            Some(frame) => {
                #[cfg(feature = "planted")]
                if let Some(floor) = &mut self.floor {
                    *floor = frame.start;
                }
                self.place(sim, i, frame)
            }
            None => {
                sim.unplaced();
                Ok(())
            }
        }
    }

    fn ended(&mut self, sim: &mut dyn EventLoop, _i: usize) -> Result<(), ReplayError> {
        if self.compress {
            self.compress(sim)?;
        }
        Ok(())
    }
}
