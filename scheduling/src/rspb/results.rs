//! The figures' results as one JSON file, `rspb-figures.json`, that `resbench report`
//! renders (documented in `reports/SCHEMA.md`).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use structures::Kind;

use super::experiment::FigureResult;

/// The file's `kind`.
pub const RSPB_KIND: &str = "rspb-figures";

/// The version of its format.
pub const RSPB_SCHEMA: u32 = 1;

/// Its name in the folder it is written to.
pub const RSPB_FILE: &str = "rspb-figures.json";

/// The results of one `resbench rspb --figure` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultsFile {
    /// [`RSPB_KIND`].
    pub kind: String,
    /// [`RSPB_SCHEMA`].
    pub schema: u32,
    /// The commit the binary was built from.
    pub git_revision: String,
    /// The command line that wrote it.
    pub command: String,
    /// The structure every machine's table was.
    pub structure: Kind,
    /// The first RNG seed; each point used `seeds` from it.
    pub first_seed: u64,
    /// Workloads per point.
    pub seeds: u64,
    /// The figures run.
    pub figures: Vec<FigureResult>,
}

impl ResultsFile {
    /// Writes it into `dir` as [`RSPB_FILE`].
    ///
    /// # Errors
    /// When the folder or file cannot be written.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(RSPB_FILE);
        let json = serde_json::to_string_pretty(self).context("cannot encode the results")?;
        fs::write(&path, json + "\n").with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }

    /// Reads one, refusing another kind or schema.
    ///
    /// # Errors
    /// When it cannot be read or parsed, or is another kind or schema.
    pub fn read(path: &Path) -> Result<Self> {
        let text = traces::limits::read_file(path).map_err(anyhow::Error::msg)?;
        let value: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
        if !is_rspb_file(&value) {
            bail!("{}: not an rspb results file (no \"kind\": \"{RSPB_KIND}\")", path.display());
        }
        let schema = value.get("schema").and_then(serde_json::Value::as_u64);
        if schema != Some(u64::from(RSPB_SCHEMA)) {
            bail!("{}: schema {schema:?}, this build reads {RSPB_SCHEMA}", path.display());
        }
        let file: Self = serde_json::from_value(value)
            .with_context(|| format!("{}: not an rspb results file", path.display()))?;
        file.validate().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(file)
    }

    /// Checks what the report relies on: every figure has curves of one common,
    /// non-zero length, and every value is a finite number, none negative.
    ///
    /// # Errors
    /// A message naming the figure and what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        for f in &self.figures {
            let Some(first) = f.series.first() else { return Err(format!("figure {}: no series", f.id)) };
            let points = first.points.len();
            if points == 0 || f.series.iter().any(|s| s.points.len() != points) {
                return Err(format!(
                    "figure {}: its series must have the same number of points, at least one",
                    f.id
                ));
            }
            for (s, p) in f.series.iter().flat_map(|s| s.points.iter().map(move |p| (s, p))) {
                let values = [
                    p.requests,
                    p.rejected,
                    p.rejected_priority,
                    p.reserved_cpu,
                    p.requested_cpu,
                    p.system_benefit,
                    p.ops_per_request,
                ];
                if !p.x.is_finite()
                    || values.iter().any(|e| {
                        !(e.mean.is_finite() && e.half.is_finite() && e.mean >= 0.0 && e.half >= 0.0)
                    })
                {
                    return Err(format!(
                        "figure {}, {}: a value at x = {} is not a finite, non-negative number",
                        f.id, s.algorithm, p.x
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Whether a parsed JSON file says it holds rspb results.
pub fn is_rspb_file(value: &serde_json::Value) -> bool {
    value.get("kind").and_then(serde_json::Value::as_str) == Some(RSPB_KIND)
}
