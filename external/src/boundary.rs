//! The boundary stream: for a few scenarios (one resource and more than 64, continuous
//! time and slots, with and without a horizon), ops at the edges where adapters slip:
//! the horizon and the end of `u64` time, the capacity, empty windows, zero counts,
//! empty and out-of-range sets, partial releases, `load_frames` of nothing, of
//! everything and of overlapping frames, and moves of the present.

use oracle::{rules, Op, Scenario};
use structures::{Config, RangeSet, Time, TimeFrame};

use super::streams::{Case, Stream};

/// The scenarios the boundary stream covers.
pub const SCENARIOS: [Scenario; 5] = [
    Scenario { capacity: 1, config: Config { slot: 1, horizon: None } },
    Scenario { capacity: 3, config: Config { slot: 1, horizon: Some(10) } },
    Scenario { capacity: 64, config: Config { slot: 5, horizon: Some(50) } },
    Scenario { capacity: 65, config: Config { slot: 2, horizon: None } },
    Scenario { capacity: 100, config: Config { slot: 300, horizon: Some(3000) } },
];

/// One case per scenario of [`SCENARIOS`].
pub fn boundary() -> Stream {
    let cases: Vec<Case> =
        SCENARIOS.iter().map(|&scenario| Case { scenario, ops: edges(scenario) }).collect();
    let about = format!(
        "{} hand-written cases at the horizon, capacity and time edges, empty windows and zero counts",
        cases.len()
    );
    Stream { name: "boundary", about, thorough: true, goes_on: false, cases }
}

fn frame(start: Time, end: Time, free: RangeSet) -> TimeFrame {
    TimeFrame { start, end, free }
}

/// The edge ops for one scenario; the oracle decides what each must answer.
fn edges(scenario: Scenario) -> Vec<Op> {
    let Scenario { capacity: cap, config } = scenario;
    let slot = config.slot;
    let limit = rules::limit(config, 0);
    let (full, top, past, none) = (
        RangeSet::full(cap),
        RangeSet::from_range(cap - 1, cap),
        RangeSet::from_range(cap, cap + 1),
        RangeSet::new(),
    );
    let mut ops = vec![
        // Empty windows and zero counts.
        Op::Check { start: 3, end: 3, n: 1 },
        Op::Check { start: 4, end: 3, n: 1 },
        Op::Check { start: 0, end: 1, n: 0 },
        Op::Earliest { ready: 0, duration: 0, n: 1 },
        Op::Earliest { ready: 0, duration: 1, n: 0 },
        Op::FreeFrames { from: 5, to: 5 },
        Op::Options { from: 0, to: 2 * slot, min_duration: 0, min_n: 0 },
        // Capacity edges and sets.
        Op::Check { start: 0, end: 1, n: cap },
        Op::Check { start: 0, end: 1, n: cap + 1 },
        Op::Earliest { ready: 0, duration: 1, n: cap + 1 },
        Op::Allocate { start: 0, end: 1, set: none.clone() },
        Op::Allocate { start: 0, end: 1, set: past.clone() },
        Op::Allocate { start: 0, end: 1, set: RangeSet::from_range(0, cap + 1) },
        Op::Release { start: 0, end: 1, set: none.clone() },
        Op::Release { start: 0, end: 1, set: past },
        Op::Allocate { start: 0, end: 2 * slot, set: top.clone() },
        Op::Check { start: 0, end: 1, n: cap },
        Op::Allocate { start: slot, end: 2 * slot, set: top.clone() },
        Op::Release { start: 0, end: 3 * slot, set: top.clone() },
        Op::Release { start: slot, end: 2 * slot, set: top.clone() },
        Op::Earliest { ready: 0, duration: 2 * slot, n: cap },
        Op::Options { from: 0, to: 4 * slot, min_duration: 1, min_n: cap },
        // The horizon, or the end of u64 time.
        Op::Check { start: limit - 1, end: limit, n: 1 },
        Op::Check { start: limit - 1, end: limit.saturating_add(1), n: 1 },
        Op::Allocate { start: limit - slot, end: limit, set: full.clone() },
        Op::Earliest { ready: limit - slot, duration: slot, n: 1 },
        Op::Earliest { ready: limit - 1, duration: 2, n: 1 },
        Op::Earliest { ready: 0, duration: limit, n: 1 },
        Op::Earliest { ready: Time::MAX, duration: 1, n: 1 },
        Op::Earliest { ready: Time::MAX - 1, duration: 1, n: 1 },
        Op::Release { start: limit - slot, end: limit, set: full.clone() },
        Op::FreeFrames { from: 0, to: limit },
        Op::Options { from: 0, to: limit, min_duration: 1, min_n: 1 },
        // Loading nothing, everything, overlapping frames, an empty set, past the horizon.
        Op::LoadFrames { frames: Vec::new() },
        Op::Check { start: 0, end: 1, n: 1 },
        Op::LoadFrames { frames: vec![frame(0, limit, full.clone())] },
        Op::LoadFrames { frames: vec![frame(0, 2 * slot, top.clone()), frame(slot, 3 * slot, top.clone())] },
        Op::LoadFrames { frames: vec![frame(0, slot, none)] },
        Op::LoadFrames { frames: vec![frame(0, limit.saturating_add(slot), top.clone())] },
        Op::LoadFrames {
            frames: vec![frame(slot, 2 * slot, top.clone()), frame(3 * slot, limit, full.clone())],
        },
        Op::FreeFrames { from: 0, to: 4 * slot },
        // Moving the present: inside a slot, back, in place, then to the end of time.
        Op::Advance { now: slot + 1 },
        Op::Check { start: 0, end: slot + 1, n: 1 },
        Op::Advance { now: 0 },
        Op::Advance { now: slot },
        Op::Earliest { ready: slot, duration: slot, n: 1 },
    ];
    let later = rules::limit(config, slot);
    ops.extend([
        Op::Check { start: later - 1, end: later, n: 1 },
        Op::Check { start: later - 1, end: later.saturating_add(1), n: 1 },
        Op::Advance { now: Time::MAX - 3 * slot },
    ]);
    let now = rules::floor(slot, Time::MAX - 3 * slot);
    let end = rules::limit(config, now);
    ops.extend([
        Op::Check { start: now, end, n: cap },
        Op::Allocate { start: now, end, set: full },
        Op::Earliest { ready: now, duration: 1, n: 1 },
        Op::Release { start: end - 1, end, set: top },
        Op::Earliest { ready: now, duration: end - now, n: 1 },
        Op::FreeFrames { from: now, to: end },
        Op::Check { start: Time::MAX - 1, end: Time::MAX, n: 1 },
    ]);
    ops
}
