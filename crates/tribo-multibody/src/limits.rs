//! Joint limits as data for the engine: position limits become unilateral constraints, effort
//! limits clamp actuator torques.
//!
//! A position limit of dof k is the constraint `gap ≥ 0` with
//! `gap = q_k − lower` (lower side, direction +1) or `gap = upper − q_k` (upper side, direction −1).
//! Its Jacobian row is `direction · e_kᵀ` (1 × nv): `d(gap)/dt = direction · v_k`, and a limit impulse
//! λ ≥ 0 acts on the joints as `direction · λ · e_k`. The engine treats it like a contact normal:
//! `0 ≤ λ ⊥ direction · v_k⁺ + gap / dt ≥ 0` (or with its own stabilisation).

use crate::error::Error;
use crate::state::check_len;
use crate::tree::Tree;
use nalgebra::{DMatrix, DVector};

/// Which bound a limit constraint is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSide {
    Lower,
    Upper,
}

/// One active (or violated) joint position limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LimitConstraint {
    /// Body whose joint is limited.
    pub body: usize,
    /// The limited degree of freedom (index into v).
    pub dof: usize,
    pub side: LimitSide,
    /// Distance to the bound inside the allowed range (rad or m); negative when violated.
    pub gap: f64,
    /// +1 for a lower limit, −1 for an upper one: `d(gap)/dt = direction · v_dof`.
    pub direction: f64,
}

impl LimitConstraint {
    /// The constraint's 1 × nv Jacobian row `direction · e_dofᵀ`.
    pub fn jacobian_row(&self, nv: usize) -> DMatrix<f64> {
        let mut row = DMatrix::zeros(1, nv);
        if let Some(entry) = row.get_mut((0, self.dof)) {
            *entry = self.direction;
        }
        row
    }

    pub fn is_violated(&self) -> bool {
        self.gap < 0.0
    }
}

/// The position limits whose gap is below `margin` (rad or m, ≥ 0 to include limits about to be
/// reached), in dof order, lower before upper.
pub fn active_position_limits(tree: &Tree, q: &DVector<f64>, margin: f64) -> Result<Vec<LimitConstraint>, Error> {
    check_len("q", tree.nq(), q.len())?;
    let mut active = Vec::new();
    for (body_index, body) in tree.bodies().iter().enumerate() {
        let Some(limits) = body.position_limits else { continue };
        let (Some(&position), Some(dof)) = (
            q.as_slice().get(tree.q_range(body_index).start),
            tree.v_range(body_index).next(),
        ) else {
            continue;
        };
        let candidates = [
            (LimitSide::Lower, position - limits.lower, 1.0),
            (LimitSide::Upper, limits.upper - position, -1.0),
        ];
        for (side, gap, direction) in candidates {
            if gap < margin {
                active.push(LimitConstraint {
                    body: body_index,
                    dof,
                    side,
                    gap,
                    direction,
                });
            }
        }
    }
    Ok(active)
}

/// `τ` with every limited dof clamped to `[−effort_limit, effort_limit]`.
pub fn clamp_effort(tree: &Tree, tau: &DVector<f64>) -> Result<DVector<f64>, Error> {
    let mut clamped = DVector::zeros(0);
    clamp_effort_into(tree, tau, &mut clamped)?;
    Ok(clamped)
}

/// [`clamp_effort`] into `clamped` (its storage reused when the length matches).
pub(crate) fn clamp_effort_into(tree: &Tree, tau: &DVector<f64>, clamped: &mut DVector<f64>) -> Result<(), Error> {
    check_len("tau", tree.nv(), tau.len())?;
    if clamped.len() != tau.len() {
        *clamped = DVector::zeros(tau.len());
    }
    for (k, (out, &t)) in clamped.as_mut_slice().iter_mut().zip(tau.as_slice()).enumerate() {
        *out = match tree.dof_effort_limit(k) {
            Some(limit) => t.clamp(-limit, limit),
            None => t,
        };
    }
    Ok(())
}
