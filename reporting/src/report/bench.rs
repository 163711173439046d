//! The performance report: benchmark files in, `index.md` and `index.html` out, with a
//! log-log growth plot per operation, speed ratios against the fastest structure,
//! growth exponents beside the theoretical ones, memory per entry, what the cost
//! accounting adds, the machine, the resource sets, and the newest run beside the one
//! before it.
//! Optionally rewrites the README's summary.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::doc::{self, Block};
use super::plots::{self, Series};
use oracle::OpKind;
use structures::registry::Bound;
use structures::{Kind, MAX_SLOTS};

use crate::bench_file::{BenchFile, BenchResult, Memory, REPLAY};

/// The benchmark groups, in the order the report lists them: the index operations, then
/// whole replays.
fn groups() -> impl Iterator<Item = &'static str> {
    OpKind::MEASURED.into_iter().map(OpKind::name).chain([REPLAY])
}

/// The README lines between which `--readme` writes the summary.
pub const README_BEGIN: &str = "<!-- benchmark-summary:begin (written by resbench report --readme) -->";
/// See [`README_BEGIN`].
pub const README_END: &str = "<!-- benchmark-summary:end -->";

/// The growth the seeded calls should show against profile entries n, on synthetic
/// states of constant density (so a window of at most 64 slots meets a bounded number of
/// entries whatever n is): the structure's registry bound for `op`, as counted (the
/// growth runs keep the cost accounting).
fn theory(structure: &str, op: OpKind) -> Bound {
    let Ok(kind) = structure.parse::<Kind>() else {
        return Bound { text: "not stated: not a registered structure", exponent: f64::NAN };
    };
    let t = kind.spec().theory;
    match (op, t.counted_queries) {
        (OpKind::Check | OpKind::Earliest, Some(counted)) => counted,
        (OpKind::Check, _) => t.check,
        (OpKind::Earliest, _) => t.earliest,
        (OpKind::Allocate, _) => t.allocate,
        (OpKind::Release, _) => t.release,
        (OpKind::FreeFrames, _) => t.free_frames,
        (OpKind::Options, _) => t.options,
        (OpKind::LoadFrames | OpKind::Advance, _) => Bound { text: "not measured", exponent: f64::NAN },
    }
}

/// Every registered structure's bounds, from the registry.
fn theory_table() -> Block {
    let header = ["structure", "source"].into_iter().chain(groups()).map(String::from).collect();
    let rows = Kind::ALL
        .iter()
        .map(|&kind| {
            let spec = kind.spec();
            let source = spec.source.to_string();
            let bounds = OpKind::MEASURED.map(|op| theory(kind.name(), op).text.to_owned());
            [kind.name().to_owned(), source]
                .into_iter()
                .chain(bounds)
                .chain([spec.theory.replay.text.to_owned()])
                .collect()
        })
        .collect();
    Block::Table(header, rows)
}

/// Which structures the benchmarks leave out of the largest states, and why, from the
/// registry.
fn caps_note() -> String {
    let mut caps: Vec<String> = Kind::ALL
        .iter()
        .filter_map(|k| k.spec().cap.map(|cap| format!("{k} above {} entries ({})", cap.entries, cap.why)))
        .collect();
    let slotted: Vec<&str> = Kind::ALL.iter().filter(|k| k.needs_horizon()).map(|k| k.name()).collect();
    caps.push(format!("{} above {MAX_SLOTS} slots (their most)", slotted.join(" and ")));
    format!(
        "Not built: {}; so their means leave out the largest states, where the others' ratios are measured.",
        caps.join(", ")
    )
}

/// The geometric mean of `values`; `None` for none.
pub(super) fn geomean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, count) = values.into_iter().fold((0.0, 0), |(s, c), v| (s + v.ln(), c + 1));
    (count > 0).then(|| (sum / f64::from(count)).exp())
}

