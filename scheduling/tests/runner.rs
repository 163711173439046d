//! `src/runner.rs`: why a replay stops (an index that cannot be built, an op the
//! structure refuses, named by job and op), that the oracle beside a structure changes
//! nothing of what a replay counts, and placements as run files hold them.

#[path = "support/fixtures.rs"]
mod fixtures;

use fixtures::{job, load, tapped};
use oracle::tap::Planted;
use oracle::Op;
use scheduling::replay::{
    horizon_for, replay, replay_on, Mode, Options, Placement, ReplayConfig, ReplayError, Silent,
};
use structures::{Config, Error, Kind, RangeSet};

#[test]
fn a_machine_of_no_resources_stops_the_replay_before_it_starts() {
    let empty = load(0, vec![job(1, 0, 1, 10, 10)]);
    for &kind in Kind::ALL {
        let cause = kind.build(0, kind.config_for(Config::default())).err().expect("no index of 0 ids");
        for verify in [false, true] {
            let setup = ReplayConfig { verify, ..ReplayConfig::default() };
            let err = replay(kind, &empty, &setup, &mut Silent).unwrap_err();
            assert!(matches!(err, ReplayError::Build(_)), "{kind}: {err:?}");
            assert_eq!(err.to_string(), format!("cannot build an index: {cause}"), "{kind}");
        }
    }
}

#[test]
fn an_op_the_structure_refuses_names_the_job_and_the_op() {
    // A holds both ids over [0, 10). The index then lies that both are free over B's
    // window [1, 6), so B is placed on id 0, which the structure underneath refuses.
    let load = load(2, vec![job(1, 0, 2, 10, 10), job(2, 1, 1, 5, 5)]);
    let options = Options::default();
    let config = Config { slot: 1, horizon: Some(horizon_for(&load, 1, &options).unwrap()) };
    let id0 = RangeSet::from_range(0, 1);
    for &kind in Kind::ALL {
        let (index, _) = tapped(kind, 2, config, Some(Planted::ClaimsAllFree));
        let Err(err) = replay_on(index, &load, &options) else { panic!("{kind}: the lie went unnoticed") };
        let ReplayError::Refused(refusal) = &err else { panic!("{kind}: {err:?}") };
        assert_eq!(refusal.id, 2, "{kind}");
        assert_eq!(refusal.op, Op::Allocate { start: 1, end: 6, set: id0.clone() }, "{kind}");
        assert_eq!(refusal.error, Error::NotFree { start: 1, end: 6, busy: id0.clone() }, "{kind}");
        let text = err.to_string();
        assert_eq!(text, format!("job 2: {:?} was refused: {}", refusal.op, refusal.error));
        assert!(text.starts_with("job 2: Allocate { start: 1, end: 6,"), "{text}");
    }
}

#[test]
fn the_oracle_beside_a_structure_changes_nothing_a_replay_counts() {
    // Three jobs on two ids, one ending early, so every kind of op is made.
    let load = load(2, vec![job(1, 0, 2, 10, 4), job(2, 1, 1, 5, 5), job(3, 2, 2, 3, 3)]);
    for mode in [Mode::Simulate, Mode::PlanOnly] {
        let options = Options { mode, ..Options::default() };
        let config = Config { slot: 1, horizon: Some(horizon_for(&load, 1, &options).unwrap()) };
        for &kind in Kind::ALL {
            let with =
                |verify| replay(kind, &load, &ReplayConfig { config, options, verify }, &mut Silent).unwrap();
            let (plain, verified) = (with(false), with(true));
            assert!(!plain.verified && verified.verified);
            assert_eq!(plain.schedule, verified.schedule, "{kind} {mode}");
            assert_eq!(plain.ops, verified.ops, "{kind} {mode}");
            assert_eq!(
                (&plain.checks, &plain.searches),
                (&verified.checks, &verified.searches),
                "{kind} {mode}"
            );
            assert_eq!(plain.reach, verified.reach, "{kind} {mode}");
        }
    }
}

#[test]
fn a_placement_round_trips_through_json_and_refuses_unknown_fields() {
    let p =
        Placement { id: 7, submit: 3, start: 10, end: 15, set: RangeSet::from_range(2, 4), reserved: true };
    let json = serde_json::to_value(&p).unwrap();
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 6, "{json}");
    assert_eq!(serde_json::from_value::<Placement>(json.clone()).unwrap(), p);
    let mut extra = json;
    extra.as_object_mut().unwrap().insert("queue".into(), 1.into());
    let err = serde_json::from_value::<Placement>(extra).unwrap_err().to_string();
    assert!(err.contains("unknown field `queue`"), "{err}");
}
