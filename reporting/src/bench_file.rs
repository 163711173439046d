//! Benchmark result files: one JSON file per benchmark run, written once into
//! `reports/benchmarks/runs/` and never overwritten, read by `resbench report`. The
//! schema is documented in `reports/SCHEMA.md`.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Invalid, Result};
use crate::json_file;
use serde::{Deserialize, Serialize};

/// The version of the format below; bumped on any incompatible change.
pub const BENCH_SCHEMA: u32 = 1;

/// What a file says it is, so `resbench report` can tell it from a replay's run file.
pub const BENCH_KIND: &str = "benchmarks";

/// The operation of a whole-replay result: the benchmark group beside the index
/// operations of [`OpKind::MEASURED`](oracle::OpKind::MEASURED), timed per job rather than per call.
pub const REPLAY: &str = "replay";

/// One benchmark run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchFile {
    /// [`BENCH_SCHEMA`].
    pub schema: u32,
    /// [`BENCH_KIND`].
    pub kind: String,
    /// `git describe --always --dirty` of the measured tree.
    pub revision: String,
    /// When the results were collected, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub recorded: String,
    /// Where they were measured.
    pub machine: Machine,
    /// One entry per benchmark.
    pub results: Vec<BenchResult>,
    /// Heap bytes each structure holds per state.
    pub memory: Vec<Memory>,
}

/// The machine a run measured on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// CPU model, from `/proc/cpuinfo`.
    pub cpu: String,
    /// Logical cores.
    pub cores: usize,
    /// Memory, GiB.
    pub memory_gib: f64,
    /// Operating system and architecture.
    pub os: String,
    /// `rustc --version`.
    pub rustc: String,
}

/// One benchmark: one operation of one structure on one state (or one whole replay).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchResult {
    /// The structure.
    pub structure: String,
    /// The benchmark group: the [name](oracle::OpKind::name) of one of
    /// [`OpKind::MEASURED`](oracle::OpKind::MEASURED), or [`REPLAY`].
    pub operation: String,
    /// Whether the structures counted their work (`false`: built with `uncounted`).
    pub counted: bool,
    /// The state (or trace prefix, for a replay).
    pub state: String,
    /// Profile entries of the state (jobs, for a replay).
    pub size: u64,
    /// Calls (jobs, for a replay) per iteration.
    pub calls: u64,
    /// Criterion's median time per iteration, ns.
    pub median_ns: f64,
    /// The lower bound of its 95 % confidence interval, ns.
    pub low_ns: f64,
    /// The upper bound, ns.
    pub high_ns: f64,
    /// Median absolute deviation of the samples, ns.
    pub mad_ns: f64,
    /// Instructions gungraun counted for the operation's fixed calls, when measured.
    pub instructions: Option<u64>,
    /// Visited work of the work suite's calls on this state (check and earliest only).
    pub visited: Option<u64>,
    /// Their summed worst cases.
    pub worst: Option<u64>,
}

impl BenchResult {
    /// Median time per call, ns.
    pub fn per_call_ns(&self) -> f64 {
        self.median_ns / self.calls.max(1) as f64
    }
}

/// The heap one structure holds for one state, measured by a counting allocator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// The structure.
    pub structure: String,
    /// The state.
    pub state: String,
    /// Profile entries of the state.
    pub entries: u64,
    /// Bytes allocated and not freed while building it.
    pub bytes: u64,
}

impl BenchFile {
    /// Writes the file into `dir` as `<recorded>-<revision>.json`, refusing to overwrite
    /// an existing file (results are appended, never replaced).
    ///
    /// # Errors
    /// [`Error::CreateDir`] when the folder cannot be created, [`Error::CreateNew`] when
    /// the file exists already or cannot be created, [`Error::Encode`], and
    /// [`Error::Write`] when it cannot be written.
    pub fn write_new(&self, dir: &Path) -> Result<PathBuf> {
        fs::create_dir_all(dir).map_err(|cause| Error::CreateDir { path: dir.to_owned(), cause })?;
        let stamp = self.recorded.replace(':', "");
        let path = dir.join(format!("{stamp}-{}.json", self.revision));
        let mut file = match fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => file,
            Err(cause) => return Err(Error::CreateNew { path, cause }),
        };
        let json = serde_json::to_string_pretty(self)
            .map_err(|cause| Error::Encode { what: "the results", cause })?;
        match file.write_all((json + "\n").as_bytes()) {
            Ok(()) => Ok(path),
            Err(cause) => Err(Error::Write { path, cause }),
        }
    }

    /// Reads a benchmark file, refusing another schema version.
    ///
    /// # Errors
    /// [`Error::Load`] when the file cannot be read, [`Error::NotJson`] or
    /// [`Error::Decode`] when it cannot be parsed, [`Error::NotBenchFile`] or
    /// [`Error::Schema`] when it has another kind or schema, and [`Error::Invalid`] when
    /// [`validate`](Self::validate) refuses it.
    pub fn read(path: &Path) -> Result<Self> {
        let (_, value) = json_file::read(path)?;
        if !is_bench_file(&value) {
            return Err(Error::NotBenchFile { path: path.to_owned(), kind: BENCH_KIND });
        }
        json_file::check_schema(path, &value, BENCH_SCHEMA)?;
        let file: Self = serde_json::from_value(value).map_err(|cause| Error::Decode {
            path: path.to_owned(),
            kind: "a benchmark file",
            cause,
        })?;
        file.validate().map_err(|why| Error::Invalid { path: path.to_owned(), why })?;
        Ok(file)
    }

    /// Checks the values a report divides by and plots: times finite and non-negative,
    /// and each median positive (ratios divide by the fastest).
    ///
    /// # Errors
    /// [`Invalid::Time`] naming the first bad result and field, or [`Invalid::Memory`].
    pub fn validate(&self) -> Result<(), Invalid> {
        for (i, r) in self.results.iter().enumerate() {
            let fields = [
                ("median_ns", r.median_ns),
                ("low_ns", r.low_ns),
                ("high_ns", r.high_ns),
                ("mad_ns", r.mad_ns),
            ];
            for (name, value) in fields {
                if !(value.is_finite() && value >= 0.0) || (name == "median_ns" && value == 0.0) {
                    return Err(Invalid::Time {
                        index: i,
                        structure: r.structure.clone(),
                        operation: r.operation.clone(),
                        state: r.state.clone(),
                        field: name,
                        value,
                    });
                }
            }
        }
        if !(self.machine.memory_gib.is_finite() && self.machine.memory_gib >= 0.0) {
            return Err(Invalid::Memory(self.machine.memory_gib));
        }
        Ok(())
    }
}

/// Whether a parsed JSON file says it holds benchmark results.
pub fn is_bench_file(value: &serde_json::Value) -> bool {
    value.get("kind").and_then(serde_json::Value::as_str) == Some(BENCH_KIND)
}
