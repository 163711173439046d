//! The crate's errors: what failed and where. Where a step wraps a lower error (an I/O
//! or JSON error), the message ends with that error's text (`cannot read P: <why>`) and
//! the lower error is not also given as [`source`](std::error::Error::source), so
//! `{:#}` of an `anyhow::Error` built from one prints it once.

use std::path::PathBuf;

/// The crate's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a file could not be written, read, or turned into a report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Run files of a sweep made in shards miss some of its runs, or hold one twice.
    #[error("{have} run files of the {want} runs of `{command}`: {}", if have < want { "run every --shard K/N of it first" } else { "give each run's file once" })]
    IncompleteSweep {
        /// The sweep's command.
        command: String,
        /// The run files given.
        have: usize,
        /// The runs the sweep makes.
        want: usize,
    },
    /// A folder could not be created.
    #[error("cannot create {}: {}", path.display(), cause)]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A benchmark file could not be created: it exists already, or the folder is not
    /// writable.
    #[error("cannot create {} (results are never overwritten): {}", path.display(), cause)]
    CreateNew {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {}: {}", path.display(), cause)]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A file could not be read.
    #[error("cannot read {}: {}", path.display(), cause)]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// An input file could not be loaded: unreadable, past the file-size limit, or not
    /// UTF-8 (`traces::limits::read_file`'s error, which names the file).
    #[error("{cause}")]
    Load {
        /// What `read_file` says.
        cause: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// Results could not be encoded as JSON.
    #[error("cannot encode {what}: {}", cause)]
    Encode {
        /// What was encoded (`the run`, `the results`).
        what: &'static str,
        /// Why.
        cause: serde_json::Error,
    },
    /// A fuzz-campaign record could not be encoded as JSON.
    #[error(transparent)]
    EncodeRecord(serde_json::Error),
    /// A file is not JSON.
    #[error("{}: not JSON: {}", path.display(), cause)]
    NotJson {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: serde_json::Error,
    },
    /// A JSON file does not hold what it should.
    #[error("{}: not {kind}: {}", path.display(), cause)]
    Decode {
        /// The file.
        path: PathBuf,
        /// What it should hold (`a run file`, `a benchmark file`).
        kind: &'static str,
        /// Why.
        cause: serde_json::Error,
    },
    /// A JSON file that does not say it holds benchmark results.
    #[error("{}: not a benchmark file (no \"kind\": \"{kind}\")", path.display())]
    NotBenchFile {
        /// The file.
        path: PathBuf,
        /// The kind a benchmark file names.
        kind: &'static str,
    },
    /// A file of another schema version.
    #[error("{}: schema {found:?}, this build reads {reads}", path.display())]
    Schema {
        /// The file.
        path: PathBuf,
        /// The version it gives, if any.
        found: Option<u64>,
        /// The version this build reads.
        reads: u32,
    },
    /// A file whose values a report cannot use.
    #[error("{}: {why}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The first bad value.
        why: Invalid,
    },
    /// A line of a fuzz-campaign log that is not a record.
    #[error("{}:{line}: not a record: {}", path.display(), cause)]
    Record {
        /// The log.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// Why.
        cause: serde_json::Error,
    },
    /// A fuzz-campaign record with impossible counts.
    #[error(
        "{}:{line}: {cases} cases for {ops} ops and {divergences} divergences: a run counts at least one op a case and stops at its first divergence",
        path.display()
    )]
    Counts {
        /// The log.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// Cases counted.
        cases: u64,
        /// Ops counted.
        ops: u64,
        /// Divergences counted.
        divergences: u64,
    },
    /// A fuzz-campaign log with more than `limit` records.
    #[error("{}:{line}: more than {limit} records (the record limit)", path.display())]
    TooManyRecords {
        /// The log.
        path: PathBuf,
        /// The most records a log may hold.
        limit: usize,
        /// The line number of the first record past the limit, from 1.
        line: usize,
    },
    /// A fuzz-campaign log could not be opened for appending.
    #[error("{}: cannot open for appending: {}", path.display(), cause)]
    OpenAppend {
        /// The log.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A record could not be appended to a fuzz-campaign log.
    #[error("{}: cannot append: {}", path.display(), cause)]
    Append {
        /// The log.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A libFuzzer log without a `diff: N ops, M cases` line.
    #[error("no `diff: N ops, M cases` line: not a log of the diff target, or it ran no case")]
    NoProgressLine,
    /// A libFuzzer log without a status line.
    #[error("no libFuzzer status line (`#N ... cov: ... corp: ...`)")]
    NoStatusLine,
    /// A libFuzzer log line without the number it should have.
    #[error("no number after `{key}` in {line:?}")]
    NoNumber {
        /// The key the number should follow.
        key: &'static str,
        /// The line.
        line: String,
    },
    /// A README without the benchmark summary's markers.
    #[error("{}: no summary markers ({begin} … {end})", path.display())]
    NoMarkers {
        /// The README.
        path: PathBuf,
        /// The line the summary begins after.
        begin: &'static str,
        /// The line it ends before.
        end: &'static str,
    },
    /// A README whose end marker comes before its begin marker.
    #[error("{}: the summary markers are out of order", path.display())]
    MarkersOutOfOrder {
        /// The README.
        path: PathBuf,
    },
    /// No benchmark files to report on.
    #[error("no benchmark files")]
    NoBenchFiles,
    /// An RSPB results file with a figure this build does not know.
    #[error("the results hold figure {id}, which this build does not know")]
    UnknownFigure {
        /// The figure's number.
        id: String,
    },
    /// A plot with no points.
    #[error("no points to plot")]
    NoPoints,
    /// plotters could not draw a plot or write its file.
    #[error("cannot draw the plot: {cause}")]
    Plot {
        /// plotters' error.
        cause: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The polling model refused its parameters.
    #[error(transparent)]
    Polling(#[from] coreserve::polling::PollingError),
}

/// Why a run or benchmark file's values are refused (by `validate`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Invalid {
    /// A benchmark time that is negative, not finite, or a zero median.
    #[error(
        "results[{index}] ({structure} {operation} on {state}): {field} is {value:?}, not a positive finite time"
    )]
    Time {
        /// The result's index in `results`.
        index: usize,
        /// Its structure.
        structure: String,
        /// Its operation.
        operation: String,
        /// Its state.
        state: String,
        /// The field (`median_ns`, `low_ns`, `high_ns`, `mad_ns`).
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// A machine's memory that is negative or not finite.
    #[error("machine.memory_gib is {0:?}, not a finite size")]
    Memory(f64),
    /// A run on a machine of no resources.
    #[error("capacity 0: a machine has at least one resource")]
    Capacity,
    /// A share or time that is negative, not finite, or above its bound.
    #[error("{field} is {value:?}, not a number in 0..={max:?}")]
    OutOfRange {
        /// The field, as a path into the file (`schedule.utilisation`).
        field: &'static str,
        /// Its value.
        value: f64,
        /// The bound.
        max: f64,
    },
}
