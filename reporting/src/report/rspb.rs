//! The report of rspb-priorities-benefit-functions' figures: per figure, its plot(s) with
//! each mean's 95 % confidence interval, a table of means with those intervals, the
//! thesis's stated trend quoted, and sentences on whether ours agree, computed from the
//! results. A reason for a difference is given only where a sweep of ours in the same
//! results supports it (the CPU_min floor sweep, [`FLOOR`]), computed from that sweep.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::claims::{self, Claim, Quoted, Verdict};
use super::doc::{self, Block};
use super::plots::{self, Mean, Means};
use scheduling::rspb::experiment::{figures, Estimate, Figure, FigureResult, Measure, Point, FLOOR};
use scheduling::rspb::results::ResultsFile;

/// Renders `file` into `out` (`index.md`, `index.html` and one SVG per plot).
///
/// # Errors
/// [`Error::CreateDir`], [`Error::Write`] or [`Error::Plot`] when a file cannot be
/// written, [`Error::UnknownFigure`] when the results name a figure the build does not
/// know.
pub fn render(file: &ResultsFile, out: &Path, command: &str) -> Result<PathBuf> {
    fs::create_dir_all(out).map_err(|cause| Error::CreateDir { path: out.to_owned(), cause })?;
    let known = figures();
    let floor = file.figures.iter().find(|f| f.id == FLOOR);
    let reasons = match floor {
        Some(_) => "A reason for a difference is given only where a sweep of ours in these results supports it, computed from that sweep: the sweep of the CPU_min floor at the end, for Co-RSPB's extra rejections against Co-RSBF.",
        None => "These results hold no sweep of ours (`--figure floor`), so no reason for a difference is given.",
    };
    let mut blocks = vec![
        Block::Heading(1, "rspb-priorities-benefit-functions: the figures of chapters 4 and 5".into()),
        Block::Para(format!(
            "RB and RSPB (chapter 4), Co-RSPB, Co-RSBF and Co-RSBFR (chapter 5) on the thesis's workloads, {} workloads per point (RNG seeds {} to {}), every algorithm of a chapter on the same workloads; every machine's time slot table a `{}` (one structure; `resbench rspb --structure all` runs every one and fails unless they decide alike). Each cell is a mean ± the half-width of its 95 % confidence interval (Student's t); each plot draws that interval at every point as an error bar. Revision `{}`.",
            file.seeds,
            file.first_seed,
            file.first_seed.saturating_add(file.seeds.saturating_sub(1)),
            file.structure,
            file.git_revision
        )),
        Block::Para(format!("The thesis's plots are not in our copy of it, only the trends its text states, so each figure is compared with those sentences, by numbers computed from the results below. {reasons} How we read what the thesis leaves open (the benefit shapes of Fig 1.1 and their 25 % floor, the sweeps' steps, chapter 4's scheduling interval and priorities, chapter 5's arrival rate, and the rest) is listed in resbench's docs/rspb.md, section \"Where the thesis is silent\".")),
        Block::Para("This report was made with:".into()),
        Block::Code(command.to_owned()),
    ];
    for result in &file.figures {
        let Some(figure) = known.iter().find(|f| f.id == result.id) else {
            return Err(Error::UnknownFigure { id: result.id.clone() });
        };
        blocks.extend(section(figure, result, floor, out)?);
    }
    let html = doc::write_pages(out, "rspb-priorities-benefit-functions", &blocks)?;
    Ok(html)
}

fn cell(e: &Estimate, digits: usize) -> String {
    format!("{:.digits$} ± {:.digits$}", e.mean, e.half)
}

/// How far Co-RSPB's extra share of rejections may be from the thesis's 10 % and agree.
const RATIO_TOLERANCE: f64 = 0.5;

/// How far apart, relatively, Fig 4.7's curves may be at equal rejections and still
/// coincide.
const CURVE_TOLERANCE: f64 = 0.05;

/// The share of Co-RSPB's extra rejections that must go, from the floor sweep's lowest
/// floor to its highest, for the report to say that the gap shrinks with the floor.
const SHRINK: f64 = 0.5;

/// What a plot draws of each point: its x and y and their intervals.
type Xy<'a> = &'a dyn Fn(&Point) -> Mean;

