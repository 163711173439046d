//! The step rules (`src/sim/rules.rs`), on one real manager: a planted lapsed-hold lock
//! breaks `stale` and the same lock in time breaks nothing; a planted refused release
//! that drops the lock breaks `refused`; a lock the client asked for and was told
//! failed breaks `all-or-nothing`, an unrelated one does not.

use coreserve::durable::{Durable, Input, LockRecord};
use coreserve::manager::ManagerConfig;
use coreserve::node::Server;
use coreserve::proto::{ClaimId, Msg, TxnId};
use coreserve::sim::rules::Rules;
use coreserve::Plant;
use structures::{Kind, RangeSet};

use crate::{env, manager_config, prio, A, COORDINATOR, M1};

/// Manager M1 with `plant`, started at 0.
fn server(plant: Option<Plant>) -> Server {
    let cfg = ManagerConfig { plant, ..manager_config(Kind::ALL[0]) };
    Server::start(M1, cfg, COORDINATOR, &Durable::default(), 0).unwrap().0
}

/// Steps `s` at `now` with a message from A, and checks the step.
fn step(s: &mut Server, rules: &mut Rules, now: u64, msg: Msg) -> Result<(), (&'static str, String)> {
    let e = env(A, M1, msg);
    rules.delivered(&e);
    for o in s.handle(now, Input::Msg(e)) {
        if let coreserve::durable::Output::Send(sent) = o {
            rules.sent(&sent, s).map_err(|v| (v.invariant, v.detail))?;
        }
    }
    rules.check(M1, Some(s), now).map_err(|v| (v.invariant, v.detail))
}

const C1: ClaimId = ClaimId { epoch: 1, seq: 1 };

#[test]
fn a_lock_of_a_lapsed_hold_breaks_stale_and_one_in_time_does_not() {
    for (at, planted) in [(5, false), (15, true)] {
        let mut s = server(Some(Plant::LockLapsedHold));
        let mut rules = Rules::default();
        rules.check(M1, Some(&s), 0).unwrap();
        // A hold at 0 lapses at 10 (the manager's hold TTL).
        step(&mut s, &mut rules, 0, Msg::Hold { req: 1, prio: prio(A), n: 1, start: 20, end: 25 }).unwrap();
        let got = step(&mut s, &mut rules, at, Msg::Lock { req: 2, claim: C1 });
        if planted {
            let (invariant, detail) = got.unwrap_err();
            assert_eq!(invariant, "stale");
            assert!(detail.contains("from a hold that lapsed at 10 (now 15)"), "{detail}");
        } else {
            assert_eq!(got, Ok(()));
        }
    }
}

#[test]
fn a_refused_release_that_drops_the_lock_breaks_refused() {
    for plant in [None, Some(Plant::RefusalDropsClaim)] {
        let mut s = server(plant);
        let mut rules = Rules::default();
        rules.check(M1, Some(&s), 0).unwrap();
        step(&mut s, &mut rules, 0, Msg::Hold { req: 1, prio: prio(A), n: 1, start: 20, end: 25 }).unwrap();
        step(&mut s, &mut rules, 1, Msg::Lock { req: 2, claim: C1 }).unwrap();
        // Locked slots are read-only: the release is refused.
        let got = step(&mut s, &mut rules, 2, Msg::Release { req: 3, claims: vec![C1] });
        match plant {
            None => assert_eq!(got, Ok(())),
            Some(_) => {
                let (invariant, detail) = got.unwrap_err();
                assert_eq!(invariant, "refused");
                assert!(detail.contains("refused Release on c1.1 but changed it"), "{detail}");
            }
        }
    }
}

#[test]
fn a_client_told_failed_may_hold_no_lock_it_asked_for() {
    let lock =
        |claim, txn| LockRecord { claim, holder: A, txn, ids: RangeSet::from_ids([0]), start: 20, end: 25 };
    let t = TxnId { client: A, seq: 7 };
    let mut rules = Rules::default();
    rules.begin(A);
    rules.client_sent(&env(A, M1, Msg::Lock { req: 1, claim: C1 }));
    rules.client_sent(&env(A, M1, Msg::CommitReq { txn: t, start: 20, end: 25, parts: vec![] }));
    let with = |l: LockRecord| Durable { locks: [(l.claim, l)].into(), ..Durable::default() };
    // Locks from before the reservation are not its.
    let old = with(lock(ClaimId { epoch: 1, seq: 9 }, Some(TxnId { client: A, seq: 1 })));
    assert_eq!(rules.failed(A, &[(M1, &old)]), Ok(()));
    for held in [with(lock(C1, None)), with(lock(ClaimId { epoch: 1, seq: 3 }, Some(t)))] {
        let v = rules.failed(A, &[(M1, &held)]).unwrap_err();
        assert_eq!(v.invariant, "all-or-nothing");
    }
    // A new reservation forgets the old one's asks.
    rules.begin(A);
    assert_eq!(rules.failed(A, &[(M1, &with(lock(C1, None)))]), Ok(()));
}
