//! Seeded `check` and `earliest` calls on a state, each with the oracle's answer.

use oracle::{apply, Op, Oracle, Outcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use structures::{AvailabilityIndex, Cost};

use crate::states::{State, SLOT};

/// One call and the answer every structure must give.
#[derive(Debug, Clone)]
pub struct Case {
    /// The call.
    pub op: Op,
    /// The oracle's answer.
    pub expected: Outcome,
}

/// `count` calls on `state`, half `check` and half `earliest`: windows of 1 to 64 slots
/// starting in the first half of the horizon, for 1 to `capacity` resources (`earliest`
/// asks for at most half of them, so that most searches succeed).
///
/// # Panics
/// If the oracle cannot take the state (a bug in the state's construction).
pub fn cases(state: &State, count: usize, seed: u64) -> Vec<Case> {
    let mut oracle = Oracle::new(state.capacity, state.config).expect("a valid configuration");
    oracle.advance(state.now).expect("a later present");
    oracle.load_frames(&state.frames).expect("the state's own frames");
    let slots = (state.config.limit(state.now) - state.now) / SLOT;
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|k| {
            let length = SLOT * rng.random_range(1..=64.min(slots / 2).max(1));
            let start = state.now + SLOT * rng.random_range(0..(slots / 2).max(1));
            let op = if k % 2 == 0 {
                Op::Check { start, end: start + length, n: rng.random_range(1..=state.capacity) }
            } else {
                Op::Earliest {
                    ready: start,
                    duration: length,
                    n: rng.random_range(1..=state.capacity.div_ceil(2)),
                }
            };
            let expected = apply(&mut oracle, &op);
            Case { op, expected }
        })
        .collect()
}

/// Runs every case on `index` and compares its answer with the oracle's; returns each
/// call's cost, in case order.
///
/// # Errors
/// The first case answered differently, named.
pub fn check_answers(index: &mut dyn AvailabilityIndex, cases: &[Case]) -> Result<Vec<Cost>, String> {
    let mut costs = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        let got = apply(index, &case.op);
        if got != case.expected {
            return Err(format!(
                "{}: case {i} {:?} answered {got:?}, the oracle {:?}",
                index.name(),
                case.op,
                case.expected
            ));
        }
        costs.push(index.last_cost().unwrap_or_default());
    }
    Ok(costs)
}
