//! The hold-and-lock layer (design note §6.1), on every structure, with `validate()`
//! after every step and bad inputs leaving the state unchanged.

use coreserve::calendar::{Calendar, Claim, ClaimState, SlotState};
use coreserve::error::CalError;
use coreserve::proto::{ClaimId, TxnId};
use structures::{Error, Kind, RangeSet};

use super::{access, config, prio, A, B};

fn calendar(kind: Kind) -> Calendar {
    Calendar::new(kind, 4, config(), access(), 1).unwrap()
}

fn ids(v: &[u32]) -> RangeSet {
    RangeSet::from_ids(v.iter().copied())
}

/// Everything a refused call must leave alone: the claims, and the index's free ids at
/// every slot.
fn snapshot(cal: &Calendar) -> (String, Vec<RangeSet>) {
    let now = cal.now();
    let free = (now..now + 99).map(|t| cal.free(t, t + 1).unwrap()).collect();
    (format!("{:?}", cal.claims()), free)
}

/// Runs `case` on every structure, validating after it.
fn each(case: impl Fn(&mut Calendar)) {
    for &kind in Kind::ALL {
        let mut cal = calendar(kind);
        case(&mut cal);
        cal.validate().unwrap_or_else(|e| panic!("{kind}: {e}"));
    }
}

/// Asserts that `op` fails with `expected` and changes nothing.
fn refused<T: std::fmt::Debug>(
    cal: &mut Calendar,
    expected: &CalError,
    op: impl FnOnce(&mut Calendar) -> Result<T, CalError>,
) {
    let before = snapshot(cal);
    let got = op(cal);
    assert_eq!(got.as_ref().err(), Some(expected), "{got:?}");
    assert_eq!(snapshot(cal), before, "a refused call changed the state");
    cal.validate().unwrap();
}

#[test]
fn l1_a_hold_is_busy_in_the_index_and_held_to_readers() {
    each(|cal| {
        let c1 = cal.hold(A, prio(A), &ids(&[0, 1]), (0, 5), 10).unwrap();
        assert_eq!(c1, ClaimId { epoch: 1, seq: 1 });
        assert_eq!(cal.slot_state(0, 0), SlotState::Held { holder: A });
        assert_eq!(cal.slot_state(0, 5), SlotState::Available);
        assert_eq!(cal.free(0, 5).unwrap(), ids(&[2, 3]));
        cal.validate().unwrap();
    });
}

#[test]
fn l2_a_conflicting_hold_is_refused_and_names_the_busy_ids() {
    each(|cal| {
        cal.hold(A, prio(A), &ids(&[0, 1]), (0, 5), 10).unwrap();
        let busy = CalError::Busy { ids: ids(&[1]), start: 3, end: 8 };
        refused(cal, &busy, |cal| cal.hold(B, prio(B), &ids(&[1, 2]), (3, 8), 10));
    });
}

#[test]
fn l3_release_is_idempotent_and_an_unknown_hold_is_named() {
    each(|cal| {
        let c1 = cal.hold(A, prio(A), &ids(&[0, 1]), (0, 5), 10).unwrap();
        assert_eq!(cal.release(A, c1, 0), Ok(true));
        assert_eq!(cal.free(0, 5).unwrap(), ids(&[0, 1, 2, 3]));
        assert_eq!(cal.release(A, c1, 0), Ok(false), "a retried release");
        let c99 = ClaimId { epoch: 1, seq: 99 };
        refused(cal, &CalError::UnknownHold { claim: c99 }, |cal| cal.release(A, c99, 0));
    });
}

#[test]
fn l4_the_access_list_gates_holds() {
    each(|cal| {
        let denied = CalError::AccessDenied { client: B, ids: ids(&[3]), start: 0, end: 5 };
        refused(cal, &denied, |cal| cal.hold(B, prio(B), &ids(&[3]), (0, 5), 10));
        let c1 = cal.hold(A, prio(A), &ids(&[3]), (0, 5), 10).unwrap();
        assert_eq!(cal.visible(B), ids(&[0, 1, 2]));
        let denied = CalError::AccessDenied { client: B, ids: ids(&[3]), start: 0, end: 5 };
        refused(cal, &denied, |cal| cal.lock(B, c1, 1));
        assert!(denied.to_string().contains("client 12 is not on the access list of resources"), "{denied}");
    });
}

