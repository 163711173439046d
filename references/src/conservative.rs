//! rbtree-availability-profile, section IV, Algorithm 2: conservative backfilling as the
//! paper measures it (plan-only: a job holds its whole requested time). Each job, at its
//! arrival and in arrival order, gets the earliest window of its requested time, from its
//! arrival on, in which enough resources are free throughout, around everything planned
//! before; it takes the lowest-numbered of them. A window can only open at the arrival or
//! where some reservation ends, so those are the starts tried, in order.

/// The machine: per resource, the windows it is reserved for.
#[derive(Debug, Clone)]
pub struct Machine {
    reserved: Vec<Vec<(u64, u64)>>,
}

impl Machine {
    /// `capacity` free resources.
    pub fn new(capacity: u32) -> Self {
        Machine { reserved: vec![Vec::new(); capacity as usize] }
    }

    /// The resources free throughout `[start, end)`, lowest first.
    fn free(&self, start: u64, end: u64) -> Vec<u32> {
        (0..self.reserved.len())
            .filter(|&id| self.reserved[id].iter().all(|&(s, e)| e <= start || end <= s))
            .map(|id| id as u32)
            .collect()
    }

    /// Plans a job of `n` resources for `duration` arriving at `submit`: its start and
    /// resources, or `None` if the machine has fewer than `n`.
    pub fn plan(&mut self, submit: u64, duration: u64, n: u32) -> Option<(u64, Vec<u32>)> {
        let mut starts: Vec<u64> = vec![submit];
        for windows in &self.reserved {
            starts.extend(windows.iter().map(|&(_, e)| e).filter(|&e| e > submit));
        }
        starts.sort_unstable();
        starts.dedup();
        for start in starts {
            let free = self.free(start, start + duration);
            if free.len() >= n as usize {
                let chosen: Vec<u32> = free.into_iter().take(n as usize).collect();
                for &id in &chosen {
                    self.reserved[id as usize].push((start, start + duration));
                }
                return Some((start, chosen));
            }
        }
        None
    }
}
