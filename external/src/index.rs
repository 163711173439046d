//! [`ExternalIndex`]: the trait implemented by a child process, one protocol exchange
//! per call, so that the one differential driver ([`oracle::Differential`]) checks a
//! foreign structure exactly as it checks ours.
//!
//! A call that gets no proper answer (a protocol error, a crash, a timeout) records the
//! fault on the session's [`Link`] and is refused with [`Error::BadConfig`]; callers read
//! the fault there, so it is never mistaken for the child's own refusal. After a fault
//! the child is not asked again.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::process::ExitStatus;
use std::rc::Rc;
use std::time::Duration;

use oracle::{rules, CountIndex, CountOp, CountOutcome, Op, OpKind, Outcome, Scenario};
use structures::{AvailabilityIndex, Config, Cost, Error, Invalid, RangeSet, Time, TimeFrame};

use super::child::{Child, ChildError};
use super::protocol::{
    read_count_reply, read_reply, read_reset_reply, Agreed, HandshakeError, Hello, Reply, ReplyError, Reset,
    Semantics, Welcome,
};

/// The bounds a child is held to; each error that hits one names its option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How long one op may take to answer (`--timeout-ms`).
    pub op_timeout: Duration,
    /// How long the child may take to answer the hello (`--handshake-timeout-ms`).
    pub handshake_timeout: Duration,
    /// The longest line read from the child, in bytes (`--max-line-bytes`).
    pub max_line: usize,
}

impl Default for Limits {
    /// 5 s per op, 10 s for the handshake, 1 MiB lines.
    fn default() -> Self {
        Limits {
            op_timeout: Duration::from_secs(5),
            handshake_timeout: Duration::from_secs(10),
            max_line: 1 << 20,
        }
    }
}

/// Why a child could not be started on an index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// It could not be spawned, crashed, timed out or wrote garbage before its welcome.
    #[error(transparent)]
    Child(#[from] ChildError),
    /// Its welcome was wrong or refused the index.
    #[error(transparent)]
    Handshake(#[from] HandshakeError),
}

/// A command that speaks the protocol, the bounds it is held to, and the child kept
/// between indexes when it takes resets.
#[derive(Clone)]
pub struct External {
    /// The shell command, run as `sh -c COMMAND` in a process group of its own.
    pub command: String,
    /// Its bounds.
    pub limits: Limits,
    /// Whether a child that takes [`Reset`] messages serves many indexes (the default);
    /// off, every index starts a fresh child.
    pub reuse: bool,
    /// The idle child that takes resets, shared by the clones.
    spare: Spare,
}

/// An idle child that takes resets, and its welcome, shared by an [`External`]'s clones.
type Spare = Rc<RefCell<Idle>>;

/// The idle child, if any. When the last [`External`] holding it goes, the child is
/// closed as at the end of any session: its stdin closed, a grace period, then its group
/// killed.
#[derive(Default)]
struct Idle(Option<(Child, Agreed)>);

impl Drop for Idle {
    fn drop(&mut self) {
        if let Some((child, _)) = self.0.take() {
            child.close();
        }
    }
}

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("External")
            .field("command", &self.command)
            .field("limits", &self.limits)
            .field("reuse", &self.reuse)
            .finish_non_exhaustive()
    }
}

impl External {
    /// `command` held to `limits`, reusing a child that takes resets.
    pub fn new(command: impl Into<String>, limits: Limits) -> Self {
        External { command: command.into(), limits, reuse: true, spare: Spare::default() }
    }

    /// Starts a child on an index of `scenario`'s capacity and configuration: the idle
    /// child reset to it when there is one, else a fresh child (spawned, sent the hello,
    /// its welcome checked).
    ///
    /// # Errors
    /// A [`StartError`]; a fresh child is killed and reaped before it returns. A child
    /// that refuses a reset's index stays idle for the next one.
    ///
    /// # Panics
    /// Never: a hello always serialises.
    pub fn start(&self, scenario: Scenario) -> Result<(ExternalIndex, Link), StartError> {
        let (child, agreed) = match self.reset(scenario)? {
            Some(reset) => reset,
            None => {
                let mut child = Child::spawn(&self.command, self.limits.max_line)?;
                let hello = serde_json::to_string(&Hello::new(scenario)).expect("a hello serialises");
                child.send(hello);
                let line = child.receive(self.limits.handshake_timeout, "--handshake-timeout-ms")?;
                let agreed = Welcome::read(&line)?;
                (child, agreed)
            }
        };
        let spare = (self.reuse && agreed.reset).then(|| Rc::clone(&self.spare));
        let session = Session {
            child: Some(child),
            agreed,
            op_timeout: self.limits.op_timeout,
            spare,
            ..Session::default()
        };
        let link = Link(Rc::new(RefCell::new(session)));
        let index = ExternalIndex { link: link.clone(), scenario, now: 0, last_cost: Cell::new(None) };
        Ok((index, link))
    }

