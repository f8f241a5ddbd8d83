//! The targets as one pad sees them during one step.
//!
//! A sphere's contact queries are made in the pad frame (`solver.rs`): the sphere centre
//! `q = x_i + δ_i` and the outward normal `m`. A [`Posed`](crate::Posed) primitive is queried in
//! its own frame, so each query would carry the pad pose to the world and the world to the
//! shape: two quaternion rotations for the point and two more for the normal. The relative pose
//! `T = T_shape⁻¹ T_pad` is constant over the step (both poses are the step's end poses), so it
//! is composed once per step as a rotation matrix `R` and a translation `t`:
//! `q_shape = R q + t`, `m_pad = Rᵀ m_shape` (one 3×3 product each way). A ball or a half-space
//! ([`Shape::frame_free`]) needs neither product: its distance `|q − c| − R` or `m·(q − o)` holds
//! in any frame, so its centre `c` (origin `o`, axis `m`) is placed in the pad frame once per step
//! instead. A box whose distance follows one face's plane over every point the pad queries in
//! the step ([`Shape::face_within`]; a floor under a foot) is queried as that face's half-space
//! alike: `solver.rs` bounds the queries by the rest box grown by the displacements, and falls
//! back to the box itself if the solved field leaves that bound. Targets that are not a posed
//! primitive keep the world-frame queries.

use nalgebra::{Isometry3, Matrix3, Point3, Vector3};

use crate::target::{FrameFree, Shape, Target};

/// One target's frame for the step.
pub(crate) enum TargetFrame<'a> {
    /// A primitive: `q_shape = rotation · q_pad + translation`.
    Shape {
        shape: &'a dyn Shape,
        rotation: Matrix3<f64>,
        translation: Vector3<f64>,
        /// `|t|` when the shape's distance is exact and convex, else `None`: asked for every
        /// sphere near the target ([`TargetFrame::exact_convex_scale`]), so computed once.
        convex_scale: Option<f64>,
    },
    /// A primitive with a closed form in any frame ([`Shape::frame_free`]), or the half-space of
    /// the one face a primitive's distance follows over all of a step's queries
    /// ([`Shape::face_within`]), placed in the pad frame: no rotation per query.
    FrameFree {
        form: FrameFree,
        /// The form's origin in the pad frame: the shape origin `−Rᵀ t`, or the face's point.
        origin: Point3<f64>,
        /// The form's axis in the pad frame: the shape's +Z axis `Rᵀ ẑ`, or the face's outward
        /// normal.
        axis: Vector3<f64>,
        /// `|t|` ([`TargetFrame::exact_convex_scale`]); both forms are exact and convex.
        convex_scale: f64,
        /// The half-space stands for a face ([`TargetFrame::is_face`]).
        from_face: bool,
    },
    /// Any other target, queried in the world.
    World {
        target: &'a dyn Target,
        pad_pose: Isometry3<f64>,
    },
}

/// A pad-frame box that holds every point a pad queries in a step (`solver.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct QueryBox {
    pub lower: Vector3<f64>,
    pub upper: Vector3<f64>,
}

impl<'a> TargetFrame<'a> {
    /// `target` as seen from a pad at `pad_pose` (world).
    #[cfg(test)]
    pub fn new(target: &'a dyn Target, pad_pose: &Isometry3<f64>) -> Self {
        Self::build(target, pad_pose, None)
    }

    /// [`TargetFrame::new`] for a pad whose queries all lie in `region`: a primitive whose
    /// distance follows one face's plane over the whole region ([`Shape::face_within`]) is
    /// queried as that half-space.
    #[cfg(test)]
    pub fn within(target: &'a dyn Target, pad_pose: &Isometry3<f64>, region: &QueryBox) -> Self {
        Self::build(target, pad_pose, Some(region))
    }

