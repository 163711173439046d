//! The host (`src/host.rs`), driven through `Running::call` with a probe machine: a
//! message to a node hosted here is delivered in process, one to a node with no known
//! address is dropped and counted, timers fire when due unless cancelled or replaced, a
//! member's address is configured and a client's learned from its request, a post from
//! or naming a node outside the membership, for another node, or after a store failure
//! is refused and changes nothing.

use std::time::Duration;

use coreserve::durable::{Input, Output, StoreError, TimerId};
use coreserve::proto::{Envelope, Msg, NodeId, Part, TxnId};
use coreserve_service::client::wait_until;
use coreserve_service::host::Counts;
use coreserve_service::wire::{ErrorBody, Post};

use coreserve_service::child::free_ports;

use super::{env, nothing, probe, probe_on, silent, take, Script};

/// Node 1 forwards every message to the node named by its `req`; other nodes answer
/// nothing.
fn forwarder() -> Script {
    Box::new(|node: NodeId, input: &Input| {
        Ok(match input {
            Input::Msg(Envelope { msg: Msg::Release { req, .. }, .. }) if node == 1 => {
                vec![Output::Send(env(1, *req as NodeId, nothing(0)))]
            }
            _ => Vec::new(),
        })
    })
}

fn steps(log: &[(NodeId, Input)]) -> Vec<(NodeId, Option<NodeId>)> {
    log.iter().map(|(n, i)| (*n, if let Input::Msg(e) = i { Some(e.from) } else { None })).collect()
}

#[test]
fn a_message_to_a_node_hosted_here_is_delivered_in_process_and_one_to_nowhere_is_dropped() {
    let p = probe(&[1, 2], Vec::new(), forwarder);
    let (log, counts) = p
        .call(|h| {
            h.deliver(1, Input::Msg(env(9, 1, nothing(2)))).unwrap();
            h.deliver(1, Input::Msg(env(9, 1, nothing(7)))).unwrap();
            (h.machine.log.clone(), h.counts())
        })
        .unwrap();
    // Node 2 was stepped with node 1's message; node 7 has no address.
    assert_eq!(steps(&log), vec![(1, Some(9)), (2, Some(1)), (1, Some(9))]);
    assert_eq!(counts, Counts { received: 0, sent: 2, dropped: 1, refused: 0 });
}

#[test]
fn timers_fire_when_due_unless_cancelled_or_replaced() {
    let p = probe(&[1], Vec::new(), || {
        Box::new(|_: NodeId, input: &Input| {
            Ok(match input {
                Input::Msg(_) => vec![
                    Output::SetTimer { id: TimerId::Retry(1), at: 0 },
                    Output::SetTimer { id: TimerId::Retry(2), at: u64::MAX },
                    Output::SetTimer { id: TimerId::Retry(3), at: 0 },
                    Output::CancelTimer(TimerId::Retry(3)),
                    Output::SetTimer { id: TimerId::Retry(4), at: 0 },
                    Output::SetTimer { id: TimerId::Retry(4), at: u64::MAX },
                ],
                Input::Timer(_) => Vec::new(),
            })
        })
    });
    p.call(|h| h.deliver(1, Input::Msg(env(9, 1, nothing(1))))).unwrap().unwrap();
    let fired =
        || p.call(|h| h.machine.log.iter().skip(1).map(|(_, i)| i.clone()).collect::<Vec<_>>()).unwrap();
    assert!(wait_until(Duration::from_secs(2), || !fired().is_empty()), "the due timer never fired");
    // The driver ticks every 2 ms: give the others time to (wrongly) fire.
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(fired(), vec![Input::Timer(TimerId::Retry(1))]);
}

#[test]
fn a_members_address_is_configured_and_a_clients_is_learned_from_its_request() {
    // Managers 1 (here) and 3 (there), each configured with both; client 8 on a host of
    // its own. Node 1 answers whoever wrote to it, and writes to node 3.
    let ports = free_ports(2).unwrap();
    let members: Vec<(NodeId, String)> =
        [1, 3].into_iter().zip(&ports).map(|(id, p)| (id, format!("127.0.0.1:{p}"))).collect();
    let there = probe_on((ports[1], true), &[3], members.clone(), silent);
    let client = probe_on((0, false), &[8], members.clone(), silent);
    let here = probe_on((ports[0], true), &[1], members, || {
        Box::new(|_: NodeId, input: &Input| {
            Ok(match input {
                Input::Msg(e) => {
                    vec![Output::Send(env(1, e.from, nothing(0))), Output::Send(env(1, 3, nothing(0)))]
                }
                Input::Timer(_) => Vec::new(),
            })
        })
    });
    let post = Post { reply_to: client.addr.to_string(), env: env(8, 1, nothing(5)) };
    let counts = here.call(move |h| (take(h, &post), h.counts())).unwrap();
    assert_eq!(
        counts,
        (Ok(()), Counts { received: 1, sent: 2, dropped: 0, refused: 0 }),
        "both had an address"
    );
    let heard = |r: &coreserve_service::runtime::Running<super::Probe>| {
        r.call(|h| steps(&h.machine.log)).unwrap().len()
    };
    assert!(
        wait_until(Duration::from_secs(3), || heard(&client) == 1 && heard(&there) == 1),
        "nodes 8 and 3 never heard from node 1"
    );
    // A member's post names no address to learn: its `reply_to` is ignored.
    let lie = Post { reply_to: client.addr.to_string(), env: env(3, 1, nothing(6)) };
    let counts = here.call(move |h| (take(h, &lie), h.counts())).unwrap();
    assert_eq!(counts, (Ok(()), Counts { received: 2, sent: 4, dropped: 0, refused: 0 }));
    assert!(
        wait_until(Duration::from_secs(3), || heard(&there) == 3),
        "node 3's answer went to its reply_to"
    );
    assert_eq!(heard(&client), 1);
}

