//! Benchmark result files (`src/bench_file.rs`): appended, never overwritten, and read
//! back only when they say what they are.

use std::fs;

use reporting::bench_file::BenchFile;

#[path = "support/bench_files.rs"]
mod bench_files;
use bench_files::file;

#[test]
fn a_file_is_written_once_and_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let original = file("2026-11-22T10:00:00Z", |_, _| 1.0);
    let path = original.write_new(dir).unwrap();
    assert!(path.ends_with("2026-11-22T100000Z-abc123.json"), "{}", path.display());
    assert_eq!(BenchFile::read(&path).unwrap(), original);
    let again = original.write_new(dir).unwrap_err();
    assert!(format!("{again:#}").contains("never overwritten"), "{again:#}");
}

#[test]
fn other_files_and_schemas_are_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let run_file = dir.join("run.json");
    fs::write(&run_file, r#"{"schema": 1, "structure": "rbtree"}"#).unwrap();
    let error = format!("{:#}", BenchFile::read(&run_file).unwrap_err());
    assert!(error.contains("run.json: not a benchmark file"), "{error}");
    let future = dir.join("future.json");
    fs::write(&future, r#"{"schema": 2, "kind": "benchmarks"}"#).unwrap();
    let error = format!("{:#}", BenchFile::read(&future).unwrap_err());
    assert!(error.contains("future.json: schema Some(2), this build reads 1"), "{error}");
}
