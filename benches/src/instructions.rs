//! What the gungraun instruction benchmarks measure, shared with the gate that reads
//! their results: per operation, every registered structure on each state that
//! operation is measured on. The benchmarks are generated from this plan, so gungraun
//! names them `<operation>_<index>` and [`case`] turns that id back into a structure,
//! state and operation: no structure is named anywhere but in its registry entry.

use oracle::OpKind;
use structures::{Kind, UnknownName};

/// Calls per benchmark.
pub const CALLS: usize = 40;

/// The states measured, and the operations measured on each.
pub const STATES: [(&str, &[OpKind]); 2] =
    [("kth-1000", &OpKind::MEASURED), ("synthetic-1000", &[OpKind::Check, OpKind::Earliest])];

/// One instruction benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Case {
    /// The structure measured.
    pub kind: Kind,
    /// The state's name (see [`crate::states`]).
    pub state: &'static str,
    /// The operation measured.
    pub op: OpKind,
}

/// The benchmarks of `op`, in the order gungraun numbers them.
pub fn plan(op: OpKind) -> Vec<Case> {
    STATES
        .iter()
        .filter(|(_, ops)| ops.contains(&op))
        .flat_map(|&(state, _)| Kind::ALL.iter().map(|&kind| Case { kind, state, op }))
        .collect()
}

/// A gungraun benchmark id that names no case of the plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaseError {
    /// No `_<index>` at its end.
    #[error("benchmark id {id:?} has no index")]
    NoIndex {
        /// The id.
        id: String,
    },
    /// Its operation is not one.
    #[error(transparent)]
    Op(#[from] UnknownName),
    /// Its index is past the operation's plan.
    #[error("benchmark id {id:?} is past the plan of {op}")]
    PastPlan {
        /// The id.
        id: String,
        /// Its operation.
        op: OpKind,
    },
}

/// The case a gungraun benchmark id (`earliest_11`, `free_frames_3`) names.
///
/// # Errors
/// An id that is not an operation and an index into its plan ([`CaseError`]).
pub fn case(id: &str) -> Result<Case, CaseError> {
    let no_index = || CaseError::NoIndex { id: id.to_owned() };
    let (op, index) = id.rsplit_once('_').ok_or_else(no_index)?;
    let op: OpKind = op.parse()?;
    let index: usize = index.parse().map_err(|_| no_index())?;
    plan(op).get(index).copied().ok_or_else(|| CaseError::PastPlan { id: id.to_owned(), op })
}
