//! `src/report/coalloc.rs`: coallocation-2d-trees' section 5 on one workload, with the
//! batch baselines, the recorded waits and a sweep over ρ.

use super::{assert_contains, replayed, synthetic};
use std::fs;

use reporting::report::render;
use reporting::run_file::{trace_info, RunFile, Setup, TraceInfo};
use scheduling::policy::{Attempts, PolicyKind};
use scheduling::replay::Options;
use structures::{Config, Kind};

fn runs() -> Vec<RunFile> {
    let params = synthetic(300, 64, 40.0, 64, (600, 7_200), 4);
    let mut load = params.workload().unwrap();
    // A log's own waits, one unknown.
    for (k, r) in load.requests.iter_mut().enumerate() {
        r.recorded_wait = (k != 0).then_some(60 * k as u64);
    }
    let config = Config { slot: 300, horizon: Some(10 * 86_400) };
    let trace: TraceInfo = trace_info(&Default::default(), &load, None);
    let attempts = Some(Attempts { delta: 900, rmax: 100 });
    [(PolicyKind::Coalloc, 0.0), (PolicyKind::Coalloc, 0.5), (PolicyKind::Easy, 0.0), (PolicyKind::Fcfs, 0.0)]
        .into_iter()
        .map(|(policy, ar_fraction)| {
            let attempts = attempts.filter(|_| policy == PolicyKind::Coalloc);
            let options = Options { policy, ar_fraction, attempts, ..Options::default() };
            let setup =
                Setup { command: "resbench replay".into(), trace: trace.clone(), config, options, trim: 0 };
            replayed(Kind::RbTree, &load, &setup)
        })
        .collect()
}

#[test]
fn the_coalloc_section_has_table_2_the_baselines_the_recorded_waits_and_the_sweep() {
    let runs = runs();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    render(&runs, dir, "resbench report").unwrap();
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    let recorded = runs[0].trace.recorded_waits.as_ref().unwrap();
    assert_eq!((recorded.jobs, recorded.unknown), (299, 1));
    assert_contains(&md, &[
        "## Online co-allocation on trace, 64 resources",
        "| n_r | requests | attempts per request | the paper's Table 2 | mean W_r, `coalloc` (Fig 5) | mean wait, `easy` | mean wait, `fcfs` |",
        "| (0:50] |",
        "| (50:100] |",
        "| `coalloc` |",
        "| `easy` |",
        "| `fcfs` |",
        "| recorded: the trace's own log (299 jobs; 1 without a wait) |",
        "### Against ρ, the share of advance reservations (Figs 6 and 7), on trace",
        "| 0.5 | 300 |",
        "the paper prints no Table 2 row for this trace",
        "against `easy`",
    ]);
    for fig in [3, 4, 5, 6] {
        let svg = fs::read_to_string(dir.join(format!("coalloc-fig{fig}-trace-64.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "Fig {fig}");
    }
    // The recorded waits are in Fig 4 beside the policies; each ρ is a line of Fig 6.
    let fig4 = fs::read_to_string(dir.join("coalloc-fig4-trace-64.svg")).unwrap();
    assert!(["coalloc", "easy", "fcfs", "recorded"].iter().all(|name| fig4.contains(name)), "{fig4}");
    let fig6 = fs::read_to_string(dir.join("coalloc-fig6-trace-64.svg")).unwrap();
    assert!(fig6.contains("ρ = 0") && fig6.contains("ρ = 0.5"));
}
