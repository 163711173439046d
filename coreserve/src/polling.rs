//! The polling model of Fig 5 (calendar-token-reservation §4, "Reservation by Attribute"):
//! to get `n` of `k` homogeneous resources, send agents to `p` of them and take the
//! earliest slot where `n` of the `p` are free. Polling more shortens the delay and costs
//! messages. The paper gives the model in words only ("the expected delay in scheduling a
//! job given the probability q that a given slot would be unavailable", plus "a term
//! proportional to p"); the formula is ours (design note §4.2):
//!
//! - every slot of every resource is unavailable independently with probability `q`;
//! - one slot succeeds with `s(p) = P[Bin(p, 1 − q) ≥ n]`;
//! - the start is geometric, so the expected delay is `E[T](p) = (1 − s(p)) / s(p)` slots;
//! - the cost is `C(p) = E[T](p) + c·p`, with `c` in slot lengths per polled resource.
//!
//! [`simulate`] measures the same delays on real calendars (any registered structure).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use structures::{Config, Kind, RangeSet, Time};

/// The most resources the model takes.
pub const MAX_K: u32 = 1024;
/// The most Monte Carlo trials.
pub const MAX_TRIALS: u32 = 1_000_000;
/// The longest calendar a trial draws, in slots.
pub const MAX_HORIZON: Time = 1 << 16;
/// A point is not simulated when more of its trials than this found no slot in the
/// calendar (its mean would be biased low).
pub const MAX_CENSORED: f64 = 0.001;

/// Why the model refused its parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PollingError {
    /// `n` is zero, or `k` is below `n` or above [`MAX_K`].
    #[error("need 1 <= n <= k <= {MAX_K}; got n {n}, k {k}")]
    Counts {
        /// Resources needed.
        n: u32,
        /// Resources that exist.
        k: u32,
    },
    /// `p` outside `n..=k`.
    #[error("p {p} must lie in n..=k = {n}..={k}")]
    Polled {
        /// Resources polled.
        p: u32,
        /// Needed.
        n: u32,
        /// Existing.
        k: u32,
    },
    /// `q` outside `[0, 1)`.
    #[error("q {q} must be in [0, 1): a slot always unavailable never schedules")]
    Unavailability {
        /// The probability given.
        q: f64,
    },
    /// `c` negative or not finite.
    #[error("message cost c {c} must be a finite number >= 0")]
    MessageCost {
        /// The cost given.
        c: f64,
    },
    /// Trials, duration or calendar length out of range.
    #[error("{what} {value} must be 1..={max}")]
    Size {
        /// Which.
        what: &'static str,
        /// The value given.
        value: u64,
        /// Its limit.
        max: u64,
    },
    /// The calendar refused an operation (a bug).
    #[error("the calendar refused: {0}")]
    Index(structures::Error),
}

/// Checks `n`, `k`, `q` and `c`.
///
/// # Errors
/// The first parameter out of range.
pub fn check(n: u32, k: u32, q: f64, c: f64) -> Result<(), PollingError> {
    if n == 0 || k < n || k > MAX_K {
        return Err(PollingError::Counts { n, k });
    }
    if !(0.0..1.0).contains(&q) {
        return Err(PollingError::Unavailability { q });
    }
    if !c.is_finite() || c < 0.0 {
        return Err(PollingError::MessageCost { c });
    }
    Ok(())
}

/// `s(p)`: the probability that at least `n` of `p` resources are free in one slot.
///
/// # Errors
/// [`PollingError::Polled`] for `p < n`, or as [`check`] with `k = p`.
pub fn success(n: u32, p: u32, q: f64) -> Result<f64, PollingError> {
    if p < n {
        return Err(PollingError::Polled { p, n, k: p });
    }
    check(n, p, q, 0.0)?;
    if q == 0.0 {
        return Ok(1.0);
    }
    // The binomial terms in log space, so large p neither overflows nor underflows.
    let (lf, lq) = ((1.0 - q).ln(), q.ln());
    let mut log_choose = 0.0; // ln C(p, 0)
    let mut total = 0.0;
    for j in 0..=p {
        if j > 0 {
            log_choose += f64::from(p - j + 1).ln() - f64::from(j).ln();
        }
        if j >= n {
            total += (log_choose + f64::from(j) * lf + f64::from(p - j) * lq).exp();
        }
    }
    Ok(total.min(1.0))
}

