//! A policy's replay, with a deviation planted or not: what the comparisons of the
//! policies that run in the replay loop share.

use scheduling::policy::Planted;
use scheduling::replay::{replay, replay_planted, ReplayConfig, Run, Silent};
use structures::Kind;
use traces::workload::Workload;

/// `load` replayed on `kind` as `setup` says, with `planted` planted in the policy if any.
pub fn replayed(kind: Kind, load: &Workload, setup: &ReplayConfig, planted: Option<Planted>) -> Run {
    match planted {
        Some(p) => replay_planted(kind, load, setup, p),
        None => replay(kind, load, setup, &mut Silent),
    }
    .expect("a replay")
}
