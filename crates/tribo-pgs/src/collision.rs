//! Collision detection between link shapes.
//!
//! **Broad phase**: the candidate pairs are the shape pairs whose world AABBs (parry's
//! `compute_aabb`, cylinders bounded analytically, loosened by half the contact margin each)
//! overlap, as closed intervals on all three axes, and that may touch ([`may_touch`]): not both on
//! bodies without degrees of freedom; on one scene body, only if it self-collides, and then only
//! on two tree bodies that are neither the same nor parent and child (adjacent links never touch
//! by convention). Shapes are numbered in body and collider order; the pairs `(p, q)`, `p < q`,
//! are sorted at the end, so they come out in one fixed order whatever order they were found in.
//!
//! They are looked for body by body, so that the work follows the pairs that can touch rather
//! than all pairs of shapes. (A single sweep over all shapes visited every pair of one body whose
//! shapes overlap in x only to refuse it: on SR1 standing, ~40 shapes on one body without
//! self-collision, ~800 pairs a step, all refused, and most of `detect`'s own time.) Each scene
//! body gets the box around its shapes, the union of their boxes. Then:
//! - *two bodies*: the body boxes are sorted by (lower x, index) and swept: each box is compared
//!   with the boxes after it until one starts above its upper x. A pair of boxes that overlap, of
//!   which at least one body has degrees of freedom, gives its shape pairs: each shape of one body
//!   whose box meets the other body's box against each such shape of the other, tested for
//!   overlap (two bodies of one shape each: their one pair). The sort starts from the last step's
//!   order, which is nearly right when bodies move little: an insertion sort then does it in one
//!   pass (past `4 n` moves it hands over to `sort_unstable_by`).
//! - *one body*: only a body with degrees of freedom and self-collision has its own shapes swept
//!   the same way, each pair whose boxes overlap put to [`may_touch`] for the tree-body rules.
//!
//! This finds exactly the pairs of the definition. Every pair found was tested for overlap and
//! for [`may_touch`] (on two bodies it asks only that one has degrees of freedom, checked before
//! any shape pair is made). Conversely, take a pair that overlaps and may touch. On two bodies:
//! each shape box lies inside its body's box, so the body boxes overlap, the sweep reaches the
//! pair (it stops only at a box starting above the upper x, and every box after that starts
//! higher still), and each shape box meets the other body's box, so the shape filter keeps both.
//! On one body: the body self-collides and has degrees of freedom, so its shapes are swept, which
//! reaches every pair overlapping in x. NaN bounds, which no valid pose gives, change nothing: a
//! box with a NaN bound overlaps nothing, is left out of its body's box (`f64::min`/`max` skip
//! NaN), and never stops a sweep early (`NaN > x` is false; the sorted order puts NaN lower
//! bounds at the ends). The boxes, the pair test and the final sort are the definition's, so the
//! candidates, and every contact after them, are bit for bit those of the earlier single sweep
//! (the test `broad_phase_equals_all_pairs` checks the candidates against all pairs, on random
//! placements and on grids where faces touch exactly). For one shape per body (a box pile) the
//! body sweep visits the pairs the shape sweep did, with one more box test per overlapping pair.
//!
//! **Narrow phase**: parry's `contact_manifolds` for each candidate pair, with the contact margin
//! as prediction distance: every manifold point closer than the margin is returned (negative
//! distance = penetration). Box–box (and box–slab) contacts give the clipped face polygon, i.e. the
//! four corners of a box resting on a face. The pairs are taken in link-pair order, a link pair's
//! candidates in candidate order, and their points written side by side into one buffer
//! ([`PairPoints`]): the groups and the points in each come out as a map by link pair, filled in
//! candidate order, held them (each pair's manifolds depend on that pair alone, so the order in
//! which pairs are computed changes nothing else).
//!
use std::ops::Range;

use nalgebra::{Isometry3, Vector3};
use parry3d_f64::math::{Pose, Rotation, Vector};
use parry3d_f64::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d_f64::shape::SharedShape;
use tribo_engine::LinkRef;

use crate::build::BodyModel;
use crate::recycle::KeptContacts;

/// One contact point before culling: world point (midpoint of the two surface points), unit
/// normal from link `a` to link `b`, depth (> 0 when overlapping).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RawPoint {
    pub point: Vector3<f64>,
    pub normal: Vector3<f64>,
    pub depth: f64,
}

