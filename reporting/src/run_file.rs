//! The run file: one JSON document per replay and structure, with the trace and its
//! provenance, the options, the git revision and the metrics. `reports/SCHEMA.md`
//! documents it; [`SCHEMA`] changes whenever a field changes meaning or goes away.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use oracle::OpKind;
use serde::{Deserialize, Serialize, Serializer};
use structures::{Config, Kind, Time};

use scheduling::replay::metrics::run_times;
pub use scheduling::replay::metrics::{
    quantiles, AttemptMetrics, Group, ScheduleMetrics, SizeGroup, Waits, LENGTH_GROUPS, QUANTILES, SIZE_GROUP,
};
use scheduling::replay::{as_reserved, box_stats, trimmed, unvisited, BoxStats, Options, Run};
use traces::swf::Trace;
use traces::workload::Workload;

use crate::error::{Error, Invalid, Result};
use crate::json_file;

/// The version of the run-file format.
pub const SCHEMA: u32 = 1;

/// One replay of one structure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFile {
    /// [`SCHEMA`] when written.
    pub schema: u32,
    /// The git revision of the build that wrote it.
    pub git_revision: String,
    /// The command line that wrote it (`resbench` and its arguments).
    pub command: String,
    /// The workload.
    pub trace: TraceInfo,
    /// The structure, by its command-line name.
    pub structure: Kind,
    /// Resources on the machine.
    pub capacity: u32,
    /// Slot width and horizon.
    pub config: Config,
    /// The scheduler's options.
    pub options: Options,
    /// The calls dropped at each end of each operation's series before summarising.
    pub trim: usize,
    /// Whether the oracle ran beside the structure (`wall_seconds` then includes it).
    pub verified: bool,
    /// Elapsed time of the run; one run, not a benchmark.
    pub wall_seconds: f64,
    /// What the structure did.
    pub operations: Operations,
    /// What the schedule achieved (the same for every structure).
    pub schedule: ScheduleMetrics,
    /// What the policy counted, by name (absent for policies that count nothing).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub policy_counts: BTreeMap<String, u64>,
    /// For the policies of fcfs-eds-slotted-array: `(time, utilisation)` of the
    /// [`WINDOW_SLOTS`]-slot window starting at each time (its Fig 4), at most
    /// [`WINDOW_POINTS`] windows, evenly spaced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub utilisation_windows: Vec<(Time, f64)>,
    /// For policies that retry (coallocation-2d-trees): attempts and waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<AttemptMetrics>,
    /// The runs `command` makes in all (structures × fractions, over every `--shard`),
    /// so that a report can tell a sweep with a shard missing (absent in files written
    /// before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_runs: Option<usize>,
}

/// The width of fcfs-eds-slotted-array's sliding utilisation window, in slots (section
/// 4: 12 slots of 5 minutes, an hour).
pub const WINDOW_SLOTS: u64 = 12;

/// The most windows a run file keeps.
pub const WINDOW_POINTS: u64 = 2_000;

/// Where the workload came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceInfo {
    /// The file name (or the synthetic generator's description).
    pub name: String,
    /// The header's comment lines: the archive's provenance.
    pub header: Vec<String>,
    /// The part of the trace replayed (`--since`/`--until`, `--limit`); `None` for all.
    pub selection: Option<String>,
    /// Jobs read.
    pub jobs_read: usize,
    /// Jobs not replayed, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Jobs given a new job number because theirs repeated an earlier one
    /// (`--renumber`); absent when none was.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub renumbered: usize,
    /// Requests replayed.
    pub requests: usize,
    /// The waits the trace logs for the requests replayed; absent for a synthetic
    /// workload, or a trace that logs none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_waits: Option<RecordedWaits>,
}

/// The waits a trace logs: how its own scheduler did on the machine it ran on
/// (coallocation-2d-trees' "recorded" baseline, section 5.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedWaits {
    /// Requests whose wait the log gives.
    pub jobs: u64,
    /// Requests whose wait it does not (`-1`).
    pub unknown: u64,
    /// Their mean, seconds.
    pub mean: f64,
    /// `(q, wait)`: their quantiles [`QUANTILES`], seconds.
    pub quantiles: Vec<(f64, Time)>,
}

