//! `tribo check PATH [--strict] [--json]`: validate and summarise a file.

use std::path::Path;

use serde_json::json;
use tribo_material::MaterialTable;
use tribo_model::{Body, JointMotion};
use tribo_scene::{LoadOptions, Project};
use tribo_yaml::{Diagnostic, Node, Value};

use crate::cli::CheckArgs;
use crate::failure::CliResult;
use crate::materials::pretty;

/// What kind of file a path holds.
enum Kind {
    Project,
    Body,
    Motion,
    MaterialTable,
}

pub fn execute(args: &CheckArgs) -> CliResult {
    let kind = if tribo_model::is_urdf(&args.path) || tribo_model::is_mjcf(&args.path) {
        Kind::Body
    } else {
        detect(&args.path, &tribo_yaml::parse_file(&args.path)?)?
    };
    let mut notes: Vec<String> = Vec::new();
    let (summary, warnings) = match kind {
        Kind::Body => {
            let body = if tribo_model::is_mjcf(&args.path) {
                let model = tribo_model::load_mjcf_model(&args.path)?;
                notes.push(model.friction_report());
                model.body
            } else {
                tribo_model::load_model(&args.path)?
            };
            // The checks every engine's build runs; the body's own root joint says whether the
            // world holds its root (a project can still fix it).
            tribo_model::validate(&body, false)?;
            body_summary(&body)
        }
        Kind::Motion => motion_summary(&tribo_model::load_motion(&args.path)?),
        Kind::MaterialTable => table_summary(&args.path, args.strict)?,
        Kind::Project => {
            let (summary, warnings, project) =
                project_summary(&args.path, args.strict, crate::run::share_dir(args.share.as_deref())?)?;
            // The run's length against the step limit, as `tribo run` would judge it.
            let options = tribo_runner::RunOptions {
                allow_long_run: args.allow_long_run,
                ..Default::default()
            };
            let steps = crate::plan::check_steps(&project, &options)?;
            notes.extend(crate::plan::long_run_warning(steps));
            notes.extend(crate::plan::pattern_notes(&project));
            notes.extend(mjcf_friction_table(&project)?);
            (summary, warnings)
        }
    };
    if args.strict {
        if let Some(first) = warnings.iter().find(|w| w.message.starts_with("unknown material")) {
            return Err(first.clone().into_error().into());
        }
    }
    if args.json {
        let mut value = summary.clone();
        if let serde_json::Value::Object(map) = &mut value {
            map.insert(
                "warnings".into(),
                json!(warnings.iter().map(ToString::to_string).collect::<Vec<_>>()),
            );
            if !notes.is_empty() {
                map.insert("notes".into(), json!(notes));
            }
        }
        crate::output::outln!("{}", pretty(&value));
    } else {
        crate::output::out!("{}", text(&summary));
        for w in crate::warnings::collapse(&warnings) {
            crate::output::outln!("{w}");
        }
        for n in &notes {
            crate::output::outln!("{n}");
        }
    }
    Ok(())
}

fn detect(path: &Path, root: &Node) -> Result<Kind, Diagnostic> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    match ext {
        "body" => return Ok(Kind::Body),
        "seq" => return Ok(Kind::Motion),
        "cnoid" => return Ok(Kind::Project),
        _ => {}
    }
    let Value::Map(map) = &root.value else {
        return Err(root.error("expected a mapping at the top of the file (a project, body, motion or material table)"));
    };
    if map.get("format").and_then(|n| n.as_str().ok()) == Some("ChoreonoidBody") {
        return Ok(Kind::Body);
    }
    if map.contains("components") || map.get("type").and_then(|n| n.as_str().ok()) == Some("CompositeSeq") {
        return Ok(Kind::Motion);
    }
    if map.contains("bodies") {
        return Ok(Kind::Project);
    }
    if map.contains("materials") || map.contains("contact_materials") || map.contains("contactMaterials") {
        return Ok(Kind::MaterialTable);
    }
    Err(root.error(
        "cannot tell what this file is: expected a project (`bodies:`), a body (`format: ChoreonoidBody`), \
         a motion (`type: CompositeSeq`) or a material table (`materials:`)",
    ))
}

fn body_summary(body: &Body) -> (serde_json::Value, Vec<Diagnostic>) {
    let mut joints = std::collections::BTreeMap::<&str, usize>::new();
    let mut materials = Vec::<String>::new();
    let mut shapes = std::collections::BTreeMap::<&str, usize>::new();
    for link in &body.links {
        if link.parent.is_some() {
            *joints.entry(link.joint.kind.name()).or_default() += 1;
        }
        if !materials.contains(&link.material) {
            materials.push(link.material.clone());
        }
        for s in &link.shapes {
            *shapes.entry(s.geometry.type_name()).or_default() += 1;
        }
    }
    let summary = json!({
        "kind": "body",
        "name": body.name,
        "links": body.links.len(),
        "joints": body.links.len() - 1,
        "joint_types": joints,
        "joint_ids": body.joints_by_id.len(),
        "root": body.root().name,
        "root_joint": body.root().joint.kind.name(),
        "total_mass_kg": round9(body.total_mass()),
        "materials": materials,
        "collision_shapes": shapes,
    });
    (summary, body.notes.clone())
}

