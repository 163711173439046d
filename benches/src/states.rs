//! Benchmark states: a present, a configuration, and the free frames that
//! [`AvailabilityIndex::load_frames`] turns into the same state on any structure.

use oracle::Oracle;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use scheduling::replay::{final_state, horizon_for, Mode, Options};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use structures::{AvailabilityIndex, Config, Kind, RangeSet, Time, TimeFrame};
use traces::swf;
use traces::workload::{declared_capacity, workload};
use traces::{BUNDLED_NAME, BUNDLED_TRACE};

/// Every state runs with one-minute slots, so the slotted structures take part.
pub const SLOT: Time = 60;

/// Above this many entries the oracle is too slow to give the expected answers (its
/// release cuts every rectangle, so loading a state is O(n²)); the B-tree profile, which
/// the differential suite checks against the oracle, gives them instead.
pub const ORACLE_CAP: usize = 20_000;

/// The shared traces snapshotted when `../shared/traces/` is beside the checkout, with
/// the name their states take.
pub const SHARED: [(&str, &str); 3] = [
    ("CTC-SP2-1996-3.1-cln.swf.gz", "ctc"),
    ("SDSC-BLUE-2000-4.2-cln.swf.gz", "sdsc-blue"),
    ("HPC2N-2002-2.2-cln.swf.gz", "hpc2n"),
];

/// Why a state cannot be built on a structure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The state has more entries than the structure's benchmark cap.
    #[error("{kind} is not built above {entries} entries ({why})")]
    Capped {
        /// The structure.
        kind: Kind,
        /// Its cap, in entries (its registry entry).
        entries: usize,
        /// Why it is capped.
        why: &'static str,
    },
    /// The structure refuses the configuration (too many slots), the present or the
    /// frames.
    #[error(transparent)]
    Index(#[from] structures::Error),
}

/// Why a shared trace gives no state.
#[derive(Debug, thiserror::Error)]
pub enum SharedError {
    /// The shared traces are not beside the checkout.
    #[error("no ../shared/traces beside the checkout")]
    NoFolder,
    /// The trace does not read.
    #[error(transparent)]
    Read(#[from] swf::SwfError),
    /// Its header declares no size.
    #[error("{file}: no MaxProcs or MaxNodes")]
    NoCapacity {
        /// The trace's file name.
        file: String,
    },
}

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
    /// Profile entries (change points) the state has on the reference structure (`Kind::REFERENCE`).
    pub entries: usize,
    /// Which index gives the answers its calls expect.
    pub answers: Answers,
    /// The state loaded into the oracle, once: loading is O(n²) (see [`ORACLE_CAP`]), and
    /// every operation's calls start from it.
    oracle: OnceLock<Oracle>,
}

/// Which index gives the answers a state's calls expect ([`crate::queries::reference`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// The oracle, up to [`ORACLE_CAP`] entries; the registry's reference structure above.
    Oracle,
    /// The registry's reference structure at any size. The gate's instruction counts use
    /// it: each count builds its state in a process of its own under callgrind, where
    /// loading the oracle took 60 % of the run; `cargo test` makes the same calls and
    /// checks every structure's answers, the reference's included, against the oracle.
    Reference,
}

impl State {
    /// The state on a new structure of `kind`.
    ///
    /// # Errors
    /// When the structure cannot take the configuration (too many slots), or the state
    /// has more entries than the structure's benchmark cap (its registry entry): a
    /// [`BuildError`].
    pub fn build(&self, kind: Kind) -> Result<Box<dyn AvailabilityIndex>, BuildError> {
        if let Some(cap) = kind.spec().cap.filter(|cap| self.entries > cap.entries) {
            return Err(BuildError::Capped { kind, entries: cap.entries, why: cap.why });
        }
        Ok(self.build_unchecked(kind)?)
    }

    fn build_unchecked(&self, kind: Kind) -> Result<Box<dyn AvailabilityIndex>, structures::Error> {
        let mut index = kind.build(self.capacity, self.config)?;
        index.advance(self.now)?;
        index.load_frames(&self.frames)?;
        Ok(index)
    }

