//! From a solved patch to the host: the lattice forces become a few compliant points (one per
//! pad quadrant and touched link, or one per touched link) that the `pgs` step solves implicitly,
//! plus a pure torque per link pair that makes the applied wrench exactly the lattice's
//! (`docs/design/lattice-model.md` §5).
//!
//! **Regions.** The touching spheres of a pad are grouped by touched link and by quadrant of
//! their rest position in the pad frame (sign of x, y). The loaded quadrants of a touched link are
//! merged into one region when the patch's rotational stiffness may act explicitly, through the
//! residual torque below (`explicit_rotation.rs`: the rotational mode's `ωh ≤ 0.2`); the
//! approaching spheres of unloaded quadrants keep their own anticipated points. A region `R`
//! becomes one point at its
//! normal-force-weighted centre `p_R = Σ f_n,i q_i / Σ f_n,i` with
//! - force on the pad `F_R = Σ_{i∈R} f_i` (contact plus friction of its spheres),
//! - normal `n_R` = direction of `Σ f_n,i m_i` (target normal, from the touched link to the pad),
//! - normal stiffness `k_n,R = Σ (K_a,i ⁻¹ + H_i ⁻¹)⁻¹`: each sphere's anchor `K_a,i = k_a a_i` in
//!   series with its Hertz tangent `H_i = ∂f/∂φ = 1.5 k_c a_i φ_i^{1/2} = 1.5 f_n,i / φ_i`
//!   (`docs/design/lattice-model.md` §3.1, §3.3); lateral coupling is left out (it only spreads
//!   the load);
//! - tangential stiffness `k_t,R = Σ ρ K_a,i` (the stick springs, §3.4);
//! - damping `c_R = c_a Σ a_i` (the material's viscous skin) plus the restitution dashpot, and
//!   the normal stiffness handed to the host split into an implicit part and a dashpot so that
//!   the patch's normal mode has the damping ratio of the pair's restitution (`restitution.rs`);
//!   the tilt about the point and the twist about its normal, which the residual torque below
//!   carries, get the same dashpots spread over the region's spheres (`tilt_dashpot_of` by their
//!   normal stiffness, `twist_dashpot_of` by their tangential one), so that the patch's rocking
//!   and twisting are damped as its normal and tangential motion are;
//! - friction `μ_R = Σ f_n,i μ_i / Σ f_n,i`, `μ_i` the sphere's friction at the end of the step
//!   (`μ_d` sliding, `μ_s` sticking; `tribo-cslc` `local.rs`), so the host's friction cone on a
//!   sliding patch is the dynamic one.
//!
//! **Exact wrench.** Forces at the region points sum to the lattice's total force; their moment
//! differs from the lattice's by `τ_res = τ_lattice − Σ_R (p_R − o) × F_R`, which is applied as a
//! pure torque (`+τ_res` on the pad link, `−τ_res` on the touched link), together with the tilt
//! and twist dashpots' torque `−D ω_rel`. At rest the host applies `F_R` exactly and the dashpots
//! nothing, so both bodies receive exactly the lattice wrench and its opposite.

use nalgebra::{Matrix3, Point3, Vector3};
use tribo_cslc::{Lattice, PatchResult};
use tribo_engine::CompliantPoint;
use tribo_engine::LinkRef;

use crate::per_sphere::distinct_links_into;

use crate::explicit_rotation::{one_point_suffices, TurnBounds};
use crate::restitution::{equivalent_stiffness, explicitly_stable, normal_split};

/// Per touched link: the residual torque on the pad link (the touched link gets the opposite).
pub type ResidualTorques = Vec<(LinkRef, Vector3<f64>)>;

/// The storage of [`couple`]'s lists, kept from step to step (a step's lists are rebuilt in it).
#[derive(Default)]
pub struct CouplingScratch {
    links: Vec<LinkRef>,
    slots: Vec<Option<usize>>,
    /// The pad's motion relative to each target's link.
    approach: Vec<RigidMotion>,
    regions: Vec<Region>,
    torques: ResidualTorques,
}

/// Per-pad numbers the coupling needs.
pub struct PadCoupling<'a> {
    pub pad_link: LinkRef,
    pub lattice: &'a Lattice,
    /// The region cell of each sphere ([`sphere_cells`]).
    pub cells: &'a [usize],
    /// The springs of each sphere ([`sphere_springs`]).
    pub springs: &'a [SphereSprings],
    pub tangential_ratio: f64,
    /// N·s/m³.
    pub damping: f64,
    /// Static friction μ_s of the pair (anticipated contacts start sticking).
    pub friction: f64,
    /// Pad origin, world.
    pub origin: Point3<f64>,
    /// Damping ratio ζ of the patch's normal mode, from the pair's restitution.
    pub damping_ratio: f64,
    /// The host's step, s.
    pub dt: f64,
    /// Reduced mass of the touched link and the pad link at a world point along a unit normal,
    /// kg (`inertia.rs`; infinite when neither can move).
    pub reduced_mass: ReducedMass<'a>,
    /// Bounds of the links' rotational inertia, for the choice of one point or four
    /// (`explicit_rotation.rs`).
    pub turn_bounds: &'a TurnBounds,
    /// A link's velocity field (at rest for a link the scene does not have).
    pub motion: LinkMotion<'a>,
}

/// A link's velocity field.
pub type LinkMotion<'a> = &'a dyn Fn(LinkRef) -> RigidMotion;

