//! Which targets each sphere must query at the start of a step (`docs/design/lattice-model.md`
//! §4, "Reach").
//!
//! A sphere linearises the deepest target within `r_i + REACH_RADII · r_i` of its centre
//! (`solver.rs`, `nearest_surface`); a target farther away gives it no surface, whichever other
//! targets there are. The spheres are grouped into clusters of nearby rest positions
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
    pub fn candidates(&self, frames: &[TargetFrame], spread: f64, reach_radii: f64) -> Vec<u64> {
        let mut masks = Vec::with_capacity(self.clusters.len());
        self.candidates_into(frames, spread, reach_radii, &mut masks);
        masks
    }

    /// Per cluster, the targets (bit `t` for target `t < 64`) its spheres must query this step,
    /// with the spheres displaced by at most `spread` from rest, into `masks` (cleared first, its
    /// storage reused); `reach_radii` is the reach beyond a sphere's radius, in radii.
    pub fn candidates_into(&self, frames: &[TargetFrame], spread: f64, reach_radii: f64, masks: &mut Vec<u64>) {
        masks.clear();
        masks.extend(self.clusters.iter().map(|c| {
            let radius = c.rest_radius + spread;
            let reach = (1.0 + reach_radii) * c.sphere_radius;
            let mut mask = ALL_TARGETS;
            for (t, frame) in frames.iter().enumerate().take(64) {
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

    const REACH_RADII: f64 = 2.0;

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
                let candidates = clusters.candidates(&frames, spread, REACH_RADII);
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
                        assert!(
                            penetration <= -REACH_RADII * s.radius,
                            "target {t} skipped at sphere {i} within reach ({penetration})"
                        );
                    }
                }
            }
        }
        assert!(skipped > 10_000 && kept > 10_000, "skipped {skipped}, kept {kept}");
    }
}
