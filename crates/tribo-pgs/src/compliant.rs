//! Compliant contact points supplied by a host extension (the `cslc` engine's patches).
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
use tribo_scene::LinkRef;

/// A compliant contact point for the next step.
#[derive(Debug, Clone, PartialEq)]
pub struct CompliantPoint {
    /// The link pushing (receives `−force`).
    pub a: LinkRef,
    /// The link pushed (receives `force`).
    pub b: LinkRef,
    /// World point, m.
    pub point: Vector3<f64>,
    /// Unit normal from `a` to `b`, world.
    pub normal: Vector3<f64>,
    /// Force on `b` at the start of the step (normal and tangential), N.
    pub force: Vector3<f64>,
    /// Normal stiffness `∂f_n/∂(approach)`, N/m (> 0).
    pub normal_stiffness: f64,
    /// Tangential stiffness, N/m (> 0).
    pub tangential_stiffness: f64,
    /// Viscous damping on all three axes, N·s/m (≥ 0).
    pub damping: f64,
    /// Coulomb friction coefficient.
    pub friction: f64,
}

/// Velocity targets and compliances `(target, cfm)` of the frame axes `[n, t₁, t₂]` (module docs).
pub(crate) fn targets(
    point: &CompliantPoint,
    frame: [&Vector3<f64>; 3],
    h: f64,
) -> Result<(Vector3<f64>, Vector3<f64>), String> {
    let stiffness = [
        point.normal_stiffness,
        point.tangential_stiffness,
        point.tangential_stiffness,
    ];
    let values = [
        point.normal_stiffness,
        point.tangential_stiffness,
        point.damping,
        point.friction,
    ];
    if values.iter().any(|v| !v.is_finite() || *v < 0.0) || stiffness.iter().any(|k| *k * h + point.damping <= 0.0) {
        return Err(format!(
            "a compliant contact point between {:?} and {:?} needs finite stiffnesses > 0, damping ≥ 0 and \
             friction ≥ 0, found {point:?}",
            point.a, point.b
        ));
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
