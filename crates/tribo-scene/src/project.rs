//! tribo's project file: the top-level loader that assembles a [`Scene`] and the run's specs.
//!
//! ```yaml
//! name: ball
//! description: A ball dropped on the floor bounces with e = 0.8.
//! parameters: {drop_height: 1.0}
//! materials: [materials.yaml]            # merged in order over the default table
//! simulation: {time_step: 0.001, duration: 4.0, gravity: [0, 0, -9.81], engines: [rapier, pgs]}
//! engine_options: {rapier: {substeps: 4}}
//! bodies:
//!   - {name: floor, model: "${SHARE}/model/floor.body", fixed: true, translation: [0, 0, -0.1]}
//!   - {name: ball, model: "${SHARE}/model/ball.body", translation: [0, 0, drop_height]}
//! controllers: []
//! record: [{kind: link_position, body: ball}]
//! metrics:
//!   - {name: bounce_ratio, kind: bounce_ratio, body: ball, rest_height: 0.1,
//!      expected: "restitution(Ground, Ball)^2", tolerance: 0.03}
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nalgebra::Vector3;
use tribo_material::{ContactTable, MaterialId, MaterialTable};
use tribo_yaml::{Diagnostic, Fields, Location, Node};

use crate::bodies::{read_body, BodyEntry};
use crate::controllers::{read_controller, ControllerSpec};
use crate::metrics::{read_metric, MetricSpec};
use crate::pads::read_pad;
use crate::params::Parameters;
use crate::reader::Reader;
use crate::signals::{default_signals, read_signal, SignalSpec};
use crate::{Scene, SceneBody, ScenePad};

/// A loaded project: the scene plus everything a run needs.
#[derive(Debug, Clone)]
pub struct Project {
    pub name: String,
    pub description: String,
    pub path: PathBuf,
    pub scene: Arc<Scene>,
    pub simulation: Simulation,
    /// Per-engine options, by engine name, as written.
    pub engine_options: BTreeMap<String, Node>,
    pub controllers: Vec<ControllerSpec>,
    pub signals: Vec<SignalSpec>,
    pub metrics: Vec<MetricSpec>,
    pub parameters: Parameters,
    /// The merged material table (default, then the project's tables, then `--materials`).
    pub materials: MaterialTable,
    /// Material table files merged over the default, in order.
    pub material_files: Vec<PathBuf>,
    pub warnings: Vec<Diagnostic>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// s.
    pub time_step: f64,
    /// s.
    pub duration: f64,
    /// Engines `tribo compare` runs when none are named.
    pub engines: Vec<String>,
}

/// How to load: command-line overrides and where tribo's share directory is.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--set NAME=VALUE`.
    pub overrides: BTreeMap<String, String>,
    /// `--materials EXTRA.yaml`, merged after the project's own tables.
    pub extra_materials: Vec<PathBuf>,
    /// Unknown material names become errors.
    pub strict: bool,
    /// tribo's `share/` directory (for `${SHARE}`).
    pub share_dir: PathBuf,
}

const TOP_KEYS: [&str; 11] = [
    "pads",
    "name",
    "description",
    "parameters",
    "materials",
    "default_materials",
    "simulation",
    "engine_options",
    "bodies",
    "controllers",
    "record",
];
const EXTRA_TOP_KEYS: [&str; 1] = ["metrics"];

impl Project {
    /// Load a tribo project file, or a Choreonoid `.cnoid` project (by its extension).
    pub fn load(path: &Path, options: &LoadOptions) -> Result<Project, Diagnostic> {
        if crate::cnoid::is_cnoid(path) {
            return crate::cnoid::load(path, options);
        }
        let tribo_yaml::Document { root, warnings } = tribo_yaml::parse_file_with_warnings(path)?;
        let mut project = Self::from_node(&root, path, options)?;
        project.warnings.splice(0..0, warnings);
        Ok(project)
    }

    pub fn from_node(root: &Node, path: &Path, options: &LoadOptions) -> Result<Project, Diagnostic> {
        let f = Fields::new(root, "a tribo project")?;
        let project_dir = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let project_dir = if project_dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            project_dir
        };
        let mut warnings = Vec::new();

        let mut parameters = Parameters::read(f.get(&["parameters"]))?;
        let command_line = Location::file("command line");
        parameters.apply_overrides(&options.overrides, &command_line)?;

