//! The figures' results as one JSON file, `rspb-figures.json`, that `resbench report`
//! renders (documented in `reports/SCHEMA.md`).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use structures::Kind;

use super::experiment::{figure_results, figures, sweep, FigureResult, Sample};
use super::Algorithm;

/// The file's `kind`.
pub const RSPB_KIND: &str = "rspb-figures";

/// The version of its format.
pub const RSPB_SCHEMA: u32 = 1;

/// Its name in the folder it is written to.
pub const RSPB_FILE: &str = "rspb-figures.json";

/// A part file's `kind`.
pub const RSPB_PART_KIND: &str = "rspb-figures-part";

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
    #[error("{}: not an rspb {} file (no \"kind\": \"{kind}\")", path.display(), if kind == RSPB_KIND { "results" } else { "part" })]
    OtherKind {
        /// The file.
        path: PathBuf,
        /// The kind it should be.
        kind: String,
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
    /// Part files that do not add up to one sweep.
    #[error("{why}")]
    Parts {
        /// What is missing, extra or mismatched, naming the file.
        why: String,
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
        write_json(dir, RSPB_FILE, self)
    }

    /// Reads one, refusing another kind or schema.
    ///
    /// # Errors
    /// When it cannot be read or parsed, is another kind or schema, or fails
    /// [`ResultsFile::validate`] ([`ResultsError`]).
    pub fn read(path: &Path) -> Result<Self, ResultsError> {
        let value = read_json(path, RSPB_KIND)?;
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

/// One shard's part of a `resbench rspb --figure` sweep (`--shard K/N`): its samples,
/// and what identifies the sweep, so that [`merge`] can check the parts add up to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartFile {
    /// [`RSPB_PART_KIND`].
    pub kind: String,
    /// [`RSPB_SCHEMA`].
    pub schema: u32,
    /// The commit the binary was built from.
    pub git_revision: String,
    /// The sweep's command line, without `--shard` and `-j`.
    pub command: String,
    /// The structure every machine's table was.
    pub structure: Kind,
    /// The first RNG seed.
    pub first_seed: u64,
    /// Workloads per point.
    pub seeds: u64,
    /// The sweep's figures, by id, in its order.
    pub figures: Vec<String>,
    /// Which part, from 1.
    pub part: u32,
    /// Of how many.
    pub parts: u32,
    /// The part's runs, in the sweep's order.
    pub samples: Vec<Sample>,
}

impl PartFile {
    /// Its name in its folder: `rspb-part-K-of-N.json`.
    pub fn name(&self) -> String {
        format!("rspb-part-{}-of-{}.json", self.part, self.parts)
    }

    /// Writes it into `dir` as [`PartFile::name`].
    ///
    /// # Errors
    /// When the folder or file cannot be written ([`ResultsError`]).
    pub fn write(&self, dir: &Path) -> Result<PathBuf, ResultsError> {
        write_json(dir, &self.name(), self)
    }

    /// Reads one, refusing another kind or schema.
    ///
    /// # Errors
    /// When it cannot be read or parsed, or is another kind or schema ([`ResultsError`]).
    pub fn read(path: &Path) -> Result<Self, ResultsError> {
        let value = read_json(path, RSPB_PART_KIND)?;
        serde_json::from_value(value)
            .map_err(|source| ResultsError::Parse { path: path.to_path_buf(), source })
    }
}

/// The results file the parts of one sweep add up to, byte for byte the one a single run
/// writes: the parts must be all `parts` of one sweep (same command, build, structure,
/// seeds and figures), each once, and hold exactly the sweep's runs between them.
///
/// # Errors
/// [`ResultsError::Parts`] naming the part and what does not add up, or
/// [`ResultsError::Invalid`] when the merged results fail [`ResultsFile::validate`].
pub fn merge(parts: &[(PathBuf, PartFile)]) -> Result<ResultsFile, ResultsError> {
    let parts_error = |why: String| ResultsError::Parts { why };
    let Some((first_path, first)) = parts.first() else { return Err(parts_error("no part files".into())) };
    let same = |p: &PartFile| {
        (&p.command, &p.git_revision, p.structure, p.first_seed, p.seeds, &p.figures, p.parts)
            == (
                &first.command,
                &first.git_revision,
                first.structure,
                first.first_seed,
                first.seeds,
                &first.figures,
                first.parts,
            )
    };
    if let Some((path, _)) = parts.iter().find(|(_, p)| !same(p)) {
        return Err(parts_error(format!(
            "{}: a part of another sweep than {}'s (command, build, structure, seeds, figures or part count differ)",
            path.display(),
            first_path.display()
        )));
    }
    if !(1..=traces::limits::MAX_SHARDS).contains(&first.parts) {
        return Err(parts_error(format!(
            "{}: {} parts, beyond 1 to {} (the shard limit)",
            first_path.display(),
            first.parts,
            traces::limits::MAX_SHARDS
        )));
    }
    let mut seen = vec![false; first.parts as usize];
    for (path, p) in parts {
        match seen.get_mut((p.part as usize).wrapping_sub(1)) {
            Some(done) if !*done => *done = true,
            Some(_) => {
                return Err(parts_error(format!(
                    "{}: part {} of {} given twice",
                    path.display(),
                    p.part,
                    p.parts
                )))
            }
            None => {
                return Err(parts_error(format!(
                    "{}: part {} of {} is not a part",
                    path.display(),
                    p.part,
                    p.parts
                )))
            }
        }
    }
    if let Some(missing) = seen.iter().position(|&done| !done) {
        return Err(parts_error(format!(
            "part {} of {} of `{}` is missing: run every --shard K/N of the sweep first",
            missing + 1,
            first.parts,
            first.command
        )));
    }
    let known = figures();
    let chosen = first
        .figures
        .iter()
        .map(|id| known.iter().find(|f| f.id == id))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| parts_error(format!("{}: a figure this build does not know", first_path.display())))?;
    let runs = sweep(&chosen, first.first_seed, first.seeds).map_err(|e| parts_error(e.to_string()))?;
    // Every sample in the sweep's order; each must be one of its runs, with a run per
    // algorithm of its figure's chapter.
    let mut placed: Vec<Option<&Sample>> = vec![None; runs.len()];
    for (path, p) in parts {
        for sample in &p.samples {
            let at = chosen
                .iter()
                .position(|f| f.id == sample.figure)
                .and_then(|f| runs.binary_search(&(f, sample.point, sample.seed)).ok());
            let fits =
                |f: usize| sample.runs.len() == Algorithm::of_chapter(chosen[runs[f].0].chapter()).len();
            match at {
                Some(i) if placed[i].is_none() && fits(i) => placed[i] = Some(sample),
                _ => {
                    return Err(parts_error(format!(
                        "{}: the sample of figure {}, point {}, seed {} is not a run of the sweep, is there twice, or lacks an algorithm",
                        path.display(),
                        sample.figure,
                        sample.point,
                        sample.seed
                    )))
                }
            }
        }
    }
    if let Some(i) = placed.iter().position(Option::is_none) {
        let (f, point, seed) = runs[i];
        return Err(parts_error(format!(
            "no part holds figure {}, point {point}, seed {seed} of `{}`",
            chosen[f].id, first.command
        )));
    }
    let placed: Vec<Sample> = placed.into_iter().flatten().cloned().collect();
    let figures = figure_results(&chosen, &placed, first.seeds);
    let file = ResultsFile {
        kind: RSPB_KIND.to_owned(),
        schema: RSPB_SCHEMA,
        git_revision: first.git_revision.clone(),
        command: first.command.clone(),
        structure: first.structure,
        first_seed: first.first_seed,
        seeds: first.seeds,
        figures,
    };
    file.validate().map_err(|invalid| ResultsError::Invalid { path: first_path.clone(), invalid })?;
    Ok(file)
}

