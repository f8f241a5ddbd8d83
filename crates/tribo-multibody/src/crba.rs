//! The joint-space mass matrix by the composite-rigid-body algorithm, RBDA §6.2 (Table 6.2), in
//! world coordinates:
//!
//! ```text
//! Î_i^c = Î_i + Σ_{children j} Î_j^c                   (composite inertia of the subtree at i)
//! F_k   = Î_i^c S_k                                     for each dof k of joint i
//! M_jk  = M_kj = S_jᵀ F_k                               for j = k, λ(k), λ(λ(k)), …
//! M_kk += armature_k
//! ```
//!
//! In world coordinates the force F_k needs no transform while it climbs the dof tree (the body-frame
//! version of Table 6.2 applies `ᵢX_λ(i)ᵀ` at every level). Entries with j not an ancestor of k are
//! zero: that is the branch-induced sparsity the factorisation exploits (RBDA §6.3).

use crate::kinematics::Kinematics;
use crate::spatial::SpatialInertia;
use nalgebra::DMatrix;

/// The symmetric positive (semi-)definite mass matrix `M(q)` (nv × nv), armature included.
pub fn mass_matrix(kin: &Kinematics) -> DMatrix<f64> {
    fill_mass_matrix(kin, Vec::new(), DMatrix::zeros(0, 0)).1
}

/// [`mass_matrix`] into `mass`, with the composite inertias in `composite` (both storages reused).
pub(crate) fn mass_matrix_into(kin: &Kinematics, composite: &mut Vec<SpatialInertia>, mass: &mut DMatrix<f64>) {
    // Filled as owned values: the compiler keeps a local matrix's shape and data pointer in
    // registers, which it cannot do for a matrix behind a reference (the stores might alias it).
    let (filled_composite, filled_mass) = fill_mass_matrix(
        kin,
        std::mem::take(composite),
        std::mem::replace(mass, DMatrix::zeros(0, 0)),
    );
    *composite = filled_composite;
    *mass = filled_mass;
}

/// The composite inertias and M, in the storage of `composite` and `mass`.
fn fill_mass_matrix(
    kin: &Kinematics,
    mut composite: Vec<SpatialInertia>,
    mut mass: DMatrix<f64>,
) -> (Vec<SpatialInertia>, DMatrix<f64>) {
    let tree = kin.tree();
    let nv = tree.nv();
    composite.clear();
    composite.extend_from_slice(kin.inertias());
    for (index, body) in tree.bodies().iter().enumerate().rev() {
        if let (Some(parent), Some(&inertia)) = (body.parent, composite.get(index)) {
            if let Some(slot) = composite.get_mut(parent) {
                *slot += inertia;
            }
        }
    }
    if mass.shape() == (nv, nv) {
        mass.as_mut_slice().fill(0.0);
    } else {
        mass = DMatrix::zeros(nv, nv);
    }
    let axes = kin.dof_motions();
    for (k, (&body, s_k)) in tree.dof_body().iter().zip(axes).enumerate() {
        let Some(inertia) = composite.get(body) else { continue };
        let force = inertia.apply(s_k);
        let mut j = Some(k);
        while let Some(jj) = j {
            if let Some(s_j) = axes.get(jj) {
                let value = s_j.dot(&force);
                mass[(jj, k)] = value;
                mass[(k, jj)] = value;
            }
            j = tree.dof_parent().get(jj).copied().flatten();
        }
    }
    for k in 0..nv {
        mass[(k, k)] += tree.dof_armature_of(k);
    }
    (composite, mass)
}