    /// The idle child, reset to `scenario`'s index; `None` when there is none, or it
    /// failed the reset (it is then killed).
    ///
    /// # Errors
    /// [`HandshakeError::Refused`] when it refused the index; it stays idle.
    fn reset(&self, scenario: Scenario) -> Result<Option<(Child, Agreed)>, StartError> {
        if !self.reuse {
            return Ok(None);
        }
        let Some((mut child, agreed)) = self.spare.borrow_mut().0.take() else { return Ok(None) };
        // A line it wrote while idle answers nothing resbench asked: it is out of step,
        // and would answer the reset with that line. It is killed; a fresh child starts.
        if child.pending() {
            return Ok(None);
        }
        child.send(serde_json::to_string(&Reset::new(scenario)).expect("a reset serialises"));
        let Ok(line) = child.receive(self.limits.handshake_timeout, "--handshake-timeout-ms") else {
            return Ok(None);
        };
        match read_reset_reply(&line) {
            Ok(None) => Ok(Some((child, agreed))),
            Ok(Some(why)) => {
                self.spare.borrow_mut().0 = Some((child, agreed));
                Err(HandshakeError::Refused(why).into())
            }
            Err(_) => Ok(None),
        }
    }

    /// Closes the idle child, if any, letting it exit by itself.
    pub fn close_spare(&self) {
        if let Some((child, _)) = self.spare.borrow_mut().0.take() {
            child.close();
        }
    }
}

#[derive(Default)]
struct Session {
    child: Option<Child>,
    agreed: Agreed,
    op_timeout: Duration,
    fault: Option<ChildError>,
    last_answer: Option<String>,
    kind_only: bool,
    /// Where the child goes when the session is done, if it can serve another index.
    spare: Option<Spare>,
}

impl Session {
    /// Sends an op of `kind`, written as `line`, and reads its answer with `read`.
    fn exchange<R>(
        &mut self,
        kind: OpKind,
        line: String,
        read: impl FnOnce(&str) -> Result<R, ReplyError>,
    ) -> Result<R, ChildError> {
        if let Some(fault) = &self.fault {
            return Err(fault.clone());
        }
        if !self.agreed.supports.contains(&kind) {
            return Err(ChildError::Protocol(format!(
                "{kind} is not among the operations the child supports"
            )));
        }
        let child = self.child.as_mut().ok_or_else(|| ChildError::Protocol("the child was closed".into()))?;
        child.send(line);
        let line = child.receive(self.op_timeout, "--timeout-ms")?;
        let reply = read(&line).map_err(|e| match e {
            ReplyError::Reported { message } => ChildError::Reported(message),
            other => ChildError::Protocol(other.to_string()),
        })?;
        self.last_answer = Some(line);
        Ok(reply)
    }

    /// Records `fault` (the first one stays) and the refusal that stands for it.
    fn failed(&mut self, fault: ChildError) -> Error {
        let reason = format!("the external child failed: {fault}");
        self.fault.get_or_insert(fault);
        Error::BadConfig { reason }
    }
}

/// The caller's handle on a child's session: its name and operations, its fault if any,
/// its last answer, and closing it.
#[derive(Clone)]
pub struct Link(Rc<RefCell<Session>>);

impl Link {
    /// The name the child gave.
    pub fn name(&self) -> String {
        self.0.borrow().agreed.name.clone()
    }

    /// The operations it answers.
    pub fn supports(&self) -> BTreeSet<OpKind> {
        self.0.borrow().agreed.supports.clone()
    }

    /// The first protocol error, crash or timeout, if any.
    pub fn fault(&self) -> Option<ChildError> {
        self.0.borrow().fault.clone()
    }

    /// The child's last answer line, as it wrote it.
    pub fn last_answer(&self) -> Option<String> {
        self.0.borrow().last_answer.clone()
    }

    /// What the child's answers mean.
    pub fn semantics(&self) -> Semantics {
        self.0.borrow().agreed.semantics
    }

    /// The largest time the child holds exactly.
    pub fn largest_time(&self) -> Time {
        self.0.borrow().agreed.largest_time
    }

    /// Whether the last answer was a refusal giving only its kind.
    pub fn kind_only(&self) -> bool {
        self.0.borrow().kind_only
    }

