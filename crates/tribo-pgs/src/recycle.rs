//! Contact recycling: a candidate shape pair whose relative pose moved less than the recycling
//! distance since its last full narrow-phase query reuses that query's contact points instead of
//! querying again (`contact_recycling_distance`, crate docs *Options*; rapier recycles contact
//! pairs the same way, with a far coarser default of 5 cm).
//!
//! **What is kept**: for each candidate pair, the relative pose `X₁₂ = X₁⁻¹ X₂` of the second shape
//! in the first one's frame at the full query (the *reference*), and every manifold point of that
//! query as parry gave it: the normal `n₁` in shape 1's frame and the two surface points `p₁`,
//! `p₂` in their own shapes' frames.
//!
//! **When it is reused**: the contact points of a pair depend on `X₁₂` alone. A point `x` of shape
//! 2 lies at `R x + t` in shape 1's frame; against the reference `(R₀, t₀)` it has moved by
//! `|R x + t − R₀ x − t₀| ≤ |t − t₀| + |R₀ᵀR x − x| = |t − t₀| + 2 |x| sin(θ/2)`, θ the angle of
//! `R₀ᵀR`, whose unit quaternion has the vector part of length `sin(θ/2)`. With `|x| ≤ ρ₂`, the
//! radius about shape 2's origin that contains it ([`reach`]), no point of shape 2 has moved
//! more than the *drift* `|t − t₀| + 2 ρ₂ sin(θ/2)` relative to shape 1. While the drift stays
//! within the recycling distance ε, the kept points are reused: their world positions and
//! normal follow the two shapes' current poses, and the separation is recomputed,
//! `d = (X₁₂ p₂ − p₁)·n₁`, so a resting contact's depth tracks the bodies exactly; a point whose
//! separation now exceeds the contact margin is dropped, as the full query drops it. What is
//! stale is bounded by ε: the surface points may sit up to ε from where a fresh query would put
//! them, and a point that a fresh query would newly find within the margin is found once the
//! drift passes ε, at a separation of at least `margin − ε`. At the default ε = 1e-5 m (a tenth
//! of the default contact slop, a hundredth of the contact margin), bodies at rest or creeping
//! reuse their points, and anything moving faster than ε per step is queried every step.
//!
//! Only pairs of plain shapes are kept: a manifold between composite shapes (meshes, compounds)
//! carries subshape poses and is queried every step.

use std::ops::Range;

use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::query::ContactManifold;
use parry3d_f64::shape::Shape;

/// A candidate pair: (body, collider) of its first shape, then of its second.
pub(crate) type PairKey = (usize, usize, usize, usize);

/// One kept manifold point (module docs), in the shapes' own frames.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeptPoint {
    pub normal1: Vector,
    pub point1: Vector,
    pub point2: Vector,
}

impl KeptPoint {
    /// The separation along the normal at the relative pose `pos12` (negative = penetration).
    pub fn separation(&self, pos12: &Pose) -> f64 {
        (*pos12 * self.point2 - self.point1).dot(self.normal1)
    }
}

#[derive(Debug, Clone)]
struct KeptPair {
    key: PairKey,
    /// `X₁₂` at the full query the points came from.
    reference: Pose,
    points: Range<usize>,
}

/// The kept points of the candidate pairs, kept in place from step to step: a pair asked for and
/// reused is only stamped with the step, so a pile at rest reads its kept points and writes
/// nothing else (at a thousand boxes a copy of every pair's points each step was some 8 lines
/// written per box and step, BENCHMARKS.md, "kept points in place").
#[derive(Debug, Default)]
pub(crate) struct KeptContacts {
    /// The pairs kept, sorted by key.
    pairs: Vec<KeptPair>,
    /// The step each of `pairs` was last asked for in (reused or queried and kept): pairs not
    /// asked for in a step are forgotten at its end.
    asked: Vec<u64>,
    /// Points of the pairs, and points no pair refers to any more (`unused` of them).
    points: Vec<KeptPoint>,
    unused: usize,
    /// The storage the points are compacted into, kept between compactions.
    compacted: Vec<KeptPoint>,
    /// Pairs first kept in this step (keys not in `pairs`), in candidate order.
    added: Vec<KeptPair>,
    /// Pairs of `pairs` asked for in this step.
    asked_count: usize,
    step: u64,
}

