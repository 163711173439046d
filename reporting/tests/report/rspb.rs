//! `src/report/rspb.rs` and `src/rspb/results.rs`: the figures' results file and report.

use super::assert_contains;
use std::fs;

use reporting::report::rspb::render;
use scheduling::rspb::experiment::{figures, run_figure, FigureResult, FLOOR};
use scheduling::rspb::results::{ResultsFile, RSPB_FILE, RSPB_KIND, RSPB_SCHEMA};
use structures::Kind;

fn results() -> ResultsFile {
    let figures = figures()
        .into_iter()
        .filter(|f| ["4.3", "4.6", "4.7", "5.12", FLOOR].contains(&f.id))
        .map(|mut f| {
            f.points.truncate(2);
            run_figure(&f, 1, 2, Kind::RbTree, false).unwrap()
        })
        .collect();
    ResultsFile {
        kind: RSPB_KIND.into(),
        schema: RSPB_SCHEMA,
        git_revision: "test".into(),
        command: "resbench rspb --figure 4.3,4.6,4.7,5.12,floor".into(),
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
        // Fig 4.7 as the thesis plots it, and its table by simulation time, labelled.
        "| simulation time (the sweep's x; the thesis's x is the rejections) | rb rejections | rb sum of rejected priorities | rspb rejections | rspb sum of rejected priorities |",
        "Ours: as the thesis plots it, against the number of rejections:",
        // The sweep of ours, labelled, with its gap column; the reader's list of readings.
        "## Ours, not a figure of the thesis: (a) System benefit and (b) number of rejections versus the CPU_min floor",
        "| CPU_min floor (% of the CPU asked for) | co-rspb rejections |",
        "| co-rspb rejections over co-rsbf's |",
        "| 25 | ",
        "docs/rspb.md, section \"Where the thesis is silent\"",
    ]);
    for plot in [
        "fig4-3.svg",
        "fig4-6.svg",
        "fig4-7.svg",
        "fig5-12a.svg",
        "fig5-12b.svg",
        "figfloora.svg",
        "figfloorb.svg",
    ] {
        let svg = fs::read_to_string(dir.join(plot)).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{plot}");
    }
    // Fig 4.6 draws the ideal beside the algorithms; the sweep of ours says it is ours.
    assert!(fs::read_to_string(dir.join("fig4-6.svg")).unwrap().contains("ideal"));
    assert!(fs::read_to_string(dir.join("figfloorb.svg")).unwrap().contains("Ours: (a) System benefit"));
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
/// regenerates them): every figure of the thesis, in order, and those of ours run since
/// they were added.
#[test]
fn the_published_results_read_back() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/RSPB").join(RSPB_FILE);
    let file = ResultsFile::read(&path).unwrap();
    let published: Vec<&str> = file.figures.iter().map(|f| f.id.as_str()).collect();
    let known: Vec<&str> = figures().iter().map(|f| f.id).collect();
    let thesis: Vec<&str> = figures().iter().filter(|f| f.trend.is_some()).map(|f| f.id).collect();
    assert!(known.starts_with(&published) && published.starts_with(&thesis), "{published:?}");
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

/// The results with `f` applied to each curve of figure `id`.
fn altered(
    mut file: ResultsFile,
    id: &str,
    f: impl Fn(&str, &mut Vec<scheduling::rspb::experiment::Point>),
) -> ResultsFile {
    let fig: &mut FigureResult = file.figures.iter_mut().find(|r| r.id == id).unwrap();
    for s in &mut fig.series {
        f(&s.algorithm, &mut s.points);
    }
    file
}

/// Co-RSBF rejecting 10 at each floor, Co-RSPB first 20 (+100 %) then `last`.
fn floor_gap(last: f64) -> ResultsFile {
    altered(results(), FLOOR, |algorithm, points| {
        for (k, p) in points.iter_mut().enumerate() {
            p.rejected.mean = match (algorithm, k) {
                ("co-rsbf", _) => 10.0,
                ("co-rspb", 0) => 20.0,
                ("co-rspb", _) => last,
                _ => p.rejected.mean,
            };
        }
    })
}

#[test]
fn the_floor_sweep_s_reason_for_the_gap_follows_the_sweep() {
    // +100 % at 25 %, +10 % at 37.5 %: the gap shrinks, and the chapter-5 figure says so.
    let md = report(&floor_gap(11.0));
    assert_contains(
        &md,
        &[
            "Ours: Co-RSPB rejects +100 % against Co-RSBF at a floor of 25 % and +10 % at 37.5 % (each floor in the last column), falling at 1 of 1 steps: the gap shrinks with the floor (by at least half, the report's threshold). It is within ±50 % of the thesis's +10 % at floors of: 37.5 %.",
            "In the floor sweep of ours (at the end, at chapter 5's defaults), Co-RSPB's extra rejections against Co-RSBF go from +100 % at a CPU_min floor of 25 % to +10 % at 37.5 %, falling at 1 of 1 steps, so the gap follows the CPU_min floor: it shrinks by at least half, the report's threshold.",
            "| 25 | 20.0 ± ",
            "| +100 % |",
            "| +10 % |",
        ],
    );
    // +100 % then +90 %: it shrinks by less than half, and no reason is drawn from it.
    let md = report(&floor_gap(19.0));
    assert_contains(
        &md,
        &[
            "falling at 1 of 1 steps: the gap shrinks by less than half (the report's threshold), so it does not follow the floor. It is within ±50 % of the thesis's +10 % at floors of: none.",
            "Co-RSBF go from +100 % at a CPU_min floor of 25 % to +90 % at 37.5 %, falling at 1 of 1 steps, so the floor does not account for the gap: it shrinks by less than half, the report's threshold.",
        ],
    );
    assert!(!md.contains("so the gap follows the CPU_min floor"), "{md}");
    // Without the sweep, no reason at all.
    let mut file = results();
    file.figures.retain(|f| f.id != FLOOR);
    let md = report(&file);
    assert_contains(
        &md,
        &[
            "These results hold no sweep of ours (`--figure floor`), so no reason for a difference is given.",
            "No sweep of ours in these results bears on the gap, so no reason is given.",
        ],
    );
    assert!(!md.contains("floor sweep of ours"), "{md}");
}

