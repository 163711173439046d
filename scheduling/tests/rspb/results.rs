//! `src/rspb/results.rs`: the figures' results file. It round-trips, and a file of
//! another kind or schema, not JSON, not parsing, or holding values a report cannot
//! draw is refused with a message naming the file. A sweep's parts merge into what a
//! single run writes, and parts that do not add up to one sweep are refused.

use std::fs;
use std::path::{Path, PathBuf};

use scheduling::rspb::experiment::{
    figures, samples, sweep, Estimate, Figure, FigureResult, Point, Series, FLOOR,
};
use scheduling::rspb::results::{
    is_rspb_file, merge, InvalidResults, PartFile, ResultsError, ResultsFile, RSPB_FILE, RSPB_KIND,
    RSPB_PART_KIND, RSPB_SCHEMA,
};
use structures::Kind;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("resbench-rspb-results-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn point(x: f64, rejected: f64) -> Point {
    let e = |mean| Estimate { mean, half: 0.5 };
    Point {
        x,
        requests: e(30.0),
        rejected: e(rejected),
        rejected_priority: e(10.0 * rejected),
        reserved_cpu: e(35.0),
        requested_cpu: e(45.0),
        system_benefit: e(0.75),
        ops_per_request: e(12.0),
    }
}

/// Fig 4.4 at 2 and 4 machines, two curves.
fn file() -> ResultsFile {
    let series = |algorithm: &str, r: f64| Series {
        algorithm: algorithm.into(),
        points: vec![point(2.0, 3.0 * r), point(4.0, r)],
    };
    ResultsFile {
        kind: RSPB_KIND.into(),
        schema: RSPB_SCHEMA,
        git_revision: "abc123".into(),
        command: "resbench rspb --figure 4.4".into(),
        structure: Kind::SegmentTree,
        first_seed: 1,
        seeds: 2,
        figures: vec![FigureResult {
            id: "4.4".into(),
            series: vec![series("rb", 2.0), series("rspb", 1.0)],
        }],
    }
}

/// `text` written to `name` in `dir`, and what reading it says.
fn read(dir: &Path, name: &str, text: &str) -> (PathBuf, ResultsError) {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    let err = ResultsFile::read(&path).unwrap_err();
    (path, err)
}

