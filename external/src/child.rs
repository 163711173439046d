//! The child process behind the protocol: spawned with `sh -c CMD` in a process group
//! of its own, fed through a writer thread and read through a reader thread, so that a
//! child that stops reading or never answers costs a timeout, not a hang. Its stderr is
//! kept as a bounded tail for crash reports. Closing or dropping a [`Child`] kills its
//! whole group and collects the shell's exit status, so no process is left behind.

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};
use traces::limits::{self, Line};

/// The bytes of the child's stderr kept for reports (its last ones).
pub const STDERR_TAIL: usize = 4096;

/// Lines read ahead of resbench before the reader thread waits: with the line limit,
/// this bounds the memory a child that floods its stdout can take.
const READ_AHEAD: usize = 4;

/// How long a closed child has to exit by itself before it is killed.
const GRACE: Duration = Duration::from_secs(1);

/// Why no answer line came.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChildError {
    /// The command could not be started at all.
    #[error("cannot start `{command}`: {why}")]
    Spawn {
        /// The command.
        command: String,
        /// What the system said.
        why: String,
    },
    /// The child's stdout ended (it exited or closed it).
    #[error("the child exited ({status}) before answering; the end of its stderr:\n{stderr}")]
    Crash {
        /// Its exit status, as far as it is known.
        status: String,
        /// The tail of its stderr.
        stderr: String,
    },
    /// No line within the time allowed.
    #[error("timeout: the child gave no answer within {ms} ms (raise it with {flag}); the end of its stderr:\n{stderr}")]
    Timeout {
        /// The time allowed.
        ms: u128,
        /// The option that sets it.
        flag: &'static str,
        /// The tail of its stderr.
        stderr: String,
    },
    /// A line longer than the limit, or unreadable output.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The child answered with an `error` outcome: a failure inside it, reported. It is
    /// still in step with resbench.
    #[error("the child reported an internal error: {0}")]
    Reported(String),
}

/// What the reader thread saw.
enum Received {
    Line(String),
    TooLong,
    Failed(String),
    End,
}

/// The last bytes of the child's stderr, and whether it has ended.
#[derive(Default)]
struct Tail {
    bytes: VecDeque<u8>,
    ended: bool,
}

/// A running child speaking one line per message.
pub struct Child {
    process: std::process::Child,
    command: String,
    max_line: usize,
    to_child: Option<Sender<String>>,
    from_child: Receiver<Received>,
    stderr: Arc<Mutex<Tail>>,
    /// Whether its group has been killed and the shell reaped: then its ids may belong
    /// to another process, and nothing more is sent to them.
    ended: bool,
}

