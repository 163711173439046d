//! `resbench report`: run files in, `index.md` and `index.html` out, with rbtree-availability-profile's
//! Figure 5 box plots and Figure 6 histogram as SVG files beside them, each with a
//! sentence saying what it shows and the command that regenerates it. Benchmark files
//! make the performance report instead ([`bench`](mod@bench)).

mod before_after;
pub mod bench;
pub mod claims;
mod coalloc;
pub mod coreserve;
mod doc;
mod plots;
mod policies;
pub mod rspb;
mod sets;

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use doc::Block;
use oracle::OpKind;

use structures::Kind;

use crate::run_file::{OpCosts, RunFile};
use scheduling::policy::PolicyKind;
use scheduling::replay::EXACT_BELOW;

/// rbtree-availability-profile's claim (section V) the report holds every run against.
const CLAIM: &str = "often below 10% of their respective theoretical worst cases";

fn pct(x: f64) -> String {
    format!("{:.2}", 100.0 * x)
}

/// Runs that replayed the same jobs under the same options: one section each.
struct Group<'a> {
    label: String,
    runs: Vec<&'a RunFile>,
}

fn groups(runs: &[RunFile]) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for run in runs {
        let key = |r: &RunFile| {
            (
                r.trace.name.clone(),
                r.trace.selection.clone(),
                format!("{:?}", r.options),
                r.config.slot,
                r.capacity,
            )
        };
        match groups.iter_mut().find(|g| key(g.runs[0]) == key(run)) {
            Some(group) => group.runs.push(run),
            None => {
                let selection = run.trace.selection.as_ref().map_or(String::new(), |s| format!(", {s}"));
                // The default policy goes unnamed in headings, as before there was a choice.
                let policy = Some(run.options)
                    .filter(|o| o.policy != PolicyKind::default())
                    .map_or(String::new(), |o| format!(", policy {}", o.label()));
                // Likewise a replay that did not compress, beside one that did.
                let compress = if run.options.uncompressed() { ", without compression" } else { "" };
                let label = format!("{}{selection}{policy}{compress}", run.trace.stem());
                groups.push(Group { label, runs: vec![run] });
            }
        }
    }
    // In the registry's order, whatever order the files came in.
    groups.iter_mut().for_each(|g| g.runs.sort_by_key(|r| r.structure));
    groups
}

/// Refuses a sweep with runs missing (a shard not run, or its files not given) or given
/// twice: each command that recorded its sweep's size must bring exactly that many files.
fn complete(runs: &[RunFile]) -> Result<()> {
    let mut sweeps: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for run in runs {
        if let Some(want) = run.sweep_runs {
            sweeps.entry(&run.command).or_insert((0, want)).0 += 1;
        }
    }
    match sweeps.into_iter().find(|(_, (have, want))| have != want) {
        Some((command, (have, want))) => {
            Err(Error::IncompleteSweep { command: command.to_owned(), have, want })
        }
        None => Ok(()),
    }
}

/// What the registry says of a structure: its source, what it is, its bounds for the two
/// measured queries, and how its `visited / worst` reads.
fn facts(kind: Kind) -> String {
    let spec = kind.spec();
    let t = spec.theory;
    format!(
        "{} ({}): {}. Theory: check {}, earliest {}. {}",
        kind.name(),
        spec.source,
        spec.description,
        t.check.text,
        t.earliest.text,
        spec.cost_reading
    )
}

/// How one operation of one run reads against the paper's claim.
fn verdict(op: &str, c: &OpCosts) -> String {
    let Some(b) = &c.ratio else { return format!("`{op}`: no calls.") };
    let agrees = if c.below_tenth >= 0.5 {
        format!(
            "{} % of calls under 10 %: agrees with rbtree-availability-profile's claim",
            pct(c.below_tenth)
        )
    } else {
        format!(
            "only {} % of calls under 10 %: does not agree with rbtree-availability-profile's claim",
            pct(c.below_tenth)
        )
    };
    let why = match c.high_and_small {
        _ if c.below_tenth >= 1.0 => String::new(),
        share if share >= 0.5 => format!(
            " Of the calls at or above 10 %, {} % had a worst case of at most 10 entries: the paper's explanation (section V: few entries to evaluate) accounts for most of them.",
            pct(share)
        ),
        share => format!(
            " Of the calls at or above 10 %, {} % had a worst case of at most 10 entries: the paper's explanation (section V: few entries to evaluate) does not account for most of them.",
            pct(share)
        ),
    };
    format!("`{op}`: median {} %, mean {} %, {agrees}.{why}", pct(b.median), pct(b.mean))
}

/// The structures the page's runs used, each described once: what the registry says of
/// it, its theory and the unit of its costs.
fn legend(runs: &[RunFile]) -> Vec<Block> {
    let mut kinds: Vec<Kind> = runs.iter().map(|r| r.structure).collect();
    kinds.sort();
    kinds.dedup();
    if kinds.is_empty() {
        return Vec::new();
    }
    let mut blocks = vec![Block::Heading(2, "The structures on this page".into())];
    blocks.extend(kinds.into_iter().map(|kind| Block::Para(facts(kind))));
    blocks
}