    /// The state loaded into the oracle (loaded on the first call, then shared).
    ///
    /// # Panics
    /// If the oracle refuses the state's own configuration or frames (a bug in the
    /// state's construction).
    pub fn oracle(&self) -> &Oracle {
        self.oracle.get_or_init(|| {
            let mut oracle = Oracle::new(self.capacity, self.config).expect("a valid configuration");
            oracle.advance(self.now).expect("a later present");
            oracle.load_frames(&self.frames).expect("the state's own frames");
            oracle
        })
    }
}

/// The state a plan-only replay of the first `jobs` jobs of the bundled KTH trace leaves.
///
/// # Panics
/// If the bundled trace does not replay (a bug, caught by the tests).
pub fn kth(jobs: usize) -> State {
    // Only the jobs replayed are read: the gate builds this state in each of its
    // processes under callgrind, where reading the whole year cost 120 million instructions.
    let limits = swf::ReadLimits { stop_after: Some(jobs), ..swf::ReadLimits::new(false) };
    let trace = swf::read_with(BUNDLED_TRACE, BUNDLED_NAME, limits).expect("the bundled trace reads");
    snapshot(&trace, 100, jobs, format!("kth-{jobs}"))
}

/// The folder of the shared traces, when it is beside the checkout.
pub fn shared_traces() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces");
    dir.is_dir().then_some(dir)
}

/// The state after the first `jobs` jobs of the shared trace `file` (named `name`), or
/// why there is none: the trace is not here, or does not read.
///
/// # Errors
/// A [`SharedError`], as [`read_shared`].
pub fn shared(file: &str, name: &str, jobs: usize) -> Result<State, SharedError> {
    let (trace, capacity) = read_shared(file)?;
    Ok(snapshot(&trace, capacity, jobs, format!("{name}-{jobs}")))
}

/// The shared trace `file` and the capacity its header declares, or why there are none.
///
/// # Errors
/// A [`SharedError`]: the trace is not here, does not read, or declares no size.
pub fn read_shared(file: &str) -> Result<(swf::Trace, u32), SharedError> {
    let path = shared_traces().ok_or(SharedError::NoFolder)?.join(file);
    let trace = swf::read_path(&path, true)?;
    let capacity =
        declared_capacity(&trace).ok_or_else(|| SharedError::NoCapacity { file: file.to_owned() })?;
    Ok((trace, capacity))
}

fn snapshot(trace: &swf::Trace, capacity: u32, jobs: usize, name: String) -> State {
    let load = workload(trace, capacity, Some(jobs));
    let options = Options { mode: Mode::PlanOnly, ..Options::default() };
    let horizon = horizon_for(&load, SLOT, &options).expect("the bundled trace replays");
    let config = Config { slot: SLOT, horizon: Some(horizon) };
    let (now, frames) = final_state(&load, config, &options).expect("the bundled trace replays");
    finish(name, capacity, config, now, frames)
}

/// A seeded synthetic state with about `entries` profile entries: rectangles of random
/// ids and lengths allocated at random over a horizon of `4 * entries` slots.
pub fn synthetic(entries: usize, seed: u64) -> State {
    let capacity = 128;
    let slots = 4 * entries as Time;
    let config = Config { slot: SLOT, horizon: Some(SLOT * slots) };
    let mut index = Kind::REFERENCE.build(capacity, config).expect("a valid configuration");
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
    let mut state = State {
        name,
        capacity,
        config,
        now,
        frames,
        entries: 0,
        answers: Answers::Oracle,
        oracle: OnceLock::new(),
    };
    state.entries = state.build_unchecked(Kind::REFERENCE).map_or(0, |index| index.size());
    state
}

/// The states the CI gate measures: three points of the KTH replay and synthetic states
/// of 10², 10³ and 10⁴ entries (small enough for every structure and the oracle).
pub fn gated() -> Vec<State> {
    let mut states: Vec<State> = [1_000, 5_000, 20_000].into_iter().map(kth).collect();
    states.extend([100, 1_000, 10_000].into_iter().map(|entries| synthetic(entries, 7)));
    states
}

/// Requests on the adversarial states ask for this many of their 128 ids.
pub const DEEP_N: u32 = 64;

