//! A Choreonoid `.cnoid` project as a tribo project: the project tree tribo's `.cnoid` loader
//! translates it into ([`crate::cnoid::translate`]), written as YAML with its files copied
//! beside it, plus what the loader sets after reading that tree — the run's duration and the
//! default metrics — written out. Loading the written project gives the project the `.cnoid`
//! gives: the same bodies, poses, joint positions, material tables, controllers, time step,
//! duration, gravity, engine options and metrics.
//!
//! What the loader interprets that a project file cannot express is a note: a `.cnoid` with
//! several simulator items runs with any of them (`--set simulator=NAME`); the written project
//! holds the settings of the one imported.

use std::path::{Path, PathBuf};

use serde_yaml::{Mapping, Value};
use tribo_yaml::{Diagnostic, Node};

use super::files::{body_resources, Files};
use super::yaml::{metric_value, node_value, number, project_text, text};
use super::{Import, Written};
use crate::{default_share_dir, LoadOptions};

pub fn import(path: &Path, options: &LoadOptions) -> Result<Import, Diagnostic> {
    let translation = crate::cnoid::translate(path, options)?;
    let project = &translation.project;
    let located = |message: String| Diagnostic::error(tribo_yaml::Location::file(path.display().to_string()), message);
    let project_dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let builtin = default_share_dir();
    let mut files = Files::new(&[project_dir, &options.share_dir, &builtin]);

    let tree = translation.node.as_map()?;
    let mut top = Mapping::new();
    top.insert(text("name"), text(project.name.clone()));
    let file_name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let description = match &translation.simulator {
        Some(sim) => {
            format!("Imported from the Choreonoid project {file_name} (simulator item `{sim}`) by `tribo import`.")
        }
        None => format!("Imported from the Choreonoid project {file_name} by `tribo import`."),
    };
    top.insert(text("description"), text(description));
    for entry in &tree.entries {
        let value = &entry.value;
        match entry.key.as_str() {
            // The loader's own: replaced above.
            "name" | "description" => {}
            // The simulator choice is made: its settings are in `simulation` (see the notes).
            "parameters" => {}
            "default_materials" => {
                let rel = place(&mut files, value, "materials").map_err(located)?;
                top.insert(text("default_materials"), rel);
            }
            "materials" => {
                let items = value.as_seq()?;
                let mut list = Vec::new();
                for item in items {
                    list.push(place(&mut files, item, "materials").map_err(located)?);
                }
                top.insert(text("materials"), Value::Sequence(list));
            }
            "simulation" => {
                let mut sim = match node_value(value) {
                    Value::Mapping(m) => m,
                    _ => Mapping::new(),
                };
                sim.insert(text("duration"), number(project.simulation.duration));
                top.insert(text("simulation"), Value::Mapping(sim));
            }
            "bodies" => {
                let mut list = Vec::new();
                for item in value.as_seq()? {
                    let mut entry = body(&mut files, item).map_err(located)?;
                    if let Value::Mapping(m) = &mut entry {
                        if let Some(Value::Sequence(q)) = m.get_mut("joint_positions") {
                            q.iter_mut().for_each(in_degrees);
                        }
                    }
                    list.push(entry);
                }
                top.insert(text("bodies"), Value::Sequence(list));
            }
            "controllers" => {
                let mut list = Vec::new();
                for item in value.as_seq()? {
                    list.push(with_path(&mut files, item, "motion", "motion").map_err(located)?);
                }
                top.insert(text("controllers"), Value::Sequence(list));
            }
            key => {
                top.insert(text(key), node_value(value));
            }
        }
    }
    let metrics = project
        .metrics
        .iter()
        .map(|m| metric_value(m, &project.scene))
        .collect::<Result<Vec<_>, _>>()
        .map_err(located)?;
    top.insert(text("metrics"), Value::Sequence(metrics));

    let mut notes = Vec::new();
    if translation.simulators.len() > 1 {
        let others: Vec<&str> = translation
            .simulators
            .iter()
            .map(String::as_str)
            .filter(|s| Some(*s) != translation.simulator.as_deref())
            .collect();
        notes.push(format!(
            "{file_name} has {} simulator items; the project holds the settings of `{}` (time step, gravity, \
             controller options, contact settings). The others ({}) are not in it: import again with \
             `--set simulator=NAME` for another",
            translation.simulators.len(),
            translation.simulator.as_deref().unwrap_or("?"),
            others.join(", ")
        ));
    }
    notes.push(format!(
        "the run lasts {} s ({}) and is judged by the metrics tribo gives a .cnoid, written out under `metrics:`",
        project.simulation.duration,
        if translation.project.controllers.is_empty() {
            "the simulator's time length"
        } else {
            "the controller's pattern, as tribo runs the .cnoid"
        }
    ));
    let comment = vec![
        format!("tribo project imported from the Choreonoid project {file_name} by `tribo import`:"),
        "the bodies, poses, material tables, controller, time step and duration tribo reads from it,".to_string(),
        "with the files they name copied beside this file.".to_string(),
    ];
    let text = project_text(&comment, top).map_err(located)?;
    let written = vec![Written {
        path: PathBuf::from("project.yaml"),
        text,
    }];
    Ok(Import::new(written, files, project.warnings.clone(), notes))
}

