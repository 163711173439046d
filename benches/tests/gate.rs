//! The gate (`benches/src/gate.rs`): growth over the threshold fails, naming the place.

use benches::gate::{regressions, Instructions, Measurements};
use benches::work::Work;
use oracle::OpKind;

fn work(structure: &str, visited: u64, search: u64) -> Work {
    Work {
        structure: structure.into(),
        op: OpKind::Check,
        state: "kth-1000".into(),
        calls: 100,
        search,
        visited,
        worst: 5_000,
    }
}

fn instructions(structure: &str, count: u64) -> Instructions {
    Instructions {
        structure: structure.into(),
        op: OpKind::Check,
        state: "kth-1000".into(),
        instructions: count,
    }
}

fn measured(work: Vec<Work>, instructions: Vec<Instructions>) -> Measurements {
    Measurements { work, instructions }
}

#[test]
fn the_unchanged_tree_passes_and_a_ten_percent_slowdown_fails() {
    let baseline = measured(
        vec![work("rbtree", 1_000, 200), work("list", 1_000, 900)],
        vec![instructions("rbtree", 50_000)],
    );
    assert!(regressions(&baseline, &baseline, 5.0).is_empty());
    let slower = measured(
        vec![work("rbtree", 1_100, 200), work("list", 1_000, 900)],
        vec![instructions("rbtree", 55_000)],
    );
    assert_eq!(
        regressions(&baseline, &slower, 5.0),
        [
            "rbtree check on kth-1000: visited 1000 -> 1100 (+10.0 %), over the 5 % limit",
            "rbtree check on kth-1000: instructions 50000 -> 55000 (+10.0 %), over the 5 % limit"
        ]
    );
    let within = measured(
        vec![work("rbtree", 1_040, 209), work("list", 990, 900)],
        vec![instructions("rbtree", 52_000)],
    );
    assert!(regressions(&baseline, &within, 5.0).is_empty());
}

#[test]
fn a_measurement_that_disappears_fails_and_a_new_one_does_not() {
    let baseline = measured(vec![work("rbtree", 10, 0)], Vec::new());
    let current = measured(vec![work("calendar", 10, 0)], Vec::new());
    assert_eq!(
        regressions(&baseline, &current, 5.0),
        [
            "rbtree check on kth-1000: visited no longer measured",
            "rbtree check on kth-1000: search no longer measured"
        ]
    );
    assert!(regressions(&Measurements::default(), &current, 5.0).is_empty());
    let from_zero = measured(vec![work("rbtree", 10, 1)], Vec::new());
    assert_eq!(regressions(&baseline, &from_zero, 5.0).len(), 1, "search grew from 0");
}

#[test]
fn a_kind_of_measurement_read_empty_fails_once_saying_so() {
    let baseline = measured(vec![work("rbtree", 10, 0)], vec![instructions("rbtree", 100)]);
    let no_instructions = measured(vec![work("rbtree", 10, 0)], Vec::new());
    assert_eq!(
        regressions(&baseline, &no_instructions, 5.0),
        ["read no instruction measurement, where the baseline has 1"]
    );
    assert_eq!(
        regressions(&baseline, &Measurements::default(), 5.0),
        [
            "read no work measurement, where the baseline has 1",
            "read no instruction measurement, where the baseline has 1"
        ]
    );
    let gone = measured(vec![work("rbtree", 10, 0)], vec![instructions("list", 100)]);
    assert_eq!(
        regressions(&baseline, &gone, 5.0),
        ["rbtree check on kth-1000: instructions no longer measured"]
    );
}

/// What `ci/gate` does when gungraun wrote nothing: `work --instructions` reads an empty
/// folder as no measurement, and the gate against the committed baseline fails.
#[test]
fn an_emptied_gungraun_folder_fails_the_gate() {
    let empty = std::env::temp_dir().join(format!("resbench-gate-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let read = benches::gate::read_gungraun(&empty).unwrap();
    std::fs::remove_dir_all(&empty).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ci/baseline.json");
    let baseline: Measurements = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let current = Measurements { work: baseline.work.clone(), instructions: read };
    let failures = regressions(&baseline, &current, 5.0);
    assert_eq!(
        failures,
        [format!("read no instruction measurement, where the baseline has {}", baseline.instructions.len())]
    );
}

#[test]
fn gungraun_summaries_are_read_by_structure_state_and_operation() {
    // The fields the reader uses, cut from a summary gungraun 0.20.0 wrote.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let read = benches::gate::read_gungraun(&dir).unwrap();
    // 12,802 in all, less 800 spent in calls into the allocator from outside it (the
    // `.old` copy, gungraun's previous run, is not read).
    assert_eq!(read, [Instructions { instructions: 12_002, ..instructions("rbtree", 0) }]);
}

#[test]
fn the_allocator_is_counted_once_per_call_from_outside_it() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = std::fs::read_to_string(dir.join("callgrind.calls.check_0.out")).unwrap();
    assert_eq!(benches::gate::allocator_instructions(&text), Ok(800));
    assert!(benches::gate::allocator_instructions("fn=x\n").is_err(), "no events line");
}

/// `work --out ci/baseline.json` refreshes the baseline: what it writes for the committed
/// measurements must be the committed bytes, instruction counts in the order
/// `read_gungraun` gives them.
#[test]
fn the_committed_baseline_is_written_back_byte_for_byte() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ci/baseline.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let baseline: Measurements = serde_json::from_str(&text).unwrap();
    assert!(!baseline.work.is_empty() && !baseline.instructions.is_empty());
    assert_eq!(serde_json::to_string_pretty(&baseline).unwrap() + "\n", text);
    let key = |i: &Instructions| (i.structure.clone(), i.op.name(), i.state.clone());
    assert!(
        baseline.instructions.windows(2).all(|w| key(&w[0]) < key(&w[1])),
        "not in read_gungraun's order"
    );
}