/// A mean with no interval along x: x is the point's swept value.
fn at_x(p: &Point, y: &Estimate) -> Mean {
    Mean { x: p.x, y: y.mean, x_half: 0.0, y_half: y.half }
}

/// One plot, one line per algorithm (and `extra` lines).
fn plot(
    out: &Path,
    file: &str,
    title: &str,
    axes: (&str, &str),
    result: &FigureResult,
    xy: Xy<'_>,
    extra: Vec<Means<'_>>,
) -> Result<Block> {
    let mut series: Vec<Means<'_>> = result
        .series
        .iter()
        .map(|s| Means { name: &s.algorithm, points: s.points.iter().map(xy).collect() })
        .collect();
    series.extend(extra);
    plots::means(&out.join(file), title, axes, &series)?;
    Ok(Block::Figure { file: file.to_owned(), caption: title.to_owned() })
}

/// The plots of `figure`: one, or panels (a) and (b).
fn plots(figure: &Figure, result: &FigureResult, out: &Path) -> Result<Vec<Block>> {
    let id = figure.id.replace('.', "-");
    let (file, x_label) = (format!("fig{id}.svg"), figure.x_label);
    let title = match figure.trend {
        Some(_) => figure.caption.to_owned(),
        None => format!("Ours: {}", figure.caption),
    };
    Ok(match figure.measure {
        Measure::Rejected => {
            // Fig 4.3's x is the mean number of requests created, itself measured.
            let x_requests = figure.x_requests;
            let xy = move |p: &Point| Mean {
                x_half: if x_requests { p.requests.half } else { 0.0 },
                ..at_x(p, &p.rejected)
            };
            vec![plot(out, &file, &title, (x_label, "rejections"), result, &xy, Vec::new())?]
        }
        Measure::ReservedCpu => {
            let ideal = Means {
                name: "ideal",
                points: result.series[0].points.iter().map(|p| at_x(p, &p.requested_cpu)).collect(),
            };
            let xy = |p: &Point| at_x(p, &p.reserved_cpu);
            vec![plot(out, &file, &title, (x_label, "mean reserved CPU (%)"), result, &xy, vec![ideal])?]
        }
        Measure::RejectedPriority => {
            // As the thesis plots it: each algorithm's sum of rejected priorities against
            // its own number of rejections, both measured.
            let xy = |p: &Point| Mean {
                x: p.rejected.mean,
                y: p.rejected_priority.mean,
                x_half: p.rejected.half,
                y_half: p.rejected_priority.half,
            };
            vec![plot(out, &file, &title, (x_label, "sum of rejected priorities"), result, &xy, Vec::new())?]
        }
        Measure::Benefit => {
            let benefit = |p: &Point| at_x(p, &p.system_benefit);
            let rejected = |p: &Point| at_x(p, &p.rejected);
            let panels: [(&str, &str, Xy<'_>); 2] =
                [("a", "system benefit", &benefit), ("b", "rejections", &rejected)];
            let mut blocks = Vec::new();
            for (panel, y_label, xy) in panels {
                let (file, caption) = (format!("fig{id}{panel}.svg"), format!("{title} ({panel})"));
                blocks.push(plot(out, &file, &caption, (x_label, y_label), result, xy, Vec::new())?);
            }
            blocks
        }
    })
}

/// The table of `figure`'s means: a row per point.
fn table(figure: &Figure, result: &FigureResult) -> Block {
    let points = result.series[0].points.len();
    let x = |k: usize| {
        let x = result.series[0].points[k].x;
        if figure.x_requests {
            format!("{x:.0}")
        } else {
            format!("{x}")
        }
    };
    let mut columns = vec![figure.x_label.to_owned()];
    let rows: Vec<Vec<String>> = match figure.measure {
        Measure::Rejected | Measure::ReservedCpu => {
            let (value, digits): (fn(&Point) -> &Estimate, usize) = match figure.measure {
                Measure::Rejected => (|p| &p.rejected, 1),
                _ => (|p| &p.reserved_cpu, 2),
            };
            columns.extend(result.series.iter().map(|s| s.algorithm.clone()));
            (0..points)
                .map(|k| {
                    let mut row = vec![x(k)];
                    row.extend(result.series.iter().map(|s| cell(value(&s.points[k]), digits)));
                    row
                })
                .collect()
        }
        Measure::RejectedPriority => {
            columns[0] = "simulation time (the sweep's x; the thesis's x is the rejections)".to_owned();
            for s in &result.series {
                columns.push(format!("{} rejections", s.algorithm));
                columns.push(format!("{} sum of rejected priorities", s.algorithm));
            }
            (0..points)
                .map(|k| {
                    let mut row = vec![x(k)];
                    for s in &result.series {
                        row.push(cell(&s.points[k].rejected, 1));
                        row.push(cell(&s.points[k].rejected_priority, 0));
                    }
                    row
                })
                .collect()
        }
        Measure::Benefit => {
            columns.extend(result.series.iter().map(|s| format!("{} rejections", s.algorithm)));
            columns.extend(result.series.iter().map(|s| format!("{} benefit", s.algorithm)));
            // The sweep of ours is about Co-RSPB's extra rejections: each point's share.
            let gaps = if figure.trend.is_none() { gaps(result) } else { None };
            if gaps.is_some() {
                columns.push("co-rspb rejections over co-rsbf's".to_owned());
            }
            (0..points)
                .map(|k| {
                    let mut row = vec![x(k)];
                    row.extend(result.series.iter().map(|s| cell(&s.points[k].rejected, 1)));
                    row.extend(result.series.iter().map(|s| cell(&s.points[k].system_benefit, 3)));
                    if let Some(gaps) = &gaps {
                        row.push(gaps[k].1.map_or("—".to_owned(), percent));
                    }
                    row
                })
                .collect()
        }
    };
    Block::Table(columns, rows)
}

fn section(
    figure: &Figure,
    result: &FigureResult,
    floor: Option<&FigureResult>,
    out: &Path,
) -> Result<Vec<Block>> {
    let heading = match figure.trend {
        Some(_) => format!("Fig {}: {}", figure.id, figure.caption),
        None => format!("Ours, not a figure of the thesis: {}", figure.caption),
    };
    let mut blocks = vec![Block::Heading(2, heading)];
    blocks.extend(plots(figure, result, out)?);
    blocks.push(table(figure, result));
    match figure.trend {
        Some(trend) => {
            blocks.push(Block::Para(format!("The thesis: {trend}.")));
            blocks.push(Block::Para(format!("Ours: {}", agreement(figure, result, floor))));
        }
        None => {
            blocks.push(Block::Para("A sensitivity sweep of ours: the thesis gives its soft benefit functions one number, a lowest acceptable CPU of 25 % of the request (section 4.5), which we read as their CPU_min (docs/rspb.md). This sweep moves that floor at chapter 5's defaults, every point on the same workloads but for CPU_min; at 100 % every shape is a step, so no request can be degraded.".into()));
            blocks.push(Block::Para(format!("Ours: {}", sensitivity(result))));
        }
    }
    Ok(blocks)
}

/// The series of `algorithm`, if run.
fn curve<'a>(result: &'a FigureResult, algorithm: &str) -> Option<&'a [Point]> {
    result.series.iter().find(|s| s.algorithm == algorithm).map(|s| s.points.as_slice())
}

