//! Compliant contact points supplied by a hosted extension (`tribo_engine::CompliantPoint`, the
//! `cslc` engine's patches).
//!
//! A point carries the force the extension computed at the start of the step (`force`, on link
//! `b`, world) and the stiffness of that force with respect to the relative motion of `b` against
//! `a`. The step solves it implicitly (backward Euler on the spring, as for compliant materials in
//! `contacts.rs`): along each axis `d` of the contact frame, with the relative velocity `v_d⁺` at
//! the end of the step and the impulse `λ_d = h f_d⁺`,
//!
//! `f_d⁺ = f_d − (k_d h + c) v_d⁺`  ⇔  `v_d⁺ + λ_d / (h (k_d h + c)) = f_d / (k_d h + c)`,
//!
//! i.e. `cfm_d = 1 / (h (k_d h + c))` on the Delassus diagonal and the velocity target
//! `f_d / (k_d h + c)`; the normal impulse stays ≥ 0 and the tangential one in the friction cone
//! `μ λ_n`. At rest (`v⁺ = 0`) the applied force is exactly `force`: the extension's model decides
//! the forces, the implicit increment only keeps stiff patches stable at the host's step.

use nalgebra::Vector3;
use tribo_engine::CompliantPoint;

use crate::error::PointError;

/// Velocity targets and compliances `(target, cfm)` of the frame axes `[n, t₁, t₂]` (module docs).
pub(crate) fn targets(
    point: &CompliantPoint,
    frame: [&Vector3<f64>; 3],
    h: f64,
) -> Result<(Vector3<f64>, Vector3<f64>), PointError> {
    let stiffness = [
        point.normal_stiffness,
        point.tangential_stiffness,
        point.tangential_stiffness,
    ];
    if let Some(why) = point.invalid(h) {
        return Err(PointError::Invalid(why));
    }
    let mut target = Vector3::zeros();
    let mut cfm = Vector3::zeros();
    for (axis, (d, k)) in frame.iter().zip(stiffness).enumerate() {
        let denominator = k * h + point.damping;
        target[axis] = point.force.dot(d) / denominator;
        cfm[axis] = 1.0 / (h * denominator);
    }
    Ok((target, cfm))
}
