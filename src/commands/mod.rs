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
