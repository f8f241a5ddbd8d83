//! `tribo import FILE.cnoid|FILE.urdf --out DIR`: a Choreonoid project or a URDF robot written as
//! a tribo project directory (`tribo_scene::import`) that `tribo run DIR/project.yaml` runs the
//! same.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;
use tribo_scene::{import, LoadOptions};

use crate::failure::{CliResult, Failure};
use crate::materials::pretty;

#[derive(Args)]
pub struct ImportArgs {
    /// A Choreonoid project (.cnoid) or a URDF robot (.urdf)
    pub source: PathBuf,
    /// The directory to write the project into: project.yaml and the files it uses (created if
    /// missing; it must be empty unless --force)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write into a directory that is not empty (files of the same names are replaced)
    #[arg(long)]
    pub force: bool,
    /// The share directory `${SHARE}` stands for (default: tribo's `share/`); for a `.cnoid`,
    /// Choreonoid's share directory (or a copy of its model/, motion/, materials/)
    #[arg(long, value_name = "DIR")]
    pub share: Option<PathBuf>,
    /// For a `.cnoid` with several simulator items: `--set simulator=NAME` imports that one's
    /// settings
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Print what was written as JSON
    #[arg(long)]
    pub json: bool,
}

pub fn execute(args: &ImportArgs) -> CliResult {
    let overrides = crate::run::parse_overrides(&args.set)?;
    let options = LoadOptions {
        overrides,
        share_dir: crate::run::share_dir(args.share.as_deref())?,
        ..LoadOptions::default()
    };
    let imported = import::import(&args.source, &options)?;
    check_out(&args.out, args.force)?;
    imported
        .write_to(&args.out)
        .map_err(|e| Failure::run(format!("cannot write the project: {e}")))?;
    crate::warnings::eprint(&imported.warnings);
    let project = args.out.join("project.yaml");
    if args.json {
        let v = json!({
            "source": args.source.display().to_string(),
            "out": args.out.display().to_string(),
            "project": project.display().to_string(),
            "written": imported.written.iter().map(|w| w.path.display().to_string()).collect::<Vec<_>>(),
            "copied": imported.copies.iter().map(|c| json!({
                "from": c.from.display().to_string(),
                "to": c.to.display().to_string(),
            })).collect::<Vec<_>>(),
            "licences": imported.licences.iter().map(|l| l.display().to_string()).collect::<Vec<_>>(),
            "notes": imported.notes,
        });
        crate::output::outln!("{}", pretty(&v));
        return Ok(());
    }
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    for file in &imported.written {
        crate::output::outln!("wrote  {}", args.out.join(&file.path).display());
    }
    for copy in &imported.copies {
        crate::output::outln!("copied {} ({})", args.out.join(&copy.to).display(), copy.from.display());
    }
    crate::output::outln!("run it with: tribo run {}", project.display());
    Ok(())
}

/// `DIR` may be missing or an empty directory; a directory with files in it only with `--force`.
fn check_out(dir: &Path, force: bool) -> CliResult {
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::input(format!("--out {}: not a directory", dir.display())));
    }
    let non_empty = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if non_empty && !force {
        return Err(Failure::input(format!(
            "--out {}: the directory is not empty; pass --force to write into it (files of the same names are replaced)",
            dir.display()
        )));
    }
    Ok(())
}