    /// The frame stands for a shape by one of its faces (a frame built for a query region,
    /// [`target_frames_into`]): its answers hold only inside that region.
    pub fn is_face(&self) -> bool {
        matches!(self, TargetFrame::FrameFree { from_face: true, .. })
    }

    fn build(target: &'a dyn Target, pad_pose: &Isometry3<f64>, region: Option<&QueryBox>) -> Self {
        match target.posed_shape() {
            Some((shape, shape_pose)) => {
                let relative = shape_pose.inverse() * pad_pose;
                let translation = relative.translation.vector;
                if let Some(form) = shape.frame_free() {
                    let placed = relative.inverse();
                    return TargetFrame::FrameFree {
                        form,
                        origin: Point3::from(placed.translation.vector),
                        axis: placed.rotation * Vector3::z(),
                        convex_scale: translation.norm(),
                        from_face: false,
                    };
                }
                let rotation = relative.rotation.to_rotation_matrix().into_inner();
                // The region in the shape frame, bounded by a box: centre `R c + t`, half-size
                // `|R| h` (each shape axis's extent of the rotated pad box).
                let face = region.and_then(|region| {
                    let centre = rotation * ((region.lower + region.upper) * 0.5) + translation;
                    let half = rotation.abs() * ((region.upper - region.lower) * 0.5);
                    shape.face_within(&(centre - half), &(centre + half))
                });
                if let Some((point, normal)) = face {
                    let placed = relative.inverse();
                    return TargetFrame::FrameFree {
                        form: FrameFree::HalfSpace,
                        origin: placed * point,
                        axis: placed.rotation * normal,
                        convex_scale: translation.norm(),
                        from_face: true,
                    };
                }
                TargetFrame::Shape {
                    shape,
                    rotation,
                    translation,
                    convex_scale: shape.exact_convex_distance().then(|| translation.norm()),
                }
            }
            None => TargetFrame::World {
                target,
                pad_pose: *pad_pose,
            },
        }
    }

    /// Signed distance of the pad-frame point `q` to the target, positive outside, m.
    pub fn distance(&self, q: &Point3<f64>) -> f64 {
        match self {
            TargetFrame::Shape {
                shape,
                rotation,
                translation,
                ..
            } => shape.local_distance(&Point3::from(rotation * q.coords + translation)),
            TargetFrame::FrameFree { .. } => self.distance_and_normal(q).0,
            TargetFrame::World { target, pad_pose } => target.distance(&(pad_pose * q)),
        }
    }

    /// The signed distance at the pad-frame point `q` when the target's distance is exact and
    /// convex ([`Shape::exact_convex_distance`]), with the length scale of its rounding
    /// (`|t| + |q_shape|`, m); `None` for any other target.
    pub fn exact_distance(&self, q: &Point3<f64>) -> Option<(f64, f64)> {
        match self {
            TargetFrame::Shape {
                shape,
                rotation,
                translation,
                convex_scale: Some(scale),
            } => {
                let local = Point3::from(rotation * q.coords + translation);
                Some((shape.local_distance(&local), scale + local.coords.norm()))
            }
            TargetFrame::FrameFree {
                origin, convex_scale, ..
            } => Some((self.distance_and_normal(q).0, convex_scale + (q - origin).norm())),
            _ => None,
        }
    }

    /// For a target whose distance is exact and convex ([`Shape::exact_convex_distance`]), the
    /// length scale of the rounding of its queries beyond the pad-frame point's own (`|t|`, m);
    /// `None` for any other target.
    pub fn exact_convex_scale(&self) -> Option<f64> {
        match self {
            TargetFrame::Shape { convex_scale, .. } => *convex_scale,
            TargetFrame::FrameFree { convex_scale, .. } => Some(*convex_scale),
            TargetFrame::World { .. } => None,
        }
    }

