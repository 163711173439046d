//! `resbench verify --external`: every case of every stream on a fresh child beside the
//! oracle, through the one driver; each op classed, the classes counted per stream, and
//! the first divergence shrunk to a reproducer with the commands that replay it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::process::ExitStatus;

use oracle::{rules, CountDifferential, CountOp, Differential, Op, OpKind, Scenario};
use structures::Time;

use super::class::{step, step_counts, Class, Step};
use super::index::{External, Link, StartError};
use super::protocol::{HandshakeError, Semantics};
use super::shrink::{ddmin, Shrunk};
use super::streams::Stream;

/// One case on one child.
#[derive(Debug)]
pub struct CaseRun {
    /// The child's name.
    pub name: String,
    /// The operations it answers.
    pub supports: BTreeSet<OpKind>,
    /// Whether the whole free space was compared after every op.
    pub thorough: bool,
    /// What the child's answers mean.
    pub semantics: Semantics,
    /// Ops per class.
    pub counts: BTreeMap<Class, u64>,
    /// Ops not sent, by kind, because the child does not answer them.
    pub skipped: BTreeMap<OpKind, u64>,
    /// Ops not sent, by kind, because they or the oracle's answer pass the child's time
    /// domain.
    pub left_out: BTreeMap<OpKind, u64>,
    /// The largest time the child holds exactly.
    pub largest_time: Time,
    /// The ops sent, the diverging one last.
    pub sent: Vec<Op>,
    /// The divergence that ended the case, if any.
    pub divergence: Option<Step>,
    /// How many of the ops given were taken (sent or skipped): all of them, or up to and
    /// including the diverging one.
    pub taken: usize,
    /// After a divergence, the ops that bring a fresh child to the oracle's state at
    /// that point: `advance` to its present and `load_frames` of its free space, when
    /// the child answers both; for a child with count semantics, the ops before the
    /// diverging one.
    pub resync: Option<Vec<Op>>,
    /// When the divergence is in the whole free space, the query that compared it
    /// ([`Found::query`]).
    pub query: Option<Op>,
    /// The child's exit status once closed.
    pub status: Option<ExitStatus>,
}

/// Runs `ops` on a fresh child of `scenario` beside the oracle, up to the first
/// divergence. Ops the child does not support are not sent (to either side) but
/// counted. The whole free space is compared after every op when `thorough` is asked
/// for and the child answers `free_frames`.
///
/// # Errors
/// The child could not be started on the scenario.
pub fn run_case(
    external: &External,
    scenario: Scenario,
    ops: &[Op],
    thorough: bool,
) -> Result<CaseRun, StartError> {
    run_case_after(external, scenario, &[], ops, thorough, &mut |_| ())
}

/// How often, in ops, a long case reports its progress.
pub const TICK: usize = 256;

