//! `resbench ops`: drive any structure (or the oracle) from a JSON-lines op stream, one
//! outcome line per op, so other programs and other implementations can be compared.

use std::io::{BufRead, Write};

use anyhow::{bail, Context, Result};
use oracle::{apply, Op, Oracle, Outcome};
use serde::Serialize;
use structures::{AvailabilityIndex, Config, Cost, Kind};

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

/// Builds the named structure, or the oracle for `"oracle"`. A structure that needs a
/// horizon and is given none gets [`structures::registry::DEFAULT_HORIZON_SLOTS`] slots
/// ([`Kind::config_for`]), as everywhere else; the oracle runs unbounded.
///
/// # Errors
/// An unknown name or an invalid capacity or configuration.
pub fn build(name: &str, capacity: u32, config: Config) -> Result<Box<dyn AvailabilityIndex>> {
    if name == "oracle" {
        return Ok(Box::new(Oracle::new(capacity, config)?));
    }
    let kind: Kind = name.parse().map_err(anyhow::Error::msg)?;
    Ok(kind.build(capacity, kind.config_for(config))?)
}

/// Applies every op line of `input` to `index`, writing one record line per op. Blank
/// lines are skipped.
///
/// # Errors
/// A line that is not an op (naming its number), longer than [`limits::MAX_LINE`], or
/// an I/O error. Ops the index refuses
/// are not errors: they produce a `failed` record.
pub fn run(
    index: &mut dyn AvailabilityIndex,
    mut input: impl BufRead,
    mut output: impl Write,
) -> Result<usize> {
    let mut count = 0;
    let mut buf = Vec::new();
    for number in 1.. {
        let line = limits::read_line_or_stop(&mut input, &mut buf, limits::MAX_LINE)
            .with_context(|| format!("stdin line {number}: cannot read"))?;
        match line {
            Line::End => break,
            Line::TooLong => {
                bail!("stdin line {number}: longer than {} bytes (the line limit)", limits::MAX_LINE)
            }
            Line::Text => {}
        }
        let line = std::str::from_utf8(&buf).with_context(|| format!("stdin line {number}: not UTF-8"))?;
        if line.trim().is_empty() {
            continue;
        }
        // The error quotes the start of the line only: a bad line may be long.
        let op: Op = serde_json::from_str(line)
            .with_context(|| format!("stdin line {number}: not an op: {}", limits::quote(line)))?;
        let result = apply(index, &op);
        let cost = matches!(op, Op::Check { .. } | Op::Earliest { .. }).then(|| index.last_cost()).flatten();
        serde_json::to_writer(&mut output, &Record { result, cost })?;
        writeln!(output)?;
        count += 1;
    }
    output.flush()?;
    Ok(count)
}
