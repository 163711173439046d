//! `resbench report` (`src/report/`): the Markdown and HTML pages and their plots.

use std::fs;

use resbench::replay::{replay, Options, ReplayConfig, Silent};
use resbench::report::render;
use resbench::run_file::{RunFile, Setup, TraceInfo};
use resbench::synthetic::Synthetic;
use structures::{Config, Kind};

fn runs() -> Vec<RunFile> {
    let params = Synthetic {
        jobs: 400,
        capacity: 32,
        mean_gap: 60.0,
        max_size: 8,
        min_time: 60,
        max_time: 3_600,
        seed: 9,
    };
    let load = params.workload().unwrap();
    let setup = Setup {
        command: "resbench replay --synthetic 400".into(),
        trace: TraceInfo {
            name: params.describe(),
            header: vec!["Computer: a test machine".into()],
            selection: None,
            jobs_read: 400,
            skipped: Default::default(),
            requests: 400,
        },
        config: Config::default(),
        options: Options::default(),
        trim: 20,
    };
    [Kind::RbTree, Kind::CalendarQueue]
        .into_iter()
        .map(|kind| {
            let replay_setup = ReplayConfig { config: setup.config, options: setup.options, verify: false };
            let run = replay(kind, &load, &replay_setup, &mut Silent).unwrap();
            RunFile::new(&setup, &load, &run)
        })
        .collect()
}

#[test]
fn a_report_has_both_pages_a_section_per_workload_and_valid_plots() {
    let dir = std::env::temp_dir().join(format!("resbench-report-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let page = render(&runs(), &dir, "resbench report a.json b.json --out x").unwrap();
    assert_eq!(page, dir.join("index.html"));
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    for needle in [
        "## synthetic",
        "From the trace's header: Computer: a test machine.",
        "resbench replay --synthetic 400",
        "resbench report a.json b.json --out x",
        "| rbtree |",
        "| calendar |",
        "Schedules: identical across all 2 structures (digest",
        "often below 10% of their respective theoretical worst cases",
        "![Figure 5 for synthetic",
        "![Figure 6 for synthetic on rbtree",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    let html = fs::read_to_string(&page).unwrap();
    assert!(html.contains("<p id=\"render-check\">") && html.contains("<img src=\"fig5-1-synthetic.svg\""));
    for plot in ["fig5-1-synthetic.svg", "fig6-1-synthetic.svg"] {
        let svg = fs::read_to_string(dir.join(plot)).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{plot}");
    }
    fs::remove_dir_all(dir).unwrap();
}
