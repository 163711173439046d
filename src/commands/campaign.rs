//! `resbench campaign`: record a fuzz run, and add the records up (see
//! `reporting::fuzz_campaign` and `ci/fuzz-campaign`).

use std::fs;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use reporting::fuzz_campaign::{self, Outcome, Record};
use structures::Kind;

/// What `campaign` does.
#[derive(Subcommand)]
pub enum Action {
    /// Read a `diff` fuzz run's libFuzzer log and append its record to the campaign log.
    Record(Box<RecordArgs>),
    /// Write the per-structure table of a campaign log.
    Table {
        /// The campaign log.
        #[arg(long, default_value = "reports/fuzz/campaigns.jsonl")]
        from: PathBuf,
        /// The page to write.
        #[arg(long, default_value = "reports/fuzz/index.md")]
        out: PathBuf,
        /// Write nothing; fail if the page differs from what it would be.
        #[arg(long)]
        check: bool,
    },
    /// Print the names of the structures a campaign fuzzes, one a line.
    Structures,
}

/// The facts of one run that its log does not hold.
#[derive(Args)]
pub struct RecordArgs {
    /// The structure the run fuzzed.
    #[arg(long)]
    structure: Kind,
    /// The run's libFuzzer output (stderr and stdout).
    #[arg(long)]
    log: PathBuf,
    /// The time asked of libFuzzer, in seconds.
    #[arg(long)]
    seconds: u64,
    /// When the run started (UTC, RFC 3339).
    #[arg(long)]
    date: String,
    /// The git revision fuzzed.
    #[arg(long)]
    revision: String,
    /// The machine it ran on.
    #[arg(long)]
    machine: String,
    /// How the target was built.
    #[arg(long)]
    build: String,
    /// The campaign log to append to.
    #[arg(long, default_value = "reports/fuzz/campaigns.jsonl")]
    to: PathBuf,
}

/// Runs `action`.
///
/// # Errors
/// An unreadable or malformed log, an unwritable output, or (with `--check`) a page
/// that is not current.
pub fn run(action: Action) -> Result<()> {
    match action {
        Action::Record(args) => {
            let text = traces::limits::read_file(&args.log).map_err(anyhow::Error::msg)?;
            let outcome = Outcome::parse(&text).with_context(|| args.log.display().to_string())?;
            let record = Record {
                structure: args.structure,
                date: args.date,
                seconds: args.seconds,
                revision: args.revision,
                machine: args.machine,
                build: args.build,
                outcome,
            };
            fuzz_campaign::append(&args.to, &record)?;
            outln!("{}", serde_json::to_string(&record)?)?;
            Ok(())
        }
        Action::Table { from, out, check } => {
            let page = fuzz_campaign::table(&fuzz_campaign::read(&from)?);
            if check {
                let current =
                    fs::read_to_string(&out).with_context(|| format!("{}: cannot read", out.display()))?;
                if current != page {
                    bail!(
                        "{} is not the table of {}: run `resbench campaign table`",
                        out.display(),
                        from.display()
                    );
                }
                return Ok(());
            }
            fs::write(&out, page).with_context(|| format!("{}: cannot write", out.display()))?;
            outln!("wrote {}", out.display())?;
            Ok(())
        }
        Action::Structures => {
            for kind in Kind::ALL {
                outln!("{}", kind.name())?;
            }
            Ok(())
        }
    }
}
