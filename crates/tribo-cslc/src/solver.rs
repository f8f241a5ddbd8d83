//! The pad: lattice, parameters and the persistent displacement field, solved each step to
//! quasi-static equilibrium `f_a + f_ℓ + f_c + f_f = 0` by Jacobi sweeps
//! (`docs/design/lattice-model.md` §4).
//!
//! Every sweep computes all local updates from the previous iterate into a fresh buffer
//! (`rayon` `par_iter().map().collect()`), and every reduction runs sequentially in sphere order,
//! so results are bit-identical whatever the thread count.

use nalgebra::{Isometry3, Matrix3, Point3, Vector3};
use rayon::prelude::*;

use crate::condensed::{Compliance, Condensed, SweepHistory, MAX_SPHERES};

use crate::contact_state::ContactState;
use crate::frames::{target_frames_into, QueryBox, TargetFrame};
use crate::geometry::{CslcError, Lattice};
use crate::kept::KeptList;
use crate::local::{local_compliance, local_step, local_stiffness, mul3, Contact, LocalProblem, StickTerms};
use crate::params::{Acceleration, CslcParams};
use crate::reach::{reach_radii_into, Clusters, ALL_TARGETS, FULL_REACH_RADII};
use crate::result::{PatchLists, PatchResult};
use crate::target::{Target, Twist};

/// Lattices with fewer spheres are swept on the calling thread: a parallel sweep's fork/join
/// costs more than the work (tens of µs per sweep against ~0.1 µs per sphere). The map is
/// element-wise either way, so results do not depend on this choice or on the thread count.
const PARALLEL_MIN_SPHERES: usize = 2048;

/// The diagonal of `m` if its off-diagonal entries are all zero.
fn diagonal_of(m: &Matrix3<f64>) -> Option<Vector3<f64>> {
    let off = [m.m12, m.m13, m.m21, m.m23, m.m31, m.m32];
    off.iter().all(|v| *v == 0.0).then(|| m.diagonal())
}

/// Makes `candidate` — `(target, φ, normal)` of a sphere of radius `radius` — the `best` if the
/// target is within the sphere's reach for it (`φ > −ρ_t r`, `reach_radii[t]` = `ρ_t`, the full
/// reach for a target the list leaves out; `reach.rs`) and it is the first such target or
/// strictly deeper (the first of equally deep targets stays). A target beyond its reach is
/// never a sphere's surface, however near, so leaving it out unqueried (`reach.rs`, `frames.rs`)
/// changes nothing; with every reach the same, the best is the deepest target if that one is
/// within reach, else none.
#[inline(always)]
fn keep_deeper(
    best: &mut Option<(usize, f64, Vector3<f64>)>,
    candidate: (usize, f64, Vector3<f64>),
    radius: f64,
    reach_radii: &[f64],
) {
    let reach = reach_radii.get(candidate.0).copied().unwrap_or(FULL_REACH_RADII);
    if candidate.1 > -reach * radius && best.is_none_or(|(_, deepest, _)| candidate.1 > deepest) {
        *best = Some(candidate);
    }
}

/// The [`Surface`] at `delta` of a sphere's deepest target within reach `deepest`
/// (`(target, φ, normal)`, [`keep_deeper`]).
#[inline(always)]
fn surface_of(delta: &Vector3<f64>, deepest: Option<(usize, f64, Vector3<f64>)>) -> Option<Surface> {
    let (target, penetration, normal) = deepest?;
    Some(Surface {
        target,
        penetration,
        normal,
        delta: *delta,
    })
}

/// A target's rigid motion relative to the pad, in the pad frame: the target's material at
/// pad-frame point `x` moves against the pad at `linear + angular × x`.
///
/// With the target's twist `(v_t, ω_t)` of its origin `o_t`, the pad's `(v_p, ω_p)` of its origin
/// `o_p` and the pad's rotation `R`, the relative velocity at the world point `y = o_p + R x` is
/// `v_t + ω_t × (y − o_t) − v_p − ω_p × (y − o_p)
///  = (v_t − v_p + ω_t × (o_p − o_t)) + (ω_t − ω_p) × R x`,
/// and in the pad frame (a rotation keeps cross products) `Rᵀ(v_t − v_p + ω_t × (o_p − o_t)) +
/// Rᵀ(ω_t − ω_p) × x`: two vectors formed once per target and step, then one cross product per
/// sphere instead of two world velocities and two rotations.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PadFrameMotion {
    linear: Vector3<f64>,
    angular: Vector3<f64>,
}

impl PadFrameMotion {
    /// The motion of a target with twist `twist` of its point `origin` relative to the pad at
    /// `pose` moving with `pad_twist` (of the pad origin).
    fn new(twist: &Twist, origin: &Point3<f64>, pad_twist: &Twist, pose: &Isometry3<f64>) -> PadFrameMotion {
        let pad_origin = Point3::from(pose.translation.vector);
        let to_pad = pose.rotation.inverse();
        PadFrameMotion {
            linear: to_pad * (twist.linear - pad_twist.linear + twist.angular.cross(&(pad_origin - origin))),
            angular: to_pad * (twist.angular - pad_twist.angular),
        }
    }

    /// A bound of the relative speed at every pad-frame point within `extent` of the pad origin:
    /// `|linear + angular × x| ≤ |linear| + |angular| |x|`, m/s.
    fn speed_within(&self, extent: f64) -> f64 {
        self.linear.norm() + self.angular.norm() * extent
    }

    /// The relative velocity at pad-frame point `x`, pad frame.
    #[inline(always)]
    fn velocity_at(&self, x: &Vector3<f64>) -> Vector3<f64> {
        self.linear + self.angular.cross(x)
    }
}

/// What a step's set-up needs to carry the stick anchors with the surfaces (§3.4).
struct AnchorCarry<'a> {
    input: &'a StepInput<'a>,
    /// The pad pose at the end of the step and its origin (world).
    pose: &'a Isometry3<f64>,
    origin: &'a Point3<f64>,
    /// Each rigid target's motion relative to the pad ([`Target::rigid_motion`]), taken once per
    /// step.
    motions: &'a [Option<PadFrameMotion>],
}

impl AnchorCarry<'_> {
    /// Sphere `sphere`'s [`Prepared`] entry `here`, from its displacement `delta`, its nearest
    /// target's `surface` and its contact state of the last step `(touched target, penetration,
    /// slid)`: the stick anchor (the displacement carried by the relative surface motion, for a
    /// sphere that touched), the penetration jump (fast-impact detection) and the stick limit.
    #[inline(always)]
    fn prepare(
        &self,
        sphere: &crate::geometry::LatticeSphere,
        delta: &Vector3<f64>,
        surface: Option<Surface>,
        (touched, penetration, slid): (Option<usize>, f64, bool),
        here: &mut Prepared,
    ) {
        let input = self.input;
        let carried = match touched.and_then(|t| Some((t, input.targets.get(t)?))) {
            Some((t, target)) => {
                // Only a sphere in contact carries its anchor with the surface.
                let center = sphere.rest_position.coords + delta;
                let relative = match self.motions.get(t) {
                    Some(Some(motion)) => motion.velocity_at(&center),
                    _ => {
                        let world = self.pose * Point3::from(center);
                        let relative =
                            target.surface_velocity(&world) - input.pad_twist.velocity_at(self.origin, &world);
                        self.pose.rotation.inverse() * relative
                    }
                };
                delta + relative * input.dt
            }
            None => *delta,
        };
        let predicted = surface.map_or(0.0, |s| s.penetration.max(0.0));
        here.anchor = carried;
        here.jump = predicted - penetration.max(0.0);
        here.surface = surface;
        here.stick = None;
        here.stick_limit = if slid { input.dynamic_friction } else { input.friction };
    }
}

/// `f(i)` for every sphere `i < n`, in sphere order; in parallel for large lattices.
fn map_spheres<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    if n >= PARALLEL_MIN_SPHERES {
        (0..n).into_par_iter().map(f).collect()
    } else {
        (0..n).map(f).collect()
    }
}

