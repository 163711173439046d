//! The op sources both `verify --external` and `bench --external` run: random streams
//! from the shared generators (with fuzzing's swarm flags), the trace stream (every index
//! call of a plan-only replay), and boundary streams ([`boundary`](super::boundary)).
//! A stream is a list of cases, each a scenario and its ops; every case runs on a fresh
//! index.

use std::io;
use std::path::{Path, PathBuf};

use oracle::generate::{self, Choices, Swarm};
use oracle::{apply, CountOp, Op, Oracle, Scenario};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use structures::Config;

use super::record::record_replay;
use scheduling::replay::ReplayError;
use traces::workload::{declared_capacity, workload, Workload};
use traces::{swf, BUNDLED_NAME, BUNDLED_TRACE};

/// Why a stream could not be made: its source could not be read, or it is too long.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The stream has more ops than the cap.
    #[error(
        "the {stream} stream has {ops} ops, more than the cap of {max_ops} ops per stream \
         (raise it with --max-ops, or ask for fewer ops)"
    )]
    TooManyOps {
        /// The stream's name.
        stream: &'static str,
        /// Its ops.
        ops: usize,
        /// The cap (`--max-ops`).
        max_ops: usize,
    },
    /// The trace cannot be read.
    #[error(transparent)]
    Trace(#[from] swf::SwfError),
    /// The trace's header gives no capacity, and none was passed.
    #[error("{trace}: no MaxProcs or MaxNodes in the header; pass --capacity")]
    NoCapacity {
        /// The trace's name.
        trace: String,
    },
    /// A capacity of zero.
    #[error("the capacity must be at least 1")]
    ZeroCapacity,
    /// The plan-only replay that records the trace stream stopped.
    #[error("replaying {trace} to record its calls")]
    Replay {
        /// The trace's name.
        trace: String,
        /// Why it stopped.
        #[source]
        source: ReplayError,
    },
    /// An ops file cannot be read.
    #[error("cannot read {}", path.display())]
    ReadOps {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// A line of an ops file is not an op.
    #[error("{} line {line}: not an op: {text}", path.display())]
    NotAnOp {
        /// The file.
        path: PathBuf,
        /// The line's number, from 1.
        line: usize,
        /// The line.
        text: String,
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
}

/// A scenario and the ops to run on a fresh index of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Capacity and configuration.
    pub scenario: Scenario,
    /// The ops, in order.
    pub ops: Vec<Op>,
}

/// Cases from one source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream {
    /// `random`, `trace`, `boundary` or `replay`: the column tables give it.
    pub name: &'static str,
    /// Where its ops come from, for the output.
    pub about: String,
    /// Whether the driver compares the whole free space after every op (when the child
    /// answers `free_frames`); the trace stream is too long for that.
    pub thorough: bool,
    /// Whether a case goes on past a divergence, on a fresh child brought to the oracle's
    /// state: the trace stream, one long case, whose later ops would go unchecked.
    pub goes_on: bool,
    /// Its cases.
    pub cases: Vec<Case>,
}

impl Stream {
    /// The ops in all its cases.
    pub fn ops(&self) -> usize {
        self.cases.iter().map(|case| case.ops.len()).sum()
    }

    /// Refuses a stream of more than `max_ops` ops, naming the option that raises it.
    ///
    /// # Errors
    /// [`SourceError::TooManyOps`], naming the stream, its size and `--max-ops`.
    pub fn within(self, max_ops: usize) -> Result<Self, SourceError> {
        if self.ops() > max_ops {
            return Err(SourceError::TooManyOps { stream: self.name, ops: self.ops(), max_ops });
        }
        Ok(self)
    }
}

/// The generators' choices from a seeded RNG.
struct Seeded(StdRng);

impl Choices for Seeded {
    fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n)
    }
}

