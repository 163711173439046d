//! resbench's reports and the files they are made from: run files, benchmark files,
//! fuzz-campaign records, and Markdown and HTML pages with SVG plots.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bench_file;
pub mod error;
pub mod fuzz_campaign;
mod json_file;
pub mod report;
pub mod run_file;

pub use error::{Error, Invalid, Result};

/// The commit this crate was built from (`unknown` outside a git checkout).
pub const GIT_REVISION: &str = env!("RESBENCH_GIT_REVISION");