/// Fig 4.7 with RB rejecting 100 and 300 for priorities summing to 5,000 and 15,000, and
/// RSPB rejecting 150 and 250 for `per` priority each.
fn fig_4_7(per: f64) -> ResultsFile {
    altered(results(), "4.7", |algorithm, points| {
        let rejected: [f64; 2] = if algorithm == "rb" { [100.0, 300.0] } else { [150.0, 250.0] };
        let per = if algorithm == "rb" { 50.0 } else { per };
        for (p, r) in points.iter_mut().zip(rejected) {
            p.rejected.mean = r;
            p.rejected_priority.mean = per * r;
        }
    })
}

#[test]
fn fig_4_7_is_judged_at_equal_rejections_and_its_verdict_follows_the_results() {
    // Half a point per rejection apart: the curves coincide, which the thesis does not say.
    assert_contains(
        &report(&fig_4_7(49.5)),
        &["at the 2 of RSPB's 2 points whose rejections RB's curve spans (read linearly between its points), RSPB's sum of rejected priorities differs from RB's by -1.0 % to -1.0 %, so the two curves coincide within ±5 %; the thesis has RSPB's below: differs. Per rejection, the rejected priority averages 49.5 under RSPB and 50.0 under RB; priorities drawn uniformly from 1 to 100 average 50.5. At equal simulation time (the table's rows, not the thesis's axis), RSPB's sum is below RB's at 1 of 2 points and its rejections at 1 of 2."],
    );
    // A fifth lower: below, as the thesis has it.
    assert_contains(
        &report(&fig_4_7(40.0)),
        &["differs from RB's by -20.0 % to -20.0 %, so RSPB's curve lies below RB's by more than 5 %; the thesis has RSPB's below: agrees."],
    );
    // Above at one point, below at the other: neither.
    let md = report(&altered(fig_4_7(50.0), "4.7", |algorithm, points| {
        if algorithm == "rspb" {
            points[0].rejected_priority.mean *= 1.2;
            points[1].rejected_priority.mean *= 0.8;
        }
    }));
    assert_contains(&md, &["so RSPB's curve is not below RB's by more than 5 % throughout; the thesis has RSPB's below: differs."]);
    // Curves that share no rejection count are not compared.
    let md = report(&altered(fig_4_7(50.0), "4.7", |algorithm, points| {
        if algorithm == "rspb" {
            points.iter_mut().for_each(|p| p.rejected.mean /= 10.0);
        }
    }));
    assert_contains(&md, &["Ours: RSPB's and RB's rejections do not overlap, so their curves cannot be compared at equal rejections."]);
}

/// The paths drawn in a curve's colour in a plot: its line, its legend entry and its
/// error bars (the axes' ticks are black, and their number follows the axes' range).
fn polylines(file: &ResultsFile, plot: &str) -> usize {
    let tmp = tempfile::tempdir().unwrap();
    render(file, tmp.path(), "resbench report").unwrap();
    let svg = fs::read_to_string(tmp.path().join(plot)).unwrap();
    let tags = svg.split("<polyline").skip(1).map(|rest| rest.split('>').next().unwrap_or(""));
    tags.filter(|tag| !tag.contains("stroke=\"#000000\"")).count()
}

#[test]
fn the_plots_draw_each_mean_s_95_percent_interval() {
    let file = results();
    let without = |id: &str| {
        altered(results(), id, |_, points| {
            for p in points {
                for e in [&mut p.requests, &mut p.rejected, &mut p.rejected_priority, &mut p.system_benefit] {
                    e.half = 0.0;
                }
            }
        })
    };
    // Fig 4.7: a cross at each of 2 points of 2 curves (a bar and its two caps each way).
    assert_eq!(polylines(&file, "fig4-7.svg"), polylines(&without("4.7"), "fig4-7.svg") + 2 * 2 * 6);
    // Fig 4.3: its x, the requests created, is measured too.
    assert_eq!(polylines(&file, "fig4-3.svg"), polylines(&without("4.3"), "fig4-3.svg") + 2 * 2 * 6);
    // The floor sweep's rejections: a vertical bar at each of 2 points of 3 curves.
    assert_eq!(polylines(&file, "figfloorb.svg"), polylines(&without(FLOOR), "figfloorb.svg") + 2 * 3 * 3);
}