/// [`run_case`] after `preamble`: ops sent and compared first but not counted (a resync),
/// though kept in `sent` so that a reproducer starts from the same state.
///
/// # Errors
/// As [`run_case`].
fn run_case_after(
    external: &External,
    scenario: Scenario,
    preamble: &[Op],
    ops: &[Op],
    thorough: bool,
    tick: &mut dyn FnMut((usize, u64, u64)),
) -> Result<CaseRun, StartError> {
    let (index, link) = external.start(scenario)?;
    let supports = link.supports();
    let semantics = link.semantics();
    let thorough = thorough && semantics == Semantics::Ids && supports.contains(&OpKind::FreeFrames);
    // The last time every op and answer must stay at or below, rounded up to a slot.
    let domain = domain_end(link.largest_time(), scenario.config.slot);
    let oracle_refuses =
        |e: structures::Error| HandshakeError::Refused(format!("the oracle cannot take this scenario: {e}"));
    let mut driver = match semantics {
        Semantics::Ids => Driver::Ids(
            Differential::with_structure(Box::new(index), thorough)
                .map_err(oracle_refuses)?
                .with_state_until(domain),
        ),
        Semantics::Counts => {
            Driver::Counts(CountDifferential::new(Box::new(index), scenario).map_err(oracle_refuses)?)
        }
    };
    let mut case = CaseRun {
        name: link.name(),
        supports,
        thorough,
        semantics,
        counts: BTreeMap::new(),
        skipped: BTreeMap::new(),
        left_out: BTreeMap::new(),
        largest_time: link.largest_time(),
        sent: Vec::new(),
        divergence: None,
        taken: 0,
        resync: None,
        query: None,
        status: None,
    };
    for op in preamble {
        case.sent.push(op.clone());
        let step = driver.step(&link, op);
        if let Some(step) = step.filter(|s| s.class.is_divergence()) {
            // The child cannot take the state it is given: nothing after can be checked.
            *case.counts.entry(step.class).or_default() += 1;
            case.divergence = Some(step);
            case.status = link.finish();
            return Ok(case);
        }
    }
    for op in ops {
        if case.taken > 0 && case.taken.is_multiple_of(TICK) {
            let not_sent = case.skipped.values().chain(case.left_out.values()).sum();
            tick((case.taken, case.counts.values().sum(), not_sent));
        }
        case.taken += 1;
        if !case.supports.contains(&op.kind()) {
            *case.skipped.entry(op.kind()).or_default() += 1;
            continue;
        }
        if !driver.within(op, domain) {
            *case.left_out.entry(op.kind()).or_default() += 1;
            continue;
        }
        let Some(step) = driver.step(&link, op) else {
            *case.skipped.entry(op.kind()).or_default() += 1;
            continue;
        };
        case.sent.push(op.clone());
        *case.counts.entry(step.class).or_default() += 1;
        if step.class.is_divergence() {
            if let (Driver::Ids(run), "free space") = (&driver, step.field) {
                case.query = whole_state_query(run.oracle(), domain);
            }
            case.divergence = Some(step);
            case.resync = match &driver {
                Driver::Ids(run) => resync(run.oracle(), &case.supports, domain),
                // No count op states the whole free space: the agreed ops before the
                // diverging one rebuild it on a fresh index, for both sides.
                Driver::Counts(_) => Some(case.sent[..case.sent.len() - 1].to_vec()),
            };
            break;
        }
    }
    drop(driver);
    case.status = link.finish();
    Ok(case)
}

/// The driver of a case: the id view's or the count view's, as the child declared.
enum Driver {
    Ids(Differential),
    Counts(CountDifferential),
}

impl Driver {
    /// Whether `op` and the oracle's answer to it stay within a time domain ending at
    /// `domain`: every time it names ([`names_times_within`]), and the end of the window
    /// `earliest` answers.
    fn within(&self, op: &Op, domain: Time) -> bool {
        if !names_times_within(op, domain) {
            return false;
        }
        let Op::Earliest { ready, duration, n } = *op else { return true };
        match self {
            Driver::Ids(run) => {
                use structures::AvailabilityIndex;
                let found = run.oracle().earliest(ready, duration, n);
                found.map_or(true, |frame| frame.is_none_or(|f| f.end <= domain))
            }
            Driver::Counts(run) => {
                let found = run.oracle().earliest(ready, duration, n);
                found.map_or(true, |t| t.is_none_or(|t| t.saturating_add(duration) <= domain))
            }
        }
    }

    /// Sends `op` (its count form to a child with count semantics) and classes it;
    /// `None` for an op without a count form, which is not sent.
    fn step(&mut self, link: &Link, op: &Op) -> Option<Step> {
        match self {
            Driver::Ids(run) => Some(step(run, link, op.clone())),
            Driver::Counts(run) => Some(step_counts(run, link, CountOp::of(op)?)),
        }
    }
}

/// Whether every time `op` names is at most `domain` (a slot boundary, so a window
/// ending there ends there rounded too), an `earliest` window's end and an option's
/// shortest length included.
pub fn names_times_within(op: &Op, domain: Time) -> bool {
    match *op {
        _ if domain == Time::MAX => true,
        Op::Check { start, end, .. } | Op::Allocate { start, end, .. } | Op::Release { start, end, .. } => {
            start.max(end) <= domain
        }
        Op::FreeFrames { from, to } => from.max(to) <= domain,
        Op::Options { from, to, min_duration, .. } => from.max(to).max(min_duration) <= domain,
        Op::LoadFrames { ref frames } => frames.iter().all(|f| f.start.max(f.end) <= domain),
        Op::Advance { now } => now <= domain,
        Op::Earliest { ready, duration, .. } => ready.checked_add(duration).is_some_and(|end| end <= domain),
    }
}

