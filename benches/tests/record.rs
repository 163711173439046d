//! Collecting a benchmark run (`benches/src/record.rs`): criterion's result folders read
//! into results, the uncounted build told apart, and the exact counts attached.

use std::fs;
use std::path::Path;

use benches::gate::Instructions;
use benches::record::{annotate, criterion, machine};
use benches::work::Work;
use oracle::OpKind;
use reporting::bench_file::REPLAY;

fn result(dir: &Path, group: &str, function: &str, value: &str, elements: u64, median: f64) {
    let folder = dir.join(group.replace('/', "_")).join(function).join(value).join("new");
    fs::create_dir_all(&folder).unwrap();
    let bench = serde_json::json!({
        "group_id": group, "function_id": function, "value_str": value,
        "throughput": {"Elements": elements}, "full_id": format!("{group}/{function}/{value}"),
        "directory_name": format!("{group}/{function}/{value}"), "title": format!("{group}/{function}/{value}"),
    });
    let estimate = |point: f64| {
        serde_json::json!({
            "confidence_interval": {"confidence_level": 0.95, "lower_bound": point * 0.9, "upper_bound": point * 1.1},
            "point_estimate": point, "standard_error": 1.0,
        })
    };
    let estimates = serde_json::json!({
        "mean": estimate(median), "median": estimate(median), "median_abs_dev": estimate(median / 20.0),
        "slope": null, "std_dev": estimate(median / 10.0),
    });
    fs::write(folder.join("benchmark.json"), bench.to_string()).unwrap();
    fs::write(folder.join("estimates.json"), estimates.to_string()).unwrap();
}

#[test]
fn criterion_results_are_read_with_their_sizes_and_counts() {
    let dir = std::env::temp_dir().join(format!("resbench-record-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let check = OpKind::Check.name();
    result(&dir, check, "rbtree", "kth-1000", 100, 5_000.0);
    result(&dir, &format!("uncounted/{check}"), "rbtree", "kth-1000", 100, 4_000.0);
    result(&dir, REPLAY, "list", "kth-5000", 5_000, 1e9);
    let size = |state: &str| match state {
        "kth-1000" => Some(321),
        "kth-5000" => Some(123), // a state of the replay's name
        _ => None,
    };
    let mut results = criterion(&dir, &size).unwrap();
    assert_eq!(results.len(), 3);
    let counted = results.iter().find(|r| r.operation == check && r.counted).unwrap();
    assert_eq!(
        (counted.size, counted.calls, counted.median_ns, counted.per_call_ns()),
        (321, 100, 5_000.0, 50.0)
    );
    assert_eq!((counted.low_ns, counted.high_ns, counted.mad_ns), (4_500.0, 5_500.0, 250.0));
    assert!(results.iter().any(|r| r.operation == check && !r.counted && r.median_ns == 4_000.0));
    let replay = results.iter().find(|r| r.operation == REPLAY).unwrap();
    assert_eq!((replay.size, replay.calls), (5_000, 5_000), "a replay's size is its jobs");

    let work = vec![Work {
        structure: "rbtree".into(),
        op: OpKind::Check,
        state: "kth-1000".into(),
        calls: 100,
        search: 1,
        visited: 7,
        worst: 70,
    }];
    let counts = vec![Instructions {
        structure: "rbtree".into(),
        op: OpKind::Check,
        state: "kth-1000".into(),
        instructions: 99,
    }];
    annotate(&mut results, &counts, &work);
    let counted = results.iter().find(|r| r.operation == check && r.counted).unwrap();
    assert_eq!((counted.instructions, counted.visited, counted.worst), (Some(99), Some(7), Some(70)));
    let uncounted = results.iter().find(|r| !r.counted).unwrap();
    assert_eq!(
        (uncounted.instructions, uncounted.visited),
        (None, None),
        "the uncounted build has no counts"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_that_is_not_there_is_named() {
    let error = criterion(Path::new("/no/such/criterion"), &|_| None).unwrap_err().to_string();
    assert!(error.contains("/no/such/criterion"), "{error}");
}

#[test]
fn the_machine_is_described() {
    let m = machine();
    assert!(m.cores >= 1 && !m.cpu.is_empty() && m.rustc.starts_with("rustc"), "{m:?}");
}