fn motion_summary(motion: &JointMotion) -> (serde_json::Value, Vec<Diagnostic>) {
    let summary = json!({
        "kind": "motion",
        "frame_rate_hz": motion.frame_rate,
        "frames": motion.num_frames(),
        "parts": motion.num_parts,
        "duration_s": round9(motion.duration()),
    });
    (summary, Vec::new())
}

fn table_summary(path: &Path, strict: bool) -> Result<(serde_json::Value, Vec<Diagnostic>), Diagnostic> {
    let loaded = MaterialTable::load_file(path)?;
    if strict {
        if let Some(w) = loaded.warnings.first() {
            return Err(w.clone().into_error());
        }
    }
    let summary = json!({
        "kind": "material table",
        "materials": loaded.table.materials().iter().map(|m| m.name.clone()).collect::<Vec<_>>(),
        "contact_materials": loaded.table.pairs().len(),
    });
    Ok((summary, loaded.warnings))
}

/// The material table that gives the project's MJCF bodies MuJoCo's friction, pairs between
/// different MJCF files included (`None` when no body is an MJCF model).
fn mjcf_friction_table(project: &Project) -> Result<Option<String>, Diagnostic> {
    let mut frictions = Vec::new();
    let mut read = std::collections::BTreeSet::new();
    for body in &project.scene.bodies {
        let source = Path::new(&*body.model.source);
        if tribo_model::is_mjcf(source) && read.insert(source.to_path_buf()) {
            frictions.extend(tribo_model::load_mjcf_model(source)?.frictions);
        }
    }
    Ok((!frictions.is_empty()).then(|| {
        format!(
            "material table with MuJoCo's friction for the project's MJCF bodies (save it as a file and list it under `materials:`):\n{}",
            tribo_model::friction_table(&frictions).trim_end()
        )
    }))
}

fn project_summary(
    path: &Path,
    strict: bool,
    share_dir: std::path::PathBuf,
) -> Result<(serde_json::Value, Vec<Diagnostic>, Project), Diagnostic> {
    let options = LoadOptions {
        strict,
        share_dir,
        ..Default::default()
    };
    let project = Project::load(path, &options)?;
    let scene = &project.scene;
    let bodies: Vec<serde_json::Value> = scene
        .bodies
        .iter()
        .map(|b| {
            json!({
                "name": b.name,
                "model": b.model.name,
                "links": b.model.links.len(),
                "mass_kg": round9(b.model.total_mass()),
                "fixed": b.fixed_root,
            })
        })
        .collect();
    let names: Vec<&str> = scene.contacts.ids().map(|id| scene.contacts.name(id)).collect();
    let summary = json!({
        "kind": "project",
        "name": project.name,
        "bodies": bodies,
        "materials": names,
        "controllers": project.controllers.len(),
        "signals": project.signals.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
        "metrics": project.metrics.iter().map(|m| m.name.clone()).collect::<Vec<_>>(),
        "parameters": project.parameters.list.iter().map(|p| json!({"name": p.name, "value": p.value.display()})).collect::<Vec<_>>(),
        "time_step_s": project.simulation.time_step,
        "duration_s": project.simulation.duration,
        "steps": tribo_runner::step_count(project.simulation.duration, project.simulation.time_step),
    });
    let warnings = project.warnings.clone();
    Ok((summary, warnings, project))
}

/// Round to 9 decimals so sums like 130.80000000000001 print as written in the file.
fn round9(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// A readable rendering of a summary: `key: value` lines; small objects as `k v, k v`; lists of
/// objects one per indented line.
fn text(summary: &serde_json::Value) -> String {
    let mut out = String::new();
    if let serde_json::Value::Object(map) = summary {
        for (key, value) in map {
            match value {
                serde_json::Value::Array(items) if items.iter().any(serde_json::Value::is_object) => {
                    out.push_str(&format!("{key}:\n"));
                    for item in items {
                        out.push_str(&format!("  - {}\n", inline(item)));
                    }
                }
                other => out.push_str(&format!("{key}: {}\n", inline(other))),
            }
        }
    }
    out
}

fn inline(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items.iter().map(inline).collect::<Vec<_>>().join(", "),
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k} {}", inline(v)))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}
