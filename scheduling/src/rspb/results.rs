//! The figures' results as one JSON file, `rspb-figures.json`, that `resbench report`
//! renders (documented in `reports/SCHEMA.md`).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use structures::Kind;

use super::experiment::FigureResult;

/// The file's `kind`.
pub const RSPB_KIND: &str = "rspb-figures";

/// The version of its format.
pub const RSPB_SCHEMA: u32 = 1;

/// Its name in the folder it is written to.
pub const RSPB_FILE: &str = "rspb-figures.json";

/// Why a results file could not be written or read, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// The folder cannot be created.
    #[error("cannot create {}", dir.display())]
    CreateDir {
        /// The folder.
        dir: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// The results cannot be encoded as JSON.
    #[error("cannot encode the results")]
    Encode(#[source] serde_json::Error),
    /// The file cannot be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// The file cannot be read: missing, too large or not UTF-8.
    #[error("{why}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why, naming the file ([`traces::limits::read_file`]'s message).
        why: String,
    },
    /// The file is not JSON.
    #[error("{}: not JSON", path.display())]
    NotJson {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        #[source]
        source: serde_json::Error,
    },
    /// The file is JSON of another kind.
    #[error("{}: not an rspb results file (no \"kind\": \"{RSPB_KIND}\")", path.display())]
    OtherKind {
        /// The file.
        path: PathBuf,
    },
    /// The file has another schema version, or none.
    #[error("{}: schema {schema:?}, this build reads {RSPB_SCHEMA}", path.display())]
    Schema {
        /// The file.
        path: PathBuf,
        /// The schema it gives, if any.
        schema: Option<u64>,
    },
    /// The file says it holds rspb results but does not parse as them.
    #[error("{}: not an rspb results file", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        #[source]
        source: serde_json::Error,
    },
    /// The results parse but fail [`ResultsFile::validate`].
    #[error("{}: {invalid}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        invalid: InvalidResults,
    },
}

/// What is wrong with a results file's figures, naming the figure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvalidResults {
    /// A figure without a curve.
    #[error("figure {figure}: no series")]
    NoSeries {
        /// The figure's number.
        figure: String,
    },
    /// A figure whose curves are empty or of different lengths.
    #[error("figure {figure}: its series must have the same number of points, at least one")]
    Points {
        /// The figure's number.
        figure: String,
    },
    /// A value that is not a finite, non-negative number.
    #[error("figure {figure}, {algorithm}: a value at x = {x} is not a finite, non-negative number")]
    Value {
        /// The figure's number.
        figure: String,
        /// The curve's algorithm.
        algorithm: String,
        /// The point's x value.
        x: f64,
    },
}

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
    /// When the folder or file cannot be written ([`ResultsError`]).
    pub fn write(&self, dir: &Path) -> Result<PathBuf, ResultsError> {
        fs::create_dir_all(dir)
            .map_err(|source| ResultsError::CreateDir { dir: dir.to_path_buf(), source })?;
        let path = dir.join(RSPB_FILE);
        let json = serde_json::to_string_pretty(self).map_err(ResultsError::Encode)?;
        match fs::write(&path, json + "\n") {
            Ok(()) => Ok(path),
            Err(source) => Err(ResultsError::Write { path, source }),
        }
    }

    /// Reads one, refusing another kind or schema.
    ///
    /// # Errors
    /// When it cannot be read or parsed, is another kind or schema, or fails
    /// [`ResultsFile::validate`] ([`ResultsError`]).
    pub fn read(path: &Path) -> Result<Self, ResultsError> {
        let text = traces::limits::read_file(path)
            .map_err(|why| ResultsError::Read { path: path.to_path_buf(), why: why.to_string() })?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|source| ResultsError::NotJson { path: path.to_path_buf(), source })?;
        if !is_rspb_file(&value) {
            return Err(ResultsError::OtherKind { path: path.to_path_buf() });
        }
        let schema = value.get("schema").and_then(serde_json::Value::as_u64);
        if schema != Some(u64::from(RSPB_SCHEMA)) {
            return Err(ResultsError::Schema { path: path.to_path_buf(), schema });
        }
        let file: Self = serde_json::from_value(value)
            .map_err(|source| ResultsError::Parse { path: path.to_path_buf(), source })?;
        file.validate().map_err(|invalid| ResultsError::Invalid { path: path.to_path_buf(), invalid })?;
        Ok(file)
    }

    /// Checks what the report relies on: every figure has curves of one common,
    /// non-zero length, and every value is a finite number, none negative.
    ///
    /// # Errors
    /// An [`InvalidResults`] naming the figure and what is wrong.
    pub fn validate(&self) -> Result<(), InvalidResults> {
        for f in &self.figures {
            let Some(first) = f.series.first() else {
                return Err(InvalidResults::NoSeries { figure: f.id.clone() });
            };
            let points = first.points.len();
            if points == 0 || f.series.iter().any(|s| s.points.len() != points) {
                return Err(InvalidResults::Points { figure: f.id.clone() });
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
                    return Err(InvalidResults::Value {
                        figure: f.id.clone(),
                        algorithm: s.algorithm.clone(),
                        x: p.x,
                    });
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
