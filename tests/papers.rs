//! The golden corpus (`tests/papers/`): every worked example of the five papers that
//! states an outcome, one JSON file each, with its paper and section. Each runs on every
//! structure, through the policy it belongs to, in the paper's own model, and (for a
//! policy) through the policy's naive reference too. The README states how many
//! examples each paper has; a test keeps that count true.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use oracle::{apply, Op, Outcome};
use references::fcfs_eds::{Answer, Tslot};
use scheduling::fcfs_eds::{Decision, Planner, Request, Shift};
use serde::Deserialize;
use structures::{Config, Kind};

/// One example: where it comes from, and what it runs. (serde cannot deny unknown
/// fields beside a flattened one, so a misspelt field fails as a missing one instead.)
#[derive(Deserialize)]
struct Example {
    /// The paper's short name (`../shared/papers/<paper>.txt`).
    paper: String,
    /// Its section, table or figure.
    section: String,
    /// What the example shows, in words.
    about: String,
    /// Where the paper is silent and how the example reads it.
    #[serde(default)]
    silent: Vec<String>,
    #[serde(flatten)]
    model: Model,
}

/// The model an example runs in, with its inputs and expected outputs.
#[derive(Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
enum Model {
    /// Ops on a structure, each with the outcome the paper states.
    Structure { capacity: u32, config: Config, steps: Vec<Step> },
    /// FCFS-EDS in fcfs-eds-slotted-array's per-slot count model.
    FcfsEds {
        capacity: u32,
        slots: u64,
        requests: Vec<Request>,
        decisions: Vec<Decision>,
        free: Vec<(u64, u32)>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    apply: Op,
    expect: Outcome,
}

/// The papers' short names (`../shared/papers/<name>.txt`).
const PAPERS: [&str; 5] = [
    "rbtree-availability-profile",
    "fcfs-eds-slotted-array",
    "coallocation-2d-trees",
    "calendar-token-reservation",
    "rspb-priorities-benefit-functions",
];

fn corpus() -> Vec<(PathBuf, Example)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/papers");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            let example = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, example)
        })
        .collect()
}

fn run_structure(name: &str, capacity: u32, config: Config, steps: &[Step]) {
    for &kind in Kind::ALL {
        let mut index = kind.build(capacity, kind.config_for(config)).unwrap();
        for (k, step) in steps.iter().enumerate() {
            let got = apply(index.as_mut(), &step.apply);
            assert_eq!(got, step.expect, "{name}, step {k} on {kind}");
            index.validate().unwrap();
        }
    }
}

/// The reference's answer in the planner's terms.
fn decision(answer: Answer) -> Decision {
    match answer {
        Answer::Accepted { start, shifts } => Decision::Accepted {
            start,
            shifted: shifts.into_iter().map(|(user, job, from, to)| Shift { user, job, from, to }).collect(),
        },
        Answer::Rejected => Decision::Rejected,
    }
}

fn run_fcfs_eds(
    name: &str,
    capacity: u32,
    slots: u64,
    requests: &[Request],
    decisions: &[Decision],
    free: &[(u64, u32)],
) {
    assert_eq!(requests.len(), decisions.len(), "{name}: a decision per request");
    let mut reference = Tslot::new(capacity, slots as usize);
    for (r, want) in requests.iter().zip(decisions) {
        assert_eq!(
            &decision(reference.search_and_alloc(r.user, r.job, r.tes, r.tls, r.te, r.n)),
            want,
            "{name}: reference on {r:?}"
        );
    }
    for &(slot, n) in free {
        assert_eq!(reference.free(slot), i64::from(n), "{name}: reference, slot {slot}");
    }
    for &kind in Kind::ALL {
        let mut planner = Planner::new(kind, capacity, slots, true).unwrap();
        for (r, want) in requests.iter().zip(decisions) {
            assert_eq!(&planner.request(*r).unwrap(), want, "{name}: {kind} on {r:?}");
        }
        for &(slot, n) in free {
            assert_eq!(planner.free(slot).unwrap(), n, "{name}: {kind}, slot {slot}");
        }
    }
}

#[test]
fn every_example_holds_on_every_structure_and_in_every_reference() {
    for (path, example) in corpus() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(PAPERS.contains(&example.paper.as_str()), "{name}: unknown paper {}", example.paper);
        let words = [&example.section, &example.about].into_iter().chain(&example.silent);
        assert!(
            words.into_iter().all(|w| !w.trim().is_empty()),
            "{name}: an empty section, description or reading"
        );
        match &example.model {
            Model::Structure { capacity, config, steps } => run_structure(&name, *capacity, *config, steps),
            Model::FcfsEds { capacity, slots, requests, decisions, free } => {
                run_fcfs_eds(&name, *capacity, *slots, requests, decisions, free)
            }
        }
    }
}

/// The README's paragraph on the golden corpus names each paper with its count of
/// examples.
#[test]
fn the_readme_counts_the_examples_of_each_paper() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (_, example) in corpus() {
        *counts.entry(example.paper).or_default() += 1;
    }
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let from = readme.find("Golden corpus:").expect("the README's corpus paragraph");
    let paragraph = readme[from..].split("\n\n").next().unwrap_or_default();
    let line = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    for (paper, n) in &counts {
        let said = format!("{paper} {n}");
        assert!(line.contains(&said), "the README's corpus line lacks {said:?}: {line}");
    }
    let total: usize = counts.values().sum();
    assert!(line.contains(&format!("{total} worked examples")), "{line}");
}
