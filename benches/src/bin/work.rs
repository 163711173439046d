//! `work [--instructions GUNGRAUN_DIR] [--out FILE]`: measures the deterministic work
//! suite (and reads gungraun's instruction counts, when given their folder) and prints
//! or writes them as JSON. `ci/gate` compares that with `ci/baseline.json`; writing it
//! to that file refreshes the baseline.

use std::fs;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use benches::gate::{read_gungraun, Measurements};
use benches::{states, work};
use structures::Kind;

fn main() -> Result<()> {
    let (mut out, mut instructions): (Option<PathBuf>, Option<PathBuf>) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().map(PathBuf::from);
        match (flag.as_str(), value) {
            ("--out", Some(path)) => out = Some(path),
            ("--instructions", Some(dir)) => instructions = Some(dir),
            _ => bail!("usage: work [--instructions GUNGRAUN_DIR] [--out FILE]"),
        }
    }
    let measured = Measurements {
        work: work::measure(&states::gated(), Kind::ALL).map_err(anyhow::Error::msg)?,
        instructions: match instructions {
            Some(dir) => read_gungraun(&dir).map_err(anyhow::Error::msg)?,
            None => Vec::new(),
        },
    };
    let json = serde_json::to_string_pretty(&measured)? + "\n";
    match out {
        Some(path) => fs::write(&path, json).with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{json}"),
    }
    Ok(())
}
