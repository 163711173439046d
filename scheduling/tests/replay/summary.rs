//! The summaries of a replay's costs (`src/replay/summary.rs`).

use scheduling::replay::{box_stats, ratios, trimmed, unvisited};
use structures::Cost;

fn cost(visited: u64, worst: u64) -> Cost {
    Cost { search: 0, visited, worst }
}

#[test]
fn ratio_percentiles_use_nearest_rank_and_skip_calls_without_a_worst_case() {
    let costs: Vec<Cost> = (1..=100).map(|v| cost(v, 100)).chain([Cost::default()]).collect();
    let r = ratios(&costs);
    assert_eq!((r.calls, r.p50, r.p90, r.p99), (100, 0.5, 0.9, 0.99));
    assert!((r.mean - 0.505).abs() < 1e-12);
}

#[test]
fn trimming_drops_both_ends_only_when_something_is_left() {
    let costs: Vec<Cost> = (0..10).map(|v| cost(v, 10)).collect();
    assert_eq!(trimmed(&costs, 3), &costs[3..7]);
    assert_eq!(trimmed(&costs, 5), &costs[..], "nothing would be left, so nothing is dropped");
    assert_eq!(trimmed(&costs, 0), &costs[..]);
}

#[test]
fn boxes_have_tukey_whiskers_and_count_outliers() {
    // 1 % .. 20 % once each, then one call at 100 %.
    let costs: Vec<Cost> = (1..=20).map(|v| cost(v, 100)).chain([cost(100, 100)]).collect();
    let b = box_stats(&costs).unwrap();
    assert_eq!((b.calls, b.q1, b.median, b.q3), (21, 0.06, 0.11, 0.16));
    // Whiskers reach 1.5 IQR (0.15) past the box: down to 0.01 and up to 0.20.
    assert_eq!((b.low, b.high, b.outliers, b.max), (0.01, 0.20, 1, 1.0));
    assert_eq!(box_stats(&[Cost::default()]), None);
}

#[test]
fn the_unvisited_histogram_counts_calls_by_entries_left() {
    let h = unvisited(&[cost(3, 5), cost(1, 3), cost(5, 5)]);
    assert_eq!(h.into_iter().collect::<Vec<_>>(), [(0, 1), (2, 2)]);
}

#[test]
fn large_unvisited_counts_fall_into_power_of_two_bins() {
    let h = unvisited(&[cost(0, 1_023), cost(0, 1_024), cost(0, 2_047), cost(10, 5_000)]);
    assert_eq!(h.into_iter().collect::<Vec<_>>(), [(1_023, 1), (1_024, 2), (4_096, 1)]);
}

#[test]
fn ratio_percentiles_are_the_ranks_of_the_sorted_fractions() {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(7);
    for len in [1, 2, 3, 10, 99, 100, 101, 1_000] {
        // Few distinct values, so that ranks fall among equal ones.
        let costs: Vec<Cost> =
            (0..len).map(|_| cost(rng.random_range(0..8), rng.random_range(0..4))).collect();
        let mut sorted: Vec<f64> =
            costs.iter().filter(|c| c.worst > 0).map(|c| c.visited as f64 / c.worst as f64).collect();
        sorted.sort_by(f64::total_cmp);
        let r = ratios(&costs);
        assert_eq!(r.calls, sorted.len());
        let rank = |p: f64| sorted[((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
        if sorted.is_empty() {
            assert!(r.p50.is_nan() && r.p90.is_nan() && r.p99.is_nan() && r.mean.is_nan());
        } else {
            assert_eq!((r.p50, r.p90, r.p99), (rank(0.5), rank(0.9), rank(0.99)), "{len} calls");
        }
    }
}
