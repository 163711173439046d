//! The report of rspb-priorities-benefit-functions' figures: per figure, its plot(s), a
//! table of means with 95 % confidence intervals, the thesis's stated trend quoted, and
//! a sentence on whether ours agree, computed from the results.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::claims::{self, Claim, Quoted};
use super::doc::{self, Block};
use super::plots::{self, Series};
use scheduling::rspb::experiment::{figures, Estimate, Figure, FigureResult, Measure, Point};
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
    let mut blocks = vec![
        Block::Heading(1, "rspb-priorities-benefit-functions: the figures of chapters 4 and 5".into()),
        Block::Para(format!(
            "RB and RSPB (chapter 4), Co-RSPB, Co-RSBF and Co-RSBFR (chapter 5) on the thesis's workloads, {} workloads per point (RNG seeds {} to {}), every algorithm of a chapter on the same workloads; every machine's time slot table a `{}` (one structure; `resbench rspb --structure all` runs every one and fails unless they decide alike). Each cell is a mean ± the half-width of its 95 % confidence interval (Student's t). Revision `{}`.",
            file.seeds,
            file.first_seed,
            file.first_seed.saturating_add(file.seeds.saturating_sub(1)),
            file.structure,
            file.git_revision
        )),
        Block::Para("The thesis's plots are not in our copy of it, only the trends its text states, so each figure is compared with those sentences. Where the thesis is silent, resbench's docs/rspb.md says what we chose: the benefit shapes of Fig 1.1, the sweeps' steps, chapter 4's scheduling interval and priorities, chapter 5's arrival rate.".into()),
        Block::Para("This report was made with:".into()),
        Block::Code(command.to_owned()),
    ];
    for result in &file.figures {
        let Some(figure) = known.iter().find(|f| f.id == result.id) else {
            return Err(Error::UnknownFigure { id: result.id.clone() });
        };
        blocks.extend(section(figure, result, out)?);
    }
    let html = doc::write_pages(out, "rspb-priorities-benefit-functions", &blocks)?;
    Ok(html)
}

fn cell(e: &Estimate, digits: usize) -> String {
    format!("{:.digits$} ± {:.digits$}", e.mean, e.half)
}

/// One plot of `y` against x, one line per algorithm (and `extra` lines).
/// How far Co-RSPB's extra share of rejections may be from the thesis's 10 % and agree.
const RATIO_TOLERANCE: f64 = 0.5;

/// What a plot draws of each point: its x and its y.
type Xy = fn(&Point) -> (f64, f64);

fn plot(
    out: &Path,
    file: &str,
    title: &str,
    axes: (&str, &str),
    result: &FigureResult,
    xy: Xy,
    extra: Vec<Series<'_>>,
) -> Result<Block> {
    let mut series: Vec<Series<'_>> = result
        .series
        .iter()
        .map(|s| Series { name: &s.algorithm, points: s.points.iter().map(xy).collect() })
        .collect();
    series.extend(extra);
    plots::lines(&out.join(file), title, axes, &series)?;
    Ok(Block::Figure { file: file.to_owned(), caption: title.to_owned() })
}