/// `E[T](p) = (1 − s) / s`: the expected number of slots before the first that has `n`
/// of `p` free.
///
/// # Errors
/// As [`success`].
pub fn expected_delay(n: u32, p: u32, q: f64) -> Result<f64, PollingError> {
    let s = success(n, p, q)?;
    Ok((1.0 - s) / s)
}

/// `C(p) = E[T](p) + c·p`.
///
/// # Errors
/// As [`success`], or a bad `c`.
pub fn cost(n: u32, p: u32, q: f64, c: f64) -> Result<f64, PollingError> {
    check(n, p.max(n), q, c)?;
    Ok(expected_delay(n, p, q)? + c * f64::from(p))
}

/// The `p` in `n..=k` of least cost (the smallest on a tie).
///
/// # Errors
/// As [`check`].
pub fn best(n: u32, k: u32, q: f64, c: f64) -> Result<u32, PollingError> {
    check(n, k, q, c)?;
    let mut best = (n, f64::INFINITY);
    for p in n..=k {
        let value = cost(n, p, q, c)?;
        if value < best.1 {
            best = (p, value);
        }
    }
    Ok(best.0)
}

/// A simulated delay: its mean over the trials and the half-width of its 95 %
/// confidence interval, or `None` when too many trials found no slot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// Resources polled.
    pub p: u32,
    /// Mean start slot.
    pub mean: f64,
    /// Half-width of the 95 % confidence interval.
    pub ci: f64,
    /// Trials that found no slot within the calendar.
    pub censored: u32,
}

/// What a Monte Carlo run draws.
#[derive(Debug, Clone, Copy)]
pub struct Trials {
    /// The structure of the calendars.
    pub kind: Kind,
    /// Trials.
    pub trials: u32,
    /// Slots per calendar.
    pub horizon: Time,
    /// The job's length in slots (the formula holds for 1).
    pub duration: Time,
    /// The RNG seed.
    pub seed: u64,
}

/// The mean start of the earliest window with `n` of `p` resources free, for every `p`
/// in `n..=k`, measured on real calendars: each trial draws a calendar of `k` resources
/// whose slots are busy with probability `q` (one allocation per busy run), asks
/// `earliest` with every resource, then makes resources busy one by one from the top to
/// ask again with fewer (common random numbers across `p`).
///
/// # Errors
/// Bad parameters, or the calendar refusing an operation.
pub fn simulate(n: u32, k: u32, q: f64, t: &Trials) -> Result<Vec<Option<Measured>>, PollingError> {
    check(n, k, q, 0.0)?;
    let size = |what, value: u64, max: u64| {
        if value == 0 || value > max {
            Err(PollingError::Size { what, value, max })
        } else {
            Ok(())
        }
    };
    size("trials", u64::from(t.trials), u64::from(MAX_TRIALS))?;
    size("horizon", t.horizon, MAX_HORIZON)?;
    size("duration", t.duration, t.horizon)?;
    let mut rng = StdRng::seed_from_u64(t.seed);
    let width = (k - n + 1) as usize;
    let (mut sum, mut sq, mut censored) = (vec![0.0; width], vec![0.0; width], vec![0u32; width]);
    let config = Config { slot: 1, horizon: Some(t.horizon) };
    for _ in 0..t.trials {
        let mut index = t.kind.build(k, t.kind.config_for(config)).map_err(PollingError::Index)?;
        let mut free_runs: Vec<Vec<(Time, Time)>> = Vec::with_capacity(k as usize);
        for id in 0..k {
            let (mut busy, mut free) = (Vec::new(), Vec::new());
            let mut start = 0;
            let mut state = rng.random_bool(q);
            for slot in 1..=t.horizon {
                let next = slot < t.horizon && rng.random_bool(q);
                if slot == t.horizon || next != state {
                    if state { &mut busy } else { &mut free }.push((start, slot));
                    start = slot;
                    state = next;
                }
            }
            let set = RangeSet::from_ids([id]);
            for (s, e) in busy {
                index.allocate(s, e, &set).map_err(PollingError::Index)?;
            }
            free_runs.push(free);
        }
        for p in (n..=k).rev() {
            let i = (p - n) as usize;
            match index.earliest(0, t.duration, n).map_err(PollingError::Index)? {
                Some(frame) => {
                    let v = frame.start as f64;
                    sum[i] += v;
                    sq[i] += v * v;
                }
                None => censored[i] += 1,
            }
            // Polling one fewer: resource p - 1 becomes busy throughout.
            if p > n {
                let set = RangeSet::from_ids([p - 1]);
                for &(s, e) in &free_runs[(p - 1) as usize] {
                    index.allocate(s, e, &set).map_err(PollingError::Index)?;
                }
            }
        }
    }
    let trials = f64::from(t.trials);
    Ok((0..width)
        .map(|i| {
            let seen = trials - f64::from(censored[i]);
            if f64::from(censored[i]) > MAX_CENSORED * trials || seen < 2.0 {
                return None;
            }
            let mean = sum[i] / seen;
            let var = ((sq[i] - seen * mean * mean) / (seen - 1.0)).max(0.0);
            let p = n + i as u32;
            Some(Measured { p, mean, ci: 1.96 * (var / seen).sqrt(), censored: censored[i] })
        })
        .collect())
}