/// The last time of a child's time domain at `slot`-wide slots: its largest time rounded
/// down to a slot, or all of time when it declared none.
pub fn domain_end(largest: Time, slot: Time) -> Time {
    match largest {
        Time::MAX => Time::MAX,
        largest => rules::floor(slot, largest),
    }
}

/// The query with which the driver compares the whole free space after an op:
/// `free_frames` from the present to the limit, or to the end of the child's time
/// `domain` (none when they meet).
fn whole_state_query(oracle: &oracle::Oracle, domain: Time) -> Option<Op> {
    use structures::AvailabilityIndex;
    let (from, to) = (oracle.now(), oracle.limit().min(domain));
    (from < to).then_some(Op::FreeFrames { from, to })
}

/// The ops that bring a fresh index to `oracle`'s state up to the end of the child's
/// time `domain`, if the child answers them.
fn resync(oracle: &oracle::Oracle, supports: &BTreeSet<OpKind>, domain: Time) -> Option<Vec<Op>> {
    use structures::AvailabilityIndex;
    if !supports.contains(&OpKind::Advance) || !supports.contains(&OpKind::LoadFrames) {
        return None;
    }
    let now = oracle.now();
    let limit = oracle.limit().min(domain);
    let frames = if now < limit { oracle.free_frames(now, limit).ok()? } else { Vec::new() };
    Some(vec![Op::Advance { now }, Op::LoadFrames { frames }])
}

/// A divergence and where it happened.
#[derive(Debug, Clone)]
pub struct Found {
    /// The stream's name.
    pub stream: &'static str,
    /// The case, counted from 1.
    pub case: usize,
    /// Its scenario.
    pub scenario: Scenario,
    /// Whether the whole state was compared.
    pub thorough: bool,
    /// What the child's answers mean.
    pub semantics: Semantics,
    /// The ops sent, the diverging one last (after a resync, starting with the ops that
    /// brought the child to the oracle's state).
    pub ops: Vec<Op>,
    /// Where the diverging op is in the case's ops, counted from 1 (skipped ones too).
    pub op_index: usize,
    /// When the free space differed after the op (the answers agreed), the hidden query
    /// that showed it, which the child's answer shown is to: a reproducer ends with it,
    /// so that replaying it prints both sides' free space.
    pub query: Option<Op>,
    /// What it came to.
    pub step: Step,
}

/// What tells one bug from another: the class, the op that diverged and the part of its
/// answer that differs. Shrinking keeps it, and each is shrunk once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Symptom {
    /// The class.
    pub class: Class,
    /// The op that diverged.
    pub op: Option<OpKind>,
    /// What differs ([`crate::class::differing_field`]); empty for a child's failure.
    pub field: &'static str,
}

impl Symptom {
    /// The symptom of `step`, the outcome of `last`.
    fn of(step: &Step, last: Option<&Op>) -> Self {
        Symptom { class: step.class, op: last.map(Op::kind), field: step.field }
    }

    /// A name for files: `different-answers-earliest-start`.
    pub fn slug(&self) -> String {
        let op = self.op.map_or("none", OpKind::name);
        [self.class.slug(), op, self.field]
            .iter()
            .filter(|part| !part.is_empty())
            .map(|part| part.replace(' ', "-"))
            .collect::<Vec<_>>()
            .join("-")
    }
}

impl fmt::Display for Symptom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} on {}", self.class, self.op.map_or("no op", OpKind::name))?;
        if !self.field.is_empty() {
            write!(f, " ({})", self.field)?;
        }
        Ok(())
    }
}

impl Found {
    /// Its symptom.
    pub fn symptom(&self) -> Symptom {
        Symptom::of(&self.step, self.ops.last())
    }
}

/// The first case of each distinct symptom among `found`, in the order they were found.
pub fn first_of_each_symptom<'a>(found: impl IntoIterator<Item = &'a Found>) -> Vec<&'a Found> {
    let mut seen = BTreeSet::new();
    found.into_iter().filter(|f| seen.insert(f.symptom())).collect()
}

