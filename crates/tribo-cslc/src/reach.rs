//! Which targets each sphere must query at the start of a step, and how far a step reaches
//! (`docs/design/lattice-model.md` §4, "Reach").
//!
//! **How far.** A sphere linearises the deepest target within `r_i + ρ_t r_i` of its centre
//! (`solver.rs`, `nearest_surface`), `ρ_t` the step's reach for target `t` in radii
//! ([`reach_radii_into`]); a target farther away gives it no surface, whichever other targets
//! there are. The reach covers what can close within the coming steps: [`CLOSURE_STEPS`] steps
//! of the target's speed relative to the pad, at least [`MIN_REACH_RADII`] and at most
//! [`FULL_REACH_RADII`] radii. The spheres a patch lists as approaching are those within it, so
//! a host that anticipates contacts from them (`tribo-cslc-engine`'s coupling, over at most
//! [`CLOSURE_STEPS`] steps) sees every sphere it may close. Within the step itself only the
//! solve moves a sphere (the targets stand at their end-of-step poses), and a target's distance
//! changes by at most the sphere's own displacement: a step whose solve moves a sphere by its
//! narrowest reach or more is solved again at the full reach (`CslcPad::step`), so the narrower
//! reach never leaves out a contact that the full one would find.
//!
//! **Which targets.** The spheres are grouped into clusters of nearby rest positions
//! (cubes of [`CLUSTER_CELLS`] lattice spacings). A cluster is contained in the ball of centre
//! `c` (its rest centroid) and radius `R = max_i |p_i − c| + max_i |δ_i|`; for a target whose signed
//! distance `d` is exact (1-Lipschitz, [`Shape::exact_convex_distance`](crate::Shape::exact_convex_distance)),
//! every sphere centre `q` of the cluster has `d(q) ≥ d(c) − R`. When that bound exceeds the reach
//! of the cluster's largest sphere, no sphere of the cluster needs to query the target: its
//! deepest target and its surface are the same without it, so skipping it changes no bit of the
//! result. A margin far above the rounding of the two distance evaluations keeps the test
//! conservative.

use std::collections::BTreeMap;

use nalgebra::{Point3, Vector3};

use crate::frames::TargetFrame;
use crate::geometry::Lattice;

/// Edge of a cluster cell, in lattice spacings: 4 × 4 spheres on a flat grid.
const CLUSTER_CELLS: f64 = 4.0;

/// Relative margin of the reach test, per metre of the lengths involved (coordinates, distance,
/// cluster radius): f64 rounding of a distance evaluation is a few 1e-16 of them.
const MARGIN: f64 = 1e-9;

/// The widest reach of a step, in radii beyond a sphere's own radius: a sphere farther from
/// every target touches none within the step unless the solve moves its skin by more than a
/// radius — beyond the fast-impact limit of half a radius (`CslcParams::impact_fraction`).
pub(crate) const FULL_REACH_RADII: f64 = 1.0;

/// The narrowest reach of a step, in radii: a step whose solve moves a sphere by this much or
/// more is solved again at the full reach (module docs). A quarter radius is far above the
/// field's change in a step of the samples (micrometres on millimetre spheres; no step of the
/// walker, gentle-grasp or book-rotation is solved twice) and, for a sphere of 1 mm, a closure
/// of 0.25 mm — a finger closing at 6 cm/s for [`CLOSURE_STEPS`] steps of 1 ms.
pub(crate) const MIN_REACH_RADII: f64 = 0.25;

/// Steps of closure at a target's present speed relative to the pad that a step's reach covers
/// (`reach_radii_into`): at least the steps over which a host anticipates contacts from the
/// approaching spheres (`tribo-cslc-engine`'s `ANTICIPATED_STEPS`, 3), with one to spare for a
/// closure that speeds up.
pub const CLOSURE_STEPS: f64 = 4.0;

/// Each target's reach this step, in radii beyond a sphere's own radius, into `out` (cleared
/// first): `speeds[t]` bounds target `t`'s speed relative to every point of the pad the step
/// queries (`None` for a target without a rigid motion), `dt` is the step and `smallest_radius`
/// the pad's smallest sphere radius, so that for every sphere `ρ_t r_i ≥ CLOSURE_STEPS · v_t · dt`.
/// The reach is `CLOSURE_STEPS v_t dt / r_min` within `[MIN_REACH_RADII, FULL_REACH_RADII]`; the
/// full reach where the speed is unknown or the ratio is not a number.
pub(crate) fn reach_radii_into(
    speeds: impl Iterator<Item = Option<f64>>,
    dt: f64,
    smallest_radius: f64,
    out: &mut Vec<f64>,
) {
    out.clear();
    out.extend(speeds.map(|speed| {
        let radii = speed.map_or(f64::NAN, |v| CLOSURE_STEPS * v * dt / smallest_radius);
        if radii.is_nan() {
            FULL_REACH_RADII
        } else {
            radii.clamp(MIN_REACH_RADII, FULL_REACH_RADII)
        }
    }));
}

