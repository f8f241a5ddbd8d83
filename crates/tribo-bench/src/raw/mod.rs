//! The project's scene in raw rapier3d-f64, with the integration settings of tribo's `rapier`
//! engine under the project's options (`tribo_rapier::integration_parameters`), stepped without tribo: what tribo's rapier wrapper is measured against.
//!
//! The project's controllers run as in tribo (the same [`Controller`]s, on a state holding the
//! raw world's joint positions), and their commands become rapier's own joint motors: a PD
//! command (`mode: position` patterns) is a force-based motor, as in tribo's rapier engine.
//! Anything else — joint efforts, wrenches, kinematic roots, material pairs that rapier's
//! per-collider coefficients cannot express — is refused with the reason, not approximated.

mod build;
mod convert;
mod materials;

use std::path::PathBuf;
use std::sync::Arc;

use rapier3d_f64::prelude::{JointAxis, MotorModel, PhysicsWorld};
use tribo_runner::{
    controllers, BodyState, Commands, ControlInput, Controller, EngineOptions, JointCommand, LazyContacts, LinkState,
    Scene, SceneState,
};
use tribo_scene::Project;

use crate::error::BenchError;
use crate::phases::Stepper;
use build::{add_body, RawBody};

pub struct RawRapier {
    project: PathBuf,
    scene: Arc<Scene>,
    world: PhysicsWorld,
    bodies: Vec<RawBody>,
    controllers: Vec<Box<dyn Controller>>,
    commands: Commands,
    /// Joint positions for the controllers (link poses are not read back).
    state: SceneState,
    dt: f64,
}

impl RawRapier {
    pub fn new(project: &Project) -> Result<RawRapier, BenchError> {
        let unsupported = |reason: String| BenchError::RawUnsupported {
            project: project.path.clone(),
            reason,
        };
        let scene = Arc::clone(&project.scene);
        let coefficients = materials::collider_coefficients(&scene).map_err(unsupported)?;
        let dt = project.simulation.time_step;
        let mut world = PhysicsWorld::new();
        world.gravity = convert::vector(&scene.gravity);
        let options = EngineOptions {
            node: project.engine_options("rapier").cloned(),
        };
        world.integration_parameters = tribo_rapier::integration_parameters(&options, dt)
            .map_err(|diagnostic| BenchError::Project(diagnostic.to_string()))?;
        let mut bodies = Vec::with_capacity(scene.bodies.len());
        for body in &scene.bodies {
            let raw = add_body(&mut world, body, &coefficients)
                .map_err(|reason| unsupported(format!("body `{}`: {reason}", body.name)))?;
            bodies.push(raw);
        }
        let state = SceneState {
            bodies: scene
                .bodies
                .iter()
                .map(|b| BodyState {
                    links: vec![LinkState::default(); b.model.links.len()],
                    joint_positions: b.initial_positions.clone(),
                    joint_velocities: vec![0.0; b.model.links.len()],
                    joint_efforts: vec![0.0; b.model.links.len()],
                })
                .collect(),
        };
        let mut controllers: Vec<Box<dyn Controller>> = project.controllers.iter().map(controllers::build).collect();
        let input = ControlInput {
            time: 0.0,
            dt,
            step: 0,
            scene: &scene,
            state: &state,
            contacts: LazyContacts::NONE,
        };
        for c in &mut controllers {
            c.initialize(&input)
                .map_err(|reason| unsupported(format!("controller `{}` failed to start: {reason}", c.name())))?;
        }
        let commands = Commands::idle(scene.bodies.iter().map(|b| b.model.links.len()));
        Ok(RawRapier {
            project: project.path.clone(),
            scene,
            world,
            bodies,
            controllers,
            commands,
            state,
            dt,
        })
    }

    /// Contact points with a positive impulse after the last step.
    pub fn contacts(&self) -> usize {
        self.world
            .narrow_phase
            .contact_pairs()
            .flat_map(|p| p.solver_manifolds())
            .flat_map(|m| m.points.iter())
            .filter(|p| p.data.impulse > 0.0)
            .count()
    }

