//! The coordinator machine (design note §6.3): presumed-abort two-phase commit.

use coreserve::coordinator::{Coordinator, CoordinatorConfig};
use coreserve::durable::{DecisionRecord, Durable, Input, Output, Record, TimerId};
use coreserve::error::CalError;
use coreserve::proto::{ClaimId, Msg, Part, TxnId, Verdict};

use super::{env, persisted, sent, A, M1, M2};

const K: u32 = M1;
const T: TxnId = TxnId { client: A, seq: 1 };
const CFG: CoordinatorConfig = CoordinatorConfig { vote_timeout: 10, resend: 4, plant: None };

fn c(seq: u64) -> ClaimId {
    ClaimId { epoch: 1, seq }
}

fn parts() -> Vec<Part> {
    vec![Part { manager: M1, claims: vec![c(1)], n: 1 }, Part { manager: M2, claims: vec![c(2)], n: 1 }]
}

fn commit_req() -> Msg {
    Msg::CommitReq { txn: T, start: 10, end: 15, parts: parts() }
}

fn fresh() -> Coordinator {
    Coordinator::start(K, CFG, &Durable::default(), 0).0
}

fn deliver(k: &mut Coordinator, now: u64, from: u32, msg: Msg) -> Vec<Output> {
    k.handle(now, Input::Msg(env(from, K, msg)))
}

fn vote(yes: bool) -> Msg {
    Msg::Vote { txn: T, yes, reason: (!yes).then_some(CalError::UnknownHold { claim: c(2) }) }
}

fn decision(commit: bool) -> Record {
    Record::Decision(DecisionRecord { txn: T, commit, start: 10, end: 15, parts: parts() })
}

fn prepare(claim: u64) -> Msg {
    Msg::Prepare { txn: T, client: A, start: 10, end: 15, claims: vec![c(claim)] }
}

#[test]
fn k1_commit_is_decided_durably_before_anyone_hears_it() {
    let mut k = fresh();
    let out = deliver(&mut k, 0, A, commit_req());
    assert!(persisted(&out).is_empty(), "presumed abort: no begin record");
    assert_eq!(sent(&out), vec![(M1, prepare(1)), (M2, prepare(2))]);
    assert!(out.contains(&Output::SetTimer { id: TimerId::VoteTimeout(T), at: 10 }));
    let out = deliver(&mut k, 1, M1, vote(true));
    assert!(out.is_empty());
    let out = deliver(&mut k, 2, M2, vote(true));
    assert_eq!(out[0], Output::Persist(decision(true)), "the record comes first");
    let commit = Msg::Commit { txn: T, end: 15 };
    assert_eq!(
        sent(&out),
        vec![(M1, commit.clone()), (M2, commit), (A, Msg::Outcome { txn: T, committed: true })]
    );
    assert!(persisted(&deliver(&mut k, 3, M1, Msg::Ack { txn: T })).is_empty());
    assert_eq!(persisted(&deliver(&mut k, 4, M2, Msg::Ack { txn: T })), vec![Record::End(T)]);
    // K-5: a duplicated request gets the outcome, and nothing restarts.
    let out = deliver(&mut k, 5, A, commit_req());
    assert_eq!(sent(&out), vec![(A, Msg::Outcome { txn: T, committed: true })]);
}

#[test]
fn k2_k4_a_no_vote_aborts_durably_and_late_yes_votes_get_the_abort() {
    let mut k = fresh();
    deliver(&mut k, 0, A, commit_req());
    let out = deliver(&mut k, 1, M2, vote(false));
    assert_eq!(persisted(&out), vec![decision(false)]);
    let abort = |claim| Msg::Abort { txn: T, claims: vec![c(claim)] };
    assert_eq!(
        sent(&out),
        vec![(M1, abort(1)), (M2, abort(2)), (A, Msg::Outcome { txn: T, committed: false })]
    );
    let out = deliver(&mut k, 2, M1, vote(true));
    assert_eq!(sent(&out), vec![(M1, abort(1))]);
    assert!(persisted(&out).is_empty());
}

