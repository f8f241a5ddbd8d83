//! `--out DIR`: checked before any simulation, `trajectory.csv` streamed while a run goes,
//! `metrics.json` and pressure images after it.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use serde_json::json;
use tribo_runner::{CsvSink, RunRecord};
use tribo_scene::Project;

use crate::failure::Failure;
use crate::materials::pretty;
use crate::run::outcome_json;

/// Where a run's trajectory streams to.
pub type TrajectoryFile = CsvSink<BufWriter<File>>;

/// `--out DIR` is usable: a directory (created if missing) in which files can be written. Called
/// before any simulation, so a bad `--out` costs nothing; a bad one is invalid input (exit 2).
pub fn check_out_dir(dir: &Path) -> Result<(), Failure> {
    let bad = |what: String| Failure::input(format!("--out {}: {what}", dir.display()));
    if dir.exists() && !dir.is_dir() {
        return Err(bad("exists and is not a directory".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create the directory: {e}")))?;
    let probe = dir.join(format!(".tribo-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| bad(format!("cannot write in the directory: {e}")))?;
    std::fs::remove_file(&probe).map_err(|e| bad(format!("cannot remove {}: {e}", probe.display())))?;
    Ok(())
}

/// `dir/trajectory.csv`, created (truncated) for a run to stream its rows into.
pub fn trajectory_file(dir: &Path) -> Result<TrajectoryFile, Failure> {
    let path = dir.join("trajectory.csv");
    let file = File::create(&path).map_err(|e| Failure::run(format!("{}: cannot create: {e}", path.display())))?;
    Ok(CsvSink::new(BufWriter::new(file)))
}

/// `dir/metrics.json` (the run's trajectory was streamed into `dir/trajectory.csv` as it went).
pub fn write_outputs(dir: &Path, project: &Project, record: &RunRecord) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::run(format!("{}: cannot write results: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut metrics = outcome_json(record);
    if let serde_json::Value::Object(map) = &mut metrics {
        map.insert("project".into(), json!(project.name));
    }
    std::fs::write(dir.join("metrics.json"), pretty(&metrics) + "\n").map_err(io)?;
    Ok(())
}

/// Per pad that pressed, `dir/pressure_LINK.png` and `.svg` at its peak total normal force.
pub fn write_pressure_images(
    dir: &Path,
    maps: &[tribo_report::PressureMap],
) -> Result<Vec<tribo_report::PressureImage>, Failure> {
    tribo_report::write_pressure_images(dir, maps).map_err(|e| Failure::run(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_or_an_unwritable_place_is_refused() {
        let e = check_out_dir(Path::new("/dev/null"))
            .err()
            .map(|f| (f.exit_code, f.message));
        assert_eq!(
            e,
            Some((2, "--out /dev/null: exists and is not a directory".to_string()))
        );
        let e = check_out_dir(Path::new("/dev/null/sub")).err().map(|f| f.exit_code);
        assert_eq!(e, Some(2));
        let dir = std::env::temp_dir().join(format!("tribo-out-check-{}", std::process::id()));
        assert!(check_out_dir(&dir.join("a/b")).is_ok());
        assert!(dir.join("a/b").is_dir());
        assert_eq!(std::fs::read_dir(dir.join("a/b")).map(|d| d.count()).ok(), Some(0));
        std::fs::remove_dir_all(&dir).ok();
    }
}