fn provenance(run: &RunFile) -> String {
    let keys = ["Version", "Computer", "Installation", "StartTime", "EndTime"];
    let lines: Vec<&str> = run
        .trace
        .header
        .iter()
        .filter(|l| keys.iter().any(|k| l.starts_with(k)))
        .map(String::as_str)
        .collect();
    if lines.is_empty() {
        "No SWF header.".to_owned()
    } else {
        format!("From the trace's header: {}.", lines.join("; "))
    }
}

fn section(group: &Group<'_>, index: usize, out: &Path, blocks: &mut Vec<Block>) -> Result<()> {
    blocks.push(Block::Heading(2, group.label.clone()));
    setup(group.runs[0], blocks);
    blocks.push(cost_table(group));
    for r in &group.runs {
        blocks.push(Block::Para(format!(
            "On {}, {} {}",
            r.structure,
            verdict(OpKind::Check.name(), &r.operations.check),
            verdict("schedule", &r.operations.schedule),
        )));
    }
    schedule(group, blocks);
    blocks.push(figure5(group, index, out)?);
    if let Some(figure) = figure6(group, index, out)? {
        blocks.push(figure);
    }
    Ok(())
}

/// What the section's runs replayed, how, and the command that regenerates them.
fn setup(first: &RunFile, blocks: &mut Vec<Block>) {
    let skipped: Vec<String> = first.trace.skipped.iter().map(|(k, v)| format!("{v} {k}")).collect();
    blocks.push(Block::Para(format!(
        "{} {} jobs read, {} replayed{} on {} resources; slot {} s, horizon {}; policy `{}` ({}), mode `{}`{}, advance reservations {} % (RNG seed {}); the first and last {} calls of each operation dropped. Built from `{}`.",
        provenance(first),
        first.trace.jobs_read,
        first.trace.requests,
        if skipped.is_empty() { String::new() } else { format!(" ({} not replayed)", skipped.join(", ")) },
        first.capacity,
        first.config.slot,
        first.config.horizon.map_or("none".to_owned(), |h| format!("{h} s")),
        first.options.label(),
        first.options.policy.spec().source,
        serde_json::to_value(first.options.mode).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
        first.options.compression(),
        100.0 * first.options.ar_fraction,
        first.options.seed,
        first.trim,
        first.git_revision,
    )));
    if first.options.counted() {
        blocks.push(Block::Para("In the paper's counted model the plan reads each structure's free frames (`free_frames`) and marks counts on it (`allocate`, `release`); it calls neither `check` nor `earliest`, so the table below has no calls to show, and the work per request is in the comparison of policies.".into()));
    }
    if first.trace.renumbered > 0 {
        blocks.push(Block::Para(format!(
            "Warning: {} jobs were given new job numbers because theirs repeated an earlier job's (`--renumber`).",
            first.trace.renumbered
        )));
    }
    blocks.push(Block::Para("Regenerate this section's runs (and this report's section) with:".into()));
    blocks.push(Block::Code(first.command.clone()));
}

/// One row per structure: the visited share of `check` and `earliest` calls, and the
/// wall time.
fn cost_table(group: &Group<'_>) -> Block {
    let header = [
        "structure",
        "check calls",
        "check mean %",
        "q1",
        "median",
        "q3",
        "< 10 %",
        "schedule calls",
        "schedule mean %",
        "q1",
        "median",
        "q3",
        "< 10 %",
        "wall s",
    ];
    let rows = group
        .runs
        .iter()
        .map(|r| {
            let mut row = vec![r.structure.to_string()];
            for c in [&r.operations.check, &r.operations.schedule] {
                row.push(c.kept.to_string());
                match &c.ratio {
                    Some(b) => {
                        row.extend([pct(b.mean), pct(b.q1), pct(b.median), pct(b.q3), pct(c.below_tenth)])
                    }
                    None => row.extend(["-"; 5].map(String::from)),
                }
            }
            row.push(format!("{:.2}{}", r.wall_seconds, if r.verified { " (verified)" } else { "" }));
            row
        })
        .collect();
    Block::Table(header.map(String::from).to_vec(), rows)
}

/// Whether every structure made the same schedule, and what the schedule achieved.
fn schedule(group: &Group<'_>, blocks: &mut Vec<Block>) {
    let s = &group.runs[0].schedule;
    let identical = group.runs.iter().all(|r| r.schedule.digest == s.digest);
    blocks.push(Block::Para(if identical {
        format!("Schedules: identical across all {} structures (digest `{}`).", group.runs.len(), s.digest)
    } else {
        let digests: Vec<String> =
            group.runs.iter().map(|r| format!("{} `{}`", r.structure, r.schedule.digest)).collect();
        format!("Schedules: NOT identical across structures: {}.", digests.join(", "))
    }));
    let reservations = if s.ar_requested == 0 {
        "no advance reservations requested".to_owned()
    } else {
        format!(
            "advance reservations {} requested, {} admitted, {:.2} options offered to each rejected one on average",
            s.ar_requested, s.ar_admitted, s.ar_mean_options
        )
    };
    blocks.push(Block::Para(format!(
        "The schedule: {} jobs placed, {} unplaced; utilisation {} %; wait mean {:.0} s, p99 {} s; {reservations}.",
        s.placed, s.unplaced, pct(s.utilisation), s.mean_wait, s.p99_wait
    )));
}