/// The velocity field of a rigid link, world frame: its material point at world point `p` moves
/// at `linear + angular × p` (`linear` is the velocity of the point at the world origin).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RigidMotion {
    /// m/s.
    pub linear: Vector3<f64>,
    /// rad/s.
    pub angular: Vector3<f64>,
}

impl RigidMotion {
    /// The field of a link whose frame origin `origin` moves at `velocity` while it turns at
    /// `angular`.
    pub fn of_origin(origin: &Vector3<f64>, velocity: &Vector3<f64>, angular: &Vector3<f64>) -> RigidMotion {
        RigidMotion {
            linear: velocity - angular.cross(origin),
            angular: *angular,
        }
    }

    /// The velocity at world point `p`, m/s.
    pub fn at(&self, p: &Vector3<f64>) -> Vector3<f64> {
        self.linear + self.angular.cross(p)
    }

    /// This field relative to `other`'s.
    pub fn relative_to(&self, other: &RigidMotion) -> RigidMotion {
        RigidMotion {
            linear: self.linear - other.linear,
            angular: self.angular - other.angular,
        }
    }
}

/// Reduced mass (kg) of a touched link and the pad link at a world point along a unit normal.
pub type ReducedMass<'a> = &'a dyn Fn(LinkRef, &Vector3<f64>, &Vector3<f64>) -> f64;

#[derive(Default)]
struct Region {
    force: Vector3<f64>,
    normal: Vector3<f64>,
    weighted_point: Vector3<f64>,
    normal_force: f64,
    normal_stiffness: f64,
    tangential_stiffness: f64,
    area: f64,
    /// `Σ f_n μ_i` over the region's spheres (`μ_i` their friction at the end of the step).
    weighted_friction: f64,
    /// Elastic energy of the region's spheres: `Σ (½ f_n w + (2/5) f_n φ)` (`restitution.rs`), J.
    energy: f64,
    moment: Vector3<f64>,
    /// The region's rotational stiffness bound as moments of its spheres' stiffness bounds.
    turn: TurnMoments,
    /// The moments of its spheres' series normal stiffnesses, for the tilt stiffness.
    tilt: TiltMoments,
    /// The moments of its sticking spheres' tangential (stick) stiffnesses, for the twist
    /// stiffness.
    twist: TiltMoments,
    /// Spheres within reach but not touching (anticipated contact).
    near: Near,
}

/// `Σ k_i`, `Σ k_i r_i` and `Σ k_i |r_i|²` of spheres with stiffness bounds `k_i` at `r_i` (world
/// centres relative to the pad origin): the bound `Σ k_i |r_i − c|²` about any point `c`
/// (`explicit_rotation.rs`).
#[derive(Default, Clone, Copy)]
struct TurnMoments {
    zeroth: f64,
    first: Vector3<f64>,
    second: f64,
}

impl TurnMoments {
    fn add(&mut self, k: f64, r: &Vector3<f64>) {
        self.zeroth += k;
        self.first += r * k;
        self.second += k * r.norm_squared();
    }

    /// `Σ k_i |r_i − c|²`, never below 0.
    fn about(&self, c: &Vector3<f64>) -> f64 {
        (self.second - 2.0 * c.dot(&self.first) + self.zeroth * c.norm_squared()).max(0.0)
    }
}

/// `Σ k_i`, `Σ k_i r_i` and `Σ k_i r_i r_iᵀ` of spheres with stiffnesses `k_i` at `r_i`
/// (world centres relative to the pad origin): the tilt stiffness of their springs about any
/// point `c` and normal `n`, `K = Σ k_i a_i a_iᵀ` with `a_i = (r_i − c) × n` (a rotation `θ`
/// moves sphere `i` by `a_i · θ` along `n`). Its trace, `Σ k_i |(r_i − c) × n|²`, is their
/// stiffness against a twist about `n` through `c` when the `k_i` are tangential springs
/// (`twist_dashpot_of`). The symmetric second moment keeps its six entries (xx, xy, xz, yy, yz,
/// zz): every touching sphere adds to it.
#[derive(Default, Clone, Copy)]
struct TiltMoments {
    zeroth: f64,
    first: Vector3<f64>,
    second: [f64; 6],
}

impl TiltMoments {
    fn add(&mut self, k: f64, r: &Vector3<f64>) {
        let kr = r * k;
        self.zeroth += k;
        self.first += kr;
        let m = &mut self.second;
        m[0] += kr.x * r.x;
        m[1] += kr.x * r.y;
        m[2] += kr.x * r.z;
        m[3] += kr.y * r.y;
        m[4] += kr.y * r.z;
        m[5] += kr.z * r.z;
    }

    fn merge(&mut self, other: &TiltMoments) {
        self.zeroth += other.zeroth;
        self.first += other.first;
        for (a, b) in self.second.iter_mut().zip(&other.second) {
            *a += b;
        }
    }

    /// `Σ k_i a_i a_iᵀ` about `c` with normal `n` (unit): `[n]ₓ S [n]ₓᵀ`, `S = Σ k_i (r_i − c)(r_i − c)ᵀ`.
    fn about(&self, c: &Vector3<f64>, n: &Vector3<f64>) -> Matrix3<f64> {
        let [xx, xy, xz, yy, yz, zz] = self.second;
        let second = Matrix3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz);
        let spread = second - self.first * c.transpose() - c * self.first.transpose() + c * c.transpose() * self.zeroth;
        let cross = n.cross_matrix();
        cross * spread * cross.transpose()
    }
}

