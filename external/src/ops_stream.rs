//! `resbench ops`: drive any structure (or the oracle) from a JSON-lines op stream, one
//! outcome line per op, so other programs and other implementations can be compared.

use std::io::{self, BufRead, Write};
use std::str::Utf8Error;

use oracle::{apply, CountIndex, CountOp, CountOutcome, Counts, Op, Oracle, Outcome};
use serde::de::DeserializeOwned;
use serde::Serialize;
use structures::{AvailabilityIndex, Config, Cost, Kind, UnknownName};

use traces::limits::{self, Line};

/// One output line: the outcome, and the work done for `check` and `earliest`.
#[derive(Debug, Serialize)]
pub struct Record {
    /// What the op returned.
    pub result: Outcome,
    /// The structure's cost, where it records one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// Why `resbench ops` could not build the index it was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// No registered structure has the name (the message lists the known ones).
    #[error(transparent)]
    UnknownStructure(#[from] UnknownName),
    /// The structure (or the oracle) refuses the capacity or the configuration.
    #[error(transparent)]
    Config(#[from] structures::Error),
}

/// Why `resbench ops` stopped: a bad input line (named by its number) or an output error.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// Reading the line failed.
    #[error("stdin line {line}: cannot read")]
    Read {
        /// The line's number, from 1.
        line: usize,
        /// What the reader said.
        #[source]
        source: io::Error,
    },
    /// The line is longer than the limit.
    #[error("stdin line {line}: longer than {max} bytes (the line limit)")]
    TooLong {
        /// The line's number, from 1.
        line: usize,
        /// The limit, [`limits::MAX_LINE`].
        max: usize,
    },
    /// The line is not UTF-8.
    #[error("stdin line {line}: not UTF-8")]
    NotUtf8 {
        /// The line's number, from 1.
        line: usize,
        /// Where the bytes stop being UTF-8.
        #[source]
        source: Utf8Error,
    },
    /// The line is not an op.
    #[error("stdin line {line}: not an op: {quoted}")]
    NotAnOp {
        /// The line's number, from 1.
        line: usize,
        /// The start of the line, quoted ([`limits::quote`]): a bad line may be long.
        quoted: String,
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
    /// A record could not be encoded or written.
    #[error(transparent)]
    Encode(serde_json::Error),
    /// The output could not be written. It is the writer's own error, without a message
    /// around it, so that a caller can tell a closed pipe.
    #[error(transparent)]
    Write(io::Error),
}

/// Builds the named structure, or the oracle for `"oracle"`. A structure that needs a
/// horizon and is given none gets [`structures::registry::DEFAULT_HORIZON_SLOTS`] slots
/// ([`Kind::config_for`]), as everywhere else; the oracle runs unbounded.
///
/// # Errors
/// An unknown name or an invalid capacity or configuration ([`BuildError`]).
pub fn build(name: &str, capacity: u32, config: Config) -> Result<Box<dyn AvailabilityIndex>, BuildError> {
    if name == "oracle" {
        return Ok(Box::new(Oracle::new(capacity, config)?));
    }
    let kind: Kind = name.parse()?;
    Ok(kind.build(capacity, kind.config_for(config))?)
}

/// Applies every op line of `input` to `index`, writing one record line per op. Blank
/// lines are skipped.
///
/// # Errors
/// A line that is not an op (naming its number), longer than [`limits::MAX_LINE`], or
/// an I/O error ([`StreamError`]). Ops the index refuses are not errors: they produce a
/// `failed` record.
pub fn run(
    index: &mut dyn AvailabilityIndex,
    input: impl BufRead,
    output: impl Write,
) -> Result<usize, StreamError> {
    run_with(input, output, |op: Op| {
        let result = apply(index, &op);
        let cost = matches!(op, Op::Check { .. } | Op::Earliest { .. }).then(|| index.last_cost()).flatten();
        Record { result, cost }
    })
}

/// One output line of the count view.
#[derive(Debug, Serialize)]
pub struct CountRecord {
    /// What the op returned.
    pub result: CountOutcome,
}

/// [`run`] for the count view: count op lines ([`CountOp`]) applied to the count
/// reference.
///
/// # Errors
/// As [`run`].
pub fn run_counts(
    counts: &mut Counts,
    input: impl BufRead,
    output: impl Write,
) -> Result<usize, StreamError> {
    run_with(input, output, |op: CountOp| CountRecord { result: counts.apply_count(&op) })
}

/// Reads every line of `input` as an `O`, and writes what `apply` makes of it.
fn run_with<O: DeserializeOwned, R: Serialize>(
    mut input: impl BufRead,
    mut output: impl Write,
    mut apply: impl FnMut(O) -> R,
) -> Result<usize, StreamError> {
    let mut count = 0;
    let mut buf = Vec::new();
    for number in 1.. {
        let line = limits::read_line_or_stop(&mut input, &mut buf, limits::MAX_LINE)
            .map_err(|source| StreamError::Read { line: number, source })?;
        match line {
            Line::End => break,
            Line::TooLong => return Err(StreamError::TooLong { line: number, max: limits::MAX_LINE }),
            Line::Text => {}
        }
        let line =
            std::str::from_utf8(&buf).map_err(|source| StreamError::NotUtf8 { line: number, source })?;
        if line.trim().is_empty() {
            continue;
        }
        // The error quotes the start of the line only: a bad line may be long.
        let op: O = serde_json::from_str(line).map_err(|source| StreamError::NotAnOp {
            line: number,
            quoted: limits::quote(line),
            source,
        })?;
        serde_json::to_writer(&mut output, &apply(op)).map_err(StreamError::Encode)?;
        writeln!(output).map_err(StreamError::Write)?;
        count += 1;
    }
    output.flush().map_err(StreamError::Write)?;
    Ok(count)
}
