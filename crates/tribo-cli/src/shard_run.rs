//! What `tribo sweep ... --shard K/N --out DIR` leaves once its points have run: `DIR/shard.json`
//! for `--merge`, the table (or `--json`) of its own points on stdout, and a note when the grid
//! has fewer points than K, so that the shard has none.

use std::path::Path;

use serde_json::{json, Value};
use tribo_report::SweepReport;

use crate::failure::CliResult;
use crate::materials::pretty;
use crate::shard::Shard;
use crate::shard_file::{Grid, ShardFile};
use crate::sweep::{failed_runs, sweep_json, sweep_text};

/// Write the shard, print its points, and fail (exit status 1) if any of its runs failed — after
/// writing, so that `--merge` still gets every run, failed ones included, as the sweep on one
/// machine would.
pub fn finish(
    dir: &Path,
    shard: Shard,
    grid: Grid,
    indices: &[usize],
    report: SweepReport,
    json: bool,
    quiet: bool,
) -> CliResult {
    let size = grid.size();
    let project = std::path::PathBuf::from(&grid.project);
    let failed = failed_runs(&report);
    let text = if json {
        pretty(&shard_json(&report, shard, size, indices)) + "\n"
    } else {
        sweep_text(&report)
    };
    let file = ShardFile {
        tribo: env!("CARGO_PKG_VERSION").to_string(),
        shard,
        grid,
        points: indices.iter().copied().zip(report.points).collect(),
    };
    let path = crate::shard_file::write(dir, &file)?;
    if !quiet {
        if indices.is_empty() {
            eprintln!(
                "shard {shard} has no points: the grid has {size} (shard K of N runs the points K, K+N, \
                 K+2N, ...); {} records the empty shard for --merge",
                path.display()
            );
        } else {
            eprintln!(
                "shard {shard}: {} of the grid's {size} points; {} is ready for --merge",
                indices.len(),
                path.display()
            );
        }
    }
    crate::output::out!("{text}");
    crate::failure::runs_failed(&project, &failed)
}

/// The sweep JSON of the shard's points, with `"shard": {"index", "count", "grid_points",
/// "point_indices"}` (0-based indices into the grid).
fn shard_json(report: &SweepReport, shard: Shard, size: usize, indices: &[usize]) -> Value {
    let mut v = sweep_json(report);
    if let Value::Object(map) = &mut v {
        map.insert(
            "shard".into(),
            json!({
                "index": shard.index(),
                "count": shard.count(),
                "grid_points": size,
                "point_indices": indices,
            }),
        );
    }
    v
}
