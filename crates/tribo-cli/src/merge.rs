//! `tribo sweep --merge SHARD_DIR... [--out DIR] [--json]`: the shards of one sweep, written by
//! `tribo sweep ... --shard K/N --out SHARD_DIR` on as many machines, joined into what the sweep
//! run on one machine produces — `sweep.json`, `sweep.html`, the plots, the table or JSON — with
//! the same points, runs and metrics (only timings differ).
//!
//! Refused, before anything is written: a directory that holds no shard, shards of different
//! sweeps (another project or project files, grid, engines, `--set`, `--time`, tribo version, or
//! number of shards), a shard given twice, and a missing shard.

use std::path::{Path, PathBuf};

use tribo_report::{SweepPoint, SweepReport};

use crate::failure::{CliResult, Failure};
use crate::fingerprint::Fingerprint;
use crate::shard::Shard;
use crate::shard_file::{Grid, ShardFile};

pub fn execute(dirs: &[PathBuf], out: Option<&Path>, json: bool, quiet: bool) -> CliResult {
    let shards: Vec<(PathBuf, ShardFile)> = dirs
        .iter()
        .map(|dir| Ok((dir.clone(), crate::shard_file::read(dir)?)))
        .collect::<Result<_, Failure>>()?;
    let project = shards
        .first()
        .map(|(_, s)| PathBuf::from(&s.grid.project))
        .unwrap_or_default();
    let count = shards.len();
    let report = join(shards)?;
    if let Some(dir) = out {
        crate::outputs::check_out_dir(dir)?;
    }
    if !(quiet || json) {
        eprintln!(
            "merged {count} shards: {} points × {} engines",
            report.points.len(),
            report.engines.len()
        );
    }
    crate::sweep::finish(&report, &project, out, json, quiet)
}

/// The sweep the shards make up, points in grid order; a failure naming the directories when they
/// are not every shard of one sweep, each once.
pub fn join(shards: Vec<(PathBuf, ShardFile)>) -> Result<SweepReport, Failure> {
    let Some((first_dir, first)) = shards.first() else {
        return Err(Failure::input("--merge needs the shard directories to join"));
    };
    for (dir, shard) in &shards[1..] {
        same_sweep(first_dir, first, dir, shard)?;
    }
    let count = first.shard.count();
    let mut given: Vec<Option<&Path>> = vec![None; count];
    for (dir, s) in &shards {
        let slot = &mut given[s.shard.index() - 1];
        if let Some(other) = slot {
            return Err(Failure::input(format!(
                "shard {} given twice: {} and {}",
                s.shard,
                other.display(),
                dir.display()
            )));
        }
        *slot = Some(dir);
    }
    let missing: Vec<String> = (1..=count)
        .filter(|&k| given[k - 1].is_none())
        .filter_map(|k| Shard::new(k, count))
        .map(|s| s.to_string())
        .collect();
    if !missing.is_empty() {
        let present: Vec<String> = shards
            .iter()
            .map(|(dir, s)| format!("{} ({})", s.shard, dir.display()))
            .collect();
        let what = match missing.as_slice() {
            [one] => format!("shard {one} missing"),
            [rest @ .., last] => format!("shards {} and {last} missing", rest.join(", ")),
            [] => String::new(),
        };
        return Err(Failure::input(format!(
            "{what}: --merge needs all {count} shards of the sweep; given {}",
            present.join(", ")
        )));
    }
    let grid = first.grid.clone();
    let mut points: Vec<Option<SweepPoint>> = vec![None; grid.size()];
    for (_, shard) in shards {
        for (index, point) in shard.points {
            if let Some(slot) = points.get_mut(index) {
                *slot = Some(point);
            }
        }
    }
    let points = points
        .into_iter()
        .enumerate()
        .map(|(i, p)| p.ok_or_else(|| Failure::input(format!("grid point {} is in no shard", i + 1))))
        .collect::<Result<_, _>>()?;
    Ok(SweepReport {
        project: grid.name,
        parameters: grid.axes.into_iter().map(|a| a.name).collect(),
        engines: grid.engines,
        points,
    })
}

/// `b` (from `b_dir`) is a shard of the same sweep as `a`: same tribo, grid, options, project
/// files and number of shards.
fn same_sweep(a_dir: &Path, a: &ShardFile, b_dir: &Path, b: &ShardFile) -> Result<(), Failure> {
    let differ = |what: &str, here: String, there: String| {
        Failure::input(format!(
            "{}: not a shard of the same sweep as {}: {what} {here} there, {there} in {}",
            b_dir.display(),
            a_dir.display(),
            a_dir.display()
        ))
    };
    for ((what, here), (_, there)) in sweep_text(b).into_iter().zip(sweep_text(a)) {
        if here != there {
            return Err(differ(what, here, there));
        }
    }
    if let Some((here, there)) = files_differ(&b.grid.fingerprint, &a.grid.fingerprint) {
        return Err(Failure::input(format!(
            "{}: not a shard of the same sweep as {}: the project's files differ: {here} there, {there} in {}",
            b_dir.display(),
            a_dir.display(),
            a_dir.display()
        )));
    }
    if a.shard.count() != b.shard.count() {
        return Err(differ(
            "the number of shards",
            format!("{} (shard {})", b.shard.count(), b.shard),
            format!("{} (shard {})", a.shard.count(), a.shard),
        ));
    }
    Ok(())
}

/// What two shards of one sweep share, as messages show it.
fn sweep_text(s: &ShardFile) -> [(&'static str, String); 6] {
    let g = &s.grid;
    [
        ("the tribo version", s.tribo.clone()),
        ("the project", format!("`{}`", g.name)),
        ("--param", params_text(g)),
        ("the engines", format!("`{}`", g.engines.join(","))),
        ("--set", set_text(g)),
        ("--time", g.time.map_or("not given".into(), |t| format!("{t} s"))),
    ]
}

fn params_text(grid: &Grid) -> String {
    let axes: Vec<String> = grid
        .axes
        .iter()
        .map(|a| format!("{}={}", a.name, a.values.join(",")))
        .collect();
    format!("`{}`", axes.join(" "))
}

fn set_text(grid: &Grid) -> String {
    if grid.set.is_empty() {
        return "not given".into();
    }
    let set: Vec<String> = grid.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("`{}`", set.join(" "))
}

/// How two fingerprints differ, told from `here`'s side and `there`'s: the first file whose
/// contents differ, or the file lists' lengths.
fn files_differ(here: &Fingerprint, there: &Fingerprint) -> Option<(String, String)> {
    if here.digest == there.digest {
        return None;
    }
    let changed = here
        .files
        .iter()
        .zip(&there.files)
        .find(|(h, t)| h.hash != t.hash)
        .map(|(h, t)| {
            let file = |f: &crate::fingerprint::FileHash| format!("{} has FNV-1a {:016x}", f.path, f.hash);
            (file(h), file(t))
        });
    Some(changed.unwrap_or_else(|| {
        let count = |f: &Fingerprint| format!("{} files", f.files.len());
        (count(here), count(there))
    }))
}
