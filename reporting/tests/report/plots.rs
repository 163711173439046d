//! `src/report/plots.rs`: every kind of plot a report draws, as well-formed SVG of its
//! size with its title (escaped), axes and legend: Figures 5 and 6 of a replay report,
//! the performance report's growth plot, and the lines of the polling report.

use std::fs;

use reporting::report::{bench, render};

use super::coreserve::formula_report;
use super::{assert_contains, bench_files, runs, svg};

#[test]
fn a_replay_report_s_figures_5_and_6() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // A selection with characters SVG and HTML must escape, in every title.
    let runs: Vec<_> = runs()
        .into_iter()
        .map(|mut r| {
            r.trace.selection = Some("jobs <400 & \"more\"".into());
            r
        })
        .collect();
    render(&runs, dir, "resbench report").unwrap();
    let label = "synthetic, jobs &lt;400 &amp; &quot;more&quot;";
    // Two structures: 160 + 110 each wide.
    let fig5 = svg(&dir.join("fig5-1-synthetic.svg"), (380, 420));
    assert_contains(
        &fig5,
        &[
            &format!("Figure 5: {label}"),
            "visited / worst case, %",
            "10 % of the worst case (the paper&apos;s claim)",
            "check",
            "schedule (earliest)",
            "rbtree",
            "calendar",
        ],
    );
    let fig6 = svg(&dir.join("fig6-1-synthetic.svg"), (640, 400));
    assert_contains(
        &fig6,
        &[
            &format!("Figure 6: {label} (rbtree)"),
            "entries not visited by check (worst case minus visited)",
            "calls",
        ],
    );
    // The page escapes the same label.
    let html = fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains(&format!("<h2>{label}</h2>")), "{html}");
}

#[test]
fn the_performance_report_s_growth_plots() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = bench_files::file("2026-11-22T10:00:00Z", |s, n| if s == "list" { n as f64 } else { 1.0 });
    bench::render(&[file], dir, "resbench report", None).unwrap();
    let plot = svg(&dir.join("growth-check.svg"), (720, 440));
    assert_contains(&plot, &["profile entries", "median ns per call", "rbtree", "list"]);
    // Only measured operations are plotted.
    assert!(!dir.join("growth-earliest.svg").exists());
}

#[test]
fn the_polling_report_s_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    formula_report(dir, (2, 6, 0.3, 0.05), "x");
    let plot = svg(&dir.join("fig5-cost.svg"), (720, 440));
    assert_contains(
        &plot,
        &["C(p) = E[T] + c·p: n 2 of k 6, c 0.05", "p, resources polled", "cost (slots)", "formula, q 0.3"],
    );
}
