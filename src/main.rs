//! The `resbench` command line.

/// `println!` that hands a closed stdout back as an error instead of panicking, so that
/// `main` can end quietly when a reader such as `head` has gone.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// `print!` as [`outln!`] is `println!`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)
    }};
}

mod commands;

use std::io;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(version, about = "Verify and measure advance-reservation data structures on real traces")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a trace (or a synthetic workload) under a scheduling policy (conservative
    /// backfilling unless `--policy` names another) on one or every structure, check that
    /// every structure decides alike, and report the work done.
    Replay(Box<commands::replay::Args>),
    /// Run the reservation schedulers of rspb-priorities-benefit-functions (RB, RSPB,
    /// Co-RSPB, Co-RSBF, Co-RSBFR) on the thesis's workloads and print their measures.
    Rspb(Box<commands::rspb::Args>),
    /// Co-reservation across resource managers (calendar-token-reservation): the
    /// protocol under the deterministic simulator, the polling model, and the managers as
    /// HTTP/JSON services on loopback.
    #[command(subcommand)]
    Coreserve(commands::coreserve::Action),
    /// Turn run files, benchmark files or an RSPB results file into `index.md` and
    /// `index.html` with SVG plots.
    Report(Box<commands::report::Args>),
    /// Check a structure of your own, run as a child process speaking the external
    /// protocol (docs/external-protocol.md), against the oracle.
    Verify(Box<commands::external::VerifyArgs>),
    /// Time a structure of your own (a child process speaking the external protocol) on
    /// the same op streams as every built-in structure.
    Bench(Box<commands::external::BenchArgs>),
    /// Record counted fuzz runs and add them up per structure (used by `ci/fuzz-campaign`).
    #[command(subcommand)]
    Campaign(commands::campaign::Action),
    /// Apply a JSON-lines op stream from stdin; write one JSON outcome per line.
    Ops(Box<commands::ops::Args>),
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`resbench … | head`): what it read was all it wanted.
        Err(e) if closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` comes from writing to a pipe whose reader has gone.
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Replay(args) => commands::replay::run(&args),
        Command::Rspb(args) => commands::rspb::run_command(&args),
        Command::Verify(args) => commands::external::run_verify(&args),
        Command::Bench(args) => commands::external::run_bench(&args),
        Command::Campaign(action) => commands::campaign::run(action),
        Command::Coreserve(action) => commands::coreserve::run(&action),
        Command::Report(args) => commands::report::run(&args),
        Command::Ops(args) => commands::ops::run(&args),
    }
}
