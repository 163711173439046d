//! The registry is the one place a structure is named: its facts are complete, and
//! adding a structure touches three places (`docs/adding-a-structure.md`): its module (which
//! names its `Kind` once, as its engine's `KIND`), its `Kind` variant and its spec arm
//! (both in `registry.rs`), plus the line in `lib.rs` that exports its public type. This
//! test reads every non-test source file of the workspace and fails if any other names
//! a specific structure.

use std::fs;
use std::path::{Path, PathBuf};

use structures::{Config, Kind, UnknownName};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every Rust source file outside the test trees.
fn sources() -> Vec<PathBuf> {
    let roots =
        ["src", "structures/src", "oracle/src", "benches/src", "benches/benches", "fuzz/fuzz_targets"];
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = roots.iter().map(|r| workspace().join(r)).collect();
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The lines of code in `text`: comments and doc comments dropped.
fn code(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter(|(_, l)| !l.trim_start().starts_with("//")).map(|(i, l)| (i + 1, l))
}

/// Whether `line` names `kind`: its variant, or its name as a string literal.
fn names(line: &str, kind: Kind) -> bool {
    let variant = format!("Kind::{kind:?}");
    let named_variant = line
        .match_indices(&variant)
        .any(|(i, _)| !line[i + variant.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'));
    named_variant || line.contains(&format!("\"{}\"", kind.name()))
}

#[test]
fn no_source_outside_the_registry_and_its_module_names_a_structure() {
    let files: Vec<(PathBuf, String)> =
        sources().into_iter().map(|p| (p.clone(), fs::read_to_string(p).unwrap())).collect();
    let registry = workspace().join("structures/src/registry.rs");
    let mut strays = Vec::new();
    for &kind in Kind::ALL {
        // Its module: the folder (or file) whose engine declares it.
        let declaration = format!("const KIND: Kind = Kind::{kind:?};");
        let engines: Vec<&PathBuf> =
            files.iter().filter(|(_, t)| t.contains(&declaration)).map(|(p, _)| p).collect();
        assert_eq!(engines.len(), 1, "{kind}: one engine declares it, found {engines:?}");
        let engine = engines[0];
        let module = if engine.parent().unwrap().ends_with("src") {
            engine.clone()
        } else {
            engine.parent().unwrap().to_path_buf()
        };
        for (path, text) in &files {
            if *path == registry || path.starts_with(&module) {
                continue;
            }
            for (n, line) in code(text).filter(|(_, l)| names(l, kind)) {
                strays.push(format!(
                    "{}:{n}: {}",
                    path.strip_prefix(workspace()).unwrap().display(),
                    line.trim()
                ));
            }
        }
    }
    assert!(
        strays.is_empty(),
        "a structure named outside its registry entry and module:\n{}",
        strays.join("\n")
    );
}

#[test]
fn every_spec_is_complete_and_its_own() {
    let mut names = Vec::new();
    for &kind in Kind::ALL {
        let spec = kind.spec();
        assert_eq!(kind.name().parse::<Kind>(), Ok(kind));
        names.push(kind.name());
        for text in [
            spec.description,
            spec.size_unit.name(),
            spec.cost_unit,
            spec.cost_reading,
            spec.source.paper,
            spec.source.section.unwrap_or("a citation with no section"),
        ] {
            assert!(!text.trim().is_empty(), "{kind}: an empty fact");
        }
        let t = spec.theory;
        for bound in [t.check, t.earliest, t.allocate, t.release, t.free_frames, t.options, t.replay] {
            assert!(bound.text.starts_with('O') && bound.exponent.is_finite(), "{kind}: {bound:?}");
        }
        let config = kind.config_for(Config { slot: 60, horizon: None });
        assert_eq!(config.horizon, spec.default_horizon_slots.map(|slots| 60 * slots), "{kind}");
        let index = kind.build(4, config).unwrap();
        assert_eq!(index.name(), kind.name(), "{kind}: the built index names itself from its spec");
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Kind::ALL.len(), "two structures share a name");
}

#[test]
fn an_unknown_name_is_refused_with_the_known_ones() {
    let e = "nope".parse::<Kind>().unwrap_err();
    let known = Kind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ");
    assert_eq!(e, UnknownName { what: "structure", name: "nope".into(), known: known.clone() });
    assert_eq!(e.to_string(), format!("unknown structure \"nope\"; known: {known}"));
    let e = serde_json::from_str::<Kind>("\"nope\"").unwrap_err();
    assert!(e.to_string().starts_with("unknown structure \"nope\"; known: "), "{e}");
}
