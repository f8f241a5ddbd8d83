//! Line plots (one line per engine) drawn with plotters, written as SVG and PNG.
//!
//! Text is drawn with the embedded DejaVu Sans ([`crate::fonts`]); the SVG keeps its labels as
//! `<text>` elements.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use tribo_engine::Trajectory;

use crate::format::{palette, slug};
use crate::ReportError;

/// Points kept per line: longer series are reduced to the minimum and maximum of equal buckets,
/// so spikes (an impact force) survive.
pub const MAX_PLOT_POINTS: usize = 2000;

pub const PLOT_SIZE: (u32, u32) = (800, 420);

#[derive(Debug, Clone, PartialEq)]
pub struct LinePlot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
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

/// One plot per varying column: the column against time, one line per engine.
pub fn signal_plots(trajectories: &[(&str, &Trajectory)]) -> Vec<LinePlot> {
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
            LinePlot {
                title: column.clone(),
                x_label: "time (s)".into(),
                y_label: column,
                series,
            }
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

/// The data's range, widened when flat so the axis has a span.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo <= 1e-12 * lo.abs().max(1.0) {
        let pad = if lo == 0.0 { 1.0 } else { 0.1 * lo.abs() };
        return (lo - pad, hi + pad);
    }
    let pad = 0.05 * (hi - lo);
    (lo - pad, hi + pad)
}

fn draw<DB: DrawingBackend>(plot: &LinePlot, root: &DrawingArea<DB, plotters::coord::Shift>) -> Result<(), String> {
    crate::fonts::ensure_registered()?;
    let text = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(text)?;
    let all = plot.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = range(all.clone().map(|p| p.0));
    let (y0, y1) = range(all.map(|p| p.1));
    let mut chart = ChartBuilder::on(root)
        .caption(&plot.title, (crate::fonts::FAMILY, 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc(plot.x_label.as_str())
        .y_desc(plot.y_label.as_str())
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
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
            .map_err(text)?
            .label(s.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        if s.markers {
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(text)?;
        }
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
        let plots = signal_plots(&[("a", &a), ("b", &b)]);
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
            x_label: "time (s)".into(),
            y_label: "ball.z".into(),
            series: vec![Series {
                label: "rapier".into(),
                color: 0,
                points: vec![(0.0, 1.0), (1.0, 0.5), (2.0, 0.75)],
                markers: true,
            }],
        };
        let written = write_plot(&plot, &dir).expect("plot");
        assert!(written.svg_text.starts_with("<svg"));
        assert!(written.svg_text.contains("rapier"));
        let png = std::fs::read(&written.png_path).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        std::fs::remove_dir_all(&dir).ok();
    }
}