#[test]
fn k3_a_missing_vote_times_out_into_an_abort() {
    let mut k = fresh();
    deliver(&mut k, 0, A, commit_req());
    deliver(&mut k, 1, M1, vote(true));
    let out = k.handle(4, Input::Timer(TimerId::Resend(T)));
    assert_eq!(sent(&out), vec![(M2, prepare(2))], "the silent manager is asked again");
    let out = k.handle(10, Input::Timer(TimerId::VoteTimeout(T)));
    assert_eq!(persisted(&out), vec![decision(false)]);
    assert_eq!(k.decided(T), Some(false));
}

#[test]
fn k6_k7_an_inquiry_about_an_unknown_transaction_records_an_abort_first() {
    let mut k = fresh();
    let out = deliver(&mut k, 0, M1, Msg::DecisionQuery { txn: T });
    let record = Record::Decision(DecisionRecord { txn: T, commit: false, start: 0, end: 0, parts: vec![] });
    assert_eq!(persisted(&out), vec![record]);
    assert_eq!(sent(&out), vec![(M1, Msg::Decision { txn: T, verdict: Verdict::Abort })]);
    let out = deliver(&mut k, 1, A, commit_req());
    assert_eq!(
        sent(&out),
        vec![(A, Msg::Outcome { txn: T, committed: false })],
        "a late request cannot restart it"
    );

    let mut k = fresh();
    deliver(&mut k, 0, A, commit_req());
    let out = deliver(&mut k, 1, M1, Msg::DecisionQuery { txn: T });
    assert_eq!(sent(&out), vec![(M1, Msg::Decision { txn: T, verdict: Verdict::Pending })]);
    assert!(persisted(&out).is_empty());
}

#[test]
fn k8_k9_a_restart_resends_commits_and_forgets_undecided_transactions() {
    let mut durable = Durable::default();
    let Record::Decision(d) = decision(true) else { unreachable!() };
    durable.decisions.insert(T, (d, false));
    let (_, out) = Coordinator::start(K, CFG, &durable, 50);
    let commit = Msg::Commit { txn: T, end: 15 };
    assert_eq!(sent(&out), vec![(M1, commit.clone()), (M2, commit)]);

    // Crash before the decision: nothing durable, so an inquiry is answered abort.
    let mut k = fresh();
    deliver(&mut k, 0, A, commit_req());
    deliver(&mut k, 1, M1, vote(true));
    let (mut k, out) = Coordinator::start(K, CFG, &Durable::default(), 5);
    assert!(out.is_empty());
    let out = deliver(&mut k, 6, M1, Msg::DecisionQuery { txn: T });
    assert_eq!(sent(&out), vec![(M1, Msg::Decision { txn: T, verdict: Verdict::Abort })]);
}

#[test]
fn k10_bad_commit_requests_are_refused_and_leave_no_state() {
    let one = vec![Part { manager: M1, claims: vec![c(1)], n: 1 }];
    let twice =
        vec![Part { manager: M1, claims: vec![c(1)], n: 1 }, Part { manager: M1, claims: vec![c(2)], n: 1 }];
    let many: Vec<Part> = (0..65).map(|m| Part { manager: m, claims: vec![c(1)], n: 1 }).collect();
    let cases = [
        (Msg::CommitReq { txn: T, start: 10, end: 15, parts: one }, "2..=64 managers, not 1"),
        (Msg::CommitReq { txn: T, start: 10, end: 15, parts: twice }, "a manager is named twice"),
        (Msg::CommitReq { txn: T, start: 10, end: 15, parts: many }, "not 65"),
        (Msg::CommitReq { txn: T, start: 15, end: 15, parts: parts() }, "empty window [15, 15)"),
    ];
    for (msg, expected) in cases {
        let mut k = fresh();
        let out = deliver(&mut k, 0, A, msg);
        assert!(persisted(&out).is_empty());
        match &sent(&out)[..] {
            [(to, Msg::Error { error, .. })] => {
                assert_eq!(*to, A);
                assert!(error.to_string().contains(expected), "{error}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(k.decided(T), None);
    }
    let mut k = fresh();
    let out = deliver(&mut k, 0, M2, commit_req());
    let refused = matches!(&sent(&out)[..], [(_, Msg::Error { error: CalError::BadRequest(why), .. })] if why == "transaction t11.1 is not client 1's");
    assert!(refused, "{out:?}");
}
