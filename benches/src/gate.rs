//! The CI gate: the current work and instruction counts against a committed baseline.

use std::fs;
use std::num::ParseIntError;
use std::path::{Path, PathBuf};

use oracle::OpKind;
use serde::{Deserialize, Serialize};

use crate::files::{read_json, read_text, FileError, ReadDirError};
use crate::instructions::CaseError;
use crate::work::Work;

/// Instructions (callgrind `Ir`) of one gungraun benchmark: the seeded calls of one
/// operation of one structure on one state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instructions {
    /// The structure.
    pub structure: String,
    /// The operation.
    pub op: OpKind,
    /// The state.
    pub state: String,
    /// Instructions executed by the calls (setup excluded).
    pub instructions: u64,
}

/// What the gate compares: `ci/baseline.json`, and what `work` measures now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Measurements {
    /// The deterministic work suite.
    pub work: Vec<Work>,
    /// The gungraun instruction counts (empty when they were not measured, which the gate
    /// refuses).
    pub instructions: Vec<Instructions>,
}

fn growth(before: u64, after: u64) -> f64 {
    match (before, after) {
        (0, 0) => 0.0,
        (0, _) => f64::INFINITY,
        _ => 100.0 * (after as f64 - before as f64) / before as f64,
    }
}

/// Each baseline measurement with its place ("structure op on state") and the current
/// measurement at that place, if any.
fn pair_up<'a, T>(
    baseline: &'a [T],
    current: &'a [T],
    key: fn(&T) -> (&String, OpKind, &String),
) -> impl Iterator<Item = (String, &'a T, Option<&'a T>)> {
    baseline.iter().map(move |base| {
        let (structure, op, state) = key(base);
        let now = current.iter().find(|m| key(m) == key(base));
        (format!("{structure} {op} on {state}"), base, now)
    })
}

/// Every way `current` is worse than `baseline` by more than `threshold` percent, or
/// misses a measurement the baseline has; empty when the change passes. A kind of
/// measurement the baseline has and `current` lacks altogether (an emptied gungraun
/// folder, say) fails once, saying so, rather than once per place.
pub fn regressions(baseline: &Measurements, current: &Measurements, threshold: f64) -> Vec<String> {
    let mut failures = Vec::new();
    for (what, base, now) in [
        ("work", baseline.work.len(), current.work.len()),
        ("instruction", baseline.instructions.len(), current.instructions.len()),
    ] {
        if now == 0 && base > 0 {
            failures.push(format!("read no {what} measurement, where the baseline has {base}"));
        }
    }
    if !failures.is_empty() {
        return failures;
    }
    let mut check = |place: String, what: &str, before: u64, after: Option<u64>| match after {
        None => failures.push(format!("{place}: {what} no longer measured")),
        Some(after) if growth(before, after) > threshold => failures.push(format!(
            "{place}: {what} {before} -> {after} ({:+.1} %), over the {threshold} % limit",
            growth(before, after)
        )),
        Some(_) => {}
    };
    for (place, base, now) in pair_up(&baseline.work, &current.work, |w| (&w.structure, w.op, &w.state)) {
        check(place.clone(), "visited", base.visited, now.map(|w| w.visited));
        check(place, "search", base.search, now.map(|w| w.search));
    }
    let (base, now) = (&baseline.instructions, &current.instructions);
    for (place, base, now) in pair_up(base, now, |i| (&i.structure, i.op, &i.state)) {
        check(place, "instructions", base.instructions, now.map(|i| i.instructions));
    }
    failures
}

/// Why a callgrind output file gives no allocator count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallgrindError {
    /// No `events:` line.
    #[error("no events line")]
    NoEvents,
    /// An `events:` line without `Ir`.
    #[error("no Ir event")]
    NoIr,
    /// A call cost that is not a number.
    #[error("call cost {line:?}: {error}")]
    CallCost {
        /// The cost line.
        line: String,
        /// Why it does not parse.
        error: ParseIntError,
    },
}

