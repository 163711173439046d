//! A node's HTTP face (`src/http.rs`, private: reached through an in-process manager):
//! a bad, unsigned, forged or forbidden post gets a 4xx JSON error naming what was
//! wrong and changes nothing, a good one is accepted, status and state answer JSON, and other routes are refused.

use coreserve::limits::MAX_BODY;
use coreserve::proto::{Msg, TxnId};
use coreserve_service::auth::Keys;
use coreserve_service::wire::{Post, Snapshot, Status};
use serde_json::json;

use super::{dead_addr, env, get, manager, nothing, post, probe, signed, silent, KEY};

/// A manager's status and snapshot, its clock left out.
fn observed(addr: &str) -> (Status, Snapshot) {
    let (code, status) = get(addr, "/v1/status");
    assert_eq!(code, 200, "{status}");
    let (code, state) = get(addr, "/v1/state");
    assert_eq!(code, 200, "{state}");
    let status: Status = serde_json::from_str(&status).unwrap();
    let state: Snapshot = serde_json::from_str(&state).unwrap();
    (Status { now: 0, ..status }, Snapshot { now: 0, ..state })
}

/// A participant's vote: a manager's message, which no client may send.
fn vote() -> Msg {
    Msg::Vote { txn: TxnId { client: 50, seq: 1 }, yes: true, reason: None }
}

#[test]
fn a_bad_post_gets_a_4xx_error_naming_what_was_wrong_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = manager(0, dir.path());
    let addr = m.addr.to_string();
    let before = observed(&addr);
    assert_eq!((before.0.id, before.0.epoch, before.0.received), (0, 1, 0));
    let good = |to| Post { reply_to: dead_addr(), env: env(50, to, nothing(1)) };
    let invented: Vec<(u32, &str)> = (100..165).map(|i| (i, "127.0.0.1:1")).collect();
    // Manager 0 is the only manager.
    let manager = |id| id == 0;
    let sign = |p: &Post| signed(p, &manager);
    // Node 50 signs a post that says it is from node 51.
    let forged = {
        let body = serde_json::to_vec(&good(0)).unwrap();
        let body = String::from_utf8(body).unwrap().replace("\"from\":50", "\"from\":51").into_bytes();
        let liar = Keys::Node { id: 51, key: KEY.key_of(50).unwrap() };
        let auth = liar.sign(&env(51, 0, nothing(1)), &body, &manager).unwrap();
        (body, auth)
    };
    type Case = ((Vec<u8>, Option<String>), u16, &'static str, String);
    let unsigned = |b: Vec<u8>| (b, None);
    let cases: Vec<Case> = vec![
        (unsigned(b"{not json".to_vec()), 400, "malformed", "key must be a string".to_owned()),
        (unsigned(vec![b' '; MAX_BODY + 1]), 413, "too_large", format!("body over {MAX_BODY} bytes")),
        (
            unsigned(serde_json::to_vec(&good(9)).unwrap()),
            400,
            "wrong_node",
            "node 9 is not served here".to_owned(),
        ),
        (
            unsigned(
                serde_json::to_vec(
                    &json!({"reply_to": "127.0.0.1:1", "peers": invented, "env": good(0).env}),
                )
                .unwrap(),
            ),
            400,
            "malformed",
            "unknown field `peers`".to_owned(),
        ),
        (
            unsigned(
                serde_json::to_vec(&json!({"reply_to": "127.0.0.1:1", "env": good(0).env, "sig": "x"}))
                    .unwrap(),
            ),
            400,
            "malformed",
            "unknown field `sig`".to_owned(),
        ),
        (
            unsigned(serde_json::to_vec(&good(0)).unwrap()),
            401,
            "unauthenticated",
            "no `authorization".to_owned(),
        ),
        (
            (forged.0, Some(forged.1)),
            401,
            "unauthenticated",
            "the MAC is not the body's under node 51's key".to_owned(),
        ),
        {
            let (b, a) = sign(&Post { reply_to: dead_addr(), env: env(50, 0, vote()) });
            (
                (b, Some(a)),
                403,
                "forbidden",
                "node 50 is not a configured manager, so it may not send Vote".to_owned(),
            )
        },
    ];
    let refusals = cases.len() - 5;
    for ((bytes, auth), status, kind, why) in cases {
        let (code, answer) = post(&addr, &bytes, auth.as_deref());
        assert_eq!((code, answer["error"]["kind"].as_str()), (status, Some(kind)), "{answer}");
        let detail = answer["error"]["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(&why), "{detail} does not say {why}");
    }
    let (status, state) = observed(&addr);
    assert_eq!(status.refused, refusals as u64, "the unauthenticated and forbidden posts are counted");
    assert_eq!((Status { refused: 0, ..status }, state), before, "a refused post changed the node");
    // A good post is accepted and counted.
    let (body, auth) = sign(&good(0));
    let (code, answer) = post(&addr, &body, Some(&auth));
    assert_eq!((code, answer), (202, json!({"ok": true})));
    assert_eq!(observed(&addr).0.received, 1);
}

#[test]
fn status_and_state_answer_json_and_other_routes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let m = manager(3, dir.path());
    let addr = m.addr.to_string();
    let (status, state) = observed(&addr);
    assert_eq!(
        status,
        Status {
            id: 3,
            epoch: 1,
            now: 0,
            received: 0,
            sent: 0,
            dropped: 0,
            refused: 0,
            locks: 0,
            prepared: 0,
            decisions: 0,
            broken: None
        }
    );
    assert_eq!(state, Snapshot { id: 3, epoch: 1, ..Snapshot::default() });
    // Every refusal is the JSON error format, naming what was asked.
    let refused = |addr: &str, path: &str| {
        let (code, body) = get(addr, path);
        let body: serde_json::Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{body:?}: {e}"));
        let error = &body["error"];
        (code, error["kind"].as_str().unwrap().to_owned(), error["detail"].as_str().unwrap().to_owned())
    };
    let (code, kind, detail) = refused(&addr, "/v1/nowhere");
    assert_eq!((code, kind.as_str()), (404, "not_found"));
    assert!(detail.contains("GET /v1/nowhere") && detail.contains("POST /v1/inbox"), "{detail}");
    let (code, kind, detail) = refused(&addr, "/v1/inbox");
    assert_eq!((code, kind.as_str()), (405, "method_not_allowed"), "the inbox only takes posts");
    assert!(detail.contains("/v1/inbox does not take GET"), "{detail}");
    // A machine that answers neither status nor state says so.
    let p = probe(&[1], Vec::new(), silent);
    let addr = p.addr.to_string();
    for what in ["status", "state"] {
        let (code, kind, detail) = refused(&addr, &format!("/v1/{what}"));
        assert_eq!((code, kind.as_str()), (404, "not_found"));
        assert!(detail.contains(&format!("keeps no {what}")), "{detail}");
    }
}