impl RecordedWaits {
    /// The waits `workload`'s requests log, or `None` when none does.
    pub fn new(workload: &Workload) -> Option<Self> {
        let waits: Vec<Time> = workload.requests.iter().filter_map(|r| r.recorded_wait).collect();
        if waits.is_empty() {
            return None;
        }
        Some(Self {
            jobs: waits.len() as u64,
            unknown: (workload.requests.len() - waits.len()) as u64,
            mean: waits.iter().map(|&w| w as f64).sum::<f64>() / waits.len() as f64,
            quantiles: quantiles(waits),
        })
    }
}

// serde's `skip_serializing_if` takes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl TraceInfo {
    /// A short name for files: the trace's file name without `.swf`/`.gz` and without
    /// anything after a space (`synthetic` for a synthetic workload).
    pub fn stem(&self) -> String {
        let name = Path::new(&self.name).file_name().map_or("trace".into(), |n| n.to_string_lossy());
        let first = name.split(' ').next().unwrap_or_default();
        let stem = first.trim_end_matches(".gz").trim_end_matches(".swf");
        let stem: String = stem
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '-' })
            .collect();
        stem.trim_matches('-').to_owned()
    }
}

/// One operation's costs, after trimming.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpCosts {
    /// Calls made.
    pub calls: usize,
    /// Calls summarised (after trimming).
    pub kept: usize,
    /// The Figure 5 box of `visited / worst`; `None` without calls.
    pub ratio: Option<BoxStats>,
    /// The Figure 6 histogram: `(entries not visited, calls)`.
    pub unvisited: Vec<(u64, u64)>,
    /// The share of kept calls (with a worst case) that visited under 10 % of it: the
    /// rbtree-availability-profile's claim (section V) is that this is "often" so.
    pub below_tenth: f64,
    /// Of the kept calls at or above 10 %, the share whose worst case was at most 10
    /// entries: the paper's explanation for them.
    pub high_and_small: f64,
}

/// The structure's work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operations {
    /// Calls per operation, written in name order.
    #[serde(serialize_with = "in_name_order")]
    pub counts: BTreeMap<OpKind, u64>,
    /// `check`.
    pub check: OpCosts,
    /// `earliest`: rbtree-availability-profile's schedule operation.
    pub schedule: OpCosts,
    /// The structure's size (its own unit) at sampled events: `(time, size)`.
    pub sizes: Vec<(Time, u64)>,
}

/// Run files list the counts alphabetically, as they did when keyed by name, so that the
/// committed ones stay byte for byte what a new run writes ([`OpKind`]'s own order is
/// the trait's).
fn in_name_order<S: Serializer>(counts: &BTreeMap<OpKind, u64>, serializer: S) -> Result<S::Ok, S::Error> {
    let by_name: BTreeMap<&str, u64> = counts.iter().map(|(op, &n)| (op.name(), n)).collect();
    by_name.serialize(serializer)
}

fn costs(all: &[structures::Cost], trim: usize) -> OpCosts {
    let kept = trimmed(all, trim);
    let measured: Vec<_> = kept.iter().filter(|c| c.worst > 0).collect();
    let high: Vec<_> = measured.iter().filter(|c| 10 * c.visited >= c.worst).collect();
    let share = |part: usize, whole: usize| if whole == 0 { 0.0 } else { part as f64 / whole as f64 };
    OpCosts {
        calls: all.len(),
        kept: kept.len(),
        ratio: box_stats(kept),
        unvisited: unvisited(kept).into_iter().collect(),
        below_tenth: share(measured.len() - high.len(), measured.len()),
        high_and_small: share(high.iter().filter(|c| c.worst <= 10).count(), high.len()),
    }
}

