//! What travels over HTTP (`src/wire.rs`): the JSON shapes of a post, an error, a status
//! and a snapshot, worked out by hand (every protocol message's own round trip is
//! `coreserve`'s `proto` test); `decode` refuses each limit's first value past it, naming it.

use std::collections::BTreeMap;

use coreserve::durable::Durable;
use coreserve::limits::{MAX_ADDR, MAX_BODY};
use coreserve::proto::Msg;
use coreserve_service::wire::{decode, ErrorBody, Post, Snapshot, Status};
use serde_json::json;

use super::{env, records, C, T};

fn body(v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

/// The kind and detail `decode` refused `bytes` with.
fn refused(bytes: &[u8]) -> (String, String) {
    let e = decode(bytes).expect_err("refused");
    (e.error.kind, e.error.detail)
}

#[test]
fn a_post_is_the_envelope_with_where_its_sender_listens() {
    let post =
        Post { reply_to: "127.0.0.1:4000".to_owned(), env: env(11, 0, Msg::Lock { req: 5, claim: C }) };
    let shape = json!({
        "reply_to": "127.0.0.1:4000",
        "env": {"from": 11, "to": 0, "msg": {"Lock": {"req": 5, "claim": {"epoch": 1, "seq": 2}}}},
    });
    assert_eq!(serde_json::to_value(&post).unwrap(), shape);
    assert_eq!(decode(&body(&shape)).unwrap(), post);
    // Peers are configured, never posted.
    let peers =
        json!({"reply_to": "127.0.0.1:4000", "peers": [[0, "127.0.0.1:4001"]], "env": shape["env"].clone()});
    assert!(refused(&body(&peers)).1.contains("unknown field `peers`"));
}

#[test]
fn malformed_posts_are_refused_naming_what_is_wrong() {
    let env = json!({"from": 11, "to": 0, "msg": {"Ack": {"txn": {"client": 11, "seq": 3}}}});
    let cases = [
        (b"{not json".to_vec(), "key must be a string"),
        (body(&json!({"reply_to": "a:1", "env": env, "extra": 1})), "unknown field `extra`"),
        (
            body(
                &json!({"reply_to": "a:1", "env": {"from": 11, "to": 0, "msg": {"Ack": {"txn": {"client": 11, "seq": 3}, "x": 0}}}}),
            ),
            "unknown field `x`",
        ),
        (
            body(&json!({"reply_to": "a:1", "env": {"from": 11, "to": 0, "msg": {"Gossip": {}}}})),
            "unknown variant `Gossip`",
        ),
        (body(&json!({"env": env})), "missing field `reply_to`"),
    ];
    for (bytes, why) in cases {
        let (kind, detail) = refused(&bytes);
        assert_eq!(kind, "malformed");
        assert!(detail.contains(why), "{detail} does not say {why}");
    }
}

#[test]
fn each_limit_is_accepted_and_the_first_value_past_it_refused_by_name() {
    let post = |reply_to: &str| {
        body(
            &json!({"reply_to": reply_to, "env": {"from": 1, "to": 0, "msg": {"Ack": {"txn": {"client": 1, "seq": 1}}}}}),
        )
    };
    let (addr, long) = ("a".repeat(MAX_ADDR), "a".repeat(MAX_ADDR + 1));
    decode(&post(&addr)).expect("the address limit itself");
    assert_eq!(refused(&post(&long)), ("malformed".to_owned(), "reply_to over 64 bytes".to_owned()));
    // The body limit, counted in bytes: spaces around a valid post.
    let mut fits = post("x:1");
    fits.resize(MAX_BODY, b' ');
    decode(&fits).expect("a body of exactly the limit");
    fits.push(b' ');
    assert_eq!(refused(&fits), ("too_large".to_owned(), "65537 bytes; the limit is 65536".to_owned()));
}

#[test]
fn errors_statuses_and_snapshots_have_the_documented_shape() {
    let e = ErrorBody::new("wrong_node", "node 5 is not served here");
    assert_eq!(
        serde_json::to_value(&e).unwrap(),
        json!({"error": {"kind": "wrong_node", "detail": "node 5 is not served here"}})
    );
    let status = Status {
        id: 2,
        epoch: 3,
        now: 9,
        received: 4,
        sent: 5,
        dropped: 1,
        refused: 8,
        locks: 6,
        prepared: 0,
        decisions: 7,
        broken: None,
    };
    let shape = json!({"id": 2, "epoch": 3, "now": 9, "received": 4, "sent": 5, "dropped": 1, "refused": 8, "locks": 6, "prepared": 0, "decisions": 7, "broken": null});
    assert_eq!(serde_json::to_value(&status).unwrap(), shape);
    assert_eq!(serde_json::from_value::<Status>(shape).unwrap(), status);

    let (lock, prepared, decision) = records();
    let durable = Durable {
        epoch: 3,
        locks: BTreeMap::from([(C, lock)]),
        prepared: BTreeMap::from([(prepared.txn, prepared)]),
        decisions: BTreeMap::from([(T, (decision, true))]),
    };
    let snap = Snapshot::of(2, 9, &durable);
    assert_eq!(snap.durable(), durable);
    let shape = json!({
        "id": 2, "now": 9, "epoch": 3,
        "locks": [{"claim": {"epoch": 1, "seq": 2}, "holder": 11, "txn": {"client": 11, "seq": 3},
                   "ids": [[0, 2], [5, 6]], "start": 10, "end": 15}],
        "prepared": [{"txn": {"client": 12, "seq": 1}, "coordinator": 1, "prio": {"ts": 4, "client": 12},
                      "claims": [[{"epoch": 1, "seq": 3}, [[2, 3]]]], "start": 20, "end": 25}],
        "decisions": [[{"txn": {"client": 11, "seq": 3}, "commit": true, "start": 10, "end": 15, "parts": []}, true]],
    });
    assert_eq!(serde_json::to_value(&snap).unwrap(), shape);
    assert_eq!(serde_json::from_value::<Snapshot>(shape).unwrap(), snap);
}
