//! `resbench bench --external`: the child's wall time per op on the same streams as
//! every built-in structure, beside the no-op adapter's (the protocol's own cost) and
//! the child's time less that. Only the ops are timed: building an index, starting a
//! child and its handshake are not. Cases the child declines at the handshake, or fails
//! on (a crash, a timeout, garbage, a reported error), are found in a first run, left out
//! of every contender's timing, and counted.

use std::collections::BTreeSet;
use std::fmt;
use std::time::{Duration, Instant};

use oracle::{apply, CountIndex, CountOp, Op, OpKind};
use structures::{Kind, Time};

use super::child::ChildError;
use super::index::{External, StartError};
use super::protocol::{HandshakeError, Semantics};
use super::streams::{Case, Stream};
use super::verify::{domain_end, names_times_within};

/// Why a contender could not be timed on a stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BenchError {
    /// A built-in structure cannot take a case's configuration.
    #[error(transparent)]
    Build(#[from] structures::Error),
    /// The child cannot be started.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The no-op adapter cannot be started.
    #[error("the no-op adapter: {0}")]
    StartNoop(StartError),
    /// The child failed on a case it had passed in the first run.
    #[error("{child} failed during the bench, on case {case} of the {stream} stream, which it passed before: {fault}")]
    Fault {
        /// The name the child gave.
        child: String,
        /// The stream.
        stream: &'static str,
        /// The case, from 1.
        case: usize,
        /// What went wrong.
        fault: ChildError,
    },
    /// The child declined or failed every case of every stream: nothing to time.
    #[error("nothing was measured: {0}")]
    NothingRan(String),
}

/// A case left out of the timing, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// The case, from 1.
    pub case: usize,
    /// Whether the child declined it at the handshake (else it failed on it).
    pub declined: bool,
    /// What the child said, or how it failed.
    pub why: String,
}

/// One stream's row: µs per op, each the median over the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The stream's name.
    pub stream: &'static str,
    /// Ops timed per run (those the child supports, in the cases it ran cleanly).
    pub ops: usize,
    /// Cases left out: declined at the handshake, or failed on in the first run.
    pub skipped: Vec<Skip>,
    /// Each built-in structure's µs per op, or why it could not run the stream.
    pub builtin: Vec<(Kind, Result<f64, BenchError>)>,
    /// The child's µs per op, protocol included.
    pub external: f64,
    /// The no-op adapter's µs per op: the protocol's own cost.
    pub overhead: f64,
}

/// The table `bench --external` prints.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The child's name.
    pub child: String,
    /// The no-op adapter's name.
    pub noop: String,
    /// Runs each median is taken over.
    pub runs: usize,
    /// One row per stream measured.
    pub rows: Vec<Row>,
    /// Why each stream not measured was not: the child declined or failed all its cases.
    pub unmeasured: Vec<String>,
}

/// Keeps only the ops of `supported` kinds that name no time past the child's `largest`
/// (the bench does not ask the oracle, so an `earliest` whose answer passes it is still
/// sent), so every contender runs the same ops.
fn filtered(stream: &Stream, supported: &BTreeSet<OpKind>, largest: Time) -> Vec<Case> {
    let keep = |case: &Case| {
        let domain = domain_end(largest, case.scenario.config.slot);
        let sent = |op: &&Op| supported.contains(&op.kind()) && names_times_within(op, domain);
        Case { scenario: case.scenario, ops: case.ops.iter().filter(sent).cloned().collect() }
    };
    stream.cases.iter().map(keep).collect()
}

/// The time `kind` takes over every case's ops, each case on a fresh index.
///
/// # Errors
/// The structure cannot take a case's configuration ([`BenchError::Build`], saying
/// which).
pub fn time_builtin(kind: Kind, cases: &[Case]) -> Result<Duration, BenchError> {
    let mut total = Duration::ZERO;
    for case in cases {
        let config = kind.config_for(case.scenario.config);
        let mut index = kind.build(case.scenario.capacity, config)?;
        let started = Instant::now();
        for op in &case.ops {
            apply(index.as_mut(), op);
        }
        total += started.elapsed();
    }
    Ok(total)
}

/// One timed case on a child: its time, or why it was not run through.
enum Ran {
    Timed(Duration),
    Declined(String),
    Failed(String, ChildError),
}

