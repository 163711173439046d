//! coallocation-2d-trees' batch baselines (section 5.1): a queue in submit order on a
//! plain list of each resource's reserved windows, jobs ending at their run time and
//! giving back the rest of their window. FCFS starts the first waiting job as soon as
//! enough resources are free for its requested time, and no job before it; EASY also
//! holds a reservation for the first waiting job at its earliest start and starts any
//! later job at once if it fits around what is planned.
//!
//! The events, and what each tries, follow the policy's documented order
//! (`docs/policies.md`): ends before arrivals at the same instant, ends in order of time
//! then job; at an end, the first job's reservation is planned again (never later) and
//! every waiting job is tried for backfilling; at an arrival only the new job is, unless
//! the front of the queue changed. A job takes the lowest-numbered free resources.

use std::collections::{BTreeSet, VecDeque};

/// One job as the reference sees it.
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
struct Window {
    start: u64,
    end: u64,
    ids: Vec<u32>,
}

/// Replays `jobs` (in submit order) on `capacity` resources; each job's start and
/// resources, or `None` for a job wider than the machine. `backfill` makes it EASY.
pub fn replay(capacity: u32, jobs: &[Job], backfill: bool) -> Vec<Option<(u64, Vec<u32>)>> {
    let mut s = State {
        capacity,
        jobs,
        windows: vec![None; jobs.len()],
        queue: VecDeque::new(),
        ends: BTreeSet::new(),
    };
    let mut next = 0;
    loop {
        let arrival = jobs.get(next).map(|j| j.submit);
        let end = s.ends.iter().next().copied();
        match (arrival, end) {
            (_, Some((t, i))) if arrival.is_none_or(|a| t <= a) => {
                s.ends.remove(&(t, i));
                // The rest of its window is free again.
                if let Some(w) = &mut s.windows[i] {
                    w.end = w.end.min(t);
                }
                s.start_front(t, true);
                if backfill {
                    s.backfill(t, 1);
                }
            }
            (Some(t), _) => {
                s.queue.push_back(next);
                let changed = s.start_front(t, false);
                if backfill && !s.queue.is_empty() {
                    let from = if changed { 1 } else { s.queue.len() - 1 };
                    s.backfill(t, from);
                }
                next += 1;
            }
            (None, _) => break,
        }
    }
    s.windows.into_iter().map(|w| w.map(|w| (w.start, w.ids))).collect()
}

struct State<'a> {
    capacity: u32,
    jobs: &'a [Job],
    windows: Vec<Option<Window>>,
    queue: VecDeque<usize>,
    /// `(time, job)`: the ends to come.
    ends: BTreeSet<(u64, usize)>,
}

impl State<'_> {
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
    fn fits(&self, i: usize, start: u64) -> Option<Vec<u32>> {
        let job = self.jobs[i];
        let free = self.free(start, start + job.duration);
        (free.len() >= job.n as usize).then(|| free.into_iter().take(job.n as usize).collect())
    }

    /// The earliest start from `now` at which job `i` fits: `now` or a window's end.
    fn earliest(&self, i: usize, now: u64) -> Option<(u64, Vec<u32>)> {
        let mut starts: Vec<u64> = vec![now];
        starts.extend(self.windows.iter().flatten().map(|w| w.end).filter(|&e| e > now));
        starts.sort_unstable();
        starts.dedup();
        starts.into_iter().find_map(|t| self.fits(i, t).map(|ids| (t, ids)))
    }

    fn place(&mut self, i: usize, start: u64, ids: Vec<u32>) {
        let job = self.jobs[i];
        self.windows[i] = Some(Window { start, end: start + job.duration, ids });
        self.ends.insert((start + job.runtime, i));
    }

    fn unplace(&mut self, i: usize) {
        if let Some(w) = self.windows[i].take() {
            self.ends.remove(&(w.start + self.jobs[i].runtime, i));
        }
    }

    /// Starts jobs from the front while they fit now; the first that does not gets its
    /// earliest reservation (planned again from now when `replan`). Whether the front
    /// changed.
    fn start_front(&mut self, now: u64, replan: bool) -> bool {
        let mut changed = false;
        while let Some(&first) = self.queue.front() {
            match self.windows[first].as_ref().map(|w| w.start) {
                Some(start) if start <= now => {
                    self.queue.pop_front();
                    changed = true;
                    continue;
                }
                Some(_) if !replan => return changed,
                Some(_) => self.unplace(first),
                None => {}
            }
            match self.earliest(first, now) {
                None => {
                    self.queue.pop_front();
                    changed = true;
                }
                Some((start, ids)) => {
                    self.place(first, start, ids);
                    if start > now {
                        return changed;
                    }
                    self.queue.pop_front();
                    changed = true;
                }
            }
        }
        changed
    }

    /// Every waiting job from position `from` (never the first) starts now if it fits.
    fn backfill(&mut self, now: u64, from: usize) {
        let mut k = from.max(1);
        while k < self.queue.len() {
            let i = self.queue[k];
            match self.fits(i, now) {
                Some(ids) => {
                    self.place(i, now, ids);
                    self.queue.remove(k);
                }
                None => k += 1,
            }
        }
    }
}