    /// [`distance`](Self::distance) and [`normal`](Self::normal) at once.
    pub fn distance_and_normal(&self, q: &Point3<f64>) -> (f64, Vector3<f64>) {
        match self {
            TargetFrame::Shape {
                shape,
                rotation,
                translation,
                ..
            } => shape_distance_and_normal(*shape, rotation, translation, q),
            TargetFrame::FrameFree {
                form: FrameFree::Ball { radius },
                origin,
                axis,
                ..
            } => ball_distance_and_normal(*radius, origin, axis, q),
            TargetFrame::FrameFree {
                form: FrameFree::HalfSpace,
                origin,
                axis,
                ..
            } => half_space_distance_and_normal(origin, axis, q),
            TargetFrame::World { .. } => (self.distance(q), self.normal(q)),
        }
    }

    /// [`distance_and_normal`](Self::distance_and_normal) at each point `(i, q, beyond)` that
    /// `points` yields, handed to `answer` with the point's index, in order: the frame's kind is
    /// matched once for the whole run instead of once per point, so the run of a ball's queries
    /// (a root and a division each) is one loop the processor can overlap. A point whose distance
    /// is provably at least `beyond` may go unanswered: a ball leaves out, without its root and
    /// division, every point whose squared distance from its centre exceeds `(R + beyond)²` by
    /// more than a relative 1e-12 (far above the rounding of the distance it would answer).
    pub fn distances_and_normals(
        &self,
        points: impl Iterator<Item = (usize, Point3<f64>, f64)>,
        answer: impl FnMut(usize, f64, Vector3<f64>),
    ) {
        match self {
            TargetFrame::Shape {
                shape,
                rotation,
                translation,
                ..
            } => answer_each(points, answer, |q| {
                shape_distance_and_normal(*shape, rotation, translation, q)
            }),
            TargetFrame::FrameFree {
                form: FrameFree::Ball { radius },
                origin,
                axis,
                ..
            } => answer_each(
                points.filter(|(_, q, beyond)| {
                    let reach = radius + beyond;
                    !(reach > 0.0 && (q - origin).norm_squared() > reach * reach * (1.0 + BALL_SKIP_MARGIN))
                }),
                answer,
                |q| ball_distance_and_normal(*radius, origin, axis, q),
            ),
            TargetFrame::FrameFree {
                form: FrameFree::HalfSpace,
                origin,
                axis,
                ..
            } => answer_each(points, answer, |q| half_space_distance_and_normal(origin, axis, q)),
            TargetFrame::World { .. } => answer_each(points, answer, |q| (self.distance(q), self.normal(q))),
        }
    }

    /// Unit outward normal of the target at the pad-frame point `q`, in the pad frame.
    pub fn normal(&self, q: &Point3<f64>) -> Vector3<f64> {
        match self {
            TargetFrame::Shape {
                shape,
                rotation,
                translation,
                ..
            } => rotation.tr_mul(&shape.local_normal(&Point3::from(rotation * q.coords + translation))),
            TargetFrame::FrameFree { .. } => self.distance_and_normal(q).1,
            TargetFrame::World { target, pad_pose } => pad_pose.rotation.inverse() * target.normal(&(pad_pose * q)),
        }
    }
}

/// `answer(i, distance, normal)` with `query`'s distance and normal at each point `(i, q)` of
/// `points`, in order (one loop per kind of frame: [`TargetFrame::distances_and_normals`]).
#[inline(always)]
fn answer_each(
    points: impl Iterator<Item = (usize, Point3<f64>, f64)>,
    mut answer: impl FnMut(usize, f64, Vector3<f64>),
    query: impl Fn(&Point3<f64>) -> (f64, Vector3<f64>),
) {
    // `for_each`, not a `for` loop: a filtered run iterates internally (`fold`), without a
    // `next` call per point.
    points.for_each(|(i, q, _)| {
        let (distance, normal) = query(&q);
        answer(i, distance, normal);
    });
}

/// Relative margin by which a point's squared distance from a ball's centre must exceed
/// `(R + beyond)²` to go unanswered ([`TargetFrame::distances_and_normals`]).
const BALL_SKIP_MARGIN: f64 = 1e-12;