/// `f` summed over the points.
fn total(points: &[Point], f: fn(&Point) -> f64) -> f64 {
    points.iter().map(f).sum()
}

/// At how many of the points `holds` is true, as "k of n".
fn count(points: usize, holds: impl Fn(usize) -> bool) -> String {
    format!("{} of {points}", (0..points).filter(|&k| holds(k)).count())
}

/// A share as a signed percentage: "+12 %".
fn percent(share: f64) -> String {
    format!("{:+.0} %", 100.0 * share)
}

/// Co-RSPB's rejections over Co-RSBF's, less 1, at each point (x, share), `None` where
/// Co-RSBF rejects none; `None` without both algorithms.
fn gaps(result: &FigureResult) -> Option<Vec<(f64, Option<f64>)>> {
    let (p, f) = (curve(result, "co-rspb")?, curve(result, "co-rsbf")?);
    let share =
        |a: &Point, b: &Point| (b.rejected.mean > 0.0).then(|| a.rejected.mean / b.rejected.mean - 1.0);
    Some(p.iter().zip(f).map(|(a, b)| (a.x, share(a, b))).collect())
}

/// The floor sweep's gap from its lowest floor to its highest: `((floor, share), (floor,
/// share), steps where it falls, steps)`, `None` without two points that have one.
type Trend = ((f64, f64), (f64, f64), usize, usize);

