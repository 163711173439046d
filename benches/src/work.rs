//! The deterministic work suite: per structure, operation and state, the exact visited
//! and worst-case counts of the seeded calls. A change in algorithmic work shows here
//! even when times are noisy, and `ci/gate` fails on growth.

use oracle::OpKind;
use serde::{Deserialize, Serialize};
use structures::Kind;

use crate::queries::{cases, check_answers, WrongAnswer};
use crate::states::State;

/// A structure that answered a seeded call differently from the oracle, on a state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{state} {wrong}")]
pub struct MeasureError {
    /// The state's name.
    pub state: String,
    /// The call and the two answers.
    pub wrong: Box<WrongAnswer>,
}

/// Calls per state.
pub const CALLS: usize = 200;

/// The work of one operation of one structure on one state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    /// The structure.
    pub structure: String,
    /// `check` or `earliest`.
    pub op: OpKind,
    /// The state.
    pub state: String,
    /// Calls made.
    pub calls: u64,
    /// Steps to the first anchor, summed.
    pub search: u64,
    /// Entries (or the structure's unit) visited, summed.
    pub visited: u64,
    /// The worst cases, summed.
    pub worst: u64,
}

/// Measures every structure of `kinds` on every state it can be built for, checking every
/// answer as it goes.
///
/// # Errors
/// A structure that answers differently from the oracle, named with the case
/// ([`MeasureError`]).
pub fn measure(states: &[State], kinds: &[Kind]) -> Result<Vec<Work>, MeasureError> {
    let mut all = Vec::new();
    for state in states {
        let cases = cases(state, CALLS, 11);
        for &kind in kinds {
            // A structure left out of a state (see `State::build`) has no work there; the
            // gate's states fit every structure, and it reports a missing measurement.
            let Ok(mut index) = state.build(kind) else { continue };
            let costs = check_answers(index.as_mut(), &cases)
                .map_err(|wrong| MeasureError { state: state.name.clone(), wrong })?;
            for op in [OpKind::Check, OpKind::Earliest] {
                let mut work = Work {
                    structure: kind.name().to_owned(),
                    op,
                    state: state.name.clone(),
                    calls: 0,
                    search: 0,
                    visited: 0,
                    worst: 0,
                };
                for (_, cost) in cases.iter().zip(&costs).filter(|(c, _)| c.op.kind() == op) {
                    work.calls += 1;
                    work.search += cost.search;
                    work.visited += cost.visited;
                    work.worst += cost.worst;
                }
                all.push(work);
            }
        }
    }
    Ok(all)
}
