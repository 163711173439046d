//! `src/report/coreserve.rs`: the polling report (Fig 5's cost by formula and measured,
//! the best p against the band [n, 2n], the grid of cells) and the load figures, each
//! value worked by hand from the rows and runs given.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ::coreserve::polling::{self, Cell, Measured, Trials};
use ::coreserve::services::{self as service, LoadRun};
use reporting::report::coreserve::{render_load, render_polling};
use structures::Kind;

use super::{section, svg};

const TRIALS: Trials = Trials { kind: Kind::RbTree, trials: 100, horizon: 64, duration: 1, seed: 3 };

/// The polling report of the formula's rows for `(n, k, q, c)` alone (nothing measured,
/// no grid) into `dir`, and its HTML page.
pub(super) fn formula_report(dir: &Path, params: (u32, u32, f64, f64), command: &str) -> PathBuf {
    let (n, k, q, c) = params;
    let rows = polling::table(n, k, q, c, &[]).unwrap();
    render_polling(dir, params, &TRIALS, &rows, &[], command).unwrap()
}

/// Two cells of the grid at q 0.1, c 0.01: one in the band, one not.
fn cells() -> Vec<Cell> {
    vec![Cell { n: 1, k: 2, q: 0.1, c: 0.01, best: 2 }, Cell { n: 1, k: 10, q: 0.1, c: 0.01, best: 3 }]
}

#[test]
fn the_polling_report_s_cost_table_best_p_and_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // n 1 of k 2 at q 0.5: s(1) = 0.5, E[T] = 1, C = 1.1; s(2) = 0.75, E[T] = 1/3,
    // C = 0.5333. p = 1 was measured at 0.9 ± 0.1, so 1.0 with its messages.
    let mut rows = polling::table(1, 2, 0.5, 0.1, &[]).unwrap();
    rows[0].measured = Some(Measured { p: 1, mean: 0.9, ci: 0.1, censored: 0 });
    let page = render_polling(dir, (1, 2, 0.5, 0.1), &TRIALS, &rows, &cells(), "resbench coreserve polling")
        .unwrap();
    assert_eq!(page, dir.join("index.html"));
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    let cost = section(&md, "## The cost at n 1, k 2, q 0.5, c 0.1");
    let table: Vec<&str> = cost.iter().copied().filter(|l| l.starts_with('|')).collect();
    assert_eq!(
        table,
        [
            "| p | s(p) | E[T] formula | E[T] measured | C(p) formula | C(p) measured |",
            "|---|---|---|---|---|---|",
            "| 1 | 0.500000 | 1.000000 | 0.9000 ± 0.1000 | 1.100000 | 1.0000 |",
            "| 2 | 0.750000 | 0.333333 | - | 0.533333 | - |",
        ]
    );
    assert!(cost.contains(
        &"By the formula the best p is 2, inside [n, 2n] = [1, 2]. Measured on the calendars, the best p is 1 (inside)."
    ));
    assert!(md.contains(
        "The measured column: 100 trials on `rbtree` calendars of 64 slots, a job of 1 slot(s), RNG seed 3;"
    ));
    // The grid: one of the two cells at (0.1, 0.01) in the band, no cell elsewhere.
    let grid: Vec<&str> =
        section(&md, "## Where the best p lies").into_iter().filter(|l| l.starts_with('|')).collect();
    assert_eq!(grid[0], "| q \\ c | 0.01 | 0.05 | 0.1 | 0.2 | 0.5 | 1 |");
    assert_eq!(grid[2], "| 0.1 | 1/2 | 0/0 | 0/0 | 0/0 | 0/0 | 0/0 |");
    assert_eq!(grid[3], "| 0.2 | 0/0 | 0/0 | 0/0 | 0/0 | 0/0 | 0/0 |");
    assert_eq!(grid.len(), 2 + polling::GRID_Q.len());
    assert!(md.contains("the best p is in [n, 2n] in 1 of 2 cells (50 %)"), "{md}");
    // The formula at three unavailabilities, at the one asked, and what was measured.
    let plot = svg(&dir.join("fig5-cost.svg"), (720, 440));
    for name in ["formula, q 0.2", "formula, q 0.4", "formula, q 0.6", "formula, q 0.5", "measured, q 0.5"] {
        assert!(plot.contains(name), "no {name:?} in the plot");
    }
}

