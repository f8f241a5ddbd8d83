//! Choreonoid `.cnoid` projects, read far enough to run their simulation.
//!
//! A `.cnoid` file is the GUI's whole session; the part that decides a simulation is the item tree
//! under its `WorldItem` (`docs/design/choreonoid-formats.md` §4). It is translated into the tree of a tribo
//! project file — every node keeping the `.cnoid` location it came from — and loaded by
//! [`Project::from_node`], so a `.cnoid` gives the same [`Project`] a tribo project does:
//!
//! | `.cnoid` | tribo project |
//! |---|---|
//! | `BodyItem` `file`, initial root pose and joint displacements (degrees → rad), `fix_root` | `bodies:` (names made unique, [`names`]) |
//! | `WorldItem` `default_material_table_file`, `MaterialTableItem` `file` | `default_materials:`, `materials:` |
//! | the simulator item's `time_step`/`frame_rate`, `gravity` | `simulation:` |
//! | AIST `contact_culling_distance`, `contact_culling_depth`, `max_num_contact_points` | `engine_options: {pgs: …}` |
//! | `SimpleControllerItem` `SR1WalkPatternController` | a `joint_pattern` controller |
//!
//! The run lasts the controller's pattern (Choreonoid stops when the controllers finish, with
//! `is_active_control_time_range_mode`), `time_length` with `time_range_mode: specified`, else
//! `time_length`. Default metrics are added, chosen by what the main body is: walker metrics for a
//! body a walking pattern drives, displacement, tilt and penetration for other free bodies
//! ([`metrics`]). Everything else — GUI state, other items, settings without a tribo counterpart —
//! is listed as an `ignored: …` warning at its line.

mod body;
mod controller;
mod materials;
pub(crate) mod metrics;
mod names;
mod paths;
mod pose;
mod simulator;
mod synth;
mod tree;

use std::path::{Path, PathBuf};

use tribo_yaml::{Diagnostic, Node};

use crate::{ControllerSpec, LoadOptions, Project};

/// Whether `path` names a Choreonoid project (by its `.cnoid` extension).
pub fn is_cnoid(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("cnoid"))
}

/// Load a `.cnoid` project.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Project, Diagnostic> {
    translate(path, options).map(|t| t.project)
}

/// A `.cnoid` project as tribo reads it: the tribo project tree it translates into and the loaded
/// project (whose duration and metrics are set after loading the tree, see [`finish`]).
pub struct Translation {
    /// The tribo project tree (paths to the files found, absolute).
    pub node: Node,
    pub project: Project,
    /// The simulator item the run follows, if any, and every simulator item's name.
    pub simulator: Option<String>,
    pub simulators: Vec<String>,
}

/// Read a `.cnoid` project into its tribo project tree and load that.
pub fn translate(path: &Path, options: &LoadOptions) -> Result<Translation, Diagnostic> {
    let tribo_yaml::Document { root, warnings } = tribo_yaml::parse_file_with_warnings(path)?;
    let project_dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let resolver = paths::Resolver::new(&project_dir, &options.share_dir, &crate::default_share_dir());
    // The YAML's own warnings (duplicate keys) first: they are in line order.
    let mut warnings = warnings;

    let items = tree::collect(&root, &mut warnings)?;
    let wanted = options.overrides.get("simulator").map(String::as_str);
    let sim = simulator::choose(&items.simulators, wanted, &root.location, &mut warnings)?;
    let tables = materials::read(&items.worlds, &items.material_tables, &resolver, &mut warnings)?;
    let (names, mut renamed) = names::unique(&items.bodies);
    warnings.append(&mut renamed);
    let mut bodies = Vec::new();
    for (item, name) in items.bodies.iter().zip(names) {
        bodies.push(body::read(item, name, &resolver, &mut warnings)?);
    }
    if bodies.is_empty() {
        return Err(root.error("this project has no BodyItem under a WorldItem: nothing to simulate"));
    }
    let mut controllers = Vec::new();
    for item in &items.controllers {
        let body_name = item.body.and_then(|i| bodies.get(i)).map(|b| b.name.as_str());
        if let Some(c) = controller::read(item, body_name, &sim, &resolver, &mut warnings)? {
            controllers.push(c);
        }
    }

    let node = project_node(path, &root, &sim, tables, &bodies, &controllers);
    let mut project = Project::from_node(&node, path, options)?;
    finish(&mut project, &sim, &mut warnings);
    // The `.cnoid`'s own notes in file order, then the loader's (models, tables).
    warnings.sort_by_key(|w| (w.location.line, w.location.col));
    warnings.append(&mut project.warnings);
    project.warnings = warnings;
    Ok(Translation {
        node,
        project,
        simulator: sim.name.clone(),
        simulators: sim.choices.clone(),
    })
}