/// Every target is queried (targets from index 64 on always are).
pub(crate) const ALL_TARGETS: u64 = u64::MAX;

/// A group of nearby spheres.
#[derive(Debug, Clone)]
struct Cluster {
    /// Rest centroid `c`, pad frame.
    center: Point3<f64>,
    /// `max_i |p_i − c|` over its spheres at rest, m.
    rest_radius: f64,
    /// Largest sphere radius `r_i` of the cluster, m.
    sphere_radius: f64,
}

/// The spheres of a lattice grouped into clusters.
#[derive(Debug, Clone)]
pub(crate) struct Clusters {
    clusters: Vec<Cluster>,
    /// Cluster of each sphere.
    of_sphere: Vec<usize>,
}

impl Clusters {
    /// Clusters of `CLUSTER_CELLS` spacings; one cluster if the spacing is not a positive length.
    pub fn new(lattice: &Lattice) -> Clusters {
        let cell = CLUSTER_CELLS * lattice.spacing();
        let key = |p: &Point3<f64>| {
            if cell.is_finite() && cell > 0.0 {
                [p.x, p.y, p.z].map(|v| (v / cell).floor() as i64)
            } else {
                [0i64; 3]
            }
        };
        let mut groups: BTreeMap<[i64; 3], Vec<usize>> = BTreeMap::new();
        for (i, s) in lattice.spheres().iter().enumerate() {
            groups.entry(key(&s.rest_position)).or_default().push(i);
        }
        let mut clusters = Vec::with_capacity(groups.len());
        let mut of_sphere = vec![0; lattice.len()];
        for members in groups.values() {
            let spheres = || members.iter().filter_map(|&i| lattice.spheres().get(i));
            let sum: Vector3<f64> = spheres().map(|s| s.rest_position.coords).sum();
            let center = Point3::from(sum / members.len().max(1) as f64);
            let rest_radius = spheres().map(|s| (s.rest_position - center).norm()).fold(0.0, f64::max);
            let sphere_radius = spheres().map(|s| s.radius).fold(0.0, f64::max);
            for &i in members {
                if let Some(slot) = of_sphere.get_mut(i) {
                    *slot = clusters.len();
                }
            }
            clusters.push(Cluster {
                center,
                rest_radius,
                sphere_radius,
            });
        }
        Clusters { clusters, of_sphere }
    }

    /// [`Self::candidates_into`] into a new list.
    #[cfg(test)]
    pub fn candidates(&self, frames: &[TargetFrame], spread: f64, reach_radii: &[f64]) -> Vec<u64> {
        let mut masks = Vec::with_capacity(self.clusters.len());
        self.candidates_into(frames, spread, reach_radii, &mut masks);
        masks
    }

    /// Per cluster, the targets (bit `t` for target `t < 64`) its spheres must query this step,
    /// with the spheres displaced by at most `spread` from rest, into `masks` (cleared first, its
    /// storage reused); `reach_radii[t]` is target `t`'s reach beyond a sphere's radius, in radii
    /// (the full reach for a target it does not list).
    pub fn candidates_into(&self, frames: &[TargetFrame], spread: f64, reach_radii: &[f64], masks: &mut Vec<u64>) {
        masks.clear();
        masks.extend(self.clusters.iter().map(|c| {
            let radius = c.rest_radius + spread;
            let mut mask = ALL_TARGETS;
            for (t, frame) in frames.iter().enumerate().take(64) {
                let reach = (1.0 + reach_radii.get(t).copied().unwrap_or(FULL_REACH_RADII)) * c.sphere_radius;
                let Some((distance, scale)) = frame.exact_distance(&c.center) else {
                    continue;
                };
                let margin = MARGIN * (1.0 + scale + c.center.coords.norm() + distance.abs() + radius);
                if distance - radius - margin > reach {
                    mask &= !(1u64 << t);
                }
            }
            mask
        }));
    }

    /// The targets sphere `i` must query, from the clusters' masks ([`Self::candidates_into`]).
    pub fn mask_of(&self, i: usize, candidates: &[u64]) -> u64 {
        self.of_sphere
            .get(i)
            .and_then(|&c| candidates.get(c))
            .copied()
            .unwrap_or(ALL_TARGETS)
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Isometry3, Translation3, UnitQuaternion};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::frames::target_frames;
    use crate::geometry::PadGeometry;
    use crate::target::{Capsule, Cone, Cuboid, Cylinder, Plane, Posed, Shape, Sphere, Target};

    /// Each target's reach in the test, in radii: wider and narrower than a step's, one target
    /// (the last) left out of the list, so that it takes the full reach.
    const REACH_RADII: [f64; 6] = [2.0, 0.25, 1.0, 0.5, 2.0, 0.25];

    /// A ball whose distance is only a bound (half the true one outside): never skipped.
    struct Approximate;

    impl Shape for Approximate {
        fn local_distance(&self, p: &Point3<f64>) -> f64 {
            0.5 * (p.coords.norm() - 0.01)
        }
        fn local_normal(&self, p: &Point3<f64>) -> Vector3<f64> {
            p.coords.normalize()
        }
    }