/// The approaching spheres of a region without contact: the closest one's gap and where it is.
#[derive(Default)]
struct Near {
    /// Largest `φ < 0` (smallest gap), m; `None` without approaching spheres.
    phi: Option<f64>,
    point: Vector3<f64>,
    normal: Vector3<f64>,
    /// The anchors of the spheres the step may close after the nearest one ([`anticipated`]),
    /// N/m.
    anchor: f64,
    /// Upper bound of the approaching spheres' stiffness against a flat target, N/m: the sum of
    /// their local diagonals `K_a,i + L_i` (anchor plus lateral springs to fixed neighbours; the
    /// lattice with free neighbours and the Hertz springs in series are only softer). The
    /// approaching spheres are those the coming steps may close (`tribo-cslc`'s reach).
    bound: f64,
}

/// Regions per pad side: the pad's bounding rectangle is cut into `BINS × BINS` cells.
const BINS: usize = 2;

/// The region of a sphere at rest position (x, y) in a pad spanning `[lo, hi]` (pad frame).
fn region_of(x: f64, y: f64, lo: &[f64; 2], hi: &[f64; 2]) -> usize {
    let bin = |v: f64, a: f64, b: f64| {
        let t = if b > a { (v - a) / (b - a) } else { 0.5 };
        ((t * BINS as f64).floor().max(0.0) as usize).min(BINS - 1)
    };
    bin(x, lo[0], hi[0]) + BINS * bin(y, lo[1], hi[1])
}

/// The region cell of every sphere of `lattice`: its quadrant of the bounding rectangle of the
/// rest positions (pad frame). Fixed for a pad, so computed once.
pub fn sphere_cells(lattice: &Lattice) -> Vec<usize> {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for s in lattice.spheres() {
        lo = [lo[0].min(s.rest_position.x), lo[1].min(s.rest_position.y)];
        hi = [hi[0].max(s.rest_position.x), hi[1].max(s.rest_position.y)];
    }
    lattice
        .spheres()
        .iter()
        .map(|s| region_of(s.rest_position.x, s.rest_position.y, &lo, &hi))
        .collect()
}

/// A sphere's springs that the regions sum, fixed for a pad, so computed once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphereSprings {
    /// Anchor `K_a,i = k_a a_i`, N/m.
    pub anchor: f64,
    /// Local diagonal `K_a,i + L_i`, `L_i = K_ℓ |N(i)|` the lateral springs to its neighbours
    /// held fixed, N/m (the bound of [`Near::bound`]).
    pub diagonal: f64,
}

/// The springs of every sphere of `lattice` with anchor stiffness `k_a` (N/m³) and lateral spring
/// `K_ℓ` per neighbour link (N/m).
pub fn sphere_springs(lattice: &Lattice, anchor_stiffness: f64, lateral_spring: f64) -> Vec<SphereSprings> {
    lattice
        .spheres()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let anchor = anchor_stiffness * s.area;
            SphereSprings {
                anchor,
                diagonal: anchor + lateral_spring * lattice.neighbours(i).len() as f64,
            }
        })
        .collect()
}

/// The steps of closure at the present closing speed that an anticipated point's spring covers
/// ([`anticipated`]). A sphere's speed at the start of a step underestimates what it closes when
/// it accelerates within the step (a sole rolling flat, a foot landing): with one step's worth the
/// `cslc-rapier` walker falls with 22 × 12 soles of cells at 2 ms; with 2, 3, 4 or 5 it walks
/// on both hosts and every lattice from 22 × 12 to 44 × 24 (BENCHMARKS.md, "cslc: a patch's tilt
/// damped; anticipated points that follow the step"). 3 is the middle of that range. A pad lists
/// the spheres that `tribo_cslc::CLOSURE_STEPS` steps may close as approaching, at least these
/// (checked at compile time below), so every sphere an anticipated point would count is listed.
pub const ANTICIPATED_STEPS: f64 = 3.0;
const _: () = assert!(ANTICIPATED_STEPS <= tribo_cslc::CLOSURE_STEPS);

/// A region whose spheres approach a target without touching it gets a point that carries no
/// force now but lets the host's step close at most the gap: its force is the anchor springs'
/// extrapolated to the gap, `f = K_a φ n < 0` (φ the smallest gap), so the row's velocity target
/// is `f / (K_a h) = φ / h` and the impulse stays 0 unless the surfaces would cross within the
/// step (a speculative contact, as `pgs` does for rigid contacts within its margin). Without it a
/// tipping foot or a closing finger would penetrate a whole step before the lattice reacts.
///
/// **Its spring.** The point sits at the nearest sphere and engages at its gap `g_0`; past it the
/// approaching spheres push back with `Σ K_a,i max(0, d − g_i)` as the surfaces close by `d`,
/// each sphere from its own gap on. A linear spring can follow that only over the closure it is
/// meant for, so `K_a` sums the anchors of the spheres that the coming steps may close after the
/// nearest one: those whose gap exceeds `g_0` by at most [`ANTICIPATED_STEPS`] steps at their
/// closing speed, `g_i − g_0 ≤ 3 max(0, −v_i · n) h` (the nearest always). The springs of all a region's spheres
/// at its nearest sphere would be a stiff prop where only one sphere is about to touch: a sole
/// rolling flat meets it at the first row of a quadrant and stays on that row (the 33 × 18 walker
/// sole of `BENCHMARKS.md`, "cslc: a patch's tilt damped; anticipated points that follow the
/// step"). Whether a region needs the point at all is decided on the bound of all its approaching
/// spheres ([`Near::bound`]), which any of them may reach.
fn anticipated(pad: &PadCoupling, link: LinkRef, near: &Near) -> Option<CompliantPoint> {
    let phi = near.phi?;
    let normal = near.normal.try_normalize(1e-300)?;
    let point = Vector3::from(near.point);
    if explicitly_stable(near.bound, (pad.reduced_mass)(link, &point, &normal), pad.dt) {
        return None;
    }
    (near.anchor > 0.0).then(|| CompliantPoint {
        a: link,
        b: pad.pad_link,
        point: near.point,
        normal,
        force: normal * (near.anchor * phi),
        normal_stiffness: near.anchor,
        tangential_stiffness: pad.tangential_ratio * near.anchor,
        damping: 0.0,
        friction: pad.friction,
    })
}