/// An adversarial deep-backlog state of about `entries` profile entries, one per
/// one-minute slot over 128 resources, where `earliest(t, 2 slots, DEEP_N)` from any
/// `t` in the first 10 % answers past 90 % of the profile: every slot before that leaves
/// fewer than [`DEEP_N`] ids free, either as one run (`blocked-<entries>`, which a
/// search that skips by counts crosses at once) or with every other slot wholly free but
/// one slot long (`holes-<entries>`, which no count-based skip can cross: each hole must
/// be tried, unless a search knows the holes are shorter than the duration).
///
/// # Panics
/// Never for `entries` of at least 10: the allocations are disjoint by construction.
pub fn adversarial(entries: usize, holes: bool) -> State {
    let capacity = 128;
    let slots = entries as Time;
    let config = Config { slot: SLOT, horizon: Some(SLOT * slots) };
    let mut index = Kind::REFERENCE.build(capacity, config).expect("a valid configuration");
    for i in 0..slots * 9 / 10 {
        let ids = match (holes, i % 2) {
            (true, 1) => continue,
            (true, _) => RangeSet::from_range(0, 100),
            (false, odd) => RangeSet::from_range(odd as u32, 100 + odd as u32),
        };
        index.allocate(SLOT * i, SLOT * (i + 1), &ids).expect("one allocation per slot");
    }
    let frames = index.free_frames(0, config.limit(0)).expect("the whole horizon");
    let name = format!("{}-{entries}", if holes { "holes" } else { "blocked" });
    finish(name, capacity, config, 0, frames)
}

/// The deep-backlog states `earliest` is also measured on: the adversarial ones, blocked
/// from 10³ to 10⁶ entries and holed from 10³ to 10⁵ (each call walks them all), then
/// plan-only snapshots of SDSC Blue Horizon after 50,000 and 100,000 jobs when the
/// shared traces are here (about 2·10³ and 9·10³ entries: the real traces' plan-only
/// profiles stay below 10⁵).
///
/// States over `up_to` are not built: adversarial ones over `up_to` entries, snapshots
/// after more than `up_to` jobs (replaying a job costs more than holding an entry), so
/// that `cargo test` runs the suites, unoptimised, on the smaller states only.
pub fn deep(up_to: usize) -> Vec<State> {
    let mut states: Vec<State> = [1_000, 10_000, 100_000, 1_000_000]
        .into_iter()
        .filter(|&e| within("blocked", e, up_to))
        .map(|e| adversarial(e, false))
        .collect();
    states.extend(
        [1_000, 10_000, 100_000]
            .into_iter()
            .filter(|&e| within("holes", e, up_to))
            .map(|e| adversarial(e, true)),
    );
    for jobs in [50_000, 100_000].into_iter().filter(|&jobs| within("sdsc-blue", jobs, up_to)) {
        match shared("SDSC-BLUE-2000-4.2-cln.swf.gz", "sdsc-blue", jobs) {
            Ok(state) => states.push(state),
            Err(why) => eprintln!("benchmark state sdsc-blue-{jobs} skipped: {why}"),
        }
    }
    states
}

/// The states the timed suites measure: those of [`gated`], the state after 10,000
/// jobs of each [`SHARED`] trace that is here, and synthetic states of 10⁵ and 10⁶
/// entries, unless over `up_to` (entries, or jobs for a snapshot, as in [`deep`]). Prints
/// which states it skipped, and why.
pub fn all(up_to: usize) -> Vec<State> {
    let mut states = gated();
    for (file, name) in SHARED.into_iter().filter(|&(_, name)| within(name, 10_000, up_to)) {
        match shared(file, name, 10_000) {
            Ok(state) => states.push(state),
            Err(why) => eprintln!("benchmark state {name}-10000 skipped: {why}"),
        }
    }
    states.extend(
        [100_000, 1_000_000].into_iter().filter(|&e| within("synthetic", e, up_to)).map(|e| synthetic(e, 7)),
    );
    states
}

/// Whether the state `<name>-<size>` is within `up_to`; prints that it is skipped when
/// not.
fn within(name: &str, size: usize, up_to: usize) -> bool {
    let fits = size <= up_to;
    if !fits {
        println!("benchmark state {name}-{size} skipped: over {up_to} (cargo bench builds it)");
    }
    fits
}
