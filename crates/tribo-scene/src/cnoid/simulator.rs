//! Simulator items → time step, gravity, when the run stops, controller options and the contact
//! settings tribo's `pgs` engine shares with Choreonoid's AIST simulator.
//!
//! A project may hold several simulator items (AIST, PhysX, ODE, …); Choreonoid runs the one the
//! user starts. tribo takes the first `AISTSimulatorItem` (else the first simulator item), or the
//! one named by the project parameter `simulator` (`--set simulator=NAME`), and lists the others as
//! ignored: tribo's engines are chosen with `--engine`, not by the project.

use tribo_yaml::{closest, Diagnostic, Fields, Location, Node};

use super::synth;
use super::tree::{data_fields, ignored, report_rest, Item};

/// Choreonoid's default gravity (AISTSimulatorItem), m/s².
pub const DEFAULT_GRAVITY: [f64; 3] = [0.0, 0.0, -9.80665];
/// SimulatorItem's default `time_length`, s.
const DEFAULT_TIME_LENGTH: f64 = 300.0;
/// The time step when an item gives neither `time_step` nor `frame_rate`, s.
const FALLBACK_TIME_STEP: f64 = 0.001;

/// The settings of the simulator item a run follows.
pub struct Simulation {
    /// The item's name, if the project has one.
    pub name: Option<String>,
    /// Every simulator item's name (the `simulator` parameter's choices).
    pub choices: Vec<String>,
    pub location: Location,
    /// s.
    pub time_step: f64,
    pub gravity: [f64; 3],
    /// `time_range_mode: specified`: the run stops at `time_length`.
    pub specified_time: bool,
    /// s, and where it was written.
    pub time_length: (f64, Option<Location>),
    /// `is_active_control_time_range_mode`: the run stops when the controllers finish.
    pub stop_with_controllers: bool,
    /// The options string passed to controllers.
    pub controller_options: String,
    /// Options for the `pgs` engine (AIST contact culling and contact points).
    pub pgs_options: Vec<(&'static str, Node)>,
}

const TIME_STEP: [&str; 3] = ["time_step", "timeStep", "timestep"];
const FRAME_RATE: [&str; 3] = ["frame_rate", "frameRate", "framerate"];
const TIME_LENGTH: [&str; 2] = ["time_length", "timeLength"];
const ACTIVE_CONTROL: [&str; 2] = ["is_active_control_time_range_mode", "active_control_time_range_mode"];
const CONTROLLER_OPTIONS: [&str; 2] = ["controller_options", "controllerOptions"];
/// AIST keys with the same meaning, unit and default as a `pgs` option.
const PGS_KEYS: [(&[&str], &str); 3] = [
    (&["contact_culling_distance", "cullingThresh"], "culling_distance"),
    (&["contact_culling_depth", "contactCullingDepth"], "culling_depth"),
    (
        &["max_num_contact_points", "maxNumContactPoints"],
        "max_num_contact_points",
    ),
];
/// Settings about recording, display and threads: no effect on the numbers.
const NO_EFFECT: [&str; 18] = [
    "realtime_sync_mode",
    "realtimeSync",
    "recording",
    "recordingMode",
    "output_all_link_positions",
    "allLinkPositionOutputMode",
    "output_device_states",
    "deviceStateOutput",
    "record_collision_data",
    "recordCollisionData",
    "use_controller_threads",
    "controllerThreads",
    "block_scene_view_edit_mode",
    "scene_view_edit_mode_blocking",
    "time_sync_items",
    "collision_seq_item",
    "collisionSeqItem",
    "num_collision_detection_threads",
];
/// AIST solver settings tribo's engines do not share (see each engine's `engine_options`).
const SOLVER: [&str; 17] = [
    "dynamics_mode",
    "dynamicsMode",
    "integration_mode",
    "integrationMode",
    "min_friction_coefficient",
    "max_friction_coefficient",
    "error_criterion",
    "errorCriterion",
    "max_num_iterations",
    "maxNumIterations",
    "contact_correction_depth",
    "contactCorrectionDepth",
    "contact_correction_velocity_ratio",
    "contactCorrectionVelocityRatio",
    "enable_kinematic_walking",
    "kinematicWalking",
    "use_2d_mode",
];
const KNOWN: [&str; 12] = [
    "time_step",
    "frame_rate",
    "time_range_mode",
    "time_length",
    "is_active_control_time_range_mode",
    "controller_options",
    "gravity",
    "contact_culling_distance",
    "contact_culling_depth",
    "max_num_contact_points",
    "realtime_sync_mode",
    "recording",
];

/// Choose the simulator item (`wanted`: the `simulator` parameter from the command line) and read
/// its settings; every other simulator item is reported as ignored.
pub fn choose(
    items: &[Item],
    wanted: Option<&str>,
    project: &Location,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Simulation, Diagnostic> {
    let choices: Vec<String> = items.iter().map(|i| i.name.clone()).collect();
    let index = match wanted {
        Some(name) => Some(items.iter().position(|i| i.name == name).ok_or_else(|| {
            let hint = closest(name, choices.iter().map(String::as_str))
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            Diagnostic::error(
                Location::file("command line"),
                format!(
                    "no simulator item named `{name}`{hint}; this project has: {}",
                    choices.join(", ")
                ),
            )
        })?),
        None => items
            .iter()
            .position(|i| i.class == "AISTSimulatorItem")
            .or(if items.is_empty() { None } else { Some(0) }),
    };
    let Some(index) = index else {
        warnings.push(Diagnostic::warning(
            project.clone(),
            format!("no simulator item: using a {FALLBACK_TIME_STEP} s time step and Choreonoid's default gravity"),
        ));
        return Ok(Simulation {
            name: None,
            choices,
            location: project.clone(),
            time_step: FALLBACK_TIME_STEP,
            gravity: DEFAULT_GRAVITY,
            specified_time: false,
            time_length: (DEFAULT_TIME_LENGTH, None),
            stop_with_controllers: false,
            controller_options: String::new(),
            pgs_options: Vec::new(),
        });
    };
    let chosen = &items[index];
    for (i, other) in items.iter().enumerate() {
        if i != index {
            warnings.push(ignored(
                other.location(),
                format!(
                    "{} (this run follows {}; pick another with --set simulator=NAME, and the engine with --engine)",
                    other.label(),
                    chosen.label()
                ),
            ));
        }
    }
    let mut sim = read_settings(chosen, warnings)?;
    sim.choices = choices;
    Ok(sim)
}

fn read_settings(item: &Item, warnings: &mut Vec<Diagnostic>) -> Result<Simulation, Diagnostic> {
    let mut sim = Simulation {
        name: Some(item.name.clone()),
        choices: Vec::new(),
        location: item.location().clone(),
        time_step: FALLBACK_TIME_STEP,
        gravity: DEFAULT_GRAVITY,
        specified_time: false,
        time_length: (DEFAULT_TIME_LENGTH, None),
        stop_with_controllers: false,
        controller_options: String::new(),
        pgs_options: Vec::new(),
    };
    let Some(f) = data_fields(item)? else {
        warnings.push(item.node.warning(format!(
            "{} has no settings: using a {FALLBACK_TIME_STEP} s time step",
            item.label()
        )));
        return Ok(sim);
    };
    sim.time_step = time_step(&f, item, warnings)?;
    if let Some(n) = f.get_value(&["gravity"]) {
        sim.gravity = n.as_vec3()?;
    }
    if let Some(n) = f.get_value(&TIME_LENGTH) {
        let t = positive(n, "time_length")?;
        sim.time_length = (t, Some(n.location.clone()));
    }
    if let Some(n) = f.get_value(&["time_range_mode", "timeRangeMode"]) {
        let mode = n.as_str()?;
        sim.specified_time = matches!(mode, "specified" | "Specified time");
        if !matches!(mode, "specified" | "Specified time" | "unlimited" | "Unlimited") {
            warnings.push(ignored(
                &n.location,
                format!("`time_range_mode: {mode}` of {} (runs as `unlimited`)", item.label()),
            ));
        }
    }
    if let Some(n) = f.get_value(&ACTIVE_CONTROL) {
        sim.stop_with_controllers = n.as_bool()?;
    }
    if let Some(n) = f.get_value(&CONTROLLER_OPTIONS) {
        sim.controller_options = n.as_str()?.trim().to_string();
    }
    for (keys, option) in PGS_KEYS {
        if let Some(n) = f.get_value(keys) {
            n.as_finite()?;
            sim.pgs_options.push((option, n.clone()));
        }
    }
    report_rest(
        &f,
        item,
        &[
            (&NO_EFFECT, "recording, display and threads: no effect on the results"),
            (
                &SOLVER,
                "AIST solver settings; tribo's engines take their own, see `tribo engines` and engine_options",
            ),
        ],
        &KNOWN,
        warnings,
    );
    Ok(sim)
}

fn time_step(f: &Fields, item: &Item, warnings: &mut Vec<Diagnostic>) -> Result<f64, Diagnostic> {
    if let Some(n) = f.get_value(&TIME_STEP) {
        return positive(n, "time_step");
    }
    if let Some(n) = f.get_value(&FRAME_RATE) {
        return Ok(1.0 / positive(n, "frame_rate")?);
    }
    warnings.push(item.node.warning(format!(
        "{} gives no time_step (Choreonoid takes the time bar's rate): using {FALLBACK_TIME_STEP} s",
        item.label()
    )));
    Ok(FALLBACK_TIME_STEP)
}

fn positive(n: &Node, what: &str) -> Result<f64, Diagnostic> {
    let v = n.as_finite()?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(n.error(format!("`{what}` must be positive, found {v}")))
    }
}

/// `pgs: {...}` for the project's `engine_options`, when the simulator set any shared option.
pub fn engine_options(sim: &Simulation) -> Option<Node> {
    if sim.pgs_options.is_empty() {
        return None;
    }
    let pgs = synth::map(sim.pgs_options.clone(), &sim.location);
    Some(synth::map(vec![("pgs", pgs)], &sim.location))
}
