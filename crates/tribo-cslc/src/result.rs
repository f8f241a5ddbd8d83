//! What a pad step reports (`docs/design/lattice-model.md` §5): the patch, per-sphere forces and the
//! solver's state.

use nalgebra::{Point3, Vector3};

/// A force and a torque about a stated point, world frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Wrench {
    /// Force, N.
    pub force: Vector3<f64>,
    /// Torque, N·m, about the reference point (the pad origin in [`PatchResult`]).
    pub torque: Vector3<f64>,
}

impl Wrench {
    /// The same wrench with its torque taken about `to` instead of `from`:
    /// `τ_to = τ_from + (from − to) × F`.
    pub fn moved(&self, from: &Point3<f64>, to: &Point3<f64>) -> Wrench {
        Wrench {
            force: self.force,
            torque: self.torque + (from - to).cross(&self.force),
        }
    }
}

/// A sphere in contact at the end of a step. Vectors are in the world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TouchingSphere {
    /// The sphere's index in the lattice.
    pub index: usize,
    /// The touched target (index as given).
    pub target: usize,
    /// Normal (Hertz) force magnitude `f_n,i`, N.
    pub normal_force: f64,
    /// Pressure `f_n,i / a_i`, Pa.
    pub pressure: f64,
    /// Contact plus friction force the target exerts on the sphere, N.
    pub force: Vector3<f64>,
    /// The friction part of `force`, N.
    pub friction: Vector3<f64>,
    /// Centre `q_i`, m.
    pub center: Point3<f64>,
    /// Outward normal of the touched target.
    pub normal: Vector3<f64>,
    /// Penetration `φ_i`, m.
    pub penetration: f64,
    /// Inward deflection of the skin `−δ_i·n_i`, m (positive when pushed in).
    pub deflection: f64,
    /// Friction coefficient at the end of the step: `μ_d` for a sliding sphere, `μ_s` for a
    /// sticking one.
    pub friction_coefficient: f64,
    /// Sliding at the end of the step: its friction is the dynamic limit, and its stick spring
    /// does not act.
    pub sliding: bool,
}

/// A sphere within the step's reach of a target's linearised surface without penetrating it:
/// what a host needs to anticipate a contact within the coming steps. The reach covers what the
/// target's speed relative to the pad closes in `CLOSURE_STEPS` steps, at least a quarter of the
/// sphere's radius and at most one (`docs/design/lattice-model.md` §4, "Reach"). Vectors are in
/// the world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApproachingSphere {
    /// The sphere's index in the lattice.
    pub index: usize,
    /// The nearest target (index as given).
    pub target: usize,
    /// `φ = r − d` on the target's tangent plane at the start of the step, evaluated at the
    /// solved field: `−r_i < φ ≤ 0` (a gap of at most one radius; the sphere was within reach at
    /// the start of the step), m.
    pub gap: f64,
    /// The target's outward normal.
    pub normal: Vector3<f64>,
    /// Centre `q_i`, m.
    pub center: Point3<f64>,
}

/// Result of one pad step. Vectors are in the world frame.
///
/// Sign convention: a touching sphere's `force` is the force the target exerts on it (contact
/// plus friction), applied at the sphere centre. The anchors pass it to the link, so
/// `pad_wrench` is their sum (torques about the pad origin) and each touched target receives the
/// exact opposite of its share in `target_wrenches` (momentum conserved by construction).
///
/// Per-sphere values are listed for the spheres they concern — the touching spheres and the
/// approaching ones, each list in lattice order — so that the spheres out of contact cost the
/// step nothing to report; [`PatchResult::normal_forces`] and [`PatchResult::pressures`] give the
/// whole lattice's lists, and [`crate::CslcPad::deflections`] the whole field's deflections.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchResult {
    /// Total force on the pad link, N.
    pub total_force: Vector3<f64>,
    /// Total torque on the pad link about the pad origin, N·m.
    pub total_torque: Vector3<f64>,
    /// Wrench on the pad link (same as `total_force`, `total_torque`).
    pub pad_wrench: Wrench,
    /// Wrench on each target (index as given), torque about the pad origin.
    pub target_wrenches: Vec<Wrench>,
    /// Centre of pressure: normal-force-weighted mean of the touching sphere centres; `None`
    /// without contact.
    pub center_of_pressure: Option<Point3<f64>>,
    /// Patch normal: unit direction of the summed normal forces (zero without contact).
    pub patch_normal: Vector3<f64>,
    /// Friction moment about the patch normal through the centre of pressure, N·m.
    pub friction_moment: f64,
    /// Area of the touching spheres `Σ a_i`, m².
    pub contact_area: f64,
    /// The spheres in contact, in lattice order.
    pub touching: Vec<TouchingSphere>,
    /// The spheres within the step's reach of a target's linearised surface ([`ApproachingSphere`]),
    /// not penetrating it, in
    /// lattice order (a sphere that touches the true surface may be among them).
    pub approaching: Vec<ApproachingSphere>,
    /// Jacobi iterations performed.
    pub iterations: usize,
    /// Final relative force residual `Σ_i |r_i| / load`.
    pub residual: f64,
    /// True when the residual reached the tolerance within the iteration cap.
    pub converged: bool,
    /// True when the target moved into the skin faster than quasi-static equilibrium allows
    /// (penetration jump per step above `impact_fraction · r`, or a sphere pushed through).
    pub fast_impact: bool,
    /// Human-readable explanation whenever `converged` is false or `fast_impact` is true.
    pub warning: Option<String>,
}

impl PatchResult {
    /// The normal force `f_n,i` of each of a lattice's `spheres` spheres, N (0 out of contact).
    pub fn normal_forces(&self, spheres: usize) -> Vec<f64> {
        self.per_sphere(spheres, |s| s.normal_force)
    }

    /// The pressure `f_n,i / a_i` of each of a lattice's `spheres` spheres, Pa (0 out of contact).
    pub fn pressures(&self, spheres: usize) -> Vec<f64> {
        self.per_sphere(spheres, |s| s.pressure)
    }

    /// `value` of each touching sphere at its index of a list of `spheres` zeros.
    fn per_sphere(&self, spheres: usize, value: impl Fn(&TouchingSphere) -> f64) -> Vec<f64> {
        let mut list = vec![0.0; spheres];
        for s in &self.touching {
            if let Some(v) = list.get_mut(s.index) {
                *v = value(s);
            }
        }
        list
    }
}

/// The lists of a [`PatchResult`] as storage: a pad keeps those of a patch given back
/// ([`crate::CslcPad::recycle`]) and fills them in place in its next step instead of allocating
/// them anew. Their contents are never read.
#[derive(Debug, Clone, Default)]
pub(crate) struct PatchLists {
    pub target_wrenches: Vec<Wrench>,
    pub touching: Vec<TouchingSphere>,
    pub approaching: Vec<ApproachingSphere>,
}

impl PatchLists {
    /// Keeps the lists of `patch`.
    pub fn keep(&mut self, patch: PatchResult) {
        self.target_wrenches = patch.target_wrenches;
        self.touching = patch.touching;
        self.approaching = patch.approaching;
    }
}

/// `list` cleared and filled with `n` copies of `value` (its storage reused).
pub(crate) fn refill<T: Clone>(list: &mut Vec<T>, n: usize, value: T) {
    list.clear();
    list.resize(n, value);
}