/// A primitive's distance and outward normal at the pad-frame point `q`, queried in its own
/// frame `q_shape = R q + t` and the normal turned back, `m_pad = Rᵀ m_shape`.
#[inline(always)]
fn shape_distance_and_normal(
    shape: &dyn Shape,
    rotation: &Matrix3<f64>,
    translation: &Vector3<f64>,
    q: &Point3<f64>,
) -> (f64, Vector3<f64>) {
    let (distance, normal) = shape.local_distance_and_normal(&Point3::from(rotation * q.coords + translation));
    (distance, rotation.tr_mul(&normal))
}

/// A ball's distance `|q − c| − R` and outward normal `(q − c)/|q − c|` (its `axis` at the
/// centre itself).
#[inline(always)]
fn ball_distance_and_normal(
    radius: f64,
    origin: &Point3<f64>,
    axis: &Vector3<f64>,
    q: &Point3<f64>,
) -> (f64, Vector3<f64>) {
    let offset = q - origin;
    let length = offset.norm();
    let normal = if length > 1e-300 { offset / length } else { *axis };
    (length - radius, normal)
}

/// A half-space's distance `m·(q − o)` and its normal `m`.
#[inline(always)]
fn half_space_distance_and_normal(origin: &Point3<f64>, axis: &Vector3<f64>, q: &Point3<f64>) -> (f64, Vector3<f64>) {
    (axis.dot(&(q - origin)), *axis)
}

/// The frames of `targets` for a pad at `pad_pose`.
#[cfg(test)]
pub(crate) fn target_frames<'a>(targets: &[&'a dyn Target], pad_pose: &Isometry3<f64>) -> Vec<TargetFrame<'a>> {
    let mut frames = Vec::with_capacity(targets.len());
    target_frames_into(targets, pad_pose, None, &mut frames);
    frames
}

/// The frames of `targets` for a pad at `pad_pose` whose queries all lie in `region`, if known
/// (a primitive whose distance follows one face's plane over the whole region is queried as that
/// half-space, [`Shape::face_within`]), into `frames` (cleared first, its storage reused).
pub(crate) fn target_frames_into<'a>(
    targets: &[&'a dyn Target],
    pad_pose: &Isometry3<f64>,
    region: Option<&QueryBox>,
    frames: &mut Vec<TargetFrame<'a>>,
) {
    frames.clear();
    frames.extend(targets.iter().map(|t| TargetFrame::build(*t, pad_pose, region)));
}

#[cfg(test)]
mod tests {
    use nalgebra::{Translation3, UnitQuaternion};

    use super::*;
    use crate::target::{Cuboid, Plane, Posed, Sphere, Twist};
    use crate::{CslcPad, CslcParams, PadGeometry, PatchResult, StepInput};

    /// A target that hides its shape: the world-frame path.
    struct Opaque<S: Shape>(Posed<S>);

    impl<S: Shape> Target for Opaque<S> {
        fn distance(&self, x: &Point3<f64>) -> f64 {
            self.0.distance(x)
        }
        fn normal(&self, x: &Point3<f64>) -> Vector3<f64> {
            self.0.normal(x)
        }
        fn surface_velocity(&self, x: &Point3<f64>) -> Vector3<f64> {
            self.0.surface_velocity(x)
        }
    }

