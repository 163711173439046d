//! `src/error.rs`: every error names what failed and where, and ends with its cause's
//! text, never also giving the cause as its `source`, so that printed through `anyhow`
//! (`{:#}`) each cause appears once.

use std::error::Error as _;
use std::io;
use std::path::{Path, PathBuf};

use coreserve::polling::PollingError;
use reporting::bench_file::{BenchFile, BENCH_KIND};
use reporting::fuzz_campaign::MAX_RECORDS;
use reporting::report::bench::{README_BEGIN, README_END};
use reporting::run_file::RunFile;
use reporting::{Error, Invalid};

fn path() -> PathBuf {
    PathBuf::from("/data/runs/a.json")
}

fn denied() -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, "denied")
}

fn json_error() -> serde_json::Error {
    serde_json::from_str::<serde_json::Value>("{").unwrap_err()
}

#[test]
fn each_message_names_the_file_and_ends_with_its_cause() {
    let (p, json) = ("/data/runs/a.json", json_error().to_string());
    let cases: Vec<(Error, String)> = vec![
        (Error::CreateDir { path: path(), cause: denied() }, format!("cannot create {p}: denied")),
        (
            Error::CreateNew { path: path(), cause: denied() },
            format!("cannot create {p} (results are never overwritten): denied"),
        ),
        (Error::Write { path: path(), cause: denied() }, format!("cannot write {p}: denied")),
        (Error::Read { path: path(), cause: denied() }, format!("cannot read {p}: denied")),
        (Error::Encode { what: "the run", cause: json_error() }, format!("cannot encode the run: {json}")),
        (Error::NotJson { path: path(), cause: json_error() }, format!("{p}: not JSON: {json}")),
        (
            Error::Decode { path: path(), kind: "a run file", cause: json_error() },
            format!("{p}: not a run file: {json}"),
        ),
        (Error::NotBenchFile { path: path(), kind: BENCH_KIND }, format!("{p}: not a benchmark file (no \"kind\": \"benchmarks\")")),
        (Error::Schema { path: path(), found: Some(2), reads: 1 }, format!("{p}: schema Some(2), this build reads 1")),
        (Error::Schema { path: path(), found: None, reads: 1 }, format!("{p}: schema None, this build reads 1")),
        (
            Error::Invalid { path: path(), why: Invalid::Capacity },
            format!("{p}: capacity 0: a machine has at least one resource"),
        ),
        (Error::Record { path: path(), line: 3, cause: json_error() }, format!("{p}:3: not a record: {json}")),
        (
            Error::Counts { path: path(), line: 7, cases: 0, ops: 5, divergences: 0 },
            format!("{p}:7: 0 cases for 5 ops and 0 divergences: a run counts at least one op a case and stops at its first divergence"),
        ),
        (
            Error::TooManyRecords { path: path(), limit: MAX_RECORDS, line: 12 },
            format!("{p}:12: more than {MAX_RECORDS} records (the record limit)"),
        ),
        (Error::OpenAppend { path: path(), cause: denied() }, format!("{p}: cannot open for appending: denied")),
        (Error::Append { path: path(), cause: denied() }, format!("{p}: cannot append: denied")),
        (Error::NoMarkers { path: path(), begin: README_BEGIN, end: README_END }, format!("{p}: no summary markers ({README_BEGIN} … {README_END})")),
        (Error::MarkersOutOfOrder { path: path() }, format!("{p}: the summary markers are out of order")),
        (
            Error::NoNumber { key: "cov:", line: "#5 INITED".into() },
            "no number after `cov:` in \"#5 INITED\"".into(),
        ),
        (Error::UnknownFigure { id: "9.9".into() }, "the results hold figure 9.9, which this build does not know".into()),
        (Error::Plot { cause: Box::new(denied()) }, "cannot draw the plot: denied".into()),
        (
            Error::Polling(PollingError::MessageCost { c: -1.0 }),
            "message cost c -1 must be a finite number >= 0".into(),
        ),
        (Error::NoBenchFiles, "no benchmark files".into()),
        (Error::NoPoints, "no points to plot".into()),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
        // The cause is in the text already, so it is not the source too.
        assert!(error.source().is_none(), "{text} has a source");
    }
}

#[test]
fn invalid_values_name_the_field_and_the_value() {
    let time = Invalid::Time {
        index: 3,
        structure: "rbtree".into(),
        operation: "check".into(),
        state: "synthetic-100".into(),
        field: "median_ns",
        value: -1.0,
    };
    assert_eq!(
        time.to_string(),
        "results[3] (rbtree check on synthetic-100): median_ns is -1.0, not a positive finite time"
    );
    assert_eq!(Invalid::Memory(f64::NAN).to_string(), "machine.memory_gib is NaN, not a finite size");
    let range = Invalid::OutOfRange { field: "schedule.utilisation", value: 1.5, max: 1.0 };
    assert_eq!(range.to_string(), "schedule.utilisation is 1.5, not a number in 0..=1.0");
}

#[test]
fn the_errors_readers_and_writers_return_name_their_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let shown = |p: &Path| p.display().to_string();
    // A file that is not there: the loader's message, which names it.
    let missing = dir.join("missing.json");
    let err = BenchFile::read(&missing).unwrap_err();
    assert!(matches!(err, Error::Load { .. }) && err.to_string().contains(&shown(&missing)), "{err}");
    // Not JSON: the file, then the parser's position.
    let text = dir.join("text.json");
    std::fs::write(&text, "runs").unwrap();
    let err = RunFile::read(&text).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}: not JSON: expected", shown(&text))), "{err}");
    // A report into a folder under a file: the folder.
    let blocked = dir.join("a-file");
    std::fs::write(&blocked, "").unwrap();
    let out = blocked.join("report");
    let err = reporting::report::render(&[], &out, "resbench report").unwrap_err();
    assert!(matches!(err, Error::CreateDir { .. }), "{err:?}");
    assert!(err.to_string().starts_with(&format!("cannot create {}: ", shown(&out))), "{err}");
    assert_eq!(
        reporting::report::bench::render(&[], &out, "x", None).unwrap_err().to_string(),
        "no benchmark files"
    );
}
