//! The report's SVG plots (plotters): rbtree-availability-profile's Figure 5 box plots and its Figure 6
//! histogram for replays, log-log growth plots for benchmarks, the policies' lines and
//! distributions, and means with their confidence intervals (the RSPB figures).

use std::path::Path;

use crate::error::{Error, Result};
use oracle::OpKind;
use plotters::coord::Shift;
use plotters::prelude::*;

use scheduling::replay::BoxStats;

/// One structure's boxes: `check` and `earliest` (`None` where it made no such call).
pub struct Boxes<'a> {
    /// The structure.
    pub name: &'a str,
    /// `check`.
    pub check: Option<&'a BoxStats>,
    /// `earliest`, the paper's schedule operation.
    pub schedule: Option<&'a BoxStats>,
}

const CHECK: RGBColor = RGBColor(31, 119, 180);
const SCHEDULE: RGBColor = RGBColor(255, 127, 14);

/// plotters' error (its backend's, or its drawing area's) as the crate's.
fn failed(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Plot { cause: Box::new(e) }
}

/// Every plot's legend: framed on a near-white background.
fn legend<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    at: SeriesLabelPosition,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(at)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(failed)
}

/// Figure 5: per structure, a box of `visited / worst` (in percent) for `check` and one
/// for `earliest`; whiskers at 1.5 IQR, outliers not drawn (as in the paper), the mean as
/// a dot, and the paper's 10 % line.
///
/// # Errors
/// [`Error::Plot`] when the file cannot be written.
pub fn figure5(path: &Path, title: &str, groups: &[Boxes<'_>]) -> Result<()> {
    let top = groups
        .iter()
        .flat_map(|g| [g.check, g.schedule])
        .flatten()
        .map(|b| 100.0 * b.high.max(b.mean))
        .fold(12.0_f64, f64::max)
        * 1.1;
    let root = SVGBackend::new(path, (160 + 110 * groups.len() as u32, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(failed)?;
    let mut chart = frame(&root, title, (36, 56))
        .build_cartesian_2d(-0.5_f64..groups.len() as f64 - 0.5, 0.0_f64..top)
        .map_err(failed)?;
    let names: Vec<String> = groups.iter().map(|g| g.name.to_owned()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(groups.len().max(2))
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("visited / worst case, %")
        .draw()
        .map_err(failed)?;
    chart
        .draw_series(LineSeries::new([(-0.5, 10.0), (groups.len() as f64 - 0.5, 10.0)], BLACK.mix(0.5)))
        .map_err(failed)?
        .label("10 % of the worst case (the paper's claim)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.mix(0.5)));
    let series = [
        (OpKind::Check.to_string(), CHECK, -0.2),
        (format!("schedule ({})", OpKind::Earliest), SCHEDULE, 0.2),
    ];
    for (op, color, offset) in series {
        let boxes: Vec<(f64, &BoxStats)> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| Some((i as f64 + offset, if offset < 0.0 { g.check? } else { g.schedule? })))
            .collect();
        let mut elements: Vec<PathElement<(f64, f64)>> = Vec::new();
        let mut rects = Vec::new();
        let mut dots = Vec::new();
        for (x, b) in boxes {
            let pct = |v: f64| 100.0 * v;
            let (l, r) = (x - 0.15, x + 0.15);
            rects.push(Rectangle::new([(l, pct(b.q1)), (r, pct(b.q3))], color.mix(0.35).filled()));
            rects.push(Rectangle::new([(l, pct(b.q1)), (r, pct(b.q3))], color.stroke_width(1)));
            elements.push(PathElement::new([(l, pct(b.median)), (r, pct(b.median))], color.stroke_width(2)));
            elements.push(PathElement::new([(x, pct(b.q3)), (x, pct(b.high))], color));
            elements.push(PathElement::new([(x, pct(b.q1)), (x, pct(b.low))], color));
            elements.push(PathElement::new([(x - 0.07, pct(b.high)), (x + 0.07, pct(b.high))], color));
            elements.push(PathElement::new([(x - 0.07, pct(b.low)), (x + 0.07, pct(b.low))], color));
            dots.push(Circle::new((x, pct(b.mean)), 3, BLACK.filled()));
        }
        chart.draw_series(rects).map_err(failed)?;
        chart
            .draw_series(elements)
            .map_err(failed)?
            .label(op)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.mix(0.5).filled()));
        chart.draw_series(dots).map_err(failed)?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    root.present().map_err(failed)
}

/// Figure 6: how many `check` calls left each number of entries unvisited, up to the
/// 99th percentile of that number (the rest counted in the caption by the caller).
///
/// # Errors
/// [`Error::Plot`] when the file cannot be written.
pub fn figure6(path: &Path, title: &str, histogram: &[(u64, u64)], upto: u64) -> Result<()> {
    let shown: Vec<(u64, u64)> = histogram.iter().copied().filter(|&(k, _)| k <= upto).collect();
    let top = shown.iter().map(|&(_, c)| c).max().unwrap_or(1) as f64 * 1.1;
    let root = SVGBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE).map_err(failed)?;
    let mut chart = frame(&root, title, (40, 64))
        .build_cartesian_2d(-0.5_f64..upto as f64 + 0.5, 0.0_f64..top)
        .map_err(failed)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("entries not visited by check (worst case minus visited)")
        .y_desc("calls")
        .draw()
        .map_err(failed)?;
    chart
        .draw_series(shown.iter().map(|&(k, c)| {
            let x = k as f64;
            Rectangle::new([(x - 0.4, 0.0), (x + 0.4, c as f64)], CHECK.mix(0.8).filled())
        }))
        .map_err(failed)?;
    root.present().map_err(failed)?;
    Ok(())
}

/// One structure's line on a growth plot: `(size, ns per call)` points.
pub struct Series<'a> {
    /// The structure.
    pub name: &'a str,
    /// Points, by size.
    pub points: Vec<(f64, f64)>,
}

const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The smallest and largest x and y of every point.
///
/// # Errors
/// [`Error::NoPoints`] when there is no point.
fn extent(series: &[Series<'_>]) -> Result<((f64, f64), (f64, f64))> {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let (x_lo, x_hi) = all().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    let (y_lo, y_hi) = all().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    if x_lo > x_hi {
        return Err(Error::NoPoints);
    }
    Ok(((x_lo, x_hi), (y_lo, y_hi)))
}

/// One series as a line of `width`, with its legend entry.
fn draw_line<'a, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    line: &Series<'_>,
    color: RGBColor,
    width: u32,
) -> Result<()> {
    chart
        .draw_series(LineSeries::new(line.points.iter().copied(), color.stroke_width(width)))
        .map_err(failed)?
        .label(line.name)
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
    Ok(())
}