        let mut reader = Reader {
            parameters: &parameters,
            share_dir: &options.share_dir,
            project_dir: &project_dir,
            g: 9.81,
            materials: None,
            warnings: Default::default(),
        };
        let name = match f.get_value(&["name"]) {
            Some(n) => reader.text(n)?,
            None => path
                .file_stem()
                .map_or_else(|| "project".to_string(), |s| s.to_string_lossy().into_owned()),
        };
        let description = f.str_opt(&["description"])?.unwrap_or_default().trim().to_string();

        let (simulation, gravity) = read_simulation(f.get_value(&["simulation"]), &reader)?;
        reader.g = gravity.norm();

        let (materials, material_files) = read_materials(&f, &reader, options, &mut warnings)?;
        reader.materials = Some(&materials);

        let bodies_node = f.required(&["bodies"])?;
        let mut models = BTreeMap::new();
        let mut bodies: Vec<BodyEntry> = Vec::new();
        for item in bodies_node.as_seq()? {
            let body = read_body(item, &reader, &mut models)?;
            if bodies.iter().any(|b| b.name == body.name) {
                return Err(item.error(format!("two bodies are named `{}`; give one a `name:`", body.name)));
            }
            warnings.extend(body.model.notes.iter().cloned());
            bodies.push(body);
        }
        if bodies.is_empty() {
            return Err(bodies_node.error("a project needs at least one body"));
        }

        let project_pads = read_list(f.get_value(&["pads"]), |n| read_pad(n, &bodies, &reader))?;
        let controllers = read_list(f.get_value(&["controllers"]), |n| read_controller(n, &bodies, &reader))?;
        let signals = match f.get_value(&["record"]) {
            Some(n) => read_list(Some(n), |n| read_signal(n, &bodies, &reader))?,
            None => default_signals(bodies.iter().map(|b| (b.name.as_str(), b.fixed_root))),
        };
        let metrics = read_list(f.get_value(&["metrics"]), |n| read_metric(n, &bodies, &reader))?;
        check_unique(
            &metrics.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
            f.get(&["metrics"]),
            "metric",
        )?;
        check_unique(
            &signals.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            f.get(&["record"]),
            "signal",
        )?;

        let engine_options = match f.get_value(&["engine_options"]) {
            Some(n) => n
                .as_map()?
                .entries
                .iter()
                .map(|e| (e.key.clone(), e.value.clone()))
                .collect(),
            None => BTreeMap::new(),
        };
        let known: Vec<&str> = TOP_KEYS.iter().chain(EXTRA_TOP_KEYS.iter()).copied().collect();
        reader.warn_unknown(&f, "a tribo project", &known);

        let unread = reader.warnings.take();
        if let (true, Some(first)) = (options.strict, unread.first()) {
            return Err(first.clone().into_error());
        }
        warnings.extend(unread);
        material_warnings(&bodies, &materials, options.strict, &mut warnings)?;
        let scene = assemble_scene(&name, gravity, bodies, project_pads, &materials)?;
        Ok(Project {
            name,
            description,
            path: path.to_path_buf(),
            scene: Arc::new(scene),
            simulation,
            engine_options,
            controllers,
            signals,
            metrics,
            parameters,
            materials,
            material_files,
            warnings,
        })
    }

    /// Options block for one engine, if the project gave one.
    pub fn engine_options(&self, engine: &str) -> Option<&Node> {
        self.engine_options.get(engine)
    }
}

fn read_simulation(node: Option<&Node>, reader: &Reader) -> Result<(Simulation, Vector3<f64>), Diagnostic> {
    let mut sim = Simulation {
        time_step: 0.001,
        duration: 1.0,
        engines: Vec::new(),
    };
    let mut gravity = Vector3::new(0.0, 0.0, -9.81);
    let Some(node) = node else { return Ok((sim, gravity)) };
    let f = Fields::new(node, "simulation settings")?;
    if let Some(n) = f.get_value(&["time_step"]) {
        sim.time_step = reader.positive(n, "the time step")?;
    }
    if let Some(n) = f.get_value(&["duration"]) {
        sim.duration = reader.positive(n, "the duration")?;
    }
    if let Some(n) = f.get_value(&["gravity"]) {
        gravity = reader.vec3(n)?;
    }
    if let Some(n) = f.get_value(&["engines"]) {
        sim.engines = n.as_name_list()?.into_iter().map(str::to_string).collect();
    }
    reader.warn_unknown(
        &f,
        "simulation settings",
        &["time_step", "duration", "gravity", "engines"],
    );
    Ok((sim, gravity))
}