/// Why a benchmark tool's results (criterion's or gungraun's) could not be read, naming
/// the file or folder.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// A folder under the results cannot be read.
    #[error(transparent)]
    Walk(#[from] ReadDirError),
    /// A result, a summary, its folder or a callgrind output beside it cannot be read, or
    /// a result or summary is not JSON.
    #[error(transparent)]
    File(#[from] FileError),
    /// A summary whose benchmark id names no case of the plan.
    #[error("{}: {error}", path.display())]
    Case {
        /// The summary.
        path: PathBuf,
        /// Why.
        error: CaseError,
    },
    /// A result or summary without a field this version of its tool writes, a summary
    /// without callgrind outputs beside it, or one whose allocator count exceeds its total.
    #[error("{}: {what}", path.display())]
    Missing {
        /// The result's folder or the summary.
        path: PathBuf,
        /// What is missing or wrong (a field as a path of keys joined by dots).
        what: String,
    },
    /// A callgrind output that gives no allocator count.
    #[error("{}: {error}", path.display())]
    Callgrind {
        /// The callgrind output.
        path: PathBuf,
        /// Why.
        error: CallgrindError,
    },
}

/// Rust's allocator entry points: every allocation, reallocation and free of the measured
/// calls goes through one of them, and none calls another.
pub const ALLOCATOR: [&str; 4] = ["__rust_alloc", "__rust_dealloc", "__rust_realloc", "__rust_alloc_zeroed"];

/// The instructions spent inside [`ALLOCATOR`] functions, from a callgrind output file
/// written with uncompressed names and positions (as gungraun writes them): the inclusive
/// `Ir` of every call to one of them from outside them. The allocator's cost follows the
/// heap's history more than the structure's work (glibc's `free` and
/// `malloc_consolidate` were over 60 % of the calendar's `earliest` count, and moved by
/// 28 % with a change to how states are loaded), so the gate leaves it out.
///
/// # Errors
/// A file without an `events:` line naming `Ir`, or a call cost that is not a number
/// ([`CallgrindError`]).
pub fn allocator_instructions(callgrind: &str) -> Result<u64, CallgrindError> {
    let events = callgrind.lines().find_map(|l| l.strip_prefix("events:")).ok_or(CallgrindError::NoEvents)?;
    let ir = events.split_whitespace().position(|e| e == "Ir").ok_or(CallgrindError::NoIr)?;
    let is_allocator = |name: &str| ALLOCATOR.iter().any(|a| name.rsplit("::").next() == Some(a));
    let (mut caller, mut callee, mut call_cost_next, mut total) = ("", "", false, 0u64);
    for line in callgrind.lines() {
        if call_cost_next {
            call_cost_next = false;
            if is_allocator(callee) && !is_allocator(caller) {
                // The position, then the events in order; missing trailing ones are 0.
                let cost = line.split_whitespace().nth(1 + ir).unwrap_or("0");
                total += cost
                    .parse::<u64>()
                    .map_err(|error| CallgrindError::CallCost { line: line.to_owned(), error })?;
            }
        } else if let Some(name) = line.strip_prefix("fn=") {
            caller = name;
        } else if let Some(name) = line.strip_prefix("cfn=") {
            callee = name;
        } else if line.starts_with("calls=") {
            call_cost_next = true;
        }
    }
    Ok(total)
}

/// Reads the instruction counts of gungraun's `--save-summary=json` files under `dir`
/// (one `summary.json` per benchmark; its id names its case in
/// [`instructions::plan`](crate::instructions::plan)), less the allocator's: each count
/// is the benchmark's total `Ir` minus [`allocator_instructions`] of the callgrind
/// output files beside its summary.
///
/// # Errors
/// A file that cannot be read or does not have the fields this version of gungraun
/// writes ([`ResultsError`]).
pub fn read_gungraun(dir: &Path) -> Result<Vec<Instructions>, ResultsError> {
    let mut found = crate::files::named(dir, "summary.json")?
        .iter()
        .map(|path| read_summary(path))
        .collect::<Result<Vec<_>, _>>()?;
    // By name, as `ci/baseline.json` lists them (`OpKind`'s own order is the trait's).
    found.sort_by(|a, b| (&a.structure, a.op.name(), &a.state).cmp(&(&b.structure, b.op.name(), &b.state)));
    Ok(found)
}

fn read_summary(path: &Path) -> Result<Instructions, ResultsError> {
    let bad = |what: &'static str| ResultsError::Missing { path: path.to_path_buf(), what: what.to_owned() };
    let json = read_json(path)?;
    let id = json["id"].as_str().ok_or_else(|| bad("no benchmark id"))?;
    let case = crate::instructions::case(id)
        .map_err(|error| ResultsError::Case { path: path.to_path_buf(), error })?;
    let total = json["profiles"][0]["data"]["total"]["metrics"]["Ir"]["values"]["new"]
        .as_u64()
        .ok_or_else(|| bad("no Ir count"))?;
    let dir = path.parent().ok_or_else(|| bad("no folder"))?;
    let entries = fs::read_dir(dir).map_err(|error| FileError::Read { path: dir.to_path_buf(), error })?;
    // gungraun keeps the run before as `*.out.old`, for its own comparison.
    let outputs = entries.flatten().map(|e| e.path()).filter(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        name.starts_with("callgrind.") && name.contains(".out") && !name.ends_with(".old")
    });
    let mut allocator = 0;
    let mut read = 0;
    for output in outputs {
        let text = read_text(&output)?;
        allocator += allocator_instructions(&text)
            .map_err(|error| ResultsError::Callgrind { path: output.clone(), error })?;
        read += 1;
    }
    if read == 0 {
        return Err(bad("no callgrind output beside it to take the allocator's cost from"));
    }
    let instructions =
        total.checked_sub(allocator).ok_or_else(|| bad("more allocator instructions than in all"))?;
    Ok(Instructions {
        structure: case.kind.name().into(),
        op: case.op,
        state: case.state.into(),
        instructions,
    })
}
