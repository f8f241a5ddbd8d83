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

/// Result of one pad step. Vectors are in the world frame.
///
/// Sign convention: `sphere_forces[i]` is the force the target exerts on sphere `i` (contact
/// plus friction), applied at the sphere centre. The anchors pass it to the link, so
/// `pad_wrench` is their sum (torques about the pad origin) and each touched target receives the
/// exact opposite of its share in `target_wrenches` (momentum conserved by construction).
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
    /// Per-sphere normal (Hertz) force magnitude, N.
    pub normal_forces: Vec<f64>,
    /// Per-sphere pressure `f_n,i / a_i`, Pa.
    pub pressures: Vec<f64>,
    /// Per-sphere contact + friction force on the sphere, N.
    pub sphere_forces: Vec<Vector3<f64>>,
    /// Per-sphere centre `q_i`, m.
    pub sphere_centers: Vec<Point3<f64>>,
    /// Per-sphere index of the touched target (`None` without contact).
    pub sphere_targets: Vec<Option<usize>>,
    /// Per-sphere nearest target within reach at the end of the step, touching or not:
    /// `(target, φ, outward normal (world))` with `φ < 0` a gap, m (the start-of-step tangent
    /// plane; hosts use it to anticipate contact within the next step).
    pub approaches: Vec<Option<(usize, f64, Vector3<f64>)>>,
    /// Per-sphere outward normal of the touched target (world; zero without contact).
    pub sphere_normals: Vec<Vector3<f64>>,
    /// Per-sphere penetration `φ_i`, m (0 without contact).
    pub penetrations: Vec<f64>,
    /// Per-sphere inward deflection of the skin `−δ_i·n_i`, m (positive when pushed in).
    pub deflections: Vec<f64>,
    /// Per-sphere friction coefficient at the end of the step: `μ_d` for a sliding sphere, `μ_s`
    /// for a sticking one (0 without contact).
    pub sphere_friction: Vec<f64>,
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

/// The lists of a [`PatchResult`] as storage: a pad keeps those of a patch given back
/// ([`crate::CslcPad::recycle`]) and fills them in place in its next step instead of allocating
/// them anew. Their contents are never read.
#[derive(Debug, Clone, Default)]
pub(crate) struct PatchLists {
    pub target_wrenches: Vec<Wrench>,
    pub normal_forces: Vec<f64>,
    pub pressures: Vec<f64>,
    pub sphere_forces: Vec<Vector3<f64>>,
    pub sphere_centers: Vec<Point3<f64>>,
    pub sphere_targets: Vec<Option<usize>>,
    pub approaches: Vec<Option<(usize, f64, Vector3<f64>)>>,
    pub sphere_normals: Vec<Vector3<f64>>,
    pub penetrations: Vec<f64>,
    pub deflections: Vec<f64>,
    pub sphere_friction: Vec<f64>,
    /// Each sphere's friction (world), for the friction moment; not part of the patch.
    pub tangential: Vec<Vector3<f64>>,
}

impl PatchLists {
    /// Keeps the lists of `patch` (and the friction list already kept).
    pub fn keep(&mut self, patch: PatchResult) {
        self.target_wrenches = patch.target_wrenches;
        self.normal_forces = patch.normal_forces;
        self.pressures = patch.pressures;
        self.sphere_forces = patch.sphere_forces;
        self.sphere_centers = patch.sphere_centers;
        self.sphere_targets = patch.sphere_targets;
        self.approaches = patch.approaches;
        self.sphere_normals = patch.sphere_normals;
        self.penetrations = patch.penetrations;
        self.deflections = patch.deflections;
        self.sphere_friction = patch.sphere_friction;
    }
}

/// `list` cleared and filled with `n` copies of `value` (its storage reused).
pub(crate) fn refill<T: Clone>(list: &mut Vec<T>, n: usize, value: T) {
    list.clear();
    list.resize(n, value);
}

/// `list` with `n` entries: as it is if it has them, else [`refill`]ed with `value`. For a list
/// whose every entry is written next.
pub(crate) fn fit<T: Clone>(list: &mut Vec<T>, n: usize, value: T) {
    if list.len() != n {
        refill(list, n, value);
    }
}
