//! Stepping an engine by hand from Python: commands in, state and contacts out.

use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tribo::runner::Scene;

use crate::commands::CommandPatch;
use crate::contact::PyContact;
use crate::convert::vec3;
use crate::errors::IntoPyResult;

/// One engine built for a project's scene, stepped by the caller (`Project.simulator`).
///
/// Each step the project's controllers (unless left out) write their commands, then the
/// commands given to `step` replace theirs joint by joint and add their wrenches.
#[pyclass(name = "Simulator", module = "tribo", frozen)]
pub struct PySimulator {
    sim: Mutex<tribo::Simulator>,
    scene: Arc<Scene>,
}

impl PySimulator {
    pub fn new(sim: tribo::Simulator) -> PySimulator {
        let scene = Arc::clone(sim.scene());
        PySimulator {
            sim: Mutex::new(sim),
            scene,
        }
    }

    /// The simulator (a panic in another thread's step cannot have left it half-stepped: an
    /// engine's step either completes or reports an error).
    fn lock(&self) -> MutexGuard<'_, tribo::Simulator> {
        self.sim.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[pymethods]
impl PySimulator {
    /// Take `steps` steps (default 1) with the same `commands` (the GIL is released meanwhile).
    ///
    /// `commands` is a dict keyed by body name; each body takes any of
    /// `"joints": {JOINT: EFFORT}` (N·m or N) or `{JOINT: {"position": Q, "kp": KP, "kd": KD,
    /// "velocity": V, "feedforward": U}}` (a PD target), `"wrench": {"link": LINK, "force":
    /// [FX, FY, FZ], "torque": [TX, TY, TZ]}` (world frame, N and N·m, at the link origin;
    /// `link` defaults to the root link) and `"wrenches": [WRENCH, ...]`. A diverging step
    /// raises `tribo.DivergedError`.
    #[pyo3(signature = (commands = None, steps = 1))]
    fn step(&self, py: Python<'_>, commands: Option<&Bound<'_, PyAny>>, steps: u64) -> PyResult<()> {
        let patch = match commands {
            Some(c) if !c.is_none() => CommandPatch::read(&self.scene, c)?,
            _ => CommandPatch::default(),
        };
        py.detach(|| {
            let mut sim = self.lock();
            for _ in 0..steps {
                sim.step_with(|_, commands| patch.apply(commands))?;
            }
            Ok(())
        })
        .py_err(py)
    }

    /// Body name → `{"links": {LINK: {"position": (x, y, z), "orientation": (x, y, z, w),
    /// "linear_velocity": (…), "angular_velocity": (…)}}, "joints": {JOINT: {"position",
    /// "velocity", "effort"}}}` after the last step (world frame; the quaternion scalar-last;
    /// joints: the 1-dof ones).
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim = self.lock();
        let state = sim.state();
        let out = PyDict::new(py);
        for (body, scene_body) in self.scene.bodies.iter().enumerate() {
            let Some(body_state) = state.bodies.get(body) else {
                continue;
            };
            let links = PyDict::new(py);
            let joints = PyDict::new(py);
            for (i, link) in scene_body.model.links.iter().enumerate() {
                if let Some(s) = body_state.links.get(i) {
                    let d = PyDict::new(py);
                    let q = s.pose.rotation.coords;
                    d.set_item("position", vec3(&s.pose.translation.vector))?;
                    d.set_item("orientation", (q.x, q.y, q.z, q.w))?;
                    d.set_item("linear_velocity", vec3(&s.linear_velocity))?;
                    d.set_item("angular_velocity", vec3(&s.angular_velocity))?;
                    links.set_item(&link.name, d)?;
                }
                if link.joint.kind.dofs() == 1 {
                    let value = |v: &[f64]| v.get(i).copied().unwrap_or(f64::NAN);
                    let d = PyDict::new(py);
                    d.set_item("position", value(&body_state.joint_positions))?;
                    d.set_item("velocity", value(&body_state.joint_velocities))?;
                    d.set_item("effort", value(&body_state.joint_efforts))?;
                    joints.set_item(&link.joint.name, d)?;
                }
            }
            let d = PyDict::new(py);
            d.set_item("links", links)?;
            d.set_item("joints", joints)?;
            out.set_item(&scene_body.name, d)?;
        }
        Ok(out)
    }

    /// The contacts of the last step.
    #[getter]
    fn contacts(&self) -> Vec<PyContact> {
        PyContact::list(&self.scene, self.lock().contacts())
    }

    /// Simulated time, s.
    #[getter]
    fn time(&self) -> f64 {
        self.lock().time()
    }

    /// Steps taken.
    #[getter]
    fn steps(&self) -> u64 {
        self.lock().steps()
    }

    /// The step length, s.
    #[getter]
    fn time_step(&self) -> f64 {
        self.lock().time_step()
    }

    /// The engine's name.
    #[getter]
    fn engine(&self) -> String {
        self.lock().engine().to_string()
    }

    /// The scene's bodies by name, in order.
    #[getter]
    fn bodies(&self) -> Vec<String> {
        self.scene.bodies.iter().map(|b| b.name.clone()).collect()
    }

    fn __repr__(&self) -> String {
        let sim = self.lock();
        format!(
            "<Simulator {}: step {}, t = {} s>",
            sim.engine(),
            sim.steps(),
            sim.time()
        )
    }
}
