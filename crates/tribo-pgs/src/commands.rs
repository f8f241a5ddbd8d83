//! A body's commands as the inputs of its velocity update (tribo-multibody `StepInputs`):
//!
//! - `Effort(τ)`: the joint torque (explicit), clamped with the PD torque to the joint's
//!   `max_effort` by the multibody step;
//! - `Pd { q_ref, v_ref, kp, kd, feedforward }`: the gains go into the implicit velocity update
//!   `(M + h K_d + h² K_p) v⁺ = M v + h (τ − bias + K_p (q_ref − q) + K_d v_ref)` (tribo-multibody
//!   `pd.rs`: stable for any gains), the feedforward into τ;
//! - `link_wrenches`: a force at the link origin and a torque (world), as external forces on the
//!   link's carrier for this step.

use nalgebra::DVector;
use tribo_engine::{BodyCommands, JointCommand};
use tribo_multibody::{ExternalForces, PdControl, SpatialForce, State};

use crate::build::BodyModel;
use crate::error::CommandError;

/// What drives one body during a step.
pub(crate) struct Drive {
    /// Joint torques; `None` when no command sets one (the multibody step then takes zero torque,
    /// the same as a zero vector, without the vector).
    pub torque: Option<DVector<f64>>,
    pub pd: Option<PdControl>,
    pub external: Option<ExternalForces>,
}

/// The drive of `model` at `state` under `commands`, or the bad command.
pub(crate) fn drive(
    model: &BodyModel,
    state: &State,
    commands: Option<&BodyCommands>,
    link_names: &[String],
    poses: &[nalgebra::Isometry3<f64>],
) -> Result<Drive, CommandError> {
    let tree = &model.tree;
    let nv = tree.nv();
    let Some(commands) = commands else {
        return Ok(Drive {
            torque: None,
            pd: None,
            external: None,
        });
    };
    let mut torque: Option<DVector<f64>> = None;
    // The PD targets and gains (q_ref, v_ref, kp, kd), made at the first PD command.
    let mut servo: Option<[DVector<f64>; 4]> = None;
    for (link, command) in commands.joints.iter().enumerate() {
        let name = || link_names.get(link).cloned().unwrap_or_else(|| format!("#{link}"));
        let dof = model.link_dof.get(link).copied().flatten();
        let q = model.link_q.get(link).copied().flatten();
        match (command, dof, q) {
            (JointCommand::None, _, _) => {}
            (JointCommand::Effort(effort), Some(dof), _) => {
                if !effort.is_finite() {
                    return Err(CommandError::NonFiniteEffort {
                        link: name(),
                        effort: *effort,
                    });
                }
                torque.get_or_insert_with(|| DVector::zeros(nv))[dof] += effort;
            }
            (
                JointCommand::Pd {
                    q_ref: target,
                    v_ref: speed,
                    kp: p,
                    kd: d,
                    feedforward,
                },
                Some(dof),
                Some(q),
            ) => {
                let values = [*target, *speed, *p, *d, *feedforward];
                if values.iter().any(|x| !x.is_finite()) || *p < 0.0 || *d < 0.0 {
                    return Err(CommandError::InvalidPd {
                        link: name(),
                        command: *command,
                    });
                }
                let [q_ref, v_ref, kp, kd] = servo.get_or_insert_with(|| {
                    let zeros = DVector::zeros(nv);
                    [state.q.clone(), zeros.clone(), zeros.clone(), zeros]
                });
                // Through the slices (nalgebra's indexing checks a row and a column).
                set(q_ref, q, *target);
                set(v_ref, dof, *speed);
                set(kp, dof, *p);
                set(kd, dof, *d);
                let torque = torque.get_or_insert_with(|| DVector::zeros(nv));
                if let Some(t) = torque.as_mut_slice().get_mut(dof) {
                    *t += feedforward;
                }
            }
            (_, _, _) => {
                return Err(CommandError::NotDriveable { link: name() });
            }
        }
    }
    let pd = match servo {
        Some([q_ref, v_ref, kp, kd]) => Some(PdControl::new(tree, q_ref, v_ref, kp, kd)?),
        None => None,
    };
    let external = if commands.link_wrenches.is_empty() {
        None
    } else {
        let mut forces = ExternalForces::new(tree);
        for wrench in &commands.link_wrenches {
            let (Some(&carrier), Some(in_carrier)) =
                (model.carrier.get(wrench.link), model.link_in_carrier.get(wrench.link))
            else {
                return Err(CommandError::MissingWrenchLink { link: wrench.link });
            };
            if !(wrench.force.iter().chain(wrench.torque.iter()).all(|x| x.is_finite())) {
                return Err(CommandError::NonFiniteWrench { link: wrench.link });
            }
            let origin = poses
                .get(carrier)
                .map(|pose| (pose * in_carrier).translation.vector)
                .unwrap_or_default();
            forces
                .add_force_at(carrier, &wrench.force, &origin)
                .and_then(|()| forces.add_wrench(carrier, &SpatialForce::from_torque(&wrench.torque)))?;
        }
        Some(forces)
    };
    Ok(Drive { torque, pd, external })
}

/// `vector[index] = value` (nothing for an index out of range).
fn set(vector: &mut DVector<f64>, index: usize, value: f64) {
    if let Some(slot) = vector.as_mut_slice().get_mut(index) {
        *slot = value;
    }
}