/// Times one case on a fresh (or reset) child, sending each op in the form its
/// semantics takes.
///
/// # Errors
/// The child cannot be started other than by declining the case ([`BenchError::Start`]).
fn time_case(external: &External, case: &Case) -> Result<Ran, BenchError> {
    let (mut index, link) = match external.start(case.scenario) {
        Err(StartError::Handshake(HandshakeError::Refused(why))) => return Ok(Ran::Declined(why)),
        other => other?,
    };
    let counts = link.semantics() == Semantics::Counts;
    let started = Instant::now();
    for op in &case.ops {
        match CountOp::of(op).filter(|_| counts) {
            Some(count) => drop(index.apply_count(&count)),
            None => drop(apply(&mut index, op)),
        }
    }
    let elapsed = started.elapsed();
    let ran = match link.fault() {
        Some(fault) => Ran::Failed(link.name(), fault),
        None => Ran::Timed(elapsed),
    };
    link.finish();
    Ok(ran)
}

/// The time a child takes over every case's ops, each case on a fresh (or reset) child.
/// `numbers` are the cases' numbers in their stream, for errors.
///
/// # Errors
/// The child cannot be started ([`BenchError::Start`]), or declines or fails a case
/// ([`BenchError::Fault`]; `stream` names it): [`bench`] leaves such cases out first.
pub fn time_external(
    external: &External,
    stream: &'static str,
    cases: &[Case],
    numbers: &[usize],
) -> Result<Duration, BenchError> {
    let mut total = Duration::ZERO;
    for (i, case) in cases.iter().enumerate() {
        let case_number = numbers.get(i).copied().unwrap_or(i + 1);
        let fault = match time_case(external, case)? {
            Ran::Timed(elapsed) => {
                total += elapsed;
                continue;
            }
            Ran::Declined(why) => (
                external.command.clone(),
                ChildError::Protocol(format!("it declined the case at the handshake: {why}")),
            ),
            Ran::Failed(child, fault) => (child, fault),
        };
        return Err(BenchError::Fault { child: fault.0, stream, case: case_number, fault: fault.1 });
    }
    Ok(total)
}

