//! Python commands for one step, read into what the engine applies.
//!
//! The shape (documented in `tribo.Simulator.step`):
//!
//! ```text
//! {BODY: {"joints": {JOINT: EFFORT | {"effort": U} | {"position": Q, "kp": KP, "kd": KD,
//!                                                    "velocity": V, "feedforward": U}},
//!         "wrench": {"link": LINK, "force": [FX, FY, FZ], "torque": [TX, TY, TZ]},
//!         "wrenches": [WRENCH, ...]}}
//! ```

use nalgebra::Vector3;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tribo::runner::Scene;
use tribo::{Body, Commands, JointCommand, LinkWrench};

use crate::convert::listing;
use crate::errors::input_error;

/// Commands by body index, ready to lay over the controllers' commands of a step.
#[derive(Debug, Default, Clone)]
pub struct CommandPatch {
    joints: Vec<(usize, usize, JointCommand)>,
    wrenches: Vec<(usize, LinkWrench)>,
}

impl CommandPatch {
    /// Set the joint commands (replacing the controllers' for those joints) and add the wrenches.
    pub fn apply(&self, commands: &mut Commands) {
        for &(body, link, command) in &self.joints {
            if let Some(slot) = commands.bodies.get_mut(body).and_then(|b| b.joints.get_mut(link)) {
                *slot = command;
            }
        }
        for &(body, wrench) in &self.wrenches {
            if let Some(b) = commands.bodies.get_mut(body) {
                b.link_wrenches.push(wrench);
            }
        }
    }

    /// Read `commands` (a `dict` keyed by body name) against `scene`.
    pub fn read(scene: &Scene, commands: &Bound<'_, PyAny>) -> PyResult<CommandPatch> {
        let py = commands.py();
        let commands = commands
            .cast::<PyDict>()
            .map_err(|_| input_error(py, "commands must be a dict keyed by body name"))?;
        let mut patch = CommandPatch::default();
        for (body_name, entry) in commands.iter() {
            let body_name: String = body_name
                .extract()
                .map_err(|_| input_error(py, "commands: body names must be strings"))?;
            let Some(body) = scene.body_index(&body_name) else {
                return Err(input_error(
                    py,
                    format!(
                        "commands: no body `{body_name}`; the bodies are {}",
                        listing(scene.bodies.iter().map(|b| b.name.as_str()))
                    ),
                ));
            };
            let model = &scene.bodies[body].model;
            let entry = entry.cast::<PyDict>().map_err(|_| {
                input_error(
                    py,
                    format!("commands[{body_name:?}] must be a dict with `joints`, `wrench` or `wrenches`"),
                )
            })?;
            for (key, value) in entry.iter() {
                let key: String = key.extract()?;
                let at = format!("commands[{body_name:?}][{key:?}]");
                match key.as_str() {
                    "joints" => patch.read_joints(body, model, &value, &at)?,
                    "wrench" => patch.read_wrench(body, model, &value, &at)?,
                    "wrenches" => {
                        let list = value
                            .cast::<PyList>()
                            .map_err(|_| input_error(py, format!("{at} must be a list of wrenches")))?;
                        for (i, w) in list.iter().enumerate() {
                            patch.read_wrench(body, model, &w, &format!("{at}[{i}]"))?;
                        }
                    }
                    _ => {
                        return Err(input_error(
                            py,
                            format!(
                            "commands[{body_name:?}]: unknown key `{key}`; expected `joints`, `wrench` or `wrenches`"
                        ),
                        ))
                    }
                }
            }
        }
        Ok(patch)
    }

    fn read_joints(&mut self, body: usize, model: &Body, value: &Bound<'_, PyAny>, at: &str) -> PyResult<()> {
        let py = value.py();
        let joints = value
            .cast::<PyDict>()
            .map_err(|_| input_error(py, format!("{at} must be a dict keyed by joint name")))?;
        for (name, command) in joints.iter() {
            let name: String = name.extract()?;
            let link = joint_link(model, &name).ok_or_else(|| {
                let names = model
                    .links
                    .iter()
                    .filter(|l| l.joint.kind.dofs() == 1)
                    .map(|l| l.joint.name.as_str());
                input_error(
                    py,
                    format!(
                        "{at}: body has no 1-dof joint `{name}`; its joints are {}",
                        listing(names)
                    ),
                )
            })?;
            let command = joint_command(&command, &format!("{at}[{name:?}]"))?;
            self.joints.push((body, link, command));
        }
        Ok(())
    }

