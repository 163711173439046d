//! `src/report/before_after.rs`: the newest recorded benchmark run against the one
//! recorded before it, per structure and operation: geometric means of after / before
//! over the states both measured, worked by hand.

use std::fs;

use reporting::bench_file::BenchFile;
use reporting::report::bench::render;

use super::{bench_files, result, section};

fn recorded(at: &str, revision: &str, results: Vec<reporting::bench_file::BenchResult>) -> BenchFile {
    BenchFile { revision: revision.into(), results, ..bench_files::file(at, |_, _| 1.0) }
}

#[test]
fn ratios_are_geometric_means_over_the_states_both_runs_measured() {
    let with = |mut r: reporting::bench_file::BenchResult, instructions, visited| {
        r.instructions = instructions;
        r.visited = visited;
        r
    };
    let uncounted = |mut r: reporting::bench_file::BenchResult| {
        r.counted = false;
        r
    };
    let before = recorded(
        "2026-01-02T00:00:00Z",
        "b",
        vec![
            with(result("rbtree", "check", "s1", 10.0), Some(1_000), Some(0)),
            with(result("rbtree", "check", "s2", 10.0), None, None),
            // Only the earlier run measured the list: no row for it.
            result("list", "check", "s1", 5.0),
            // Builds without the cost accounting are not compared.
            uncounted(result("rbtree", "check", "s1", 1_000.0)),
        ],
    );
    let after = recorded(
        "2026-01-03T00:00:00Z",
        "a",
        vec![
            with(result("rbtree", "check", "s1", 40.0), Some(500), Some(10)),
            with(result("rbtree", "check", "s2", 10.0), None, None),
            // A state only the newer run measured is not compared.
            result("rbtree", "check", "s3", 7.0),
            // Nor an operation only it measured.
            result("rbtree", "earliest", "s1", 3.0),
            uncounted(result("rbtree", "check", "s1", 1.0)),
        ],
    );
    // An older run still, which the newest is not compared with.
    let oldest = recorded("2026-01-01T00:00:00Z", "o", vec![result("rbtree", "check", "s1", 1.0)]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // In any order: the files are ordered by when they were recorded.
    render(&[after, oldest, before], dir, "resbench report", None).unwrap();
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    let lines = section(&md, "## Before and after");
    assert!(
        lines.iter().any(|l| l.starts_with(
            "The run of 2026-01-03T00:00:00Z (revision `a`) against the one before it, 2026-01-02T00:00:00Z (revision `b`):"
        )),
        "{md}"
    );
    let table: Vec<&str> = lines.into_iter().filter(|l| l.starts_with('|')).collect();
    // Time: s1 40 / 10 and s2 10 / 10, geometric mean 2. Instructions: s1 only, 500 /
    // 1000. Visited: the one pair has 0 before, so no ratio.
    assert_eq!(
        table,
        [
            "| structure | operation | states | time | instructions | visited |",
            "|---|---|---|---|---|---|",
            "| rbtree | check | 2 | ×2.00 | ×0.50 | – |",
        ]
    );
}