#[test]
fn a_results_file_is_written_into_its_folder_and_read_back() {
    let dir = scratch("round-trip");
    // The folder is made if need be.
    let nested = dir.join("a").join("b");
    let path = file().write(&nested).unwrap();
    assert_eq!(path, nested.join(RSPB_FILE));
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.ends_with("}\n"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!((json["kind"].as_str(), json["schema"].as_u64()), (Some(RSPB_KIND), Some(1)));
    assert_eq!(json["structure"], "segtree");
    assert!(is_rspb_file(&json));
    assert_eq!(ResultsFile::read(&path).unwrap(), file());
    // Written again, it is replaced, not appended to.
    let mut newer = file();
    newer.git_revision = "def456".into();
    newer.write(&nested).unwrap();
    assert_eq!(ResultsFile::read(&path).unwrap(), newer);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn other_files_are_refused_naming_the_file() {
    let dir = scratch("refused");
    let missing = dir.join("missing.json");
    let err = ResultsFile::read(&missing).unwrap_err();
    assert!(
        matches!(err, ResultsError::Read { .. }) && err.to_string().contains(&missing.display().to_string()),
        "{err}"
    );
    let (p, err) = read(&dir, "text.json", "figures, not JSON");
    assert!(matches!(err, ResultsError::NotJson { .. }), "{err:?}");
    assert_eq!(err.to_string(), format!("{}: not JSON", p.display()));
    // The parser's own message is the error's source, not repeated in its text.
    assert!(std::error::Error::source(&err).is_some());
    let (p, err) = read(&dir, "bench.json", r#"{"kind": "benchmarks", "schema": 1}"#);
    assert_eq!(
        err.to_string(),
        format!("{}: not an rspb results file (no \"kind\": \"rspb-figures\")", p.display())
    );
    let (p, err) = read(&dir, "none.json", r#"{"kind": "rspb-figures"}"#);
    assert_eq!(err.to_string(), format!("{}: schema None, this build reads 1", p.display()));
    let (p, err) = read(&dir, "two.json", r#"{"kind": "rspb-figures", "schema": 2}"#);
    assert_eq!(err.to_string(), format!("{}: schema Some(2), this build reads 1", p.display()));
    let (p, err) = read(&dir, "bare.json", r#"{"kind": "rspb-figures", "schema": 1}"#);
    assert!(matches!(err, ResultsError::Parse { .. }), "{err:?}");
    assert_eq!(err.to_string(), format!("{}: not an rspb results file", p.display()));
    // A field this build does not know is refused, not dropped.
    let mut extra = serde_json::to_value(file()).unwrap();
    extra["seed"] = 1.into();
    let (_, err) = read(&dir, "extra.json", &extra.to_string());
    assert!(matches!(err, ResultsError::Parse { .. }), "{err:?}");
    // Values a report cannot draw: refused by `validate`, naming the file, the figure,
    // the curve and the point.
    let mut negative = file();
    negative.figures[0].series[1].points[1].rejected.mean = -1.0;
    let (p, err) = read(&dir, "negative.json", &serde_json::to_string(&negative).unwrap());
    assert_eq!(
        err.to_string(),
        format!("{}: figure 4.4, rspb: a value at x = 4 is not a finite, non-negative number", p.display())
    );
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn validation_names_the_figure_and_what_is_wrong() {
    assert_eq!(file().validate(), Ok(()));
    let broken = |f: &dyn Fn(&mut ResultsFile)| {
        let mut file = file();
        f(&mut file);
        file.validate().unwrap_err()
    };
    let points = InvalidResults::Points { figure: "4.4".into() };
    assert_eq!(broken(&|f| f.figures[0].series.clear()), InvalidResults::NoSeries { figure: "4.4".into() });
    assert_eq!(broken(&|f| f.figures[0].series.iter_mut().for_each(|s| s.points.clear())), points);
    assert_eq!(broken(&|f| f.figures[0].series[1].points.truncate(1)), points);
    let value =
        |algorithm: &str, x| InvalidResults::Value { figure: "4.4".into(), algorithm: algorithm.into(), x };
    assert_eq!(
        broken(&|f| f.figures[0].series[0].points[0].system_benefit.half = f64::NAN),
        value("rb", 2.0)
    );
    assert_eq!(
        broken(&|f| f.figures[0].series[1].points[1].ops_per_request.mean = f64::INFINITY),
        value("rspb", 4.0)
    );
    let err = broken(&|f| f.figures[0].series[0].points[1].x = f64::NAN);
    assert!(
        matches!(err, InvalidResults::Value { ref algorithm, x, .. } if algorithm == "rb" && x.is_nan()),
        "{err:?}"
    );
    assert_eq!(
        value("rb", 2.0).to_string(),
        "figure 4.4, rb: a value at x = 2 is not a finite, non-negative number"
    );
    // No figure is nothing wrong.
    assert_eq!(ResultsFile { figures: Vec::new(), ..file() }.validate(), Ok(()));
}

#[test]
fn a_folder_that_cannot_be_made_is_named() {
    let dir = scratch("blocked");
    let blocked = dir.join("a-file");
    fs::write(&blocked, "").unwrap();
    let err = file().write(&blocked.join("out")).unwrap_err();
    assert!(matches!(err, ResultsError::CreateDir { .. }), "{err:?}");
    assert_eq!(err.to_string(), format!("cannot create {}", blocked.join("out").display()));
    assert!(std::error::Error::source(&err).is_some());
    fs::remove_dir_all(dir).unwrap();
}

/// The parts of a sweep of `floor` at one seed, in `n` shards, as `rspb --figure floor
/// --shard K/N` writes them.
fn parts(n: u32) -> Vec<(PathBuf, PartFile)> {
    let known = figures();
    let floor: Vec<&Figure> = known.iter().filter(|f| f.id == FLOOR).collect();
    let runs = sweep(&floor, 1, 1).unwrap();
    let all = samples(&floor, &runs, Kind::RbTree, false, &|| {}).unwrap();
    (1..=n)
        .map(|k| {
            let part = PartFile {
                kind: RSPB_PART_KIND.into(),
                schema: RSPB_SCHEMA,
                git_revision: "abc".into(),
                command: "resbench rspb --figure floor".into(),
                structure: Kind::RbTree,
                first_seed: 1,
                seeds: 1,
                figures: vec![FLOOR.into()],
                part: k,
                parts: n,
                samples: all
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % n as usize == k as usize - 1)
                    .map(|(_, s)| s.clone())
                    .collect(),
            };
            (PathBuf::from(part.name()), part)
        })
        .collect()
}

#[test]
fn parts_merge_into_the_single_runs_results_and_nothing_else_does() {
    let whole = merge(&parts(1)).unwrap();
    assert_eq!(merge(&parts(3)).unwrap(), whole);
    assert_eq!(whole.figures[0].series.len(), 3, "chapter 5's three algorithms");
    let refused = |parts: &[(PathBuf, PartFile)], needle: &str| {
        let err = merge(parts).unwrap_err().to_string();
        assert!(err.contains(needle), "{err}");
    };
    let three = parts(3);
    refused(&three[..2], "part 3 of 3 of `resbench rspb --figure floor` is missing");
    refused(&[three.clone(), three[..1].to_vec()].concat(), "rspb-part-1-of-3.json: part 1 of 3 given twice");
    let mut other = three.clone();
    other[1].1.seeds = 2;
    refused(&other, "rspb-part-2-of-3.json: a part of another sweep than rspb-part-1-of-3.json's");
    let mut hostile = parts(1);
    hostile[0].1.parts = u32::MAX;
    refused(&hostile, "4294967295 parts, beyond 1 to 10000 (the shard limit)");
    let mut foreign = parts(1);
    foreign[0].1.samples[0].point = 99;
    refused(&foreign, "the sample of figure floor, point 99, seed 1 is not a run of the sweep");
    let mut lacking = parts(1);
    lacking[0].1.samples[0].runs.pop();
    refused(&lacking, "lacks an algorithm");
    let mut short = parts(1);
    short[0].1.samples.pop();
    refused(&short, "no part holds figure floor, point 6, seed 1");
}