/// `f(i, &mut items[i])` for every sphere `i < n` (`items` first resized to `n`, new entries
/// `blank`); in parallel for large lattices. Each entry is updated in place: a step's
/// [`Prepared`] list is rewritten field by field, not built elsewhere and moved in (a move copies
/// the whole entry, stick terms included, for every sphere and step).
fn update_spheres<T: Send + Clone>(items: &mut Vec<T>, n: usize, blank: T, f: impl Fn(usize, &mut T) + Sync + Send) {
    items.resize(n, blank);
    if n >= PARALLEL_MIN_SPHERES {
        items.par_iter_mut().enumerate().for_each(|(i, item)| f(i, item));
    } else {
        items.iter_mut().enumerate().for_each(|(i, item)| f(i, item));
    }
}

/// What a step knows of sphere `i` before its sweeps.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prepared {
    /// Stick anchor: last displacement carried by the relative surface motion (§3.4).
    pub anchor: Vector3<f64>,
    /// Penetration growth since the last step (fast-impact detection), m.
    pub jump: f64,
    /// The nearest target's surface, linearised at the start of the step.
    pub surface: Option<Surface>,
    /// The stick terms of that surface's normal and the anchor (`local.rs`), once computed: only
    /// a sphere that touches in the sweeps needs them (see [`CslcPad::ordered_visit`]).
    pub stick: Option<StickTerms>,
    /// Stick limit `μ_lim` this step: `μ_d` if the sphere slid in the last step, else `μ_s`
    /// (`local.rs`).
    pub stick_limit: f64,
}

impl Prepared {
    /// The sphere penetrates its linearised target surface at zero displacement.
    fn touches_at_rest(&self) -> bool {
        self.surface.is_some_and(|s| s.contact_at(&Vector3::zeros()).is_some())
    }
}

/// One visit of a sphere in an ordered sweep ([`CslcPad::ordered_visit`]).
pub(crate) struct Visit {
    /// The local step.
    pub step: crate::local::LocalStep,
    /// The neighbour pull the step was taken against, for a sphere in contact.
    pub contact_pull: Option<Vector3<f64>>,
}

/// How a step's sweeps ended.
pub(crate) struct SweepEnd {
    /// Sweeps made before the residual met the tolerance (or the cap).
    pub iterations: usize,
    /// The relative force residual at the end.
    pub residual: f64,
    /// The residual met the tolerance.
    pub converged: bool,
}

/// The tangent plane of the nearest target at a sphere's centre at the start of the step:
/// `φ(δ) = φ₀ − m·(δ − δ₀)` (exact for a plane; `O(|δ − δ₀|² / R)` for a surface of curvature
/// radius R, far below the skin's micrometre deflections). The sweeps use it instead of
/// re-evaluating the signed distances; the patch is assembled on the true geometry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Surface {
    pub target: usize,
    pub penetration: f64,
    /// Outward normal in the pad frame.
    pub normal: Vector3<f64>,
    pub delta: Vector3<f64>,
}

impl Surface {
    pub(crate) fn contact_at(&self, delta: &Vector3<f64>) -> Option<Contact> {
        let penetration = self.penetration - self.normal.dot(&(delta - self.delta));
        (penetration > 0.0).then_some(Contact {
            target: self.target,
            penetration,
            normal: self.normal,
        })
    }
}

/// Slip speed below which a sphere that slid counts as sticking again (its next stick limit is
/// `μ_s`), m/s: the slip threshold of Choreonoid's AIST simulator, as `pgs` uses it.
const SLIP_SPEED: f64 = 1e-4;

/// Radii of the largest sphere by which the query region reaches beyond the spheres' centres
/// (`CslcPad::step`).
const QUERY_MARGIN_RADII: f64 = 4.0;

/// Relative margin of the tangent-plane contact test (`out_of_contact_at`), per metre of the lengths
/// involved: f64 rounding of a distance query is a few 1e-16 of them.
const CONVEX_MARGIN: f64 = 1e-9;

/// The stiffness and compliance of a sphere index out of range (which the sweeps never visit):
/// a constant, so the lookups' fallback costs nothing per visit.
const IDENTITY: Matrix3<f64> = Matrix3::new(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);

/// Chebyshev restarts after which a step finishes with damped Jacobi sweeps.
const MAX_CHEBYSHEV_RESTARTS: usize = 8;

/// One step's inputs.
pub struct StepInput<'a> {
    /// Pose of the pad (link) frame at the end of the step.
    pub pad_pose: Isometry3<f64>,
    /// Rigid velocity of the pad link over the step (world).
    pub pad_twist: Twist,
    /// Targets the pad may touch; a sphere touches the deepest one.
    pub targets: &'a [&'a dyn Target],
    /// Static friction coefficient `μ_s`: the limit of a sticking sphere's stick springs.
    pub friction: f64,
    /// Dynamic friction coefficient `μ_d`: a sliding sphere's friction, until its stick reaction
    /// falls within `μ_d f_n` again (`local.rs`). Equal to `friction` for one coefficient.
    pub dynamic_friction: f64,
    /// Step length, s (carries the relative surface motion into the stick anchors).
    pub dt: f64,
}

/// A CSLC pad with its persistent state (the warm start).
#[derive(Debug, Clone)]
pub struct CslcPad {
    lattice: Lattice,
    params: CslcParams,
    stiffness: Vec<Matrix3<f64>>,
    compliance: Vec<Matrix3<f64>>,
    /// The diagonals of every sphere's `K` and `K⁻¹` when both are diagonal in the pad frame
    /// (a flat pad, whose normals are all `+Z`): a free sphere's step is then two component-wise
    /// products instead of two 3×3 products (`CslcPad::ordered_visit`).
    diagonal_springs: Option<Vec<(Vector3<f64>, Vector3<f64>)>>,
    /// `k_c a_i` of every sphere (the Hertz coefficient, §3.3), N/m^{1.5}.
    contact_coefficients: Vec<f64>,
    /// `K_ℓ`, the spring per neighbour link ([`CslcParams::lateral_spring`]), N/m.
    lateral_spring: f64,
    displacement: Vec<Vector3<f64>>,
    /// The displacements solved the step before (`δ_{n−1}`), for the initial iterate.
    previous_displacement: Vec<Vector3<f64>>,
    /// Per sphere, its contact in the last step (a sphere that slid has the stick limit `μ_d`).
    contact_state: ContactState,
    chebyshev_radius: f64,
    /// Sphere indices by colour: no two neighbours share a colour (red-black on grids).
    colors: Vec<Vec<usize>>,
    /// Nearby spheres grouped, to skip the targets out of a group's reach (`reach.rs`).
    clusters: Clusters,
    /// Storage of the step's [`Prepared`] list, kept between steps (its contents are only
    /// meaningful during a step).
    prepared: Vec<Prepared>,
    /// Storage for the next step's iterate, kept between steps: a step sweeps in it and makes it
    /// `displacement` (`CslcPad::commit_field`); the storage of `previous_displacement` then
    /// waits here.
    spare_field: Vec<Vector3<f64>>,
    /// Storage of the next patch's lists (`recycle`).
    patch_lists: PatchLists,
    /// The box of the rest centres `x_i` (pad frame), and the largest sphere radius, m: with the
    /// displacements, they bound where a step queries its targets (`CslcPad::query_box`).
    rest_box: QueryBox,
    largest_radius: f64,
    /// The smallest sphere radius, m: each target's reach in radii covers its closure for the
    /// smallest sphere, hence for all (`reach.rs`).
    smallest_radius: f64,
    /// Storage of each target's reach in a step, in radii (`reach.rs`), kept between steps.
    reach_radii: Vec<f64>,
    /// Storage of a step's deepest target per sphere (`CslcPad::deepest_into`), kept between
    /// steps.
    deepest: Vec<Option<(usize, f64, Vector3<f64>)>>,
    /// Per sphere, the neighbour pull of its last visit in contact and the sweep of that visit
    /// (a count over the pad's life, so that no list needs clearing): what the residual at the
    /// end of a sweep is estimated from (`red_black.rs`, [`CslcPad::residual_after_sweep`]).
    contact_visits: Vec<(u64, Vector3<f64>)>,
    /// Sweeps the pad has made, for the stamps of `contact_visits`.
    sweeps_made: u64,
    /// Storage kept between steps for a step's lists: its targets' frames, their rigid
    /// motions, the clusters' target masks and the sweeps' squared residuals.
    frames: KeptList<TargetFrame<'static>>,
    motions: Vec<Option<PadFrameMotion>>,
    candidates: Vec<u64>,
    squares: Vec<f64>,
    /// The pad's compliance `G = K⁻¹` for the condensed solve (`condensed.rs`), factored at the
    /// first step that condenses, its columns formed as spheres touch; `None` before, or where
    /// it cannot be formed.
    compliance_matrix: Option<Compliance>,
    /// [`Self::compliance_matrix`] has been formed, or found impossible.
    compliance_tried: bool,
    /// The sweeps of the last red-black and the last condensed step (`Acceleration::Adaptive`).
    sweep_history: SweepHistory,
    /// Storage of a step's condensed system, kept between steps.
    condensed: Condensed,
    /// The spheres the step's set-up linearised a target surface for (all spheres where the
    /// targets number more than 64: see [`CslcPad::contact_on_surface`]), ascending: the only
    /// spheres whose [`Prepared`] entry has a surface, and the only ones the solve can bring into
    /// contact and the assembly reports.
    reached: Vec<usize>,
}