    /// The highest root-link origin among the free bodies, m (a check that the worlds agree).
    pub fn top_height(&self) -> f64 {
        self.bodies
            .iter()
            .filter(|b| !b.fixed)
            .filter_map(|b| self.world.bodies.get(b.root))
            .map(|rb| rb.translation().z)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The commands as rapier motors.
    fn apply_commands(&mut self) -> Result<(), String> {
        for (b, (body, commands)) in self.bodies.iter().zip(&self.commands.bodies).enumerate() {
            if commands.root_target.is_some() || !commands.link_wrenches.is_empty() {
                return Err(format!(
                    "body `{}` is driven kinematically or by wrenches",
                    self.scene.bodies[b].name
                ));
            }
            for joint in &body.joints {
                let axis = if joint.prismatic {
                    JointAxis::LinX
                } else {
                    JointAxis::AngX
                };
                let Some((multibody, id)) = self.world.multibody_joints.get_mut(joint.handle) else {
                    return Err("a joint vanished from its multibody".to_string());
                };
                let Some(link) = multibody.link_mut(id) else {
                    return Err("a joint link vanished".to_string());
                };
                let data = &mut link.joint.data;
                match commands.joints[joint.link] {
                    JointCommand::None => {
                        data.motor_axes.remove(axis.into());
                    }
                    JointCommand::Pd {
                        q_ref,
                        v_ref,
                        kp,
                        kd,
                        feedforward,
                    } if feedforward == 0.0 && (kp > 0.0 || kd > 0.0) => {
                        data.set_motor_model(axis, MotorModel::ForceBased)
                            .set_motor(axis, q_ref, v_ref, kp, kd);
                    }
                    other => {
                        return Err(format!(
                            "joint command {other:?} (only PD commands become rapier motors)"
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    /// Joint positions of the articulated bodies into the controllers' state.
    fn read_joints(&mut self) {
        for (b, body) in self.bodies.iter().enumerate() {
            for joint in &body.joints {
                if let Some((multibody, id)) = self.world.multibody_joints.get(joint.handle) {
                    if let Some(link) = multibody.link(id) {
                        let coordinate = if joint.prismatic { 0 } else { 3 };
                        self.state.bodies[b].joint_positions[joint.link] = link.joint().coords()[coordinate];
                    }
                }
            }
        }
    }
}

impl Stepper for RawRapier {
    fn step(&mut self, step: u64) -> Result<(), BenchError> {
        let index = step - 1;
        if !self.controllers.is_empty() {
            self.commands.clear();
            let input = ControlInput {
                time: index as f64 * self.dt,
                dt: self.dt,
                step: index,
                scene: &self.scene,
                state: &self.state,
                contacts: LazyContacts::NONE,
            };
            for c in &mut self.controllers {
                c.control(&input, &mut self.commands);
            }
            self.apply_commands().map_err(|reason| BenchError::RawUnsupported {
                project: self.project.clone(),
                reason,
            })?;
        }
        self.world.step();
        if !self.controllers.is_empty() {
            self.read_joints();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::tribo_stepper::TriboStepper;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// Raw rapier and tribo's rapier engine on the same project: same contacts, same heights.
    fn agree(project: &str, steps: u64, tolerance: f64) {
        let project = crate::project::load(&root().join(project), Some(root().join("share"))).expect("loads");
        let mut raw = RawRapier::new(&project).expect("raw world builds");
        let mut tribo = TriboStepper::new(project.clone(), "rapier", false).expect("engine builds");
        for step in 1..=steps {
            raw.step(step).expect("raw step");
            tribo.step(step).expect("tribo step");
        }
        let (a, b) = (raw.top_height(), tribo.top_height());
        assert!((a - b).abs() < tolerance, "top height: raw {a}, tribo {b}");
        assert_eq!(raw.contacts(), tribo.contacts);
    }

    #[test]
    fn raw_rapier_and_the_rapier_engine_agree_on_a_pile() {
        agree("samples/bench/pile-50.yaml", 100, 1e-4);
    }

    #[test]
    fn raw_rapier_and_the_rapier_engine_agree_on_sr1_standing() {
        agree("samples/bench/sr1-standing.yaml", 100, 1e-5);
    }
}
