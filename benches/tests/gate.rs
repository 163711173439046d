//! The gate (`benches/src/gate.rs`): growth over the threshold fails, naming the place.

use benches::gate::regressions;
use benches::work::Work;

fn work(structure: &str, visited: u64, search: u64) -> Work {
    Work {
        structure: structure.into(),
        op: "check".into(),
        state: "kth-1000".into(),
        calls: 100,
        search,
        visited,
        worst: 5_000,
    }
}

#[test]
fn the_unchanged_tree_passes_and_a_ten_percent_slowdown_fails() {
    let baseline = [work("rbtree", 1_000, 200), work("list", 1_000, 900)];
    assert!(regressions(&baseline, &baseline, 5.0).is_empty());
    let slower = [work("rbtree", 1_100, 200), work("list", 1_000, 900)];
    assert_eq!(
        regressions(&baseline, &slower, 5.0),
        ["rbtree check on kth-1000: visited 1000 -> 1100 (+10.0 %), over the 5 % limit"]
    );
    let within = [work("rbtree", 1_040, 209), work("list", 990, 900)];
    assert!(regressions(&baseline, &within, 5.0).is_empty());
}

#[test]
fn a_measurement_that_disappears_fails_and_a_new_one_does_not() {
    let baseline = [work("rbtree", 10, 0)];
    let current = [work("calendar", 10, 0)];
    assert_eq!(regressions(&baseline, &current, 5.0), ["rbtree check on kth-1000: no longer measured"]);
    assert!(regressions(&[], &current, 5.0).is_empty());
    let from_zero = [work("rbtree", 10, 1)];
    assert_eq!(regressions(&baseline, &from_zero, 5.0).len(), 1, "search grew from 0");
}
