//! Fuzz cases, independent of the fuzz engine: a scenario, swarm flags and an op
//! sequence, decoded from raw bytes and run on structures through the one driver.
//!
//! Bytes that start with `{` are a case written as JSON (hand-made initial inputs, readable
//! regressions); any other bytes are choices for the generators of
//! [`generate`], so that the fuzzer explores mostly valid op sequences.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use serde::{Deserialize, Serialize};
use structures::Kind;

use crate::generate::{self, Choices, Swarm};
use crate::{apply, replay, rules, Divergence, Op, Oracle, Scenario};

/// Inputs longer than this are rejected: they add length, not coverage.
pub const MAX_INPUT: usize = 4096;
/// The most ops a case runs.
pub const MAX_OPS: usize = 64;
/// The largest capacity a JSON case may ask for (the oracle is brute force per id).
pub const MAX_CAPACITY: u32 = 64;

/// One fuzz case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Capacity and configuration.
    pub scenario: Scenario,
    /// The kinds of op the generator was allowed (recorded for the reader).
    pub swarm: Swarm,
    /// The structures to run it on (a JSON case may name them; every one if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structures: Option<Vec<Kind>>,
    /// The ops, in order.
    pub ops: Vec<Op>,
}

/// Why bytes are not a case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejected {
    /// Longer than [`MAX_INPUT`].
    #[error("input of {0} bytes is longer than {MAX_INPUT}")]
    TooLong(usize),
    /// JSON that is not a case, or a case outside the bounds.
    #[error("not a case: {0}")]
    BadCase(String),
}

impl Choices for Unstructured<'_> {
    /// Zero once the bytes run out, so every input decodes.
    fn below(&mut self, n: u64) -> u64 {
        self.int_in_range(0..=n - 1).unwrap_or(0)
    }
}

impl Case {
    /// Decodes a case from fuzz input bytes.
    ///
    /// # Errors
    /// [`Rejected`] for oversized input or a JSON case that is malformed or out of bounds.
    pub fn decode(bytes: &[u8]) -> Result<Case, Rejected> {
        if bytes.len() > MAX_INPUT {
            return Err(Rejected::TooLong(bytes.len()));
        }
        if bytes.first() == Some(&b'{') {
            let case: Case = serde_json::from_slice(bytes).map_err(|e| Rejected::BadCase(e.to_string()))?;
            let Scenario { capacity, config } = case.scenario;
            rules::validate(capacity, config).map_err(|e| Rejected::BadCase(e.to_string()))?;
            if capacity > MAX_CAPACITY || case.ops.len() > MAX_OPS {
                return Err(Rejected::BadCase(format!(
                    "more than {MAX_CAPACITY} resources or {MAX_OPS} ops"
                )));
            }
            return Ok(case);
        }
        Ok(Self::generate(&mut Unstructured::new(bytes)))
    }

    /// Draws a scenario, swarm flags, then ops until the choices run out.
    fn generate(u: &mut Unstructured<'_>) -> Case {
        let scenario = generate::scenario(u);
        let swarm = Swarm::draw(u);
        let mut oracle =
            Oracle::new(scenario.capacity, scenario.config).expect("generated scenarios are valid");
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < MAX_OPS {
            let op = generate::op(&oracle, swarm, u);
            let outcome = apply(&mut oracle, &op);
            let taken = generate::take_offer(&op, &outcome, swarm, u);
            ops.push(op);
            if let Some(op) = taken.filter(|_| ops.len() < MAX_OPS) {
                apply(&mut oracle, &op);
                ops.push(op);
            }
        }
        Case { scenario, swarm, structures: None, ops }
    }

    /// Replays the case on each structure beside the oracle, comparing everything after
    /// every op.
    ///
    /// # Errors
    /// The first [`Divergence`].
    pub fn run(&self, kinds: &[Kind]) -> Result<(), Box<Divergence>> {
        kinds.iter().try_for_each(|&kind| replay(kind, self.scenario, &self.ops).map(drop))
    }
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let bytes = u.bytes(u.len())?;
        Case::decode(bytes).map_err(|_| arbitrary::Error::IncorrectFormat)
    }

    fn arbitrary_take_rest(mut u: Unstructured<'a>) -> arbitrary::Result<Self> {
        Self::arbitrary(&mut u)
    }
}

/// The environment variable naming the structures the `diff` target runs, comma
/// separated (`rbtree,calendar`); unset or empty, a case runs on the structures it
/// names, else on every one.
pub const STRUCTURES_VAR: &str = "RESBENCH_FUZZ_STRUCTURES";

/// The structures named in [`STRUCTURES_VAR`], read once; `None` when it is unset.
///
/// # Panics
/// On an unknown structure name, listing the known ones.
fn chosen() -> Option<&'static [Kind]> {
    static CHOSEN: OnceLock<Option<Vec<Kind>>> = OnceLock::new();
    CHOSEN
        .get_or_init(|| {
            let names = std::env::var(STRUCTURES_VAR).ok().filter(|v| !v.trim().is_empty())?;
            let kinds = names.split(',').map(|name| name.trim().parse::<Kind>());
            Some(kinds.collect::<Result<_, _>>().unwrap_or_else(|e| panic!("{STRUCTURES_VAR}: {e}")))
        })
        .as_deref()
}

/// The structures `case` runs on: [`STRUCTURES_VAR`]'s, else the case's own, else all.
pub fn kinds(case: &Case) -> Vec<Kind> {
    match (chosen(), &case.structures) {
        (Some(kinds), _) => kinds.to_vec(),
        (None, Some(kinds)) if !kinds.is_empty() => kinds.clone(),
        _ => Kind::ALL.to_vec(),
    }
}

/// What a fuzz run has executed so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Ops applied to a structure (and to the oracle beside it).
    pub ops: u64,
    /// Cases run.
    pub cases: u64,
}

static OPS: AtomicU64 = AtomicU64::new(0);
static CASES: AtomicU64 = AtomicU64::new(0);

/// What this process has executed so far.
pub fn totals() -> Totals {
    Totals { ops: OPS.load(Ordering::Relaxed), cases: CASES.load(Ordering::Relaxed) }
}

/// The line a campaign quotes and adds up: ops, cases and divergences so far (a
/// divergence stops the run, so a line is only printed with none).
pub fn totals_line(totals: Totals) -> String {
    format!("diff: {} ops, {} cases, 0 divergences", totals.ops, totals.cases)
}

/// The body of the `diff` fuzz target: runs `case` on [`kinds`], counts it, and prints
/// [`totals_line`] to stderr at most once a second (libFuzzer exits without a hook, so
/// the last line printed trails the run's end by under a second).
///
/// # Panics
/// On a divergence, printing it with its reproducer; on a bad [`STRUCTURES_VAR`].
pub fn fuzz(case: &Case) {
    static LAST: Mutex<Option<Instant>> = Mutex::new(None);
    let kinds = kinds(case);
    if let Err(divergence) = case.run(&kinds) {
        panic!("{divergence}");
    }
    OPS.fetch_add((case.ops.len() * kinds.len()) as u64, Ordering::Relaxed);
    CASES.fetch_add(1, Ordering::Relaxed);
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if last.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
        *last = Some(Instant::now());
        eprintln!("{}", totals_line(totals()));
    }
}