/// Contact points grouped by link pair (a < b), in link-pair order (the order of a `BTreeMap` by
/// link pair), no pair without points. The points of all pairs lie in one buffer, side by side:
/// two allocations a step instead of a map node and a vector per pair.
#[derive(Debug, Default)]
pub(crate) struct PairPoints {
    /// Each link pair and the range of its points in `points`.
    pairs: Vec<((LinkRef, LinkRef), Range<usize>)>,
    points: Vec<RawPoint>,
}

impl PairPoints {
    /// Keeps the pairs for which `keep` is true, in order (as `BTreeMap::retain`).
    pub fn retain(&mut self, mut keep: impl FnMut(&(LinkRef, LinkRef), &mut [RawPoint]) -> bool) {
        let points = &mut self.points;
        self.pairs
            .retain(|(pair, range)| keep(pair, &mut points[range.clone()]));
    }

    /// The pairs and their points, in link-pair order.
    pub fn iter(&self) -> PairPointsIter<'_> {
        PairPointsIter {
            pairs: self.pairs.iter(),
            points: &self.points,
        }
    }
}

impl<'a> IntoIterator for &'a PairPoints {
    type Item = (&'a (LinkRef, LinkRef), &'a [RawPoint]);
    type IntoIter = PairPointsIter<'a>;

    fn into_iter(self) -> PairPointsIter<'a> {
        self.iter()
    }
}

/// [`PairPoints::iter`].
pub(crate) struct PairPointsIter<'a> {
    pairs: std::slice::Iter<'a, ((LinkRef, LinkRef), Range<usize>)>,
    points: &'a [RawPoint],
}

impl<'a> Iterator for PairPointsIter<'a> {
    type Item = (&'a (LinkRef, LinkRef), &'a [RawPoint]);

    fn next(&mut self) -> Option<Self::Item> {
        let (pair, range) = self.pairs.next()?;
        Some((pair, &self.points[range.clone()]))
    }
}

/// A shape placed in the world for this step.
struct Placed {
    body: usize,
    collider: usize,
    pose: Pose,
    min: [f64; 3],
    max: [f64; 3],
}

/// A scene body's shapes, `placed[first..end]`, and the box around them (the union of their boxes;
/// a NaN bound of a shape is left out of it).
#[derive(Clone, Copy)]
struct BodyBox {
    first: usize,
    end: usize,
    min: [f64; 3],
    max: [f64; 3],
    /// The body has degrees of freedom ([`BodyModel::is_dynamic`]).
    dynamic: bool,
    /// Its own shapes are tested against each other: dynamic, self-colliding, two shapes or more.
    self_pairs: bool,
}

/// Working lists of [`detect`] (placed shapes, body boxes, sweep orders, candidate pairs), kept
/// between steps for their storage.
#[derive(Default)]
pub(crate) struct CollisionScratch {
    placed: Vec<Placed>,
    bodies: Vec<BodyBox>,
    /// The bodies (indices of `bodies`) by lower x, kept from the last step as a nearly sorted
    /// start.
    body_order: Vec<usize>,
    sorted: Vec<BodyBox>,
    shape_order: Vec<usize>,
    near_a: Vec<usize>,
    near_b: Vec<usize>,
    candidates: Vec<(usize, usize)>,
    /// The candidates `(p, q)` keyed by their link pair, for the narrow phase.
    by_link_pair: Vec<((LinkRef, LinkRef), usize, usize)>,
    /// The storage of the last step's points, handed back by [`Self::recycle`]: a step's pairs
    /// and points are written into it instead of into new buffers (at 1000 cubes some 250 kB a
    /// step).
    spare: PairPoints,
    /// The points of each candidate pair's last full query, for recycling (`recycle.rs`).
    kept: KeptContacts,
}

