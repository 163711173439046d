//! Sentences that compare with a paper, computed: the paper's number, held as data with
//! the table, figure or section that states it; ours; the difference; and a verdict
//! against a tolerance the report states. Nothing here asserts agreement as fixed text:
//! change a number and the verdict follows.

use crate::run_file::RunFile;

/// A number a paper states, and where.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quoted {
    /// What is measured, in words.
    pub what: &'static str,
    /// Where the paper states it: its table, figure or section.
    pub source: &'static str,
    /// The number.
    pub value: f64,
}

/// How ours compares with the paper's number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within the tolerance.
    Agrees,
    /// Outside it.
    Differs,
}

impl Verdict {
    /// The verdict as a report prints it.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Differs => "differs",
        }
    }
}

/// One comparison of ours with a quoted number.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The paper's number.
    pub quoted: Quoted,
    /// Ours, in the same unit.
    pub ours: f64,
    /// The largest relative difference that still agrees (0.25 for ±25 %; 0 for exact).
    pub tolerance: f64,
}

impl Claim {
    /// `(ours - paper) / paper`; infinite when the paper's number is 0 and ours is not.
    pub fn difference(&self) -> f64 {
        let paper = self.quoted.value;
        if paper == 0.0 {
            return if self.ours == 0.0 { 0.0 } else { f64::INFINITY };
        }
        (self.ours - paper) / paper
    }

    /// Whether ours is within the tolerance of the paper's number.
    pub fn verdict(&self) -> Verdict {
        if self.difference().abs() <= self.tolerance + 1e-12 {
            Verdict::Agrees
        } else {
            Verdict::Differs
        }
    }

    /// The claim as a table row: what, where, the paper's number, ours, the difference,
    /// and the verdict, numbers with `digits` decimals (none when both are whole).
    pub fn row(&self, digits: usize) -> Vec<String> {
        let whole = self.quoted.value.fract() == 0.0 && self.ours.fract() == 0.0;
        let digits = if whole { 0 } else { digits };
        let difference = self.difference();
        let shown =
            if difference.is_finite() { format!("{:+.0} %", 100.0 * difference) } else { "—".into() };
        vec![
            self.quoted.what.to_owned(),
            self.quoted.source.to_owned(),
            format!("{:.digits$}", self.quoted.value),
            format!("{:.digits$}", self.ours),
            shown,
            self.verdict().word().to_owned(),
        ]
    }
}

/// The header of a table of [`Claim::row`]s.
pub fn header() -> Vec<String> {
    ["measure", "where the paper states it", "the paper", "ours", "difference", "verdict"]
        .map(str::to_owned)
        .to_vec()
}

/// A tolerance as a report states it: "±25 %" or "exact".
pub fn tolerance(t: f64) -> String {
    if t == 0.0 {
        "exact".to_owned()
    } else {
        format!("±{:.0} %", 100.0 * t)
    }
}

/// Whether `run`'s decisions were checked across structures, as a sentence: they agree
/// only where several structures ran its options on its workload and their schedule
/// digests are equal.
pub fn across_structures(runs: &[RunFile], run: &RunFile) -> String {
    let same: Vec<&RunFile> = runs
        .iter()
        .filter(|r| r.trace == run.trace && r.capacity == run.capacity && r.options == run.options)
        .collect();
    let mut kinds: Vec<String> = same.iter().map(|r| r.structure.to_string()).collect();
    kinds.sort();
    kinds.dedup();
    if kinds.len() < 2 {
        return format!("Replayed on one structure ({}), so no check across structures.", kinds.join(""));
    }
    let digests: std::collections::BTreeSet<&str> = same.iter().map(|r| r.schedule.digest.as_str()).collect();
    if digests.len() == 1 {
        format!(
            "The {} structures replayed ({}) made the same decisions: their schedule digests agree.",
            kinds.len(),
            kinds.join(", ")
        )
    } else {
        format!(
            "The {} structures replayed ({}) made different decisions: {} schedule digests.",
            kinds.len(),
            kinds.join(", "),
            digests.len()
        )
    }
}
