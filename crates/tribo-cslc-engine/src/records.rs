//! Contact records of pad patches: one record per pad and touched link, at the centre of
//! pressure, with the forces the host applied and the lattice's distribution in the patch detail.

use nalgebra::Vector3;
use tribo_cslc::PatchResult;
use tribo_engine::CompliantPoint;
use tribo_engine::{ContactRecord, PatchDetail};
use tribo_engine::{LinkRef, Scene};

use crate::pads::Pad;

/// Records of `pad`'s patch: `a` the touched link, `b` the pad link (forces on the pad).
pub fn patch_record(
    scene: &Scene,
    pad: &Pad,
    patch: &PatchResult,
    target_links: &[LinkRef],
    points: &[CompliantPoint],
    applied: &[Vector3<f64>],
) -> Vec<ContactRecord> {
    let mut links: Vec<LinkRef> = target_links.to_vec();
    links.sort();
    links.dedup();
    let lattice = pad.solver.lattice();
    let mut records = Vec::new();
    for link in links {
        let mine = |i: usize| {
            patch
                .sphere_targets
                .get(i)
                .copied()
                .flatten()
                .and_then(|t| target_links.get(t))
                == Some(&link)
        };
        let mut force = Vector3::zeros();
        let mut normal_sum = Vector3::zeros();
        let mut center = Vector3::zeros();
        let mut total_normal = 0.0;
        let mut area = 0.0;
        let mut depth: f64 = 0.0;
        let mut normal_forces = vec![0.0; lattice.len()];
        let mut pressures = vec![0.0; lattice.len()];
        for (i, sphere) in lattice.spheres().iter().enumerate() {
            if !mine(i) {
                continue;
            }
            let fn_i = patch.normal_forces.get(i).copied().unwrap_or(0.0);
            let m = patch.sphere_normals.get(i).copied().unwrap_or_default();
            let q = patch.sphere_centers.get(i).map(|q| q.coords).unwrap_or_default();
            normal_sum += m * fn_i;
            center += q * fn_i;
            total_normal += fn_i;
            area += sphere.area;
            depth = depth.max(patch.penetrations.get(i).copied().unwrap_or(0.0));
            normal_forces[i] = fn_i;
            pressures[i] = patch.pressures.get(i).copied().unwrap_or(0.0);
        }
        if total_normal <= 0.0 {
            continue;
        }
        for (point, f) in points.iter().zip(applied) {
            if point.a == link {
                force += f;
            }
        }
        let normal = normal_sum.try_normalize(1e-300).unwrap_or_else(Vector3::z);
        let cop = center / total_normal;
        let friction_moment: f64 = lattice
            .spheres()
            .iter()
            .enumerate()
            .filter(|(i, _)| mine(*i))
            .map(|(i, _)| {
                let q = patch.sphere_centers.get(i).map(|q| q.coords).unwrap_or_default();
                let f = patch.sphere_forces.get(i).copied().unwrap_or_default();
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
                sphere_deflections: patch.deflections.clone(),
                center_of_pressure: cop,
                friction_moment,
                area,
                sphere_normal_forces: normal_forces,
                sphere_pressures: pressures,
            }),
        });
    }
    records
}