/// The compliant points of `patch`, appended to `points`, and its residual torques (in
/// `scratch`, whose lists the step reuses); `target_links[t]` is the link of target `t`. The
/// patch lists its touching and approaching spheres by lattice index (`tribo-cslc`
/// `PatchResult`); an index beyond the pad's lattice, cells or springs is left out.
pub fn couple<'s>(
    pad: &PadCoupling,
    patch: &PatchResult,
    target_links: &[LinkRef],
    points: &mut Vec<CompliantPoint>,
    scratch: &'s mut CouplingScratch,
) -> &'s ResidualTorques {
    let CouplingScratch {
        links,
        slots,
        approach,
        regions,
        torques: residual_torques,
    } = scratch;
    distinct_links_into(target_links, links);
    let links = &*links;
    // Each target's slot in `links`, found once rather than per sphere.
    slots.clear();
    slots.extend(target_links.iter().map(|l| links.binary_search(l).ok()));
    let slot_of = |t: usize| slots.get(t).copied().flatten();
    const CELLS: usize = BINS * BINS;
    // Region `cell` of link slot `s` at `s × CELLS + cell`.
    regions.clear();
    regions.resize_with(links.len() * CELLS, Region::default);
    let spheres = pad.lattice.spheres();
    // A sphere's lattice data, if it has them and lies in a region (`cell < CELLS`).
    let sphere_of = |i: usize| {
        let (sphere, cell, springs) = (spheres.get(i)?, *pad.cells.get(i)?, pad.springs.get(i)?);
        (cell < CELLS).then_some((sphere, cell, springs))
    };
    // Each field of a region sums its spheres in lattice order: the approaching spheres feed
    // `near`, the touching ones the rest.
    for s in &patch.approaching {
        let Some((_, cell, springs)) = sphere_of(s.index) else {
            continue;
        };
        let Some(Region { near, .. }) = slot_of(s.target).and_then(|slot| regions.get_mut(slot * CELLS + cell)) else {
            continue;
        };
        near.bound += springs.diagonal;
        if near.phi.is_none_or(|best| s.gap > best) {
            near.phi = Some(s.gap);
            near.point = s.center.coords;
            near.normal = s.normal;
        }
    }
    for s in &patch.touching {
        let Some((sphere, cell, springs)) = sphere_of(s.index) else {
            continue;
        };
        let Some(region) = slot_of(s.target).and_then(|slot| regions.get_mut(slot * CELLS + cell)) else {
            continue;
        };
        let (f, fn_i, m, q, phi, w) = (
            &s.force,
            s.normal_force,
            &s.normal,
            &s.center,
            s.penetration,
            s.deflection,
        );
        let anchor = springs.anchor;
        let hertz = if phi > 0.0 { 1.5 * fn_i / phi } else { 0.0 };
        region.force += f;
        region.normal += m * fn_i;
        region.weighted_point += q.coords * fn_i;
        region.normal_force += fn_i;
        let series = if hertz > 0.0 {
            anchor * hertz / (anchor + hertz)
        } else {
            0.0
        };
        region.normal_stiffness += series;
        region.tilt.add(series, &(q - pad.origin));
        let tangential = pad.tangential_ratio * anchor;
        region.tangential_stiffness += tangential;
        // Only a sticking sphere's spring resists the twist; a sliding one's friction is spent.
        if !s.sliding {
            region.twist.add(tangential, &(q - pad.origin));
        }
        region.area += sphere.area;
        region.weighted_friction += fn_i * s.friction_coefficient;
        region.energy += fn_i * (0.5 * w.max(0.0) + 0.4 * phi.max(0.0));
        region.moment += (q - pad.origin).cross(f);
        // The sphere's stiffness bound (`explicit_rotation.rs`): normal and tangential anchor,
        // lateral springs to fixed neighbours, (1 + ρ) K_a + 2 L = 2 (K_a + L) + (ρ − 1) K_a.
        let bound = 2.0 * springs.diagonal + (pad.tangential_ratio - 1.0) * anchor;
        region.turn.add(bound, &(q - pad.origin));
    }
    // The anticipated points' springs: the anchors of the spheres the coming steps may close
    // after the nearest one (`anticipated`), at the pad's motion relative to each target's link.
    let pad_motion = (pad.motion)(pad.pad_link);
    approach.clear();
    approach.extend(target_links.iter().map(|&l| pad_motion.relative_to(&(pad.motion)(l))));
    for s in &patch.approaching {
        let Some((_, cell, springs)) = sphere_of(s.index) else {
            continue;
        };
        let Some(region) = slot_of(s.target).and_then(|slot| regions.get_mut(slot * CELLS + cell)) else {
            continue;
        };
        // A loaded region's approaching spheres anticipate nothing: its point carries them.
        if carries_load(region) {
            continue;
        }
        let Some(nearest) = region.near.phi else { continue };
        let closing = approach
            .get(s.target)
            .map_or(0.0, |motion| (-motion.at(&s.center.coords).dot(&s.normal)).max(0.0));
        if nearest - s.gap <= ANTICIPATED_STEPS * closing * pad.dt {
            region.near.anchor += springs.anchor;
        }
    }
    residual_torques.clear();
    for (link, quadrants) in links.iter().zip(regions.chunks_exact(CELLS)) {
        let mut residual = Vector3::zeros();
        let (mut tilt_dashpot, mut twist_dashpot) = (Matrix3::zeros(), Matrix3::zeros());
        // The patch on this link: the mode the restitution damps (`restitution.rs`).
        let (mut regions_stiffness, mut force, mut energy) = (0.0, 0.0, 0.0);
        for r in quadrants.iter().filter(|r| carries_load(r)) {
            regions_stiffness += r.normal_stiffness;
            force += r.normal_force;
            energy += r.energy;
        }
        let patch_stiffness = equivalent_stiffness(force, energy);
        let merged = one_region(pad, *link, quadrants);
        let regions: &[Region] = match &merged {
            Some(whole) => std::slice::from_ref(whole),
            None => quadrants,
        };
        if merged.is_some() {
            // The approaching spheres of quadrants without load keep their anticipated points.
            for r in quadrants.iter().filter(|r| !carries_load(r)) {
                residual += r.moment;
                points.extend(anticipated(pad, *link, &r.near));
            }
        }
        for r in regions {
            if !carries_load(r) {
                residual += r.moment;
                points.extend(anticipated(pad, *link, &r.near));
                continue;
            }
            let Some(normal) = r.normal.try_normalize(1e-300) else {
                residual += r.moment;
                continue;
            };
            let point = r.weighted_point / r.normal_force;
            residual += r.moment - (point - pad.origin.coords).cross(&r.force);
            let split = normal_split(
                r.normal_stiffness,
                regions_stiffness,
                patch_stiffness,
                pad.damping_ratio,
                (pad.reduced_mass)(*link, &point, &normal),
                pad.dt,
            );
            points.push(CompliantPoint {
                a: *link,
                b: pad.pad_link,
                point,
                normal,
                force: r.force,
                normal_stiffness: split.implicit,
                tangential_stiffness: r.tangential_stiffness,
                damping: pad.damping * r.area + split.dashpot,
                friction: r.weighted_friction / r.normal_force,
            });
            // The host's dashpots on this point, normal and tangential: its implicit stiffness
            // on that axis times the step, the restitution's dashpot and the skin's.
            let viscous = split.dashpot + pad.damping * r.area;
            let lever = point - pad.origin.coords;
            tilt_dashpot += tilt_dashpot_of(r, &lever, &normal, split.implicit * pad.dt + viscous);
            twist_dashpot += twist_dashpot_of(r, &lever, &normal, r.tangential_stiffness * pad.dt + viscous);
        }
        // Each capped on its own: the tilt acts across the regions' normal, the twist along it,
        // so for regions of one normal (a pad on one link) their rates add on no axis.
        let dashpot = explicit_dashpot(pad, *link, tilt_dashpot) + explicit_dashpot(pad, *link, twist_dashpot);
        residual -= dashpot * relative_turn(pad, *link);
        residual_torques.push((*link, residual));
    }
    residual_torques
}

