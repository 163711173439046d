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
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use external::ops_stream;
use reporting::bench_file::{is_bench_file, BenchFile};
use reporting::report;
use reporting::run_file::RunFile;
use scheduling::rspb::results::{is_rspb_file, ResultsFile};

use crate::commands::command_line;
use structures::Config;

#[derive(Parser)]
#[command(version, about = "Verify and measure advance-reservation data structures on real traces")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a trace (or a synthetic workload) with conservative backfilling on one or
    /// every structure, and report the work done.
    Replay(Box<commands::replay::Args>),
    /// Run the reservation schedulers of rspb-priorities-benefit-functions (RB, RSPB,
    /// Co-RSPB, Co-RSBF, Co-RSBFR) on the thesis's workloads and print their measures.
    Rspb(Box<commands::rspb::Args>),
    /// Co-reservation across resource managers (calendar-token-reservation): the
    /// protocol under the deterministic simulator.
    Coreserve {
        #[command(subcommand)]
        action: commands::coreserve::Action,
    },
    /// Turn run files (or benchmark files) into `index.md` and `index.html` with SVG plots.
    Report {
        /// Run files written by `replay --out`, benchmark files written by the benches
        /// crate's `record`, or the results file of `rspb --figure` (one kind at once).
        #[arg(required = true)]
        runs: Vec<PathBuf>,
        /// The folder to write the report into.
        #[arg(long)]
        out: PathBuf,
        /// With benchmark files: rewrite this README's summary between its markers.
        #[arg(long)]
        readme: Option<PathBuf>,
    },
    /// Check a structure of your own, run as a child process speaking the external
    /// protocol (docs/external-protocol.md), against the oracle.
    Verify(Box<commands::external::VerifyArgs>),
    /// Time a structure of your own (a child process speaking the external protocol) on
    /// the same op streams as every built-in structure.
    Bench(Box<commands::external::BenchArgs>),
    /// Record counted fuzz runs and add them up per structure (used by `ci/fuzz-campaign`).
    Campaign {
        #[command(subcommand)]
        action: commands::campaign::Action,
    },
    /// Apply a JSON-lines op stream from stdin; write one JSON outcome per line.
    Ops {
        /// The structure to drive.
        #[arg(long, value_parser = commands::replay::structure_values(("oracle", "the brute-force reference")))]
        structure: String,
        /// Number of resources.
        #[arg(long)]
        capacity: u32,
        /// Slot width.
        #[arg(long, default_value_t = 1)]
        slot: u64,
        /// Horizon past the present, a multiple of the slot.
        #[arg(long)]
        horizon: Option<u64>,
    },
}

/// Whether `path` holds benchmark results (anything else is read as a run file, which
/// reports its own errors).
fn is_benchmarks(path: &Path) -> bool {
    is_kind(path, is_bench_file)
}

/// Whether `path` is a JSON file of the kind `kind` recognises.
fn is_kind(path: &Path, kind: fn(&serde_json::Value) -> bool) -> bool {
    traces::limits::read_file(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|value| kind(&value))
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
        Command::Campaign { action } => commands::campaign::run(action),
        Command::Coreserve { action } => commands::coreserve::run(&action),
        Command::Report { runs, out, readme } => {
            let benchmarks = runs.iter().filter(|path| is_benchmarks(path)).count();
            let rspb = runs.iter().filter(|path| is_kind(path, is_rspb_file)).count();
            let page = if rspb > 0 {
                let [path] = runs.as_slice() else {
                    bail!("give one rspb results file alone ({rspb} of {} are)", runs.len());
                };
                report::rspb::render(&ResultsFile::read(path)?, &out, &command_line())?
            } else if benchmarks == 0 {
                if readme.is_some() {
                    bail!("--readme takes benchmark files; these are run files");
                }
                let runs = runs.iter().map(|path| RunFile::read(path)).collect::<Result<Vec<_>>>()?;
                report::render(&runs, &out, &command_line())?
            } else if benchmarks == runs.len() {
                let files = runs.iter().map(|path| BenchFile::read(path)).collect::<Result<Vec<_>>>()?;
                report::bench::render(&files, &out, &command_line(), readme.as_deref())?
            } else {
                bail!(
                    "give run files or benchmark files, not both ({benchmarks} of {} are benchmark files)",
                    runs.len()
                );
            };
            outln!("wrote {}", page.display())?;
            Ok(())
        }
        Command::Ops { structure, capacity, slot, horizon } => {
            let mut index = ops_stream::build(&structure, capacity, Config { slot, horizon })?;
            ops_stream::run(index.as_mut(), io::stdin().lock(), io::stdout().lock())?;
            Ok(())
        }
    }
}
