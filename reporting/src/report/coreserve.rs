//! The report of Fig 5's polling model (calendar-token-reservation §4): the cost of
//! polling `p` of `k` resources by formula and measured on calendars, and how often the
//! best `p` lies in `[n, 2n]`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::doc::{self, Block};
use super::plots::{self, Series};
use ::coreserve::polling::{self, Cell, Row, Trials};
use ::coreserve::services::{self as service, LoadRun};

/// The unavailabilities the plot draws the formula for, beside the one asked.
const PLOT_Q: [f64; 3] = [0.2, 0.4, 0.6];

/// Renders the polling report into `out` (`index.md`, `index.html`, `fig5-cost.svg`).
///
/// # Errors
/// [`Error::Polling`] when a parameter is out of range; [`Error::CreateDir`],
/// [`Error::Write`] or [`Error::Plot`] when a file cannot be written.
pub fn render_polling(
    out: &Path,
    (n, k, q, c): (u32, u32, f64, f64),
    trials: &Trials,
    rows: &[Row],
    cells: &[Cell],
    command: &str,
) -> Result<PathBuf> {
    fs::create_dir_all(out).map_err(|cause| Error::CreateDir { path: out.to_owned(), cause })?;
    let best = polling::best(n, k, q, c)?;
    let names: Vec<String> = PLOT_Q.iter().map(|q| format!("formula, q {q}")).collect();
    let mut series = Vec::new();
    for (name, &pq) in names.iter().zip(&PLOT_Q) {
        let points =
            (n..=k).map(|p| Ok((f64::from(p), polling::cost(n, p, pq, c)?))).collect::<Result<Vec<_>>>()?;
        series.push(Series { name, points });
    }
    let formula = format!("formula, q {q}");
    series.push(Series { name: &formula, points: rows.iter().map(|r| (f64::from(r.p), r.cost)).collect() });
    let measured = format!("measured, q {q}");
    let points: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| r.measured.map(|m| (f64::from(r.p), m.mean + c * f64::from(r.p))))
        .collect();
    if !points.is_empty() {
        series.push(Series { name: &measured, points });
    }
    let title = format!("C(p) = E[T] + c·p: n {n} of k {k}, c {c}");
    plots::lines(&out.join("fig5-cost.svg"), &title, ("p, resources polled", "cost (slots)"), &series)?;

    let table_rows = rows
        .iter()
        .map(|r| {
            let (delay, cost) = match r.measured {
                Some(m) => {
                    (format!("{:.4} ± {:.4}", m.mean, m.ci), format!("{:.4}", m.mean + c * f64::from(r.p)))
                }
                None => ("-".to_owned(), "-".to_owned()),
            };
            vec![
                r.p.to_string(),
                format!("{:.6}", r.success),
                format!("{:.6}", r.delay),
                delay,
                format!("{:.6}", r.cost),
                cost,
            ]
        })
        .collect();
    let inside = cells.iter().filter(|cell| cell.in_band()).count();
    let mut grid_header = vec!["q \\ c".to_owned()];
    grid_header.extend(polling::GRID_C.iter().map(|c| c.to_string()));
    let grid_rows = polling::GRID_Q
        .iter()
        .map(|&gq| {
            let mut row = vec![gq.to_string()];
            for &gc in &polling::GRID_C {
                let here: Vec<&Cell> = cells.iter().filter(|cell| cell.q == gq && cell.c == gc).collect();
                row.push(format!("{}/{}", here.iter().filter(|cell| cell.in_band()).count(), here.len()));
            }
            row
        })
        .collect();
    let band = |p: u32| if p <= 2 * n { "inside" } else { "outside" };
    let measured_best = polling::best_measured(rows, c)
        .map_or(String::new(), |p| format!(" Measured on the calendars, the best p is {p} ({}).", band(p)));
    let blocks = vec![
        Block::Heading(1, "Fig 5: polling p of k homogeneous resources (calendar-token-reservation §4)".into()),
        Block::Para("The paper: \"we want n out of k homogeneous resources where (k > n) ... send agents to p out of the k resources, but then pick the 'best' (or earliest) time at which n out of the p polled resources are available\"; the cost is \"the expected delay in scheduling a job given the probability q that a given slot would be unavailable\" plus \"a term proportional to p\". Fig 5's caption: \"Usually an optimal number for n ranges from k to twice k.\" The caption's letters are swapped against the text's; in the text's letters the claim is that the best p lies in [n, 2n], which is what we check.".into()),
        Block::Para("The paper gives no formula. Ours: each slot of each resource is unavailable independently with probability `q`; one slot has `n` of `p` free with `s(p) = P[Bin(p, 1 - q) >= n]`; the start is geometric, so `E[T] = (1 - s)/s` slots; `C(p) = E[T] + c·p` with `c` in slot lengths per polled resource.".into()),
        Block::Para(format!(
            "The measured column: {} trials on `{}` calendars of {} slots, a job of {} slot(s), RNG seed {}; each trial draws a calendar of `k` resources, asks `earliest` with all of them, then makes resources busy from the top to ask with fewer. Each measured delay is a mean ± the half-width of its 95 % confidence interval.",
            trials.trials, trials.kind, trials.horizon, trials.duration, trials.seed
        )),
        Block::Para("This report was made with:".into()),
        Block::Code(command.to_owned()),
        Block::Heading(2, format!("The cost at n {n}, k {k}, q {q}, c {c}")),
        Block::Figure { file: "fig5-cost.svg".into(), caption: title.clone() },
        Block::Table(
            ["p", "s(p)", "E[T] formula", "E[T] measured", "C(p) formula", "C(p) measured"].map(str::to_owned).to_vec(),
            table_rows,
        ),
        Block::Para(format!("By the formula the best p is {best}, {} [n, 2n] = [{n}, {}].{measured_best}", band(best), 2 * n)),
        Block::Heading(2, "Where the best p lies".into()),
        Block::Para(format!(
            "Over n in {:?}, k in {:?}, q from 0.1 to 0.9 and c in {:?}, the best p is in [n, 2n] in {inside} of {} cells ({:.0} %). Each cell below counts the (n, k) pairs where it is. The claim holds when slots are mostly free and fails as they fill up: to expect n free among p polled needs p(1 - q) >= n, and p <= 2n then needs q <= 1/2. So the paper's \"usually\" holds when slots are free at least about half the time.",
            polling::GRID_N,
            polling::GRID_K,
            polling::GRID_C,
            cells.len(),
            100.0 * inside as f64 / cells.len() as f64
        )),
        Block::Table(grid_header, grid_rows),
        Block::Para("The services' load figures (`resbench coreserve load`) are on the page `load.md` (`load.html`) next to this one.".into()),
    ];
    doc::write_pages(out, "calendar-token-reservation: Fig 5", &blocks)
}