/// The rotational dashpot (N·m·s/rad) that damps the tilt of a loaded region about its host
/// point. The host damps the point's normal motion with `dashpot` (N·s/m), but the tilt about the
/// point is the residual torque's, explicit and undamped (a patch handed over as one point, or a
/// quadrant about its own point). Spread over the region's spheres in proportion to their normal
/// stiffness `k_i` — as the quadrant points share the patch's dashpot (`restitution.rs`) — the
/// dashpot resists a rotation `ω` with `−(c/k) K ω`, `K = Σ k_i a_i a_iᵀ` the region's tilt
/// stiffness about its point ([`TiltMoments`]) and `c/k` the dashpot per stiffness: a tilt of the
/// patch (a rotation about a tangent axis) meets the damping its spheres' share of the dashpot
/// gives it. A twist about the normal is [`twist_dashpot_of`]'s.
fn tilt_dashpot_of(region: &Region, point: &Vector3<f64>, normal: &Vector3<f64>, dashpot: f64) -> Matrix3<f64> {
    let per_stiffness = dashpot / region.normal_stiffness;
    if per_stiffness > 0.0 && per_stiffness.is_finite() {
        region.tilt.about(point, normal) * per_stiffness
    } else {
        Matrix3::zeros()
    }
}

/// The rotational dashpot (N·m·s/rad) that damps the twist of a loaded region about the normal
/// `n` through its host point: the twist its sticking spheres' tangential (stick) springs resist,
/// which the residual torque carries explicitly, as it does the tilt. The host damps the point's
/// tangential motion with `dashpot` (N·s/m); spread over the sticking spheres in proportion to
/// their tangential stiffness `k_t,i` — a skin with one dashpot per stiffness everywhere, whose
/// damping ratio grows with a mode's frequency, `ζ = β ω / 2` for `c = β k` (stiffness-
/// proportional Rayleigh damping; Chopra, *Dynamics of Structures*, 4th ed., 2012, §11.4) — a
/// twist rate `ω·n` meets `−(c_t/k_t) k_tw (n·ω) n`, with `k_tw = Σ k_t,i |(r_i − p) × n|²` the
/// region's twist stiffness about its point (the trace of its tangential [`TiltMoments`] about
/// `p` and `n`) and `c_t/k_t` the point's dashpot per tangential stiffness. A sliding sphere adds
/// nothing: its friction is at its limit and its spring does not act, so a patch that slides
/// whole twists against friction alone.
fn twist_dashpot_of(region: &Region, point: &Vector3<f64>, normal: &Vector3<f64>, dashpot: f64) -> Matrix3<f64> {
    let per_stiffness = dashpot / region.tangential_stiffness;
    if per_stiffness > 0.0 && per_stiffness.is_finite() {
        let twist_stiffness = region.twist.about(point, normal).trace();
        normal * normal.transpose() * (twist_stiffness * per_stiffness)
    } else {
        Matrix3::zeros()
    }
}

