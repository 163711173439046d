//! The meta-requests of rspb-priorities-benefit-functions' Fig 4.1: arriving requests are
//! collected for `Δt` and scheduled together, except that a request asking to start
//! before the end of the interval closes it at once, at its arrival (section 4.4: "One
//! example of this kind of requests is immediate reservations").

use structures::Time;

use super::model::Request;

/// One scheduling event: when it happens and the requests (indexes into the workload,
/// in arrival order) it schedules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The event's time: every request in it asks to start then or later.
    pub at: Time,
    /// The requests collected since the last event.
    pub requests: Vec<usize>,
}

/// Fig 4.1 over `requests` (in arrival order) from time 0 with interval `interval` (at
/// least 1): events at `Δt`, `2Δt`, … until a request with `t_start` before the next
/// event closes the batch at its own arrival, after which the next event is `Δt` later.
/// A request arriving exactly at an event belongs to the next one. Empty intervals are
/// skipped in one step, so the work is linear in the requests whatever the times.
pub fn batches(requests: &[Request], interval: Time) -> Vec<Batch> {
    let interval = interval.max(1);
    let mut out = Vec::new();
    let (mut t, mut i) = (0, 0);
    while i < requests.len() {
        // Lines D4-D5: the next event, skipping intervals no request arrives in.
        t = next_event(t, requests[i].arrival, interval);
        let mut batch = Vec::new();
        while i < requests.len() && requests[i].arrival < t {
            batch.push(i);
            let r = &requests[i];
            i += 1;
            // Lines D8-D9: it asks to start before the event: schedule now.
            if r.start < t {
                t = r.arrival;
                break;
            }
        }
        out.push(Batch { at: t, requests: batch });
    }
    out
}

/// The first event `t + kΔt` (k ≥ 1) after `arrival`, saturating at the end of time.
fn next_event(t: Time, arrival: Time, interval: Time) -> Time {
    let steps = if arrival < t { 1 } else { (arrival - t) / interval + 1 };
    steps.checked_mul(interval).and_then(|d| t.checked_add(d)).unwrap_or(Time::MAX)
}
