//! Run files (`src/run_file.rs`): written, read back, and refused at another schema.

use resbench::replay::{replay, Options, ReplayConfig, Silent};
use resbench::run_file::{RunFile, Setup, TraceInfo, SCHEMA};
use resbench::synthetic::Synthetic;
use structures::{Config, Kind};

fn folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("resbench-run-file-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

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
    };
    let setup = Setup {
        command: "resbench replay".into(),
        trace: info,
        config: Config::default(),
        options,
        trim: 10,
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
    let dir = folder("round-trip");
    let path = file.write(&dir).unwrap();
    assert_eq!(path, dir.join("synthetic.ar0.25.rbtree.json"));
    assert_eq!(RunFile::read(&path).unwrap(), file);
}

#[test]
fn another_schema_is_refused_by_name() {
    let dir = folder("schema");
    std::fs::create_dir_all(&dir).unwrap();
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
    };
    assert_eq!(info("KTH-SP2-1996-2.1-cln.swf.gz (bundled)").stem(), "KTH-SP2-1996-2.1-cln");
    assert_eq!(info("../shared/traces/CTC-SP2-1996-3.1-cln.swf").stem(), "CTC-SP2-1996-3.1-cln");
    assert_eq!(info("synthetic: 10 jobs, seed 1").stem(), "synthetic");
}

/// The committed replay reports are published data: reading one and writing it again
/// must give the same bytes (the operation counts, say, stay in name order).
#[test]
fn committed_run_files_are_written_back_byte_for_byte() {
    let reports = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports");
    let mut checked = 0;
    for dir in std::fs::read_dir(&reports).unwrap().map(|e| e.unwrap().path()) {
        if !dir.is_dir() || dir.ends_with("benchmarks") {
            continue;
        }
        for path in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let file = RunFile::read(&path).unwrap();
            assert!(
                serde_json::to_string(&file).unwrap() + "\n" == text,
                "{} changes when rewritten",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no run files under {}", reports.display());
}
