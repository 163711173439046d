//! A deployment's membership: the managers (server nodes) by id and address, from
//! configuration only (`serve --peer ID=ADDR` or `--members FILE`). Nothing a post says
//! adds to it, so no sender can fill a node's address book or cut it off, and a message
//! naming a manager outside it is refused.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;

use coreserve::limits::{MAX_ADDR, MAX_MANAGERS};
use coreserve::proto::NodeId;

use crate::error::{Error, Result};

/// The largest members file read, in bytes.
pub const MAX_MEMBERS_FILE: u64 = 64 * 1024;

/// The managers of a deployment and where each listens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Members(BTreeMap<NodeId, String>);

impl Members {
    /// The managers `list` names.
    ///
    /// # Errors
    /// [`Error::Members`] naming the entry: more than [`MAX_MANAGERS`], an id given
    /// twice, or an address that is not `ip:port` within [`MAX_ADDR`] bytes.
    pub fn new(list: impl IntoIterator<Item = (NodeId, String)>) -> Result<Self> {
        let mut map = BTreeMap::new();
        for (id, addr) in list {
            let bad = |why: String| Error::Members { at: format!("manager {id}"), why };
            if addr.len() > MAX_ADDR || addr.parse::<SocketAddr>().is_err() {
                return Err(bad(format!("{addr:?} is not ip:port of at most {MAX_ADDR} bytes")));
            }
            if map.insert(id, addr).is_some() {
                return Err(bad("given twice".to_owned()));
            }
            if map.len() > MAX_MANAGERS as usize {
                return Err(bad(format!("more than {MAX_MANAGERS} managers")));
            }
        }
        Ok(Self(map))
    }

    /// Parses `ID=ADDR` (a `--peer` value).
    ///
    /// # Errors
    /// [`Error::Members`] when it is not `ID=ADDR` with a numeric id.
    pub fn entry(s: &str) -> Result<(NodeId, String)> {
        let bad = || Error::Members { at: format!("{s:?}"), why: "expected ID=IP:PORT".to_owned() };
        let (id, addr) = s.split_once('=').ok_or_else(bad)?;
        Ok((id.trim().parse().map_err(|_| bad())?, addr.trim().to_owned()))
    }

    /// Reads a members file: one `ID IP:PORT` per line; blank lines and `#` comments
    /// are skipped.
    ///
    /// # Errors
    /// [`Error::Read`] when it cannot be read or is over [`MAX_MEMBERS_FILE`] bytes,
    /// [`Error::Members`] naming the line that is wrong, or as [`Members::new`].
    pub fn read(path: &Path) -> Result<Vec<(NodeId, String)>> {
        let read = |cause| Error::Read { path: path.to_owned(), cause };
        let len = std::fs::metadata(path).map_err(read)?.len();
        if len > MAX_MEMBERS_FILE {
            let why = format!("{len} bytes; the limit is {MAX_MEMBERS_FILE}");
            return Err(read(std::io::Error::new(std::io::ErrorKind::InvalidData, why)));
        }
        let text = std::fs::read_to_string(path).map_err(read)?;
        let mut out = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = || format!("{} line {}", path.display(), n + 1);
            let mut words = line.split_whitespace();
            let (Some(id), Some(addr), None) = (words.next(), words.next(), words.next()) else {
                return Err(Error::Members { at: at(), why: "expected ID IP:PORT".to_owned() });
            };
            let id =
                id.parse().map_err(|_| Error::Members { at: at(), why: format!("{id:?} is not an id") })?;
            out.push((id, addr.to_owned()));
        }
        Ok(out)
    }

    /// Where manager `id` listens, if it is a member.
    pub fn addr(&self, id: NodeId) -> Option<&str> {
        self.0.get(&id).map(String::as_str)
    }

    /// Whether `id` is a member.
    pub fn contains(&self, id: NodeId) -> bool {
        self.0.contains_key(&id)
    }

    /// The members, by id.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, &str)> {
        self.0.iter().map(|(id, a)| (*id, a.as_str()))
    }
}