/// The radius about a shape's origin that contains the shape: `|c| + r` of its local bounding
/// sphere (centre `c`, radius `r`).
pub(crate) fn reach(shape: &dyn Shape) -> f64 {
    let sphere = shape.compute_local_bounding_sphere();
    sphere.center.length() + sphere.radius
}

/// The drift of the module docs: how far any point of shape 2 (within `reach2` of its origin) has
/// moved in shape 1's frame from the relative pose `reference` to `now`.
pub(crate) fn drift(reference: &Pose, now: &Pose, reach2: f64) -> f64 {
    let turn = reference.rotation.inverse() * now.rotation;
    let half_angle_sine = (turn.x * turn.x + turn.y * turn.y + turn.z * turn.z).sqrt();
    (now.translation - reference.translation).length() + 2.0 * reach2 * half_angle_sine
}

impl KeptContacts {
    /// The kept points of `key` if they may be reused at the relative pose `pos12` (module docs:
    /// drift within `distance`); the pair is then kept for the next step with its reference.
    /// `None` if the pair has no kept points, has drifted too far, or `distance` is 0.
    pub fn reuse(&mut self, key: PairKey, pos12: &Pose, reach2: f64, distance: f64) -> Option<&[KeptPoint]> {
        if distance <= 0.0 {
            return None;
        }
        let index = self.pairs.binary_search_by(|p| p.key.cmp(&key)).ok()?;
        let pair = &self.pairs[index];
        // A NaN drift (no valid pose gives one) is not within the distance either.
        let within = drift(&pair.reference, pos12, reach2) <= distance;
        if !within {
            return None;
        }
        let points = pair.points.clone();
        self.mark_asked(index);
        self.points.get(points)
    }

    /// Keeps the points of a full query of `key` at the relative pose `pos12`, unless a manifold
    /// is between composite shapes (module docs) or recycling is off (`distance` 0).
    pub fn keep(&mut self, key: PairKey, pos12: &Pose, manifolds: &[ContactManifold<(), ()>], distance: f64) {
        if distance <= 0.0 || manifolds.iter().any(|m| m.subshape_poses.is_some()) {
            return;
        }
        let start = self.points.len();
        for manifold in manifolds {
            self.points.extend(manifold.points.iter().map(|point| KeptPoint {
                normal1: manifold.local_n1,
                point1: point.local_p1,
                point2: point.local_p2,
            }));
        }
        let pair = KeptPair {
            key,
            reference: *pos12,
            points: start..self.points.len(),
        };
        match self.pairs.binary_search_by(|p| p.key.cmp(&key)) {
            Ok(index) => {
                self.unused += self.pairs[index].points.len();
                self.pairs[index] = pair;
                self.mark_asked(index);
            }
            Err(_) => self.added.push(pair),
        }
    }

    /// Stamps pair `index` as asked for in this step.
    fn mark_asked(&mut self, index: usize) {
        if let Some(asked) = self.asked.get_mut(index) {
            if *asked != self.step {
                *asked = self.step;
                self.asked_count += 1;
            }
        }
    }

