//! `src/report/rspb.rs` and `src/rspb/results.rs`: the figures' results file and report.

use super::assert_contains;
use std::fs;

use reporting::report::rspb::render;
use scheduling::rspb::experiment::{figures, run_figure};
use scheduling::rspb::results::{ResultsFile, RSPB_FILE, RSPB_KIND, RSPB_SCHEMA};
use structures::Kind;

fn results() -> ResultsFile {
    let figures = figures()
        .into_iter()
        .filter(|f| ["4.3", "4.6", "4.7", "5.12"].contains(&f.id))
        .map(|mut f| {
            f.points.truncate(2);
            run_figure(&f, 1, 2, Kind::RbTree, false).unwrap()
        })
        .collect();
    ResultsFile {
        kind: RSPB_KIND.into(),
        schema: RSPB_SCHEMA,
        git_revision: "test".into(),
        command: "resbench rspb --figure 4.3,4.6,4.7,5.12".into(),
        structure: Kind::RbTree,
        first_seed: 1,
        seeds: 2,
        figures,
    }
}

#[test]
fn the_report_has_each_figure_s_plot_table_trend_and_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = results();
    let path = file.write(dir).unwrap();
    assert_eq!(path, dir.join(RSPB_FILE));
    assert_eq!(ResultsFile::read(&path).unwrap(), file);
    render(&file, dir, "resbench report").unwrap();
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    assert_contains(&md, &[
        "## Fig 4.3: Number of rejections versus number of requests",
        "| requests created (simulation time 10,000 to 120,000) | rb | rspb |",
        "Ours: RSPB rejects fewer than RB at 2 of 2 points",
        "## Fig 4.6: The average of reserved CPU versus the average of requested CPU",
        "The thesis: \"the sum of rejected priorities of RSPB is less than that of RB.",
        "| floating requests (%) | co-rspb rejections | co-rsbf rejections | co-rsbfr rejections | co-rspb benefit |",
        "As the floating share grows, rejections fall in",
        "2 workloads per point (RNG seeds 1 to 2)",
    ]);
    for plot in ["fig4-3.svg", "fig4-6.svg", "fig4-7.svg", "fig5-12a.svg", "fig5-12b.svg"] {
        let svg = fs::read_to_string(dir.join(plot)).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{plot}");
    }
    // Fig 4.6 draws the ideal beside the algorithms.
    assert!(fs::read_to_string(dir.join("fig4-6.svg")).unwrap().contains("ideal"));
}

#[test]
fn another_kind_or_schema_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let path = dir.join("x.json");
    fs::write(&path, r#"{"kind": "rspb-figures", "schema": 7}"#).unwrap();
    assert!(ResultsFile::read(&path).unwrap_err().to_string().contains("schema Some(7), this build reads 1"));
    let mut broken = results();
    broken.figures[0].series[1].points.pop();
    fs::write(&path, serde_json::to_string(&broken).unwrap()).unwrap();
    let err = ResultsFile::read(&path).unwrap_err().to_string();
    assert!(err.contains("figure 4.3: its series must have the same number of points"), "{err}");
    fs::write(&path, r#"{"schema": 1}"#).unwrap();
    assert!(ResultsFile::read(&path).unwrap_err().to_string().contains("not an rspb results file"));
}

/// The published figures are this build's kind and render (ci/publish-reports RSPB
/// regenerates them).
#[test]
fn the_published_results_read_back() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/RSPB").join(RSPB_FILE);
    let file = ResultsFile::read(&path).unwrap();
    assert_eq!(file.figures.len(), figures().len());
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(serde_json::to_string_pretty(&file).unwrap() + "\n", text);
}

/// The Markdown report of `file`.
fn report(file: &ResultsFile) -> String {
    let tmp = tempfile::tempdir().unwrap();
    render(file, tmp.path(), "resbench report").unwrap();
    fs::read_to_string(tmp.path().join("index.md")).unwrap()
}

#[test]
fn the_co_rspb_share_of_extra_rejections_gets_a_verdict_that_follows_the_results() {
    let mut file = results();
    let fig = file.figures.iter_mut().find(|f| f.id == "5.12").unwrap();
    // Co-RSBF rejects 10 at every point; Co-RSPB 11 (+10 %), then 20 (+100 %).
    let mut set = |co_rspb: f64| {
        for s in &mut fig.series {
            let rejected = match s.algorithm.as_str() {
                "co-rspb" => co_rspb,
                "co-rsbf" => 10.0,
                _ => continue,
            };
            s.points.iter_mut().for_each(|p| p.rejected.mean = rejected);
        }
    };
    set(11.0);
    let agrees = "Co-RSPB rejects +10 % against Co-RSBF over the sweep, where the thesis has about +10 % (section 5.6, Figs 5.9-5.11 b (\"about 10% higher\")): agrees at a tolerance of ±50 % of that share.";
    assert_contains(&report(&file), &[agrees]);
    let fig = file.figures.iter_mut().find(|f| f.id == "5.12").unwrap();
    for s in fig.series.iter_mut().filter(|s| s.algorithm == "co-rspb") {
        s.points.iter_mut().for_each(|p| p.rejected.mean = 20.0);
    }
    let md = report(&file);
    assert_contains(
        &md,
        &[
            "Co-RSPB rejects +100 % against Co-RSBF over the sweep",
            "): differs at a tolerance of ±50 % of that share.",
        ],
    );
    // No reason is given as fixed text.
    assert!(!md.contains("likely reasons") && !md.contains("likely seldom"), "{md}");
}
