//! Counted fuzz campaigns: one [`Record`] per run of the `diff` fuzz target on one
//! structure, appended by `ci/fuzz-campaign` to `reports/fuzz/campaigns.jsonl`, and the
//! [`table`] that adds them up per structure (`reports/fuzz/index.md`).
//!
//! The log is append-only: runs add up, across revisions and machines, and each record
//! says which revision and machine it ran on.

use std::fmt::Write as _;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use structures::Kind;

use crate::error::{Error, Result};

/// The ops per structure a campaign aims at (issue 20's bar).
pub const TARGET_OPS: u64 = 100_000_000;

/// The most records a log may hold (one line each, so the table stays cheap to build).
pub const MAX_RECORDS: usize = 100_000;

/// One run of the `diff` target on one structure: where and how it ran, and what its log
/// counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The structure fuzzed beside the oracle.
    pub structure: Kind,
    /// When the run started (UTC, RFC 3339).
    pub date: String,
    /// The time asked of libFuzzer (`-max_total_time`), in seconds.
    pub seconds: u64,
    /// The git revision fuzzed (`-dirty` when tracked files differed from it).
    pub revision: String,
    /// The machine it ran on.
    pub machine: String,
    /// How the target was built (the `cargo fuzz build` flags).
    pub build: String,
    /// What the run's log counted.
    pub outcome: Outcome,
}

/// What a libFuzzer log of the `diff` target counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// Ops applied to the structure and the oracle, as of the run's last progress line
    /// (printed at most once a second, so a lower bound).
    pub ops: u64,
    /// Cases run, as of the same line.
    pub cases: u64,
    /// Divergences found (a divergence ends the run, so 0 or 1).
    pub divergences: u64,
    /// Inputs in the corpus at the end.
    pub corpus: u64,
    /// Coverage at the end: libFuzzer's `cov` (edges reached).
    pub coverage: u64,
    /// libFuzzer's `ft` at the end (features: edges with hit counts).
    pub features: u64,
}

/// The number after `key` in `line` (`cov: 1918` gives 1918), up to a non-digit.
fn number_after(line: &str, key: &str) -> Option<u64> {
    let rest = &line[line.find(key)? + key.len()..];
    let digits: String = rest.trim_start().chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

impl Outcome {
    /// Reads the counts from a `diff` target's log: its last `diff: N ops, M cases`
    /// line, its last libFuzzer status line (`cov: … ft: … corp: …`), and whether it
    /// printed a divergence.
    ///
    /// # Errors
    /// [`Error::NoProgressLine`] or [`Error::NoStatusLine`] when the log has no `diff:`
    /// line or no status line (not a run of `diff`, or one that ended before it
    /// started), and [`Error::NoNumber`] when one of them lacks a count.
    pub fn parse(log: &str) -> Result<Outcome> {
        let progress = log.lines().rfind(|line| line.starts_with("diff: ")).ok_or(Error::NoProgressLine)?;
        let status = log
            .lines()
            .rfind(|line| line.starts_with('#') && line.contains(" cov: "))
            .ok_or(Error::NoStatusLine)?;
        let field = |line: &str, key: &'static str| {
            number_after(line, key).ok_or_else(|| Error::NoNumber { key, line: line.to_owned() })
        };
        Ok(Outcome {
            ops: field(progress, "diff:")?,
            cases: field(progress, "ops,")?,
            divergences: u64::from(log.contains(" diverged from the oracle: ")),
            corpus: field(status, "corp:")?,
            coverage: field(status, "cov:")?,
            features: field(status, "ft:")?,
        })
    }
}

