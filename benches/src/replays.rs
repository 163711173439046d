//! Whole-replay inputs: the first jobs of the bundled trace and of each shared trace that
//! is here, replayed in simulate mode at five-minute slots, with the schedule the
//! verified reference structure (the oracle beside it) produces as the expected answer.
//! Built `uncounted`, the tree runs without the oracle, whose driver compares costs.

use scheduling::replay::{horizon_for, replay, Options, Placement, ReplayConfig, ReplayError, Silent};
use structures::{Config, Kind, Time, COUNTING};
use traces::swf;
use traces::workload::{workload, Workload};
use traces::{BUNDLED_NAME, BUNDLED_TRACE};

use crate::states::{read_shared, SharedError, SHARED};

/// Jobs replayed from each trace: enough for a backlog, few enough that the slotted
/// structures finish ten samples in seconds.
pub const JOBS: usize = 5_000;

/// The slot width of every replay (the published reports' width).
pub const SLOT: Time = 300;

/// A structure whose replay stopped or placed a job otherwise than the expected
/// schedule, naming the structure and the input.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The replay stopped.
    #[error("{kind} on {input}: {error}")]
    Replay {
        /// The structure.
        kind: Kind,
        /// The input's name.
        input: String,
        /// Why it stopped.
        error: ReplayError,
    },
    /// A placement differs from the expected one.
    #[error("{kind} on {input}: placed {got:?}, expected {want:?}")]
    Placed {
        /// The structure.
        kind: Kind,
        /// The input's name.
        input: String,
        /// The placement the structure's replay made (boxed, as the next: a placement
        /// holds an id set inline).
        got: Box<Placement>,
        /// The expected placement.
        want: Box<Placement>,
    },
    /// More or fewer placements than expected.
    #[error("{kind} on {input}: {got} placements, expected {want}")]
    Count {
        /// The structure.
        kind: Kind,
        /// The input's name.
        input: String,
        /// The placements made.
        got: usize,
        /// The placements expected.
        want: usize,
    },
}

/// Why a trace gives no replay input.
#[derive(Debug, thiserror::Error)]
enum InputError {
    /// The shared trace is not here, does not read, or declares no size.
    #[error(transparent)]
    Shared(#[from] SharedError),
    /// The replay that finds the horizon stopped.
    #[error("{0}")]
    Horizon(ReplayError),
    /// The verified replay that gives the expected schedule stopped.
    #[error("{name}: {error}")]
    Replay {
        /// The trace's name.
        name: String,
        /// Why it stopped.
        error: ReplayError,
    },
}

/// One replay input.
pub struct ReplayInput {
    /// `<trace>-<jobs>`.
    pub name: String,
    /// The requests.
    pub workload: Workload,
    /// Slot width and the horizon the schedule needs.
    pub config: Config,
    /// Simulate mode, no compression, no advance reservations.
    pub options: Options,
    /// The schedule every structure must produce.
    pub expected: Vec<Placement>,
}

impl ReplayInput {
    /// Replays on `kind` without the oracle and compares the schedule with the expected one.
    ///
    /// # Errors
    /// A replay error, or the first placement that differs ([`RunError`]).
    pub fn run(&self, kind: Kind) -> Result<usize, RunError> {
        let setup = ReplayConfig { config: self.config, options: self.options, verify: false };
        let input = || self.name.clone();
        let run = replay(kind, &self.workload, &setup, &mut Silent).map_err(|error| RunError::Replay {
            kind,
            input: input(),
            error,
        })?;
        if let Some((got, want)) = run.schedule.iter().zip(&self.expected).find(|(g, w)| g != w) {
            let (got, want) = (Box::new(got.clone()), Box::new(want.clone()));
            return Err(RunError::Placed { kind, input: input(), got, want });
        }
        if run.schedule.len() != self.expected.len() {
            return Err(RunError::Count {
                kind,
                input: input(),
                got: run.schedule.len(),
                want: self.expected.len(),
            });
        }
        Ok(run.jobs)
    }
}

fn input(trace: &swf::Trace, capacity: u32, name: &str) -> Result<ReplayInput, InputError> {
    let load = workload(trace, capacity, Some(JOBS));
    // Without compression, as the recorded baselines were measured.
    let options = Options { compress: false, ..Options::default() };
    let horizon = horizon_for(&load, SLOT, &options).map_err(InputError::Horizon)?;
    let config = Config { slot: SLOT, horizon: Some(horizon) };
    // The oracle's driver compares costs, so the `uncounted` build, which keeps none,
    // takes the reference structure's schedule unverified (the counted build verifies it).
    let setup = ReplayConfig { config, options, verify: COUNTING };
    let verified = replay(Kind::REFERENCE, &load, &setup, &mut Silent)
        .map_err(|error| InputError::Replay { name: name.to_owned(), error })?;
    Ok(ReplayInput {
        name: format!("{name}-{JOBS}"),
        workload: load,
        config,
        options,
        expected: verified.schedule,
    })
}

/// The bundled KTH trace and every shared trace that is here; prints which it skipped.
///
/// # Panics
/// If the bundled trace does not replay (a bug, caught by the tests).
pub fn all() -> Vec<ReplayInput> {
    let kth = swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, false).expect("the bundled trace reads");
    let mut inputs = vec![input(&kth, 100, "kth").expect("the bundled trace replays")];
    for (file, name) in SHARED {
        match read_shared(file)
            .map_err(InputError::from)
            .and_then(|(trace, capacity)| input(&trace, capacity, name))
        {
            Ok(replay) => inputs.push(replay),
            Err(why) => eprintln!("replay benchmark {name}-{JOBS} skipped: {why}"),
        }
    }
    inputs
}
