//! Collecting one benchmark run into a [`BenchFile`](reporting::bench_file::BenchFile):
//! criterion's medians, gungraun's instruction counts, the work suite's visited and
//! worst cases, and the machine.

use std::fs;
use std::path::Path;
use std::process::Command;

use reporting::bench_file::{BenchResult, Machine, REPLAY};

use crate::files::read_json;
use crate::gate::{Instructions, ResultsError};
use crate::work::Work;

/// Every criterion result under `dir` (`<group>/<function>/<value>/new/`): group names
/// with an `uncounted/` prefix are the `uncounted` build. `size` gives a state's entries
/// (`None` for a replay, whose size is its jobs).
///
/// # Errors
/// A result folder whose files cannot be read or lack the fields criterion writes
/// ([`ResultsError`]).
pub fn criterion(dir: &Path, size: &dyn Fn(&str) -> Option<u64>) -> Result<Vec<BenchResult>, ResultsError> {
    let mut found = crate::files::named(dir, "new")?
        .iter()
        .map(|path| read_result(path, size))
        .collect::<Result<Vec<_>, _>>()?;
    found.sort_by(|a, b| {
        (&a.operation, a.counted, &a.state, &a.structure).cmp(&(
            &b.operation,
            b.counted,
            &b.state,
            &b.structure,
        ))
    });
    Ok(found)
}

fn read_result(dir: &Path, size: &dyn Fn(&str) -> Option<u64>) -> Result<BenchResult, ResultsError> {
    let bench = read_json(&dir.join("benchmark.json"))?;
    let estimates = read_json(&dir.join("estimates.json"))?;
    let bad = |field: &str| ResultsError::Missing { path: dir.to_path_buf(), what: field.to_owned() };
    let text = |key: &str| bench[key].as_str().map(str::to_owned).ok_or_else(|| bad(key));
    let group = text("group_id")?;
    let (counted, operation) = match group.strip_prefix(crate::UNCOUNTED) {
        Some(op) => (false, op.to_owned()),
        None => (true, group.clone()),
    };
    let state = text("value_str")?;
    let calls = bench["throughput"]["Elements"].as_u64().ok_or_else(|| bad("throughput"))?;
    let number = |path: [&str; 3]| {
        let value = &estimates[path[0]];
        let value = if path[1].is_empty() { value } else { &value[path[1]] };
        value[path[2]].as_f64().ok_or_else(|| bad(&path.join(".")))
    };
    Ok(BenchResult {
        structure: text("function_id")?,
        // A replay's name can match a state's (`kth-5000`); its size is its jobs.
        size: if operation == REPLAY { calls } else { size(&state).unwrap_or(calls) },
        operation,
        counted,
        state,
        calls,
        median_ns: number(["median", "", "point_estimate"])?,
        low_ns: number(["median", "confidence_interval", "lower_bound"])?,
        high_ns: number(["median", "confidence_interval", "upper_bound"])?,
        mad_ns: number(["median_abs_dev", "", "point_estimate"])?,
        instructions: None,
        visited: None,
        worst: None,
    })
}

/// Adds gungraun's instruction counts and the work suite's counts to the counted
/// results they measure.
pub fn annotate(results: &mut [BenchResult], instructions: &[Instructions], work: &[Work]) {
    for r in results.iter_mut().filter(|r| r.counted) {
        let key = (r.structure.as_str(), r.operation.as_str(), r.state.as_str());
        r.instructions = instructions
            .iter()
            .find(|i| (i.structure.as_str(), i.op.name(), i.state.as_str()) == key)
            .map(|i| i.instructions);
        if let Some(w) = work.iter().find(|w| (w.structure.as_str(), w.op.name(), w.state.as_str()) == key) {
            (r.visited, r.worst) = (Some(w.visited), Some(w.worst));
        }
    }
}

fn first_line(text: &str, key: &str) -> Option<String> {
    text.lines().find(|l| l.starts_with(key)).and_then(|l| l.split(':').nth(1)).map(|v| v.trim().to_owned())
}

/// This machine, as far as `/proc` and `rustc` tell.
pub fn machine() -> Machine {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib: f64 = first_line(&meminfo, "MemTotal")
        .and_then(|v| v.trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    Machine {
        cpu: first_line(&cpuinfo, "model name").unwrap_or_else(|| "unknown".into()),
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        memory_gib: kib / 1024.0 / 1024.0,
        os: format!("{} {} {}", std::env::consts::OS, kernel.trim(), std::env::consts::ARCH),
        rustc: output("rustc", &["--version"]).unwrap_or_else(|| "unknown".into()),
    }
}

/// `git describe --always --dirty` of the working tree, else the build's revision.
pub fn revision() -> String {
    output("git", &["describe", "--always", "--dirty", "--abbrev=12"])
        .unwrap_or_else(|| reporting::GIT_REVISION.chars().take(12).collect())
}

fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok().filter(|o| o.status.success())?;
    String::from_utf8(out.stdout).ok().map(|s| s.trim().to_owned())
}