/// The least-squares slope of ln(time) against ln(size), over three points or more.
fn exponent(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 3 {
        return None;
    }
    let logs: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
    let n = logs.len() as f64;
    let (mx, my) = logs.iter().fold((0.0, 0.0), |(a, b), &(x, y)| (a + x / n, b + y / n));
    let sxx: f64 = logs.iter().map(|&(x, _)| (x - mx).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|&(x, y)| (x - mx) * (y - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn ns(value: f64) -> String {
    match value {
        v if v >= 1e6 => format!("{:.2} ms", v / 1e6),
        v if v >= 1e3 => format!("{:.2} µs", v / 1e3),
        v => format!("{v:.0} ns"),
    }
}

/// The structures measured, in the order `Kind::ALL` lists them (others after, by name).
fn structures(results: &[&BenchResult]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in results {
        if !names.contains(&r.structure) {
            names.push(r.structure.clone());
        }
    }
    let rank = |name: &String| Kind::ALL.iter().position(|k| k.name() == name).unwrap_or(Kind::ALL.len());
    names.sort_by(|a, b| (rank(a), a).cmp(&(rank(b), b)));
    names
}

/// Per state of one operation: each structure's time per call and its ratio to the
/// fastest on that state.
fn ratios<'a>(results: &[&'a BenchResult]) -> BTreeMap<String, Vec<(&'a BenchResult, f64)>> {
    let mut by_state: BTreeMap<String, Vec<&BenchResult>> = BTreeMap::new();
    for r in results {
        by_state.entry(r.state.clone()).or_default().push(r);
    }
    by_state
        .into_iter()
        .map(|(state, rs)| {
            let fastest = rs.iter().map(|r| r.per_call_ns()).fold(f64::MAX, f64::min);
            (state, rs.into_iter().map(|r| (r, r.per_call_ns() / fastest)).collect())
        })
        .collect()
}

/// The summary: per structure and operation, the geometric mean over states of the
/// time ratio to the fastest structure on each state.
fn summary(counted: &[&BenchResult], names: &[String]) -> Block {
    let mut rows = Vec::new();
    let per_op: Vec<_> = groups()
        .map(|op| ratios(&counted.iter().copied().filter(|r| r.operation == op).collect::<Vec<_>>()))
        .collect();
    for name in names {
        let mut row = vec![name.clone()];
        for states in &per_op {
            let mine =
                states.values().flatten().filter(|(r, _)| &r.structure == name).map(|(_, ratio)| *ratio);
            row.push(geomean(mine).map_or("–".into(), |g| format!("{g:.2}")));
        }
        rows.push(row);
    }
    let header = std::iter::once("structure".to_owned()).chain(groups().map(str::to_owned)).collect();
    Block::Table(header, rows)
}

/// Each state once, with the size of its first result: a set keeps this linear, as
/// files may hold hundreds of thousands of results.
fn states_of<'a>(results: &[&'a BenchResult]) -> Vec<(&'a str, u64)> {
    let mut seen = HashSet::new();
    let mut states: Vec<(&str, u64)> = Vec::new();
    for r in results {
        if seen.insert(r.state.as_str()) {
            states.push((&r.state, r.size));
        }
    }
    states.sort_by_key(|&(s, size)| {
        (!s.starts_with("synthetic"), s.split('-').next().unwrap_or("").to_owned(), size)
    });
    states
}

