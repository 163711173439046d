//! Seeded calls of every operation on a state, each with the answer every structure
//! must give: the oracle's, or above [`ORACLE_CAP`] entries the B-tree profile's.

use oracle::{apply, Op, OpKind, Outcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use structures::{AvailabilityIndex, Cost, Kind, Time};

use crate::states::{Answers, State, DEEP_N, ORACLE_CAP, SLOT};

/// The index whose answers the cases expect: the oracle, or the registry's reference
/// structure (checked against the oracle by the differential suite) on states over
/// [`ORACLE_CAP`] entries or asking for it ([`Answers::Reference`]).
///
/// # Panics
/// If the state does not load (a bug in the state's construction).
pub fn reference(state: &State) -> Box<dyn AvailabilityIndex> {
    if state.entries > ORACLE_CAP || state.answers == Answers::Reference {
        return state.build(Kind::REFERENCE).expect("the reference structure takes every state");
    }
    Box::new(state.oracle().clone())
}

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
    let mut oracle = reference(state);
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|k| {
            let (start, length) = window(state, &mut rng);
            let op = if k % 2 == 0 {
                Op::Check { start, end: start + length, n: rng.random_range(1..=state.capacity) }
            } else {
                Op::Earliest {
                    ready: start,
                    duration: length,
                    n: rng.random_range(1..=state.capacity.div_ceil(2)),
                }
            };
            let expected = apply(oracle.as_mut(), &op);
            Case { op, expected }
        })
        .collect()
}

/// A window of 1 to 64 slots starting in the first half of the horizon.
fn window(state: &State, rng: &mut StdRng) -> (Time, Time) {
    let slots = (state.config.limit(state.now) - state.now) / SLOT;
    let length = SLOT * rng.random_range(1..=64.min(slots / 2).max(1));
    let start = state.now + SLOT * rng.random_range(0..(slots / 2).max(1));
    (start, length)
}

/// `count` seeded calls of `operation` (one of [`OpKind::MEASURED`]) on `state`, windows as in
/// [`cases`]. Updates come as `count` allocations, each of the lowest ids free throughout
/// its window after the ones before it, then the `count` releases that undo them, so the
/// list leaves the state as it found it and a suite can run it again and again; `timed`
/// says which half is measured.
///
/// # Panics
/// On an operation not in [`OpKind::MEASURED`], or a state the reference cannot take.
pub fn calls(state: &State, operation: OpKind, count: usize, seed: u64) -> Calls {
    if matches!(operation, OpKind::Check | OpKind::Earliest) {
        let cases: Vec<Case> =
            cases(state, 2 * count, seed).into_iter().filter(|c| c.op.kind() == operation).collect();
        return Calls { timed: (0..cases.len()).collect(), cases };
    }
    let mut reference = reference(state);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut ops = Vec::new();
    while ops.len() < count {
        let (start, length) = window(state, &mut rng);
        let end = start + length;
        ops.push(match operation {
            OpKind::FreeFrames => Op::FreeFrames { from: start, to: end },
            OpKind::Options => Op::Options {
                from: start,
                to: end,
                min_duration: SLOT * rng.random_range(1..=4),
                min_n: rng.random_range(1..=state.capacity.div_ceil(4)),
            },
            OpKind::Allocate | OpKind::Release => {
                let n = u64::from(rng.random_range(1..=state.capacity.div_ceil(8)));
                let Ok(Some(free)) = reference.check(start, end, 1) else { continue };
                let Some(set) = free.first(n) else { continue };
                // Applied now, so the next allocation is chosen in the state after it.
                reference.allocate(start, end, &set).expect("ids free throughout the window");
                Op::Allocate { start, end, set }
            }
            other => panic!("no benchmark calls for {other}"),
        });
    }
    let mut reference = self::reference(state);
    let releases: Vec<Op> = ops
        .iter()
        .filter_map(|op| match op {
            Op::Allocate { start, end, set } => {
                Some(Op::Release { start: *start, end: *end, set: set.clone() })
            }
            _ => None,
        })
        .collect();
    let cases: Vec<Case> = ops
        .into_iter()
        .chain(releases)
        .map(|op| Case { expected: apply(reference.as_mut(), &op), op })
        .collect();
    let timed = cases.iter().enumerate().filter(|(_, c)| c.op.kind() == operation).map(|(i, _)| i).collect();
    Calls { cases, timed }
}

/// Ten `earliest` calls on a deep-backlog state ([`states::deep`](crate::states::deep)):
/// two slots for [`DEEP_N`](crate::states::DEEP_N) ids, ready at each of the first ten
/// slots, with the reference's answers.
///
/// # Panics
/// If the reference cannot take the state.
pub fn deep_calls(state: &State) -> Calls {
    let mut reference = reference(state);
    let cases: Vec<Case> = (0..10)
        .map(|k| {
            let op = Op::Earliest {
                ready: state.now + SLOT * k,
                duration: 2 * SLOT,
                n: DEEP_N.min(state.capacity),
            };
            Case { expected: apply(reference.as_mut(), &op), op }
        })
        .collect();
    Calls { timed: (0..cases.len()).collect(), cases }
}

/// Seeded calls of one operation, in the order they must run.
#[derive(Debug, Clone)]
pub struct Calls {
    /// Every call, with its expected answer.
    pub cases: Vec<Case>,
    /// The positions in `cases` of the calls of the measured operation.
    pub timed: Vec<usize>,
}

/// A case a structure answered differently from the oracle (or the reference).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{structure}: case {case} {op:?} answered {got:?}, the oracle {expected:?}")]
pub struct WrongAnswer {
    /// The structure.
    pub structure: &'static str,
    /// The case's position, from 0.
    pub case: usize,
    /// The call.
    pub op: Op,
    /// Its answer.
    pub got: Outcome,
    /// The expected answer.
    pub expected: Outcome,
}

/// Runs every case on `index` and compares its answer with the oracle's; returns each
/// call's cost, in case order.
///
/// # Errors
/// The first case answered differently, named ([`WrongAnswer`], boxed: the op and the
/// answers each hold an id set inline).
pub fn check_answers(
    index: &mut dyn AvailabilityIndex,
    cases: &[Case],
) -> Result<Vec<Cost>, Box<WrongAnswer>> {
    let mut costs = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        let got = apply(index, &case.op);
        if got != case.expected {
            return Err(Box::new(WrongAnswer {
                structure: index.name(),
                case: i,
                op: case.op.clone(),
                got,
                expected: case.expected.clone(),
            }));
        }
        costs.push(index.last_cost().unwrap_or_default());
    }
    Ok(costs)
}
