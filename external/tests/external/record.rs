//! `src/external/record.rs`: the recorder logs every call and changes no answer.

use external::record::{record_replay, Recorder};
use external::streams::read_trace;
use oracle::{apply, Op};
use scheduling::replay::{replay, Mode, Options, ReplayConfig, Silent};
use structures::{Config, Kind, RangeSet};

#[test]
fn the_recorder_logs_each_call_in_order_and_forwards_it() {
    let config = Config::default();
    let (mut recorder, log) = Recorder::new(Kind::RbTree.build(4, config).unwrap());
    let mut plain = Kind::RbTree.build(4, config).unwrap();
    let ops = [
        Op::Allocate { start: 0, end: 10, set: RangeSet::from_range(0, 2) },
        Op::Check { start: 5, end: 8, n: 3 },
        Op::Earliest { ready: 2, duration: 4, n: 3 },
        Op::Advance { now: 3 },
        Op::FreeFrames { from: 3, to: 12 },
    ];
    for op in &ops {
        assert_eq!(apply(&mut recorder, op), apply(plain.as_mut(), op));
    }
    assert_eq!(*log.borrow(), ops);
}

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
