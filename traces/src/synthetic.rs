//! Seeded synthetic workloads: Poisson arrivals, uniform sizes and uniform requested
//! times, for runs without a trace and for tests.

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use structures::Time;

use crate::workload::{Request, Workload};

/// The latest second a synthetic job may end: far past any real trace, and far from
/// `u64::MAX`, so that no window arithmetic can overflow.
pub const LATEST: Time = 1 << 60;

/// Why a synthetic workload cannot be made; every message names the parameter at fault.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum SyntheticError {
    /// Job sizes that do not fit the machine (or an empty machine or size range).
    #[error("sizes 1-{max_size} do not fit a machine of {capacity}")]
    Sizes {
        /// [`Synthetic::max_size`].
        max_size: u32,
        /// [`Synthetic::capacity`].
        capacity: u32,
    },
    /// Requested times that are not a range of positive times.
    #[error("times {min_time}-{max_time} s are not a range of positive times")]
    Times {
        /// [`Synthetic::min_time`].
        min_time: Time,
        /// [`Synthetic::max_time`].
        max_time: Time,
    },
    /// A mean gap that is negative or not a number.
    #[error("mean gap {mean_gap} s is not a non-negative number")]
    MeanGap {
        /// [`Synthetic::mean_gap`].
        mean_gap: f64,
    },
    /// A job that would end past [`LATEST`].
    #[error(
        "job {job} would end past {LATEST} s (the time limit); choose a smaller --mean-gap or --max-time"
    )]
    PastLatest {
        /// The job's id (1-based).
        job: usize,
    },
}

/// A synthetic workload's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Synthetic {
    /// Jobs to generate.
    pub jobs: usize,
    /// Resources on the machine.
    pub capacity: u32,
    /// Mean time between arrivals, seconds (exponential gaps: a Poisson process).
    pub mean_gap: f64,
    /// The largest job; sizes are uniform in `1..=max_size`.
    pub max_size: u32,
    /// Requested times are uniform in `min_time..=max_time` seconds.
    pub min_time: Time,
    /// See `min_time`.
    pub max_time: Time,
    /// Seeds the generator.
    pub seed: u64,
}

impl Synthetic {
    /// The parameters in words, for tables and run files.
    pub fn describe(&self) -> String {
        format!(
            "synthetic: {} jobs, Poisson arrivals {} s apart on average, sizes 1-{}, times {}-{} s, seed {}",
            self.jobs, self.mean_gap, self.max_size, self.min_time, self.max_time, self.seed
        )
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// [`SyntheticError::Sizes`], [`SyntheticError::Times`] or
    /// [`SyntheticError::MeanGap`], naming the bad parameter.
    pub fn validate(&self) -> Result<(), SyntheticError> {
        if self.capacity == 0 || self.max_size == 0 || self.max_size > self.capacity {
            return Err(SyntheticError::Sizes { max_size: self.max_size, capacity: self.capacity });
        }
        if self.min_time == 0 || self.min_time > self.max_time {
            return Err(SyntheticError::Times { min_time: self.min_time, max_time: self.max_time });
        }
        if !(self.mean_gap.is_finite() && self.mean_gap >= 0.0) {
            return Err(SyntheticError::MeanGap { mean_gap: self.mean_gap });
        }
        Ok(())
    }

    /// The workload: job `k` has id `k + 1`; each runs for a time uniform in
    /// `1..=requested`, so most jobs end early as in real traces.
    ///
    /// # Errors
    /// As [`Synthetic::validate`], and [`SyntheticError::PastLatest`] for a job that
    /// would end past [`LATEST`].
    pub fn workload(&self) -> Result<Workload, SyntheticError> {
        self.validate()?;
        let mut rng = StdRng::seed_from_u64(self.seed);
        let mut clock = 0.0_f64;
        let mut requests = Vec::with_capacity(self.jobs.min(crate::limits::MAX_JOBS));
        for k in 0..self.jobs {
            clock += -self.mean_gap * (1.0 - rng.random::<f64>()).ln();
            let duration = rng.random_range(self.min_time..=self.max_time);
            // Times past the limit would saturate (`as` casts) and end windows at the end
            // of time: refuse them rather than replay a wrong schedule.
            if clock + duration as f64 >= LATEST as f64 {
                return Err(SyntheticError::PastLatest { job: k + 1 });
            }
            requests.push(Request {
                id: k as i64 + 1,
                submit: clock as Time,
                n: rng.random_range(1..=self.max_size),
                duration,
                runtime: rng.random_range(1..=duration),
                recorded_wait: None,
            });
        }
        Ok(Workload { capacity: self.capacity, requests, skipped: BTreeMap::new() })
    }
}