/// `ops` random ops in cases of `case_ops` (the last one shorter): each case a
/// generated scenario, swarm flags drawn as fuzzing draws them, and ops from the shared
/// generators run on an oracle, so they are mostly valid. Fixed by `seed`.
///
/// # Panics
/// Never: the generated scenarios are valid by construction.
pub fn random(ops: usize, case_ops: usize, seed: u64) -> Stream {
    let mut choices = Seeded(StdRng::seed_from_u64(seed));
    let case_ops = case_ops.max(1);
    let mut cases = Vec::new();
    let mut left = ops;
    while left > 0 {
        let scenario = generate::scenario(&mut choices);
        let swarm = Swarm::draw(&mut choices);
        let mut oracle =
            Oracle::new(scenario.capacity, scenario.config).expect("generated scenarios are valid");
        let ops = (0..case_ops.min(left))
            .map(|_| {
                let op = generate::op(&oracle, swarm, &mut choices);
                apply(&mut oracle, &op);
                op
            })
            .collect();
        left = left.saturating_sub(case_ops);
        cases.push(Case { scenario, ops });
    }
    let about =
        format!("{ops} ops from the shared generators with swarm flags, in cases of {case_ops}, seed {seed}");
    Stream { name: "random", about, thorough: true, goes_on: false, cases }
}

/// Reads an SWF trace (the bundled KTH trace when `path` is `None`) into the requests
/// of its first `limit` jobs, on `capacity` resources (the header's by default); returns
/// its name too.
///
/// # Errors
/// An unreadable trace, or no capacity ([`SourceError`]).
pub fn read_trace(
    path: Option<&Path>,
    capacity: Option<u32>,
    limit: Option<usize>,
) -> Result<(String, Workload), SourceError> {
    let trace = match path {
        Some(path) => swf::read_path(path, false)?,
        None => swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, false)?,
    };
    let Some(capacity) = capacity.or_else(|| declared_capacity(&trace)) else {
        return Err(SourceError::NoCapacity { trace: trace.name });
    };
    if capacity == 0 {
        return Err(SourceError::ZeroCapacity);
    }
    let load = workload(&trace, capacity, limit);
    Ok((trace.name, load))
}

/// The trace stream: every index call of a plan-only replay of `load` on the reference
/// structure with `config`, as one case.
///
/// # Errors
/// The configuration is invalid or the replay stops ([`SourceError::Replay`]).
pub fn trace(name: &str, load: &Workload, config: Config) -> Result<Stream, SourceError> {
    let ops = record_replay(load, config)
        .map_err(|source| SourceError::Replay { trace: name.to_owned(), source })?;
    let horizon = config.horizon.map_or_else(|| "no horizon".to_owned(), |h| format!("horizon {h}"));
    let about = format!(
        "every index call of a plan-only replay of {name}, {} jobs, capacity {}, slot {}, {horizon}",
        load.requests.len(),
        load.capacity,
        config.slot
    );
    let case = Case { scenario: Scenario { capacity: load.capacity, config }, ops };
    Ok(Stream { name: "trace", about, thorough: false, goes_on: true, cases: vec![case] })
}

/// Reads an ops file (one op per line, blank lines skipped), as `resbench ops` reads
/// its input; count ops ([`CountOp`]) are read as [`CountOp::to_op`].
///
/// # Errors
/// An unreadable file, or a line that is not an op (naming its number): a
/// [`SourceError`].
pub fn read_ops(path: &Path) -> Result<Vec<Op>, SourceError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| SourceError::ReadOps { path: path.to_path_buf(), source })?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            // A count op (a reproducer of a child with count semantics) stands for the
            // id op whose count form it is.
            let count = || serde_json::from_str::<CountOp>(line).map(|op| op.to_op());
            serde_json::from_str(line).or_else(|e| count().map_err(|_| e)).map_err(|source| {
                SourceError::NotAnOp { path: path.to_path_buf(), line: i + 1, text: line.to_owned(), source }
            })
        })
        .collect()
}