/// Every contact point between shapes of `models` at the carrier poses `poses[body][carrier]`.
/// A candidate pair whose relative pose drifted less than `recycle_distance` since its last full
/// narrow-phase query reuses that query's points (`recycle.rs`); 0 queries every pair every step.
pub(crate) fn detect(
    models: &[BodyModel],
    poses: &[&[Isometry3<f64>]],
    margin: f64,
    recycle_distance: f64,
    scratch: &mut CollisionScratch,
) -> PairPoints {
    broad_phase(models, poses, margin, scratch);
    let CollisionScratch {
        placed,
        candidates,
        by_link_pair,
        spare,
        kept,
        ..
    } = scratch;
    // The candidates by link pair, each pair's in candidate order: its points then come out in
    // the order in which a map by link pair, filled in candidate order, would hold them. The keys
    // are distinct, so the order is unique (and the sort is one pass when already in order).
    by_link_pair.clear();
    by_link_pair.extend(candidates.iter().map(|&(p, q)| {
        let link = |s: &Placed| LinkRef {
            body: s.body,
            link: models[s.body].colliders[s.collider].link,
        };
        ((link(&placed[p]), link(&placed[q])), p, q)
    }));
    by_link_pair.sort_unstable();

    let mut pairs = std::mem::take(spare);
    pairs.pairs.clear();
    pairs.points.clear();
    let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
    for (k, &(link_pair, p, q)) in by_link_pair.iter().enumerate() {
        let (s1, s2) = (&placed[p], &placed[q]);
        let (c1, c2) = (
            &models[s1.body].colliders[s1.collider],
            &models[s2.body].colliders[s2.collider],
        );
        let pos12 = s1.pose.inv_mul(&s2.pose);
        let key = (s1.body, s1.collider, s2.body, s2.collider);
        if let Some(reused) = kept.reuse(key, &pos12, c2.reach, recycle_distance) {
            for point in reused {
                let dist = point.separation(&pos12);
                if dist <= margin {
                    let normal = vector3(s1.pose.rotation * point.normal1);
                    pairs
                        .points
                        .push(raw_point(s1, s2, normal, point.point1, point.point2, dist));
                }
            }
        } else {
            manifolds.clear();
            let found = DefaultQueryDispatcher
                .contact_manifolds(
                    &pos12,
                    c1.shape.as_ref(),
                    c2.shape.as_ref(),
                    margin,
                    &mut manifolds,
                    &mut None,
                )
                .is_ok();
            if found {
                for manifold in &manifolds {
                    let normal = vector3(s1.pose.rotation * manifold.local_n1);
                    for point in &manifold.points {
                        let raw = raw_point(s1, s2, normal, point.local_p1, point.local_p2, point.dist);
                        pairs.points.push(raw);
                    }
                }
                kept.keep(key, &pos12, &manifolds, recycle_distance);
            }
        }
        // The last candidate of its link pair closes the pair, if it has points.
        if by_link_pair.get(k + 1).is_none_or(|next| next.0 != link_pair) {
            let start = pairs.pairs.last().map_or(0, |(_, range)| range.end);
            if pairs.points.len() > start {
                pairs.pairs.push((link_pair, start..pairs.points.len()));
            }
        }
    }
    kept.finish_step();
    pairs
}

impl CollisionScratch {
    /// Takes back the storage of the pairs [`detect`] returned, for the next step's.
    pub fn recycle(&mut self, pairs: PairPoints) {
        self.spare = pairs;
    }
}

/// The contact point of the surface points `local_p1` of shape `s1` and `local_p2` of `s2` (each
/// in its shape's frame) at separation `dist` along the world `normal`: their midpoint, depth
/// `-dist`.
fn raw_point(
    s1: &Placed,
    s2: &Placed,
    normal: Vector3<f64>,
    local_p1: Vector,
    local_p2: Vector,
    dist: f64,
) -> RawPoint {
    let p1 = vector3(s1.pose * local_p1);
    let p2 = vector3(s2.pose * local_p2);
    RawPoint {
        point: (p1 + p2) * 0.5,
        normal,
        depth: -dist,
    }
}

