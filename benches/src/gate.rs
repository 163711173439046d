//! The CI gate: the current work against a committed baseline.

use crate::work::Work;

/// Every way `current` is worse than `baseline` by more than `threshold` percent, or
/// misses a measurement the baseline has; empty when the change passes.
pub fn regressions(baseline: &[Work], current: &[Work], threshold: f64) -> Vec<String> {
    let mut failures = Vec::new();
    for base in baseline {
        let same = |w: &&Work| w.structure == base.structure && w.op == base.op && w.state == base.state;
        let Some(now) = current.iter().find(same) else {
            failures.push(format!("{} {} on {}: no longer measured", base.structure, base.op, base.state));
            continue;
        };
        for (what, before, after) in
            [("visited", base.visited, now.visited), ("search", base.search, now.search)]
        {
            let growth = if before == 0 {
                if after == 0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                100.0 * (after as f64 - before as f64) / before as f64
            };
            if growth > threshold {
                failures.push(format!(
                    "{} {} on {}: {what} {before} -> {after} ({growth:+.1} %), over the {threshold} % limit",
                    base.structure, base.op, base.state
                ));
            }
        }
    }
    failures
}
