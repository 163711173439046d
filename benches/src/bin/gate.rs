//! `gate BASELINE CURRENT [THRESHOLD%]`: fails, naming the structure, operation and
//! state, when the current work or instruction count grew past the threshold (5 %
//! unless given).

use std::fs;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use benches::gate::{regressions, Measurements};

fn read(path: &str) -> Result<Measurements> {
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    serde_json::from_str(&text).with_context(|| format!("{path}: not a measurements file"))
}

fn main() -> Result<ExitCode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (baseline, current, threshold) = match args.as_slice() {
        [b, c] => (b, c, 5.0),
        [b, c, t] => (b, c, t.parse::<f64>().with_context(|| format!("threshold {t:?}"))?),
        _ => bail!("usage: gate BASELINE CURRENT [THRESHOLD%]"),
    };
    let (baseline, current) = (read(baseline)?, read(current)?);
    let failures = regressions(&baseline, &current, threshold);
    if failures.is_empty() {
        println!(
            "gate: {} work and {} instruction measurements within {threshold} % of the baseline",
            baseline.work.len(),
            baseline.instructions.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    for failure in &failures {
        println!("gate: {failure}");
    }
    Ok(ExitCode::FAILURE)
}