#[test]
fn a_post_from_or_naming_a_node_outside_the_membership_is_refused_and_changes_nothing() {
    let p = probe(&[1], vec![(3, "127.0.0.1:9".to_owned())], forwarder);
    let txn = TxnId { client: 40, seq: 1 };
    let vote = Msg::Vote { txn, yes: true, reason: None };
    let part = |manager| Part { manager, claims: Vec::new(), n: 1 };
    let commit = |m| Msg::CommitReq { txn, start: 0, end: 1, parts: vec![part(1), part(m)] };
    let posts = [
        // A manager's message from a node that is not a member.
        Post { reply_to: "127.0.0.1:9".to_owned(), env: env(44, 1, vote) },
        // A client's commit request naming an unknown manager.
        Post { reply_to: "127.0.0.1:9".to_owned(), env: env(40, 1, commit(77)) },
    ];
    let (refusals, log, counts) = p
        .call(move |h| {
            let refusals: Vec<_> = posts.iter().map(|post| take(h, post)).collect();
            (refusals, h.machine.log.len(), h.counts())
        })
        .unwrap();
    assert_eq!(
        refusals,
        vec![
            Err(ErrorBody::new("forbidden", "node 44 is not a configured manager, so it may not send Vote")),
            Err(ErrorBody::new("unknown_node", "CommitReq names manager 77, which is not configured")),
        ]
    );
    assert_eq!(log, 0, "nothing stepped");
    assert_eq!(counts, Counts { received: 0, sent: 0, dropped: 0, refused: 2 });
    // The same request naming members only is taken.
    let ok = Post { reply_to: "127.0.0.1:9".to_owned(), env: env(40, 1, commit(3)) };
    assert_eq!(p.call(move |h| take(h, &ok)).unwrap(), Ok(()));
}

#[test]
fn a_post_for_another_node_is_refused_and_teaches_nothing() {
    let p = probe(&[1], Vec::new(), forwarder);
    let post = Post { reply_to: "127.0.0.1:9".to_owned(), env: env(8, 5, nothing(8)) };
    let (refusal, log, counts) = p
        .call(move |h| {
            let refusal = take(h, &post);
            // Had the post taught node 8's address, this would be posted, not dropped.
            h.deliver(1, Input::Msg(env(9, 1, nothing(8)))).unwrap();
            (refusal, h.machine.log.len(), h.counts())
        })
        .unwrap();
    assert_eq!(refusal, Err(ErrorBody::new("wrong_node", "node 5 is not served here")));
    assert_eq!(log, 1, "only the direct delivery stepped");
    assert_eq!(counts, Counts { received: 0, sent: 1, dropped: 1, refused: 0 });
}

#[test]
fn after_a_store_failure_the_host_refuses_everything_and_steps_nothing() {
    let p = probe(&[1], Vec::new(), || {
        Box::new(|_: NodeId, input: &Input| match input {
            Input::Msg(Envelope { msg: Msg::Release { req: 666, .. }, .. }) => {
                Err(StoreError("disk full".to_owned()))
            }
            _ => Ok(vec![Output::Send(env(1, 2, nothing(0)))]),
        })
    });
    let post = Post { reply_to: "127.0.0.1:9".to_owned(), env: env(8, 1, nothing(1)) };
    let seen = p
        .call(move |h| {
            h.deliver(1, Input::Msg(env(9, 1, nothing(1)))).unwrap();
            let failed = h.deliver(1, Input::Msg(env(9, 1, nothing(666))));
            let again = h.deliver(1, Input::Msg(env(9, 1, nothing(1))));
            let refused = take(h, &post);
            (failed, again, refused, h.failed().map(str::to_owned), h.machine.log.len(), h.counts())
        })
        .unwrap();
    let (failed, again, refused, why, log, counts) = seen;
    assert_eq!(failed, Err(StoreError("disk full".to_owned())));
    assert_eq!(again, Err(StoreError("disk full".to_owned())));
    assert_eq!(refused, Err(ErrorBody::new("unavailable", "store: disk full")));
    assert_eq!(why.as_deref(), Some("disk full"));
    assert_eq!(log, 1, "only the step before the failure");
    assert_eq!((counts.sent, counts.dropped), (1, 1), "nothing sent after the failure");
}