    fn random_pose(rng: &mut ChaCha8Rng, extent: f64) -> Isometry3<f64> {
        let mut v = || rng.random_range(-extent..extent);
        Isometry3::from_parts(
            Translation3::new(v(), v(), v()),
            UnitQuaternion::from_euler_angles(v() * 30.0, v() * 30.0, v() * 30.0),
        )
    }

    /// Every (sphere, target) pair the clusters leave out is beyond the sphere's reach at any
    /// displacement within the spread, so its nearest surface is the same without the target.
    #[test]
    fn skipped_targets_are_out_of_every_spheres_reach() {
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        let (mut skipped, mut kept) = (0usize, 0usize);
        for geometry in [PadGeometry::flat(22, 12, 0.01), PadGeometry::dome(0.015, 0.7, 12)] {
            let lattice = geometry.build().expect("valid pad");
            let clusters = Clusters::new(&lattice);
            for _ in 0..40 {
                let pad_pose = random_pose(&mut rng, 0.1);
                let poses: Vec<Isometry3<f64>> = (0..7).map(|_| pad_pose * random_pose(&mut rng, 0.15)).collect();
                let plane = Posed::new(Plane, poses[0]);
                let cuboid = Posed::new(
                    Cuboid {
                        half_extents: Vector3::new(0.03, 0.02, 0.05),
                    },
                    poses[1],
                );
                let sphere = Posed::new(Sphere { radius: 0.02 }, poses[2]);
                let cylinder = Posed::new(
                    Cylinder {
                        radius: 0.02,
                        height: 0.06,
                    },
                    poses[3],
                );
                let cone = Posed::new(
                    Cone {
                        radius: 0.03,
                        height: 0.05,
                    },
                    poses[4],
                );
                let capsule = Posed::new(
                    Capsule {
                        radius: 0.01,
                        length: 0.04,
                    },
                    poses[5],
                );
                let approximate = Posed::new(Approximate, poses[6]);
                let targets: [&dyn Target; 7] = [&plane, &cuboid, &sphere, &cylinder, &cone, &capsule, &approximate];
                let frames = target_frames(&targets, &pad_pose);
                let spread = rng.random_range(0.0..0.005);
                let candidates = clusters.candidates(&frames, spread, &REACH_RADII);
                for (i, s) in lattice.spheres().iter().enumerate() {
                    let direction = Vector3::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    );
                    let delta = direction.try_normalize(1e-12).unwrap_or_default() * spread;
                    let q = s.rest_position + delta;
                    let mask = clusters.mask_of(i, &candidates);
                    for (t, frame) in frames.iter().enumerate() {
                        if mask & (1u64 << t) != 0 {
                            kept += 1;
                            continue;
                        }
                        skipped += 1;
                        assert_ne!(t, 6, "a target with an approximate distance was skipped");
                        let penetration = s.radius - frame.distance_and_normal(&q).0;
                        let reach = REACH_RADII.get(t).copied().unwrap_or(FULL_REACH_RADII);
                        assert!(
                            penetration <= -reach * s.radius,
                            "target {t} skipped at sphere {i} within reach ({penetration})"
                        );
                    }
                }
            }
        }
        assert!(skipped > 10_000 && kept > 10_000, "skipped {skipped}, kept {kept}");
    }

    /// A step's reach covers `CLOSURE_STEPS` steps of each target's speed, within the narrowest
    /// and the full reach; a target without a rigid motion, or a speed that is not a number,
    /// takes the full reach.
    #[test]
    fn the_reach_covers_the_closure_of_the_coming_steps() {
        let (dt, radius) = (1e-3, 1e-3);
        let speeds = [
            Some(0.0),
            Some(0.01),
            Some(0.1),
            Some(10.0),
            None,
            Some(f64::NAN),
            Some(f64::INFINITY),
        ];
        let mut reach = Vec::new();
        reach_radii_into(speeds.into_iter(), dt, radius, &mut reach);
        // 4 steps at 0.1 m/s close 0.4 mm: 0.4 radii.
        let expected = [
            MIN_REACH_RADII,
            MIN_REACH_RADII,
            0.4,
            FULL_REACH_RADII,
            FULL_REACH_RADII,
            FULL_REACH_RADII,
            FULL_REACH_RADII,
        ];
        assert_eq!(reach.len(), expected.len());
        for (t, (got, want)) in reach.iter().zip(expected).enumerate() {
            assert!((got - want).abs() <= 1e-12, "target {t}: {got} against {want}");
        }
        // Every sphere's reach covers the closure: ρ r_i ≥ CLOSURE_STEPS v dt for r_i ≥ r_min.
        assert!(reach[2] * radius >= CLOSURE_STEPS * 0.1 * dt * (1.0 - 1e-12));
        // A pad of no radius (no sphere) reaches fully rather than dividing by zero.
        reach_radii_into([Some(0.0)].into_iter(), dt, 0.0, &mut reach);
        assert_eq!(reach, [FULL_REACH_RADII]);
    }
}
