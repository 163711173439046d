//! The performance report's resource-set section: the `sets` suite
//! (`benches/benches/sets.rs`), the representations `RangeSet` was chosen among, timed
//! per operation on the free sets of real trace states and of a fragmented one.

use std::collections::BTreeMap;

use super::doc::Block;
use crate::bench_file::{BenchFile, BenchResult};

/// The benchmark groups of the `sets` suite start with this.
pub const PREFIX: &str = "sets/";

/// The section, from the newest run: one row per operation and state, each
/// representation's median time per pair of sets and its ratio to the fastest; nothing
/// when the run has no `sets` results.
pub fn section(file: &BenchFile) -> Vec<Block> {
    let mut cells: BTreeMap<(&str, &str), Vec<&BenchResult>> = BTreeMap::new();
    for r in file.results.iter().filter(|r| r.operation.starts_with(PREFIX)) {
        cells.entry((&r.operation[PREFIX.len()..], r.state.as_str())).or_default().push(r);
    }
    if cells.is_empty() {
        return Vec::new();
    }
    let mut representations: Vec<&str> = cells.values().flatten().map(|r| r.structure.as_str()).collect();
    representations.sort_unstable();
    representations.dedup();
    let rows = cells
        .iter()
        .map(|(&(op, state), results)| {
            let fastest = results.iter().map(|r| r.per_call_ns()).fold(f64::MAX, f64::min);
            let mut row = vec![op.to_owned(), state.to_owned()];
            row.extend(representations.iter().map(|&name| {
                results.iter().find(|r| r.structure == name).map_or("–".into(), |r| {
                    format!("{:.1} ({:.2})", r.per_call_ns(), r.per_call_ns() / fastest)
                })
            }));
            row
        })
        .collect();
    let header = ["operation", "state"].into_iter().chain(representations.iter().copied()).map(String::from);
    vec![
        Block::Heading(2, "Resource sets".into()),
        Block::Para("The representations `RangeSet` was chosen among, on consecutive free sets of real trace states and of a machine of 1,152 ids fragmented into hundreds of ranges: median ns per pair of sets (per set for `count`), with the ratio to the fastest in brackets. `rangeset` is what the structures use (an inline bitset below 1,152 ids, ranges above); `vec` is the sorted ranges it replaced.".into()),
        Block::Table(header.collect(), rows),
    ]
}