/// A step's input out of its domain: friction coefficients and the time step must be finite
/// and non-negative.
fn check_input(input: &StepInput) -> Result<(), CslcError> {
    let checks = [
        ("friction", input.friction),
        ("dynamic friction", input.dynamic_friction),
        ("dt", input.dt),
    ];
    for (name, value) in checks {
        if !(value.is_finite() && value >= 0.0) {
            return Err(CslcError::InvalidParams(format!(
                "{name} must be finite and >= 0, got {value}"
            )));
        }
    }
    Ok(())
}

/// What a step's set-up found among the spheres within reach (`CslcPad::set_up`).
struct SetUp {
    /// Some sphere touches its target at its last displacement: the pad must be solved.
    loaded: bool,
    /// The first sphere whose penetration jumped by more than `impact_fraction` of its radius
    /// since the last step: `(sphere, jump, radius)`.
    fast_impact_sphere: Option<(usize, f64, f64)>,
}

impl CslcPad {
    /// A resting pad (`δ = 0`).
    pub fn new(lattice: Lattice, params: CslcParams) -> Result<Self, CslcError> {
        params.validate().map_err(CslcError::InvalidParams)?;
        let lateral = params.lateral_spring();
        let mut stiffness = Vec::with_capacity(lattice.len());
        let mut radius: f64 = 0.0;
        for (i, s) in lattice.spheres().iter().enumerate() {
            let anchor = params.anchor_stiffness * s.area;
            let lateral_sum = lateral * lattice.neighbours(i).len() as f64;
            stiffness.push(local_stiffness(&s.normal, anchor, params.tangential_ratio, lateral_sum));
            // Block-Jacobi spectral radius bound: ρ(D⁻¹N) ≤ max_i L_i / λ_min(K_i) (Gershgorin on
            // the block rows); the Hertz tangent and stick constraints only stiffen D.
            let smallest = anchor * params.tangential_ratio.min(1.0) + lateral_sum;
            if smallest > 0.0 {
                radius = radius.max(lateral_sum / smallest);
            }
        }
        let n = lattice.len();
        let contact_coefficients = lattice
            .spheres()
            .iter()
            .map(|s| params.contact_stiffness * s.area)
            .collect();
        let mut rest_box = QueryBox {
            lower: Vector3::repeat(f64::INFINITY),
            upper: Vector3::repeat(f64::NEG_INFINITY),
        };
        for s in lattice.spheres() {
            rest_box.lower = rest_box.lower.inf(&s.rest_position.coords);
            rest_box.upper = rest_box.upper.sup(&s.rest_position.coords);
        }
        let largest_radius = lattice.spheres().iter().map(|s| s.radius).fold(0.0, f64::max);
        let smallest_radius = lattice.spheres().iter().map(|s| s.radius).fold(f64::INFINITY, f64::min);
        let colors = crate::red_black::colour_classes(&lattice);
        let clusters = Clusters::new(&lattice);
        let compliance: Vec<Matrix3<f64>> = stiffness.iter().map(local_compliance).collect();
        let diagonal_springs = stiffness
            .iter()
            .zip(&compliance)
            .map(|(k, c)| Some((diagonal_of(k)?, diagonal_of(c)?)))
            .collect::<Option<Vec<_>>>();
        Ok(CslcPad {
            lattice,
            params,
            compliance,
            diagonal_springs,
            stiffness,
            contact_coefficients,
            lateral_spring: lateral,
            displacement: vec![Vector3::zeros(); n],
            previous_displacement: vec![Vector3::zeros(); n],
            contact_state: ContactState::at_rest(n),
            colors,
            clusters,
            chebyshev_radius: radius,
            prepared: Vec::new(),
            spare_field: Vec::new(),
            patch_lists: PatchLists::default(),
            rest_box,
            largest_radius,
            smallest_radius,
            reach_radii: Vec::new(),
            deepest: Vec::new(),
            contact_visits: Vec::new(),
            sweeps_made: 0,
            frames: KeptList::default(),
            motions: Vec::new(),
            candidates: Vec::new(),
            squares: Vec::new(),
            compliance_matrix: None,
            compliance_tried: false,
            sweep_history: SweepHistory::default(),
            condensed: Condensed::default(),
            reached: Vec::new(),
        })
    }

    /// The lattice.
    pub fn lattice(&self) -> &Lattice {
        &self.lattice
    }

    /// The parameters.
    pub fn params(&self) -> &CslcParams {
        &self.params
    }

    /// The parameters, to change the solver's tolerance and cap in tests.
    #[cfg(test)]
    pub(crate) fn params_mut(&mut self) -> &mut CslcParams {
        &mut self.params
    }

    /// The relative residual `Σ_i |r_i| / Σ_i f_n,i` of the solved field as one Jacobi sweep of
    /// the last step measures it — every sphere's local step against the field as it is — for
    /// tests (the step's `input` again).
    #[cfg(test)]
    pub(crate) fn jacobi_residual(&self, input: &StepInput) -> f64 {
        let mut prepared = self.prepared.clone();
        self.fill_stick_terms(&mut prepared);
        let (mut unbalanced, mut load) = (0.0, 0.0);
        for i in 0..self.lattice.len() {
            let step = self.sphere_step(input, &prepared, &self.displacement, i);
            unbalanced += step.residual_squared.sqrt();
            load += step.normal_force;
        }
        unbalanced / f64::max(load, self.params.anchor_stiffness * self.lattice.area() * 1e-9)
    }

    /// Current displacements `δ_i` in the pad frame.
    pub fn displacements(&self) -> &[Vector3<f64>] {
        &self.displacement
    }

    /// Each sphere's inward deflection of the skin `−δ_i·n_i` in the current field (the last
    /// step's solution), m (positive when pushed in).
    pub fn deflections(&self) -> Vec<f64> {
        self.lattice
            .spheres()
            .iter()
            .zip(&self.displacement)
            .map(|(sphere, delta)| -delta.dot(&sphere.normal))
            .collect()
    }

    /// Gives back a patch this pad returned, once read: its next step fills the patch's lists in
    /// place instead of allocating them (a pad stepped every millisecond otherwise allocates its
    /// lists anew every step). Optional; the patch's values play no part.
    pub fn recycle(&mut self, patch: PatchResult) {
        self.patch_lists.keep(patch);
    }

