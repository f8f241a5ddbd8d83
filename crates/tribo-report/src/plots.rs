//! Line plots (one line per engine) drawn with plotters, written as SVG and PNG.
//!
//! Text is drawn with the embedded DejaVu Sans ([`crate::fonts`]); the SVG keeps its labels as
//! `<text>` elements.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use tribo_runner::metrics::format_number;
use tribo_runner::Trajectory;

use crate::flat;
use crate::format::{palette, slug};
use crate::ticks::{describe, Axis, X_TICKS, Y_TICKS};
use crate::ReportError;

/// Points kept per line: longer series are reduced to the minimum and maximum of equal buckets,
/// so spikes (an impact force) survive.
pub const MAX_PLOT_POINTS: usize = 2000;

pub const PLOT_SIZE: (u32, u32) = (800, 420);

/// Series with more points than this are drawn with one-pixel lines (see [`draw`]).
const DENSE_POINTS: usize = 100;

#[derive(Debug, Clone, PartialEq)]
pub struct LinePlot {
    pub title: String,
    pub x_label: String,
    /// The x values' unit (`""` when unknown); the axis shows it, with an SI prefix if needed.
    pub x_unit: String,
    pub y_label: String,
    /// The y values' unit (`""` when unknown).
    pub y_unit: String,
    pub series: Vec<Series>,
    /// Set when the y values are constant by the flatness rule (module `flat`): the lines are
    /// drawn flat at the value and labelled `constant: VALUE`.
    pub constant: Option<Constant>,
}

/// A plot whose y values count as constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Constant {
    pub value: f64,
    /// max − min of the values drawn flat.
    pub spread: f64,
    /// The largest |value| recorded in the unit (the flatness rule's scale).
    pub scale: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    /// Index into the engine palette.
    pub color: usize,
    pub points: Vec<(f64, f64)>,
    /// Draw a dot at every point (for sweeps with a few points).
    pub markers: bool,
}

impl LinePlot {
    /// Apply the flatness rule with `scale` (the largest |value| of the y unit in the report):
    /// when the y values count as constant, set [`LinePlot::constant`] and draw every series
    /// flat at that value.
    pub fn flatten_if_constant(&mut self, scale: f64) {
        let ys = self.series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
        let Some((lo, hi)) = flat::bounds(ys) else {
            return;
        };
        if !flat::is_flat(lo, hi, scale.max(lo.abs()).max(hi.abs())) {
            return;
        }
        let value = flat::flat_value(lo, hi);
        for s in &mut self.series {
            for p in &mut s.points {
                if p.1.is_finite() {
                    p.1 = value;
                }
            }
        }
        self.constant = Some(Constant {
            value,
            spread: hi - lo,
            scale,
        });
    }

    /// `constant: 0 m (rapier, pgs; spread 5.4e-15 m)`, for a constant plot.
    pub fn constant_text(&self) -> Option<String> {
        let c = self.constant?;
        let with_unit = |v: f64| {
            let n = format_number(v);
            if self.y_unit.is_empty() {
                n
            } else {
                format!("{n} {}", self.y_unit)
            }
        };
        let names: Vec<&str> = self.series.iter().map(|s| s.label.as_str()).collect();
        Some(format!(
            "constant: {} ({}; spread {})",
            with_unit(c.value),
            names.join(", "),
            with_unit(c.spread)
        ))
    }
}

/// The recorded columns (after `time`) that vary in at least one engine's run, in column order.
/// Columns constant across every run (the y of a ball dropped straight down) are left out.
pub fn signal_columns(trajectories: &[(&str, &Trajectory)]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, t) in trajectories {
        for c in t.columns.iter().skip(1) {
            if !names.contains(c) {
                names.push(c.clone());
            }
        }
    }
    names
        .into_iter()
        .filter(|name| {
            let mut values = trajectories
                .iter()
                .filter_map(|(_, t)| t.column(name))
                .flatten()
                .filter(|v| v.is_finite());
            match values.next() {
                Some(first) => values.any(|v| v != first),
                None => false,
            }
        })
        .collect()
}

