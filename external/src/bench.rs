//! `resbench bench --external`: the child's wall time per op on the same streams as
//! every built-in structure, beside the no-op adapter's (the protocol's own cost) and
//! the child's time less that. Only the ops are timed: building an index, starting a
//! child and its handshake are not.

use std::collections::BTreeSet;
use std::fmt;
use std::time::{Duration, Instant};

use oracle::{apply, OpKind};
use structures::Kind;

use super::child::ChildError;
use super::index::{External, StartError};
use super::streams::{Case, Stream};

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
    /// The child failed the protocol during the bench (a crash, a timeout, garbage).
    #[error("{child} failed during the bench: {fault}")]
    Fault {
        /// The name the child gave.
        child: String,
        /// What went wrong.
        fault: ChildError,
    },
}

/// One stream's row: µs per op, each the median over the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The stream's name.
    pub stream: &'static str,
    /// Ops timed per run (those the child supports).
    pub ops: usize,
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
    /// One row per stream.
    pub rows: Vec<Row>,
}

/// Keeps only the ops of `supported` kinds, so every contender runs the same ops.
fn filtered(stream: &Stream, supported: &BTreeSet<OpKind>) -> Vec<Case> {
    let keep = |case: &Case| Case {
        scenario: case.scenario,
        ops: case.ops.iter().filter(|op| supported.contains(&op.kind())).cloned().collect(),
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

/// The time a child takes over every case's ops, each case on a fresh child.
///
/// # Errors
/// The child cannot be started ([`BenchError::Start`]), or fails the protocol (a crash,
/// a timeout, garbage: [`BenchError::Fault`]).
pub fn time_external(external: &External, cases: &[Case]) -> Result<Duration, BenchError> {
    let mut total = Duration::ZERO;
    for case in cases {
        let (mut index, link) = external.start(case.scenario)?;
        let started = Instant::now();
        for op in &case.ops {
            apply(&mut index, op);
        }
        total += started.elapsed();
        if let Some(fault) = link.fault() {
            return Err(BenchError::Fault { child: link.name(), fault });
        }
        link.finish();
    }
    Ok(total)
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
    let mut rows = Vec::new();
    for stream in streams {
        let Some(first) = stream.cases.first() else { continue };
        let (_, link) = external.start(first.scenario)?;
        child = link.name();
        let cases = filtered(stream, &link.supports());
        link.finish();
        let ops = cases.iter().map(|c| c.ops.len()).sum();
        let builtin = Kind::ALL
            .iter()
            .copied()
            .map(|kind| (kind, median_us(ops, runs, || time_builtin(kind, &cases))))
            .collect();
        let external_us = median_us(ops, runs, || time_external(external, &cases))?;
        let (_, link) = noop.start(first.scenario).map_err(BenchError::StartNoop)?;
        noop_name = link.name();
        link.finish();
        let overhead = median_us(ops, runs, || time_external(noop, &cases))?;
        rows.push(Row { stream: stream.name, ops, builtin, external: external_us, overhead });
    }
    Ok(Table { child, noop: noop_name, runs, rows })
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
        Ok(())
    }
}