    /// The kept patch lists, taken out for a step's patch.
    pub(crate) fn take_patch_lists(&mut self) -> PatchLists {
        std::mem::take(&mut self.patch_lists)
    }

    /// Keeps `lists` (what a step's patch did not take) for the next step.
    pub(crate) fn keep_patch_lists(&mut self, lists: PatchLists) {
        self.patch_lists = lists;
    }

    /// Forgets the warm start.
    pub fn reset(&mut self) {
        self.displacement.iter_mut().for_each(|d| *d = Vector3::zeros());
        self.previous_displacement
            .iter_mut()
            .for_each(|d| *d = Vector3::zeros());
        self.contact_state.clear(self.lattice.len());
    }

    /// The largest displacement `max_i |δ_i|`, m. Four running maxima, one per lane of four
    /// spheres, instead of one chain of dependent comparisons: the largest of a set is the same
    /// whichever way it is grouped (`f64::max` passes over NaN in any order alike).
    fn spread(&self) -> f64 {
        let mut lanes = [0.0f64; 4];
        let mut chunks = self.displacement.chunks_exact(4);
        for chunk in chunks.by_ref() {
            for (lane, d) in lanes.iter_mut().zip(chunk) {
                *lane = lane.max(d.norm_squared());
            }
        }
        let rest = chunks.remainder().iter().map(|d| d.norm_squared()).fold(0.0, f64::max);
        lanes.iter().fold(rest, |a, b| a.max(*b)).sqrt()
    }

    /// The rest box grown by `allowance` on every side (`None` for an empty lattice).
    fn query_box(&self, allowance: f64) -> Option<QueryBox> {
        let QueryBox { lower, upper } = self.rest_box;
        (lower.x <= upper.x).then(|| QueryBox {
            lower: lower.add_scalar(-allowance),
            upper: upper.add_scalar(allowance),
        })
    }

    pub(crate) fn center(&self, i: usize, delta: &Vector3<f64>) -> Point3<f64> {
        self.lattice
            .spheres()
            .get(i)
            .map_or(Point3::origin(), |s| s.rest_position + delta)
    }

    /// The deepest (largest `φ = r − distance`) of the targets in `mask` within their reach
    /// `reach_radii` at sphere `i` ([`keep_deeper`]), touching or not: `(target, φ, outward normal
    /// in the pad frame)`.
    fn deepest_among(
        &self,
        frames: &[TargetFrame],
        i: usize,
        delta: &Vector3<f64>,
        mask: u64,
        reach_radii: &[f64],
    ) -> Option<(usize, f64, Vector3<f64>)> {
        let radius = self.lattice.spheres().get(i)?.radius;
        let center = self.center(i, delta);
        let mut best: Option<(usize, f64, Vector3<f64>)> = None;
        for (t, frame) in frames.iter().enumerate() {
            if t < 64 && mask & (1u64 << t) == 0 {
                continue;
            }
            let (distance, normal) = frame.distance_and_normal(&center);
            keep_deeper(&mut best, (t, radius - distance, normal), radius, reach_radii);
        }
        best
    }

    /// Deepest contact of sphere `i` among the targets in `mask` (`None` unless it penetrates:
    /// a penetrating target is within any reach, so the full one serves).
    fn contact_among(&self, frames: &[TargetFrame], i: usize, delta: &Vector3<f64>, mask: u64) -> Option<Contact> {
        let (target, penetration, normal) = self.deepest_among(frames, i, delta, mask, &[])?;
        (penetration > 0.0).then_some(Contact {
            target,
            penetration,
            normal,
        })
    }

    /// Contact of sphere `i` at `delta` on the true geometry of the target it was linearised
    /// against (`surface`; none out of reach): [`Self::contact_among`] with that target's mask.
    /// With at most 64 targets the mask holds that one target alone (a target from index 64 on
    /// is queried whatever the mask), so it is queried directly, without the walk over the
    /// others.
    pub(crate) fn contact_on_surface(
        &self,
        frames: &[TargetFrame],
        i: usize,
        delta: &Vector3<f64>,
        surface: Option<Surface>,
    ) -> Option<Contact> {
        let target = surface.map(|s| s.target);
        if frames.len() > 64 || target.is_some_and(|t| t >= 64) {
            let mask = target.map_or(0, |t| if t < 64 { 1u64 << t } else { ALL_TARGETS });
            return self.contact_among(frames, i, delta, mask);
        }
        let target = target?;
        let radius = self.lattice.spheres().get(i)?.radius;
        let (distance, normal) = frames.get(target)?.distance_and_normal(&self.center(i, delta));
        let penetration = radius - distance;
        (penetration > 0.0).then_some(Contact {
            target,
            penetration,
            normal,
        })
    }

    /// The nearest target at sphere `i`, as a [`Surface`], if within its radius plus the step's
    /// reach for it, `reach_radii` (`reach.rs`). `mask` leaves out only targets provably beyond
    /// that reach.
    fn nearest_surface(
        &self,
        frames: &[TargetFrame],
        i: usize,
        delta: &Vector3<f64>,
        mask: u64,
        reach_radii: &[f64],
    ) -> Option<Surface> {
        surface_of(delta, self.deepest_among(frames, i, delta, mask, reach_radii))
    }

    /// [`Self::deepest_among`] of every sphere at its current displacement, with the targets of
    /// its cluster's mask in `candidates`, into `out`: target by target over all spheres, so that
    /// the distance queries of one target run back to back instead of each sphere waiting on its
    /// own (a square root and a division for a ball). Each sphere meets the targets in the same
    /// order as in [`Self::deepest_among`], so the answers are the same — a target provably
    /// beyond the sphere's reach for it (its distance at least `(1 + ρ_t) r_i`, `reach_radii[t]` =
    /// `ρ_t`) may go unqueried, and [`keep_deeper`] would leave it out anyway.
    fn deepest_into(
        &self,
        frames: &[TargetFrame],
        candidates: &[u64],
        reach_radii: &[f64],
        out: &mut Vec<Option<(usize, f64, Vector3<f64>)>>,
    ) {
        out.clear();
        out.resize(self.lattice.len(), None);
        let spheres = self.lattice.spheres();
        for (t, frame) in frames.iter().enumerate() {
            let bit = (t < 64).then(|| 1u64 << t);
            let reach = 1.0 + reach_radii.get(t).copied().unwrap_or(FULL_REACH_RADII);
            let points = spheres
                .iter()
                .zip(&self.displacement)
                .enumerate()
                .filter(|(i, _)| bit.is_none_or(|bit| self.clusters.mask_of(*i, candidates) & bit != 0))
                .map(|(i, (sphere, delta))| (i, sphere.rest_position + delta, reach * sphere.radius));
            frame.distances_and_normals(points, |i, distance, normal| {
                if let (Some(best), Some(sphere)) = (out.get_mut(i), spheres.get(i)) {
                    keep_deeper(best, (t, sphere.radius - distance, normal), sphere.radius, reach_radii);
                }
            });
        }
    }

    /// `b = K_ℓ Σ_j δ_j` over the neighbours `j` of sphere `i` (§3.2), summed in the lattice's
    /// order from zero: over its four neighbour slots ([`Lattice::neighbour_slots`]), an unused
    /// slot adding the field's rest slot or, in a field without one, nothing.
    fn neighbour_pull(&self, i: usize, field: &[Vector3<f64>]) -> Vector3<f64> {
        let mut sum = Vector3::zeros();
        for &j in self.lattice.neighbour_slots(i).unwrap_or(&[usize::MAX; 4]) {
            if let Some(d) = field.get(j) {
                sum += d;
            }
        }
        sum * self.lateral_spring
    }

