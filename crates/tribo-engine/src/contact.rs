//! Contact records: what touched what, where, and with which forces.

use crate::LinkRef;
use nalgebra::Vector3;
use tribo_material::MaterialId;

/// One contact point (or one pad patch, summarised at its centre of pressure) of the last step.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactRecord {
    pub a: LinkRef,
    pub b: LinkRef,
    pub materials: (MaterialId, MaterialId),
    /// World point, m.
    pub point: Vector3<f64>,
    /// Unit normal from `a` to `b` (world).
    pub normal: Vector3<f64>,
    /// Penetration depth (≥ 0 when overlapping), m.
    pub depth: f64,
    /// Normal force on `b` along `normal` (≥ 0), N. `a` receives the opposite.
    pub normal_force: f64,
    /// Friction force on `b` (tangential, world), N. `a` receives the opposite.
    pub friction_force: Vector3<f64>,
    /// Engine-specific detail (a CSLC patch's pressure distribution, …).
    pub patch: Option<PatchDetail>,
}

impl ContactRecord {
    /// Total force on `b`, N.
    pub fn force_on_b(&self) -> Vector3<f64> {
        self.normal * self.normal_force + self.friction_force
    }

    /// This record seen from the other side (a ↔ b, forces on the new b).
    pub fn flipped(&self) -> ContactRecord {
        ContactRecord {
            a: self.b,
            b: self.a,
            materials: (self.materials.1, self.materials.0),
            point: self.point,
            normal: -self.normal,
            depth: self.depth,
            normal_force: self.normal_force,
            friction_force: -self.friction_force,
            patch: self.patch.clone(),
        }
    }
}

/// A distributed contact patch (CSLC): per-sphere data and the patch summary.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchDetail {
    /// Index of the pad in `Scene::pads`.
    pub pad: usize,
    /// Lattice spacing (grid cell) of the pad, m.
    pub cell: f64,
    /// Per-sphere rest position in the pad frame, `[x, y]`, m (lattice order): where each value
    /// sits on a pressure map.
    pub sphere_positions: Vec<[f64; 2]>,
    /// Per-sphere inward deflection of the skin, m (lattice order).
    pub sphere_deflections: Vec<f64>,
    /// Centre of pressure, world, m.
    pub center_of_pressure: Vector3<f64>,
    /// Friction moment about the patch normal at the centre of pressure, N·m.
    pub friction_moment: f64,
    /// Area in contact, m².
    pub area: f64,
    /// Per-sphere normal force, N (lattice order).
    pub sphere_normal_forces: Vec<f64>,
    /// Per-sphere pressure, Pa (lattice order).
    pub sphere_pressures: Vec<f64>,
}