/// Writes `value` as pretty JSON into `dir` as `name`.
fn write_json(dir: &Path, name: &str, value: &impl Serialize) -> Result<PathBuf, ResultsError> {
    fs::create_dir_all(dir).map_err(|source| ResultsError::CreateDir { dir: dir.to_path_buf(), source })?;
    let path = dir.join(name);
    let json = serde_json::to_string_pretty(value).map_err(ResultsError::Encode)?;
    match fs::write(&path, json + "\n") {
        Ok(()) => Ok(path),
        Err(source) => Err(ResultsError::Write { path, source }),
    }
}

/// Reads a JSON file of `kind` at [`RSPB_SCHEMA`].
fn read_json(path: &Path, kind: &str) -> Result<serde_json::Value, ResultsError> {
    let text = traces::limits::read_file(path)
        .map_err(|why| ResultsError::Read { path: path.to_path_buf(), why: why.to_string() })?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|source| ResultsError::NotJson { path: path.to_path_buf(), source })?;
    if value.get("kind").and_then(serde_json::Value::as_str) != Some(kind) {
        return Err(ResultsError::OtherKind { path: path.to_path_buf(), kind: kind.to_owned() });
    }
    let schema = value.get("schema").and_then(serde_json::Value::as_u64);
    if schema != Some(u64::from(RSPB_SCHEMA)) {
        return Err(ResultsError::Schema { path: path.to_path_buf(), schema });
    }
    Ok(value)
}

/// Whether a parsed JSON file says it is one shard's part of an rspb sweep.
pub fn is_rspb_part(value: &serde_json::Value) -> bool {
    value.get("kind").and_then(serde_json::Value::as_str) == Some(RSPB_PART_KIND)
}

/// Whether a parsed JSON file says it holds rspb results.
pub fn is_rspb_file(value: &serde_json::Value) -> bool {
    value.get("kind").and_then(serde_json::Value::as_str) == Some(RSPB_KIND)
}