/// Appends `record` to the log at `path` as one JSON line, in a single write so that
/// runs in parallel do not interleave.
///
/// # Errors
/// [`Error::OpenAppend`] or [`Error::Append`] when the file cannot be opened or
/// written ([`Error::EncodeRecord`] cannot happen to a well-formed record).
pub fn append(path: &Path, record: &Record) -> Result<()> {
    let mut line = serde_json::to_string(record).map_err(Error::EncodeRecord)?;
    line.push('\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|cause| Error::OpenAppend { path: path.to_owned(), cause })?;
    file.write_all(line.as_bytes()).map_err(|cause| Error::Append { path: path.to_owned(), cause })
}

/// Reads every record of the log at `path`.
///
/// # Errors
/// [`Error::Record`] for a line that is not a record (naming its number),
/// [`Error::Counts`] for a record whose counts are impossible,
/// [`Error::TooManyRecords`] past [`MAX_RECORDS`] lines, or [`Error::Load`] for a file
/// that cannot be read or is past the size limit.
pub fn read(path: &Path) -> Result<Vec<Record>> {
    let text = traces::limits::read_file(path).map_err(|e| Error::Load { cause: e.into() })?;
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let line_no = i + 1;
        if records.len() == MAX_RECORDS {
            return Err(Error::TooManyRecords { path: path.to_owned(), limit: MAX_RECORDS, line: line_no });
        }
        let record: Record = serde_json::from_str(line).map_err(|cause| Error::Record {
            path: path.to_owned(),
            line: line_no,
            cause,
        })?;
        let Outcome { ops, cases, divergences, .. } = record.outcome;
        if cases > ops || divergences > 1 {
            return Err(Error::Counts { path: path.to_owned(), line: line_no, cases, ops, divergences });
        }
        records.push(record);
    }
    Ok(records)
}

/// One structure's sums over its records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Sums {
    runs: u64,
    seconds: u64,
    ops: u64,
    cases: u64,
    divergences: u64,
    corpus: u64,
    coverage: u64,
    revisions: Vec<String>,
}

/// The campaign page: per structure (in registry order), the runs, time, ops, cases and
/// divergences added up, the largest corpus and coverage reached, and whether it reached
/// [`TARGET_OPS`] with no divergence; then the machines the runs used.
pub fn table(records: &[Record]) -> String {
    let mut sums: Vec<(Kind, Sums)> = Kind::ALL.iter().map(|&kind| (kind, Sums::default())).collect();
    for Record { structure, seconds, revision, outcome, .. } in records {
        let Some((_, sum)) = sums.iter_mut().find(|(kind, _)| kind == structure) else {
            continue;
        };
        sum.runs += 1;
        sum.seconds = sum.seconds.saturating_add(*seconds);
        sum.ops = sum.ops.saturating_add(outcome.ops);
        sum.cases = sum.cases.saturating_add(outcome.cases);
        sum.divergences += outcome.divergences;
        sum.corpus = sum.corpus.max(outcome.corpus);
        sum.coverage = sum.coverage.max(outcome.coverage);
        if !sum.revisions.contains(revision) {
            sum.revisions.push(revision.clone());
        }
    }
    let mut page = String::from(
        "# Fuzz campaigns\n\n\
         Generated by `resbench campaign table` from `campaigns.jsonl`, which `ci/fuzz-campaign` \
         appends to: one record per run of the `diff` target on one structure, beside the \
         oracle, comparing everything after every op. Ops are counted at each run's last \
         progress line, so the sums are lower bounds.\n\n",
    );
    let _ = writeln!(
        page,
        "| structure | runs | fuzzing time | ops | cases | divergences | largest corpus | largest coverage (edges) | revisions | ≥ {} ops, 0 divergences |",
        group(TARGET_OPS)
    );
    page.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (kind, sum) in &sums {
        let met = if sum.ops >= TARGET_OPS && sum.divergences == 0 { "yes" } else { "no" };
        let _ = writeln!(
            page,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {met} |",
            kind.name(),
            sum.runs,
            hours(sum.seconds),
            group(sum.ops),
            group(sum.cases),
            sum.divergences,
            group(sum.corpus),
            group(sum.coverage),
            sum.revisions.join(", ")
        );
    }
    let mut machines: Vec<&str> = records.iter().map(|r| r.machine.as_str()).collect();
    machines.sort_unstable();
    machines.dedup();
    let mut builds: Vec<&str> = records.iter().map(|r| r.build.as_str()).collect();
    builds.sort_unstable();
    builds.dedup();
    let _ = writeln!(page, "\nMachines: {}.\n\nBuilds: {}.", list(&machines), list(&builds));
    page
}

/// `a`, `b` and `c` (code-quoted), or "none".
fn list(items: &[&str]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items.iter().map(|item| format!("`{item}`")).collect::<Vec<_>>().join("; ")
}

/// `n` with thousands separated by commas.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Seconds as hours and minutes (`1 h 05 min`).
fn hours(seconds: u64) -> String {
    format!("{} h {:02} min", seconds / 3600, seconds % 3600 / 60)
}