    /// The local Newton step of sphere `i` against the field `field` (`local.rs`); `prepared[i]`
    /// holds its stick anchor, linearised target surface and stick terms for this step (all of
    /// them: see [`Self::fill_stick_terms`]).
    #[inline]
    pub(crate) fn sphere_step(
        &self,
        input: &StepInput,
        prepared: &[Prepared],
        field: &[Vector3<f64>],
        i: usize,
    ) -> crate::local::LocalStep {
        let delta = field.get(i).copied().unwrap_or_default();
        let here = prepared.get(i);
        let contact = here.and_then(|p| Some((p.surface?.contact_at(&delta)?, p.stick.as_ref()?)));
        self.local_step_of(input, here, contact, self.neighbour_pull(i, field), i, delta)
    }

    /// One visit of sphere `i` in a sweep that runs in sphere order on one thread: `None` if the
    /// sphere is at rest (no displacement, no displaced neighbour, no contact at zero
    /// displacement: its local step would leave it at zero with zero residual, `local.rs`:
    /// without contact the step is `K⁻¹ b` with `b = 0`, residual `|b − K δ| = 0`), else its local
    /// step against `field`. A pad near a target it does not touch (a swinging foot, an opening
    /// finger) is then not swept at all.
    ///
    /// A sphere that touches nothing at its displacement takes the step without contact,
    /// `δ = K⁻¹ b`, residual `|b − K δ_k|`, inlined so that the sweeps run the spheres out of
    /// contact — most of a pad under a small patch — back to back. A touching sphere solves the
    /// full local problem; its stick terms are computed when it first touches in the step and
    /// kept in `prepared[i]` (most spheres near a target never touch it, so most never need
    /// them). The contact test at the current displacement is made once for both.
    #[inline(always)]
    pub(crate) fn ordered_visit(
        &self,
        input: &StepInput,
        prepared: &mut [Prepared],
        field: &[Vector3<f64>],
        i: usize,
    ) -> Option<Visit> {
        let delta = *field.get(i)?;
        let here = prepared.get_mut(i)?;
        if delta == Vector3::zeros()
            && !here.touches_at_rest()
            && self
                .lattice
                .neighbours(i)
                .iter()
                .all(|&j| field.get(j).is_none_or(|d| *d == Vector3::zeros()))
        {
            return None;
        }
        let pull = self.neighbour_pull(i, field);
        let Some(touching) = here.surface.and_then(|s| s.contact_at(&delta)) else {
            let free = |step| {
                Some(Visit {
                    step,
                    contact_pull: None,
                })
            };
            if let Some((k, c)) = self.diagonal_springs.as_ref().and_then(|d| d.get(i)) {
                // `mul3` of a diagonal matrix, exactly: the off-diagonal products are zeros,
                // which leave each row's sum as it is (but for the sign of a zero).
                return free(crate::local::LocalStep {
                    delta: c.component_mul(&pull),
                    residual_squared: (pull - k.component_mul(&delta)).norm_squared(),
                    normal_force: 0.0,
                });
            }
            if let (Some(k), Some(c)) = (self.stiffness.get(i), self.compliance.get(i)) {
                return free(crate::local::LocalStep {
                    delta: mul3(c, &pull),
                    residual_squared: (pull - mul3(k, &delta)).norm_squared(),
                    normal_force: 0.0,
                });
            }
            return free(self.local_step_of(input, Some(here), None, pull, i, delta));
        };
        if here.stick.is_none() {
            here.stick = self.stick_terms(i, here);
        }
        let here = &*here;
        let contact = here.stick.as_ref().map(|terms| (touching, terms));
        Some(Visit {
            step: self.local_step_of(input, Some(here), contact, pull, i, delta),
            contact_pull: Some(pull),
        })
    }

    /// Stamps the next sweep: its visits in contact are recorded under the returned count
    /// ([`Self::record_contact_visit`]).
    pub(crate) fn begin_sweep(&mut self) -> u64 {
        self.sweeps_made += 1;
        self.contact_visits.resize(self.lattice.len(), (0, Vector3::zeros()));
        self.sweeps_made
    }

    /// Records that sphere `i` was visited in contact in sweep `sweep` with neighbour pull `pull`.
    pub(crate) fn record_contact_visit(&mut self, i: usize, sweep: u64, pull: Vector3<f64>) {
        if let Some(visit) = self.contact_visits.get_mut(i) {
            *visit = (sweep, pull);
        }
    }

    /// `Σ_i |r_i|` of the field at the end of sweep `sweep`, as a Jacobi sweep would measure it
    /// (every sphere's local step against the field as it is), without making one — or `None` if
    /// a sphere's contact changed in the sweep, where the estimate does not hold. (The next
    /// red-black sweep measures a mix: its later colours see its earlier colours' updates.) A
    /// sphere out of contact (or at rest) has the residual `b_i − K δ_i` of the field as it is,
    /// exactly. A sphere visited in contact solved its local
    /// problem against the pull `b_i⁰` of its visit; the neighbours that moved after it changed
    /// that pull to `b_i`, and its next Newton step would remove `|J Δδ| = |b_i − b_i⁰|`, to first
    /// order in the change (exactly while its local problem is linear: sticking, or its Hertz
    /// law linearised). The roots are summed in sphere order (`squares` is their storage).
    pub(crate) fn residual_after_sweep(
        &self,
        prepared: &[Prepared],
        field: &[Vector3<f64>],
        sweep: u64,
        squares: &mut Vec<f64>,
    ) -> Option<f64> {
        squares.clear();
        let spheres = prepared.len().min(self.lattice.len());
        for (i, (here, (visit, delta))) in prepared
            .iter()
            .zip(self.contact_visits.iter().zip(field))
            .take(spheres)
            .enumerate()
        {
            let pull = self.neighbour_pull(i, field);
            let touching = here.surface.and_then(|s| s.contact_at(delta)).is_some();
            let residual = if visit.0 == sweep {
                if !touching {
                    return None;
                }
                pull - visit.1
            } else {
                if touching {
                    return None;
                }
                match self.diagonal_springs.as_ref().and_then(|d| d.get(i)) {
                    Some((k, _)) => pull - k.component_mul(delta),
                    None => pull - mul3(self.stiffness.get(i).unwrap_or(&IDENTITY), delta),
                }
            };
            squares.push(residual.norm_squared());
        }
        Some(crate::red_black::sum_of_roots(squares))
    }

    /// The local problem of sphere `i` at displacement `delta` with its contact and neighbour
    /// pull `b` ([`Self::neighbour_pull`]), solved.
    #[inline(never)]
    fn local_step_of(
        &self,
        input: &StepInput,
        here: Option<&Prepared>,
        contact: Option<(Contact, &StickTerms)>,
        neighbour_pull: Vector3<f64>,
        i: usize,
        delta: Vector3<f64>,
    ) -> crate::local::LocalStep {
        let problem = LocalProblem {
            stiffness: self.stiffness.get(i).unwrap_or(&IDENTITY),
            compliance: self.compliance.get(i).unwrap_or(&IDENTITY),
            neighbour_pull,
            delta,
            contact,
            contact_coefficient: self.contact_coefficients.get(i).copied().unwrap_or(0.0),
            stick_limit: here.map_or(input.friction, |p| p.stick_limit),
            slide_friction: input.dynamic_friction,
        };
        local_step(&problem)
    }

    /// The stick terms of sphere `i` against its prepared surface and anchor (`None` without a
    /// surface).
    fn stick_terms(&self, i: usize, p: &Prepared) -> Option<StickTerms> {
        p.surface.map(|s| {
            StickTerms::new(
                self.stiffness.get(i).unwrap_or(&IDENTITY),
                self.compliance.get(i).unwrap_or(&IDENTITY),
                &s.normal,
                &p.anchor,
            )
        })
    }

    /// Computes the stick terms of every sphere with a surface, for sweeps that map all spheres
    /// from one iterate ([`Self::sphere_step`] cannot keep them).
    fn fill_stick_terms(&self, prepared: &mut [Prepared]) {
        for (i, p) in prepared.iter_mut().enumerate() {
            if p.stick.is_none() {
                p.stick = self.stick_terms(i, p);
            }
        }
    }