/// The tribo project tree the `.cnoid` stands for.
fn project_node(
    path: &Path,
    root: &Node,
    sim: &simulator::Simulation,
    tables: materials::MaterialFiles,
    bodies: &[body::BodyOut],
    controllers: &[controller::ControllerOut],
) -> Node {
    let at = &root.location;
    let file_name = path
        .file_name()
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let description = match &sim.name {
        Some(name) => format!("Choreonoid project {file_name}, simulator `{name}`"),
        None => format!("Choreonoid project {file_name}"),
    };
    let mut entries = vec![("description", synth::text(description, at))];
    if let (Some(name), false) = (&sim.name, sim.choices.is_empty()) {
        let choices = sim.choices.iter().map(|c| synth::text(c.clone(), at)).collect();
        let parameter = synth::map(
            vec![
                ("default", synth::text(name.clone(), at)),
                ("choices", synth::list(choices, at)),
                (
                    "doc",
                    synth::text("the simulator item whose settings the run follows", at),
                ),
            ],
            at,
        );
        entries.push(("parameters", synth::map(vec![("simulator", parameter)], at)));
    }
    if let Some(default) = tables.default {
        entries.push(("default_materials", default));
    }
    if !tables.merged.is_empty() {
        entries.push(("materials", synth::list(tables.merged, at)));
    }
    let (duration, _) = sim.time_length;
    entries.push((
        "simulation",
        synth::map(
            vec![
                ("time_step", synth::number(sim.time_step, &sim.location)),
                ("duration", synth::number(duration, &sim.location)),
                ("gravity", synth::numbers(&sim.gravity, &sim.location)),
            ],
            &sim.location,
        ),
    ));
    if let Some(options) = simulator::engine_options(sim) {
        entries.push(("engine_options", options));
    }
    entries.push((
        "bodies",
        synth::list(bodies.iter().map(|b| b.node.clone()).collect(), at),
    ));
    entries.push((
        "controllers",
        synth::list(controllers.iter().map(|c| c.node.clone()).collect(), at),
    ));
    synth::map(entries, at)
}

/// Duration, default metrics and the notes about them.
fn finish(project: &mut Project, sim: &simulator::Simulation, warnings: &mut Vec<Diagnostic>) {
    let pattern = project.controllers.iter().find_map(|c| match c {
        ControllerSpec::JointPattern(p) => Some(p),
        _ => None,
    });
    let (time_length, time_length_at) = &sim.time_length;
    let length_at = time_length_at.clone().unwrap_or_else(|| sim.location.clone());
    match pattern {
        _ if sim.specified_time => {}
        Some(p) => {
            project.simulation.duration = p.motion.duration().max(project.simulation.time_step);
            if let Some(at) = time_length_at {
                warnings.push(tree::ignored(
                    at,
                    format!(
                        "`time_length: {time_length}` (the run lasts the controller's pattern, {} s; \
                         `--time S` sets another length)",
                        project.simulation.duration
                    ),
                ));
            }
        }
        None => warnings.push(Diagnostic::warning(
            length_at,
            format!(
                "no controller ends this run and time_range_mode is not `specified` (Choreonoid would run \
                 until stopped): it runs time_length = {time_length} s; `--time S` sets another length"
            ),
        )),
    }
    project.metrics = metrics::defaults(&project.scene, pattern.map(|p| p.body));
}