    /// Ends a step: the pairs asked for in it (reused, or queried and kept) are the ones to reuse
    /// in the next; pairs that were no longer candidates are forgotten. At rest nothing moves.
    pub fn finish_step(&mut self) {
        let step = self.step;
        if self.asked_count < self.pairs.len() {
            let mut k = 0;
            let asked = &self.asked;
            let mut unused = 0;
            self.pairs.retain(|pair| {
                let keep = asked[k] == step;
                k += 1;
                if !keep {
                    unused += pair.points.len();
                }
                keep
            });
            self.unused += unused;
            self.asked.clear();
            self.asked.resize(self.pairs.len(), step);
        }
        if !self.added.is_empty() {
            self.pairs.append(&mut self.added);
            self.pairs.sort_unstable_by_key(|p| p.key);
            self.asked.clear();
            self.asked.resize(self.pairs.len(), step);
        }
        // Points no pair refers to are dropped once they are as many as the ones in use.
        if self.unused > self.points.len() / 2 {
            let points = &mut self.compacted;
            points.clear();
            for pair in &mut self.pairs {
                let start = points.len();
                points.extend_from_slice(self.points.get(pair.points.clone()).unwrap_or(&[]));
                pair.points = start..points.len();
            }
            std::mem::swap(&mut self.points, points);
            self.unused = 0;
        }
        self.step += 1;
        self.asked_count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parry3d_f64::math::Rotation;
    use parry3d_f64::shape::Cuboid;

    #[test]
    fn the_drift_bounds_how_far_every_point_of_the_second_shape_moved() {
        let cuboid = Cuboid::new(Vector::new(0.05, 0.02, 0.03));
        let reach2 = reach(&cuboid);
        assert!((reach2 - (0.05f64.powi(2) + 0.02f64.powi(2) + 0.03f64.powi(2)).sqrt()).abs() < 1e-12);
        let reference = Pose::from_parts(Vector::new(0.1, -0.2, 0.05), Rotation::from_rotation_z(0.3));
        let now = Pose::from_parts(
            Vector::new(0.1 + 2e-6, -0.2, 0.05 - 1e-6),
            Rotation::from_rotation_z(0.3) * Rotation::from_rotation_x(4e-5),
        );
        let bound = drift(&reference, &now, reach2);
        // The corners are the points that move most; each moved no more than the bound, and the
        // farthest by at least half of it (the bound is the sum of two parts, each attained).
        let mut farthest: f64 = 0.0;
        for corner in 0..8 {
            let sign = |bit: usize| if corner & bit == 0 { -1.0 } else { 1.0 };
            let x = Vector::new(0.05 * sign(1), 0.02 * sign(2), 0.03 * sign(4));
            let moved = (now * x - reference * x).length();
            assert!(moved <= bound * (1.0 + 1e-9), "corner {corner}: {moved} > {bound}");
            farthest = farthest.max(moved);
        }
        assert!(farthest >= 0.5 * bound, "{farthest} against {bound}");
        assert_eq!(drift(&reference, &reference, reach2), 0.0);
    }

    #[test]
    fn kept_points_are_reused_within_the_distance_and_forgotten_past_it() {
        let cuboid = Cuboid::new(Vector::new(0.05, 0.05, 0.05));
        let reach2 = reach(&cuboid);
        let key = (1, 0, 2, 0);
        let reference = Pose::from_parts(Vector::new(0.0, 0.0, 0.1), Rotation::IDENTITY);
        let mut manifold = ContactManifold::<(), ()>::new();
        manifold.local_n1 = Vector::new(0.0, 0.0, 1.0);
        manifold.points.push(parry3d_f64::query::TrackedContact::new(
            Vector::new(0.05, 0.05, 0.05),
            Vector::new(0.05, 0.05, -0.05),
            parry3d_f64::shape::PackedFeatureId::UNKNOWN,
            parry3d_f64::shape::PackedFeatureId::UNKNOWN,
            0.0,
        ));
        let mut kept = KeptContacts::default();
        // Off: nothing kept, nothing reused.
        kept.keep(key, &reference, std::slice::from_ref(&manifold), 0.0);
        kept.finish_step();
        assert!(kept.reuse(key, &reference, reach2, 1e-5).is_none());

        kept.keep(key, &reference, std::slice::from_ref(&manifold), 1e-5);
        kept.finish_step();
        // 5 µm down: reused, and the separation follows the pose (5 µm of penetration).
        let pressed = Pose::from_parts(Vector::new(0.0, 0.0, 0.1 - 5e-6), Rotation::IDENTITY);
        let points = kept
            .reuse(key, &pressed, reach2, 1e-5)
            .expect("within the distance")
            .to_vec();
        assert_eq!(points.len(), 1);
        assert!((points[0].separation(&pressed) + 5e-6).abs() < 1e-15);
        kept.finish_step();
        // Still measured from the reference: 11 µm away in all is past the distance.
        let drifted = Pose::from_parts(Vector::new(0.0, 0.0, 0.1 - 1.1e-5), Rotation::IDENTITY);
        assert!(kept.reuse(key, &drifted, reach2, 1e-5).is_none());
        // A pair not asked for in a step is forgotten.
        kept.finish_step();
        assert!(kept.reuse(key, &reference, reach2, 1e-5).is_none());
    }

    #[test]
    fn pairs_kept_in_place_are_found_again_after_new_pairs_requeries_and_compaction() {
        let manifold = |z: f64, count: usize| {
            let mut manifold = ContactManifold::<(), ()>::new();
            manifold.local_n1 = Vector::new(0.0, 0.0, 1.0);
            for k in 0..count {
                manifold.points.push(parry3d_f64::query::TrackedContact::new(
                    Vector::new(k as f64, 0.0, z),
                    Vector::new(k as f64, 0.0, -z),
                    parry3d_f64::shape::PackedFeatureId::UNKNOWN,
                    parry3d_f64::shape::PackedFeatureId::UNKNOWN,
                    0.0,
                ));
            }
            manifold
        };
        let pose = Pose::IDENTITY;
        let (first, second, third) = ((5, 0, 6, 0), (1, 0, 2, 0), (3, 0, 4, 0));
        let mut kept = KeptContacts::default();
        kept.keep(first, &pose, &[manifold(0.1, 2)], 1e-5);
        kept.finish_step();
        // Two new keys sort in before the kept one; the kept one is reused.
        assert_eq!(kept.reuse(first, &pose, 1.0, 1e-5).map(<[_]>::len), Some(2));
        kept.keep(second, &pose, &[manifold(0.2, 3)], 1e-5);
        kept.keep(third, &pose, &[manifold(0.3, 1)], 1e-5);
        kept.finish_step();
        // Re-queried every step with new points: the old ones are dropped once they outnumber
        // the ones in use, and every pair still reads its own.
        for round in 0..10 {
            let z = 1.0 + round as f64;
            assert!(kept.reuse(second, &pose, 1.0, 1e-5).is_some());
            assert!(kept.reuse(third, &pose, 1.0, 1e-5).is_some());
            kept.keep(first, &pose, &[manifold(z, 2)], 1e-5);
            kept.finish_step();
            assert!(
                kept.points.len() <= 2 * (2 + 3 + 1) + 2,
                "round {round}: {}",
                kept.points.len()
            );
            let first_points = kept.reuse(first, &pose, 1.0, 1e-5).expect("kept").to_vec();
            assert_eq!(first_points.len(), 2);
            assert_eq!(first_points[1].point1, Vector::new(1.0, 0.0, z));
            let second_points = kept.reuse(second, &pose, 1.0, 1e-5).expect("kept").to_vec();
            assert_eq!(second_points[2].point1, Vector::new(2.0, 0.0, 0.2));
            assert_eq!(kept.reuse(third, &pose, 1.0, 1e-5).map(<[_]>::len), Some(1));
            kept.finish_step();
        }
        // Only the pair asked for stays.
        assert!(kept.reuse(third, &pose, 1.0, 1e-5).is_some());
        kept.finish_step();
        assert_eq!(kept.pairs.len(), 1);
        assert!(kept.reuse(first, &pose, 1.0, 1e-5).is_none());
        assert!(kept.reuse(third, &pose, 1.0, 1e-5).is_some());
    }

    #[test]
    fn composite_manifolds_are_not_kept() {
        let mut manifold = ContactManifold::<(), ()>::new();
        manifold.subshape_poses = Some(Box::default());
        let mut kept = KeptContacts::default();
        let pose = Pose::IDENTITY;
        kept.keep((0, 0, 1, 0), &pose, std::slice::from_ref(&manifold), 1e-5);
        kept.finish_step();
        assert!(kept.reuse((0, 0, 1, 0), &pose, 1.0, 1e-5).is_none());
    }
}