impl Child {
    /// Starts `command` under `sh -c` (so assignments such as `PEER=x cmd`, `cd X && cmd`
    /// and pipelines work), as the leader of a new process group, so that everything it
    /// starts can be killed with it; with piped stdin, stdout and stderr. Lines longer
    /// than `max_line` bytes are refused.
    ///
    /// # Errors
    /// [`ChildError::Spawn`] when `sh` cannot be started. A command that does not exist
    /// starts (the shell reports it) and shows as a crash at the first read.
    ///
    /// # Panics
    /// Never: all three pipes are asked for.
    pub fn spawn(command: &str, max_line: usize) -> Result<Child, ChildError> {
        let mut process = Command::new("sh")
            .arg("-c")
            .arg(command)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| ChildError::Spawn { command: command.to_owned(), why: e.to_string() })?;
        let (stdin, stdout, stderr) =
            match (process.stdin.take(), process.stdout.take(), process.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => unreachable!("all three are piped"),
            };
        let (to_child, lines) = mpsc::channel();
        thread::spawn(move || write_lines(stdin, &lines));
        let (sender, from_child) = mpsc::sync_channel(READ_AHEAD);
        thread::spawn(move || read_lines(stdout, max_line, &sender));
        let tail = Arc::new(Mutex::new(Tail::default()));
        let kept = Arc::clone(&tail);
        thread::spawn(move || keep_tail(stderr, &kept));
        Ok(Child {
            process,
            command: command.to_owned(),
            max_line,
            to_child: Some(to_child),
            from_child,
            stderr: tail,
            ended: false,
        })
    }

    /// The command it runs.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The shell's process id, which is also its process group's.
    pub fn id(&self) -> u32 {
        self.process.id()
    }

    /// Sends one line (a newline is added). Never blocks: a writer thread feeds the
    /// child, so a child that stops reading shows as a timeout on the answer.
    pub fn send(&mut self, line: String) {
        if let Some(to_child) = &self.to_child {
            // A writer that has stopped means the child closed its stdin; the answer
            // side reports that.
            let _ = to_child.send(line);
        }
    }

    /// The next non-blank line, waiting at most `timeout` (`flag` names the option that
    /// sets it, for the message).
    ///
    /// # Errors
    /// [`ChildError::Timeout`], [`ChildError::Crash`] when its stdout ended, or
    /// [`ChildError::Protocol`] for a line over the limit or unreadable output. After an
    /// error the child is of no further use.
    pub fn receive(&mut self, timeout: Duration, flag: &'static str) -> Result<String, ChildError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from_child.recv_timeout(left) {
                Ok(Received::Line(line)) if line.trim().is_empty() => continue,
                Ok(Received::Line(line)) => return Ok(line),
                Ok(Received::TooLong) => {
                    return Err(ChildError::Protocol(format!(
                        "the child wrote a line longer than {} bytes (raise the limit with --max-line-bytes)",
                        self.max_line
                    )))
                }
                Ok(Received::Failed(why)) => {
                    return Err(ChildError::Protocol(format!("cannot read the child: {why}")))
                }
                Ok(Received::End) | Err(RecvTimeoutError::Disconnected) => {
                    let status = self.exit_status(GRACE);
                    let status = status.map_or_else(|| "still running".to_owned(), |s| s.to_string());
                    return Err(ChildError::Crash { status, stderr: self.stderr_tail() });
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(ChildError::Timeout {
                        ms: timeout.as_millis(),
                        flag,
                        stderr: self.stderr_tail(),
                    });
                }
            }
        }
    }

    /// Whether the child has written something nobody asked for yet (a line, or the end
    /// of its stdout) that is waiting to be read: then its next answer would not be to
    /// the next question. Blank lines do not count, as everywhere.
    pub fn pending(&mut self) -> bool {
        loop {
            match self.from_child.try_recv() {
                Ok(Received::Line(line)) if line.trim().is_empty() => continue,
                Ok(_) | Err(mpsc::TryRecvError::Disconnected) => return true,
                Err(mpsc::TryRecvError::Empty) => return false,
            }
        }
    }

    /// Waits up to `grace` for the child to exit by itself.
    fn exit_status(&mut self, grace: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + grace;
        loop {
            match self.process.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// The end of what the child wrote to stderr (lossy UTF-8), after giving the
    /// stderr reader a moment to catch up with an exited child.
    pub fn stderr_tail(&self) -> String {
        let deadline = Instant::now() + Duration::from_millis(200);
        loop {
            let tail = self.stderr.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if tail.ended || Instant::now() >= deadline {
                let bytes: Vec<u8> = tail.bytes.iter().copied().collect();
                let text = String::from_utf8_lossy(&bytes).trim_end().to_owned();
                return if text.is_empty() { "(nothing)".to_owned() } else { text };
            }
            drop(tail);
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Kills the child's whole group and collects the shell's exit status.
    fn kill(&mut self) -> Option<ExitStatus> {
        self.to_child = None;
        if self.ended {
            return None;
        }
        self.kill_group();
        // Killing a shell that has already exited is harmless; `wait` reaps it either way.
        let _ = self.process.kill();
        let status = self.process.wait().ok();
        self.ended = true;
        status
    }

    /// Sends SIGKILL to every process of the child's group: what the command started,
    /// however deep, and whatever it left running after the shell exited.
    fn kill_group(&self) {
        if let Some(group) = i32::try_from(self.process.id()).ok().and_then(Pid::from_raw) {
            // No process left in the group is the usual case, not an error.
            let _ = kill_process_group(group, Signal::KILL);
        }
    }

    /// Closes its stdin, gives it a moment to exit by itself, kills its group (and the
    /// shell, if it has not exited), and returns the shell's exit status: after this no
    /// process of its group is left running.
    pub fn close(mut self) -> Option<ExitStatus> {
        self.to_child = None;
        let status = self.exit_status(GRACE);
        // The shell was reaped just now, so its group id is not yet another's: process
        // ids are handed out in turn, and reused only after millions.
        self.kill_group();
        match status {
            Some(status) => {
                self.ended = true;
                Some(status)
            }
            None => self.kill(),
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Writes each line to the child until the channel or the pipe closes.
fn write_lines(mut stdin: ChildStdin, lines: &Receiver<String>) {
    for line in lines {
        if stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Reads lines of at most `max_line` bytes (without their end) until the end, or until
/// one is longer: the shared bounded reader, so no child can make it allocate without
/// bound.
fn read_lines(stdout: impl Read, max_line: usize, lines: &SyncSender<Received>) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        let read = match limits::read_line_or_stop(&mut reader, &mut buf, max_line) {
            Ok(Line::End) => Received::End,
            Ok(Line::Text) => Received::Line(String::from_utf8_lossy(&buf).into_owned()),
            Ok(Line::TooLong) => Received::TooLong,
            Err(e) => Received::Failed(e.to_string()),
        };
        let last = !matches!(read, Received::Line(_));
        if lines.send(read).is_err() || last {
            return;
        }
    }
}

/// Keeps the last [`STDERR_TAIL`] bytes of the child's stderr.
fn keep_tail(mut stderr: impl Read, tail: &Mutex<Tail>) {
    let mut chunk = [0u8; 4096];
    loop {
        let n = stderr.read(&mut chunk).unwrap_or(0);
        let mut kept = tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if n == 0 {
            kept.ended = true;
            return;
        }
        kept.bytes.extend(&chunk[..n]);
        let excess = kept.bytes.len().saturating_sub(STDERR_TAIL);
        kept.bytes.drain(..excess);
    }
}