/// A tilt or twist dashpot of a touched link's regions as the host applies it: explicitly,
/// through the residual torque, so its rate `‖D‖ (1/I_pad + 1/I_touched)` is kept within `1/h` (the norm
/// bounded by the trace of the positive semi-definite `D`, the inertias by
/// `explicit_rotation.rs`'s bounds): an explicit dashpot below that rate neither overshoots nor
/// destabilises the rotation it damps (`ω⁺ = (1 − rate) ω`).
fn explicit_dashpot(pad: &PadCoupling, link: LinkRef, dashpot: Matrix3<f64>) -> Matrix3<f64> {
    let inverse_inertia = pad.turn_bounds.of(link) + pad.turn_bounds.of(pad.pad_link);
    let rate = dashpot.trace() * inverse_inertia * pad.dt;
    if !rate.is_finite() {
        Matrix3::zeros()
    } else if rate > 1.0 {
        dashpot / rate
    } else {
        dashpot
    }
}

/// The pad link's angular velocity relative to `link`'s, world, rad/s.
fn relative_turn(pad: &PadCoupling, link: LinkRef) -> Vector3<f64> {
    (pad.motion)(pad.pad_link).angular - (pad.motion)(link).angular
}

/// A region that becomes a loaded host point.
fn carries_load(r: &Region) -> bool {
    r.normal_force > 0.0 && r.normal_stiffness > 0.0
}

/// The loaded quadrants of one touched link as one region, when the patch's rotational mode may
/// act explicitly (`explicit_rotation.rs`); `None` when the four quadrant points are needed (or
/// fewer than two quadrants carry load, where there is nothing to merge).
fn one_region(pad: &PadCoupling, link: LinkRef, quadrants: &[Region]) -> Option<Region> {
    let loaded = || quadrants.iter().filter(|r| carries_load(r));
    if loaded().count() < 2 {
        return None;
    }
    let mut whole = Region::default();
    for r in loaded() {
        whole.force += r.force;
        whole.normal += r.normal;
        whole.weighted_point += r.weighted_point;
        whole.normal_force += r.normal_force;
        whole.normal_stiffness += r.normal_stiffness;
        whole.tangential_stiffness += r.tangential_stiffness;
        whole.area += r.area;
        whole.weighted_friction += r.weighted_friction;
        whole.energy += r.energy;
        whole.moment += r.moment;
        whole.tilt.merge(&r.tilt);
        whole.twist.merge(&r.twist);
    }
    let center = whole.weighted_point / whole.normal_force - pad.origin.coords;
    let stiffness: f64 = loaded().map(|r| r.turn.about(&center)).sum();
    let inverse_inertia = pad.turn_bounds.of(link) + pad.turn_bounds.of(pad.pad_link);
    one_point_suffices(stiffness, inverse_inertia, pad.dt).then_some(whole)
}

#[cfg(test)]
mod tests {
    use nalgebra::{Point3, Vector3};
    use tribo_cslc::PadGeometry;
    use tribo_engine::LinkRef;

    use super::{
        couple, explicit_dashpot, one_region, sphere_cells, sphere_springs, tilt_dashpot_of, twist_dashpot_of,
        CouplingScratch, PadCoupling, Region, RigidMotion,
    };
    use crate::explicit_rotation::TurnBounds;

    /// A link that cannot move (1/m = 0, 1/I = 0 at every point).
    fn no_mass(_: LinkRef, _: &Vector3<f64>, _: &Vector3<f64>) -> f64 {
        f64::INFINITY
    }

    /// Every link at rest.
    fn at_rest(_: LinkRef) -> RigidMotion {
        RigidMotion::default()
    }

    /// A pad with `lattice` on the immovable ground (link 0 of body 0) of `box_above_ground`, the
    /// bodies at rest, at the step `dt`.
    fn ground_pad<'a>(lattice: &'a Lattice, bounds: &'a TurnBounds, dt: f64) -> PadCoupling<'a> {
        PadCoupling {
            pad_link: LinkRef { body: 0, link: 0 },
            lattice,
            cells: &[],
            springs: &[],
            tangential_ratio: 0.5,
            damping: 0.0,
            friction: 0.5,
            origin: Point3::origin(),
            damping_ratio: 1.0,
            dt,
            reduced_mass: &no_mass,
            turn_bounds: bounds,
            motion: &at_rest,
        }
    }
    use tribo_cslc::{ApproachingSphere, Lattice, PatchResult};

