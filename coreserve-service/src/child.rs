//! A `resbench coreserve serve` child process under a guard: spawned with piped standard
//! input (so that it exits if its parent dies) and its deployment's members as `--peer`
//! flags, its bound address read from the first line of its standard output, and
//! killed (SIGKILL) and reaped when the guard drops.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use coreserve::proto::NodeId;

use crate::auth::Keys;
use crate::error::{Error, Result};
use crate::members::Members;

/// How long a server has to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// The line a server prints once it listens, before its address.
pub const LISTENING: &str = "listening on ";

/// A manager process and how to start it again.
#[derive(Debug)]
pub struct ManagerProcess {
    child: Option<Child>,
    exe: PathBuf,
    /// Its node id.
    pub id: NodeId,
    /// Its redb file.
    pub db: PathBuf,
    /// Its structure's registry name.
    pub structure: String,
    /// Its resources.
    pub capacity: u32,
    /// `127.0.0.1:port` once it has listened.
    pub addr: String,
    port: u16,
    members: Members,
    key: PathBuf,
}

/// Managers `0..count` of executable `exe`, each with its store `m<id>.redb` in `dir`
/// (made afresh), on ports chosen beforehand so that each is configured with all, and
/// a new deployment key in `dir/deployment.key`, which it returns.
///
/// # Errors
/// [`Error::Io`] when no free ports can be had, [`Error::Key`] when the key cannot be
/// written, or as [`ManagerProcess::spawn`].
pub fn deployment(
    exe: &Path,
    dir: &Path,
    count: u32,
    structure: &str,
    capacity: u32,
) -> Result<(Vec<ManagerProcess>, Keys)> {
    let ports = free_ports(count as usize)?;
    let members = Members::new((0..count).zip(&ports).map(|(id, p)| (id, format!("127.0.0.1:{p}"))))?;
    let (keys, key) = (Keys::generate(), dir.join("deployment.key"));
    let _ = std::fs::remove_file(&key);
    keys.write(&key)?;
    let procs = (0..count)
        .zip(ports)
        .map(|(id, port)| {
            let db = dir.join(format!("m{id}.redb"));
            let _ = std::fs::remove_file(&db);
            ManagerProcess::spawn(exe, (id, port), &db, (structure, capacity), (&members, &key))
        })
        .collect::<Result<_>>()?;
    Ok((procs, keys))
}

/// `n` ports free on 127.0.0.1 now (bound at once, then let go), for a deployment whose
/// members must be configured before its managers start.
///
/// # Errors
/// When a port cannot be bound.
pub fn free_ports(n: usize) -> std::io::Result<Vec<u16>> {
    let held = (0..n).map(|_| TcpListener::bind("127.0.0.1:0")).collect::<std::io::Result<Vec<_>>>()?;
    held.iter().map(|l| l.local_addr().map(|a| a.port())).collect()
}

impl ManagerProcess {
    /// Starts node `id` of executable `exe` on `port` (0: a free one), keeping its state
    /// in `db`, in a deployment of `members` whose key is in the file `key`.
    ///
    /// # Errors
    /// [`Error::Spawn`] when it cannot be spawned; [`Error::NoStdout`],
    /// [`Error::StartTimeout`] or [`Error::NotAddress`] when it does not print its
    /// address within 10 s.
    pub fn spawn(
        exe: &Path,
        (id, port): (NodeId, u16),
        db: &Path,
        (structure, capacity): (&str, u32),
        (members, key): (&Members, &Path),
    ) -> Result<Self> {
        let mut me = Self {
            child: None,
            exe: exe.to_owned(),
            id,
            db: db.to_owned(),
            structure: structure.to_owned(),
            capacity,
            addr: String::new(),
            port,
            members: members.clone(),
            key: key.to_owned(),
        };
        me.restart()?;
        Ok(me)
    }

    /// Whether it runs.
    pub fn alive(&self) -> bool {
        self.child.is_some()
    }

    /// Sends it SIGKILL and reaps it (nothing if it is not running).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts it (again) on the port it had, with the same store.
    ///
    /// # Errors
    /// As [`spawn`](Self::spawn).
    pub fn restart(&mut self) -> Result<()> {
        self.kill();
        let mut child = Command::new(&self.exe)
            .args(["coreserve", "serve", "--exit-on-stdin-eof", "--id", &self.id.to_string()])
            .args(["--port", &self.port.to_string(), "--structure", &self.structure])
            .args(["--capacity", &self.capacity.to_string()])
            .args(self.members.iter().flat_map(|(id, addr)| ["--peer".to_owned(), format!("{id}={addr}")]))
            .arg("--key")
            .arg(&self.key)
            .arg("--db")
            .arg(&self.db)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|cause| Error::Spawn { exe: self.exe.clone(), cause })?;
        let stdout = child.stdout.take();
        self.child = Some(child);
        let Some(stdout) = stdout else { return Err(Error::NoStdout { id: self.id }) };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            for _ in lines {}
        });
        let line = match rx.recv_timeout(START_TIMEOUT) {
            Ok(line) => line,
            Err(_) => {
                self.kill();
                return Err(Error::StartTimeout { id: self.id, timeout: START_TIMEOUT });
            }
        };
        let Some(addr) = line.strip_prefix(LISTENING) else {
            self.kill();
            return Err(Error::NotAddress { id: self.id, line });
        };
        self.addr = addr.trim().to_owned();
        self.port = self.addr.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or(0);
        Ok(())
    }
}

impl Drop for ManagerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
