//! Contact records of pad patches: one record per pad and touched link, at the centre of
//! pressure, with the forces the host applied and the lattice's distribution in the patch detail.

use nalgebra::Vector3;
use tribo_cslc::{PatchResult, TouchingSphere};
use tribo_engine::CompliantPoint;
use tribo_engine::{ContactRecord, PatchDetail};
use tribo_engine::{LinkRef, Scene};

use crate::pads::Pad;
use crate::per_sphere::distinct_links;

/// What a patch's spheres touching one link sum to.
#[derive(Default, Clone, Copy)]
struct LinkSums {
    /// `Σ f_n,i m_i`.
    normal: Vector3<f64>,
    /// `Σ f_n,i q_i`.
    center: Vector3<f64>,
    /// `Σ f_n,i`, N.
    total_normal: f64,
    /// `Σ a_i`, m².
    area: f64,
    /// Deepest penetration, m.
    depth: f64,
}

/// Records of `pad`'s patch: `a` the touched link, `b` the pad link (forces on the pad); `pad`'s
/// solver holds the field of the step that returned `patch`. Spheres beyond the lattice are left
/// out.
pub fn patch_record(
    scene: &Scene,
    pad: &Pad,
    patch: &PatchResult,
    target_links: &[LinkRef],
    points: &[CompliantPoint],
    applied: &[Vector3<f64>],
) -> Vec<ContactRecord> {
    let links = distinct_links(target_links);
    let lattice = pad.solver.lattice();
    let spheres = lattice.spheres();
    // The touching spheres in lattice order, each with its touched link as its index in `links`;
    // one pass sums every link's spheres, and the per-link passes below walk only these.
    let slots: Vec<Option<usize>> = target_links.iter().map(|l| links.binary_search(l).ok()).collect();
    let touching: Vec<(&TouchingSphere, usize)> = patch
        .touching
        .iter()
        .filter(|s| s.index < spheres.len())
        .filter_map(|s| slots.get(s.target).copied().flatten().map(|slot| (s, slot)))
        .collect();
    let mut sums = vec![LinkSums::default(); links.len()];
    for &(s, slot) in &touching {
        let (Some(sum), Some(sphere)) = (sums.get_mut(slot), spheres.get(s.index)) else {
            continue;
        };
        let fn_i = s.normal_force;
        sum.normal += s.normal * fn_i;
        sum.center += s.center.coords * fn_i;
        sum.total_normal += fn_i;
        sum.area += sphere.area;
        sum.depth = sum.depth.max(s.penetration);
    }
    let mut records = Vec::new();
    for (slot, (link, sum)) in links.into_iter().zip(sums).enumerate() {
        if sum.total_normal <= 0.0 {
            continue;
        }
        let mine = || touching.iter().filter(move |(_, s)| *s == slot).map(|&(s, _)| s);
        // Per sphere of the lattice: the normal force and pressure of the link's spheres, 0
        // elsewhere (one walk for both).
        let mut sphere_normal_forces = vec![0.0; lattice.len()];
        let mut sphere_pressures = vec![0.0; lattice.len()];
        for s in mine() {
            if let (Some(f), Some(p)) = (sphere_normal_forces.get_mut(s.index), sphere_pressures.get_mut(s.index)) {
                (*f, *p) = (s.normal_force, s.pressure);
            }
        }
        let mut force = Vector3::zeros();
        for (point, f) in points.iter().zip(applied) {
            if point.a == link {
                force += f;
            }
        }
        let (area, depth) = (sum.area, sum.depth);
        let normal = sum.normal.try_normalize(1e-300).unwrap_or_else(Vector3::z);
        let cop = sum.center / sum.total_normal;
        let friction_moment: f64 = mine()
            .map(|s| {
                let (q, f) = (s.center.coords, s.force);
                let tangential = f - normal * normal.dot(&f);
                (q - cop).cross(&tangential).dot(&normal)
            })
            .sum();
        let normal_force = force.dot(&normal).max(0.0);
        records.push(ContactRecord {
            a: link,
            b: pad.link,
            materials: (scene.material_of(link), scene.material_of(pad.link)),
            point: cop,
            normal,
            depth,
            normal_force,
            friction_force: force - normal * force.dot(&normal),
            patch: Some(PatchDetail {
                pad: pad.index,
                cell: lattice.spacing(),
                sphere_positions: pad.sphere_positions.clone(),
                sphere_deflections: pad.solver.deflections(),
                center_of_pressure: cop,
                friction_moment,
                area,
                sphere_normal_forces,
                sphere_pressures,
            }),
        });
    }
    records
}
