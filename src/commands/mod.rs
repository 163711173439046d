//! The subcommands, one module each: argument parsing and printing around the library
//! crates' calls.

pub mod campaign;
pub mod coreserve;
pub mod coreserve_service;
pub mod external;
pub mod ops;
pub mod replay;
pub mod report;
pub mod rspb;

/// This process's command line as a user would retype it: `resbench` and its arguments,
/// quoted where they hold spaces.
pub fn command_line() -> String {
    let args = std::env::args().skip(1).map(|a| if a.contains(' ') { format!("'{a}'") } else { a });
    std::iter::once("resbench".to_owned()).chain(args).collect::<Vec<_>>().join(" ")
}

/// The most independent runs `-j` runs at once: more threads than runs would idle.
pub const MAX_JOBS: i64 = 256;

/// A pool of `jobs` threads (every core when `None`) for a command's independent runs.
///
/// # Errors
/// The threads cannot be started.
pub fn thread_pool(jobs: Option<u16>) -> anyhow::Result<rayon::ThreadPool> {
    let threads =
        jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, usize::from), usize::from);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start {threads} threads: {e}"))
}
