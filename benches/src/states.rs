//! Benchmark states: a present, a configuration, and the free frames that
//! [`AvailabilityIndex::load_frames`] turns into the same state on any structure.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use resbench::replay::{final_state, horizon_for, Mode, Options};
use resbench::swf;
use resbench::workload::workload;
use resbench::{BUNDLED_NAME, BUNDLED_TRACE};
use structures::{AvailabilityIndex, Config, Kind, RangeSet, Time, TimeFrame};

/// Every state runs with one-minute slots, so the slotted structures take part.
pub const SLOT: Time = 60;

/// One benchmark state.
#[derive(Debug, Clone)]
pub struct State {
    /// How reports name it: `kth-<jobs>` or `synthetic-<entries>`.
    pub name: String,
    /// Resources.
    pub capacity: u32,
    /// Slot width and horizon.
    pub config: Config,
    /// The present.
    pub now: Time,
    /// The free space from `now` to the horizon.
    pub frames: Vec<TimeFrame>,
    /// Profile entries (change points) the state has on the red-black tree.
    pub entries: usize,
}

impl State {
    /// The state on a new structure of `kind`.
    ///
    /// # Errors
    /// When the structure cannot take the configuration (too many slots).
    pub fn build(&self, kind: Kind) -> Result<Box<dyn AvailabilityIndex>, structures::Error> {
        let mut index = kind.build(self.capacity, self.config)?;
        index.advance(self.now)?;
        index.load_frames(&self.frames)?;
        Ok(index)
    }
}

/// The state a plan-only replay of the first `jobs` jobs of the bundled KTH trace leaves.
///
/// # Panics
/// If the bundled trace does not replay (a bug, caught by the tests).
pub fn kth(jobs: usize) -> State {
    let trace = swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, false).expect("the bundled trace reads");
    let load = workload(&trace, 100, Some(jobs));
    let options = Options { mode: Mode::PlanOnly, ..Options::default() };
    let horizon = horizon_for(&load, SLOT, &options).expect("the bundled trace replays");
    let config = Config { slot: SLOT, horizon: Some(horizon) };
    let (now, frames) = final_state(&load, config, &options).expect("the bundled trace replays");
    finish(format!("kth-{jobs}"), 100, config, now, frames)
}

/// A seeded synthetic state with about `entries` profile entries: rectangles of random
/// ids and lengths allocated at random over a horizon of `4 * entries` slots.
pub fn synthetic(entries: usize, seed: u64) -> State {
    let capacity = 128;
    let slots = 4 * entries as Time;
    let config = Config { slot: SLOT, horizon: Some(SLOT * slots) };
    let mut index = Kind::RbTree.build(capacity, config).expect("a valid configuration");
    let mut rng = StdRng::seed_from_u64(seed);
    while index.size() < entries {
        let start = SLOT * rng.random_range(0..slots - 1);
        let end = (start + SLOT * rng.random_range(1..=32)).min(SLOT * slots);
        let lo = rng.random_range(0..capacity);
        let ids = RangeSet::from_range(lo, (lo + rng.random_range(1..=16)).min(capacity));
        // A clash with an earlier rectangle is refused and simply skipped.
        let _ = index.allocate(start, end, &ids);
    }
    let frames = index.free_frames(0, config.limit(0)).expect("the whole horizon");
    finish(format!("synthetic-{entries}"), capacity, config, 0, frames)
}

fn finish(name: String, capacity: u32, config: Config, now: Time, frames: Vec<TimeFrame>) -> State {
    let mut state = State { name, capacity, config, now, frames, entries: 0 };
    state.entries = state.build(Kind::RbTree).map_or(0, |index| index.size());
    state
}

/// The states every suite measures: three points of the KTH replay and synthetic states
/// of 10², 10³ and 10⁴ entries.
pub fn all() -> Vec<State> {
    let mut states: Vec<State> = [1_000, 5_000, 20_000].into_iter().map(kth).collect();
    states.extend([100, 1_000, 10_000].into_iter().map(|entries| synthetic(entries, 7)));
    states
}
