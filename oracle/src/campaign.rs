//! Fuzz cases, independent of the fuzz engine: a scenario, swarm flags and an op
//! sequence, decoded from raw bytes and run on structures through the one driver.
//!
//! Bytes that start with `{` are a case written as JSON (hand-made seeds, readable
//! regressions); any other bytes are choices for the generators of
//! [`generate`], so that the fuzzer explores mostly valid op sequences.

use std::fmt;

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
pub struct Case {
    /// Capacity and configuration.
    pub scenario: Scenario,
    /// The kinds of op the generator was allowed (recorded for the reader).
    pub swarm: Swarm,
    /// The ops, in order.
    pub ops: Vec<Op>,
}

/// Why bytes are not a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
    /// Longer than [`MAX_INPUT`].
    TooLong(usize),
    /// JSON that is not a case, or a case outside the bounds.
    BadCase(String),
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejected::TooLong(n) => write!(f, "input of {n} bytes is longer than {MAX_INPUT}"),
            Rejected::BadCase(why) => write!(f, "not a case: {why}"),
        }
    }
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
            apply(&mut oracle, &op);
            ops.push(op);
        }
        Case { scenario, swarm, ops }
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

/// The structures a differential fuzz target runs: `diff_all` runs every one,
/// `diff_<name>` the one with that name.
pub fn target_kinds(target: &str) -> Option<Vec<Kind>> {
    match target.strip_prefix("diff_")? {
        "all" => Some(Kind::ALL.to_vec()),
        name => name.parse().ok().map(|kind| vec![kind]),
    }
}

/// The body of every differential fuzz target.
///
/// # Panics
/// On a divergence, printing it with its reproducer; on an unknown target name.
pub fn fuzz(target: &str, case: &Case) {
    let kinds = target_kinds(target).unwrap_or_else(|| panic!("no differential target named {target}"));
    if let Err(divergence) = case.run(&kinds) {
        panic!("{divergence}");
    }
}