    /// Four loaded quadrants, each with a stiffness bound of 1000 N/m at 2 mm from the patch
    /// centre, between an immovable link (the ground of `box_above_ground`: 1/I = 0) and a free
    /// box (1/I = 1/λ_min of its inertia): k_rot ≤ 4 · 1000 · (2 mm)² = 0.016 N·m/rad and
    /// ω = √(k_rot / I). Just below ωh = 0.2 they become one region carrying the quadrants' sums,
    /// at its centre; just above, they stay four; a single loaded quadrant has nothing to merge.
    #[test]
    fn loaded_quadrants_merge_only_while_the_rotational_mode_is_slow() {
        let scene = tribo_testkit::box_above_ground(0.0, 0.5);
        let lattice = PadGeometry::flat(4, 4, 0.002).build().expect("a lattice");
        let bounds = TurnBounds::new(&scene);
        let (ground, object) = (LinkRef { body: 0, link: 0 }, LinkRef { body: 1, link: 0 });
        let pad = |dt: f64| ground_pad(&lattice, &bounds, dt);
        let arm = 0.002 / 2f64.sqrt();
        let quadrants: Vec<Region> = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .iter()
            .map(|&(x, y)| {
                let r = Vector3::new(x, y, 0.0) * arm;
                let mut region = Region {
                    force: Vector3::new(0.0, 0.1, 0.25),
                    normal: Vector3::z() * 0.25,
                    weighted_point: r * 0.25,
                    normal_force: 0.25,
                    normal_stiffness: 500.0,
                    tangential_stiffness: 250.0,
                    area: 4e-6,
                    weighted_friction: 0.125,
                    ..Region::default()
                };
                region.turn.add(1000.0, &r);
                region
            })
            .collect();
        let inverse_inertia = bounds.of(object);
        assert!(inverse_inertia > 0.0 && inverse_inertia.is_finite());
        assert_eq!(bounds.of(ground), 0.0);
        let k_rot = 4.0 * 1000.0 * 0.002 * 0.002;
        let omega = (k_rot * inverse_inertia).sqrt();
        let merged = one_region(&pad(0.199 / omega), object, &quadrants).expect("one region at ωh = 0.199");
        assert!((merged.normal_force - 1.0).abs() < 1e-15);
        assert!((merged.normal_stiffness - 2000.0).abs() < 1e-12);
        assert!((merged.tangential_stiffness - 1000.0).abs() < 1e-12);
        assert!((merged.force - Vector3::new(0.0, 0.4, 1.0)).norm() < 1e-15);
        assert!((merged.weighted_point / merged.normal_force).norm() < 1e-15);
        assert!(one_region(&pad(0.201 / omega), object, &quadrants).is_none());
        assert!(one_region(&pad(1e-9), object, &quadrants[..1]).is_none());
    }

    /// Two spheres of normal stiffness 1000 N/m at x = ±1 cm (and one of 500 N/m at the centre) on
    /// a floor (normal +z): a tilt about y moves them by ∓1 cm per radian, so their tilt stiffness
    /// about the centre is 2 · 1000 · (1 cm)² = 0.2 N·m/rad about y and nothing about x or z; a
    /// dashpot of 3 N·s/m on the region's 2500 N/m gives 0.2 · 3/2500 N·m·s/rad. About a point
    /// 1 cm along x, the parallel-axis theorem adds 2500 · (1 cm)² (the stiffness-weighted
    /// centre is at the origin). Applied explicitly, its rate is capped at 1/h.
    #[test]
    fn a_region_tilt_is_damped_by_its_share_of_the_dashpot() {
        let mut region = Region {
            normal_stiffness: 2500.0,
            normal_force: 1.0,
            ..Region::default()
        };
        region.tilt.add(1000.0, &Vector3::new(0.01, 0.0, 0.0));
        region.tilt.add(1000.0, &Vector3::new(-0.01, 0.0, 0.0));
        region.tilt.add(500.0, &Vector3::zeros());
        let z = Vector3::z();
        let d = tilt_dashpot_of(&region, &Vector3::zeros(), &z, 3.0);
        let expected = 0.2 * 3.0 / 2500.0;
        assert!((d[(1, 1)] - expected).abs() < 1e-15, "{d}");
        assert!(
            d[(0, 0)].abs() < 1e-18 && d[(2, 2)].abs() < 1e-18 && d[(0, 1)].abs() < 1e-18,
            "{d}"
        );
        let off = tilt_dashpot_of(&region, &Vector3::new(0.01, 0.0, 0.0), &z, 3.0);
        assert!(
            (off[(1, 1)] - (0.2 + 2500.0 * 1e-4) * 3.0 / 2500.0).abs() < 1e-15,
            "{off}"
        );
        assert_eq!(
            tilt_dashpot_of(&region, &Vector3::zeros(), &z, 0.0),
            nalgebra::Matrix3::zeros()
        );

        // The rate cap: a free box against the immovable ground (1/I the box's bound).
        let scene = tribo_testkit::box_above_ground(0.0, 0.5);
        let bounds = TurnBounds::new(&scene);
        let lattice = PadGeometry::flat(2, 2, 0.01).build().expect("a lattice");
        let object = LinkRef { body: 1, link: 0 };
        let pad = |dt: f64| ground_pad(&lattice, &bounds, dt);
        let rate_step = 1.0 / (d.trace() * bounds.of(object));
        assert_eq!(explicit_dashpot(&pad(0.5 * rate_step), object, d), d);
        let capped = explicit_dashpot(&pad(4.0 * rate_step), object, d);
        assert!((capped.trace() * bounds.of(object) * 4.0 * rate_step - 1.0).abs() < 1e-12);
    }