    /// The storage of a step's squared visit residuals (`red_black.rs`), emptied.
    pub(crate) fn take_squares(&mut self) -> Vec<f64> {
        let mut squares = std::mem::take(&mut self.squares);
        squares.clear();
        squares
    }

    /// Keeps `squares`' storage for the next step ([`Self::take_squares`]).
    pub(crate) fn keep_squares(&mut self, squares: Vec<f64>) {
        self.squares = squares;
    }

    pub(crate) fn colors_mut(&mut self) -> &mut Vec<Vec<usize>> {
        &mut self.colors
    }

    pub(crate) fn chebyshev_radius(&self) -> f64 {
        self.chebyshev_radius
    }

    /// The initial iterate of a step's sweeps, `δ⁰ = δ_n + (δ_n − δ_{n−1})`: the last two steps'
    /// solutions extrapolated linearly (§4, "Warm start"). A sphere at rest in both steps stays
    /// exactly at rest.
    pub(crate) fn initial_iterate(&self) -> Vec<Vector3<f64>> {
        let mut start = Vec::with_capacity(self.displacement.len());
        self.initial_iterate_into(&mut start);
        start
    }

    /// [`Self::initial_iterate`] into `start` (every entry written), reusing its storage.
    pub(crate) fn initial_iterate_into(&self, start: &mut Vec<Vector3<f64>>) {
        start.resize(self.displacement.len(), Vector3::zeros());
        for ((s, d), p) in start
            .iter_mut()
            .zip(&self.displacement)
            .zip(&self.previous_displacement)
        {
            *s = d + (d - p);
        }
    }

    /// Makes the solved displacements zero (an unloaded pad), committed as a solved field is
    /// ([`Self::commit_field`]): the spare storage, zeroed, becomes `δ_{n+1}`.
    fn rest_field(&mut self) {
        let mut rest = self.take_spare_field();
        rest.clear();
        rest.resize(self.lattice.len(), Vector3::zeros());
        self.commit_field(rest);
    }

    /// Takes back the field [`Self::commit_field`] committed last: `δ_n` and `δ_{n−1}` are the
    /// displacements again, and the field goes back to the spare storage (for a step solved
    /// again, `CslcPad::step`).
    fn uncommit_field(&mut self) {
        let start = std::mem::take(&mut self.previous_displacement);
        let solved = std::mem::replace(&mut self.displacement, start);
        self.previous_displacement = std::mem::replace(&mut self.spare_field, solved);
    }

    /// The last committed solve moved some sphere by `reach_radii` of its radii or more from the
    /// step's start (`|δ_{n+1,i} − δ_{n,i}| ≥ ρ r_i`): a sphere left without a surface at that
    /// reach may have come into contact (`reach.rs`).
    fn solve_moved_a_sphere(&self, reach_radii: f64) -> bool {
        let spheres = self.lattice.spheres().iter();
        spheres
            .zip(self.displacement.iter().zip(&self.previous_displacement))
            .any(|(sphere, (solved, start))| {
                let reach = reach_radii * sphere.radius;
                (solved - start).norm_squared() >= reach * reach
            })
    }

    /// The pad can have a compliance (`condensed.rs`): its sphere stiffnesses are diagonal in
    /// the pad frame and it has at most [`MAX_SPHERES`] spheres.
    pub(crate) fn can_condense(&self) -> bool {
        self.diagonal_springs.is_some() && self.lattice.len() <= MAX_SPHERES
    }

    /// The pad's compliance (`condensed.rs`), factored at the first call, taken out of the pad
    /// for a step's condensed solve (put back with [`Self::keep_compliance`]); `None` where it
    /// cannot be formed.
    pub(crate) fn take_compliance(&mut self) -> Option<Compliance> {
        if !self.compliance_tried {
            self.compliance_tried = true;
            self.compliance_matrix = self.diagonal_springs.as_ref().and_then(|springs| {
                let diagonals: Vec<Vector3<f64>> = springs.iter().map(|(k, _)| *k).collect();
                Compliance::new(&self.lattice, &diagonals, self.lateral_spring)
            });
        }
        self.compliance_matrix.take()
    }

    /// The sweeps of the last red-black and the last condensed step, to read and record.
    pub(crate) fn sweep_history_mut(&mut self) -> &mut SweepHistory {
        &mut self.sweep_history
    }

    /// Puts back the compliance [`Self::take_compliance`] took, with the columns it formed.
    pub(crate) fn keep_compliance(&mut self, compliance: Compliance) {
        self.compliance_matrix = Some(compliance);
    }

    /// The storage of the condensed system, taken out of the pad.
    pub(crate) fn take_condensed(&mut self) -> Condensed {
        std::mem::take(&mut self.condensed)
    }

    /// Puts back the storage [`Self::take_condensed`] took.
    pub(crate) fn keep_condensed(&mut self, condensed: Condensed) {
        self.condensed = condensed;
    }

    /// `K_i δ` of sphere `i` (anchor and lateral diagonal).
    pub(crate) fn stiffness_times(&self, i: usize, delta: &Vector3<f64>) -> Vector3<f64> {
        mul3(self.stiffness.get(i).unwrap_or(&IDENTITY), delta)
    }

    /// Sphere `i`'s entry of the initial iterate ([`Self::initial_iterate`]), formed alone.
    #[inline]
    pub(crate) fn extrapolated(&self, i: usize) -> Vector3<f64> {
        match (self.displacement.get(i), self.previous_displacement.get(i)) {
            (Some(d), Some(p)) => d + (d - p),
            _ => Vector3::zeros(),
        }
    }

    /// [`Self::neighbour_pull`] of sphere `i` in the initial iterate, without forming it: the
    /// same sum in the same order.
    pub(crate) fn extrapolated_pull(&self, i: usize) -> Vector3<f64> {
        let mut sum = Vector3::zeros();
        for &j in self.lattice.neighbour_slots(i).unwrap_or(&[usize::MAX; 4]) {
            if j < self.displacement.len() {
                sum += self.extrapolated(j);
            }
        }
        sum * self.lateral_spring
    }

    /// `k_c a_i` of sphere `i`.
    pub(crate) fn contact_coefficient(&self, i: usize) -> f64 {
        self.contact_coefficients.get(i).copied().unwrap_or(0.0)
    }

    /// The storage for a step's iterate (see `spare_field`), taken out of the pad.
    pub(crate) fn take_spare_field(&mut self) -> Vec<Vector3<f64>> {
        std::mem::take(&mut self.spare_field)
    }

    /// Makes `field` the solved displacements `δ_{n+1}` and `δ_n` the previous ones, without
    /// copying: `δ_n`'s list becomes the previous one, and the storage of `δ_{n−1}` is kept for
    /// the next step's iterate.
    pub(crate) fn commit_field(&mut self, field: Vec<Vector3<f64>>) {
        let last = std::mem::replace(&mut self.displacement, field);
        self.spare_field = std::mem::replace(&mut self.previous_displacement, last);
    }