/// One plot per varying column: the column against time, one line per engine, y in the
/// column's unit from `units` (column → unit). A column constant by the flatness rule
/// (module `flat`; its scale is the largest |value| of all recorded columns in its unit) is
/// drawn flat and labelled `constant: VALUE`.
pub fn signal_plots(trajectories: &[(&str, &Trajectory)], units: &BTreeMap<String, String>) -> Vec<LinePlot> {
    let unit_of = |column: &str| units.get(column).cloned().unwrap_or_default();
    let mut scales: BTreeMap<String, f64> = BTreeMap::new();
    for (_, t) in trajectories {
        for (i, column) in t.columns.iter().enumerate().skip(1) {
            let unit = unit_of(column);
            if unit.is_empty() {
                continue;
            }
            let largest = t
                .rows
                .iter()
                .filter_map(|r| r.get(i))
                .filter(|v| v.is_finite())
                .fold(0.0_f64, |m, v| m.max(v.abs()));
            let scale = scales.entry(unit).or_insert(0.0);
            *scale = scale.max(largest);
        }
    }
    signal_columns(trajectories)
        .into_iter()
        .map(|column| {
            let series = trajectories
                .iter()
                .enumerate()
                .filter_map(|(i, (engine, t))| {
                    let times = t.column("time")?;
                    let values = t.column(&column)?;
                    let points: Vec<(f64, f64)> = times.into_iter().zip(values).collect();
                    Some(Series {
                        label: engine.to_string(),
                        color: i,
                        points: decimate(&points, MAX_PLOT_POINTS),
                        markers: false,
                    })
                })
                .collect();
            let y_unit = unit_of(&column);
            let scale = scales.get(&y_unit).copied().unwrap_or(0.0);
            let mut plot = LinePlot {
                title: column.clone(),
                x_label: "time".into(),
                x_unit: "s".into(),
                y_label: column,
                y_unit,
                series,
                constant: None,
            };
            plot.flatten_if_constant(scale);
            plot
        })
        .collect()
}

/// At most `max` points: the series cut into `max / 2` buckets of consecutive points, each
/// represented by its minimum and maximum in their original order.
pub fn decimate(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max < 2 {
        return points.to_vec();
    }
    let buckets = max / 2;
    let mut out = Vec::with_capacity(max);
    for b in 0..buckets {
        let start = b * points.len() / buckets;
        let end = ((b + 1) * points.len() / buckets).max(start + 1);
        let bucket = &points[start..end.min(points.len())];
        let lowest = bucket.iter().enumerate().min_by(|x, y| x.1 .1.total_cmp(&y.1 .1));
        let highest = bucket.iter().enumerate().max_by(|x, y| x.1 .1.total_cmp(&y.1 .1));
        if let (Some((il, &l)), Some((ih, &h))) = (lowest, highest) {
            if il == ih {
                out.push(l);
            } else if il < ih {
                out.extend([l, h]);
            } else {
                out.extend([h, l]);
            }
        }
    }
    out
}

/// What [`write_plot`] wrote.
#[derive(Debug, Clone)]
pub struct WrittenPlot {
    pub stem: String,
    pub svg_path: PathBuf,
    pub png_path: PathBuf,
    pub svg_text: String,
}

/// Draw `plot` into `dir/STEM.svg` and `dir/STEM.png` (STEM from the title) and return the SVG text.
pub fn write_plot(plot: &LinePlot, dir: &Path) -> Result<WrittenPlot, ReportError> {
    let stem = slug(&plot.title);
    let svg_path = dir.join(format!("{stem}.svg"));
    let png_path = dir.join(format!("{stem}.png"));
    let mut svg_text = String::new();
    {
        let root = SVGBackend::with_string(&mut svg_text, PLOT_SIZE).into_drawing_area();
        draw(plot, &root).map_err(|message| ReportError::Plot {
            path: svg_path.clone(),
            message,
        })?;
    }
    std::fs::write(&svg_path, &svg_text).map_err(crate::io_error(&svg_path))?;
    {
        let root = BitMapBackend::new(&png_path, PLOT_SIZE).into_drawing_area();
        draw(plot, &root).map_err(|message| ReportError::Plot {
            path: png_path.clone(),
            message,
        })?;
    }
    Ok(WrittenPlot {
        stem,
        svg_path,
        png_path,
        svg_text,
    })
}

/// The axis span of `values`: the data with 5 % margins, or ±10 % around a single value (±1 at
/// zero). A span too small for f64 to divide into ticks is widened the same way.
fn data_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let Some((lo, hi)) = flat::bounds(values) else {
        return (0.0, 1.0);
    };
    if hi - lo <= 64.0 * f64::EPSILON * lo.abs().max(hi.abs()) {
        return around(0.5 * (lo + hi), 0.0);
    }
    let pad = 0.05 * (hi - lo);
    (lo - pad, hi + pad)
}

/// `value ± max(10 % of |value|, 10 % of scale)`, ±1 when both are zero.
fn around(value: f64, scale: f64) -> (f64, f64) {
    let half = (0.1 * value.abs()).max(0.1 * scale.abs());
    let half = if half > 0.0 { half } else { 1.0 };
    (value - half, value + half)
}

/// An axis of the chart: a linear range whose grid lines are [`Axis`]'s ticks (plotters' own
/// key points would not match the labels' precision).
struct Ticked {
    linear: RangedCoordf64,
    ticks: Vec<f64>,
    minor: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.linear.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.minor.clone()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.linear.range()
    }
}

fn coord(lo: f64, hi: f64, axis: &Axis) -> Ticked {
    Ticked {
        linear: (lo..hi).into(),
        ticks: axis.ticks.clone(),
        minor: axis.minor.clone(),
    }
}