/// A chart's frame: its title, and room for the axes' labels.
fn frame<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
    (x_area, y_area): (u32, u32),
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(root);
    builder.caption(title, ("sans-serif", 18)).margin(12).x_label_area_size(x_area).y_label_area_size(y_area);
    builder
}

/// Every series as a line of width 2 with a dot at each point.
fn dotted_lines<'a, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    series: &[Series<'_>],
) -> Result<()> {
    for (i, line) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        draw_line(chart, line, color, 2)?;
        chart.draw_series(line.points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(failed)?;
    }
    Ok(())
}

/// The series with every point moved by `f` (onto a logarithmic axis's range).
fn moved<'a>(series: &[Series<'a>], f: impl Fn((f64, f64)) -> (f64, f64)) -> Vec<Series<'a>> {
    series.iter().map(|s| Series { name: s.name, points: s.points.iter().map(|&p| f(p)).collect() }).collect()
}

/// Time per call against profile entries, both axes logarithmic, one line per structure.
///
/// # Errors
/// [`Error::Plot`] when the file cannot be written.
pub fn growth(path: &Path, title: &str, series: &[Series<'_>]) -> Result<()> {
    let ((x_lo, x_hi), (y_lo, y_hi)) = extent(series)?;
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(failed)?;
    let mut chart = frame(&root, title, (40, 70))
        .build_cartesian_2d((x_lo / 1.5..x_hi * 1.5).log_scale(), (y_lo / 2.0..y_hi * 2.0).log_scale())
        .map_err(failed)?;
    chart
        .configure_mesh()
        .x_desc("profile entries")
        .y_desc("median ns per call")
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()
        .map_err(failed)?;
    dotted_lines(&mut chart, series)?;
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    root.present().map_err(failed)
}

/// Lines on linear axes, one per series (fcfs-eds-slotted-array's Fig 4: utilisation
/// over time).
///
/// # Errors
/// [`Error::NoPoints`] when there is nothing to plot, [`Error::Plot`] when the file
/// cannot be written.
pub fn lines(path: &Path, title: &str, (x_desc, y_desc): (&str, &str), series: &[Series<'_>]) -> Result<()> {
    let ((x_lo, x_hi), (_, y_hi)) = extent(series)?;
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(failed)?;
    let mut chart = frame(&root, title, (40, 60))
        .build_cartesian_2d(x_lo..x_hi.max(x_lo + 1.0), 0.0..(y_hi * 1.1).max(1.0))
        .map_err(failed)?;
    chart.configure_mesh().x_desc(x_desc).y_desc(y_desc).draw().map_err(failed)?;
    for (i, line) in series.iter().enumerate() {
        draw_line(&mut chart, line, PALETTE[i % PALETTE.len()], 1)?;
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    root.present().map_err(failed)
}

/// A mean and the half-widths of its 95 % confidence interval along x and y (0 where
/// the value is set, not measured).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mean {
    /// x.
    pub x: f64,
    /// y.
    pub y: f64,
    /// Half the interval of x.
    pub x_half: f64,
    /// Half the interval of y.
    pub y_half: f64,
}

/// One line of means, each point drawn with its intervals.
pub struct Means<'a> {
    /// What it is of (an algorithm).
    pub name: &'a str,
    /// Its points, in the line's order.
    pub points: Vec<Mean>,
}

/// An axis label without the float noise of the axis's steps: "1500", not "1500.0";
/// "0.3", not "0.30000000000000004".
fn label(v: f64) -> String {
    let fixed = format!("{v:.6}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    if trimmed == "-0" {
        "0".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// Lines of means on linear axes, y from 0, each point a dot with its 95 % interval as an
/// error bar (a cross where x is a measured mean too), so that a reader sees which
/// differences the seeds resolve.
///
/// # Errors
/// [`Error::NoPoints`] when there is nothing to plot, [`Error::Plot`] when the file
/// cannot be written.
pub fn means(path: &Path, title: &str, (x_desc, y_desc): (&str, &str), series: &[Means<'_>]) -> Result<()> {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let (x_lo, x_hi) =
        all().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.x - p.x_half), hi.max(p.x + p.x_half)));
    let y_hi = all().fold(f64::MIN, |hi, p| hi.max(p.y + p.y_half));
    if x_lo > x_hi {
        return Err(Error::NoPoints);
    }
    // A margin so that the first and last bars' caps are not cut at the frame.
    let margin = 0.03 * (x_hi - x_lo).max(1.0);
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(failed)?;
    let mut chart = frame(&root, title, (40, 60))
        .build_cartesian_2d(x_lo - margin..x_hi + margin, 0.0..(y_hi * 1.1).max(1.0))
        .map_err(failed)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|v| label(*v))
        .y_label_formatter(&|v| label(*v))
        .draw()
        .map_err(failed)?;
    // Caps a fixed share of the axes wide, whatever their units.
    let (x_cap, y_cap) = (0.006 * (x_hi - x_lo + 2.0 * margin), 0.01 * (y_hi * 1.1).max(1.0));
    for (i, line) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let xy = Series { name: line.name, points: line.points.iter().map(|p| (p.x, p.y)).collect() };
        draw_line(&mut chart, &xy, color, 1)?;
        chart.draw_series(xy.points.iter().map(|&p| Circle::new(p, 2, color.filled()))).map_err(failed)?;
        let mut bars = Vec::new();
        for p in &line.points {
            if p.y_half > 0.0 {
                let (lo, hi) = (p.y - p.y_half, p.y + p.y_half);
                bars.push(PathElement::new([(p.x, lo), (p.x, hi)], color));
                bars.push(PathElement::new([(p.x - x_cap, lo), (p.x + x_cap, lo)], color));
                bars.push(PathElement::new([(p.x - x_cap, hi), (p.x + x_cap, hi)], color));
            }
            if p.x_half > 0.0 {
                let (lo, hi) = (p.x - p.x_half, p.x + p.x_half);
                bars.push(PathElement::new([(lo, p.y), (hi, p.y)], color));
                bars.push(PathElement::new([(lo, p.y - y_cap), (lo, p.y + y_cap)], color));
                bars.push(PathElement::new([(hi, p.y - y_cap), (hi, p.y + y_cap)], color));
            }
        }
        chart.draw_series(bars).map_err(failed)?;
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    root.present().map_err(failed)
}

