//! coallocation-2d-trees, sections 2, 4.2 and 5.1: online co-allocation on a plain list
//! of each server's reserved periods. A request `(q_r, s_r, l_r, n_r)` arriving at `q_r`
//! is tried at `s_r`, `s_r + Δt`, `s_r + 2Δt`, …: the first attempt and up to `R_max`
//! more. An attempt succeeds when at least `n_r` servers are idle for all of
//! `[start, start + l_r)`; the request takes the `n_r` lowest-numbered of them (the paper
//! returns the feasible set and leaves the choice open). A start whose run would end past
//! the horizon (`q_r + H`) ends the search, and the request is rejected, as is one whose
//! attempts all fail.

/// One request, in the paper's terms (time in seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// `q_r`: when it arrives (requests arrive in this order).
    pub q: u64,
    /// `s_r`: the start it asks for.
    pub s: u64,
    /// `l_r`: how long it holds its servers.
    pub l: u64,
    /// `n_r`: how many servers.
    pub n: u32,
}

/// What became of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Where it starts and the servers it holds, or `None` if rejected.
    pub placed: Option<(u64, Vec<u32>)>,
    /// The attempts made: those whose run ends within the horizon.
    pub attempts: u64,
}

/// The system: `N` servers, each with the periods it is reserved for.
#[derive(Debug, Clone)]
pub struct System {
    reserved: Vec<Vec<(u64, u64)>>,
    horizon: u64,
    delta: u64,
    rmax: u64,
}

impl System {
    /// `servers` idle servers; a horizon of `horizon` seconds, `Δt` and `R_max`.
    pub fn new(servers: u32, horizon: u64, delta: u64, rmax: u64) -> Self {
        System { reserved: vec![Vec::new(); servers as usize], horizon, delta, rmax }
    }

    /// Whether server `id` is idle throughout `[start, end)`.
    fn idle(&self, id: usize, start: u64, end: u64) -> bool {
        self.reserved[id].iter().all(|&(s, e)| e <= start || end <= s)
    }

    /// Schedules `r`.
    pub fn request(&mut self, r: Request) -> Decision {
        let mut attempts = 0;
        for attempt in 0..=self.rmax {
            let start = r.s + attempt * self.delta;
            if start + r.l > r.q + self.horizon {
                break;
            }
            attempts += 1;
            let feasible: Vec<usize> =
                (0..self.reserved.len()).filter(|&id| self.idle(id, start, start + r.l)).collect();
            if feasible.len() >= r.n as usize {
                let chosen: Vec<usize> = feasible.into_iter().take(r.n as usize).collect();
                for &id in &chosen {
                    self.reserved[id].push((start, start + r.l));
                }
                return Decision {
                    placed: Some((start, chosen.iter().map(|&id| id as u32).collect())),
                    attempts,
                };
            }
        }
        Decision { placed: None, attempts }
    }
}