fn operation_section(
    op: &str,
    results: &[&BenchResult],
    names: &[String],
    out: &Path,
    blocks: &mut Vec<Block>,
) -> Result<()> {
    blocks.push(Block::Heading(2, format!("`{op}`")));
    let by_state = ratios(results);
    if op != REPLAY {
        let series: Vec<Series<'_>> = names
            .iter()
            .map(|name| Series {
                name,
                points: results
                    .iter()
                    .filter(|r| &r.structure == name && r.state.starts_with("synthetic"))
                    .map(|r| (r.size as f64, r.per_call_ns()))
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        if !series.is_empty() {
            let file = format!("growth-{op}.svg");
            plots::growth(
                &out.join(&file),
                &format!("{op}: median time per call on synthetic states"),
                &series,
            )?;
            blocks.push(Block::Figure {
                file,
                caption: format!("`{op}`: median time per call against profile entries on the synthetic states, log-log; a line's slope is the growth exponent in the table below."),
            });
        }
    }
    let unit = if op == REPLAY { "per job" } else { "per call" };
    let header = ["state".to_owned(), if op == REPLAY { "jobs".into() } else { "entries".into() }]
        .into_iter()
        .chain(names.iter().map(|n| format!("{n} ({unit}, ×fastest)")))
        .collect();
    let mut rows = Vec::new();
    let mut first_calls: HashMap<&str, u64> = HashMap::new();
    for r in results {
        first_calls.entry(r.state.as_str()).or_insert(r.calls);
    }
    for (state, size) in states_of(results) {
        // A replay's jobs are its calls (files of 2026-11-22 recorded one replay's size
        // from a state of the same name).
        let size = if op == REPLAY { first_calls.get(state).copied().unwrap_or(size) } else { size };
        let mut row = vec![state.to_owned(), size.to_string()];
        // Indexed by structure once per state, not searched per structure.
        let cells: HashMap<&str, &(&BenchResult, f64)> =
            by_state[state].iter().rev().map(|cell| (cell.0.structure.as_str(), cell)).collect();
        for name in names {
            let cell = cells.get(name.as_str());
            row.push(cell.map_or("–".into(), |(r, ratio)| format!("{} (×{ratio:.2})", ns(r.per_call_ns()))));
        }
        rows.push(row);
    }
    blocks.push(Block::Table(header, rows));
    let details: Vec<Vec<String>> = results
        .iter()
        .filter(|r| r.instructions.is_some() || r.visited.is_some())
        .map(|r| {
            vec![
                r.state.clone(),
                r.structure.clone(),
                r.instructions.map_or("–".into(), |i| i.to_string()),
                r.visited.zip(r.worst).map_or("–".into(), |(v, w)| format!("{v} / {w}")),
            ]
        })
        .collect();
    if !details.is_empty() {
        blocks.push(Block::Para(format!("Machine-independent work of `{op}`: gungraun's instruction count for its fixed calls, and the work suite's visited / worst case (summed over 100 calls, in each structure's own unit).")));
        blocks.push(Block::Table(
            vec!["state".into(), "structure".into(), "instructions".into(), "visited / worst".into()],
            details,
        ));
    }
    Ok(())
}

/// The fitted exponents of `ops` per structure over the states named `<family>-<size>`.
fn growth_table(counted: &[&BenchResult], names: &[String], family: &str, ops: &[OpKind]) -> Block {
    let mut rows = Vec::new();
    let prefix = format!("{family}-");
    for name in names {
        for &op in ops {
            let points: Vec<(f64, f64)> = counted
                .iter()
                .filter(|r| &r.structure == name && r.operation == op.name() && r.state.starts_with(&prefix))
                .map(|r| (r.size as f64, r.per_call_ns()))
                .collect();
            let Bound { text: bound, exponent: expected } = theory(name, op);
            let sizes =
                points.iter().map(|p| p.0).fold((f64::MAX, 0.0_f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
            rows.push(vec![
                name.clone(),
                op.name().to_owned(),
                exponent(&points).map_or("–".into(), |e| format!("{e:.2}")),
                if points.is_empty() { "–".into() } else { format!("{:.0} to {:.0}", sizes.0, sizes.1) },
                format!("{expected} ({bound})"),
            ]);
        }
    }
    Block::Table(
        vec![
            "structure".into(),
            "operation".into(),
            "fitted exponent".into(),
            "entries".into(),
            "theory".into(),
        ],
        rows,
    )
}

fn memory_table(file: &BenchFile, names: &[String]) -> Block {
    let mut seen = HashSet::new();
    let mut states: Vec<(&str, u64)> = Vec::new();
    // The first entry per (state, structure), as a linear search would find it.
    let mut by_key: HashMap<(&str, &str), &Memory> = HashMap::new();
    for m in &file.memory {
        if seen.insert(m.state.as_str()) {
            states.push((&m.state, m.entries));
        }
        by_key.entry((m.state.as_str(), m.structure.as_str())).or_insert(m);
    }
    let header = ["state".to_owned(), "entries".into()].into_iter().chain(names.iter().cloned()).collect();
    let rows = states
        .into_iter()
        .map(|(state, entries)| {
            let mut row = vec![state.to_owned(), entries.to_string()];
            for name in names {
                let m = by_key.get(&(state, name.as_str()));
                row.push(
                    m.map_or("–".into(), |m| format!("{:.0}", m.bytes as f64 / m.entries.max(1) as f64)),
                );
            }
            row
        })
        .collect();
    Block::Table(header, rows)
}

fn accounting_table(file: &BenchFile, names: &[String]) -> Option<Block> {
    let mut rows = Vec::new();
    // The first uncounted result per (operation, structure, state), found once.
    let mut uncounted: HashMap<(&str, &str, &str), &BenchResult> = HashMap::new();
    for u in file.results.iter().filter(|u| !u.counted) {
        uncounted.entry((u.operation.as_str(), u.structure.as_str(), u.state.as_str())).or_insert(u);
    }
    for op in groups() {
        let mut row = vec![op.to_owned()];
        let mut any = false;
        for name in names {
            let pairs = file
                .results
                .iter()
                .filter(|r| r.counted && r.operation == op && &r.structure == name)
                .filter_map(|c| {
                    let u = uncounted.get(&(op, c.structure.as_str(), c.state.as_str()))?;
                    Some(c.per_call_ns() / u.per_call_ns())
                });
            let g = geomean(pairs);
            any |= g.is_some();
            row.push(g.map_or("–".into(), |g| format!("{:+.1} %", 100.0 * (g - 1.0))));
        }
        if any {
            rows.push(row);
        }
    }
    let header = std::iter::once("operation".to_owned()).chain(names.iter().cloned()).collect();
    (!rows.is_empty()).then_some(Block::Table(header, rows))
}

/// Renders `files` (the newest drives the tables; every file is listed) into `out`, and,
/// given a README, rewrites its summary between [`README_BEGIN`] and [`README_END`].
///
/// # Errors
/// [`Error::NoBenchFiles`] without files; [`Error::CreateDir`], [`Error::Write`] or
/// [`Error::Plot`] when a file or plot cannot be written; as [`rewrite_readme`] for the
/// README.
pub fn render(files: &[BenchFile], out: &Path, command: &str, readme: Option<&Path>) -> Result<PathBuf> {
    let Some(latest) = files.iter().max_by(|a, b| a.recorded.cmp(&b.recorded)) else {
        return Err(Error::NoBenchFiles);
    };
    fs::create_dir_all(out).map_err(|cause| Error::CreateDir { path: out.to_owned(), cause })?;
    // The structures' results; the resource sets' have a section of their own.
    let counted: Vec<&BenchResult> =
        latest.results.iter().filter(|r| r.counted && groups().any(|g| g == r.operation)).collect();
    let names = structures(&counted);
    let m = &latest.machine;
    let machine = format!(
        "Measured {} at revision `{}` on {} ({} logical cores, {:.0} GiB, {}; {}).",
        latest.recorded, latest.revision, m.cpu, m.cores, m.memory_gib, m.os, m.rustc
    );
    let summary_note = format!("Each cell is the geometric mean, over the states the structure was measured on, of its median time per call divided by the fastest structure's on that state (1.00 = fastest everywhere). `replay` is whole replays (time per job). {}", caps_note());
    let mut blocks = vec![
        Block::Heading(1, "resbench performance report".into()),
        Block::Para(machine.clone()),
        Block::Para("Times are criterion medians on a shared machine whose wall times swing by about ±30 % between runs: read ratios and exponents, not single numbers. Instruction counts and visited work are exact and are what CI gates on.".into()),
        Block::Para("This report was made with:".into()),
        Block::Code(command.to_owned()),
        Block::Heading(2, "Summary: time relative to the fastest structure".into()),
        Block::Para(summary_note.clone()),
        summary(&counted, &names),
        Block::Heading(2, "Theory per structure".into()),
        Block::Para("Every registered structure's bound per operation and its source, from its registry entry (`Kind::spec`), whether or not the recorded runs include it yet, as built with the cost accounting the growth runs keep; n is profile entries. The replay bound is per job.".into()),
        theory_table(),
        Block::Heading(2, "Growth exponents".into()),
        Block::Para("The least-squares slope of log(time per call) against log(entries) over the synthetic states (10² to 10⁶ entries, one rectangle per four slots, so a window meets about as many entries at every size), beside the exponent the structure's bound gives for these calls.".into()),
        growth_table(&counted, &names, "synthetic", &OpKind::MEASURED),
        Block::Para("Deep backlogs: `earliest` on the adversarial states, where every call from the first tenth of the profile must cross 90 % of it for 64 of 128 ids. On `blocked-<n>` the first 90 % is one run of entries with too few ids free, which a search that skips by counts crosses in one descent; on `holes-<n>` every other entry is wholly free but one slot long, so each hole must be tried by every structure but one that knows the holes are shorter than the duration (`augtree`'s runs). Ten calls per state (10³ to 10⁶ entries blocked, to 10⁵ holed).".into()),
        Block::Para("On `blocked-<n>`:".into()),
        growth_table(&counted, &names, "blocked", &[OpKind::Earliest]),
        Block::Para("On `holes-<n>`:".into()),
        growth_table(&counted, &names, "holes", &[OpKind::Earliest]),
        Block::Heading(2, "Memory per entry".into()),
        Block::Para("Heap bytes a structure holds after loading the state (allocated minus freed during the build, by a counting allocator), divided by the state's profile entries. The slotted structures' memory follows the horizon's slots, not the entries.".into()),
        memory_table(latest, &names),
    ];
    if let Some(table) = accounting_table(latest, &names) {
        blocks.push(Block::Heading(2, "What the cost accounting adds".into()));
        blocks.push(Block::Para("Median time with the structures' cost accounting against a build with the `uncounted` feature (no counters, no worst cases), as the geometric mean over states of the ratio; positive means the accounting costs time. Differences within ±30 % are inside this machine's noise.".into()));
        blocks.push(table);
    }
    for op in groups() {
        let results: Vec<&BenchResult> = counted.iter().copied().filter(|r| r.operation == op).collect();
        if !results.is_empty() {
            operation_section(op, &results, &names, out, &mut blocks)?;
        }
    }
    blocks.extend(super::sets::section(latest));
    let operations: Vec<&str> = groups().collect();
    blocks.extend(super::before_after::section(files, &names, &operations));
    blocks.push(Block::Heading(2, "Result files".into()));
    let mut history: Vec<&BenchFile> = files.iter().collect();
    history.sort_by(|a, b| a.recorded.cmp(&b.recorded));
    blocks.push(Block::Table(
        vec!["recorded".into(), "revision".into(), "cpu".into(), "results".into()],
        history
            .iter()
            .map(|f| {
                vec![
                    f.recorded.clone(),
                    f.revision.clone(),
                    f.machine.cpu.clone(),
                    f.results.len().to_string(),
                ]
            })
            .collect(),
    ));
    let html = doc::write_pages(out, "resbench performance report", &blocks)?;
    if let Some(readme) = readme {
        let link = out.join("index.md");
        let text = format!(
            "Latest performance report: [`{}`]({}). {machine}\n\n{summary_note}\n\n{}",
            link.display(),
            link.display(),
            doc::markdown(&[summary(&counted, &names)])
        );
        rewrite_readme(readme, &text)?;
    }
    Ok(html)
}

/// Replaces what lies between the markers in `readme` with `text`.
///
/// # Errors
/// [`Error::Read`] or [`Error::Write`] when the README cannot be read or written,
/// [`Error::NoMarkers`] or [`Error::MarkersOutOfOrder`] when it lacks the markers.
pub fn rewrite_readme(readme: &Path, text: &str) -> Result<()> {
    let old = fs::read_to_string(readme).map_err(|cause| Error::Read { path: readme.to_owned(), cause })?;
    let (Some(begin), Some(end)) = (old.find(README_BEGIN), old.find(README_END)) else {
        return Err(Error::NoMarkers { path: readme.to_owned(), begin: README_BEGIN, end: README_END });
    };
    if end < begin {
        return Err(Error::MarkersOutOfOrder { path: readme.to_owned() });
    }
    let new = format!("{}{README_BEGIN}\n{}\n{}", &old[..begin], text.trim_end(), &old[end..]);
    fs::write(readme, new).map_err(|cause| Error::Write { path: readme.to_owned(), cause })
}
