//! The policies of fcfs-eds-slotted-array compared on one workload: utilisation in a
//! sliding window over time (its Fig 4), acceptance, shifts and work per request, with a
//! paragraph on agreement with the paper.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::Result;

use super::claims;
use super::doc::Block;
use super::plots::{self, Series};
use crate::run_file::{RunFile, WINDOW_SLOTS};

/// One policy's run on a workload (any structure's: the decisions are the same).
struct Row<'a> {
    run: &'a RunFile,
    count: BTreeMap<&'a str, u64>,
}

impl Row<'_> {
    fn get(&self, what: &str) -> u64 {
        self.count.get(what).copied().unwrap_or(0)
    }

    fn mean_utilisation(&self) -> f64 {
        let w = &self.run.utilisation_windows;
        w.iter().map(|&(_, u)| u).sum::<f64>() / w.len().max(1) as f64
    }
}

/// The comparison section for the runs that record windowed utilisation, one per
/// workload, or nothing when there are none.
///
/// # Errors
/// [`Error::Plot`](crate::Error::Plot) when a plot cannot be written.
pub(super) fn comparison(runs: &[RunFile], out: &Path) -> Result<Vec<Block>> {
    let mut workloads: BTreeMap<(String, Option<String>), Vec<Row<'_>>> = BTreeMap::new();
    for run in runs.iter().filter(|r| !r.utilisation_windows.is_empty()) {
        let rows = workloads.entry((run.trace.name.clone(), run.trace.selection.clone())).or_default();
        if !rows.iter().any(|row| row.run.options == run.options) {
            let count = run.policy_counts.iter().map(|(k, &v)| (k.as_str(), v)).collect();
            rows.push(Row { run, count });
        }
    }
    // The paper's model before ours, policy by policy.
    workloads
        .values_mut()
        .for_each(|rows| rows.sort_by_key(|r| (r.run.options.policy, !r.run.options.counted())));
    let mut blocks = Vec::new();
    for (index, ((name, _), rows)) in workloads.iter().enumerate() {
        let first = rows[0].run;
        blocks.push(Block::Heading(2, format!("Policies compared on {}", first.trace.stem())));
        let checked: Vec<String> = rows
            .iter()
            .map(|row| format!("`{}`: {}", row.run.options.label(), claims::across_structures(runs, row.run)))
            .collect();
        blocks.push(Block::Para(format!(
            "{name}; {} resources, slot {} s. One run per policy is shown. {}",
            first.capacity,
            first.config.slot,
            checked.join(" ")
        )));
        let file = format!("fig4-{}-{}.svg", index + 1, first.trace.stem());
        let labels: Vec<String> = rows.iter().map(|r| r.run.options.label()).collect();
        let series: Vec<Series<'_>> = rows
            .iter()
            .zip(&labels)
            .map(|(row, label)| Series {
                name: label,
                points: row
                    .run
                    .utilisation_windows
                    .iter()
                    .map(|&(t, u)| ((t as f64) / first.config.slot as f64, 100.0 * u))
                    .collect(),
            })
            .collect();
        plots::lines(
            &out.join(&file),
            &format!("Utilisation in a sliding window of {WINDOW_SLOTS} slots"),
            ("time (slots)", "utilisation (%)"),
            &series,
        )?;
        blocks.push(Block::Figure {
            file,
            caption: format!(
                "fcfs-eds-slotted-array, Fig 4: utilisation of the {} resources in each window of {WINDOW_SLOTS} slots, sliding a slot at a time.",
                first.capacity
            ),
        });
        let header = [
            "policy",
            "requests",
            "accepted",
            "accepted after shifting",
            "reservations shifted",
            "ops per request",
            "mean window utilisation",
        ];
        let table = rows
            .iter()
            .map(|row| {
                let requests = row.get("requests").max(1);
                let ops: u64 = row.run.operations.counts.values().sum();
                vec![
                    format!("`{}`", row.run.options.label()),
                    row.get("requests").to_string(),
                    format!(
                        "{} ({:.1} %)",
                        row.get("accepted"),
                        100.0 * row.get("accepted") as f64 / requests as f64
                    ),
                    row.get("accepted after shifting").to_string(),
                    row.get("reservations shifted").to_string(),
                    format!("{:.1}", ops as f64 / requests as f64),
                    format!("{:.1} %", 100.0 * row.mean_utilisation()),
                ]
            })
            .collect();
        blocks.push(Block::Table(header.iter().map(|h| (*h).to_owned()).collect(), table));
        blocks.push(Block::Para(agreement(rows)));
    }
    Ok(blocks)
}

/// How the runs read against fcfs-eds-slotted-array, section 4: FCFS-EDS yields better
/// utilisation than the baseline (the paper prints no values, only Fig 4's curves); one
/// sentence per model that both policies ran in, the paper's first.
fn agreement(rows: &[Row<'_>]) -> String {
    let mut sentences = vec!["Against the paper: its section 4 reports that FCFS-EDS yields better utilisation than flexible reservation without advance planning, in Fig 4, and prints no values, so only the direction can be compared.".to_owned()];
    for (counted, model) in [
        (true, "In the paper's model, where free nodes are counted per slot and a reservation moves off the one slot that blocks (docs/papers.md)"),
        (false, "In our id-bound model, an extension where a reservation keeps the same nodes for its whole run and moves only to clear the whole window a request wants"),
    ] {
        let by = |name: &str| {
            rows.iter().find(|r| r.run.options.policy.name() == name && r.run.options.counted() == counted)
        };
        let (Some(eds), Some(base)) = (by("fcfs-eds"), by("flexible")) else { continue };
        let (u_eds, u_base) = (eds.mean_utilisation(), base.mean_utilisation());
        let (a_eds, a_base) = (eds.get("accepted"), base.get("accepted"));
        let verdict = if u_eds > u_base { "agrees with" } else { "does not agree with" };
        sentences.push(format!(
            "{model}, the mean window utilisation is {:.1} % under FCFS-EDS against {:.1} % (a difference of {:+.1} points), with {a_eds} requests accepted against {a_base} ({:+.1} %): this {verdict} the paper.",
            100.0 * u_eds,
            100.0 * u_base,
            100.0 * (u_eds - u_base),
            100.0 * (a_eds as f64 - a_base as f64) / (a_base.max(1)) as f64,
        ));
    }
    if sentences.len() == 1 {
        sentences.push("Replay both `fcfs-eds` and `flexible` in one model on this workload to compare them with the paper.".to_owned());
    }
    sentences.join(" ")
}
