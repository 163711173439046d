//! The CI gate: the current work and instruction counts against a committed baseline.

use std::fs;
use std::path::Path;

use oracle::OpKind;
use serde::{Deserialize, Serialize};

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
    /// The gungraun instruction counts (empty when they were not measured).
    pub instructions: Vec<Instructions>,
}

fn growth(before: u64, after: u64) -> f64 {
    match (before, after) {
        (0, 0) => 0.0,
        (0, _) => f64::INFINITY,
        _ => 100.0 * (after as f64 - before as f64) / before as f64,
    }
}

/// Every way `current` is worse than `baseline` by more than `threshold` percent, or
/// misses a measurement the baseline has; empty when the change passes.
pub fn regressions(baseline: &Measurements, current: &Measurements, threshold: f64) -> Vec<String> {
    let mut failures = Vec::new();
    let mut check = |place: String, what: &str, before: u64, after: Option<u64>| match after {
        None => failures.push(format!("{place}: {what} no longer measured")),
        Some(after) if growth(before, after) > threshold => failures.push(format!(
            "{place}: {what} {before} -> {after} ({:+.1} %), over the {threshold} % limit",
            growth(before, after)
        )),
        Some(_) => {}
    };
    for base in &baseline.work {
        let now = current
            .work
            .iter()
            .find(|w| (&w.structure, &w.op, &w.state) == (&base.structure, &base.op, &base.state));
        let place = format!("{} {} on {}", base.structure, base.op, base.state);
        check(place.clone(), "visited", base.visited, now.map(|w| w.visited));
        check(place, "search", base.search, now.map(|w| w.search));
    }
    if !current.instructions.is_empty() {
        for base in &baseline.instructions {
            let now = current
                .instructions
                .iter()
                .find(|i| (&i.structure, &i.op, &i.state) == (&base.structure, &base.op, &base.state));
            let place = format!("{} {} on {}", base.structure, base.op, base.state);
            check(place, "instructions", base.instructions, now.map(|i| i.instructions));
        }
    }
    failures
}

/// Reads the instruction counts of gungraun's `--save-summary=json` files under `dir`
/// (one `summary.json` per benchmark; the benchmark's description names its structure,
/// state and operation).
///
/// # Errors
/// A file that cannot be read or does not have the fields this version of gungraun writes.
pub fn read_gungraun(dir: &Path) -> Result<Vec<Instructions>, String> {
    let mut found = crate::files::named(dir, "summary.json")?
        .iter()
        .map(|path| read_summary(path))
        .collect::<Result<Vec<_>, _>>()?;
    // By name, as `ci/baseline.json` lists them (`OpKind`'s own order is the trait's).
    found.sort_by(|a, b| (&a.structure, a.op.name(), &a.state).cmp(&(&b.structure, b.op.name(), &b.state)));
    Ok(found)
}

fn read_summary(path: &Path) -> Result<Instructions, String> {
    let bad = |what: &str| format!("{}: {what}", path.display());
    let text = fs::read_to_string(path).map_err(|e| bad(&e.to_string()))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    let description = json["description"].as_str().ok_or_else(|| bad("no description"))?;
    // `(setup("rbtree", "kth-1000", "check"))`: the quoted arguments, in order.
    let args: Vec<&str> = description.split('"').skip(1).step_by(2).collect();
    let [structure, state, op] = args[..] else { return Err(bad("a description without three arguments")) };
    let op = op.parse().map_err(|e: String| bad(&e))?;
    let instructions = json["profiles"][0]["data"]["total"]["metrics"]["Ir"]["values"]["new"]
        .as_u64()
        .ok_or_else(|| bad("no Ir count"))?;
    Ok(Instructions { structure: structure.into(), op, state: state.into(), instructions })
}
