//! Reports of `tribo compare` and `tribo sweep`: one self-contained HTML file per report (no
//! network: scripts, data and plots are inline) plus every plot as SVG and PNG beside it.
//!
//! - [`write_compare_report`]: the metric table, one time-series plot per recorded signal column
//!   (one line per engine), a 3-D replay of every engine side by side (shared time slider,
//!   play/pause, contact forces as arrows) and, for engines with distributed contact patches,
//!   per-pad pressure maps over time.
//! - [`write_sweep_report`]: every metric against every swept parameter, one line per engine.

mod flat;
mod fonts;
mod format;
mod html;
mod notes;
mod plots;
mod pressure;
mod replay_data;
mod sweep;
mod table;
mod ticks;
mod units;

use std::path::{Path, PathBuf};

use tribo_runner::{RunError, RunOutcome};
use tribo_scene::Project;

pub use plots::{signal_columns, Constant, LinePlot, Series};
pub use pressure::{heat, pressure_maps, write_pressure_images, PressureImage, PressureMap, PressureRecorder};
pub use replay_data::{replay_json, MAX_REPLAY_FRAMES};
pub use sweep::{write_sweep_report, SweepPoint, SweepReport, SweepRun};

/// A report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: cannot write: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: cannot draw the plot: {message}")]
    Plot { path: PathBuf, message: String },
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One engine's run as the report shows it: its outcome (up to the failure, for a failed run),
/// why it failed, and, when the engine has distributed contact patches, their pressure maps.
#[derive(Debug, Clone, Copy)]
pub struct EngineRun<'a> {
    pub outcome: &'a RunOutcome,
    pub failure: Option<&'a RunError>,
    pub pressure: &'a [PressureMap],
}

/// The files a report wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportFiles {
    pub html: PathBuf,
    /// Every plot, SVG then PNG.
    pub plots: Vec<PathBuf>,
}

/// Write `dir/report.html` and `dir/plots/*.svg|png` for `runs` of `project`.
pub fn write_compare_report(dir: &Path, project: &Project, runs: &[EngineRun]) -> Result<ReportFiles, ReportError> {
    let plot_dir = dir.join("plots");
    std::fs::create_dir_all(&plot_dir).map_err(io_error(&plot_dir))?;
    let trajectories: Vec<(&str, &tribo_runner::Trajectory)> = runs
        .iter()
        .map(|r| (r.outcome.engine.as_str(), &r.outcome.trajectory))
        .collect();
    let mut files = ReportFiles::default();
    let mut figures = Vec::new();
    for plot in plots::signal_plots(&trajectories, &units::column_units(project)) {
        let written = plots::write_plot(&plot, &plot_dir)?;
        figures.push(html::Figure {
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
    let page = html::compare_page(project, runs, &figures);
    let path = dir.join("report.html");
    std::fs::write(&path, page).map_err(io_error(&path))?;
    files.html = path;
    Ok(files)
}
