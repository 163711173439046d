//! Summaries of a replay's costs: the ratio table on the terminal, rbtree-availability-profile's Figure 5
//! box statistics and its Figure 6 histogram, with the warm-up and cool-down calls
//! trimmed as the paper does (section V).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use oracle::OpKind;
use serde::{Deserialize, Serialize};
use structures::Cost;

use super::Run;

/// The calls kept after dropping the first and last `trim` (rbtree-availability-profile drops 4,000 at each
/// end); all of them when there are not more than `2 * trim`.
pub fn trimmed(costs: &[Cost], trim: usize) -> &[Cost] {
    if costs.len() > 2 * trim {
        &costs[trim..costs.len() - trim]
    } else {
        costs
    }
}

/// `visited / worst` of each call with a worst case, in call order.
fn unsorted_fractions(costs: &[Cost]) -> Vec<f64> {
    costs.iter().filter(|c| c.worst > 0).map(|c| c.visited as f64 / c.worst as f64).collect()
}

/// `visited / worst` of each call with a worst case, sorted.
fn fractions(costs: &[Cost]) -> Vec<f64> {
    let mut r = unsorted_fractions(costs);
    // Values equal under `total_cmp` are the same bits, so an unstable sort orders them
    // as a stable one would, in a fraction of the time.
    r.sort_unstable_by(f64::total_cmp);
    r
}

/// The index of the nearest-rank percentile `p` among `len` values (`len > 0`).
fn rank(len: usize, p: f64) -> usize {
    ((p * len as f64).ceil() as usize).clamp(1, len) - 1
}

/// Nearest-rank percentile of sorted values (`NaN` when empty).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        len => sorted[rank(len, p)],
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        f64::NAN
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Mean and percentiles of `visited / worst` (calls with no worst case left out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratios {
    /// Calls measured.
    pub calls: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
}

/// Summarises costs; nearest-rank percentiles.
pub fn ratios(costs: &[Cost]) -> Ratios {
    let mut r = unsorted_fractions(costs);
    let (calls, mean) = (r.len(), mean(&r));
    if calls == 0 {
        return Ratios { calls, mean, p50: f64::NAN, p90: f64::NAN, p99: f64::NAN };
    }
    // Three selections, each narrowing the next, instead of a sort: the value at a rank
    // is the same (equal values under `total_cmp` are the same bits).
    let (k50, k90, k99) = (rank(calls, 0.5), rank(calls, 0.9), rank(calls, 0.99));
    let p99 = *r.select_nth_unstable_by(k99, f64::total_cmp).1;
    let p90 = *r[..=k99].select_nth_unstable_by(k90, f64::total_cmp).1;
    let p50 = *r[..=k90].select_nth_unstable_by(k50, f64::total_cmp).1;
    Ratios { calls, mean, p50, p90, p99 }
}

/// A box of rbtree-availability-profile's Figure 5: quartiles of `visited / worst`, whiskers at the most
/// extreme values within 1.5 interquartile ranges of the box (Tukey; outliers beyond
/// them are counted, not drawn), and the mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxStats {
    /// Calls measured.
    pub calls: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Lower whisker.
    pub low: f64,
    /// First quartile.
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub q3: f64,
    /// Upper whisker.
    pub high: f64,
    /// Calls beyond the whiskers.
    pub outliers: usize,
    /// The largest value.
    pub max: f64,
}

/// The Figure 5 box of `costs`; `None` when no call had a worst case.
pub fn box_stats(costs: &[Cost]) -> Option<BoxStats> {
    let r = fractions(costs);
    let (first, last) = (*r.first()?, *r.last()?);
    let (q1, median, q3) = (percentile(&r, 0.25), percentile(&r, 0.5), percentile(&r, 0.75));
    let reach = 1.5 * (q3 - q1);
    let low = r.iter().copied().find(|&x| x >= q1 - reach).unwrap_or(first);
    let high = r.iter().rev().copied().find(|&x| x <= q3 + reach).unwrap_or(last);
    let outliers = r.iter().filter(|&&x| x < low || x > high).count();
    Some(BoxStats { calls: r.len(), mean: mean(&r), low, q1, median, q3, high, outliers, max: last })
}

/// Histogram keys below this are exact numbers of entries; from it on, a key stands for
/// the power-of-two bin `[key, 2 key)`, so a histogram stays small however large the
/// worst cases grow (`earliest`'s reach millions).
pub const EXACT_BELOW: u64 = 1024;

/// rbtree-availability-profile's Figure 6: how many calls left each number of entries unvisited
/// (`worst - visited`), exact below [`EXACT_BELOW`] and in power-of-two bins above.
pub fn unvisited(costs: &[Cost]) -> BTreeMap<u64, u64> {
    let mut histogram = BTreeMap::new();
    for c in costs {
        let left = c.worst.saturating_sub(c.visited);
        let key = if left < EXACT_BELOW { left } else { 1 << left.ilog2() };
        *histogram.entry(key).or_insert(0) += 1;
    }
    histogram
}

/// The terminal table: one row per structure, over the trimmed calls.
pub fn table(runs: &[Run], trim: usize) -> String {
    let mut out = String::new();
    let ratio = |op: OpKind| format!("{op} visited/worst %");
    let _ = writeln!(
        out,
        "{:<9} {:>7} {:>7} {:>8} {:>8} | {:>27} | {:>27} | {:>9}",
        "struct",
        "jobs",
        "checks",
        OpKind::Earliest,
        "unplaced",
        ratio(OpKind::Check),
        ratio(OpKind::Earliest),
        "wall s"
    );
    let _ = writeln!(
        out,
        "{:<9} {:>7} {:>7} {:>8} {:>8} | {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6} |",
        "", "", "", "", "", "mean", "p50", "p90", "p99", "mean", "p50", "p90", "p99"
    );
    for run in runs {
        let (c, e) = (ratios(trimmed(&run.checks, trim)), ratios(trimmed(&run.searches, trim)));
        // No calls (no `check` under FCFS, say) leave nothing to summarise.
        let pct = |x: f64| if x.is_nan() { "-".to_owned() } else { format!("{:.2}", 100.0 * x) };
        let _ = writeln!(
            out,
            "{:<9} {:>7} {:>7} {:>8} {:>8} | {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6} | {:>9.3}{}",
            run.structure.name(),
            run.jobs,
            run.checks.len(),
            run.searches.len(),
            run.unplaced,
            pct(c.mean),
            pct(c.p50),
            pct(c.p90),
            pct(c.p99),
            pct(e.mean),
            pct(e.p50),
            pct(e.p90),
            pct(e.p99),
            run.wall.as_secs_f64(),
            if run.verified { " (with oracle)" } else { "" },
        );
    }
    out
}