/// rbtree-availability-profile's Figure 5 for the section: the visited share's boxes.
fn figure5(group: &Group<'_>, index: usize, out: &Path) -> Result<Block> {
    let first = group.runs[0];
    let fig5 = format!("fig5-{index}-{}.svg", first.trace.stem());
    let boxes: Vec<plots::Boxes<'_>> = group
        .runs
        .iter()
        .map(|r| plots::Boxes {
            name: r.structure.name(),
            check: r.operations.check.ratio.as_ref(),
            schedule: r.operations.schedule.ratio.as_ref(),
        })
        .collect();
    plots::figure5(&out.join(&fig5), &format!("Figure 5: {}", group.label), &boxes)?;
    let units: Vec<String> =
        group.runs.iter().map(|r| format!("{} {}", r.structure, r.structure.spec().cost_unit)).collect();
    Ok(Block::Figure {
        file: fig5,
        caption: format!(
            "Figure 5 for {}: per structure, the box of visited/worst case (percent) of `check` (blue) and `earliest`, rbtree-availability-profile's schedule operation (orange): quartiles, the median as a line, the mean as a dot, whiskers at 1.5 interquartile ranges; outliers are not drawn, as in the paper (section V). The grey line is 10 %. Units differ: {}. Regenerated by the command above.",
            group.label,
            units.join(", ")
        ),
    })
}

/// Figure 6 for the section, on the reference structure: how many entries each `check`
/// left unvisited (`None` when no call was counted).
fn figure6(group: &Group<'_>, index: usize, out: &Path) -> Result<Option<Block>> {
    let first = group.runs[0];
    let reference = group.runs.iter().find(|r| r.structure == Kind::REFERENCE).unwrap_or(&first);
    let histogram = &reference.operations.check.unvisited;
    let total: u64 = histogram.iter().map(|&(_, c)| c).sum();
    if total == 0 {
        return Ok(None);
    }
    let mut seen = 0;
    let upto = histogram
        .iter()
        .find(|&&(_, c)| {
            seen += c;
            seen * 100 >= total * 99
        })
        .map_or(0, |&(k, _)| k)
        .min(EXACT_BELOW - 1);
    let beyond: u64 = histogram.iter().filter(|&&(k, _)| k > upto).map(|&(_, c)| c).sum();
    let fig6 = format!("fig6-{index}-{}.svg", first.trace.stem());
    plots::figure6(
        &out.join(&fig6),
        &format!("Figure 6: {} ({})", group.label, reference.structure),
        histogram,
        upto,
    )?;
    Ok(Some(Block::Figure {
        file: fig6,
        caption: format!(
            "Figure 6 for {} on {}: how many `check` calls left each number of entries unvisited (worst case minus visited), up to {upto} (the 99th percentile, or the last exact count); {beyond} of {total} calls left more and are not drawn. Regenerated by the command above.",
            group.label, reference.structure
        ),
    }))
}

/// Renders `runs` into `out/index.md` and `out/index.html` with the plots beside them;
/// `command` is how this report was asked for. Returns the HTML page's path.
///
/// # Errors
/// [`Error::IncompleteSweep`] when a sweep's run files are not all there, or one is
/// there twice; [`Error::CreateDir`] or [`Error::Write`] when a file cannot be written,
/// [`Error::Plot`] when a plot cannot be drawn.
pub fn render(runs: &[RunFile], out: &Path, command: &str) -> Result<PathBuf> {
    complete(runs)?;
    fs::create_dir_all(out).map_err(|cause| Error::CreateDir { path: out.to_owned(), cause })?;
    let groups = groups(runs);
    let mut blocks = vec![
        Block::Heading(1, "resbench report".into()),
        Block::Para(format!(
            "{} run files, {} sections. Each section replays one workload on every structure listed; rbtree-availability-profile (de Assunção, \"Enhanced Red-Black-Tree Data Structure for Facilitating the Scheduling of Reservations\", section V) reports that check and schedule visit on average \"{CLAIM}\". Visited/worst case is machine-independent; it says how much of its own worst case a structure did, not how fast it is.",
            runs.len(),
            groups.len()
        )),
        Block::Para("This report was made with:".into()),
        Block::Code(command.to_owned()),
    ];
    for (index, group) in groups.iter().enumerate() {
        section(group, index + 1, out, &mut blocks)?;
    }
    blocks.extend(policies::comparison(runs, out)?);
    blocks.extend(coalloc::section(runs, out)?);
    blocks.extend(legend(runs));
    let html = doc::write_pages(out, "resbench report", &blocks)?;
    Ok(html)
}
