//! What the event-driven references share: each job's window on its resources, the ends
//! to come, and the searches over them. Jobs end at their run time and give back the rest
//! of their window; a job takes the lowest-numbered free resources.

use std::collections::BTreeSet;

/// One job as the references see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    /// When it is submitted.
    pub submit: u64,
    /// The time it requested.
    pub duration: u64,
    /// The time it runs (at most `duration`).
    pub runtime: u64,
    /// The resources it needs.
    pub n: u32,
}

/// A job's window on its resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) ids: Vec<u32>,
}

/// The machine's plan over time.
pub(crate) struct Timeline<'a> {
    capacity: u32,
    pub(crate) jobs: &'a [Job],
    pub(crate) windows: Vec<Option<Window>>,
    /// `(time, job)`: the ends to come.
    ends: BTreeSet<(u64, usize)>,
    /// Whether every job's end is an event, or only an early one.
    every_end: bool,
}

impl<'a> Timeline<'a> {
    pub(crate) fn new(capacity: u32, jobs: &'a [Job], every_end: bool) -> Self {
        Timeline { capacity, jobs, windows: vec![None; jobs.len()], ends: BTreeSet::new(), every_end }
    }

    /// The next event before or at the arrival `arrival`: a job's end, which frees the rest
    /// of its window. Ends come before arrivals at the same instant, in order of time,
    /// then job.
    pub(crate) fn next_end(&mut self, arrival: Option<u64>) -> Option<(u64, usize)> {
        let &(t, i) = self.ends.iter().next()?;
        if arrival.is_some_and(|a| t > a) {
            return None;
        }
        self.ends.remove(&(t, i));
        if let Some(w) = &mut self.windows[i] {
            w.end = w.end.min(t);
        }
        Some((t, i))
    }

    /// The resources free throughout `[start, end)`, lowest first.
    fn free(&self, start: u64, end: u64) -> Vec<u32> {
        (0..self.capacity)
            .filter(|&id| {
                self.windows
                    .iter()
                    .flatten()
                    .all(|w| !w.ids.contains(&id) || w.end <= start || end <= w.start)
            })
            .collect()
    }

    /// Job `i` at `start` if it fits there, on its lowest free resources.
    pub(crate) fn fits(&self, i: usize, start: u64) -> Option<Vec<u32>> {
        let job = self.jobs[i];
        let free = self.free(start, start + job.duration);
        (free.len() >= job.n as usize).then(|| free.into_iter().take(job.n as usize).collect())
    }

    /// The earliest start from `now` at which job `i` fits: `now` or a window's end.
    pub(crate) fn earliest(&self, i: usize, now: u64) -> Option<(u64, Vec<u32>)> {
        let mut starts: Vec<u64> = vec![now];
        starts.extend(self.windows.iter().flatten().map(|w| w.end).filter(|&e| e > now));
        starts.sort_unstable();
        starts.dedup();
        starts.into_iter().find_map(|t| self.fits(i, t).map(|ids| (t, ids)))
    }

    pub(crate) fn place(&mut self, i: usize, start: u64, ids: Vec<u32>) {
        let job = self.jobs[i];
        self.windows[i] = Some(Window { start, end: start + job.duration, ids });
        if self.every_end || job.runtime < job.duration {
            self.ends.insert((start + job.runtime, i));
        }
    }

    pub(crate) fn unplace(&mut self, i: usize) -> Option<Window> {
        let w = self.windows[i].take()?;
        self.ends.remove(&(w.start + self.jobs[i].runtime, i));
        Some(w)
    }

    /// Each job's start and resources, `None` for one never placed.
    pub(crate) fn starts(self) -> Vec<Option<(u64, Vec<u32>)>> {
        self.windows.into_iter().map(|w| w.map(|w| (w.start, w.ids))).collect()
    }
}
