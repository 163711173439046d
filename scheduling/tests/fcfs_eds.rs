//! `src/fcfs_eds.rs`: requests no plan can hold are refused by name with the plan
//! unchanged, a rejected request changes nothing, a reservation moves until it starts,
//! and the planner decides alike on every structure. (The paper's worked examples are the golden
//! corpus's, `tests/papers/`; the comparison with the naive reference is in
//! `references/tests/fcfs_eds.rs`.)

use scheduling::fcfs_eds::{Decision, EdsError, Planner, Request, Shift, MAX_HORIZON};
use structures::Kind;

fn req(user: u32, tes: u64, tls: u64, te: u64) -> Request {
    Request { user, job: 1, tes, tls, te, n: 1 }
}

/// Every slot's free count over `0..slots`.
fn counts(p: &mut Planner, slots: u64) -> Vec<u32> {
    (0..slots).map(|s| p.free(s).unwrap()).collect()
}

#[test]
fn requests_no_plan_can_hold_are_refused_by_name_and_change_nothing() {
    for &kind in Kind::ALL {
        let mut p = Planner::new(kind, 2, 10, true).unwrap();
        assert_eq!(p.request(req(1, 0, 2, 3)).unwrap(), Decision::Accepted { start: 0, shifted: vec![] });
        let before = (counts(&mut p, 10), p.starts());
        for (bad, why) in [
            (req(2, 0, 0, 0), "t_e is 0 slots"),
            (req(2, 3, 1, 1), "t_ls 1 is before t_es 3"),
            (Request { n: 3, ..req(2, 0, 0, 1) }, "3 nodes of 2"),
            (Request { n: 0, ..req(2, 0, 0, 1) }, "0 nodes of 2"),
            (req(2, 5, 8, 3), "its latest run ends past the horizon of 10 slots"),
            (req(2, u64::MAX - 1, u64::MAX, 5), "its latest run ends past the horizon of 10 slots"),
            (req(1, 0, 0, 1), "already placed"),
        ] {
            let err = p.request(bad).unwrap_err();
            assert!(matches!(err, EdsError::BadRequest { .. }), "{kind}: {err:?}");
            assert_eq!(err.to_string(), format!("request ({}, 1): {why}", bad.user), "{kind}");
            assert_eq!((counts(&mut p, 10), p.starts()), before, "{kind}: {why}");
        }
    }
    for horizon in [0, MAX_HORIZON + 1] {
        let err = Planner::new(Kind::REFERENCE, 2, horizon, false).err().unwrap();
        assert_eq!(err.to_string(), format!("a horizon of {horizon} slots; it must be 1 to {MAX_HORIZON}"));
    }
}

#[test]
fn a_rejected_request_puts_back_every_move_it_made() {
    // One node. A (flexible 0..=4, 2 slots) at 0; B (rigid at 3, 2 slots) at 3. C (rigid
    // at 0, 4 slots) needs A gone from 0..4: A can leave slot 0 only for 5, past its
    // window; it moves nowhere, so C is rejected and the plan is as before.
    for &kind in Kind::ALL {
        let mut p = Planner::new(kind, 1, 12, true).unwrap();
        p.request(req(1, 0, 4, 2)).unwrap();
        p.request(req(2, 3, 3, 2)).unwrap();
        let before = (counts(&mut p, 12), p.starts());
        assert_eq!(p.request(req(3, 0, 0, 4)).unwrap(), Decision::Rejected, "{kind}");
        assert_eq!((counts(&mut p, 12), p.starts()), before, "{kind}");
        // D (flexible 1..=3, 1 slot) at 2: first fit finds slot 2 free.
        assert_eq!(
            p.request(req(4, 1, 3, 1)).unwrap(),
            Decision::Accepted { start: 2, shifted: vec![] },
            "{kind}"
        );
    }
}

#[test]
fn a_reservation_that_has_started_does_not_move() {
    // One node. A (flexible 0..=3, 1 slot) at 0; C (rigid at 0, 1 slot) needs slot 0.
    for &kind in Kind::ALL {
        let mut p = Planner::new(kind, 1, 8, true).unwrap();
        p.request(req(1, 0, 3, 1)).unwrap();
        let moved = vec![Shift { user: 1, job: 1, from: 0, to: 1 }];
        assert_eq!(
            p.request(req(3, 0, 0, 1)).unwrap(),
            Decision::Accepted { start: 0, shifted: moved },
            "{kind}"
        );
        // Once slot 0 is past, A stays there, and C is rejected.
        let mut p = Planner::new(kind, 1, 8, true).unwrap();
        p.request(req(1, 0, 3, 1)).unwrap();
        p.advance(1);
        assert_eq!(p.request(req(3, 0, 0, 1)).unwrap(), Decision::Rejected, "{kind}");
    }
}