#[test]
fn l5_l6_slots_outside_the_calendar_are_refused_with_what_and_where() {
    each(|cal| {
        let outside = |e| CalError::Outside(e);
        refused(cal, &outside(Error::IdOutOfRange { id: 4, capacity: 4 }), |cal| {
            cal.hold(A, prio(A), &ids(&[4]), (0, 5), 10)
        });
        refused(cal, &outside(Error::BeyondHorizon { end: 101, limit: 100 }), |cal| {
            cal.hold(A, prio(A), &ids(&[0]), (95, 101), 10)
        });
        refused(cal, &outside(Error::EmptyWindow { start: 7, end: 7 }), |cal| {
            cal.hold(A, prio(A), &ids(&[0]), (7, 7), 10)
        });
        refused(cal, &outside(Error::EmptySet), |cal| cal.hold(A, prio(A), &RangeSet::new(), (0, 5), 10));
        cal.advance(10).unwrap();
        refused(cal, &outside(Error::BeforePast { time: 5, now: 10 }), |cal| {
            cal.hold(A, prio(A), &ids(&[0]), (5, 12), 20)
        });
        let message = outside(Error::BeforePast { time: 5, now: 10 }).to_string();
        assert!(
            message.contains("outside the calendar") && message.contains("time 5 is before now (10)"),
            "{message}"
        );
    });
}

#[test]
fn l7_a_lock_is_read_only_and_only_its_holder_locks() {
    each(|cal| {
        let c1 = cal.hold(A, prio(A), &ids(&[0, 1]), (0, 5), 10).unwrap();
        let c2 = cal.hold(B, prio(B), &ids(&[2]), (0, 5), 10).unwrap();
        let free = cal.free(0, 5).unwrap();
        let record = cal.lock(A, c1, 4).unwrap();
        assert_eq!((record.ids, record.start, record.end, record.txn), (ids(&[0, 1]), 0, 5, None));
        assert_eq!(cal.free(0, 5).unwrap(), free, "locking does not touch the index");
        assert_eq!(cal.slot_state(0, 0), SlotState::Locked { holder: A });
        refused(cal, &CalError::AlreadyLocked { claim: c1 }, |cal| cal.release(A, c1, 4));
        refused(cal, &CalError::NotHolder { claim: c2, holder: B, client: A }, |cal| cal.lock(A, c2, 4));
    });
}

#[test]
fn l8_an_expired_hold_cannot_be_locked() {
    each(|cal| {
        let c1 = cal.hold(A, prio(A), &ids(&[0, 1]), (20, 25), 10).unwrap();
        assert_eq!(cal.next_deadline(), Some(10));
        assert_eq!(cal.expire(9).unwrap(), vec![]);
        assert_eq!(cal.expire(10).unwrap(), vec![(c1, A)]);
        assert_eq!(cal.free(20, 25).unwrap(), ids(&[0, 1, 2, 3]));
        refused(cal, &CalError::HoldExpired { claim: c1, deadline: 10, now: 10 }, |cal| cal.lock(A, c1, 10));
    });
}

#[test]
fn l9_locks_leave_when_their_window_passes() {
    each(|cal| {
        let c1 = cal.hold(A, prio(A), &ids(&[0, 1]), (0, 5), 10).unwrap();
        cal.lock(A, c1, 1).unwrap();
        assert_eq!(cal.advance(3).unwrap(), vec![]);
        assert_eq!(cal.free(3, 5).unwrap(), ids(&[2, 3]));
        cal.validate().unwrap();
        assert_eq!(cal.advance(5).unwrap(), vec![c1]);
        assert!(cal.claims().is_empty());
    });
}

#[test]
fn l10_a_prepared_hold_neither_expires_nor_is_recalled() {
    each(|cal| {
        let c1 = cal.hold(A, prio(A), &ids(&[0, 1]), (60, 65), 10).unwrap();
        let txn = TxnId { client: A, seq: 1 };
        cal.usable(A, c1, 5).unwrap();
        cal.set_prepared(c1, txn);
        assert_eq!(cal.recall(c1, 6), None);
        assert_eq!(cal.expire(50).unwrap(), vec![]);
        assert_eq!(cal.claims()[&c1].state, ClaimState::Prepared { txn });
        refused(cal, &CalError::Prepared { claim: c1, txn }, |cal| cal.release(A, c1, 50));
        let free = cal.free(60, 65).unwrap();
        cal.set_locked(c1, Some(txn)).unwrap();
        assert_eq!(cal.free(60, 65).unwrap(), free);
        assert_eq!(cal.slot_state(0, 60), SlotState::Locked { holder: A });
    });
}

