//! From a solved patch to the host: the lattice forces become a few compliant points (one per
//! pad quadrant and touched link) that the `pgs` step solves implicitly, plus a pure torque per
//! link pair that makes the applied wrench exactly the lattice's (`cslc.md` §5).
//!
//! **Regions.** The touching spheres of a pad are grouped by touched link and by quadrant of
//! their rest position in the pad frame (sign of x, y). A region `R` becomes one point at its
//! normal-force-weighted centre `p_R = Σ f_n,i q_i / Σ f_n,i` with
//! - force on the pad `F_R = Σ_{i∈R} f_i` (contact plus friction of its spheres),
//! - normal `n_R` = direction of `Σ f_n,i m_i` (target normal, from the touched link to the pad),
//! - normal stiffness `k_n,R = Σ (K_a,i ⁻¹ + H_i ⁻¹)⁻¹`: each sphere's anchor `K_a,i = k_a a_i` in
//!   series with its Hertz tangent `H_i = ∂f/∂φ = 1.5 k_c a_i φ_i^{1/2} = 1.5 f_n,i / φ_i`
//!   (cslc.md §3.1, §3.3); lateral coupling is left out (it only spreads the load);
//! - tangential stiffness `k_t,R = Σ ρ K_a,i` (the stick springs, §3.4);
//! - damping `c_R = c_a Σ a_i`; friction μ of the contact material.
//!
//! **Exact wrench.** Forces at the region points sum to the lattice's total force; their moment
//! differs from the lattice's by `τ_res = τ_lattice − Σ_R (p_R − o) × F_R`, which is applied as a
//! pure torque (`+τ_res` on the pad link, `−τ_res` on the touched link). At rest the host applies
//! `F_R` exactly, so both bodies receive exactly the lattice wrench and its opposite.

use nalgebra::{Point3, Vector3};
use tribo_cslc::{Lattice, PatchResult};
use tribo_pgs::CompliantPoint;
use tribo_scene::LinkRef;

/// Regions and residual torques of one pad's patch.
pub struct Coupling {
    pub points: Vec<CompliantPoint>,
    /// Per touched link: the residual torque on the pad link (the touched link gets the opposite).
    pub residual_torques: Vec<(LinkRef, Vector3<f64>)>,
}

/// Per-pad numbers the coupling needs.
pub struct PadCoupling<'a> {
    pub pad_link: LinkRef,
    pub lattice: &'a Lattice,
    pub anchor_stiffness: f64,
    pub tangential_ratio: f64,
    /// N·s/m³.
    pub damping: f64,
    pub friction: f64,
    /// Pad origin, world.
    pub origin: Point3<f64>,
}

#[derive(Default)]
struct Region {
    force: Vector3<f64>,
    normal: Vector3<f64>,
    weighted_point: Vector3<f64>,
    normal_force: f64,
    normal_stiffness: f64,
    tangential_stiffness: f64,
    area: f64,
    moment: Vector3<f64>,
}

fn quadrant(x: f64, y: f64) -> usize {
    usize::from(x >= 0.0) + 2 * usize::from(y >= 0.0)
}

/// The compliant points and residual torques of `patch`; `target_links[t]` is the link of target
/// `t`.
pub fn couple(pad: &PadCoupling, patch: &PatchResult, target_links: &[LinkRef]) -> Coupling {
    let mut links: Vec<LinkRef> = target_links.to_vec();
    links.sort();
    links.dedup();
    let mut regions: Vec<[Region; 4]> = links.iter().map(|_| Default::default()).collect();
    for (i, sphere) in pad.lattice.spheres().iter().enumerate() {
        let Some(Some(t)) = patch.sphere_targets.get(i) else {
            continue;
        };
        let Some(link) = target_links.get(*t) else { continue };
        let Ok(slot) = links.binary_search(link) else { continue };
        let (Some(f), Some(&fn_i), Some(m), Some(q), Some(&phi)) = (
            patch.sphere_forces.get(i),
            patch.normal_forces.get(i),
            patch.sphere_normals.get(i),
            patch.sphere_centers.get(i),
            patch.penetrations.get(i),
        ) else {
            continue;
        };
        let region = &mut regions[slot][quadrant(sphere.rest_position.x, sphere.rest_position.y)];
        let anchor = pad.anchor_stiffness * sphere.area;
        let hertz = if phi > 0.0 { 1.5 * fn_i / phi } else { 0.0 };
        region.force += f;
        region.normal += m * fn_i;
        region.weighted_point += q.coords * fn_i;
        region.normal_force += fn_i;
        region.normal_stiffness += if hertz > 0.0 {
            anchor * hertz / (anchor + hertz)
        } else {
            0.0
        };
        region.tangential_stiffness += pad.tangential_ratio * anchor;
        region.area += sphere.area;
        region.moment += (q - pad.origin).cross(f);
    }
    let mut points = Vec::new();
    let mut residual_torques = Vec::new();
    for (link, quadrants) in links.iter().zip(regions) {
        let mut residual = Vector3::zeros();
        for r in quadrants {
            if r.normal_force <= 0.0 || r.normal_stiffness <= 0.0 {
                residual += r.moment;
                continue;
            }
            let Some(normal) = r.normal.try_normalize(1e-300) else {
                residual += r.moment;
                continue;
            };
            let point = r.weighted_point / r.normal_force;
            residual += r.moment - (point - pad.origin.coords).cross(&r.force);
            points.push(CompliantPoint {
                a: *link,
                b: pad.pad_link,
                point,
                normal,
                force: r.force,
                normal_stiffness: r.normal_stiffness,
                tangential_stiffness: r.tangential_stiffness,
                damping: pad.damping * r.area,
                friction: pad.friction,
            });
        }
        residual_torques.push((*link, residual));
    }
    Coupling {
        points,
        residual_torques,
    }
}
