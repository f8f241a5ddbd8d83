//! Jacobians of body points and frames. The Jacobian of body i is the row of motion axes of the
//! joints in its support set κ(i) (RBDA ch. 4: the joints on the path from i to the root).
//!
//! Column k of every Jacobian is zero unless dof k supports the body (it is the body's own dof or an
//! ancestor's, [`crate::Tree::supporting_dofs`]); otherwise it is the world motion axis
//! `S_k = [s_ω; s_r]` (about the reference point r = [`Kinematics::origin`]) read at the point of
//! interest P (world):
//!
//! ```text
//! spatial:  J_s[:, k] = [s_ω; s_r]                    (6 × nv, r as reference)
//! point:    J_p[:, k] = s_r + s_ω × (P − r)           (3 × nv), ṗ_P = J_p v
//! frame:    J_f[:, k] = [s_r + s_ω × (P − r); s_ω]    (6 × nv), [ṗ_P; ω] = J_f v
//! ```
//!
//! The frame Jacobian uses the same `[linear; angular]` order as a free joint's velocity, so for a
//! free body its Jacobian at the body origin is the identity. With contact impulses λ on the rows
//! of J the generalised impulse is `Jᵀλ`, and the Delassus operator is `A = J M⁻¹ Jᵀ`
//! ([`crate::TreeFactorisation::delassus`]).

use crate::error::Error;
use crate::kinematics::Kinematics;
use crate::spatial::SpatialMotion;
use nalgebra::{DMatrix, Vector3};

/// The 6 × nv spatial Jacobian of `body`: rows `[ω; v_r]` (world axes, about
/// [`Kinematics::origin`]), so `v̂_body = J_s v`.
pub fn spatial_jacobian(kin: &Kinematics, body: usize) -> Result<DMatrix<f64>, Error> {
    let mut jacobian = DMatrix::zeros(6, kin.tree().nv());
    for_each_supporting_axis(kin, body, |dof, s| {
        for (row, value) in s.to_vector().iter().enumerate() {
            jacobian[(row, dof)] = *value;
        }
    })?;
    Ok(jacobian)
}

/// The 3 × nv Jacobian of the point of `body` at world position `point`: `ṗ_P = J_p v` (m/s).
pub fn point_jacobian(kin: &Kinematics, body: usize, point: &Vector3<f64>) -> Result<DMatrix<f64>, Error> {
    let mut jacobian = DMatrix::zeros(0, 0);
    point_jacobian_into(kin, body, point, &mut jacobian)?;
    Ok(jacobian)
}

/// [`point_jacobian`] into `jacobian` (its storage reused when it is already 3 × nv). On an error
/// `jacobian` holds no meaningful values.
pub fn point_jacobian_into(
    kin: &Kinematics,
    body: usize,
    point: &Vector3<f64>,
    jacobian: &mut DMatrix<f64>,
) -> Result<(), Error> {
    let tree = kin.tree();
    let nv = tree.nv();
    if jacobian.shape() != (3, nv) {
        *jacobian = DMatrix::zeros(3, nv);
    }
    // Column-major 3 × nv: column `dof` is entries 3·dof..3·dof + 3 (every dof is < nv).
    let entries = jacobian.as_mut_slice();
    let offset = point - kin.origin();
    if tree.len() == 1 {
        // One body (a free rigid body): every dof supports it, so every column is its axis read at
        // P, without the walk up the tree.
        tree.body(body)?;
        for (column, s) in entries.chunks_exact_mut(3).zip(kin.dof_motions()) {
            column.copy_from_slice(s.velocity_at(&offset).as_slice());
        }
        return Ok(());
    }
    entries.fill(0.0);
    for_each_supporting_axis(kin, body, |dof, s| {
        if let Some(column) = entries.get_mut(3 * dof..3 * dof + 3) {
            column.copy_from_slice(s.velocity_at(&offset).as_slice());
        }
    })
}

/// The 6 × nv Jacobian of a frame attached to `body` with origin at world position `point`:
/// rows `[ṗ_P; ω]` (linear velocity of the frame origin, then angular velocity, world axes).
pub fn frame_jacobian(kin: &Kinematics, body: usize, point: &Vector3<f64>) -> Result<DMatrix<f64>, Error> {
    let mut jacobian = DMatrix::zeros(6, kin.tree().nv());
    for_each_supporting_axis(kin, body, |dof, s| {
        jacobian
            .fixed_view_mut::<3, 1>(0, dof)
            .copy_from(&s.velocity_at(&(point - kin.origin())));
        jacobian.fixed_view_mut::<3, 1>(3, dof).copy_from(&s.angular);
    })?;
    Ok(jacobian)
}

/// Calls `f(dof, S_dof)` for every degree of freedom that supports `body` (all indices are in range
/// once `body` is).
fn for_each_supporting_axis(
    kin: &Kinematics,
    body: usize,
    mut f: impl FnMut(usize, &SpatialMotion),
) -> Result<(), Error> {
    // The dofs of `Tree::supporting_dofs`, walked up the tree in place (each call fills its own
    // column, so the order does not matter).
    let tree = kin.tree();
    tree.body(body)?;
    let mut current = Some(body);
    while let Some(b) = current {
        for dof in tree.v_range(b) {
            if let Some(s) = kin.dof_motions().get(dof) {
                f(dof, s);
            }
        }
        current = tree.bodies().get(b).and_then(|b| b.parent);
    }
    Ok(())
}