/// The busy share of `capacity` in windows of `WINDOW_SLOTS` slots of width `slot`,
/// starting at every slot of the schedule's span (every `stride`-th, so that at most
/// [`WINDOW_POINTS`] are kept), each job busy from its start for its `ran`, in schedule
/// order (see [`run_times`]; its whole reservation where `None`).
fn window_utilisation(run: &Run, capacity: u32, slot: Time, ran: &[Option<Time>]) -> Vec<(Time, f64)> {
    // Busy resource-time up to `t` is piecewise linear, bending where a job starts or ends.
    let mut events: Vec<(Time, i64)> = Vec::with_capacity(2 * run.schedule.len());
    for (p, ran) in run.schedule.iter().zip(ran) {
        let n = p.set.count() as i64;
        events.push((p.start, n));
        events.push((p.start.saturating_add(ran.unwrap_or(p.end - p.start)), -n));
    }
    events.sort_unstable();
    let (Some(&(first, _)), Some(&(last, _))) = (events.first(), events.last()) else { return Vec::new() };
    let mut bends: Vec<(Time, f64, i64)> = Vec::with_capacity(events.len());
    let (mut area, mut rate, mut at) = (0.0_f64, 0_i64, first);
    for (t, delta) in events {
        area += rate as f64 * (t - at) as f64;
        (at, rate) = (t, rate + delta);
        match bends.last_mut() {
            Some(last) if last.0 == t => *last = (t, area, rate),
            _ => bends.push((t, area, rate)),
        }
    }
    let busy_until = |t: Time| {
        let k = bends.partition_point(|b| b.0 <= t).saturating_sub(1);
        let (bt, area, rate) = bends[k];
        area + rate as f64 * t.saturating_sub(bt) as f64
    };
    let first = first / slot * slot;
    let width = WINDOW_SLOTS * slot;
    let windows = last.saturating_sub(first).div_ceil(slot);
    let stride = windows.div_ceil(WINDOW_POINTS).max(1);
    let per_window = f64::from(capacity) * width as f64;
    (0..windows)
        .step_by(usize::try_from(stride).unwrap_or(usize::MAX))
        .map(|k| {
            let t = first + k * slot;
            (t, (busy_until(t.saturating_add(width)) - busy_until(t)) / per_window)
        })
        .collect()
}

/// What every structure of one replay ran under.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The command line (`resbench` and its arguments).
    pub command: String,
    /// The workload.
    pub trace: TraceInfo,
    /// Slot width and horizon, before a structure's own default horizon.
    pub config: Config,
    /// The scheduler's options.
    pub options: Options,
    /// Calls dropped at each end before summarising.
    pub trim: usize,
    /// The runs the command makes in all, over every shard.
    pub sweep_runs: Option<usize>,
}

impl RunFile {
    /// The record of `run` under `setup`.
    pub fn new(setup: &Setup, workload: &Workload, run: &Run) -> Self {
        let (trim, options) = (setup.trim, setup.options);
        let workload = &*as_reserved(workload, &options);
        Self {
            schema: SCHEMA,
            git_revision: crate::GIT_REVISION.to_owned(),
            command: setup.command.clone(),
            trace: setup.trace.clone(),
            structure: run.structure,
            capacity: workload.capacity,
            config: run.structure.config_for(setup.config),
            options,
            trim,
            verified: run.verified,
            wall_seconds: run.wall.as_secs_f64(),
            operations: Operations {
                counts: run.ops.clone(),
                check: costs(&run.checks, trim),
                schedule: costs(&run.searches, trim),
                sizes: run.sizes.clone(),
            },
            schedule: ScheduleMetrics::new(run, workload, options.mode),
            policy_counts: run.counts.iter().map(|(&k, &v)| (k.to_owned(), v)).collect(),
            utilisation_windows: match options.windows {
                Some(_) => window_utilisation(
                    run,
                    workload.capacity,
                    run.structure.config_for(setup.config).slot,
                    &run_times(run, workload, options.mode),
                ),
                None => Vec::new(),
            },
            attempts: AttemptMetrics::new(&run.trials),
            sweep_runs: setup.sweep_runs,
        }
    }

