//! The trace stream's source: a plan-only replay of a trace on the reference structure,
//! through [`Tap`], which logs every index call as an [`Op`] before forwarding it.

use oracle::tap::Tap;
use oracle::Op;
use structures::{Config, Kind};

use scheduling::replay::{replay_on, Mode, Options, ReplayError};
use traces::workload::Workload;

/// The ops of every index call a plan-only replay of `workload` makes on the reference
/// structure (`Kind::REFERENCE`) with `config`: the trace stream.
///
/// # Errors
/// The index cannot be built with `config`, or the replay stops on a refused op.
pub fn record_replay(workload: &Workload, config: Config) -> Result<Vec<Op>, ReplayError> {
    let index = Kind::REFERENCE.build(workload.capacity, config).map_err(ReplayError::Build)?;
    let (tap, log) = Tap::new(index);
    let options = Options { mode: Mode::PlanOnly, ..Options::default() };
    drop(replay_on(Box::new(tap), workload, &options)?);
    Ok(log.take())
}
