//! Run files (`src/run_file.rs`): written, read back, and refused at another schema.

use reporting::run_file::{RecordedWaits, RunFile, Setup, TraceInfo, SCHEMA};
use scheduling::replay::{replay, Options, ReplayConfig, Silent};
use structures::{Config, Kind};
use traces::synthetic::Synthetic;
use traces::workload::{Request, Workload};

fn record() -> RunFile {
    let params = Synthetic {
        jobs: 300,
        capacity: 32,
        mean_gap: 60.0,
        max_size: 8,
        min_time: 60,
        max_time: 3_600,
        seed: 3,
    };
    let load = params.workload().unwrap();
    let options = Options { ar_fraction: 0.25, ..Options::default() };
    let setup = ReplayConfig { options, ..ReplayConfig::default() };
    let run = replay(Kind::RbTree, &load, &setup, &mut Silent).unwrap();
    let info = TraceInfo {
        name: params.describe(),
        header: Vec::new(),
        selection: None,
        jobs_read: 300,
        skipped: Default::default(),
        renumbered: 0,
        requests: 300,
        recorded_waits: None,
    };
    let setup = Setup {
        command: "resbench replay".into(),
        trace: info,
        config: Config::default(),
        options,
        trim: 10,
        sweep_runs: None,
    };
    RunFile::new(&setup, &load, &run)
}

#[test]
fn a_run_file_round_trips() {
    let file = record();
    assert_eq!(file.schema, SCHEMA);
    // Every job is checked once: at its submit time, or a reservation at its start.
    assert_eq!(file.operations.check.calls, 300);
    assert_eq!(file.operations.check.kept, file.operations.check.calls - 20);
    assert!(file.schedule.utilisation > 0.0 && file.schedule.utilisation <= 1.0, "{:?}", file.schedule);
    assert!(file.schedule.ar_requested > 40 && file.schedule.ar_admitted <= file.schedule.ar_requested);
    // Every percentile of the waits, the 99th being the one reported beside the mean.
    let waits = file.schedule.waits.as_ref().unwrap();
    let q = &waits.quantiles;
    assert_eq!(q.len(), 100);
    assert!(q.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1), "{q:?}");
    assert_eq!(q[98], (0.99, file.schedule.p99_wait));
    // The groups hold every job that queued, and their waits average to the mean.
    for groups in [&waits.by_size, &waits.by_length] {
        let jobs: u64 = groups.iter().map(|g| g.jobs).sum();
        assert_eq!(jobs, file.schedule.placed as u64 - file.schedule.ar_admitted);
        let mean = groups.iter().map(|g| g.mean_wait * g.jobs as f64).sum::<f64>() / jobs as f64;
        assert!((mean - file.schedule.mean_wait).abs() < 1e-6 * mean.max(1.0), "{mean}");
    }
    // Sizes of at most 8 and lengths of at most an hour: one group each.
    assert_eq!(waits.by_size.iter().map(|g| g.upto).collect::<Vec<_>>(), [50]);
    assert_eq!(waits.by_length.iter().map(|g| g.upto).collect::<Vec<_>>(), [3_600]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let path = file.write(dir).unwrap();
    assert_eq!(path, dir.join("synthetic.ar0.25.rbtree.json"));
    assert_eq!(RunFile::read(&path).unwrap(), file);
}

#[test]
fn recorded_waits_are_the_logged_ones_and_unknown_ones_are_counted() {
    let job = |id: i64, recorded_wait: Option<u64>| Request {
        id,
        submit: 0,
        n: 1,
        duration: 10,
        runtime: 10,
        recorded_wait,
    };
    let load = Workload {
        capacity: 4,
        requests: vec![job(1, Some(30)), job(2, None), job(3, Some(0)), job(4, Some(10))],
        skipped: Default::default(),
    };
    let r = RecordedWaits::new(&load).unwrap();
    assert_eq!((r.jobs, r.unknown), (3, 1));
    assert!((r.mean - 40.0 / 3.0).abs() < 1e-9, "{}", r.mean);
    // Nearest rank over [0, 10, 30].
    assert_eq!(r.quantiles[0], (0.01, 0));
    assert_eq!(r.quantiles[49], (0.5, 10));
    assert_eq!(r.quantiles[99], (1.0, 30));
    let none = Workload { requests: vec![job(1, None)], ..load };
    assert_eq!(RecordedWaits::new(&none), None);
}

#[test]
fn another_schema_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let path = dir.join("old.json");
    std::fs::write(&path, r#"{"schema": 0}"#).unwrap();
    let err = RunFile::read(&path).unwrap_err().to_string();
    assert!(err.contains("schema Some(0), this build reads 1"), "{err}");
}

#[test]
fn files_are_named_from_the_trace_file() {
    let info = |name: &str| TraceInfo {
        name: name.into(),
        header: Vec::new(),
        selection: None,
        jobs_read: 0,
        skipped: Default::default(),
        renumbered: 0,
        requests: 0,
        recorded_waits: None,
    };
    assert_eq!(info("KTH-SP2-1996-2.1-cln.swf.gz (bundled)").stem(), "KTH-SP2-1996-2.1-cln");
    assert_eq!(info("../shared/traces/CTC-SP2-1996-3.1-cln.swf").stem(), "CTC-SP2-1996-3.1-cln");
    assert_eq!(info("synthetic: 10 jobs, seed 1").stem(), "synthetic");
}

/// The committed replay reports are published data: reading one and writing it again
/// must give the same bytes (the operation counts, say, stay in name order) under the
/// same name.
#[test]
fn committed_run_files_are_written_back_byte_for_byte() {
    let reports = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports");
    let scratch = std::env::temp_dir().join(format!("resbench-run-files-{}", std::process::id()));
    let mut checked = 0;
    for dir in std::fs::read_dir(&reports).unwrap().map(|e| e.unwrap().path()) {
        // reports/fuzz holds the fuzz campaigns, coverage and mutation records, not runs.
        if !dir.is_dir() || dir.ends_with("benchmarks") || dir.ends_with("fuzz") {
            continue;
        }
        for path in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
            // The RSPB figures' results (tests/report/rspb.rs) and the co-reservation load
            // figures (tests/coreserve/service/load.rs) are other kinds of file.
            if path.extension().is_none_or(|x| x != "json")
                || path.ends_with(scheduling::rspb::results::RSPB_FILE)
                || path.ends_with(coreserve::services::LOAD_FILE)
            {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let file = RunFile::read(&path).unwrap();
            assert!(
                serde_json::to_string(&file).unwrap() + "\n" == text,
                "{} changes when rewritten",
                path.display()
            );
            let written = file.write(&scratch).unwrap();
            assert_eq!(written.file_name(), path.file_name(), "{} is misnamed", path.display());
            std::fs::remove_file(written).unwrap();
            checked += 1;
        }
    }
    std::fs::remove_dir_all(scratch).unwrap();
    assert!(checked > 0, "no run files under {}", reports.display());
}