#[test]
fn a_recall_shortens_a_hold_once() {
    each(|cal| {
        let c1 = cal.hold(B, prio(B), &ids(&[0]), (20, 25), 10).unwrap();
        assert_eq!(cal.recall(c1, 4), Some(4));
        assert_eq!(cal.recall(c1, 3), None, "recalled already");
        assert_eq!(cal.next_deadline(), Some(4));
    });
}

#[test]
fn validate_names_what_the_layer_and_index_disagree_on() {
    each(|cal| {
        // A restore puts cells in the index; a held claim restored that way has no
        // deadline entry, which validate() must name.
        let stray = ClaimId { epoch: 0, seq: 7 };
        let held = ClaimState::Held { deadline: 50, recalled: false };
        let claim = Claim { holder: A, prio: prio(A), ids: ids(&[0]), start: 0, end: 5, state: held };
        cal.restore(stray, claim.clone()).unwrap();
        let err = cal.validate();
        assert!(
            err.as_ref().is_err_and(|e| e.to_string().contains("held claim c0.7 has no deadline entry")),
            "{err:?}"
        );
        // Restoring a second claim on the same cells is refused by the index.
        let locked = Claim { state: ClaimState::Locked { txn: None }, ..claim };
        let twice = cal.restore(ClaimId { epoch: 0, seq: 8 }, locked);
        assert!(matches!(twice, Err(CalError::Index(Error::NotFree { .. }))), "{twice:?}");
        cal.discard(stray).unwrap();
    });
}

/// The ids free at slot `t`, computed from the claims alone (the naive model).
fn naive_free(cal: &Calendar, t: u64) -> RangeSet {
    let busy = cal
        .claims()
        .values()
        .filter(|c| c.start <= t && t < c.end)
        .fold(RangeSet::new(), |acc, c| acc.union(&c.ids));
    RangeSet::full(4).subtract(&busy)
}

#[test]
fn random_operations_keep_the_index_and_the_claims_in_agreement_on_every_structure() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    for &kind in Kind::ALL {
        for seed in 0..40 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut cal = calendar(kind);
            let mut now = 0;
            let mut txn_seq = 0;
            for _ in 0..120 {
                let known: Vec<ClaimId> = cal.claims().keys().copied().collect();
                let pick = |rng: &mut StdRng| {
                    if known.is_empty() || rng.random_bool(0.1) {
                        ClaimId { epoch: 1, seq: rng.random_range(0..50) }
                    } else {
                        known[rng.random_range(0..known.len())]
                    }
                };
                let client = if rng.random_bool(0.5) { A } else { B };
                let before = snapshot(&cal);
                let result: Result<(), CalError> = match rng.random_range(0..8) {
                    0 | 1 => {
                        let lo = rng.random_range(0..5);
                        let set = RangeSet::from_range(lo, rng.random_range(lo..=5));
                        let start = now + rng.random_range(0..30);
                        let end = start + rng.random_range(0..10);
                        let deadline = now + rng.random_range(1..20);
                        cal.hold(client, prio(client), &set, (start, end), deadline).map(|_| ())
                    }
                    2 => cal.release(client, pick(&mut rng), now).map(|_| ()),
                    3 => cal.lock(client, pick(&mut rng), now).map(|_| ()),
                    4 => {
                        let claim = pick(&mut rng);
                        cal.usable(client, claim, now).map(|_| ()).map(|()| {
                            txn_seq += 1;
                            cal.set_prepared(claim, TxnId { client, seq: txn_seq });
                        })
                    }
                    5 => {
                        let claim = pick(&mut rng);
                        if let Some(ClaimState::Prepared { txn }) = cal.claims().get(&claim).map(|c| c.state)
                        {
                            if rng.random_bool(0.5) {
                                cal.set_locked(claim, Some(txn));
                            } else {
                                cal.discard(claim).unwrap();
                            }
                        }
                        Ok(())
                    }
                    6 => {
                        now += rng.random_range(0..4);
                        cal.expire(now).map(|_| ())
                    }
                    _ => {
                        now += rng.random_range(0..4);
                        cal.advance(now).map(|_| ())
                    }
                };
                if result.is_err() {
                    assert_eq!(
                        snapshot(&cal),
                        before,
                        "{kind} seed {seed}: a refused call changed the state"
                    );
                }
                cal.validate().unwrap_or_else(|e| panic!("{kind} seed {seed}: {e}"));
                for t in cal.now()..cal.now() + 40 {
                    assert_eq!(
                        cal.free(t, t + 1).unwrap(),
                        naive_free(&cal, t),
                        "{kind} seed {seed} slot {t}"
                    );
                }
            }
        }
    }
}
