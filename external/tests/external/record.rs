//! `src/record.rs`: a recorded replay holds every call the replay makes.

use external::record::record_replay;
use external::streams::read_trace;
use scheduling::replay::{replay, Mode, Options, ReplayConfig, Silent};
use structures::{Config, Kind};

#[test]
fn a_recorded_replay_holds_every_call_the_replay_counts() {
    let (_, load) = read_trace(None, None, Some(300)).unwrap();
    let config = Config { slot: 300, horizon: None };
    let ops = record_replay(&load, config).unwrap();
    let options = Options { mode: Mode::PlanOnly, ..Options::default() };
    let setup = ReplayConfig { config, options, verify: false };
    let run = replay(Kind::REFERENCE, &load, &setup, &mut Silent).unwrap();
    for (kind, calls) in &run.ops {
        assert_eq!(ops.iter().filter(|op| op.kind() == *kind).count() as u64, *calls, "{kind}");
    }
    assert_eq!(ops.len() as u64, run.ops.values().sum::<u64>());
}