/// Distributions, one line per series: x (a wait, in hours) on a logarithmic axis from
/// `floor` up, y the share of jobs at or below it, in percent (coallocation-2d-trees'
/// Figs 4 a and 6). Values under `floor` are drawn at `floor`, since a logarithmic axis
/// has no zero.
///
/// # Errors
/// [`Error::NoPoints`] when there is nothing to plot, [`Error::Plot`] when the file
/// cannot be written.
pub fn distribution(path: &Path, title: &str, x_desc: &str, floor: f64, series: &[Series<'_>]) -> Result<()> {
    let floored = moved(series, |(x, y)| (x.max(floor), y));
    let ((_, x_hi), _) = extent(&floored)?;
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(failed)?;
    let mut chart = frame(&root, title, (40, 60))
        .build_cartesian_2d((floor..(x_hi * 1.5).max(floor * 10.0)).log_scale(), 0.0..100.0)
        .map_err(failed)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("jobs at or below (%)")
        .x_label_formatter(&|x| format!("{x}"))
        .draw()
        .map_err(failed)?;
    for (i, line) in floored.iter().enumerate() {
        draw_line(&mut chart, line, PALETTE[i % PALETTE.len()], 2)?;
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    root.present().map_err(failed)
}

/// Lines over a linear x and a logarithmic y from `floor` up, with a dot at each point
/// (coallocation-2d-trees' Fig 3: penalties an order of magnitude apart). Values under
/// `floor` are drawn at `floor`.
///
/// # Errors
/// [`Error::NoPoints`] when there is nothing to plot, [`Error::Plot`] when the file
/// cannot be written.
pub fn log_lines(
    path: &Path,
    title: &str,
    (x_desc, y_desc): (&str, &str),
    floor: f64,
    series: &[Series<'_>],
) -> Result<()> {
    let floored = moved(series, |(x, y)| (x, y.max(floor)));
    let ((x_lo, x_hi), (y_lo, y_hi)) = extent(&floored)?;
    let bottom = (y_lo / 2.0).max(floor);
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(failed)?;
    let mut chart = frame(&root, title, (40, 70))
        .build_cartesian_2d(
            x_lo.min(0.0)..x_hi.max(x_lo + 1.0),
            (bottom..(y_hi * 2.0).max(bottom * 10.0)).log_scale(),
        )
        .map_err(failed)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .y_label_formatter(&|y| format!("{y}"))
        .draw()
        .map_err(failed)?;
    dotted_lines(&mut chart, &floored)?;
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    root.present().map_err(failed)
}