    /// The pose of the test targets and the pad (world).
    fn poses() -> (Isometry3<f64>, Isometry3<f64>) {
        let target = Isometry3::from_parts(
            Translation3::new(0.1, -0.2, 0.3),
            UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1),
        );
        let pad = Isometry3::from_parts(
            Translation3::new(0.12, -0.18, 0.27),
            UnitQuaternion::from_euler_angles(-0.4, 0.2, 2.0),
        );
        (target, pad)
    }

    /// `direct` answers as `world` (the same target queried in the world) at 50 pad-frame points,
    /// and its combined query as its separate ones; `check` sees each point too.
    fn assert_answers_as_world(direct: &TargetFrame, world: &TargetFrame, mut check: impl FnMut(&Point3<f64>)) {
        for k in 0..50 {
            let s = k as f64;
            let q = Point3::new(0.04 * (0.7 * s).sin(), 0.05 * (1.3 * s).cos(), 0.06 * (0.4 * s).sin());
            // Rounding of one rotation composed differently: a few ulps of 0.1 m.
            assert!(
                (direct.distance(&q) - world.distance(&q)).abs() < 1e-15,
                "distance at {q}"
            );
            assert!((direct.normal(&q) - world.normal(&q)).norm() < 1e-14, "normal at {q}");
            let (distance, normal) = direct.distance_and_normal(&q);
            assert_eq!((distance, normal), (direct.distance(&q), direct.normal(&q)));
            check(&q);
        }
    }

    /// The ball and the half-space, queried in the pad frame without rotating the point, answer
    /// as the world-frame queries do, the rounding margin's length scale included; at the ball's
    /// centre the normal is the shape frame's +Z, as `Sphere::local_normal` has it.
    #[test]
    fn frame_free_shapes_answer_as_the_world_queries_do() {
        let (pose, pad_pose) = poses();
        let ball = Posed::new(Sphere { radius: 0.025 }, pose);
        let plane = Posed::new(Plane, pose);
        let (opaque_ball, opaque_plane) = (Opaque(ball.clone()), Opaque(plane.clone()));
        let shape_origin = pad_pose.inverse_transform_point(&Point3::from(pose.translation.vector));
        let translation = (pose.inverse() * pad_pose).translation.vector.norm();
        for (direct, world) in [
            (
                TargetFrame::new(&ball, &pad_pose),
                TargetFrame::new(&opaque_ball, &pad_pose),
            ),
            (
                TargetFrame::new(&plane, &pad_pose),
                TargetFrame::new(&opaque_plane, &pad_pose),
            ),
        ] {
            assert!(matches!(direct, TargetFrame::FrameFree { .. }));
            assert_answers_as_world(&direct, &world, |q| {
                let (exact, scale) = direct.exact_distance(q).expect("exact and convex");
                assert_eq!(exact, direct.distance(q));
                let expected = translation + (q - shape_origin).norm();
                assert!(
                    (scale - expected).abs() < 1e-15,
                    "scale at {q}: {scale} against {expected}"
                );
            });
        }
        let centre = TargetFrame::new(&ball, &pad_pose);
        let origin = match centre {
            TargetFrame::FrameFree { origin, .. } => Some(origin),
            _ => None,
        }
        .expect("a ball is frame-free");
        let up = pad_pose.inverse_transform_vector(&(pose.rotation * Vector3::z()));
        assert!((centre.normal(&origin) - up).norm() < 1e-15);
    }

    /// A ball's run of queries answers every point nearer than its `beyond` exactly as the single
    /// query does, bit for bit, and leaves out only points at least `beyond` away; the points
    /// straddle each limit by a few parts in 1e10 and by whole millimetres. Other frames answer
    /// every point.
    #[test]
    fn a_ball_leaves_out_only_the_points_beyond_their_reach() {
        let (pose, pad_pose) = poses();
        let ball = Posed::new(Sphere { radius: 0.025 }, pose);
        let plane = Posed::new(Plane, pose);
        let direct = TargetFrame::new(&ball, &pad_pose);
        let centre = match direct {
            TargetFrame::FrameFree { origin, .. } => Some(origin),
            _ => None,
        }
        .expect("a ball is frame-free");
        let mut points = Vec::new();
        for k in 0..400 {
            let s = k as f64;
            let direction = Vector3::new((0.7 * s).sin(), (1.3 * s).cos(), (0.4 * s).sin() + 0.1).normalize();
            let beyond = 0.001 + 0.002 * (0.37 * s).sin().abs();
            let offset = [-1e-3, -1e-10, -4e-12, 0.0, 4e-12, 1e-10, 1e-3][k % 7];
            let q = centre + direction * (0.025 + beyond + offset);
            points.push((k, q, beyond));
        }
        let mut answered = Vec::new();
        direct.distances_and_normals(points.iter().copied(), |i, distance, normal| {
            answered.push((i, distance, normal));
        });
        let mut kept = answered.iter();
        for &(i, q, beyond) in &points {
            let (distance, normal) = direct.distance_and_normal(&q);
            if distance < beyond {
                assert_eq!(
                    kept.next(),
                    Some(&(i, distance, normal)),
                    "point {i} nearer than its limit"
                );
            } else if answered.iter().any(|a| a.0 == i) {
                assert_eq!(kept.next(), Some(&(i, distance, normal)), "point {i} answered");
            }
        }
        assert!(kept.next().is_none());
        let left_out = points.len() - answered.len();
        assert!(left_out >= 150, "only {left_out} of {} points left out", points.len());
        let face = TargetFrame::new(&plane, &pad_pose);
        let mut count = 0;
        face.distances_and_normals(points.iter().copied(), |_, _, _| count += 1);
        assert_eq!(count, points.len());
    }

    /// A pad over a floor box queries the box's top face as a half-space, and it answers as the
    /// world-frame queries do over the region; a region over the floor's edge keeps the box.
    #[test]
    fn a_floor_under_a_pad_is_queried_as_its_top_face() {
        let (_, pad_pose) = poses();
        // The floor's top face 2 cm below the pad origin, the pad tilted as `poses` has it.
        let floor_pose = Isometry3::from_parts(
            Translation3::new(0.3, -0.1, 0.27 - 0.02 - 0.1),
            UnitQuaternion::from_euler_angles(0.0, 0.0, 0.4),
        );
        let floor = Posed::new(
            Cuboid {
                half_extents: Vector3::new(2.0, 2.0, 0.1),
            },
            floor_pose,
        );
        let opaque = Opaque(floor.clone());
        let world = TargetFrame::new(&opaque, &pad_pose);
        // The points `assert_answers_as_world` draws, with room to spare.
        let region = QueryBox {
            lower: Vector3::repeat(-0.07),
            upper: Vector3::repeat(0.07),
        };
        let face = TargetFrame::within(&floor, &pad_pose, &region);
        assert!(face.is_face());
        assert_answers_as_world(&face, &world, |q| {
            let (exact, _) = face.exact_distance(q).expect("exact and convex");
            assert_eq!(exact, face.distance(q));
        });
        // Without a region, or past the floor's edge, the box itself.
        assert!(matches!(TargetFrame::new(&floor, &pad_pose), TargetFrame::Shape { .. }));
        let edge = QueryBox {
            lower: Vector3::repeat(-3.0),
            upper: Vector3::repeat(0.07),
        };
        assert!(matches!(
            TargetFrame::within(&floor, &pad_pose, &edge),
            TargetFrame::Shape { .. }
        ));
    }

    /// A pad of 15 × 15 spheres over 3 cm, solved to a relative residual of 1e-11.
    fn flat_pad() -> CslcPad {
        let lattice = PadGeometry::flat(15, 15, 0.002).build().expect("lattice");
        let params = CslcParams {
            tolerance: 1e-11,
            max_iterations: 20_000,
            ..CslcParams::default()
        };
        CslcPad::new(lattice, params).expect("pad")
    }

    /// A 2 m × 2 m × 0.2 m box whose bottom face is `depth` below the spheres' tops (z = 0),
    /// offset sideways by `shift`.
    fn slab(depth: f64, shift: f64) -> Posed<Cuboid> {
        Posed::new(
            Cuboid {
                half_extents: Vector3::new(1.0, 1.0, 0.1),
            },
            Isometry3::from_parts(Translation3::new(0.3 + shift, -0.2, 0.1 - depth), Default::default()),
        )
    }

    fn step(pad: &mut CslcPad, target: &dyn Target) -> PatchResult {
        let targets = [target];
        pad.step(&StepInput {
            pad_pose: Isometry3::identity(),
            pad_twist: Twist::default(),
            targets: &targets,
            friction: 0.5,
            dynamic_friction: 0.4,
            dt: 1e-3,
        })
        .expect("step")
    }

    fn assert_same_patch(face: &PatchResult, shape: &PatchResult, what: &str) {
        let scale = shape.total_force.norm();
        assert!(scale > 0.0, "{what}: no load");
        assert!(
            (face.total_force - shape.total_force).norm() <= 1e-8 * scale,
            "{what}: {} against {}",
            face.total_force,
            shape.total_force
        );
        assert!((face.total_torque - shape.total_torque).norm() <= 1e-8 * scale * 0.03);
        let touched = |p: &PatchResult| p.touching.iter().map(|s| (s.index, s.target)).collect::<Vec<_>>();
        assert_eq!(touched(face), touched(shape), "{what}: touching spheres");
    }

    /// A pad pressed by a large box queries the box's face as a half-space and must answer as
    /// the box itself does: the same box hidden behind a target that reveals no shape is queried
    /// point by point in the world, and both give the same patch to the sweeps' tolerance.
    /// Pressed gently (the face holds over the whole step), slid sideways under the box, and
    /// pressed deeper in one step than the query region allows for (the solved field leaves it:
    /// the patch is assembled on the box itself). The two differ in the rounding of each query (a
    /// few 1e-17 m on centimetre lengths), which the sweeps, stopped at a relative residual of
    /// 1e-11, carry into the forces: `1e-8` of the total force is far above that and far below
    /// any modelling difference.
    #[test]
    fn a_pad_under_a_box_answers_as_the_box_queried_in_the_world() {
        let mut by_face = flat_pad();
        let mut by_shape = flat_pad();
        // Gently, then sliding 0.1 mm per step.
        for k in 0..4 {
            let box_ = slab(2e-4, 1e-4 * k as f64);
            let face = step(&mut by_face, &box_);
            let shape = step(&mut by_shape, &Opaque(box_.clone()));
            assert!(face.converged && shape.converged);
            assert_same_patch(&face, &shape, &format!("gentle step {k}"));
        }
        // From rest, pressed 6 sphere radii deep in one step: deeper than the region the face was
        // chosen for (two radii of reach and two more, the pad at rest).
        let mut by_face = flat_pad();
        let mut by_shape = flat_pad();
        let radius = by_face.lattice().spheres()[0].radius;
        let box_ = slab(6.0 * radius, 0.0);
        let face = step(&mut by_face, &box_);
        let shape = step(&mut by_shape, &Opaque(box_.clone()));
        assert!(face.fast_impact && shape.fast_impact);
        let deepest = by_face.displacements().iter().map(|d| d.norm()).fold(0.0, f64::max);
        assert!(
            deepest > 4.0 * radius,
            "the solved field stayed within the region: {deepest}"
        );
        assert_same_patch(&face, &shape, "deep step");
    }

    #[test]
    fn shape_frames_answer_as_the_world_queries_do() {
        let (pose, pad_pose) = poses();
        let posed = Posed::new(
            Cuboid {
                half_extents: Vector3::new(0.03, 0.02, 0.05),
            },
            pose,
        );
        let opaque = Opaque(posed.clone());
        let direct = TargetFrame::new(&posed, &pad_pose);
        let world = TargetFrame::new(&opaque, &pad_pose);
        assert!(matches!(direct, TargetFrame::Shape { .. }));
        assert!(matches!(world, TargetFrame::World { .. }));
        assert_answers_as_world(&direct, &world, |_| {});
    }
}
