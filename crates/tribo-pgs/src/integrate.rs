//! The end of the step (semi-implicit Euler, `docs/design/contact-mechanics.md` §4.2.2):
//! `v⁺ = v_free + M̃⁻¹ J_Bᵀ λ_B` for every dynamic body B, then `q⁺ = q ⊕ h v⁺`
//! (the sum of tribo-multibody `VelocityStep::velocity_after_impulse`, then `finish_step_into`).
//! The vectors of the sum and the new state are written into buffers kept between steps.
//!
//! For a free rigid body, whose contacts the solver kept factored (solve.rs), `M̃⁻¹ J_Bᵀ λ_B` is
//! the body's velocity change `Δv_B = Σ_c g_cB λ_c` of the factored operator (tribo-lcp
//! `FactoredDelassus`): the velocity the solver's own sweeps kept beside the final impulses
//! (tribo-lcp `Pgs::body_velocities`), or, when an impact pass changed them, summed from them
//! afresh — without a second solve with M̃ either way.
//!
//! **Divergence**: a non-finite velocity or one above [`MAX_SPEED`] (m/s or rad/s, any
//! coordinate) stops the step with the body's name; the engine keeps its last good state.

use nalgebra::DVector;
use tribo_multibody::{finish_step_into, State, VelocityStep};

use crate::build::BodyModel;
use crate::error::Divergence;
use crate::solve::BodyRows;

/// Velocities above this (m/s, rad/s) are treated as a diverged simulation.
pub(crate) const MAX_SPEED: f64 = 1e4;

/// Working vectors of [`advance`], kept for their storage.
#[derive(Default)]
pub(crate) struct AdvanceScratch {
    /// λ_B: the body's contacts' impulses, stacked.
    body_lambda: DVector<f64>,
    /// `J_Bᵀ λ_B`, then `M̃⁻¹ J_Bᵀ λ_B`, then v⁺.
    velocity: DVector<f64>,
}

/// What the contacts did to a dynamic body in the step.
pub(crate) enum Impulses<'a> {
    /// None touched it.
    None,
    /// The body's stacked contact rows and the step's impulses λ.
    Stacked(&'a BodyRows, &'a DVector<f64>),
    /// The velocity change `M̃⁻¹ J_Bᵀ λ_B` of a factored free body (module docs).
    Factored(&'a [f64]),
}

/// Makes `next` the new state of a dynamic body, or tells what went wrong (`next` then holds no
/// meaningful state).
pub(crate) fn advance(
    model: &BodyModel,
    state: &State,
    step: &VelocityStep,
    impulses: Impulses,
    dt: f64,
    scratch: &mut AdvanceScratch,
    next: &mut State,
) -> Result<(), Divergence> {
    let v_next = &mut scratch.velocity;
    match impulses {
        Impulses::Factored(change) => {
            crate::solve::zeroed_vector(v_next, step.v_free.len());
            for ((v, &dv), &free) in v_next.as_mut_slice().iter_mut().zip(change).zip(step.v_free.as_slice()) {
                *v = dv + free;
            }
        }
        Impulses::Stacked(rows, lambda) => {
            let body_lambda = &mut scratch.body_lambda;
            crate::solve::zeroed_vector(body_lambda, 3 * rows.contacts.len());
            for (r, &c) in rows.contacts.iter().enumerate() {
                body_lambda
                    .fixed_rows_mut::<3>(3 * r)
                    .copy_from(&lambda.fixed_rows::<3>(3 * c));
            }
            crate::solve::zeroed_vector(v_next, rows.jacobian.ncols());
            rows.jacobian.tr_mul_to(body_lambda, v_next);
            // v_free + M̃⁻¹ p, as `velocity_after_impulse` sums it (the addition commutes exactly).
            step.system.solve_in_place(v_next)?;
            *v_next += &step.v_free;
        }
        Impulses::None => {
            crate::solve::zeroed_vector(v_next, step.v_free.len());
            v_next.copy_from(&step.v_free);
        }
    };
    if let Some(k) = v_next
        .as_slice()
        .iter()
        .position(|x| !x.is_finite() || x.abs() > MAX_SPEED)
    {
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
    finish_step_into(&model.tree, &state.q, v_next, dt, next)?;
    Ok(())
}