/// Places every shape (`scratch.placed`, in body and collider order) and lists the candidate pairs
/// (`scratch.candidates`): the index pairs `p < q` of `placed` whose boxes overlap and that
/// [`may_touch`], in increasing order (module docs).
fn broad_phase(models: &[BodyModel], poses: &[&[Isometry3<f64>]], margin: f64, scratch: &mut CollisionScratch) {
    let CollisionScratch {
        placed,
        bodies,
        body_order,
        sorted,
        shape_order,
        near_a,
        near_b,
        candidates,
        ..
    } = scratch;
    placed.clear();
    bodies.clear();
    for (b, model) in models.iter().enumerate() {
        let first = placed.len();
        let (mut body_min, mut body_max) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for (c, collider) in model.colliders.iter().enumerate() {
            let Some(carrier_pose) = poses.get(b).and_then(|p| p.get(collider.carrier)) else {
                continue;
            };
            let world = carrier_pose * collider.pose_in_carrier;
            let pose = to_pose(&world);
            let (min, max) = world_bounds(&collider.shape, &world, &pose, margin * 0.5);
            for k in 0..3 {
                // `f64::min`/`max` return the other operand for a NaN one.
                body_min[k] = body_min[k].min(min[k]);
                body_max[k] = body_max[k].max(max[k]);
            }
            placed.push(Placed {
                body: b,
                collider: c,
                pose,
                min,
                max,
            });
        }
        let end = placed.len();
        if end > first {
            let dynamic = model.is_dynamic();
            bodies.push(BodyBox {
                first,
                end,
                min: body_min,
                max: body_max,
                dynamic,
                self_pairs: dynamic && model.self_collision && end - first > 1,
            });
        }
    }

    candidates.clear();
    // Pairs of two bodies: a sweep over the body boxes along x, then the shape pairs of each
    // overlapping body pair with at least one dynamic body.
    if body_order.len() != bodies.len() {
        body_order.clear();
        body_order.extend(0..bodies.len());
    }
    sort_by_lower_x(body_order, |i| bodies[i].min[0]);
    // The boxes in sweep order, side by side for the inner loop.
    sorted.clear();
    sorted.extend(body_order.iter().map(|&i| bodies[i]));
    for (k, a) in sorted.iter().enumerate() {
        for b in &sorted[k + 1..] {
            // The boxes after `b` start no lower (body boxes have no NaN bound): none overlaps `a`.
            if b.min[0] > a.max[0] {
                break;
            }
            if (a.dynamic || b.dynamic) && boxes_overlap(&a.min, &a.max, &b.min, &b.max) {
                let (a, b) = if a.first < b.first { (a, b) } else { (b, a) };
                pairs_between(placed, a, b, near_a, near_b, candidates);
            }
        }
    }
    // Pairs within a self-colliding body: a sweep over its shapes.
    for body in bodies.iter().filter(|body| body.self_pairs) {
        shape_order.clear();
        shape_order.extend(body.first..body.end);
        sort_by_lower_x(shape_order, |i| placed[i].min[0]);
        for (k, &i) in shape_order.iter().enumerate() {
            let upper = placed[i].max[0];
            for &j in &shape_order[k + 1..] {
                // As above; a NaN bound does not stop the scan, and its box overlaps nothing.
                if placed[j].min[0] > upper {
                    break;
                }
                let (p, q) = (i.min(j), i.max(j));
                if overlaps(&placed[p], &placed[q]) && may_touch(models, &placed[p], &placed[q]) {
                    candidates.push((p, q));
                }
            }
        }
    }
    candidates.sort_unstable();
}

/// Sorts `order` by the keys (`lower_x(i)` by `total_cmp`, `i`), which are distinct: the sorted
/// order is unique, whatever the algorithm. The body order is last step's, nearly sorted when the
/// bodies move little, so an insertion sort is tried first; past `4 n` moves it gives way to
/// `sort_unstable_by`.
fn sort_by_lower_x(order: &mut [usize], lower_x: impl Fn(usize) -> f64) {
    let before = |i: usize, j: usize| lower_x(i).total_cmp(&lower_x(j)).then(i.cmp(&j));
    let (mut moves, budget) = (0, 4 * order.len());
    for k in 1..order.len() {
        let x = order[k];
        let mut m = k;
        while m > 0 && before(x, order[m - 1]).is_lt() {
            order[m] = order[m - 1];
            m -= 1;
        }
        order[m] = x;
        moves += k - m;
        if moves > budget {
            order.sort_unstable_by(|&i, &j| before(i, j));
            return;
        }
    }
}