fn gap_trend(floor: &FigureResult) -> Option<Trend> {
    let known: Vec<(f64, f64)> = gaps(floor)?.into_iter().filter_map(|(x, g)| Some((x, g?))).collect();
    if known.len() < 2 {
        return None;
    }
    let (first, last) = (known[0], known[known.len() - 1]);
    let falling = known.windows(2).filter(|w| w[1].1 < w[0].1).count();
    Some((first, last, falling, known.len() - 1))
}

/// Whether the gap shrinks with the floor: by at least [`SHRINK`] of it.
fn shrinks(first: f64, last: f64) -> bool {
    first > 0.0 && last <= (1.0 - SHRINK) * first
}

/// A sentence on the floor sweep.
fn sensitivity(floor: &FigureResult) -> String {
    let (Some(p), Some(f), Some(r), Some(all)) =
        (curve(floor, "co-rspb"), curve(floor, "co-rsbf"), curve(floor, "co-rsbfr"), gaps(floor))
    else {
        return "the results lack an algorithm this sweep needs.".into();
    };
    let Some(((x0, g0), (x1, g1), falling, steps)) = gap_trend(floor) else {
        return "Co-RSBF rejects none at all but one floor, so there is no gap to follow.".into();
    };
    let within: Vec<String> = all
        .iter()
        .filter(|(_, g)| g.is_some_and(|g| ten_percent(g).verdict() == Verdict::Agrees))
        .map(|(x, _)| format!("{x} %"))
        .collect();
    let within = if within.is_empty() { "none".to_owned() } else { within.join(", ") };
    let change = if shrinks(g0, g1) {
        "shrinks with the floor (by at least half, the report's threshold)"
    } else if g1 < g0 {
        "shrinks by less than half (the report's threshold), so it does not follow the floor"
    } else {
        "does not shrink"
    };
    format!(
        "Co-RSPB rejects {} against Co-RSBF at a floor of {x0} % and {} at {x1} % (each floor in the last column), falling at {falling} of {steps} steps: the gap {change}. It is within {} of the thesis's +10 % at floors of: {within}. Co-RSPB's benefit is the highest at {} floors; Co-RSBFR rejects more than Co-RSPB at {}.",
        percent(g0),
        percent(g1),
        claims::tolerance(RATIO_TOLERANCE),
        count(p.len(), |k| p[k].system_benefit.mean >= f[k].system_benefit.mean
            && p[k].system_benefit.mean >= r[k].system_benefit.mean),
        count(p.len(), |k| r[k].rejected.mean > p[k].rejected.mean),
    )
}

/// The thesis's "about 10% higher" against a share of ours.
fn ten_percent(ours: f64) -> Claim {
    Claim {
        quoted: Quoted {
            what: "Co-RSPB's rejections over Co-RSBF's, less 1",
            source: "section 5.6, Figs 5.9-5.11 b (\"about 10% higher\")",
            value: 0.10,
        },
        ours,
        tolerance: RATIO_TOLERANCE,
    }
}

/// The reason the floor sweep gives for Co-RSPB's extra rejections, or that it gives
/// none, or that there is no sweep.
fn floor_reason(floor: Option<&FigureResult>) -> String {
    let Some(((x0, g0), (x1, g1), falling, steps)) = floor.and_then(gap_trend) else {
        return " No sweep of ours in these results bears on the gap, so no reason is given.".into();
    };
    let reading = if shrinks(g0, g1) {
        "so the gap follows the CPU_min floor: it shrinks by at least half, the report's threshold"
    } else {
        "so the floor does not account for the gap: it shrinks by less than half, the report's threshold"
    };
    format!(
        " In the floor sweep of ours (at the end, at chapter 5's defaults), Co-RSPB's extra rejections against Co-RSBF go from {} at a CPU_min floor of {x0} % to {} at {x1} %, falling at {falling} of {steps} steps, {reading}.",
        percent(g0),
        percent(g1),
    )
}