/// One `p` of the cost table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Resources polled.
    pub p: u32,
    /// `s(p)`.
    pub success: f64,
    /// `E[T](p)` by formula.
    pub delay: f64,
    /// `C(p)` by formula.
    pub cost: f64,
    /// The delay measured on calendars, when simulated and not censored.
    pub measured: Option<Measured>,
}

/// The cost table for `p` in `n..=k`, with the measured delays of [`simulate`] (or none).
///
/// # Errors
/// As [`check`].
pub fn table(
    n: u32,
    k: u32,
    q: f64,
    c: f64,
    measured: &[Option<Measured>],
) -> Result<Vec<Row>, PollingError> {
    check(n, k, q, c)?;
    (n..=k)
        .map(|p| {
            let measured = measured.get((p - n) as usize).copied().flatten();
            Ok(Row {
                p,
                success: success(n, p, q)?,
                delay: expected_delay(n, p, q)?,
                cost: cost(n, p, q, c)?,
                measured,
            })
        })
        .collect()
}

/// The `p` of least measured cost `mean + c·p`, among the rows measured.
pub fn best_measured(rows: &[Row], c: f64) -> Option<u32> {
    let costs = rows.iter().filter_map(|r| r.measured.map(|m| (r.p, m.mean + c * f64::from(r.p))));
    costs
        .fold(
            None,
            |best: Option<(u32, f64)>, (p, v)| {
                if best.is_some_and(|(_, b)| b <= v) {
                    best
                } else {
                    Some((p, v))
                }
            },
        )
        .map(|(p, _)| p)
}

/// The grid the claim is checked on: needed counts, unavailabilities, message costs and
/// resource counts (design note §4.3).
pub const GRID_N: [u32; 5] = [1, 2, 3, 5, 8];
/// Unavailabilities of the grid.
pub const GRID_Q: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/// Message costs of the grid.
pub const GRID_C: [f64; 6] = [0.01, 0.05, 0.1, 0.2, 0.5, 1.0];
/// Resource counts of the grid.
pub const GRID_K: [u32; 2] = [10, 30];

/// One cell of the grid: its parameters and best `p`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Needed.
    pub n: u32,
    /// Existing.
    pub k: u32,
    /// Unavailability.
    pub q: f64,
    /// Message cost.
    pub c: f64,
    /// The best number to poll.
    pub best: u32,
}

impl Cell {
    /// The paper's claim in its text's notation: the best `p` lies between `n` and `2n`.
    pub fn in_band(&self) -> bool {
        self.best <= 2 * self.n
    }
}

/// The best `p` in every cell of the grid.
///
/// # Errors
/// None in practice: the grid's parameters are valid.
pub fn grid() -> Result<Vec<Cell>, PollingError> {
    let mut cells = Vec::new();
    for k in GRID_K {
        for n in GRID_N.into_iter().filter(|&n| n <= k) {
            for q in GRID_Q {
                for c in GRID_C {
                    cells.push(Cell { n, k, q, c, best: best(n, k, q, c)? });
                }
            }
        }
    }
    Ok(cells)
}