    /// Writes `DIR/<trace stem>[.<policy>][.ar<ρ>].<structure>.json` (the policy named
    /// unless it is the default, ρ unless it is 0) and returns its path.
    ///
    /// # Errors
    /// [`Error::CreateDir`] when the folder cannot be made, [`Error::Encode`], and
    /// [`Error::Write`] when the file cannot be written.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        fs::create_dir_all(dir).map_err(|cause| Error::CreateDir { path: dir.to_owned(), cause })?;
        // The default policy goes unnamed, as before there was a choice; others are named,
        // so that replays of several policies can share a folder.
        let policy = Some(self.options.policy)
            .filter(|&p| p != scheduling::policy::PolicyKind::default())
            .map_or(String::new(), |p| format!(".{p}"));
        // Likewise a share of advance reservations, so that a sweep over ρ shares one too.
        let rho =
            Some(self.options.ar_fraction).filter(|&r| r > 0.0).map_or(String::new(), |r| format!(".ar{r}"));
        // And the paper's counted model, beside our id-bound one.
        let model = if self.options.counted() { ".counted" } else { "" };
        // And a replay that could have compressed and did not, beside one that did.
        let compress = if self.options.uncompressed() { ".no-compress" } else { "" };
        let path =
            dir.join(format!("{}{policy}{model}{compress}{rho}.{}.json", self.trace.stem(), self.structure));
        // Compact: run files of whole traces are committed as published data.
        let json = serde_json::to_string(self).map_err(|cause| Error::Encode { what: "the run", cause })?;
        match fs::write(&path, json + "\n") {
            Ok(()) => Ok(path),
            Err(cause) => Err(Error::Write { path, cause }),
        }
    }

    /// Reads a run file, refusing another schema version.
    ///
    /// # Errors
    /// [`Error::Load`] when the file cannot be read, [`Error::NotJson`] or
    /// [`Error::Decode`] when it cannot be parsed, [`Error::Schema`] when it has another
    /// schema, and [`Error::Invalid`] when [`validate`](Self::validate) refuses it.
    pub fn read(path: &Path) -> Result<Self> {
        let (text, value) = json_file::read(path)?;
        json_file::check_schema(path, &value, SCHEMA)?;
        let file: Self = serde_json::from_str(&text).map_err(|cause| Error::Decode {
            path: path.to_owned(),
            kind: "a run file",
            cause,
        })?;
        file.validate().map_err(|why| Error::Invalid { path: path.to_owned(), why })?;
        Ok(file)
    }

    /// Checks the values a report plots and prints: a positive capacity, and shares and
    /// times that are finite and in range.
    ///
    /// # Errors
    /// [`Invalid::Capacity`], or [`Invalid::OutOfRange`] naming the first bad field and
    /// its value.
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.capacity == 0 {
            return Err(Invalid::Capacity);
        }
        let s = &self.schedule;
        let mut checks = vec![
            ("schedule.utilisation", s.utilisation, 1.0),
            ("schedule.mean_wait", s.mean_wait, f64::MAX),
            ("schedule.ar_mean_options", s.ar_mean_options, f64::MAX),
            ("wall_seconds", self.wall_seconds, f64::MAX),
        ];
        if let Some(a) = &self.attempts {
            checks.push(("attempts.mean_attempts", a.mean_attempts, f64::MAX));
            checks.push(("attempts.mean_wait", a.mean_wait, f64::MAX));
            for g in &a.by_size {
                checks.push(("attempts.by_size.mean_attempts", g.mean_attempts, f64::MAX));
                checks.push(("attempts.by_size.mean_wait", g.mean_wait, f64::MAX));
            }
            for &(q, p) in &a.penalty_quantiles {
                checks.push(("attempts.penalty_quantiles", q, 1.0));
                checks.push(("attempts.penalty_quantiles", p, f64::MAX));
            }
        }
        if let Some(w) = &s.waits {
            for g in w.by_size.iter().chain(&w.by_length) {
                checks.push(("schedule.waits.mean_wait", g.mean_wait, f64::MAX));
                checks.push(("schedule.waits.mean_penalty", g.mean_penalty, f64::MAX));
            }
        }
        if let Some(r) = &self.trace.recorded_waits {
            checks.push(("trace.recorded_waits.mean", r.mean, f64::MAX));
        }
        for (name, c) in [("check", &self.operations.check), ("schedule", &self.operations.schedule)] {
            checks.push((
                if name == "check" {
                    "operations.check.below_tenth"
                } else {
                    "operations.schedule.below_tenth"
                },
                c.below_tenth,
                1.0,
            ));
            checks.push((
                if name == "check" {
                    "operations.check.high_and_small"
                } else {
                    "operations.schedule.high_and_small"
                },
                c.high_and_small,
                1.0,
            ));
            if let Some(b) = &c.ratio {
                for value in [b.mean, b.low, b.q1, b.median, b.q3, b.high] {
                    checks.push((
                        if name == "check" { "operations.check.ratio" } else { "operations.schedule.ratio" },
                        value,
                        f64::MAX,
                    ));
                }
            }
        }
        // A share may exceed 1 by rounding only.
        for (name, value, max) in checks {
            if !(value.is_finite() && value >= 0.0 && value <= max * (1.0 + 1e-9)) {
                return Err(Invalid::OutOfRange { field: name, value, max });
            }
        }
        Ok(())
    }
}

/// The trace part of a run file.
pub fn trace_info(trace: &Trace, workload: &Workload, selection: Option<String>) -> TraceInfo {
    TraceInfo {
        renumbered: 0,
        name: trace.name.clone(),
        header: trace.header.lines.clone(),
        selection,
        jobs_read: trace.jobs.len(),
        skipped: workload.skipped.iter().map(|(k, v)| (k.describe().to_owned(), *v)).collect(),
        requests: workload.requests.len(),
        recorded_waits: RecordedWaits::new(workload),
    }
}
