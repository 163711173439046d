//! `src/rspb/model.rs`: every bad input refused with an error naming the request and
//! sub-request, before any machine's state changes.

use scheduling::rspb::model::{Held, Request, Sub, Workload};
use scheduling::rspb::{run, Algorithm};
use structures::Kind;

use super::{on, req, sub, world};

/// The error `w` is refused with (by `run`, before it schedules anything).
fn refused(w: &Workload) -> String {
    let err = w.validate().unwrap_err().to_string();
    assert_eq!(run(Algorithm::CoRspb, w, Kind::RbTree, false).unwrap_err().to_string(), err);
    err
}

fn one(r: Request) -> Workload {
    world(&[70, 50], &[], vec![r])
}

#[test]
fn each_bad_input_is_named() {
    let bad_sub = |s: Sub| one(req(1, 5, vec![sub(10, false), s]));
    let cases: Vec<(Workload, &str)> = vec![
        (bad_sub(Sub { cpu_max: 0, cpu_min: 0, ..sub(10, false) }), "request 1, sub-request 1: 0 % of CPU is nothing to reserve"),
        (bad_sub(sub(120, false)), "request 1, sub-request 1: 120 % of CPU is above all of a machine's CPU"),
        (bad_sub(Sub { cpu_min: 30, ..sub(20, true) }), "request 1, sub-request 1: benefit minimum 30 % is above the request (requested 20 %)"),
        (one(req(1, 5, Vec::new())), "request 1: 0 sub-requests; a request has 1 to 64"),
        (Workload { interval: 0, ..one(req(1, 5, vec![sub(10, false)])) }, "scheduling interval 0"),
        (one(req(1, 0, vec![sub(10, false)])), "request 1: priority 0 outside 1..=100"),
        (one(req(1, 101, vec![sub(10, false)])), "request 1: priority 101 outside 1..=100"),
        (one(Request { start: 350, ..req(1, 5, vec![sub(10, false)]) }), "request 1: window [350, 450) ends beyond the horizon: at most 400 time units after its arrival at 0"),
        (one(Request { arrival: 120, ..req(1, 5, vec![sub(10, false)]) }), "request 1: window [100, 200) starts before the request arrives at 120"),
        (one(Request { duration: 0, ..req(1, 5, vec![sub(10, false)]) }), "request 1: window [100, 100) is empty"),
        (one(req(1, 5, vec![on(0, sub(10, false)), sub(10, false)])), "request 1, sub-request 1: fixed and floating sub-requests mixed"),
        (one(req(1, 5, vec![on(2, sub(10, false))])), "request 1, sub-request 0: machine 2 does not exist (there are 2)"),
        (world(&[0], &[], Vec::new()), "machines: machine 0 gives 0 % of its CPU"),
        (world(&[], &[], Vec::new()), "machines: 0; a run has 1 to 1000"),
        (world(&[70], &[(0, 50), (0, 30)], Vec::new()), "held reservation 1: at 100, machine 0 would hold 80 % of the 70 % it gives"),
        (Workload { held: vec![Held { machine: 0, start: 10, end: 500, cpu: 5 }], ..world(&[70], &[], Vec::new()) }, "held reservation 0: ends at 500, beyond the horizon 400"),
    ];
    for (w, expected) in cases {
        let err = refused(&w);
        assert!(err.contains(expected), "{err:?} does not say {expected:?}");
    }
    let order = world(
        &[70],
        &[],
        vec![
            Request { arrival: 10, start: 100, ..req(1, 5, vec![sub(10, false)]) },
            req(2, 5, vec![sub(10, false)]),
        ],
    );
    assert!(refused(&order).contains("request 2: arrives at 0, before the request listed ahead of it"));
}

#[test]
fn more_than_a_machine_gives_is_degraded_or_rejected_not_refused() {
    // 80 % asked of machines giving 70 and 50: a soft request takes what one gives.
    let w = one(req(1, 5, vec![sub(80, true)]));
    assert!(w.validate().is_ok());
    assert_eq!(super::decide(Algorithm::CoRspb, &w), [super::yes(&[(0, 70)])]);
}
