//! The work suite (`benches/src/work.rs`) on small states: answers checked, counts exact
//! and repeatable, every structure measured.

use benches::{states, work};
use structures::Kind;

#[test]
fn the_work_of_every_structure_is_measured_and_repeatable() {
    let small = [states::synthetic(100, 3), states::kth(300)];
    let first = work::measure(&small, Kind::ALL).unwrap();
    assert_eq!(first.len(), small.len() * Kind::ALL.len() * 2);
    assert!(first.iter().all(|w| w.calls == (work::CALLS / 2) as u64 && w.visited <= w.worst), "{first:?}");
    assert_eq!(first, work::measure(&small, Kind::ALL).unwrap());
}

#[test]
fn synthetic_states_have_about_the_entries_asked_for() {
    let state = states::synthetic(1_000, 5);
    assert!((1_000..1_100).contains(&state.entries), "{}", state.entries);
    for &kind in Kind::ALL {
        let index = state.build(kind).unwrap();
        index.validate().unwrap();
        assert_eq!(index.free_frames(0, state.config.limit(0)).unwrap(), state.frames, "{kind}");
    }
}

/// Every registered structure is in every operation's instruction plan: a structure left
/// out would silently drop out of the gate.
#[test]
fn every_structure_is_in_every_instruction_plan() {
    for &op in oracle::OpKind::MEASURED.iter() {
        let planned: std::collections::BTreeSet<structures::Kind> =
            benches::instructions::plan(op).iter().map(|case| case.kind).collect();
        let missing: Vec<_> = structures::Kind::ALL.iter().filter(|k| !planned.contains(k)).collect();
        assert!(missing.is_empty(), "{op}: {missing:?} not in the plan");
    }
}