/// The default table (or `default_materials:`), the project's `materials:` and `--materials`, merged
/// in that order (Choreonoid's WorldItem::materialTable: copy the default, merge each item).
fn read_materials(
    f: &Fields,
    reader: &Reader,
    options: &LoadOptions,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(MaterialTable, Vec<PathBuf>), Diagnostic> {
    let mut table = match f.get_value(&["default_materials"]) {
        Some(n) => load_table(&reader.path(n)?, n, warnings)?,
        None => MaterialTable::builtin_default()?,
    };
    let mut files = Vec::new();
    if let Some(list) = f.get_value(&["materials"]) {
        let items: Vec<&Node> = match list.as_seq() {
            Ok(items) => items.iter().collect(),
            Err(_) => vec![list],
        };
        for item in items {
            let path = reader.path(item)?;
            table.merge(&load_table(&path, item, warnings)?);
            files.push(path);
        }
    }
    for path in &options.extra_materials {
        let loaded = MaterialTable::load_file(path)?;
        warnings.extend(loaded.warnings);
        table.merge(&loaded.table);
        files.push(path.clone());
    }
    Ok((table, files))
}

fn load_table(path: &Path, at: &Node, warnings: &mut Vec<Diagnostic>) -> Result<MaterialTable, Diagnostic> {
    let loaded = MaterialTable::load_file(path).map_err(|e| {
        if e.location.line == 0 {
            at.error(format!(
                "cannot load material table `{}`: {}",
                path.display(),
                e.message
            ))
        } else {
            e
        }
    })?;
    warnings.extend(loaded.warnings);
    Ok(loaded.table)
}

fn read_list<T>(
    node: Option<&Node>,
    mut read: impl FnMut(&Node) -> Result<T, Diagnostic>,
) -> Result<Vec<T>, Diagnostic> {
    match node {
        None => Ok(Vec::new()),
        Some(n) => n.as_seq()?.iter().map(&mut read).collect(),
    }
}

fn check_unique(names: &[&str], node: Option<&Node>, what: &str) -> Result<(), Diagnostic> {
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            let at = node.and_then(|n| n.as_seq().ok()).and_then(|items| items.get(i));
            let location = at.map_or_else(|| Location::file("project"), |n| n.location.clone());
            return Err(Diagnostic::error(location, format!("two {what}s are named `{name}`")));
        }
    }
    Ok(())
}

/// A link naming a material no table defines: a warning (an error with `--strict`).
fn material_warnings(
    bodies: &[BodyEntry],
    table: &MaterialTable,
    strict: bool,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let mut seen = Vec::new();
    for body in bodies {
        for (name, location) in &body.link_material_names {
            if seen.contains(name) {
                continue;
            }
            seen.push(name.clone());
            let at = location.clone().unwrap_or_else(|| body.location.clone());
            if let Some(warning) = table.check_name(name, &at) {
                if strict {
                    return Err(warning.into_error());
                }
                warnings.push(warning);
            }
        }
    }
    Ok(())
}

fn assemble_scene(
    name: &str,
    gravity: Vector3<f64>,
    bodies: Vec<BodyEntry>,
    project_pads: Vec<ScenePad>,
    materials: &MaterialTable,
) -> Result<Scene, Diagnostic> {
    let mut pads = tribo_engine::declared_pads(bodies.iter().map(|b| b.model.as_ref()));
    pads.extend(project_pads);
    // What every engine needs of each body as placed (masses, inertias, joints), located at the
    // `.body` line of the link: a scene that loads is one every engine can build.
    for b in &bodies {
        tribo_model::validate(&b.model, b.fixed_root)?;
    }
    let names: Vec<&str> = bodies
        .iter()
        .flat_map(|b| b.link_material_names.iter().map(|(n, _)| n.as_str()))
        .collect();
    let contacts = ContactTable::build(materials, names)?;
    let bodies = bodies
        .into_iter()
        .map(|b| SceneBody {
            link_materials: b
                .link_material_names
                .iter()
                .map(|(n, _)| contacts.id(n).unwrap_or(MaterialId::DEFAULT))
                .collect(),
            name: b.name,
            model: b.model,
            root_pose: b.root_pose,
            root_linear_velocity: b.linear_velocity,
            root_angular_velocity: b.angular_velocity,
            fixed_root: b.fixed_root,
            initial_positions: b.initial_positions,
            self_collision: b.self_collision,
        })
        .collect();
    Ok(Scene {
        name: name.to_string(),
        gravity,
        bodies,
        contacts,
        pads,
    })
}