/// The cases the child runs cleanly (with their numbers in the stream), and those it
/// declines or fails on, from one run.
///
/// # Errors
/// The child cannot be started ([`BenchError::Start`]).
fn clean_cases(external: &External, cases: &[Case]) -> Result<Clean, BenchError> {
    let (mut kept, mut numbers, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    for (i, case) in cases.iter().enumerate() {
        match time_case(external, case)? {
            Ran::Timed(_) => {
                kept.push(case.clone());
                numbers.push(i + 1);
            }
            Ran::Declined(why) => skipped.push(Skip { case: i + 1, declined: true, why }),
            Ran::Failed(_, fault) => {
                skipped.push(Skip { case: i + 1, declined: false, why: fault.to_string() })
            }
        }
    }
    Ok(Clean { cases: kept, numbers, skipped })
}

/// A stream's cases after a first run: those the child ran cleanly and their numbers in
/// the stream, and those left out.
struct Clean {
    cases: Vec<Case>,
    numbers: Vec<usize>,
    skipped: Vec<Skip>,
}

/// µs per op over `ops` ops: the median of `runs` timings.
fn median_us(
    ops: usize,
    runs: usize,
    mut time: impl FnMut() -> Result<Duration, BenchError>,
) -> Result<f64, BenchError> {
    let mut each = (0..runs.max(1))
        .map(|_| time().map(|d| d.as_secs_f64() * 1e6 / ops.max(1) as f64))
        .collect::<Result<Vec<f64>, BenchError>>()?;
    each.sort_by(f64::total_cmp);
    Ok(each[each.len() / 2])
}

/// Times every built-in structure, the child and the no-op adapter on every stream, as
/// the median of `runs` runs, on the ops of the kinds the child supports.
///
/// # Errors
/// The child or the no-op adapter cannot be started or fails the protocol
/// ([`BenchError`]).
pub fn bench(
    external: &External,
    noop: &External,
    streams: &[Stream],
    runs: usize,
) -> Result<Table, BenchError> {
    let (mut child, mut noop_name) = (String::new(), String::new());
    let (mut rows, mut unmeasured) = (Vec::new(), Vec::new());
    for stream in streams {
        // The first case the child takes says what it answers.
        let (mut link, mut declined) = (None, None);
        for case in &stream.cases {
            match external.start(case.scenario) {
                Ok((_, taken)) => {
                    link = Some(taken);
                    break;
                }
                Err(StartError::Handshake(HandshakeError::Refused(why))) => drop(declined.get_or_insert(why)),
                Err(other) => return Err(other.into()),
            }
        }
        let Some(link) = link else {
            let why = declined.map_or_else(
                || "it has no case".to_owned(),
                |why| format!("the child declined every case (first: {why})"),
            );
            unmeasured.push(format!("{}: not measured: {why}", stream.name));
            continue;
        };
        child = link.name();
        let (supports, largest) = (link.supports(), link.largest_time());
        link.finish();
        let Clean { cases, numbers, skipped } = clean_cases(external, &filtered(stream, &supports, largest))?;
        let Some(first) = cases.first() else {
            let why =
                skipped.first().map_or_else(String::new, |s| format!(" (first: case {}, {})", s.case, s.why));
            unmeasured
                .push(format!("{}: not measured: the child ran none of its cases cleanly{why}", stream.name));
            continue;
        };
        let ops = cases.iter().map(|c| c.ops.len()).sum();
        let builtin = Kind::ALL
            .iter()
            .copied()
            .map(|kind| (kind, median_us(ops, runs, || time_builtin(kind, &cases))))
            .collect();
        let external_us = median_us(ops, runs, || time_external(external, stream.name, &cases, &numbers))?;
        let (_, link) = noop.start(first.scenario).map_err(BenchError::StartNoop)?;
        noop_name = link.name();
        link.finish();
        let overhead = median_us(ops, runs, || time_external(noop, stream.name, &cases, &numbers))?;
        rows.push(Row { stream: stream.name, ops, skipped, builtin, external: external_us, overhead });
    }
    if rows.is_empty() {
        return Err(BenchError::NothingRan(unmeasured.join("; ")));
    }
    Ok(Table { child, noop: noop_name, runs, rows, unmeasured })
}

impl fmt::Display for Table {
    /// One row per stream: every built-in structure, the child, the no-op adapter, and
    /// the child less the no-op.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "µs per op, median of {} runs: one machine's wall time, ops only (not building an index, \
             starting a child or its handshake)",
            self.runs
        )?;
        writeln!(
            f,
            "{}: the child, protocol included; overhead: the no-op adapter {} (the protocol's own cost); \
             net: the child less the overhead",
            self.child, self.noop
        )?;
        let mut notes = Vec::new();
        write!(f, "{:<9} {:>7}", "stream", "ops")?;
        for &kind in Kind::ALL {
            write!(f, " {:>9}", kind.name())?;
        }
        writeln!(f, " {:>10} {:>9} {:>9}", "external", "overhead", "net")?;
        for row in &self.rows {
            write!(f, "{:<9} {:>7}", row.stream, row.ops)?;
            for (kind, us) in &row.builtin {
                match us {
                    Ok(us) => write!(f, " {us:>9.3}")?,
                    Err(why) => {
                        write!(f, " {:>9}", "-")?;
                        notes.push(format!("{kind} did not run the {} stream: {why}", row.stream));
                    }
                }
            }
            let net = row.external - row.overhead;
            writeln!(f, " {:>10.3} {:>9.3} {net:>9.3}", row.external, row.overhead)?;
        }
        for note in notes {
            writeln!(f, "{note}")?;
        }
        for line in &self.unmeasured {
            writeln!(f, "{line}")?;
        }
        for row in &self.rows {
            let declined: Vec<&Skip> = row.skipped.iter().filter(|s| s.declined).collect();
            let failed: Vec<&Skip> = row.skipped.iter().filter(|s| !s.declined).collect();
            for (skips, how) in
                [(declined, "declined at the handshake"), (failed, "failed on in a first run")]
            {
                if let Some(first) = skips.first() {
                    writeln!(
                        f,
                        "{}: {} case(s) the child {how} were left out of every contender's timing (first: case {}, {})",
                        row.stream,
                        skips.len(),
                        first.case,
                        first.why.lines().next().unwrap_or_default()
                    )?;
                }
            }
        }
        Ok(())
    }
}
