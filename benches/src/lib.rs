//! The benchmarks' shared inputs and measurements, so that every suite (criterion, the
//! deterministic work suite, the CI gate) runs the same seeded states and queries:
//!
//! - [`states`]: states of every structure built from real-trace replays and from a
//!   seeded synthetic generator, at several sizes;
//! - [`queries`]: seeded `check` and `earliest` calls on a state, each with the oracle's
//!   answer, asserted before anything is measured (every benchmark is also a test);
//! - [`replays`]: the first jobs of each trace, with the schedule every structure must
//!   produce, for whole-replay throughput;
//! - [`instructions`]: what the gungraun instruction benchmarks measure, and their ids;
//! - [`work`]: the exact visited and worst-case counts of those calls per structure,
//!   the machine-independent numbers `ci/gate` compares against `ci/baseline.json`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod files;
pub mod gate;
pub mod instructions;
pub mod queries;
pub mod record;
pub mod replays;
pub mod states;
pub mod work;

/// What the criterion groups of a build without cost accounting (feature `uncounted`)
/// are prefixed with, so one report holds both builds' results.
pub const UNCOUNTED: &str = "uncounted/";

/// The prefix of this build's criterion groups: [`UNCOUNTED`] or nothing.
pub fn group_prefix() -> &'static str {
    if cfg!(feature = "uncounted") {
        UNCOUNTED
    } else {
        ""
    }
}
