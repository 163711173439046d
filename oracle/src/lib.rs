//! The naive reference index (with argument rules of its own) and its count view, the op vocabulary and
//! the one differential driver that every test, fuzz target and replay uses to compare a
//! structure with the reference, and a tap that logs (and can falsify) a structure's calls.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod campaign;
pub mod counts;
pub mod driver;
pub mod generate;
pub mod naive;
pub mod op;
pub mod rules;
pub mod tap;

pub use counts::{CountIndex, CountOp, CountOutcome, Counts, Fits};
pub use driver::{
    disagreement, replay, CountDifferential, CountDivergence, Differential, Disagreement, Divergence,
    Scenario, VALIDATE_EVERY,
};
pub use naive::Oracle;
pub use op::{apply, Op, OpKind, Outcome};