/// The overlapping shape pairs of the bodies `a` and `b` (`a` first in `placed`). Only shapes
/// whose box meets the other body's box can meet one of its shapes: those are paired.
fn pairs_between(
    placed: &[Placed],
    a: &BodyBox,
    b: &BodyBox,
    near_a: &mut Vec<usize>,
    near_b: &mut Vec<usize>,
    candidates: &mut Vec<(usize, usize)>,
) {
    if a.end - a.first == 1 && b.end - b.first == 1 {
        if overlaps(&placed[a.first], &placed[b.first]) {
            candidates.push((a.first, b.first));
        }
        return;
    }
    near_a.clear();
    near_a.extend((a.first..a.end).filter(|&p| boxes_overlap(&placed[p].min, &placed[p].max, &b.min, &b.max)));
    if near_a.is_empty() {
        return;
    }
    near_b.clear();
    near_b.extend((b.first..b.end).filter(|&q| boxes_overlap(&placed[q].min, &placed[q].max, &a.min, &a.max)));
    for &p in near_a.iter() {
        for &q in near_b.iter() {
            if overlaps(&placed[p], &placed[q]) {
                candidates.push((p, q));
            }
        }
    }
}

fn overlaps(a: &Placed, b: &Placed) -> bool {
    boxes_overlap(&a.min, &a.max, &b.min, &b.max)
}

fn boxes_overlap(a_min: &[f64; 3], a_max: &[f64; 3], b_min: &[f64; 3], b_max: &[f64; 3]) -> bool {
    (0..3).all(|k| a_min[k] <= b_max[k] && b_min[k] <= a_max[k])
}

/// The pair filter of the module docs. On one body it is [`tribo_model::RigidGroups::may_self_touch`]
/// (the rule every engine applies) over tree bodies, which are the body's rigid groups and
/// `tree_parent` the groups a joint connects.
fn may_touch(models: &[BodyModel], a: &Placed, b: &Placed) -> bool {
    let (ma, mb) = (&models[a.body], &models[b.body]);
    if !ma.is_dynamic() && !mb.is_dynamic() {
        return false;
    }
    if a.body != b.body {
        return true;
    }
    let (ca, cb) = (ma.colliders[a.collider].carrier, mb.colliders[b.collider].carrier);
    ma.self_collision
        && ca != cb
        && ma.tree_parent.get(ca).copied().flatten() != Some(cb)
        && ma.tree_parent.get(cb).copied().flatten() != Some(ca)
}

/// World AABB of a shape at `world` (= `pose`), grown by `half` on every side. Cylinders are
/// bounded analytically: parry bounds them with six support-map queries, 11–14 % of an SR1 step.
/// For the axis `a = R ŷ` (unit), half-height `h` and radius `r`, the box of the two end discs has
/// the half-extent `|a_i| h + r √(1 − a_i²)` along world axis `i` (a disc of radius `r` normal to
/// `a` spans `r √(1 − a_i²)` along `i`), which is the cylinder's exact AABB.
fn world_bounds(shape: &SharedShape, world: &Isometry3<f64>, pose: &Pose, half: f64) -> ([f64; 3], [f64; 3]) {
    if let Some(cylinder) = shape.as_cylinder() {
        let axis = world.rotation * Vector3::y();
        let centre = world.translation.vector;
        let extent = |i: usize| {
            axis[i].abs() * cylinder.half_height + cylinder.radius * (1.0 - axis[i] * axis[i]).max(0.0).sqrt() + half
        };
        let e = [extent(0), extent(1), extent(2)];
        return (
            [centre.x - e[0], centre.y - e[1], centre.z - e[2]],
            [centre.x + e[0], centre.y + e[1], centre.z + e[2]],
        );
    }
    let aabb = shape.compute_aabb(pose);
    (
        [aabb.mins.x - half, aabb.mins.y - half, aabb.mins.z - half],
        [aabb.maxs.x + half, aabb.maxs.y + half, aabb.maxs.z + half],
    )
}

fn to_pose(iso: &Isometry3<f64>) -> Pose {
    let t = iso.translation.vector;
    let r = iso.rotation;
    Pose::from_parts(Vector::new(t.x, t.y, t.z), Rotation::from_xyzw(r.i, r.j, r.k, r.w))
}

fn vector3(v: Vector) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

#[cfg(test)]
mod tests {
    use nalgebra::{Matrix3, Translation3, UnitQuaternion};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;
    use tribo_multibody::{Body as TreeBody, Joint, LinkInertia, Tree};

    use super::*;
    use crate::build::Collider;