/// RB's sum of rejected priorities at `rejected` rejections, read linearly between the
/// points of its curve; `None` outside the rejections it spans.
fn read_at(curve: &[Point], rejected: f64) -> Option<f64> {
    let mut xy: Vec<(f64, f64)> = curve.iter().map(|p| (p.rejected.mean, p.rejected_priority.mean)).collect();
    xy.sort_by(|a, b| a.0.total_cmp(&b.0));
    xy.windows(2).find(|w| w[0].0 <= rejected && rejected <= w[1].0).map(|w| {
        let span = w[1].0 - w[0].0;
        if span == 0.0 {
            w[0].1
        } else {
            w[0].1 + (rejected - w[0].0) / span * (w[1].1 - w[0].1)
        }
    })
}

/// Fig 4.7 as the thesis plots it: RSPB's sum of rejected priorities against RB's at
/// equal rejections, then per rejection and at equal simulation time.
fn priorities(figure: &Figure, rb: &[Point], rspb: &[Point]) -> String {
    let shares: Vec<f64> = rspb
        .iter()
        .filter_map(|q| {
            read_at(rb, q.rejected.mean).filter(|y| *y > 0.0).map(|y| q.rejected_priority.mean / y - 1.0)
        })
        .collect();
    let plotted = if shares.is_empty() {
        "RSPB's and RB's rejections do not overlap, so their curves cannot be compared at equal rejections"
            .to_owned()
    } else {
        let (lo, hi) = shares.iter().fold((f64::MAX, f64::MIN), |(lo, hi), s| (lo.min(*s), hi.max(*s)));
        let below = shares.iter().all(|s| *s < -CURVE_TOLERANCE);
        let tolerance = 100.0 * CURVE_TOLERANCE;
        let reading = if below {
            format!("RSPB's curve lies below RB's by more than {tolerance:.0} %")
        } else if shares.iter().all(|s| s.abs() <= CURVE_TOLERANCE) {
            format!("the two curves coincide within ±{tolerance:.0} %")
        } else {
            format!("RSPB's curve is not below RB's by more than {tolerance:.0} % throughout")
        };
        let verdict = if below { Verdict::Agrees } else { Verdict::Differs }.word();
        format!(
            "as the thesis plots it, against the number of rejections: at the {} of RSPB's {} points whose rejections RB's curve spans (read linearly between its points), RSPB's sum of rejected priorities differs from RB's by {:+.1} % to {:+.1} %, so {reading}; the thesis has RSPB's below: {verdict}",
            shares.len(),
            rspb.len(),
            100.0 * lo,
            100.0 * hi,
        )
    };
    let per = |p: &[Point]| total(p, |q| q.rejected_priority.mean) / total(p, |q| q.rejected.mean).max(1.0);
    let highest = figure.points.first().map_or(0, |(_, params)| params.priority_max);
    format!(
        "{plotted}. Per rejection, the rejected priority averages {:.1} under RSPB and {:.1} under RB; priorities drawn uniformly from 1 to {highest} average {:.1}. At equal simulation time (the table's rows, not the thesis's axis), RSPB's sum is below RB's at {} points and its rejections at {}.",
        per(rspb),
        per(rb),
        (1.0 + f64::from(highest)) / 2.0,
        count(rb.len(), |k| rspb[k].rejected_priority.mean < rb[k].rejected_priority.mean),
        count(rb.len(), |k| rspb[k].rejected.mean < rb[k].rejected.mean),
    )
}

