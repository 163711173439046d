//! What the thesis measures of a run (rspb-priorities-benefit-functions, sections 4.5,
//! 5.2 and 5.6): rejections, the CPU reserved against the CPU asked for, the priorities
//! of the rejected, and the system benefit.

use super::grid::Decision;
use super::model::Workload;

/// One run's measures.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// Requests.
    pub requests: usize,
    /// Requests rejected (put in `R_nonsatisfy`), whole requests, not sub-requests.
    pub rejected: usize,
    /// Their priorities summed (Fig 4.7).
    pub rejected_priority: u64,
    /// The CPU reserved per request, a rejected one counting 0 (Fig 4.6), percent.
    pub reserved_cpu: f64,
    /// The CPU asked for per request: what every request satisfied in full would reserve
    /// (Fig 4.6's "ideal"), percent.
    pub requested_cpu: f64,
    /// `B = Σ_k w_k B_k`, `w_k = p_k / Σ p`, `B_k` the mean benefit of `R_k`'s
    /// sub-requests at the CPU reserved for them, 0 when rejected (section 5.2).
    pub system_benefit: f64,
}

impl Metrics {
    /// The measures of `decisions` (one per request of `workload`, in its order).
    pub fn new(workload: &Workload, decisions: &[Decision]) -> Self {
        let requests = &workload.requests;
        let (mut rejected, mut rejected_priority, mut reserved, mut weighted) = (0, 0, 0_u64, 0.0);
        for (r, d) in requests.iter().zip(decisions) {
            match d {
                Decision::Rejected { .. } => {
                    rejected += 1;
                    rejected_priority += u64::from(r.priority);
                }
                Decision::Accepted(placed) => {
                    reserved += placed.iter().map(|p| u64::from(p.cpu)).sum::<u64>();
                    let b: f64 = r.subs.iter().zip(placed).map(|(s, p)| s.benefit(p.cpu)).sum();
                    weighted += f64::from(r.priority) * b / r.subs.len() as f64;
                }
            }
        }
        let n = requests.len().max(1) as f64;
        let priorities: u64 = requests.iter().map(|r| u64::from(r.priority)).sum();
        let asked: u64 = requests.iter().flat_map(|r| &r.subs).map(|s| u64::from(s.cpu_max)).sum();
        Self {
            requests: requests.len(),
            rejected,
            rejected_priority,
            reserved_cpu: reserved as f64 / n,
            requested_cpu: asked as f64 / n,
            system_benefit: if priorities == 0 { 0.0 } else { weighted / priorities as f64 },
        }
    }
}

/// The mean of `values` and the half-width of its 95 % confidence interval (Student's t),
/// `None` for fewer than two values.
pub fn interval95(values: &[f64]) -> (f64, Option<f64>) {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n.max(1) as f64;
    if n < 2 {
        return (mean, None);
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, Some(t975(n - 1) * (variance / n as f64).sqrt()))
}

/// The 97.5 % quantile of Student's t with `df` degrees of freedom (at least 1): a table
/// to 30, then the Cornish-Fisher expansion around the normal quantile (within 0.001
/// from 30 on).
fn t975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042,
    ];
    const Z: f64 = 1.959_964;
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => {
            let v = df as f64;
            Z + (Z.powi(3) + Z) / (4.0 * v) + (5.0 * Z.powi(5) + 16.0 * Z.powi(3) + 3.0 * Z) / (96.0 * v * v)
        }
    }
}
