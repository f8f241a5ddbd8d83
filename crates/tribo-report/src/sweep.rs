//! Sweep reports: every metric against every swept parameter, one line per engine (and per value
//! of the other swept parameters), as SVG and PNG files and one `sweep.html`.

use std::path::Path;
use std::time::Duration;

use tribo_runner::{MetricResult, RunRecord};

use crate::format::escape_html;
use crate::html::{figures_html, page, Figure};
use crate::plots::{write_plot, LinePlot, Series};
use crate::table::metric_cell;
use crate::{io_error, ReportError, ReportFiles};

/// One engine's run at a grid point, as a sweep shows it: what its table, JSON and plots need and
/// nothing more (no trajectory, no replay), so a sweep of many points stays small in memory and a
/// part of it can be stored and joined with the others (`tribo sweep --shard`, `--merge`).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepRun {
    pub engine: String,
    /// Steps completed (up to the failure, for a failed run).
    pub steps: u64,
    /// s.
    pub simulated_time: f64,
    pub wall_time: Duration,
    pub metrics: Vec<MetricResult>,
    pub warnings: Vec<String>,
    /// Why the run failed, as [`RunRecord::failure_text`] words it; `None` for a finished run.
    pub failure: Option<String>,
}

impl SweepRun {
    /// Steps per wall-clock second (∞ for a run that took no measurable time), as
    /// [`RunOutcome::steps_per_second`](tribo_runner::RunOutcome::steps_per_second).
    pub fn steps_per_second(&self) -> f64 {
        let secs = self.wall_time.as_secs_f64();
        if secs > 0.0 {
            self.steps as f64 / secs
        } else {
            f64::INFINITY
        }
    }

    pub fn is_failed(&self) -> bool {
        self.failure.is_some()
    }
}

impl From<RunRecord> for SweepRun {
    fn from(record: RunRecord) -> SweepRun {
        let failure = record.failure_text();
        let outcome = record.outcome;
        SweepRun {
            engine: outcome.engine,
            steps: outcome.steps,
            simulated_time: outcome.simulated_time,
            wall_time: outcome.wall_time,
            metrics: outcome.metrics,
            warnings: outcome.warnings,
            failure,
        }
    }
}

/// One grid point: the swept parameters' values (in [`SweepReport::parameters`] order) and one
/// run per engine (in [`SweepReport::engines`] order).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint {
    pub values: Vec<String>,
    pub runs: Vec<SweepRun>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SweepReport {
    pub project: String,
    pub parameters: Vec<String>,
    pub engines: Vec<String>,
    pub points: Vec<SweepPoint>,
}

impl SweepReport {
    /// Metric names, from the first outcome (every run of a project has the same list).
    pub fn metric_names(&self) -> Vec<String> {
        self.points
            .first()
            .and_then(|p| p.runs.first())
            .map(|r| r.metrics.iter().map(|m| m.name.clone()).collect())
            .unwrap_or_default()
    }

    /// For each metric with a numeric value somewhere, a plot per swept parameter: the metric
    /// against the parameter, one line per engine and per combination of the other parameters.
    /// Word-valued parameters are placed at their position in the sweep (0, 1, 2, …).
    pub fn plots(&self) -> Vec<LinePlot> {
        let mut plots = Vec::new();
        for (mi, metric) in self.metric_names().iter().enumerate() {
            let numeric = self
                .points
                .iter()
                .flat_map(|p| &p.runs)
                .any(|r| r.metrics.get(mi).and_then(|m| m.value.as_number()).is_some());
            if !numeric {
                continue;
            }
            let unit = self
                .points
                .iter()
                .flat_map(|p| &p.runs)
                .find_map(|r| r.metrics.get(mi))
                .map(|m| m.unit.clone())
                .unwrap_or_default();
            for (pi, param) in self.parameters.iter().enumerate() {
                let mut plot = LinePlot {
                    title: format!("{metric} vs {param}"),
                    x_label: param.clone(),
                    x_unit: String::new(),
                    y_label: metric.clone(),
                    y_unit: unit.clone(),
                    series: self.series(mi, pi),
                    constant: None,
                };
                // A metric's only scale is itself: the flatness rule's relative part decides.
                plot.flatten_if_constant(0.0);
                plots.push(plot);
            }
        }
        plots
    }