    /// A body whose tree bodies have the parents `parents` (the root first, free unless `fixed`,
    /// the others revolute) and `shapes` shapes on each tree body, of random kind and size.
    fn body(
        rng: &mut ChaCha8Rng,
        parents: &[Option<usize>],
        fixed: bool,
        self_collision: bool,
        shapes: &[usize],
    ) -> BodyModel {
        let inertia = LinkInertia::new(1.0, Vector3::zeros(), Matrix3::identity() * 0.01);
        let bodies = parents
            .iter()
            .enumerate()
            .map(|(i, &parent)| {
                let joint = match (parent, fixed) {
                    (Some(_), _) => Joint::Revolute { axis: Vector3::z() },
                    (None, true) => Joint::Fixed,
                    (None, false) => Joint::Free,
                };
                TreeBody::new(format!("b{i}"), parent, joint, Isometry3::identity(), inertia)
            })
            .collect();
        let tree = Tree::new(bodies).expect("a valid tree");
        let mut colliders = Vec::new();
        for (carrier, &count) in shapes.iter().enumerate() {
            for _ in 0..count {
                let size = |rng: &mut ChaCha8Rng| rng.random_range(0.02..0.2);
                let shape = match rng.random_range(0..4) {
                    0 => SharedShape::ball(size(rng)),
                    1 => SharedShape::cuboid(size(rng), size(rng), size(rng)),
                    2 => SharedShape::cylinder(size(rng), size(rng)),
                    _ => SharedShape::capsule_z(size(rng), size(rng)),
                };
                colliders.push(Collider {
                    link: carrier,
                    carrier,
                    reach: crate::recycle::reach(shape.as_ref()),
                    shape,
                    pose_in_carrier: random_pose(rng, 0.1),
                });
            }
        }
        BodyModel {
            name: String::new(),
            carrier: Arc::new((0..parents.len()).collect()),
            link_in_carrier: Arc::new(vec![Isometry3::identity(); parents.len()]),
            link_dof: Arc::new(vec![None; parents.len()]),
            link_q: Arc::new(vec![None; parents.len()]),
            tree_parent: Arc::new(parents.to_vec()),
            fixed_root: fixed,
            self_collision,
            colliders: Arc::new(colliders),
            tree: Arc::new(tree),
        }
    }

    fn random_pose(rng: &mut ChaCha8Rng, reach: f64) -> Isometry3<f64> {
        let mut r = || rng.random_range(-1.0..1.0);
        Isometry3::from_parts(
            Translation3::new(reach * r(), reach * r(), reach * r()),
            UnitQuaternion::from_scaled_axis(Vector3::new(r(), r(), r()) * 3.0),
        )
    }

    /// A translation by up to `steps` sixteenths of a metre along each axis, without rotation.
    fn grid_pose(rng: &mut ChaCha8Rng, steps: i32) -> Isometry3<f64> {
        let mut r = || f64::from(rng.random_range(-steps..=steps)) / 16.0;
        Isometry3::translation(r(), r(), r())
    }

