//! Inverse dynamics by the recursive Newton–Euler algorithm, RBDA §5.3 (Table 5.1), in world
//! coordinates:
//!
//! ```text
//! â_0 = −a_g = [0; −g]                                   (gravity as a fictitious base acceleration)
//! â_i = â_λ(i) + S_i q̈_i + ĉ_i                           (forward pass, kinematics.rs)
//! f̂_i = Î_i â_i + v̂_i ×* Î_i v̂_i − f̂_i^ext              (Newton–Euler equation of body i)
//! τ_i = S_iᵀ f̂_i + armature_i q̈_i ,   f̂_λ(i) += f̂_i     (backward pass)
//! ```
//!
//! so that `τ = ID(q, v, q̈, f_ext) = M(q) q̈ + C(q, v) q̇ + g(q) − Σ J_iᵀ f_i^ext`, with M including the
//! armature. Joint damping is *not* part of ID: the step applies it implicitly
//! ([`crate::integrate`]).

use crate::error::Error;
use crate::kinematics::Kinematics;
use crate::spatial::{SpatialForce, SpatialInertia, SpatialMotion};
use crate::state::check_len;
use crate::tree::Tree;
use nalgebra::{DVector, Vector3};

/// External wrenches on the bodies (world coordinates, moments about the world origin).
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalForces {
    forces: Vec<SpatialForce>,
}

impl ExternalForces {
    /// No external force on any body of `tree`.
    pub fn new(tree: &Tree) -> Self {
        Self {
            forces: vec![SpatialForce::zero(); tree.len()],
        }
    }

    /// Adds the force `force` (N, world) acting at world point `point` on `body`.
    pub fn add_force_at(&mut self, body: usize, force: &Vector3<f64>, point: &Vector3<f64>) -> Result<(), Error> {
        self.add_wrench(body, &SpatialForce::from_force_at(force, point))
    }

    /// Adds a spatial force (moment about the world origin, force) on `body`.
    pub fn add_wrench(&mut self, body: usize, wrench: &SpatialForce) -> Result<(), Error> {
        let count = self.forces.len();
        let slot = self
            .forces
            .get_mut(body)
            .ok_or(Error::BodyOutOfRange { index: body, count })?;
        *slot += *wrench;
        Ok(())
    }

    /// The wrench on each body.
    pub fn as_slice(&self) -> &[SpatialForce] {
        &self.forces
    }

    pub fn clear(&mut self) {
        self.forces.fill(SpatialForce::zero());
    }
}

/// `τ = M q̈ + C(q, v) + g(q) − Jᵀ f_ext` (N·m, N per dof) for joint accelerations `vdot`, with
/// `gravity` (m/s², world, e.g. `(0, 0, −9.81)`).
pub fn inverse_dynamics(
    kin: &Kinematics,
    vdot: &DVector<f64>,
    gravity: &Vector3<f64>,
    external: Option<&ExternalForces>,
) -> Result<DVector<f64>, Error> {
    check_len("vdot", kin.tree().nv(), vdot.len())?;
    rnea(kin, Some(vdot), gravity, external)
}

/// The bias forces `C(q, v) + g(q) − Jᵀ f_ext = ID(q, v, 0, f_ext)`: what the joints must supply for
/// zero acceleration. Forward dynamics is `M q̈ = τ − bias`.
pub fn bias_forces(
    kin: &Kinematics,
    gravity: &Vector3<f64>,
    external: Option<&ExternalForces>,
) -> Result<DVector<f64>, Error> {
    rnea(kin, None, gravity, external)
}

fn rnea(
    kin: &Kinematics,
    vdot: Option<&DVector<f64>>,
    gravity: &Vector3<f64>,
    external: Option<&ExternalForces>,
) -> Result<DVector<f64>, Error> {
    let mut tau = DVector::zeros(0);
    rnea_into(kin, vdot, gravity, external, &mut RneaWork::default(), &mut tau)?;
    Ok(tau)
}

/// The per-body working lists of the RNEA, kept by callers that run it every step.
#[derive(Clone, Debug, Default)]
pub(crate) struct RneaWork {
    accelerations: Vec<SpatialMotion>,
    forces: Vec<SpatialForce>,
}

/// [`bias_forces`] into `tau`, with working lists in `work` (all storage reused).
pub(crate) fn bias_forces_into(
    kin: &Kinematics,
    gravity: &Vector3<f64>,
    external: Option<&ExternalForces>,
    work: &mut RneaWork,
    tau: &mut DVector<f64>,
) -> Result<(), Error> {
    rnea_into(kin, None, gravity, external, work, tau)
}

fn rnea_into(
    kin: &Kinematics,
    vdot: Option<&DVector<f64>>,
    gravity: &Vector3<f64>,
    external: Option<&ExternalForces>,
    work: &mut RneaWork,
    tau: &mut DVector<f64>,
) -> Result<(), Error> {
    let tree = kin.tree();
    if let Some(external) = external {
        check_len("external forces", tree.len(), external.as_slice().len())?;
    }
    let RneaWork { accelerations, forces } = work;
    kin.accelerations_into(SpatialMotion::new(Vector3::zeros(), -gravity), vdot, accelerations);
    forces.clear();
    forces.extend(
        accelerations
            .iter()
            .zip(kin.velocities())
            .zip(kin.inertias())
            .enumerate()
            .map(|(index, ((a, v), inertia))| newton_euler_force(kin, index, a, v, inertia, external)),
    );
    if tau.len() == tree.nv() {
        tau.as_mut_slice().fill(0.0);
    } else {
        *tau = DVector::zeros(tree.nv());
    }
    for (index, body) in tree.bodies().iter().enumerate().rev() {
        let force = forces.get(index).copied().unwrap_or_default();
        for dof in tree.v_range(index) {
            if let (Some(s), Some(t)) = (kin.dof_motions().get(dof), tau.get_mut(dof)) {
                *t = s.dot(&force);
            }
        }
        if let Some(parent) = body.parent.and_then(|p| forces.get_mut(p)) {
            *parent += force;
        }
    }
    if let Some(vdot) = vdot {
        *tau += tree.dof_armature().component_mul(vdot);
    }
    Ok(())
}

/// The Newton–Euler equation of body `index` (RBDA §5.3, in world axes about r):
/// `f̂ = Î â + v̂ ×* Î v̂ − f̂_ext`.
pub(crate) fn newton_euler_force(
    kin: &Kinematics,
    index: usize,
    a: &SpatialMotion,
    v: &SpatialMotion,
    inertia: &SpatialInertia,
    external: Option<&ExternalForces>,
) -> SpatialForce {
    // External wrenches are about the world origin; move them to r: n_r = n_O − r × f.
    let applied = external
        .and_then(|e| e.as_slice().get(index))
        .map(|w| SpatialForce::new(w.moment - kin.origin().cross(&w.force), w.force))
        .unwrap_or_default();
    inertia.apply(a) + v.cross_force(&inertia.apply(v)) - applied
}