    /// Two spheres of tangential stiffness 1000 N/m at x = ±1 cm and one of 500 N/m 1 cm above
    /// the centre, on a floor (normal +z): a twist about z moves the first two by 1 cm per radian
    /// across their levers and the third not at all, so the twist stiffness about the centre is
    /// 2 · 1000 · (1 cm)² = 0.2 N·m/rad, about z only; a tangential dashpot of 3 N·s/m on the
    /// region's 2500 N/m gives 0.2 · 3/2500 N·m·s/rad. About a point 1 cm along y the lever of
    /// every sphere grows (parallel axes: + 2500 · (1 cm)²); along the normal it does not.
    #[test]
    fn a_region_twist_is_damped_by_its_share_of_the_tangential_dashpot() {
        let mut region = Region {
            tangential_stiffness: 2500.0,
            normal_stiffness: 1.0,
            normal_force: 1.0,
            ..Region::default()
        };
        region.twist.add(1000.0, &Vector3::new(0.01, 0.0, 0.0));
        region.twist.add(1000.0, &Vector3::new(-0.01, 0.0, 0.0));
        region.twist.add(500.0, &Vector3::new(0.0, 0.0, 0.01));
        let z = Vector3::z();
        let per_stiffness = 3.0 / 2500.0;
        let d = twist_dashpot_of(&region, &Vector3::zeros(), &z, 3.0);
        let mut expected = nalgebra::Matrix3::zeros();
        expected[(2, 2)] = 0.2 * per_stiffness;
        assert!((d - expected).abs().max() < 1e-18, "{d}");
        let across = twist_dashpot_of(&region, &Vector3::new(0.0, 0.01, 0.0), &z, 3.0);
        expected[(2, 2)] = (0.2 + 2500.0 * 1e-4) * per_stiffness;
        assert!((across - expected).abs().max() < 1e-18, "{across}");
        let along = twist_dashpot_of(&region, &Vector3::new(0.0, 0.0, 0.01), &z, 3.0);
        expected[(2, 2)] = 0.2 * per_stiffness;
        assert!((along - expected).abs().max() < 1e-18, "{along}");
        // No tangential dashpot, or no tangential stiffness: nothing.
        assert_eq!(
            twist_dashpot_of(&region, &Vector3::zeros(), &z, 0.0),
            nalgebra::Matrix3::zeros()
        );
        region.tangential_stiffness = 0.0;
        assert_eq!(
            twist_dashpot_of(&region, &Vector3::zeros(), &z, 3.0),
            nalgebra::Matrix3::zeros()
        );
    }

    /// Three spheres of one quadrant approach the floor, 0.1, 0.25 and 1 mm away, the pad closing
    /// at `v`: the anticipated point engages at the nearest gap with the anchors of the spheres
    /// whose gap exceeds it by at most `3 v h` (h = 2 ms): one sphere at rest, two at 0.1 m/s (a
    /// window of 0.6 mm), all three at 1 m/s; a receding pad counts the nearest alone.
    #[test]
    fn an_anticipated_point_springs_with_the_spheres_the_step_may_close() {
        let scene = tribo_testkit::box_above_ground(0.0, 0.5);
        let bounds = TurnBounds::new(&scene);
        let lattice = PadGeometry::flat(4, 4, 0.01).build().expect("a lattice");
        let cells = sphere_cells(&lattice);
        let springs = sphere_springs(&lattice, 1.0e11, 0.0);
        let quadrant: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] == cells[0]).collect();
        assert_eq!(quadrant.len(), 4);
        let (floor, pad_link) = (LinkRef { body: 0, link: 0 }, LinkRef { body: 1, link: 0 });
        let one_kilogram = |_: LinkRef, _: &Vector3<f64>, _: &Vector3<f64>| 1.0;
        let gaps = [-1.0e-4, -2.5e-4, -1.0e-3];
        let patch = PatchResult {
            total_force: Vector3::zeros(),
            total_torque: Vector3::zeros(),
            pad_wrench: Default::default(),
            target_wrenches: vec![Default::default()],
            center_of_pressure: None,
            patch_normal: Vector3::zeros(),
            friction_moment: 0.0,
            contact_area: 0.0,
            touching: Vec::new(),
            approaching: quadrant
                .iter()
                .zip(gaps)
                .map(|(&index, gap)| ApproachingSphere {
                    index,
                    target: 0,
                    gap,
                    normal: Vector3::z(),
                    center: lattice.spheres()[index].rest_position,
                })
                .collect(),
            iterations: 0,
            residual: 0.0,
            converged: true,
            fast_impact: false,
            warning: None,
        };
        let anchor = springs[quadrant[0]].anchor;
        for (speed, engaged) in [(0.0, 1.0), (0.1, 2.0), (1.0, 3.0), (-1.0, 1.0)] {
            let motion = move |link: LinkRef| RigidMotion {
                linear: if link == pad_link {
                    Vector3::new(0.0, 0.0, -speed)
                } else {
                    Vector3::zeros()
                },
                angular: Vector3::zeros(),
            };
            let pad = PadCoupling {
                pad_link,
                lattice: &lattice,
                cells: &cells,
                springs: &springs,
                tangential_ratio: 0.5,
                damping: 0.0,
                friction: 0.5,
                origin: Point3::origin(),
                damping_ratio: 1.0,
                dt: 2e-3,
                reduced_mass: &one_kilogram,
                turn_bounds: &bounds,
                motion: &motion,
            };
            let mut points = Vec::new();
            couple(&pad, &patch, &[floor], &mut points, &mut CouplingScratch::default());
            assert_eq!(points.len(), 1, "at {speed} m/s: {points:?}");
            let point = &points[0];
            assert_eq!(point.normal_stiffness, engaged * anchor, "at {speed} m/s");
            assert_eq!(point.point, lattice.spheres()[quadrant[0]].rest_position.coords);
            assert!(
                (point.force.z - engaged * anchor * gaps[0]).abs() < 1e-9,
                "at {speed} m/s"
            );
        }
    }
}