fn section(figure: &Figure, result: &FigureResult, out: &Path) -> Result<Vec<Block>> {
    let id = figure.id.replace('.', "-");
    let mut blocks = vec![Block::Heading(2, format!("Fig {}: {}", figure.id, figure.caption))];
    let x_label = figure.x_label;
    let mut columns = vec![x_label.to_owned()];
    let value: fn(&Point) -> (&Estimate, usize) = match figure.measure {
        Measure::Rejected | Measure::Benefit => |p| (&p.rejected, 1),
        Measure::ReservedCpu => |p| (&p.reserved_cpu, 2),
        Measure::RejectedPriority => |p| (&p.rejected_priority, 0),
    };
    match figure.measure {
        Measure::Rejected => {
            blocks.push(plot(
                out,
                &format!("fig{id}.svg"),
                figure.caption,
                (x_label, "rejections"),
                result,
                |p| (p.x, p.rejected.mean),
                Vec::new(),
            )?);
        }
        Measure::ReservedCpu => {
            let ideal = Series {
                name: "ideal",
                points: result.series[0].points.iter().map(|p| (p.x, p.requested_cpu.mean)).collect(),
            };
            blocks.push(plot(
                out,
                &format!("fig{id}.svg"),
                figure.caption,
                (x_label, "mean reserved CPU (%)"),
                result,
                |p| (p.x, p.reserved_cpu.mean),
                vec![ideal],
            )?);
        }
        Measure::RejectedPriority => {
            blocks.push(plot(
                out,
                &format!("fig{id}.svg"),
                figure.caption,
                ("rejections", "sum of rejected priorities"),
                result,
                |p| (p.rejected.mean, p.rejected_priority.mean),
                Vec::new(),
            )?);
            columns[0] = format!("{x_label}: simulation time");
        }
        Measure::Benefit => {
            let panels: [(&str, &str, Xy); 2] = [
                ("a", "system benefit", |p| (p.x, p.system_benefit.mean)),
                ("b", "rejections", |p| (p.x, p.rejected.mean)),
            ];
            for (panel, y_label, value) in panels {
                let (file, caption) =
                    (format!("fig{id}{panel}.svg"), format!("{} ({panel})", figure.caption));
                blocks.push(plot(out, &file, &caption, (x_label, y_label), result, value, Vec::new())?);
            }
        }
    }
    // The table: each algorithm's measure, and for chapter 5 its benefit too.
    for s in &result.series {
        columns.push(
            format!("{} {}", s.algorithm, if figure.measure == Measure::Benefit { "rejections" } else { "" })
                .trim()
                .to_owned(),
        );
    }
    if figure.measure == Measure::Benefit {
        columns.extend(result.series.iter().map(|s| format!("{} benefit", s.algorithm)));
    }
    let rows = (0..result.series[0].points.len())
        .map(|k| {
            let x = &result.series[0].points[k];
            let mut row = vec![if figure.x_requests { format!("{:.0}", x.x) } else { format!("{}", x.x) }];
            row.extend(result.series.iter().map(|s| {
                let (e, digits) = value(&s.points[k]);
                cell(e, digits)
            }));
            if figure.measure == Measure::Benefit {
                row.extend(result.series.iter().map(|s| cell(&s.points[k].system_benefit, 3)));
            }
            row
        })
        .collect();
    blocks.push(Block::Table(columns, rows));
    blocks.push(Block::Para(format!("The thesis: {}.", figure.trend)));
    blocks.push(Block::Para(format!("Ours: {}", agreement(figure, result))));
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

/// A sentence on how `result` reads against `figure`'s stated trend.
fn agreement(figure: &Figure, result: &FigureResult) -> String {
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
        (Measure::RejectedPriority, (Some(rb), Some(rspb)), _) => {
            let per =
                |p: &[Point]| total(p, |q| q.rejected_priority.mean) / total(p, |q| q.rejected.mean).max(1.0);
            let (a, b) = (per(rspb), per(rb));
            let text = format!(
                "RSPB's sum of rejected priorities is below RB's at {} points; per rejection, the rejected priority averages {a:.1} under RSPB against {b:.1} under RB (priorities are uniform in 1-100, mean 50.5).",
                count(rb.len(), |k| rspb[k].rejected_priority.mean < rb[k].rejected_priority.mean),
            );
            text
        }
        (Measure::Benefit, _, (Some(p), Some(f), Some(r))) => {
            let n = p.len();
            let (all_p, all_f) = (total(p, |q| q.rejected.mean), total(f, |q| q.rejected.mean));
            let ratio = if all_f > 0.0 { all_p / all_f - 1.0 } else { 0.0 };
            let claim = Claim {
                quoted: Quoted {
                    what: "Co-RSPB's rejections over Co-RSBF's, less 1",
                    source: "section 5.6, Figs 5.9-5.11 b (\"about 10% higher\")",
                    value: 0.10,
                },
                ours: ratio,
                tolerance: RATIO_TOLERANCE,
            };
            let mut text = format!(
                "Co-RSPB's benefit is the highest at {} points; Co-RSBF rejects fewest at {}; Co-RSBFR rejects more than Co-RSPB at {}; Co-RSPB rejects {:+.0} % against Co-RSBF over the sweep, where the thesis has about +10 % ({}): {} at a tolerance of {} of that share.",
                count(n, |k| p[k].system_benefit.mean >= f[k].system_benefit.mean && p[k].system_benefit.mean >= r[k].system_benefit.mean),
                count(n, |k| f[k].rejected.mean <= p[k].rejected.mean && f[k].rejected.mean <= r[k].rejected.mean),
                count(n, |k| r[k].rejected.mean > p[k].rejected.mean),
                100.0 * ratio,
                claim.quoted.source,
                claim.verdict().word(),
                claims::tolerance(RATIO_TOLERANCE),
            );
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
                text.push_str(&format!(
                    " Across the scopes of priority the benefit spans {:.3}, {:.3} and {:.3} (Co-RSPB, Co-RSBF, Co-RSBFR); Co-RSBF and Co-RSBFR decide without priorities, so their rejections cannot change.",
                    spread(p),
                    spread(f),
                    spread(r)
                ));
            }
            text
        }
        _ => "the results lack an algorithm this comparison needs.".into(),
    }
}
