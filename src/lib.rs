//! resbench: verify and measure the data structures behind admission control of
//! advance reservations, on real workload traces.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bench_file;
pub mod coreserve;
pub mod external;
pub mod fuzz_campaign;
pub mod limits;
pub mod ops_stream;
pub mod period;
pub mod policy;
pub mod replay;
pub mod report;
pub mod rspb;
pub mod run_file;
pub mod swf;
pub mod synthetic;
pub mod workload;

/// The bundled default trace: KTH SP2 (1996-97) from the Parallel Workloads Archive,
/// header kept (see `data/README.md` for provenance and citation).
pub const BUNDLED_TRACE: &[u8] = include_bytes!("../data/KTH-SP2-1996-2.1-cln.swf.gz");

/// The bundled trace's name, as reports print it.
pub const BUNDLED_NAME: &str = "KTH-SP2-1996-2.1-cln.swf.gz (bundled)";

/// The commit this crate was built from (`unknown` outside a git checkout).
pub const GIT_REVISION: &str = env!("RESBENCH_GIT_REVISION");

/// This process's command line as a user would retype it: `resbench` and its arguments,
/// quoted where they hold spaces.
pub fn command_line() -> String {
    let args = std::env::args().skip(1).map(|a| if a.contains(' ') { format!("'{a}'") } else { a });
    std::iter::once("resbench".to_owned()).chain(args).collect::<Vec<_>>().join(" ")
}
