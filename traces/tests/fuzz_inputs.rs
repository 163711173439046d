//! Every initial fuzz input and every committed regression, replayed by `cargo test`
//! through the very functions the fuzz targets call (`fuzz/fuzz_targets/`).

use std::fs;
use std::path::{Path, PathBuf};

use oracle::campaign::{self, Case};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The fuzz targets, by their source files.
fn targets() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(fuzz_dir().join("fuzz_targets"))
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The folder of initial inputs a target starts from.
fn initial_dir(target: &str) -> PathBuf {
    fuzz_dir().join("initial").join(target)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> =
        entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_none_or(|x| x != "md")).collect();
    files.sort();
    files
}

/// Runs one input as the target named `target` would.
fn run(target: &str, path: &Path) {
    let bytes = fs::read(path).unwrap();
    if target == "swf_reader" {
        traces::swf::fuzz(&bytes);
        return;
    }
    let case = Case::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!case.ops.is_empty(), "{}: decodes to no op", path.display());
    campaign::fuzz(&case);
}

#[test]
fn every_target_has_initial_inputs_and_they_all_pass() {
    let targets = targets();
    // One differential target picks its structures (see `campaign::kinds`); a structure
    // needs no target of its own.
    assert_eq!(targets, ["diff", "swf_reader"]);
    for target in &targets {
        let inputs = files(&initial_dir(target));
        assert!(!inputs.is_empty(), "{target} has no initial input");
        inputs.iter().for_each(|input| run(target, input));
    }
}

#[test]
fn every_committed_regression_passes() {
    for target in targets() {
        for input in files(&fuzz_dir().join("regressions").join(&target)) {
            run(&target, &input);
        }
    }
}

#[test]
fn the_worked_example_decodes_as_written() {
    let case = Case::decode(&fs::read(initial_dir("diff").join("worked-example.json")).unwrap()).unwrap();
    assert_eq!((case.scenario.capacity, case.ops.len()), (13, 16));
}

#[test]
fn oversized_and_malformed_inputs_are_rejected_not_run() {
    assert!(Case::decode(&vec![7; campaign::MAX_INPUT + 1]).is_err());
    assert!(Case::decode(b"{\"scenario\":").is_err());
    let too_wide = br#"{"scenario":{"capacity":65,"config":{"slot":1,"horizon":null}},"swarm":1,"ops":[]}"#;
    assert!(Case::decode(too_wide).is_err());
    let bad_config = br#"{"scenario":{"capacity":4,"config":{"slot":0,"horizon":null}},"swarm":1,"ops":[]}"#;
    assert!(Case::decode(bad_config).is_err());
}

#[test]
fn the_diff_target_runs_every_registered_structure_and_counts_its_ops() {
    let case = Case::decode(&fs::read(initial_dir("diff").join("worked-example.json")).unwrap()).unwrap();
    assert_eq!(campaign::kinds(&case), structures::Kind::ALL, "unset {}", campaign::STRUCTURES_VAR);
    let before = campaign::totals();
    campaign::fuzz(&case);
    let after = campaign::totals();
    assert!(after.cases > before.cases);
    assert!(after.ops >= before.ops + (case.ops.len() * structures::Kind::ALL.len()) as u64);
    let named = Case { structures: Some(vec![structures::Kind::CalendarQueue]), ..case };
    assert_eq!(campaign::kinds(&named), [structures::Kind::CalendarQueue]);
    let json = serde_json::to_string(&named).unwrap();
    assert!(json.contains(r#""structures":["calendar"]"#), "{json}");
    assert_eq!(Case::decode(json.as_bytes()).unwrap(), named);
}