    fn x_of(&self, pi: usize, value: &str) -> f64 {
        match value.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                let mut seen: Vec<&str> = Vec::new();
                for p in &self.points {
                    if let Some(v) = p.values.get(pi) {
                        if !seen.contains(&v.as_str()) {
                            seen.push(v);
                        }
                    }
                }
                seen.iter().position(|v| *v == value).unwrap_or(0) as f64
            }
        }
    }

    fn series(&self, mi: usize, pi: usize) -> Vec<Series> {
        let mut series: Vec<Series> = Vec::new();
        for (ei, engine) in self.engines.iter().enumerate() {
            for point in &self.points {
                let others: Vec<String> = self
                    .parameters
                    .iter()
                    .zip(&point.values)
                    .enumerate()
                    .filter(|(i, _)| *i != pi)
                    .map(|(_, (n, v))| format!("{n}={v}"))
                    .collect();
                let label = if others.is_empty() {
                    engine.clone()
                } else {
                    format!("{engine}, {}", others.join(", "))
                };
                let Some(y) = point
                    .runs
                    .get(ei)
                    .and_then(|r| r.metrics.get(mi))
                    .and_then(|m| m.value.as_number())
                else {
                    continue;
                };
                let x = point.values.get(pi).map_or(0.0, |v| self.x_of(pi, v));
                let index = match series.iter().position(|s| s.label == label) {
                    Some(i) => i,
                    None => {
                        series.push(Series {
                            label,
                            color: series.len(),
                            points: Vec::new(),
                            markers: true,
                        });
                        series.len() - 1
                    }
                };
                series[index].points.push((x, y));
            }
        }
        for s in &mut series {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        series
    }

    /// `<table>`: one row per point and engine.
    pub fn table_html(&self) -> String {
        let metrics = self.metric_names();
        let mut out = String::from("<table class=\"metrics\">\n<thead><tr>");
        for p in &self.parameters {
            out.push_str(&format!("<th>{}</th>", escape_html(p)));
        }
        out.push_str("<th>engine</th>");
        for m in &metrics {
            out.push_str(&format!("<th>{}</th>", escape_html(m)));
        }
        out.push_str("<th>steps/s</th></tr></thead>\n<tbody>\n");
        for point in &self.points {
            for r in &point.runs {
                out.push_str("<tr>");
                for v in &point.values {
                    out.push_str(&format!("<td>{}</td>", escape_html(v)));
                }
                out.push_str(&format!("<td>{}</td>", escape_html(&r.engine)));
                for i in 0..metrics.len() {
                    out.push_str(&metric_cell(r.metrics.get(i)));
                }
                out.push_str(&format!("<td>{:.0}</td></tr>\n", r.steps_per_second()));
            }
        }
        out.push_str("</tbody>\n</table>\n");
        out
    }
}

/// Write `dir/sweep.html` and `dir/plots/*.svg|png`.
pub fn write_sweep_report(dir: &Path, report: &SweepReport) -> Result<ReportFiles, ReportError> {
    let plot_dir = dir.join("plots");
    std::fs::create_dir_all(&plot_dir).map_err(io_error(&plot_dir))?;
    let mut files = ReportFiles::default();
    let mut figures = Vec::new();
    for plot in report.plots() {
        let written = write_plot(&plot, &plot_dir)?;
        figures.push(Figure {
            title: plot.title.clone(),
            svg: written.svg_text,
            files: vec![
                format!("plots/{}.svg", written.stem),
                format!("plots/{}.png", written.stem),
            ],
        });
        files.plots.push(written.svg_path);
        files.plots.push(written.png_path);
    }
    let mut body = format!("<h1>{} — sweep</h1>\n", escape_html(&report.project));
    body.push_str(&format!(
        "<p>{} points × {} engines over {}</p>\n",
        report.points.len(),
        report.engines.len(),
        escape_html(&report.parameters.join(", "))
    ));
    body.push_str("<section id=\"plots\">\n<h2>Metrics against the swept parameters</h2>\n");
    body.push_str(&figures_html(&figures));
    body.push_str("</section>\n<section id=\"metrics\">\n<h2>Every point</h2>\n");
    body.push_str(&report.table_html());
    body.push_str("</section>\n");
    let path = dir.join("sweep.html");
    std::fs::write(
        &path,
        page(
            &format!("{} — tribo sweep", report.project),
            &body,
            "<script>window.__tribo_report();</script>\n",
        ),
    )
    .map_err(io_error(&path))?;
    files.html = path;
    Ok(files)
}