    /// Advances the pad by one step and returns the patch.
    pub fn step(&mut self, input: &StepInput) -> Result<PatchResult, CslcError> {
        check_input(input)?;
        let pose = input.pad_pose;
        let targets = input.targets;
        let origin = Point3::from(pose.translation.vector);
        let spread = self.spread();
        // Every point the step queries is a sphere centre `x_i + δ_i` at the start (|δ_i| ≤
        // spread) or at the solved field (checked below), or a cluster's rest centroid: within
        // `allowance` of the rest box, where a floor's distance is its top face's.
        let allowance = 2.0 * spread + QUERY_MARGIN_RADII * self.largest_radius;
        let region = self.query_box(allowance);
        let mut frames = self.frames.take();
        target_frames_into(targets, &pose, region.as_ref(), &mut frames);
        let mut motions = std::mem::take(&mut self.motions);
        motions.clear();
        motions.extend(targets.iter().map(|t| {
            t.rigid_motion()
                .map(|(twist, origin)| PadFrameMotion::new(&twist, &origin, &input.pad_twist, &pose))
        }));
        // Each target's reach (`reach.rs`): the closure of the coming steps at its speed relative
        // to the pad, bounded over the query region (every queried point lies within `extent` of
        // the pad origin).
        let extent = region.map_or(0.0, |r| r.lower.abs().sup(&r.upper.abs()).norm());
        let mut reach = std::mem::take(&mut self.reach_radii);
        let speeds = motions.iter().map(|m| m.map(|m| m.speed_within(extent)));
        reach_radii_into(speeds, input.dt, self.smallest_radius, &mut reach);
        let mut prepared = std::mem::take(&mut self.prepared);
        let history = *self.sweep_history_mut();
        // Stick anchors: last displacement carried by the relative surface motion (§3.4), and
        // the penetration jump for fast-impact detection.
        let carry = AnchorCarry {
            input,
            pose: &pose,
            origin: &origin,
            motions: &motions,
        };
        // Set up and solved at the step's reach; again at the full reach if the solve moved a
        // sphere by its narrowest reach or more (`reach.rs`), from the same start.
        let (sweeps, fast_impact_sphere) = loop {
            let set_up = self.set_up(&frames, spread, &reach, &carry, &mut prepared);
            let sweeps = self.solve(input, &mut prepared, set_up.loaded);
            let narrowest = reach.iter().copied().fold(FULL_REACH_RADII, f64::min);
            if narrowest < FULL_REACH_RADII && self.solve_moved_a_sphere(narrowest) {
                self.uncommit_field();
                *self.sweep_history_mut() = history;
                reach.fill(FULL_REACH_RADII);
                continue;
            }
            break (sweeps, set_up.fast_impact_sphere);
        };
        self.reach_radii = reach;
        if frames.iter().any(TargetFrame::is_face) && self.spread() > allowance {
            // The solved field left the region where the faces stand for their shapes: the
            // patch is assembled on the shapes themselves.
            target_frames_into(targets, &pose, None, &mut frames);
        }
        let patch = self.assemble(input, &frames, &prepared, sweeps, fast_impact_sphere);
        self.prepared = prepared;
        self.frames.keep(frames);
        self.motions = motions;
        Ok(patch)
    }

    /// A step's set-up at the targets' reach `reach` (`reach.rs`) from the field of the last
    /// step (`spread` its largest displacement): each sphere's nearest target within reach
    /// linearised as its surface, its stick anchor carried by `carry`, its penetration jump and
    /// stick limit, into `prepared`; the spheres with a surface become [`Self::reached`]. A
    /// sphere out of reach only has its surface cleared: nothing reads the rest of its entry (its
    /// stick terms are formed from its surface), for it cannot touch. Where the targets number
    /// more than 64, every sphere is set up, with a surface or not (`contact_on_surface`).
    fn set_up(
        &mut self,
        frames: &[TargetFrame],
        spread: f64,
        reach: &[f64],
        carry: &AnchorCarry,
        prepared: &mut Vec<Prepared>,
    ) -> SetUp {
        let n = self.lattice.len();
        let every_sphere = frames.len() > 64;
        let mut candidates = std::mem::take(&mut self.candidates);
        let mut deepest = std::mem::take(&mut self.deepest);
        let mut reached = std::mem::take(&mut self.reached);
        self.clusters.candidates_into(frames, spread, reach, &mut candidates);
        if n < PARALLEL_MIN_SPHERES {
            // On this thread: the deepest targets found target by target, then the set-up of the
            // spheres within reach of a surface, in one pass over the per-sphere lists (no index
            // lookups).
            self.deepest_into(frames, &candidates, reach, &mut deepest);
            prepared.resize(n, Prepared::default());
            reached.clear();
            let spheres = self.lattice.spheres().iter().zip(&self.displacement).zip(&deepest);
            let states = self.contact_state.iter();
            for (i, (((sphere, delta), deepest), (state, here))) in
                spheres.zip(states.zip(prepared.iter_mut())).enumerate()
            {
                let surface = surface_of(delta, *deepest);
                if surface.is_none() && !every_sphere {
                    here.surface = None;
                    continue;
                }
                carry.prepare(sphere, delta, surface, state, here);
                reached.push(i);
            }
        } else {
            let prepare = |i: usize, here: &mut Prepared| {
                let (Some(sphere), Some(delta)) = (self.lattice.spheres().get(i), self.displacement.get(i)) else {
                    return;
                };
                let state = self.contact_state.of(i);
                let mask = self.clusters.mask_of(i, &candidates);
                let surface = self.nearest_surface(frames, i, delta, mask, reach);
                carry.prepare(sphere, delta, surface, state, here);
            };
            update_spheres(prepared, n, Prepared::default(), prepare);
            reached.clear();
            reached.extend((0..n).filter(|&i| every_sphere || prepared.get(i).is_some_and(|p| p.surface.is_some())));
        }
        // A sphere out of reach has no penetration to jump by.
        let mut fast_impact_sphere = None;
        for &i in &reached {
            let (Some(p), Some(sphere)) = (prepared.get(i), self.lattice.spheres().get(i)) else {
                continue;
            };
            if p.jump > self.params.impact_fraction * sphere.radius {
                fast_impact_sphere = Some((i, p.jump, sphere.radius));
                break;
            }
        }
        let loaded = reached
            .iter()
            .any(|&i| prepared.get(i).is_some_and(Prepared::touches_at_rest));
        self.reached = reached;
        self.candidates = candidates;
        self.deepest = deepest;
        SetUp {
            loaded,
            fast_impact_sphere,
        }
    }

    /// A step's solve from its set-up `prepared`: the field at rest for a pad that nothing
    /// loads, else the sweeps of the pad's acceleration; commits the solved field.
    fn solve(&mut self, input: &StepInput, prepared: &mut [Prepared], loaded: bool) -> SweepEnd {
        let floor = self.params.anchor_stiffness * self.lattice.area() * 1e-9;
        if !loaded {
            // Unloaded (docs/design/lattice-model.md §4, "Unloaded pad"): no sphere penetrates
            // its target at δ = 0, so δ = 0 is the equilibrium, exactly: every force is zero.
            self.rest_field();
            return SweepEnd {
                iterations: 0,
                residual: 0.0,
                converged: true,
            };
        }
        match self.params.acceleration {
            Acceleration::Condensed => self.condensed_or_red_black(input, prepared, floor, false),
            Acceleration::Adaptive => self.condensed_or_red_black(input, prepared, floor, true),
            Acceleration::RedBlackSor => self.red_black_sweeps(input, prepared, floor, None),
            Acceleration::DampedJacobi | Acceleration::Chebyshev => {
                self.fill_stick_terms(prepared);
                self.chebyshev_sweeps(input, prepared, floor)
            }
        }
    }

