//! `src/report/sets.rs`: the performance report's resource-set section, from the `sets`
//! suite's results of the newest run: each representation's time per pair of sets and
//! its ratio to the fastest, per operation and state.

use std::fs;

use reporting::report::bench::render;

use super::{bench_files, result, section};

#[test]
fn each_representation_s_time_and_ratio_to_the_fastest_per_operation_and_state() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut file = bench_files::file("2026-11-22T10:00:00Z", |_, _| 1.0);
    file.results.extend([
        result("rangeset", "sets/union", "kth", 10.0),
        result("vec", "sets/union", "kth", 25.0),
        // `vec` was not measured on this one: a dash.
        result("rangeset", "sets/count", "fragmented", 30.0),
    ]);
    render(&[file], dir, "resbench report", None).unwrap();
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    let table: Vec<&str> =
        section(&md, "## Resource sets").into_iter().filter(|l| l.starts_with('|')).collect();
    // Rows by operation then state; representations by name.
    assert_eq!(
        table,
        [
            "| operation | state | rangeset | vec |",
            "|---|---|---|---|",
            "| count | fragmented | 30.0 (1.00) | – |",
            "| union | kth | 10.0 (1.00) | 25.0 (2.50) |",
        ]
    );
    // The representations are not structures: they are in no other table.
    assert!(!md.lines().any(|l| l.starts_with("| rangeset |") || l.starts_with("| vec |")), "{md}");
    let html = fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("<tr><td>union</td><td>kth</td><td>10.0 (1.00)</td><td>25.0 (2.50)</td></tr>"));
}

#[test]
fn a_run_without_set_results_has_no_section() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    render(&[bench_files::file("2026-11-22T10:00:00Z", |_, _| 1.0)], dir, "resbench report", None).unwrap();
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(!md.contains("Resource sets") && md.contains("## Before and after"), "{md}");
}
