//! The end of the step (semi-implicit Euler, `docs/design/contact-mechanics.md` §4.2.2):
//! `v⁺ = v_free + M̃⁻¹ J_Bᵀ λ_B` for every dynamic body B, then `q⁺ = q ⊕ h v⁺`
//! (tribo-multibody `VelocityStep::velocity_after_impulse`, `finish_step`).
//!
//! **Divergence**: a non-finite velocity or one above [`MAX_SPEED`] (m/s or rad/s, any
//! coordinate) stops the step with the body's name; the engine keeps its last good state.

use nalgebra::DVector;
use tribo_multibody::{finish_step, State, VelocityStep};

use crate::build::BodyModel;
use crate::error::Divergence;
use crate::solve::BodyRows;

/// Velocities above this (m/s, rad/s) are treated as a diverged simulation.
pub(crate) const MAX_SPEED: f64 = 1e4;

/// The new state of a dynamic body, or what went wrong.
pub(crate) fn advance(
    model: &BodyModel,
    state: &State,
    step: &VelocityStep,
    rows: Option<&BodyRows>,
    lambda: &DVector<f64>,
    dt: f64,
) -> Result<State, Divergence> {
    let v_next = match rows {
        Some(rows) => {
            let mut body_lambda = DVector::zeros(3 * rows.contacts.len());
            for (r, &c) in rows.contacts.iter().enumerate() {
                body_lambda
                    .fixed_rows_mut::<3>(3 * r)
                    .copy_from(&lambda.fixed_rows::<3>(3 * c));
            }
            let impulse = rows.jacobian.tr_mul(&body_lambda);
            step.velocity_after_impulse(&impulse)?
        }
        None => step.v_free.clone(),
    };
    if let Some(k) = v_next.iter().position(|x| !x.is_finite() || x.abs() > MAX_SPEED) {
        let dof_body = model.tree.dof_body().get(k).copied().unwrap_or(0);
        let link = model
            .tree
            .bodies()
            .get(dof_body)
            .map(|b| b.name.clone())
            .unwrap_or_default();
        return Err(Divergence::Speed {
            link,
            coordinate: k,
            value: v_next[k],
            limit: MAX_SPEED,
        });
    }
    Ok(finish_step(&model.tree, &state.q, &v_next, dt)?)
}