    /// The sweeps of the Jacobi family (damped Jacobi or Chebyshev semi-iteration); every sweep
    /// maps all spheres from the previous iterate.
    fn chebyshev_sweeps(&mut self, input: &StepInput, prepared: &[Prepared], floor: f64) -> SweepEnd {
        let n = self.lattice.len();
        let mut current = self.initial_iterate();
        let mut previous = current.clone();
        let mut omega = 1.0;
        let mut best_since_restart = f64::INFINITY;
        let mut first_since_restart = true;
        let mut restarts = 0usize;
        let mut iterations = 0;
        let mut residual = f64::INFINITY;
        let mut converged = false;
        while iterations < self.params.max_iterations {
            let steps: Vec<_> = map_spheres(n, |i| self.sphere_step(input, prepared, &current, i));
            let unbalanced: f64 = steps.iter().map(|s| s.residual_squared.sqrt()).sum();
            let load: f64 = steps.iter().map(|s| s.normal_force).sum();
            residual = unbalanced / load.max(floor);
            if residual <= self.params.tolerance {
                converged = true;
                break;
            }
            iterations += 1;
            let next: Vec<Vector3<f64>> = match self.params.acceleration {
                Acceleration::DampedJacobi
                | Acceleration::RedBlackSor
                | Acceleration::Condensed
                | Acceleration::Adaptive => {
                    let w = self.params.relaxation;
                    current.iter().zip(&steps).map(|(d, s)| d + (s.delta - d) * w).collect()
                }
                Acceleration::Chebyshev if restarts > MAX_CHEBYSHEV_RESTARTS => {
                    // The contact set keeps switching: finish with the damped sweep, which
                    // contracts whatever the active set.
                    let w = self.params.relaxation;
                    current.iter().zip(&steps).map(|(d, s)| d + (s.delta - d) * w).collect()
                }
                Acceleration::Chebyshev => {
                    // Chebyshev semi-iteration (Golub & Van Loan §11.2.8):
                    // ω_1 = 1, ω_2 = 1/(1 − ρ²/2), ω_{k+1} = 1/(1 − ρ² ω_k / 4);
                    // δ^{k+1} = δ^{k−1} + ω_{k+1} (δ̂^{k+1} − δ^{k−1}).
                    // The polynomial is tuned to a fixed linear operator; when spheres enter or
                    // leave contact the operator changes, so restart whenever the residual grows
                    // by half over the best since the last restart, and after
                    // `MAX_CHEBYSHEV_RESTARTS` restarts fall back to the damped sweep.
                    if residual > 1.5 * best_since_restart {
                        omega = 1.0;
                        previous.clone_from(&current);
                        best_since_restart = residual;
                        first_since_restart = true;
                        restarts += 1;
                    }
                    best_since_restart = best_since_restart.min(residual);
                    let rho2 = self.chebyshev_radius * self.chebyshev_radius;
                    let w = omega;
                    let out = previous
                        .iter()
                        .zip(&steps)
                        .map(|(p, s)| p + (s.delta - p) * w)
                        .collect();
                    omega = if first_since_restart {
                        1.0 / (1.0 - 0.5 * rho2)
                    } else {
                        1.0 / (1.0 - 0.25 * rho2 * w)
                    };
                    first_since_restart = false;
                    out
                }
            };
            previous = std::mem::replace(&mut current, next);
        }
        self.commit_field(current);
        SweepEnd {
            iterations,
            residual,
            converged,
        }
    }

    /// Forces of sphere `i` in contact `c` at the solved displacement `delta` (area `area`):
    /// `(f_n, friction (pad frame), sliding)`. The friction is the tangential reaction
    /// `P_m (K δ − b)` that holds the sphere in equilibrium, capped at `μ_d f_n` when the sphere
    /// slides, else at its stick limit (§3.4, `local.rs`). It slides when the reaction that would
    /// hold it at its stick anchor exceeds the stick limit.
    pub(crate) fn contact_forces(
        &self,
        input: &StepInput,
        prepared: &[Prepared],
        i: usize,
        c: &Contact,
        delta: &Vector3<f64>,
        area: f64,
    ) -> (f64, Vector3<f64>, bool) {
        let delta = *delta;
        let force_normal = crate::assemble::normal_force(self.params.contact_stiffness * area, c.penetration);
        let k = self.stiffness.get(i).unwrap_or(&IDENTITY);
        let pull = self.neighbour_pull(i, &self.displacement);
        let tangential = |v: Vector3<f64>| v - c.normal * c.normal.dot(&v);
        let mut friction = tangential(mul3(k, &delta) - pull);
        // The reaction at the stick anchor (same normal position, tangential part pinned).
        let here = prepared.get(i);
        let anchor = here.map_or(delta, |p| p.anchor);
        let stick = tangential(anchor) + c.normal * c.normal.dot(&delta);
        let stick_limit = here.map_or(input.friction, |p| p.stick_limit);
        let slipping = tangential(mul3(k, &stick) - pull).norm() > stick_limit * force_normal;
        // It keeps sliding (limit μ_d) only while it slips faster than `SLIP_SPEED`.
        let sliding = slipping && tangential(delta - anchor).norm() > SLIP_SPEED * input.dt;
        let cap = if sliding { input.dynamic_friction } else { stick_limit } * force_normal;
        let magnitude = friction.norm();
        if magnitude > cap {
            friction *= if magnitude > 0.0 { cap / magnitude } else { 0.0 };
        }
        (force_normal, friction, sliding)
    }

    /// The sphere at `center` (linearised penetration `linear` at its solved displacement) is out
    /// of contact with the convex target of its linearised `surface` without querying it: a
    /// convex distance is never below its tangent plane
    /// ([`Shape::exact_convex_distance`](crate::Shape::exact_convex_distance)), so the true
    /// penetration is at most the linearised one; out of contact when that is negative by more
    /// than a margin far above the rounding of either.
    pub(crate) fn out_of_contact_at(
        &self,
        frames: &[TargetFrame],
        surface: &Surface,
        center: &Point3<f64>,
        radius: f64,
        linear: f64,
    ) -> bool {
        let Some(scale) = frames.get(surface.target).and_then(TargetFrame::exact_convex_scale) else {
            return false;
        };
        // The centre's length bounded by its 1-norm (at most √3 times larger), without a root.
        let length_bound = center.x.abs() + center.y.abs() + center.z.abs();
        let margin = CONVEX_MARGIN * (1.0 + scale + length_bound + radius + linear.abs());
        linear < -margin
    }

    /// The spheres the step's set-up linearised a target surface for, ascending: the only ones
    /// the solve can bring into contact and the assembly reports.
    pub(crate) fn reached(&self) -> &[usize] {
        &self.reached
    }

    /// The per-sphere contact state, taken out of the pad for the assembly to rewrite: every
    /// sphere out of contact again.
    pub(crate) fn take_contact_state(&mut self) -> ContactState {
        let mut state = std::mem::take(&mut self.contact_state);
        state.clear(self.lattice.len());
        state
    }

    /// Puts back the contact state [`Self::take_contact_state`] took.
    pub(crate) fn keep_contact_state(&mut self, state: ContactState) {
        self.contact_state = state;
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::PadFrameMotion;
    use crate::target::Twist;

    fn vector(rng: &mut ChaCha8Rng, scale: f64) -> Vector3<f64> {
        Vector3::from_fn(|_, _| rng.random_range(-scale..scale))
    }

    /// The relative velocity formed in the pad frame equals the one formed in the world — the
    /// target's material velocity at the sphere's world centre less the pad's, rotated into the
    /// pad frame — to rounding (1e-12 of the velocities involved), for random poses and twists.
    #[test]
    fn the_pad_frame_motion_is_the_world_relative_velocity_rotated_into_the_pad() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..10_000 {
            let axis = vector(&mut rng, 1.0);
            let pose = Isometry3::from_parts(
                Translation3::from(vector(&mut rng, 2.0)),
                UnitQuaternion::from_scaled_axis(axis * 3.0),
            );
            let pad_twist = Twist {
                linear: vector(&mut rng, 1.0),
                angular: vector(&mut rng, 5.0),
            };
            let twist = Twist {
                linear: vector(&mut rng, 1.0),
                angular: vector(&mut rng, 5.0),
            };
            let origin = Point3::from(vector(&mut rng, 2.0));
            let x = vector(&mut rng, 0.1);
            let world = pose * Point3::from(x);
            let expected = pose.rotation.inverse()
                * (twist.velocity_at(&origin, &world)
                    - pad_twist.velocity_at(&Point3::from(pose.translation.vector), &world));
            let got = PadFrameMotion::new(&twist, &origin, &pad_twist, &pose).velocity_at(&x);
            let scale = 1.0 + twist.linear.norm() + pad_twist.linear.norm() + 5.0 * twist.angular.norm();
            assert!((got - expected).norm() <= 1e-12 * scale, "{got} against {expected}");
        }
    }
}