/// One stream's column of the summary.
#[derive(Debug, Clone)]
pub struct Column {
    /// The stream's name.
    pub name: &'static str,
    /// Where its ops come from.
    pub about: String,
    /// Cases run.
    pub cases: usize,
    /// Whether the whole state was compared after every op.
    pub thorough: bool,
    /// Ops per class.
    pub counts: BTreeMap<Class, u64>,
    /// Cases the child refused at the handshake.
    pub refused: usize,
    /// Why it refused the first of them, and that case's slot width.
    pub first_refusal: Option<(String, structures::Time)>,
    /// Whether the stream stopped at its bound on divergences.
    pub stopped: bool,
    /// How often a divergence was passed by starting a fresh child from the oracle's
    /// state ([`Stream::goes_on`]).
    pub resynced: usize,
    /// The stream's ops.
    pub total: u64,
    /// Ops not sent: the child does not answer them, or they pass its time domain.
    pub not_sent: u64,
}

impl Column {
    /// Ops classed.
    pub fn ops(&self) -> u64 {
        self.counts.values().sum()
    }

    /// The stream's tally once `taken` of its ops are done with.
    pub fn tally(&self, taken: u64, diverged: usize) -> Tally {
        Tally { taken, total: self.total, checked: self.ops(), not_sent: self.not_sent, diverged }
    }

    /// Ops neither classed nor left out on purpose: after a divergence that ended its
    /// case, in a case the child refused, or after the stream stopped at its bound.
    pub fn ops_unchecked(&self) -> u64 {
        self.total.saturating_sub(self.ops() + self.not_sent)
    }

    /// Why the stream checked no op, or `None` when it checked some.
    pub fn unchecked(&self) -> Option<String> {
        if self.ops() > 0 {
            return None;
        }
        Some(match &self.first_refusal {
            // A child that takes only 1-second slots declines the trace stream's wider ones.
            Some((why, slot)) if *slot > 1 => format!(
                "the child refused its {} case(s) at the handshake (first: {why}), at {slot}-second slots (try --slot 1)",
                self.refused
            ),
            Some((why, _)) => {
                format!("the child refused its {} case(s) at the handshake (first: {why})", self.refused)
            }
            None => "it has no op the child answers".to_owned(),
        })
    }
}

/// What a verification found.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The child's name.
    pub child: String,
    /// The operations it answers.
    pub supports: BTreeSet<OpKind>,
    /// One column per stream.
    pub columns: Vec<Column>,
    /// Ops not sent, by kind.
    pub skipped: BTreeMap<OpKind, u64>,
    /// Ops left out, by kind, because they or the oracle's answer pass the largest time
    /// the child holds, and that time (`None` when it declared no time domain).
    pub left_out: (BTreeMap<OpKind, u64>, Option<Time>),
    /// Why the child refused the scenarios it refused (its welcome's error).
    pub refused: Vec<String>,
    /// Every divergence, in order.
    pub found: Vec<Found>,
}

impl Summary {
    /// The number of divergences.
    pub fn divergences(&self) -> usize {
        self.found.len()
    }

    /// Ops classed, in every stream.
    pub fn ops(&self) -> u64 {
        self.columns.iter().map(Column::ops).sum()
    }

    /// Whether some stream stopped at its bound on divergences.
    pub fn stopped(&self) -> bool {
        self.columns.iter().any(|c| c.stopped)
    }
}

/// Runs every case of every stream, each on a fresh child; a diverging case is
/// abandoned at its divergence (the two states may differ from there on), unless its
/// stream goes on ([`Stream::goes_on`]): then a fresh child is brought to the oracle's
/// state and the case goes on after the diverging op. A stream
/// stops once `max_divergences` of its cases have diverged, so each stream has a budget
/// of its own.
///
/// # Errors
/// A child that cannot be started or fails its handshake (other than refusing a
/// scenario, which is counted): a version mismatch, garbage, a crash or a timeout.
pub fn verify(
    external: &External,
    streams: &[Stream],
    max_divergences: usize,
) -> Result<Summary, StartError> {
    verify_watched(external, streams, max_divergences, &mut ())
}

