//! `resbench report`: run files, benchmark files or an RSPB results file into a report.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use reporting::bench_file::{is_bench_file, BenchFile};
use reporting::report;
use reporting::run_file::RunFile;
use scheduling::rspb::results::{is_rspb_file, is_rspb_part, merge, PartFile, ResultsFile};

use crate::commands::command_line;

/// The report's command-line arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Run files written by `replay --out` (of every shard, for a sweep run in shards),
    /// benchmark files written by the benches crate's `record`, the results file of
    /// `rspb --figure`, or the part files of every shard of one (one kind at once).
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// The folder to write the report into.
    #[arg(long)]
    out: PathBuf,
    /// With benchmark files: rewrite this README's summary between its markers.
    #[arg(long)]
    readme: Option<PathBuf>,
}

/// Whether `path` is a JSON file of the kind `kind` recognises (anything else is read as
/// a run file, which reports its own errors).
fn is_kind(path: &Path, kind: fn(&serde_json::Value) -> bool) -> bool {
    traces::limits::read_file(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|value| kind(&value))
}

/// Runs the command.
pub fn run(args: &Args) -> Result<()> {
    let Args { runs, out, readme } = args;
    let benchmarks = runs.iter().filter(|path| is_kind(path, is_bench_file)).count();
    let rspb = runs.iter().filter(|path| is_kind(path, is_rspb_file)).count();
    let parts = runs.iter().filter(|path| is_kind(path, is_rspb_part)).count();
    let page = if parts > 0 {
        if parts < runs.len() {
            bail!("give the rspb part files alone ({parts} of {} are)", runs.len());
        }
        let parts =
            runs.iter().map(|path| Ok((path.clone(), PartFile::read(path)?))).collect::<Result<Vec<_>>>()?;
        let file = merge(&parts)?;
        outln!("wrote {}", file.write(out)?.display())?;
        // The parts add up to the sweep, whose command regenerates the page as it is.
        report::rspb::render(&file, out, &file.command)?
    } else if rspb > 0 {
        let [path] = runs.as_slice() else {
            bail!("give one rspb results file alone ({rspb} of {} are)", runs.len());
        };
        report::rspb::render(&ResultsFile::read(path)?, out, &command_line())?
    } else if benchmarks == 0 {
        if readme.is_some() {
            bail!("--readme takes benchmark files; these are run files");
        }
        let runs = runs.iter().map(|path| RunFile::read(path)).collect::<Result<Vec<_>, _>>()?;
        report::render(&runs, out, &command_line())?
    } else if benchmarks == runs.len() {
        let files = runs.iter().map(|path| BenchFile::read(path)).collect::<Result<Vec<_>, _>>()?;
        report::bench::render(&files, out, &command_line(), readme.as_deref())?
    } else {
        bail!(
            "give run files or benchmark files, not both ({benchmarks} of {} are benchmark files)",
            runs.len()
        );
    };
    outln!("wrote {}", page.display())?;
    Ok(())
}
