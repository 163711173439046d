//! The performance report's before-and-after section: the newest recorded benchmark run
//! beside the one recorded before it, per structure and operation, over the states both
//! measured. Wall times come from two runs and swing with the machine; instruction counts
//! and visited work are exact, so their ratios are what a change did.

use std::collections::HashMap;

use super::bench::geomean;
use super::doc::Block;
use crate::bench_file::{BenchFile, BenchResult};

/// One recorded run's counted results by structure, operation and state.
fn index(file: &BenchFile) -> HashMap<(&str, &str, &str), &BenchResult> {
    file.results
        .iter()
        .filter(|r| r.counted)
        .map(|r| ((r.structure.as_str(), r.operation.as_str(), r.state.as_str()), r))
        .collect()
}

/// The geometric mean of `after / before` over the pairs where both are positive.
fn ratio(pairs: impl IntoIterator<Item = (f64, f64)>) -> Option<f64> {
    geomean(pairs.into_iter().filter(|&(before, after)| before > 0.0 && after > 0.0).map(|(b, a)| a / b))
}

/// `×r`, or a dash where nothing was measured in both runs.
fn cell(r: Option<f64>) -> String {
    r.map_or("–".into(), |r| format!("×{r:.2}"))
}

/// The section: a heading, what is compared, and one row per structure and operation
/// (in `names` and `operations` order) measured on a common state in both runs; with
/// fewer than two files, a line saying there is nothing to compare yet.
pub fn section(files: &[BenchFile], names: &[String], operations: &[&str]) -> Vec<Block> {
    let mut runs: Vec<&BenchFile> = files.iter().collect();
    runs.sort_by(|a, b| a.recorded.cmp(&b.recorded));
    let mut blocks = vec![Block::Heading(2, "Before and after".into())];
    let [.., before, after] = runs[..] else {
        blocks.push(Block::Para("One run is recorded: there is no earlier one to compare with yet.".into()));
        return blocks;
    };
    blocks.push(Block::Para(format!(
        "The run of {} (revision `{}`) against the one before it, {} (revision `{}`): each cell is the geometric mean, over the states both runs measured, of the after / before ratio (below 1 is faster or less work). Wall times come from two runs on a shared machine and swing by about ±30 % between them; instruction counts (gungraun, a fixed set of calls) and visited work (the work suite) are exact. A structure or state that only one run measured has no cell.",
        after.recorded, after.revision, before.recorded, before.revision
    )));
    let (old, new) = (index(before), index(after));
    let mut rows = Vec::new();
    for name in names {
        for &op in operations {
            let common: Vec<(&BenchResult, &BenchResult)> = new
                .iter()
                .filter(|((s, o, _), _)| s == name && *o == op)
                .filter_map(|(key, &a)| Some((*old.get(key)?, a)))
                .collect();
            if common.is_empty() {
                continue;
            }
            let time = ratio(common.iter().map(|(b, a)| (b.per_call_ns(), a.per_call_ns())));
            let instructions = ratio(
                common.iter().filter_map(|(b, a)| Some((b.instructions? as f64, a.instructions? as f64))),
            );
            let visited =
                ratio(common.iter().filter_map(|(b, a)| Some((b.visited? as f64, a.visited? as f64))));
            rows.push(vec![
                name.clone(),
                op.to_owned(),
                common.len().to_string(),
                cell(time),
                cell(instructions),
                cell(visited),
            ]);
        }
    }
    let header = ["structure", "operation", "states", "time", "instructions", "visited"];
    blocks.push(Block::Table(header.map(String::from).to_vec(), rows));
    blocks
}