/// How far a stream has got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Ops done with: checked, not sent, or passed over after a divergence.
    pub taken: u64,
    /// The stream's ops.
    pub total: u64,
    /// Ops classed.
    pub checked: u64,
    /// Ops not sent: unsupported, or past the child's time domain.
    pub not_sent: u64,
    /// Cases that diverged.
    pub diverged: usize,
}

impl Tally {
    /// Ops taken but neither checked nor left out on purpose.
    pub fn unchecked(&self) -> u64 {
        self.taken.saturating_sub(self.checked + self.not_sent)
    }
}

/// What a run of [`verify_watched`] reports as it goes, for a progress display (the
/// library knows no UI types).
pub trait Watch {
    /// `stream` has got as far as `tally`.
    fn progress(&mut self, stream: &'static str, tally: &Tally);
}

/// Watches nothing.
impl Watch for () {
    fn progress(&mut self, _: &'static str, _: &Tally) {}
}

/// [`verify`], telling `watch` how each stream goes: after every case, and every
/// [`TICK`] ops within one.
///
/// # Errors
/// As [`verify`].
pub fn verify_watched(
    external: &External,
    streams: &[Stream],
    max_divergences: usize,
    watch: &mut dyn Watch,
) -> Result<Summary, StartError> {
    let mut summary = Summary::default();
    for stream in streams {
        let total = stream.cases.iter().map(|c| c.ops.len() as u64).sum();
        let mut done = 0;
        let mut column = Column {
            name: stream.name,
            about: stream.about.clone(),
            cases: 0,
            thorough: false,
            counts: BTreeMap::new(),
            refused: 0,
            first_refusal: None,
            stopped: false,
            resynced: 0,
            total,
            not_sent: 0,
        };
        let mut diverged = 0;
        'cases: for (i, case) in stream.cases.iter().enumerate() {
            // Where in the case the next child starts, and the ops that bring it there.
            let (mut start, mut preamble) = (0, Vec::new());
            loop {
                let ops = &case.ops[start..];
                let so_far = Tally {
                    taken: done + start as u64,
                    total,
                    checked: column.ops(),
                    not_sent: column.not_sent,
                    diverged,
                };
                let mut tick = |(taken, checked, not_sent): (usize, u64, u64)| {
                    let tally = Tally {
                        taken: so_far.taken + taken as u64,
                        checked: so_far.checked + checked,
                        not_sent: so_far.not_sent + not_sent,
                        ..so_far
                    };
                    watch.progress(stream.name, &tally);
                };
                let run =
                    match run_case_after(external, case.scenario, &preamble, ops, stream.thorough, &mut tick)
                    {
                        Err(StartError::Handshake(HandshakeError::Refused(why))) if start == 0 => {
                            column.refused += 1;
                            column
                                .first_refusal
                                .get_or_insert_with(|| (why.clone(), case.scenario.config.slot));
                            summary.refused.push(why);
                            done += case.ops.len() as u64;
                            watch.progress(stream.name, &column.tally(done, diverged));
                            continue 'cases;
                        }
                        other => other?,
                    };
                if start == 0 {
                    column.cases += 1;
                }
                column.thorough |= run.thorough;
                summary.child = run.name;
                summary.supports = run.supports;
                for (class, n) in run.counts {
                    *column.counts.entry(class).or_default() += n;
                }
                for (kind, n) in run.skipped {
                    *summary.skipped.entry(kind).or_default() += n;
                    column.not_sent += n;
                }
                for (kind, n) in run.left_out {
                    *summary.left_out.0.entry(kind).or_default() += n;
                    column.not_sent += n;
                }
                if run.largest_time < Time::MAX {
                    summary.left_out.1 = Some(run.largest_time);
                }
                let at = start + run.taken;
                let Some(step) = run.divergence else { break };
                let (stream_name, scenario, thorough) = (stream.name, case.scenario, run.thorough);
                summary.found.push(Found {
                    stream: stream_name,
                    case: i + 1,
                    scenario,
                    thorough,
                    semantics: run.semantics,
                    ops: run.sent,
                    op_index: at,
                    query: run.query,
                    step,
                });
                diverged += 1;
                watch.progress(stream.name, &column.tally(done + at as u64, diverged));
                if diverged >= max_divergences {
                    column.stopped = true;
                    break 'cases;
                }
                match run.resync {
                    // Past a divergence the two states may differ: a fresh child starts
                    // from the oracle's, after the diverging op.
                    Some(ops) if stream.goes_on && run.taken > 0 && at < case.ops.len() => {
                        column.resynced += 1;
                        (start, preamble) = (at, ops);
                    }
                    _ => break,
                }
            }
            done += case.ops.len() as u64;
            watch.progress(stream.name, &column.tally(done, diverged));
        }
        watch.progress(stream.name, &column.tally(total, diverged));
        summary.columns.push(column);
    }
    Ok(summary)
}

/// Shrinks `found` by delta debugging: each attempt runs a candidate list on a fresh
/// child, and counts only when it diverges with the same symptom (class, op and
/// differing field), so a shrink never slides into another bug. At most `max_attempts`
/// attempts.
pub fn shrink(external: &External, found: &Found, max_attempts: usize) -> Shrunk<Op> {
    let symptom = found.symptom();
    ddmin(found.ops.clone(), max_attempts, |ops| {
        let run = run_case(external, found.scenario, ops, found.thorough).ok()?;
        let step = run.divergence?;
        (Symptom::of(&step, run.sent.last()) == symptom).then(|| run.sent.len() - 1)
    })
}

/// `text` quoted for a POSIX shell where it needs it.
pub fn quote(text: &str) -> String {
    let plain =
        !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "_./=:,+-@%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The scenario as command-line options: `--capacity N --slot S [--horizon H]`.
pub fn scenario_args(scenario: Scenario) -> String {
    let horizon = scenario.config.horizon.map_or_else(String::new, |h| format!(" --horizon {h}"));
    format!("--capacity {} --slot {}{horizon}", scenario.capacity, scenario.config.slot)
}

/// The two commands that replay an ops file: on the oracle, and on the child through
/// the protocol.
pub fn replay_commands(command: &str, scenario: Scenario, semantics: Semantics, file: &Path) -> [String; 2] {
    let (args, file) = (scenario_args(scenario), quote(&file.display().to_string()));
    let counts = if semantics == Semantics::Counts { " --counts" } else { "" };
    [
        format!("resbench ops --structure oracle{counts} {args} < {file}"),
        format!("resbench verify --external {} --replay {file} {args}", quote(command)),
    ]
}

/// Every diverging case as JSON, for `divergences.json`: stream, case, the op's index
/// (from 1), the symptom's parts and the scenario.
pub fn divergences_json(found: &[Found]) -> serde_json::Value {
    let cases: Vec<serde_json::Value> = found
        .iter()
        .map(|f| {
            let symptom = f.symptom();
            serde_json::json!({
                "stream": f.stream,
                "case": f.case,
                "op_index": f.op_index,
                "class": symptom.class.label(),
                "op": symptom.op.map(OpKind::name),
                "field": symptom.field,
                "symptom": symptom.slug(),
                "capacity": f.scenario.capacity,
                "slot": f.scenario.config.slot,
                "horizon": f.scenario.config.horizon,
            })
        })
        .collect();
    serde_json::Value::Array(cases)
}

/// An ops file's text: `ops` one per line, as [`op_line`] writes them, then the
/// whole-state `query` that showed the divergence, if any.
pub fn ops_text(ops: &[Op], query: Option<&Op>, semantics: Semantics) -> String {
    ops.iter().chain(query).map(|op| op_line(op, semantics) + "\n").collect()
}

/// An op as a child of `semantics` is sent it, which is also how ops files hold it: the
/// `ops` input format, or its count form.
///
/// # Panics
/// Never: every op serialises.
pub fn op_line(op: &Op, semantics: Semantics) -> String {
    match CountOp::of(op).filter(|_| semantics == Semantics::Counts) {
        Some(count) => serde_json::to_string(&count).expect("an op serialises"),
        None => serde_json::to_string(op).expect("an op serialises"),
    }
}

/// The horizon as a message says it.
fn horizon(scenario: Scenario) -> String {
    scenario.config.horizon.map_or_else(|| "no horizon".to_owned(), |h| format!("horizon {h}"))
}

impl fmt::Display for Found {
    /// Where it happened, the op, both answers and what differed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Scenario { capacity, config } = self.scenario;
        writeln!(
            f,
            "{}: {} stream, case {} (capacity {capacity}, slot {}, {}), op {}",
            self.step.class,
            self.stream,
            self.case,
            config.slot,
            horizon(self.scenario),
            self.op_index
        )?;
        if let Some(op) = self.ops.last() {
            writeln!(f, "  op:     {}", op_line(op, self.semantics))?;
        }
        if let Some(query) = &self.query {
            writeln!(f, "  then:   {} (the whole-state comparison)", op_line(query, self.semantics))?;
        }
        if let Some(child) = &self.step.child {
            writeln!(f, "  child:  {child}")?;
        }
        if let Some(oracle) = &self.step.oracle {
            writeln!(f, "  oracle: {oracle}")?;
        }
        for line in self.step.what.lines() {
            writeln!(f, "  {line}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Summary {
    /// The streams, the ops not sent, and the table of classes per stream.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.child.is_empty() {
            let supports: Vec<&str> = self.supports.iter().map(|k| k.name()).collect();
            writeln!(f, "child: {}, answering {}", self.child, supports.join(", "))?;
        }
        for c in &self.columns {
            let compared = if c.thorough {
                "answers and the whole free space compared after every op"
            } else {
                "answers compared after every op (not the whole free space)"
            };
            let stopped = if c.stopped { "; stopped at its bound of divergences" } else { "" };
            let resynced = if c.resynced > 0 {
                format!(
                    "; went on past {} divergence(s) on a fresh index brought back in step with the oracle",
                    c.resynced
                )
            } else {
                String::new()
            };
            writeln!(f, "{}: {}; cases run: {}; {compared}{stopped}{resynced}", c.name, c.about, c.cases)?;
            writeln!(
                f,
                "{}: {} of {} ops checked, {} not sent, {} unchecked (after a divergence, in a refused case or past the bound)",
                c.name,
                c.ops(),
                c.total,
                c.not_sent,
                c.ops_unchecked()
            )?;
            if let Some(why) = c.unchecked() {
                writeln!(f, "{}: not checked: {why}", c.name)?;
            }
        }
        let skipped: Vec<String> = self.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let skipped = if skipped.is_empty() { "none".to_owned() } else { skipped.join(", ") };
        writeln!(f, "ops not sent (the child does not support them): {skipped}")?;
        if let (left_out, Some(largest)) = &self.left_out {
            let left: Vec<String> = left_out.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let left = if left.is_empty() { "none".to_owned() } else { left.join(", ") };
            writeln!(f, "ops left out (they, or the oracle's answer, pass the child's largest time {largest}): {left}")?;
        }
        if let Some(first) = self.refused.first() {
            writeln!(f, "cases the child refused at the handshake: {} (first: {first})", self.refused.len())?;
        }
        write!(f, "{:<32}", "class")?;
        for c in &self.columns {
            write!(f, " {:>9}", c.name)?;
        }
        writeln!(f, " {:>9}", "total")?;
        for class in Class::ALL {
            write!(f, "{class:<32}")?;
            let mut total = 0;
            for c in &self.columns {
                let n = c.counts.get(&class).copied().unwrap_or(0);
                total += n;
                write!(f, " {n:>9}")?;
            }
            writeln!(f, " {total:>9}")?;
        }
        if !self.found.is_empty() {
            writeln!(f, "diverging cases ({}):", self.found.len())?;
            writeln!(f, "  {:<9} {:>6} {:>7}  symptom", "stream", "case", "op")?;
            for found in &self.found {
                writeln!(
                    f,
                    "  {:<9} {:>6} {:>7}  {}",
                    found.stream,
                    found.case,
                    found.op_index,
                    found.symptom()
                )?;
            }
        }
        let stopped = if self.stopped() {
            " (a stream stopped at its bound; raise it with --max-divergences)"
        } else {
            ""
        };
        writeln!(f, "divergences: {}{stopped}", self.divergences())
    }
}