fn draw<DB: DrawingBackend>(plot: &LinePlot, root: &DrawingArea<DB, plotters::coord::Shift>) -> Result<(), String> {
    crate::fonts::ensure_registered()?;
    let text = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(text)?;
    let all = plot.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = data_range(all.clone().map(|p| p.0));
    let (y0, y1) = match plot.constant {
        Some(c) => around(c.value, c.scale),
        None => data_range(all.map(|p| p.1)),
    };
    let x_axis = Axis::new(x0, x1, X_TICKS);
    let y_axis = Axis::new(y0, y1, Y_TICKS);
    let widest = y_axis
        .ticks
        .iter()
        .map(|&t| y_axis.label(t).chars().count())
        .max()
        .unwrap_or(1);
    let y_area = u32::try_from(widest)
        .unwrap_or(20)
        .saturating_mul(8)
        .saturating_add(40)
        .clamp(60, 220);
    let mut chart = ChartBuilder::on(root)
        .caption(&plot.title, (crate::fonts::FAMILY, 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(y_area)
        .build_cartesian_2d(coord(x0, x1, &x_axis), coord(y0, y1, &y_axis))
        .map_err(text)?;
    let x_label = |v: &f64| x_axis.label(*v);
    let y_label = |v: &f64| y_axis.label(*v);
    chart
        .configure_mesh()
        .x_desc(describe(&plot.x_label, &x_axis.unit(&plot.x_unit)))
        .y_desc(describe(&plot.y_label, &y_axis.unit(&plot.y_unit)))
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .label_style((crate::fonts::FAMILY, 13))
        .axis_desc_style((crate::fonts::FAMILY, 14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(text)?;
    for s in &plot.series {
        let (r, g, b) = palette(s.color);
        let color = RGBColor(r, g, b);
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        // plotters joins wide strokes with unclipped miters: at a one-sample spike (an impact
        // force) the join shoots far past the data, even below the axis. Dense series are drawn
        // one pixel wide, which has no joins.
        let width = if points.len() > DENSE_POINTS { 1 } else { 2 };
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(width)))
            .map_err(text)?
            .label(s.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        if s.markers {
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(text)?;
        }
    }
    if let (Some(c), Some(note)) = (plot.constant, plot.constant_text()) {
        let at = (x0 + 0.03 * (x1 - x0), c.value + 0.35 * (y1 - c.value));
        chart
            .draw_series(std::iter::once(Text::new(note, at, (crate::fonts::FAMILY, 15))))
            .map_err(text)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(text)?;
    root.present().map_err(text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trajectory(values: &[(f64, f64, f64)]) -> Trajectory {
        Trajectory {
            columns: vec!["time".into(), "ball.y".into(), "ball.z".into()],
            rows: values.iter().map(|&(t, y, z)| vec![t, y, z]).collect(),
        }
    }

    #[test]
    fn constant_columns_are_left_out() {
        let a = trajectory(&[(0.0, 0.0, 1.0), (0.1, 0.0, 0.9)]);
        let b = trajectory(&[(0.0, 0.0, 1.0), (0.1, 0.0, 0.95)]);
        assert_eq!(signal_columns(&[("a", &a), ("b", &b)]), vec!["ball.z".to_string()]);
        let plots = signal_plots(&[("a", &a), ("b", &b)], &BTreeMap::new());
        assert_eq!(plots.len(), 1);
        assert_eq!(plots[0].series.len(), 2);
        assert_eq!(plots[0].series[1].points, vec![(0.0, 1.0), (0.1, 0.95)]);
    }

    #[test]
    fn decimation_keeps_spikes_and_order() {
        let mut points: Vec<(f64, f64)> = (0..10_000).map(|i| (i as f64, 0.0)).collect();
        points[4321].1 = 50.0;
        points[7000].1 = -3.0;
        let kept = decimate(&points, 100);
        assert!(kept.len() <= 100);
        assert!(kept.contains(&(4321.0, 50.0)));
        assert!(kept.contains(&(7000.0, -3.0)));
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn writes_svg_and_png() {
        let dir = std::env::temp_dir().join(format!("tribo-report-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let plot = LinePlot {
            title: "ball.z".into(),
            x_label: "time".into(),
            x_unit: "s".into(),
            y_label: "ball.z".into(),
            y_unit: "m".into(),
            series: vec![Series {
                label: "rapier".into(),
                color: 0,
                points: vec![(0.0, 1.0), (1.0, 0.5), (2.0, 0.75)],
                markers: true,
            }],
            constant: None,
        };
        let written = write_plot(&plot, &dir).expect("plot");
        assert!(written.svg_text.starts_with("<svg"));
        assert!(written.svg_text.contains("rapier"));
        let png = std::fs::read(&written.png_path).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        std::fs::remove_dir_all(&dir).ok();
    }
}
