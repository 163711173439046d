//! The `resbench` command line.

mod replay_command;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use resbench::run_file::RunFile;
use resbench::{command_line, ops_stream, report};
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
    Replay(Box<replay_command::Args>),
    /// Turn run files into `index.md` and `index.html` with SVG plots.
    Report {
        /// Run files written by `replay --out`.
        #[arg(required = true)]
        runs: Vec<PathBuf>,
        /// The folder to write the report into.
        #[arg(long)]
        out: PathBuf,
    },
    /// Apply a JSON-lines op stream from stdin; write one JSON outcome per line.
    Ops {
        /// A structure name, or `oracle`.
        #[arg(long)]
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

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Replay(args) => replay_command::run(&args),
        Command::Report { runs, out } => {
            let runs = runs.iter().map(|path| RunFile::read(path)).collect::<Result<Vec<_>>>()?;
            let page = report::render(&runs, &out, &command_line())?;
            println!("wrote {}", page.display());
            Ok(())
        }
        Command::Ops { structure, capacity, slot, horizon } => {
            let mut index = ops_stream::build(&structure, capacity, Config { slot, horizon })?;
            ops_stream::run(index.as_mut(), io::stdin().lock(), io::stdout().lock())?;
            Ok(())
        }
    }
}
