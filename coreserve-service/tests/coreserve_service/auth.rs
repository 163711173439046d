//! Authentication (`src/auth.rs`): a node's key follows from the deployment's and a
//! node key holds only its own; a post signed under the right key checks, and one with
//! a changed body, another node's key, no header or a malformed one does not; key files
//! read back as written, are made for their owner only and never overwrite, and a bad
//! one is refused by name.

use std::os::unix::fs::PermissionsExt;

use coreserve::proto::{Envelope, Msg};
use coreserve_service::auth::Keys;
use coreserve_service::Error;

use super::{nothing, KEY};

/// Managers are nodes 0 and 1.
fn manager(id: u32) -> bool {
    id < 2
}

fn verify(keys: &Keys, auth: Option<&str>, env: &Envelope, body: &[u8]) -> Result<(), String> {
    keys.verify(auth, (env, body), &manager).map_err(|e| format!("{}: {}", e.error.kind, e.error.detail))
}

#[test]
fn a_node_key_follows_from_the_deployments_and_holds_only_its_own() {
    let client = KEY.for_node(40).unwrap();
    assert_eq!(client, Keys::Node { id: 40, key: KEY.key_of(40).unwrap() });
    assert_ne!(KEY.key_of(40), KEY.key_of(41));
    assert_ne!(KEY.key_of(40), Keys::Deployment([8; 32]).key_of(40), "another deployment, other keys");
    assert_eq!((client.key_of(40), client.key_of(41)), (KEY.key_of(40), None));
    assert!(matches!(client.for_node(41), Err(Error::Key { .. })));
    assert_eq!(
        format!("{client:?} {KEY:?}"),
        "Keys::Node { id: 40, .. } Keys::Deployment(..)",
        "no key bytes"
    );
    assert_ne!(Keys::generate(), Keys::generate());
}

#[test]
fn a_post_checks_under_its_client_ends_key_only() {
    let client = KEY.for_node(40).unwrap();
    // A client's request is signed with its own key; the manager checks it.
    let ask = Envelope { from: 40, to: 0, msg: nothing(1) };
    let body = serde_json::to_vec(&ask).unwrap();
    let auth = client.sign(&ask, &body, &manager).expect("its own key");
    assert_eq!(verify(&KEY, Some(&auth), &ask, &body), Ok(()));
    // The manager's answer is signed with the client's key, which the client holds.
    let answer = Envelope { from: 0, to: 40, msg: nothing(2) };
    let reply = serde_json::to_vec(&answer).unwrap();
    let auth2 = KEY.sign(&answer, &reply, &manager).unwrap();
    assert_eq!(verify(&client, Some(&auth2), &answer, &reply), Ok(()));
    // Between managers, the sender's key.
    let vote =
        Envelope { from: 1, to: 0, msg: Msg::Ack { txn: coreserve::proto::TxnId { client: 40, seq: 1 } } };
    let vb = serde_json::to_vec(&vote).unwrap();
    assert_eq!(
        KEY.sign(&vote, &vb, &manager),
        Some(format!("HMAC-SHA256 {}", hmac_of(&KEY.key_of(1).unwrap(), &vb)))
    );
    assert_eq!(client.sign(&vote, &vb, &manager), None, "a client cannot speak for a manager");
    // A changed body, another client's key, no header, a malformed one: refused.
    let mut changed = body.clone();
    changed.push(b' ');
    let other =
        KEY.for_node(41).unwrap().sign(&Envelope { from: 41, ..ask.clone() }, &body, &manager).unwrap();
    let not_40 = "unauthenticated: the MAC is not the body's under node 40's key";
    assert_eq!(verify(&KEY, Some(&auth), &ask, &changed), Err(not_40.to_owned()));
    assert_eq!(verify(&KEY, Some(&other), &ask, &body), Err(not_40.to_owned()));
    assert_eq!(
        verify(&KEY, None, &ask, &body),
        Err("unauthenticated: no `authorization: HMAC-SHA256 <hex>` header".to_owned())
    );
    assert_eq!(
        verify(&KEY, Some("HMAC-SHA256 zz"), &ask, &body),
        Err("unauthenticated: the MAC is not hex".to_owned())
    );
    assert_eq!(
        verify(&KEY, Some("Basic eDp5"), &ask, &body).map_err(|e| e.contains("no `authorization")),
        Err(true)
    );
    assert_eq!(
        verify(&client, Some(&auth), &Envelope { from: 0, to: 41, msg: nothing(1) }, &body),
        Err("unauthenticated: this node holds no key of node 41".to_owned())
    );
}

/// HMAC-SHA256 of `body` under `key`, computed apart from the crate's code path.
fn hmac_of(key: &[u8], body: &[u8]) -> String {
    use hmac::{KeyInit, Mac};
    let mut m = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
    m.update(body);
    hex::encode(m.finalize().into_bytes())
}

#[test]
fn key_files_read_back_are_private_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let (d, n) = (dir.path().join("deployment.key"), dir.path().join("client.key"));
    KEY.write(&d).unwrap();
    KEY.for_node(40).unwrap().write(&n).unwrap();
    assert_eq!(Keys::read(&d).unwrap(), KEY);
    assert_eq!(Keys::read(&n).unwrap(), KEY.for_node(40).unwrap());
    assert_eq!(std::fs::metadata(&d).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&n).unwrap().starts_with("resbench-key node 40 "));
    let again = KEY.write(&d).unwrap_err().to_string();
    assert!(again.starts_with(&format!("key: {}: ", d.display())) && again.contains("exists"), "{again}");
}

#[test]
fn a_bad_key_file_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.key");
    let read = |text: &[u8]| {
        std::fs::write(&f, text).unwrap();
        Keys::read(&f).unwrap_err().to_string()
    };
    let at = format!("key: {}: ", f.display());
    let hex64 = "ab".repeat(32);
    assert_eq!(
        read(b"hello"),
        format!("{at}expected `resbench-key deployment HEX` or `resbench-key node ID HEX`")
    );
    assert_eq!(
        read(format!("resbench-key deployment {}", "ab".repeat(31)).as_bytes()),
        format!("{at}the key is not 32 bytes")
    );
    assert_eq!(read(b"resbench-key deployment xyz"), format!("{at}the key is not hex"));
    assert_eq!(
        read(format!("resbench-key node x {hex64}").as_bytes()),
        format!("{at}the node id is not a number")
    );
    assert_eq!(read(&[b' '; 1025]), format!("{at}over 1 KiB: not a key file"));
    assert!(Keys::read(&dir.path().join("none")).unwrap_err().to_string().starts_with("cannot read"));
}
