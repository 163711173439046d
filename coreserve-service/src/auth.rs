//! Every post is authenticated: an HMAC-SHA256 of its body in the `authorization`
//! header (`HMAC-SHA256 <hex>`), keyed by one node's key. A deployment has one secret
//! key, which its managers hold; node `i`'s key is HMAC-SHA256(deployment key,
//! "resbench coreserve node i"), so a client is given its own key only and cannot speak
//! for anyone else. A message is keyed by its client end: the sender's key, but the
//! receiver's for a manager writing to a client (which knows only its own key); between
//! managers, the sender's. So a post's `from` is the node that holds its key, and a
//! forged one fails the check.

use std::io::Write;
use std::path::Path;

use hmac::{KeyInit, Mac};
use rand::RngCore;

use coreserve::proto::{Envelope, NodeId};

use crate::error::{Error, Result};
use crate::wire::ErrorBody;

/// The header that carries a post's MAC.
pub const HEADER: &str = "authorization";
/// The scheme before the MAC's hex digits.
const SCHEME: &str = "HMAC-SHA256 ";
/// Bytes of a key.
const KEY: usize = 32;
/// The largest key file read, in bytes.
const MAX_KEY_FILE: u64 = 1024;
/// A key file's first word.
const MAGIC: &str = "resbench-key";

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The keys a process holds.
#[derive(Clone, PartialEq, Eq)]
pub enum Keys {
    /// The deployment's key: a manager's, from which every node's key follows.
    Deployment([u8; KEY]),
    /// One node's key: a client's.
    Node {
        /// The node.
        id: NodeId,
        /// Its key.
        key: [u8; KEY],
    },
}

impl std::fmt::Debug for Keys {
    /// Names the kind of key, never its bytes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Keys::Deployment(_) => write!(f, "Keys::Deployment(..)"),
            Keys::Node { id, .. } => write!(f, "Keys::Node {{ id: {id}, .. }}"),
        }
    }
}

fn mac(key: &[u8]) -> HmacSha256 {
    // HMAC takes a key of any length, so this cannot fail.
    HmacSha256::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC takes any key length"))
}

impl Keys {
    /// A new random deployment key (from the operating system's generator, through
    /// `rand`'s thread generator).
    pub fn generate() -> Self {
        let mut key = [0u8; KEY];
        rand::rng().fill_bytes(&mut key);
        Keys::Deployment(key)
    }

    /// Node `id`'s key, if these keys hold or derive it.
    pub fn key_of(&self, id: NodeId) -> Option<[u8; KEY]> {
        match self {
            Keys::Deployment(k) => {
                let mut m = mac(k);
                m.update(format!("resbench coreserve node {id}").as_bytes());
                Some(m.finalize().into_bytes().into())
            }
            Keys::Node { id: mine, key } => (*mine == id).then_some(*key),
        }
    }

    /// Node `id`'s own keys, derived from the deployment's.
    ///
    /// # Errors
    /// [`Error::Key`] when these are one node's keys, which derive nothing.
    pub fn for_node(&self, id: NodeId) -> Result<Self> {
        match (self, self.key_of(id)) {
            (Keys::Deployment(_), Some(key)) => Ok(Keys::Node { id, key }),
            _ => Err(Error::Key {
                at: "a node key".to_owned(),
                why: "derive node keys from the deployment key".to_owned(),
            }),
        }
    }

    /// The node whose key signs `env`: the client end, or the sender between managers.
    fn party(env: &Envelope, manager: &dyn Fn(NodeId) -> bool) -> NodeId {
        if manager(env.from) && !manager(env.to) {
            env.to
        } else {
            env.from
        }
    }

    /// The `authorization` header for `body`, which carries `env`, where `manager`
    /// tells the deployment's managers; `None` when these keys do not hold the key it
    /// needs.
    pub fn sign(&self, env: &Envelope, body: &[u8], manager: &dyn Fn(NodeId) -> bool) -> Option<String> {
        let key = self.key_of(Self::party(env, manager))?;
        let mut m = mac(&key);
        m.update(body);
        Some(format!("{SCHEME}{}", hex::encode(m.finalize().into_bytes())))
    }

    /// Checks the `authorization` header of `body`, which carries `env`, where
    /// `manager` tells the deployment's managers.
    ///
    /// # Errors
    /// `unauthenticated` (nothing is stepped) when the header is missing or malformed,
    /// or its MAC is not the body's under the key of the node it must come from.
    pub fn verify(
        &self,
        header: Option<&str>,
        (env, body): (&Envelope, &[u8]),
        manager: &dyn Fn(NodeId) -> bool,
    ) -> Result<(), ErrorBody> {
        let party = Self::party(env, manager);
        let refuse = |why: String| Err(ErrorBody::new("unauthenticated", why));
        let Some(tag) = header.and_then(|h| h.strip_prefix(SCHEME)) else {
            return refuse(format!("no `{HEADER}: {SCHEME}<hex>` header"));
        };
        let Ok(tag) = hex::decode(tag.trim()) else { return refuse("the MAC is not hex".to_owned()) };
        let Some(key) = self.key_of(party) else {
            return refuse(format!("this node holds no key of node {party}"));
        };
        let mut m = mac(&key);
        m.update(body);
        match m.verify_slice(&tag) {
            Ok(()) => Ok(()),
            Err(_) => refuse(format!("the MAC is not the body's under node {party}'s key")),
        }
    }

    /// The key file's text: `resbench-key deployment HEX` or `resbench-key node ID HEX`.
    pub fn to_text(&self) -> String {
        match self {
            Keys::Deployment(k) => format!("{MAGIC} deployment {}\n", hex::encode(k)),
            Keys::Node { id, key } => format!("{MAGIC} node {id} {}\n", hex::encode(key)),
        }
    }

    /// Reads a key file.
    ///
    /// # Errors
    /// [`Error::Read`] when it cannot be read, [`Error::Key`] naming the file when it is
    /// over 1 KiB or not a key file.
    pub fn read(path: &Path) -> Result<Self> {
        let read = |cause| Error::Read { path: path.to_owned(), cause };
        let bad = |why: &str| Error::Key { at: path.display().to_string(), why: why.to_owned() };
        if std::fs::metadata(path).map_err(read)?.len() > MAX_KEY_FILE {
            return Err(bad("over 1 KiB: not a key file"));
        }
        let text = std::fs::read_to_string(path).map_err(read)?;
        let words: Vec<&str> = text.split_whitespace().collect();
        let key = |h: &str| -> Result<[u8; KEY]> {
            let bytes = hex::decode(h).map_err(|_| bad("the key is not hex"))?;
            bytes.try_into().map_err(|_| bad("the key is not 32 bytes"))
        };
        match words.as_slice() {
            [MAGIC, "deployment", k] => Ok(Keys::Deployment(key(k)?)),
            [MAGIC, "node", id, k] => {
                let id = id.parse().map_err(|_| bad("the node id is not a number"))?;
                Ok(Keys::Node { id, key: key(k)? })
            }
            _ => Err(bad("expected `resbench-key deployment HEX` or `resbench-key node ID HEX`")),
        }
    }

    /// Writes a new key file readable by its owner only; an existing file is kept.
    ///
    /// # Errors
    /// [`Error::Key`] naming the file when it exists or cannot be written.
    pub fn write(&self, path: &Path) -> Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        let fail = |e: std::io::Error| Error::Key { at: path.display().to_string(), why: e.to_string() };
        let mut f =
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path).map_err(fail)?;
        f.write_all(self.to_text().as_bytes()).map_err(fail)
    }
}