/// A path scalar of the tree (absolute, as the loader found the file) as its place in the output.
fn place(files: &mut Files, node: &Node, kind: &str) -> Result<Value, String> {
    let source = PathBuf::from(node.as_str().map_err(|e| e.to_string())?);
    let rel = files.place(&source, kind)?;
    Ok(text(slashed(&rel)))
}

/// A mapping of the tree with its `key` path placed.
fn with_path(files: &mut Files, node: &Node, key: &str, kind: &str) -> Result<Value, String> {
    let mut value = node_value(node);
    let path = node
        .as_map()
        .ok()
        .and_then(|m| m.get(key))
        .map(|n| place(files, n, kind))
        .transpose()?;
    if let (Value::Mapping(m), Some(path)) = (&mut value, path) {
        m.insert(text(key), path);
    }
    Ok(value)
}

/// A body entry: its model placed, and the mesh files the model names beside it.
fn body(files: &mut Files, node: &Node) -> Result<Value, String> {
    let value = with_path(files, node, "model", "model")?;
    let model = node
        .as_map()
        .ok()
        .and_then(|m| m.get("model"))
        .and_then(|n| n.as_str().ok())
        .map(PathBuf::from);
    if let Some(model) = model {
        let rel = files.place(&model, "model")?;
        for (uri, source) in body_resources(&model).map_err(|e| e.to_string())? {
            files.place_relative(&source, &rel, &uri)?;
        }
    }
    Ok(value)
}

/// A joint position in radians as `rad(DEGREES)`, the form the samples write, when a number of
/// degrees converts to exactly that value (`rad` is `f64::to_radians`, the conversion the `.cnoid`
/// loader applies to `joint_displacements`); else as it is.
fn in_degrees(value: &mut Value) {
    let Some(r) = value.as_f64() else { return };
    let start = r.to_degrees();
    let mut candidates = vec![start];
    let (mut up, mut down) = (start, start);
    for _ in 0..8 {
        up = f64::from_bits(if up >= 0.0 { up.to_bits() + 1 } else { up.to_bits() - 1 });
        down = -f64::from_bits(if -down >= 0.0 {
            (-down).to_bits() + 1
        } else {
            (-down).to_bits() - 1
        });
        candidates.extend([up, down]);
    }
    let exact = candidates
        .into_iter()
        .filter(|d| d.is_finite() && d.to_radians() == r)
        .min_by_key(|d| d.to_string().len());
    if let Some(d) = exact {
        *value = text(format!("rad({d})"));
    }
}

/// A relative path with `/` separators, as project files write them.
pub fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
