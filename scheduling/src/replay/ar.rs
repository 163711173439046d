//! Advance reservations injected into a trace as coallocation-2d-trees does (section
//! 5.2 of `coallocation-2d-trees`): a fraction ρ of the jobs, chosen with a seeded RNG,
//! ask to start 0 to 3 hours after they are submitted.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use structures::Time;

/// How far ahead a reservation may ask to start, seconds (coallocation-2d-trees' three hours). A
/// rejected reservation is also offered the options that start within this long of the
/// start it asked for.
pub const AR_WINDOW: Time = 3 * 3600;

/// A job's request to start at a given time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reservation {
    /// The start asked for.
    pub start: Time,
}

/// For each of `jobs` submitted at `submits`, whether it is an advance reservation and
/// for when: the same for every structure, given `seed`.
pub fn plan(submits: impl Iterator<Item = Time>, fraction: f64, seed: u64) -> Vec<Option<Reservation>> {
    let mut rng = StdRng::seed_from_u64(seed);
    submits
        .map(|submit| {
            // Both draws are made for every job, so the choice of one job does not shift
            // the offsets of the others when the fraction changes.
            let (pick, offset) = (rng.random::<f64>(), rng.random_range(0..=AR_WINDOW));
            (pick < fraction).then(|| Reservation { start: submit.saturating_add(offset) })
        })
        .collect()
}