/// A sentence on how `result` reads against `figure`'s stated trend (and, for chapter
/// 5's gap, what the floor sweep says of it).
fn agreement(figure: &Figure, result: &FigureResult, floor: Option<&FigureResult>) -> String {
    let ch4 = (curve(result, "rb"), curve(result, "rspb"));
    let ch5 = (curve(result, "co-rspb"), curve(result, "co-rsbf"), curve(result, "co-rsbfr"));
    match (figure.measure, ch4, ch5) {
        (Measure::Rejected, (Some(rb), Some(rspb)), _) => {
            let (all_rb, all_rspb) = (total(rb, |p| p.rejected.mean), total(rspb, |p| p.rejected.mean));
            let fewer = if all_rb > 0.0 {
                format!("{:.0} % fewer over the sweep", 100.0 * (1.0 - all_rspb / all_rb))
            } else {
                "neither rejecting any".to_owned()
            };
            format!(
                "RSPB rejects fewer than RB at {} points, {fewer}.",
                count(rb.len(), |k| rspb[k].rejected.mean < rb[k].rejected.mean),
            )
        }
        (Measure::ReservedCpu, (Some(rb), Some(rspb)), _) => {
            let low = rb.iter().zip(rspb).filter(|(a, _)| a.x <= 25.0);
            let equal = low.clone().count();
            let same = low
                .filter(|(a, b)| {
                    (a.reserved_cpu.mean - a.requested_cpu.mean).abs() < 0.5
                        && (b.reserved_cpu.mean - b.requested_cpu.mean).abs() < 0.5
                })
                .count();
            let widest = rb.iter().zip(rspb).max_by(|(a, b), (c, d)| {
                (b.reserved_cpu.mean - a.reserved_cpu.mean)
                    .total_cmp(&(d.reserved_cpu.mean - c.reserved_cpu.mean))
            });
            format!(
                "at a mean requested CPU of at most 25 %, RB and RSPB reserve within half a point of the ideal at {same} of {equal} points; RB reserves least at {} points; RSPB's lead over RB is widest at a mean request of {} %.",
                count(rb.len(), |k| rb[k].reserved_cpu.mean <= rspb[k].reserved_cpu.mean),
                widest.map_or(0.0, |(a, _)| a.x)
            )
        }
        (Measure::RejectedPriority, (Some(rb), Some(rspb)), _) => priorities(figure, rb, rspb),
        (Measure::Benefit, _, (Some(p), Some(f), Some(r))) => {
            let n = p.len();
            let (all_p, all_f) = (total(p, |q| q.rejected.mean), total(f, |q| q.rejected.mean));
            let ratio = if all_f > 0.0 { all_p / all_f - 1.0 } else { 0.0 };
            let claim = ten_percent(ratio);
            let mut text = format!(
                "Co-RSPB's benefit is the highest at {} points; Co-RSBF rejects fewest at {}; Co-RSBFR rejects more than Co-RSPB at {}; Co-RSPB rejects {} against Co-RSBF over the sweep, where the thesis has about +10 % ({}): {} at a tolerance of {} of that share.",
                count(n, |k| p[k].system_benefit.mean >= f[k].system_benefit.mean && p[k].system_benefit.mean >= r[k].system_benefit.mean),
                count(n, |k| f[k].rejected.mean <= p[k].rejected.mean && f[k].rejected.mean <= r[k].rejected.mean),
                count(n, |k| r[k].rejected.mean > p[k].rejected.mean),
                percent(ratio),
                claim.quoted.source,
                claim.verdict().word(),
                claims::tolerance(RATIO_TOLERANCE),
            );
            text.push_str(&floor_reason(floor));
            if figure.id == "5.12" {
                let falling =
                    |c: &[Point]| c.windows(2).filter(|w| w[1].rejected.mean <= w[0].rejected.mean).count();
                text.push_str(&format!(
                    " As the floating share grows, rejections fall in {}, {} and {} of the {} steps (Co-RSPB, Co-RSBF, Co-RSBFR).",
                    falling(p),
                    falling(f),
                    falling(r),
                    n - 1
                ));
            }
            if figure.id == "5.13" {
                let spread = |c: &[Point]| {
                    let (lo, hi) = c.iter().fold((f64::MAX, f64::MIN), |(lo, hi), q| {
                        (lo.min(q.system_benefit.mean), hi.max(q.system_benefit.mean))
                    });
                    hi - lo
                };
                let values = |c: &[Point]| {
                    let mut v: Vec<f64> = c.iter().map(|q| q.rejected.mean).collect();
                    v.sort_by(f64::total_cmp);
                    v.dedup();
                    v.len()
                };
                text.push_str(&format!(
                    " Across the scopes of priority the benefit spans {:.3}, {:.3} and {:.3} (Co-RSPB, Co-RSBF, Co-RSBFR), and the mean rejections take {}, {} and {} values.",
                    spread(p),
                    spread(f),
                    spread(r),
                    values(p),
                    values(f),
                    values(r)
                ));
            }
            text
        }
        _ => "the results lack an algorithm this comparison needs.".into(),
    }
}