    fn read_wrench(&mut self, body: usize, model: &Body, value: &Bound<'_, PyAny>, at: &str) -> PyResult<()> {
        let py = value.py();
        let wrench = value
            .cast::<PyDict>()
            .map_err(|_| input_error(py, format!("{at} must be a dict with `link`, `force`, `torque`")))?;
        let mut link = 0;
        let mut force = Vector3::zeros();
        let mut torque = Vector3::zeros();
        for (key, v) in wrench.iter() {
            let key: String = key.extract()?;
            match key.as_str() {
                "link" => {
                    let name: String = v
                        .extract()
                        .map_err(|_| input_error(py, format!("{at}[\"link\"] must be a link name")))?;
                    link = model.links.iter().position(|l| l.name == name).ok_or_else(|| {
                        input_error(
                            py,
                            format!(
                                "{at}: body has no link `{name}`; its links are {}",
                                listing(model.links.iter().map(|l| l.name.as_str()))
                            ),
                        )
                    })?;
                }
                "force" => force = vector(&v, &format!("{at}[\"force\"]"))?,
                "torque" => torque = vector(&v, &format!("{at}[\"torque\"]"))?,
                _ => {
                    return Err(input_error(
                        py,
                        format!("{at}: unknown key `{key}`; expected `link`, `force` or `torque`"),
                    ))
                }
            }
        }
        self.wrenches.push((body, LinkWrench { link, force, torque }));
        Ok(())
    }
}

/// The link whose joint is called `name` (a 1-dof joint; by joint name, else by link name).
fn joint_link(model: &Body, name: &str) -> Option<usize> {
    let movable = |i: &usize| model.links[*i].joint.kind.dofs() == 1;
    (0..model.links.len())
        .filter(movable)
        .find(|&i| model.links[i].joint.name == name)
        .or_else(|| {
            (0..model.links.len())
                .filter(movable)
                .find(|&i| model.links[i].name == name)
        })
}

fn number(value: &Bound<'_, PyAny>, at: &str) -> PyResult<f64> {
    match value.extract::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(input_error(value.py(), format!("{at} must be a finite number"))),
    }
}

fn vector(value: &Bound<'_, PyAny>, at: &str) -> PyResult<Vector3<f64>> {
    let py = value.py();
    let items: Vec<Bound<'_, PyAny>> = value
        .try_iter()
        .and_then(|it| it.collect::<PyResult<Vec<_>>>())
        .map_err(|_| input_error(py, format!("{at} must be three numbers")))?;
    if items.len() != 3 {
        return Err(input_error(
            py,
            format!("{at} must be three numbers, got {}", items.len()),
        ));
    }
    Ok(Vector3::new(
        number(&items[0], at)?,
        number(&items[1], at)?,
        number(&items[2], at)?,
    ))
}

/// An effort (a number or `{"effort": U}`) or a PD target (`{"position": Q, "kp", "kd",
/// "velocity", "feedforward"}`; velocity and feedforward default to 0).
fn joint_command(value: &Bound<'_, PyAny>, at: &str) -> PyResult<JointCommand> {
    let py = value.py();
    if value.extract::<f64>().is_ok() {
        return number(value, at).map(JointCommand::Effort);
    }
    let spec = value.cast::<PyDict>().map_err(|_| {
        input_error(
            py,
            format!(
                "{at} must be an effort (a number), {{\"effort\": U}} or {{\"position\": Q, \"kp\": KP, \"kd\": KD}}"
            ),
        )
    })?;
    let mut fields: [(&str, Option<f64>); 6] = [
        ("effort", None),
        ("position", None),
        ("kp", None),
        ("kd", None),
        ("velocity", None),
        ("feedforward", None),
    ];
    for (key, v) in spec.iter() {
        let key: String = key.extract()?;
        let Some(slot) = fields.iter_mut().find(|(k, _)| *k == key) else {
            return Err(input_error(
                py,
                format!("{at}: unknown key `{key}`; expected `effort`, or `position`, `kp`, `kd`, `velocity`, `feedforward`"),
            ));
        };
        slot.1 = Some(number(&v, &format!("{at}[{key:?}]"))?);
    }
    let [(_, effort), (_, position), (_, kp), (_, kd), (_, velocity), (_, feedforward)] = fields;
    match (effort, position, kp, kd) {
        (Some(u), None, None, None) if velocity.is_none() && feedforward.is_none() => Ok(JointCommand::Effort(u)),
        (None, Some(q_ref), Some(kp), Some(kd)) => Ok(JointCommand::Pd {
            q_ref,
            v_ref: velocity.unwrap_or(0.0),
            kp,
            kd,
            feedforward: feedforward.unwrap_or(0.0),
        }),
        _ => Err(input_error(
            py,
            format!("{at}: give either `effort`, or `position` with `kp` and `kd` (and optionally `velocity`, `feedforward`)"),
        )),
    }
}
