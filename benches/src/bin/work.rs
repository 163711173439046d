//! Prints the deterministic work suite as JSON: `work [--out FILE]`. `ci/gate` compares
//! it with `ci/baseline.json`; writing it to that file refreshes the baseline.

use std::fs;

use anyhow::{bail, Context, Result};
use benches::{states, work};
use structures::Kind;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = match args.as_slice() {
        [] => None,
        [flag, path] if flag == "--out" => Some(path.clone()),
        _ => bail!("usage: work [--out FILE]"),
    };
    let measured = work::measure(&states::all(), &Kind::ALL).map_err(anyhow::Error::msg)?;
    let json = serde_json::to_string_pretty(&measured)? + "\n";
    match out {
        Some(path) => fs::write(&path, json).with_context(|| format!("cannot write {path}"))?,
        None => print!("{json}"),
    }
    Ok(())
}