/// Renders the load figures (`load.md`, `load.html`) from `runs`, as `load.json` holds
/// them.
///
/// # Errors
/// [`Error::CreateDir`] or [`Error::Write`] when a file cannot be written.
pub fn render_load(out: &Path, runs: &[LoadRun], command: &str) -> Result<PathBuf> {
    fs::create_dir_all(out).map_err(|cause| Error::CreateDir { path: out.to_owned(), cause })?;
    let rows = runs
        .iter()
        .map(|r| {
            let failed: Vec<String> = r.failed.iter().map(|(why, n)| format!("{n} {why}")).collect();
            vec![
                r.managers.to_string(),
                r.capacity.to_string(),
                r.clients.to_string(),
                r.hot.to_string(),
                format!("{:.2}", r.rho),
                format!("{:.1}", r.commits_per_s),
                format!("{:.1}", r.messages_per_commit),
                format!("{:.1}", r.messages as f64 / r.reservations.max(1) as f64),
                format!("{:.3} ({} of {})", r.abort_rate, r.aborted, r.attempts),
                format!("{} of {}", r.committed, r.reservations),
                if failed.is_empty() { "-".to_owned() } else { failed.join(", ") },
                r.p50_ms.to_string(),
                r.p99_ms.to_string(),
                r.max_ms.to_string(),
                r.violations.to_string(),
            ]
        })
        .collect();
    let facts = runs.first().map_or(String::new(), |r| {
        format!(
            "Each manager has `capacity` resources in `{}` calendars (slot {} ms, horizon {} ms). Each reservation asks {} resources at each of {} managers drawn at random, for {} slots, with its earliest start drawn from `hot` start times {} slots apart, the first {} ms ahead, and {} slots of slack. Each client makes reservations back to back for {} s. `resbench` was a {} build.",
            r.structure,
            service::SLOT,
            service::HORIZON,
            service::NODES,
            service::PARTS,
            service::DURATION_SLOTS,
            service::DURATION_SLOTS,
            service::AHEAD,
            service::SLACK_SLOTS,
            r.seconds,
            r.build
        )
    });
    let sum = |f: fn(&LoadRun) -> u64| runs.iter().map(f).sum::<u64>();
    let (attempts, aborted) = (sum(|r| r.attempts), sum(|r| r.aborted));
    let (reservations, committed) = (sum(|r| r.reservations), sum(|r| r.committed));
    let failed = reservations - committed.min(reservations);
    let contention = format!(
        "Over every run: {aborted} of {attempts} two-phase commits aborted, and {failed} of {reservations} reservations failed. A client asks to commit only once it holds its window at every manager, so contention mostly shows as reservations that find no window, not as aborts; aborts come from holds lost to expiry or recall while the machine is overloaded."
    );
    let blocks = vec![
        Block::Heading(1, "Co-reservation under load on loopback (calendar-token-reservation §3, §4)".into()),
        Block::Para("Managers are `resbench coreserve serve` processes (axum over loopback, state in redb, every step's records committed before its messages leave); the clients run in threads of the `load` process. Commits per second count reservations committed per wall second, from the first start to the last outcome. Messages count every protocol message sent, by the clients and by the managers. The abort rate is aborted two-phase commits per commit attempt; reservations that end without a commit are counted by reason. Latency runs from a reservation's start to its outcome, over committed ones. `rho` is the offered load: node-slots the clients ask at once per node-slot of the hot pool; it leaves out the reservations already committed, which fill the calendars as a run goes on (so with few resources most reservations find no window even at a small `rho`).".into()),
        Block::Para(facts),
        Block::Para("The figures are bound by the machine: 2 cores shared by every manager process, the clients, and redb's fsync per step, so they measure this set-up, not the protocol's ceiling.".into()),
        Block::Para(contention),
        Block::Para("This report was made with:".into()),
        Block::Code(command.to_owned()),
        Block::Table(
            ["managers", "capacity", "clients", "hot", "rho", "commits/s", "messages/commit", "messages/reservation", "abort rate", "committed", "failed", "p50 ms", "p99 ms", "max ms", "violations"]
                .map(str::to_owned)
                .to_vec(),
            rows,
        ),
    ];
    doc::write(out.join("load.md"), &doc::markdown(&blocks))?;
    doc::write(out.join("load.html"), &doc::html("calendar-token-reservation: load", &blocks))
}