#[test]
fn a_best_p_past_the_band_is_said_to_be_outside_and_nothing_measured_is_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // q 0.9, c 0.01: C(10) = 0.9^10 / (1 - 0.9^10) + 0.1 = 0.635 beats C(9) = 0.722.
    let rows = polling::table(1, 10, 0.9, 0.01, &[]).unwrap();
    render_polling(dir, (1, 10, 0.9, 0.01), &TRIALS, &rows, &cells(), "resbench coreserve polling").unwrap();
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(md.contains("By the formula the best p is 10, outside [n, 2n] = [1, 2].\n"), "{md}");
    assert!(!md.contains("Measured on the calendars"));
    assert!(!svg(&dir.join("fig5-cost.svg"), (720, 440)).contains("measured"));
}

#[test]
fn parameters_the_model_refuses_write_no_page() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let err = render_polling(dir, (1, 2, 1.0, 0.1), &TRIALS, &[], &cells(), "x").unwrap_err();
    assert_eq!(err.to_string(), "q 1 must be in [0, 1): a slot always unavailable never schedules");
    assert!(!dir.join("index.md").exists() && !dir.join("fig5-cost.svg").exists());
}

fn load_run(managers: u32, reservations: u64, committed: u64, failed: &[(&str, u64)]) -> LoadRun {
    LoadRun {
        managers,
        clients: 4,
        seconds: 5,
        wall_s: 5.2,
        hot: 2,
        capacity: 8,
        structure: "rbtree".into(),
        rho: 0.5,
        reservations,
        committed,
        failed: failed.iter().map(|&(why, n)| (why.to_owned(), n)).collect::<BTreeMap<_, _>>(),
        attempts: committed + 5,
        aborted: 5,
        messages: 18 * reservations,
        commits_per_s: 17.3,
        messages_per_commit: 20.0,
        abort_rate: 5.0 / (committed + 5) as f64,
        p50_ms: 12,
        p99_ms: 80,
        max_ms: 95,
        violations: 0,
        build: "release".into(),
    }
}

#[test]
fn the_load_figures_have_a_row_per_run_and_sums_over_all() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let runs = [load_run(3, 100, 90, &[("no window", 7), ("expired", 3)]), load_run(5, 50, 50, &[])];
    let page = render_load(dir, &runs, "resbench coreserve load").unwrap();
    assert_eq!(page, dir.join("load.html"));
    let md = fs::read_to_string(dir.join("load.md")).unwrap();
    let rows: Vec<&str> =
        md.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| managers")).collect();
    // Messages per reservation 1800 / 100; abort rate 5 / 95; failures by reason.
    assert_eq!(
        rows,
        [
            "| 3 | 8 | 4 | 2 | 0.50 | 17.3 | 20.0 | 18.0 | 0.053 (5 of 95) | 90 of 100 | 3 expired, 7 no window | 12 | 80 | 95 | 0 |",
            "| 5 | 8 | 4 | 2 | 0.50 | 17.3 | 20.0 | 18.0 | 0.091 (5 of 55) | 50 of 50 | - | 12 | 80 | 95 | 0 |",
        ]
    );
    assert!(
        md.contains(
            "Over every run: 10 of 150 two-phase commits aborted, and 10 of 150 reservations failed."
        ),
        "{md}"
    );
    // The set-up, from the first run and the services' constants.
    let facts = format!(
        "Each manager has `capacity` resources in `rbtree` calendars (slot {} ms, horizon {} ms). Each reservation asks {} resources at each of {} managers",
        service::SLOT,
        service::HORIZON,
        service::NODES,
        service::PARTS
    );
    assert!(md.contains(&facts), "{md}");
    assert!(md.contains("for 5 s. `resbench` was a release build."), "{md}");
    // The load page is its own: the polling report's pages are not written.
    assert!(!dir.join("index.md").exists());
}

#[test]
fn no_load_run_is_an_empty_table() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    render_load(dir, &[], "resbench coreserve load").unwrap();
    let md = fs::read_to_string(dir.join("load.md")).unwrap();
    assert!(md.contains("Over every run: 0 of 0 two-phase commits aborted, and 0 of 0 reservations failed."));
    assert!(md.lines().filter(|l| l.starts_with('|')).count() == 2, "{md}");
    assert!(!md.contains("Each manager has"));
}
