//! `src/report/bench.rs`: the performance report's ratios, growth exponents, memory, the
//! runs before and after, and the README summary it rewrites.

use std::fs;

use reporting::report::bench::{render, rewrite_readme, README_BEGIN, README_END};

use super::bench_files;

#[test]
fn the_report_shows_ratios_exponents_and_the_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // The list grows linearly and is 4x slower at 100 entries; the tree is flat.
    let newest =
        bench_files::file(
            "2026-11-22T10:00:00Z",
            |s, n| if s == "list" { 4.0 * n as f64 / 100.0 } else { 1.0 },
        );
    let older = bench_files::file("2026-11-21T10:00:00Z", |_, _| 1.0);
    let readme = dir.join("README.md");
    fs::create_dir_all(dir).unwrap();
    fs::write(&readme, format!("# x\n\nbefore\n{README_BEGIN}\nold summary\n{README_END}\nafter\n")).unwrap();
    render(&[older, newest], dir, "resbench report runs/*.json", Some(&readme)).unwrap();
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(md.contains("Measured 2026-11-22T10:00:00Z at revision `abc123` on a test cpu"), "{md}");
    // Ratios to the fastest: 4, 40, 400, 4000 -> geometric mean 4 * 10^1.5 = 126.49.
    assert!(md.contains("| list | 126.49 |"), "{md}");
    assert!(md.contains("| rbtree | 1.00 |"), "{md}");
    assert!(md.contains("| list | check | 1.00 | 100 to 100000 | 1 (O(n)"), "{md}");
    assert!(md.contains("| rbtree | check | 0.00 | 100 to 100000 | 0 (O(log n)) |"), "{md}");
    assert!(md.contains("| synthetic-100 | 100 | 96 | – |"), "memory per entry: {md}");
    assert!(md.contains("| synthetic-1000 | rbtree | 12345 | 10 / 100 |"), "{md}");
    assert!(md.contains("| 2026-11-21T10:00:00Z | abc123 |"), "every file listed: {md}");
    // Before and after: the list's times grew by 126.49 over the older run's, its counts did not.
    assert!(
        md.contains("The run of 2026-11-22T10:00:00Z (revision `abc123`) against the one before it"),
        "{md}"
    );
    assert!(md.contains("| list | check | 4 | ×126.49 | ×1.00 | ×1.00 |"), "{md}");
    assert!(md.contains("| rbtree | check | 4 | ×1.00 | ×1.00 | ×1.00 |"), "{md}");
    assert!(dir.join("growth-check.svg").exists());
    let text = fs::read_to_string(&readme).unwrap();
    assert!(
        text.starts_with("# x\n\nbefore\n") && text.ends_with(&format!("{README_END}\nafter\n")),
        "{text}"
    );
    assert!(!text.contains("old summary") && text.contains("| list | 126.49 |"), "{text}");
}

#[test]
fn a_readme_without_markers_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let readme = dir.join("README.md");
    fs::write(&readme, "# no markers\n").unwrap();
    let error = format!("{:#}", rewrite_readme(&readme, "table").unwrap_err());
    assert!(error.contains("no summary markers"), "{error}");
    assert_eq!(fs::read_to_string(&readme).unwrap(), "# no markers\n");
}

#[test]
fn one_run_has_nothing_to_compare_yet() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let only = bench_files::file("2026-11-22T10:00:00Z", |_, _| 1.0);
    render(&[only], dir, "resbench report runs/*.json", None).unwrap();
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(md.contains("## Before and after\n\nOne run is recorded"), "{md}");
}