    /// The broad phase gives exactly the pairs of the all-pairs reference — every `p < q` of
    /// `placed` whose boxes overlap (closed intervals on the three axes) and that [`may_touch`] —
    /// in increasing order, on random placements of: a floor and a wall (fixed, overlapping each
    /// other), a self-colliding free tree with parent/child and same-carrier shapes, the same tree
    /// without self-collision, a self-colliding tree with a fixed root, single-shape free bodies
    /// (self-colliding or not), a body without shapes and a body with a tree body left unplaced.
    #[test]
    fn broad_phase_equals_all_pairs() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let tree = [None, Some(0), Some(1), Some(1), Some(3), Some(0), Some(5)];
        let mut scratch = CollisionScratch::default();
        let (mut same_body, mut rejected, mut total) = (0, 0, 0);
        for trial in 0..200 {
            let mut models = vec![
                body(&mut rng, &[None], true, false, &[1]),
                body(&mut rng, &[None], true, false, &[2]),
                body(&mut rng, &tree, false, true, &[1, 2, 1, 1, 3, 0, 2]),
                body(&mut rng, &tree, false, false, &[2, 1, 1, 2, 1, 1, 1]),
                body(&mut rng, &tree[..4], true, true, &[2, 1, 2, 1]),
                body(&mut rng, &[None, Some(0)], false, true, &[0, 0]),
                body(&mut rng, &[None, Some(0), Some(1)], false, true, &[1, 1, 2]),
            ];
            for _ in 0..6 {
                models.push(body(&mut rng, &[None], false, trial % 2 == 0, &[1]));
            }
            // The floor is wide and flat; the rest is scattered over a cube of 1 m (denser on
            // odd trials), so that boxes overlap often.
            let reach = if trial % 2 == 0 { 1.0 } else { 0.4 };
            let mut poses: Vec<Vec<Isometry3<f64>>> = models
                .iter()
                .enumerate()
                .map(|(b, model)| {
                    let n = model.tree_parent.len() - usize::from(b == 6);
                    (0..n).map(|_| random_pose(&mut rng, reach)).collect()
                })
                .collect();
            Arc::make_mut(&mut models[0].colliders)[0].shape = SharedShape::cuboid(2.0, 2.0, 0.1);
            let mut margin = if trial % 3 == 0 { 0.0 } else { 1e-3 };
            // Every fourth trial, axis-aligned boxes on a grid of 1/16 m, without margin: their
            // faces often touch exactly (bounds equal to the last bit), which counts as overlap.
            let grid = trial % 4 == 3;
            if grid {
                margin = 0.0;
                for model in models.iter_mut() {
                    for collider in Arc::make_mut(&mut model.colliders).iter_mut() {
                        let mut half = || f64::from(rng.random_range(1..4)) / 16.0;
                        collider.shape = SharedShape::cuboid(half(), half(), half());
                        collider.pose_in_carrier = grid_pose(&mut rng, 2);
                    }
                }
                for pose in poses.iter_mut().flatten() {
                    *pose = grid_pose(&mut rng, 6);
                }
            }
            // Three placements: the first one (the body order kept from the last trial is far
            // from sorted), then twice moved a little (nearly sorted).
            for round in 0..3 {
                if round > 0 {
                    for pose in poses.iter_mut().flatten() {
                        let step = if grid {
                            grid_pose(&mut rng, 1)
                        } else {
                            random_pose(&mut rng, 0.02)
                        };
                        *pose = step.translation * *pose;
                    }
                }
                let poses: Vec<&[Isometry3<f64>]> = poses.iter().map(Vec::as_slice).collect();
                broad_phase(&models, &poses, margin, &mut scratch);
                let placed = &scratch.placed;
                let mut reference = Vec::new();
                for p in 0..placed.len() {
                    for q in p + 1..placed.len() {
                        let (a, b) = (&placed[p], &placed[q]);
                        if (0..3).all(|k| a.min[k] <= b.max[k] && b.min[k] <= a.max[k]) {
                            if may_touch(&models, &placed[p], &placed[q]) {
                                reference.push((p, q));
                                same_body += usize::from(placed[p].body == placed[q].body);
                            } else {
                                rejected += 1;
                            }
                        }
                    }
                }
                assert_eq!(scratch.candidates, reference, "trial {trial}, round {round}");
                total += reference.len();
            }
        }
        // The placements exercised every rule: pairs within a body, and overlapping pairs refused.
        assert!(
            same_body > 100 && rejected > 100 && total > 1000,
            "{same_body} {rejected} {total}"
        );
    }

    /// The insertion sort (and its fallback) orders as `sort_unstable_by` does, on keys with ties,
    /// signed zeros and NaNs, from random and from nearly sorted starts.
    #[test]
    fn sort_by_lower_x_equals_sort_unstable() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let special = [0.0, -0.0, f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.5];
        for n in [0, 1, 2, 5, 40, 300] {
            let mut keys: Vec<f64> = (0..n)
                .map(|_| match rng.random_range(0..4) {
                    0 => special[rng.random_range(0..special.len())],
                    _ => rng.random_range(-1.0..1.0),
                })
                .collect();
            let mut order: Vec<usize> = (0..n).rev().collect();
            for round in 0..4 {
                if round > 0 {
                    for key in keys.iter_mut() {
                        *key += rng.random_range(-0.01..0.01);
                    }
                }
                let mut expected = order.clone();
                expected.sort_unstable_by(|&i, &j| keys[i].total_cmp(&keys[j]).then(i.cmp(&j)));
                sort_by_lower_x(&mut order, |i| keys[i]);
                assert_eq!(order, expected, "n {n}, round {round}");
            }
        }
    }

    #[test]
    fn analytic_cylinder_bounds_equal_parrys() {
        let shape = SharedShape::cylinder(0.3, 0.05);
        for k in 0..200 {
            let t = k as f64;
            let axis = Vector3::new((0.7 * t).sin(), (1.3 * t).cos(), (0.37 * t + 0.2).sin());
            let rotation = UnitQuaternion::from_scaled_axis(axis * (0.1 + 0.03 * t));
            let world = Isometry3::from_parts(Translation3::new(0.1 * t, -0.2, 0.05 * t), rotation);
            let pose = to_pose(&world);
            let (min, max) = world_bounds(&shape, &world, &pose, 0.0);
            let parry = shape.compute_aabb(&pose);
            let (pmin, pmax) = (
                [parry.mins.x, parry.mins.y, parry.mins.z],
                [parry.maxs.x, parry.maxs.y, parry.maxs.z],
            );
            for i in 0..3 {
                assert!(
                    (min[i] - pmin[i]).abs() < 1e-12 && (max[i] - pmax[i]).abs() < 1e-12,
                    "{k}: {min:?} {max:?} vs {pmin:?} {pmax:?}"
                );
            }
        }
    }

    /// A cube resting on a fixed slab, then slid 4 µm and tilted 1e-5 rad: within the recycling
    /// distance the kept points are reused (they differ from a fresh query's, which clips the
    /// faces anew), every one within the distance of the fresh points, at the fresh depths to
    /// rounding; past the distance the pair is queried again, exactly as without recycling.
    #[test]
    fn recycled_points_stay_within_the_distance_of_a_fresh_query() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut slab = body(&mut rng, &[None], true, false, &[1]);
        let mut cube = body(&mut rng, &[None], false, false, &[1]);
        for (model, shape) in [
            (&mut slab, SharedShape::cuboid(1.0, 1.0, 0.05)),
            (&mut cube, SharedShape::cuboid(0.05, 0.05, 0.05)),
        ] {
            let collider = &mut Arc::make_mut(&mut model.colliders)[0];
            collider.reach = crate::recycle::reach(shape.as_ref());
            collider.shape = shape;
            collider.pose_in_carrier = Isometry3::identity();
        }
        let models = [slab, cube];
        let slab_pose = [Isometry3::translation(0.0, 0.0, -0.05)];
        let yaw = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.3);
        let rest = [Isometry3::from_parts(Translation3::new(0.01, 0.02, 0.05 - 2e-6), yaw)];
        let moved = [Isometry3::from_parts(
            Translation3::new(0.01 + 4e-6, 0.02, 0.05 - 3e-6),
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 1e-5) * yaw,
        )];
        let far = [Isometry3::from_parts(
            Translation3::new(0.01 + 4e-5, 0.02, 0.05 - 2e-6),
            yaw,
        )];
        let distance = 1e-5;
        let points = |pairs: &PairPoints| pairs.iter().flat_map(|(_, p)| p.to_vec()).collect::<Vec<_>>();
        let fresh = |cube: &[Isometry3<f64>]| {
            points(&detect(
                &models,
                &[&slab_pose, cube],
                1e-3,
                0.0,
                &mut CollisionScratch::default(),
            ))
        };
        let mut scratch = CollisionScratch::default();
        let first = points(&detect(&models, &[&slab_pose, &rest], 1e-3, distance, &mut scratch));
        assert_eq!(first, fresh(&rest), "the first query is a full one");
        assert_eq!(first.len(), 4, "a cube's face on a slab: its four corners");

        let reused = points(&detect(&models, &[&slab_pose, &moved], 1e-3, distance, &mut scratch));
        let queried = fresh(&moved);
        assert_eq!(reused.len(), queried.len());
        assert_ne!(reused, queried, "the kept points were reused, not queried again");
        for (r, q) in reused.iter().zip(&queried) {
            assert!(
                (r.point - q.point).norm() <= distance,
                "{:?} against {:?}",
                r.point,
                q.point
            );
            assert!(
                (r.depth - q.depth).abs() < 1e-12,
                "depth {} against {}",
                r.depth,
                q.depth
            );
            assert!(
                (r.normal - q.normal).norm() <= 2e-5,
                "normal {:?} against {:?}",
                r.normal,
                q.normal
            );
        }

        // 40 µm from the reference: queried afresh, bit for bit what a query without recycling gives.
        let again = points(&detect(&models, &[&slab_pose, &far], 1e-3, distance, &mut scratch));
        assert_eq!(again, fresh(&far));
    }
}
