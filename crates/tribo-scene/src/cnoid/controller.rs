//! `SimpleControllerItem` → a tribo controller.
//!
//! Simple controllers are compiled C++ modules; tribo cannot load them. The one it knows is
//! Choreonoid's `SR1WalkPatternController` (sample/SimpleController), which plays
//! `SR1WalkPattern1.seq` from `share/motion/SR1/` with the PD law
//! `u = P (q_ref − q) + D (dq_ref − dq)` — P 8000 for the legs (joint ids 0–5, 13–18) and the
//! waist and chest (26–28), 3000 for the arms (6–12, 19–25), D 100 everywhere — or, with the
//! option string `position`, sets `SR1WalkPattern2.seq` as joint-angle targets. That is tribo's
//! built-in `joint_pattern` controller (torque or position mode). Any other module, the
//! `velocity` option, or a pattern file that cannot be found is reported as ignored.

use tribo_yaml::{Diagnostic, Node};

use super::paths::Resolver;
use super::simulator::Simulation;
use super::synth;
use super::tree::{data_fields, ignored, report_rest, Item};

pub const SR1_WALK: &str = "SR1WalkPatternController";
const LEG_AND_TRUNK_P: f64 = 8000.0;
const ARM_P: f64 = 3000.0;
const D: f64 = 100.0;
const ARM_IDS: [usize; 14] = [6, 7, 8, 9, 10, 11, 12, 19, 20, 21, 22, 23, 24, 25];

const MODULE_KEYS: [&str; 6] = [
    "base_directory",
    "baseDirectory",
    "RelativePathBase",
    "reloading",
    "export_symbols",
    "isOldRefarenceVariableMode",
];
const KNOWN: [&str; 5] = [
    "controller",
    "controller_options",
    "base_directory",
    "reloading",
    "export_symbols",
];

/// A mapped controller: its `controllers:` entry.
pub struct ControllerOut {
    pub node: Node,
}

/// The controller item as a tribo controller of the body `body_name`, or `None` (with a warning
/// saying why) when tribo has no counterpart.
pub fn read(
    item: &Item,
    body_name: Option<&str>,
    sim: &Simulation,
    resolver: &Resolver,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<ControllerOut>, Diagnostic> {
    let at = item.location();
    let Some(body_name) = body_name else {
        warnings.push(ignored(at, format!("{} is not under a BodyItem", item.label())));
        return Ok(None);
    };
    let Some(f) = data_fields(item)? else {
        warnings.push(ignored(at, format!("{} names no controller module", item.label())));
        return Ok(None);
    };
    let module_node = f.get_value(&["controller"]);
    let item_options = f
        .get_value(&["controller_options", "controllerOptions"])
        .map(|n| n.as_str().map(|s| s.trim().to_string()))
        .transpose()?
        .unwrap_or_default();
    report_rest(
        &f,
        item,
        &[(&MODULE_KEYS, "how Choreonoid loads the module")],
        &KNOWN,
        warnings,
    );
    let Some(module_node) = module_node else {
        warnings.push(ignored(at, format!("{} names no controller module", item.label())));
        return Ok(None);
    };
    let module = module_node.as_str()?;
    let stem = std::path::Path::new(module)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem != SR1_WALK {
        warnings.push(ignored(
            &module_node.location,
            format!(
                "{}: controller module `{module}` is compiled code tribo cannot run (it maps only {SR1_WALK})",
                item.label()
            ),
        ));
        return Ok(None);
    }
    // ControllerIO: the simulator's options, a space, the item's options.
    let options = [sim.controller_options.as_str(), item_options.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let (mode, pattern) = match options.as_str() {
        "position" => ("position", "SR1WalkPattern2.seq"),
        "velocity" => {
            warnings.push(ignored(
                at,
                format!(
                    "{} with option `velocity` (joint-velocity targets have no tribo counterpart)",
                    item.label()
                ),
            ));
            return Ok(None);
        }
        _ => ("torque", "SR1WalkPattern1.seq"),
    };
    let motion = match resolver.find_named(pattern, &["motion/SR1", "motion"]) {
        Ok(path) => path,
        Err(tried) => {
            let dirs: Vec<String> = tried
                .iter()
                .filter_map(|p| p.parent())
                .map(|p| p.display().to_string())
                .collect();
            warnings.push(ignored(
                at,
                format!(
                    "{}: its pattern `{pattern}` is in none of {}, so `{body_name}` is not driven",
                    item.label(),
                    dirs.join(", ")
                ),
            ));
            return Ok(None);
        }
    };
    let arms: Vec<Node> = ARM_IDS.iter().map(|id| synth::integer(*id, at)).collect();
    let node = synth::map(
        vec![
            ("type", synth::text("joint_pattern", at)),
            ("body", synth::text(body_name, at)),
            (
                "motion",
                synth::text(motion.display().to_string(), &module_node.location),
            ),
            ("mode", synth::text(mode, at)),
            ("p", synth::number(LEG_AND_TRUNK_P, at)),
            ("d", synth::number(D, at)),
            (
                "gains",
                synth::list(
                    vec![synth::map(
                        vec![("joints", synth::list(arms, at)), ("p", synth::number(ARM_P, at))],
                        at,
                    )],
                    at,
                ),
            ),
            ("end_with_motion", synth::boolean(sim.stop_with_controllers, at)),
        ],
        at,
    );
    Ok(Some(ControllerOut { node }))
}