    /// The child's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.0.borrow().child.as_ref().map(Child::id)
    }

    /// Closes the child's stdin, lets it exit (killing it after a grace period) and
    /// returns its exit status; `None` if it was already closed.
    pub fn close(&self) -> Option<ExitStatus> {
        let child = self.0.borrow_mut().child.take();
        child.and_then(Child::close)
    }

    /// Ends the session: a child that takes resets and is still in step (no fault, or
    /// only an internal error it reported, and no line it wrote unasked) goes back to its [`External`] to serve the
    /// next index; any other is closed, and its exit status returned.
    pub fn finish(&self) -> Option<ExitStatus> {
        let mut session = self.0.borrow_mut();
        let pending = session.child.as_mut().is_some_and(Child::pending);
        let in_step = matches!(session.fault, None | Some(ChildError::Reported(_))) && !pending;
        match (session.spare.take(), session.child.take()) {
            (Some(spare), Some(child)) if in_step => {
                spare.borrow_mut().0 = Some((child, session.agreed.clone()));
                None
            }
            (_, child) => {
                drop(session);
                child.and_then(Child::close)
            }
        }
    }
}

/// An index whose every call is answered by a child process.
pub struct ExternalIndex {
    link: Link,
    scenario: Scenario,
    /// The protocol has no `now` query: the present follows the advances the child
    /// accepted, rounded as the oracle rounds them.
    now: Time,
    last_cost: Cell<Option<Cost>>,
}

impl ExternalIndex {
    /// Sends `op`; a fault is recorded on the link and refused with a `BadConfig` error
    /// that says so. A query that answers keeps its cost (zero when the child reports
    /// none).
    fn call(&self, op: &Op) -> Result<Outcome, Error> {
        self.last_cost.set(None);
        let mut session = self.link.0.borrow_mut();
        session.kind_only = false;
        let line = serde_json::to_string(op).expect("an op serialises");
        match session.exchange(op.kind(), line, |line| read_reply(op, line)) {
            Ok(Reply { outcome: Outcome::Failed(error), kind_only, .. }) => {
                session.kind_only = kind_only;
                Err(error)
            }
            Ok(Reply { outcome, cost, .. }) => {
                if matches!(op.kind(), OpKind::Check | OpKind::Earliest) {
                    self.last_cost.set(Some(cost.unwrap_or_default()));
                }
                Ok(outcome)
            }
            Err(fault) => Err(session.failed(fault)),
        }
    }
}

impl CountIndex for ExternalIndex {
    /// Sends `op` to a child with count semantics; a fault is recorded on the link and
    /// refused with a `BadConfig` error that says so, as for the id view.
    fn apply_count(&mut self, op: &CountOp) -> CountOutcome {
        let mut session = self.link.0.borrow_mut();
        session.kind_only = false;
        let line = serde_json::to_string(op).expect("an op serialises");
        match session.exchange(op.kind(), line, |line| read_count_reply(op, line)) {
            Ok(reply) => {
                session.kind_only = reply.kind_only;
                reply.outcome
            }
            Err(fault) => CountOutcome::Failed(session.failed(fault)),
        }
    }
}

/// A well-formed answer of another type cannot get past [`read_reply`].
fn mismatch() -> Error {
    Error::BadConfig { reason: "the external child answered with the wrong outcome".into() }
}

impl AvailabilityIndex for ExternalIndex {
    fn name(&self) -> &'static str {
        "external"
    }

    fn capacity(&self) -> u32 {
        self.scenario.capacity
    }

    fn config(&self) -> Config {
        self.scenario.config
    }

    fn now(&self) -> Time {
        self.now
    }

    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        match self.call(&Op::Check { start, end, n })? {
            Outcome::Free(free) => Ok(free),
            _ => Err(mismatch()),
        }
    }

    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        match self.call(&Op::Earliest { ready, duration, n })? {
            Outcome::Start(frame) => Ok(frame),
            _ => Err(mismatch()),
        }
    }

    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.call(&Op::Allocate { start, end, set: set.clone() }).map(drop)
    }

    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.call(&Op::Release { start, end, set: set.clone() }).map(drop)
    }

    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        match self.call(&Op::FreeFrames { from, to })? {
            Outcome::Frames(frames) => Ok(frames),
            _ => Err(mismatch()),
        }
    }

    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        match self.call(&Op::Options { from, to, min_duration, min_n })? {
            Outcome::Frames(frames) => Ok(frames),
            _ => Err(mismatch()),
        }
    }

    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.call(&Op::LoadFrames { frames: frames.to_vec() }).map(drop)
    }

    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.call(&Op::Advance { now })?;
        self.now = rules::floor(self.scenario.config.slot, now);
        Ok(())
    }

    /// The protocol has no size query.
    fn size(&self) -> usize {
        0
    }

    fn last_cost(&self) -> Option<Cost> {
        self.last_cost.get()
    }

    /// The child's invariants are its own business: only its answers are checked.
    fn validate(&self) -> Result<(), Invalid> {
        Ok(())
    }
}
