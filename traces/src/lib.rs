//! resbench's workload inputs: real traces in the Standard Workload Format, the
//! requests a replay schedules, synthetic workloads, calendar periods of a trace, and
//! the bounds every input-driven quantity is held to.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod inflate;
pub mod limits;
pub mod period;
pub mod swf;
pub mod synthetic;
pub mod workload;

/// The bundled default trace: KTH SP2 (1996-97) from the Parallel Workloads Archive,
/// header kept (see `traces/data/README.md` for provenance and citation).
pub const BUNDLED_TRACE: &[u8] = include_bytes!("../data/KTH-SP2-1996-2.1-cln.swf.gz");

/// The bundled trace's name, as reports print it.
pub const BUNDLED_NAME: &str = "KTH-SP2-1996-2.1-cln.swf.gz (bundled)";
