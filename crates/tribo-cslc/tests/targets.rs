//! Signed distances and normals of every primitive target against closed forms.
//!
//! The references below are written independently of `src/target.rs` (region by region, rather
//! than through the crate's generic convex-profile routine): for each primitive, the nearest
//! boundary feature (face, edge, rim, apex) is chosen from the point's Voronoi region, outside
//! the distance is the Euclidean distance to that feature, inside it is minus the distance to the
//! nearest face. Points are drawn with a seeded ChaCha8 generator in a box 1.6× the shape's
//! extent, so both inside and outside points are tested (counts asserted); every shape is also
//! tested under random rigid poses (rotation + translation), through [`Posed`].
//!
//! Tolerances (shapes of 2–10 cm):
//! - distance: `1e-12` m absolute — both sides are a few flops of `f64` on values ≲ 0.2 m
//!   (ε·0.2 m ≈ 4e-17 m per operation; poses add a rotation of the point);
//! - normal vs. reference: `1e-9` per component (unit vectors; normalisations of lengths down to
//!   ~1e-4 m lose at most ε/1e-4 relative);
//! - normal vs. finite-difference gradient of `distance` (central, step `ε = 1e-7` m):
//!   truncation `ε² |∇³d| ≲ 1e-14 / (1 cm)²` ≈ 1e-10 and rounding `≈ 1e-17 m / ε` ≈ 1e-10; bound
//!   `1e-6`. The distance is C¹ outside a convex solid, but inside it has ridges (the medial axis:
//!   where two faces are equally near). A point is used for the gradient check only where the
//!   forward and backward differences agree within `1e-4` along all three axes (no kink inside the
//!   stencil); at most 2 % of the points may be skipped so.
//! - the nearest surface point `x − d n(x)` must lie on the surface: `|distance| < 1e-12` m.

use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tribo_cslc::{Capsule, Cone, Cuboid, Cylinder, Plane, Posed, Shape, Sphere, Target, Twist};

const DISTANCE_TOL: f64 = 1e-12;
const NORMAL_TOL: f64 = 1e-9;
const FD_STEP: f64 = 1e-7;
const FD_TOL: f64 = 1e-6;
const KINK: f64 = 1e-4;
const POINTS: usize = 4000;

type Reference = fn(&Point3<f64>) -> (f64, Vector3<f64>);

/// Unit radial direction `(x, 0, z)/ρ` and `ρ` about the local Y axis.
fn radial(p: &Point3<f64>) -> (Vector3<f64>, f64) {
    let rho = p.x.hypot(p.z);
    (Vector3::new(p.x / rho, 0.0, p.z / rho), rho)
}

fn sign(v: f64) -> f64 {
    if v < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// Half-space `z ≤ 0`.
fn plane_ref(p: &Point3<f64>) -> (f64, Vector3<f64>) {
    (p.z, Vector3::z())
}

const BALL: f64 = 0.05;
fn sphere_ref(p: &Point3<f64>) -> (f64, Vector3<f64>) {
    let r = p.coords.norm();
    (r - BALL, p.coords / r)
}

const HALF: Vector3<f64> = Vector3::new(0.03, 0.05, 0.02);
/// Box: outside, distance to the clamped point (face, edge or corner); inside, minus the nearest
/// face distance `min_k (e_k − |p_k|)`, normal `±e_k`.
fn cuboid_ref(p: &Point3<f64>) -> (f64, Vector3<f64>) {
    let clamped = Vector3::new(
        p.x.clamp(-HALF.x, HALF.x),
        p.y.clamp(-HALF.y, HALF.y),
        p.z.clamp(-HALF.z, HALF.z),
    );
    let out = p.coords - clamped;
    let d = out.norm();
    if d > 0.0 {
        return (d, out / d);
    }
    let gaps = [HALF.x - p.x.abs(), HALF.y - p.y.abs(), HALF.z - p.z.abs()];
    let mut k = 0;
    for j in 1..3 {
        if gaps[j] < gaps[k] {
            k = j;
        }
    }
    let mut n = Vector3::zeros();
    n[k] = sign(p[k]);
    (-gaps[k], n)
}

const CYL_R: f64 = 0.04;
const CYL_H: f64 = 0.1;
/// Cylinder on Y: `d_r = ρ − r`, `d_y = |y| − H/2`; regions side / cap / rim / inside.
fn cylinder_ref(p: &Point3<f64>) -> (f64, Vector3<f64>) {
    let (radial, rho) = radial(p);
    let dr = rho - CYL_R;
    let dy = p.y.abs() - 0.5 * CYL_H;
    let axial = Vector3::y() * sign(p.y);
    match (dr > 0.0, dy > 0.0) {
        (true, true) => {
            let d = dr.hypot(dy);
            (d, (radial * dr + axial * dy) / d)
        }
        (true, false) => (dr, radial),
        (false, true) => (dy, axial),
        (false, false) if dr > dy => (dr, radial),
        (false, false) => (dy, axial),
    }
}

const CAP_R: f64 = 0.02;
const CAP_L: f64 = 0.06;
/// Capsule on Y: beside the segment, the distance to the axis minus R; beyond an end, the
/// distance to that end's centre minus R.
fn capsule_ref(p: &Point3<f64>) -> (f64, Vector3<f64>) {
    let h = 0.5 * CAP_L;
    if p.y.abs() <= h {
        let (radial, rho) = radial(p);
        (rho - CAP_R, radial)
    } else {
        let v = p.coords - Vector3::new(0.0, sign(p.y) * h, 0.0);
        let r = v.norm();
        (r - CAP_R, v / r)
    }
}

const CONE_R: f64 = 0.04;
const CONE_H: f64 = 0.09;
/// Cone on +Y (base radius R at y = −H/2, apex at y = +H/2), in the meridian half-plane
/// `q = (ρ, y)`: rim `B = (R, −H/2)`, apex `A = (0, H/2)`, slant unit tangent `t̂ = (−R, H)/s` from
/// B to A and outward slant normal `n̂ = (H, R)/s`, `s = √(R² + H²)`. With `σ = (q − B)·n̂` and
/// `τ = (q − B)·t̂`:
/// inside (`σ ≤ 0`, `y ≥ −H/2`): `−min(−σ, y + H/2)`; outside: below the base
/// (`y < −H/2`, `ρ ≤ R`) `−H/2 − y`; rim region (`ρ > R`, `τ < 0`) `|q − B|`; apex region (`τ > s`)
/// `|q − A|`; otherwise the slant, `σ`.
fn cone_ref(p: &Point3<f64>) -> (f64, Vector3<f64>) {
    let (radial, rho) = radial(p);
    let h = 0.5 * CONE_H;
    let s = CONE_R.hypot(CONE_H);
    let (bx, by) = (rho - CONE_R, p.y + h);
    let sigma = (CONE_H * bx + CONE_R * by) / s;
    let tau = (-CONE_R * bx + CONE_H * by) / s;
    let slant = (radial * CONE_H + Vector3::y() * CONE_R) / s;
    let meridian = |x: f64, y: f64| radial * x + Vector3::y() * y;
    if sigma <= 0.0 && by >= 0.0 {
        return if -sigma < by {
            (sigma, slant)
        } else {
            (-by, -Vector3::y())
        };
    }
    if by < 0.0 && rho <= CONE_R {
        (-by, -Vector3::y())
    } else if bx > 0.0 && tau < 0.0 {
        let d = bx.hypot(by);
        (d, meridian(bx / d, by / d))
    } else if tau > s {
        let (ax, ay) = (rho, p.y - h);
        let d = ax.hypot(ay);
        (d, meridian(ax / d, ay / d))
    } else {
        (sigma, slant)
    }
}

/// A primitive's reference and the half-size of its sampling box.
struct Case {
    name: &'static str,
    reference: Reference,
    extent: Vector3<f64>,
}

fn random_pose(rng: &mut ChaCha8Rng) -> Isometry3<f64> {
    let axis = Vector3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    );
    let rotation = UnitQuaternion::from_scaled_axis(axis.normalize() * rng.random_range(0.1..3.1));
    let shift = Translation3::new(
        rng.random_range(-0.5..0.5),
        rng.random_range(-0.5..0.5),
        rng.random_range(-0.5..0.5),
    );
    Isometry3::from_parts(shift, rotation)
}

/// Central finite-difference gradient of `target.distance` at `x`, or `None` when a kink lies
/// inside the stencil (forward and backward differences disagree).
fn fd_gradient(target: &dyn Target, x: &Point3<f64>) -> Option<Vector3<f64>> {
    let d0 = target.distance(x);
    let mut gradient = Vector3::zeros();
    for k in 0..3 {
        let mut e = Vector3::zeros();
        e[k] = FD_STEP;
        let forward = (target.distance(&(x + e)) - d0) / FD_STEP;
        let backward = (d0 - target.distance(&(x - e))) / FD_STEP;
        if (forward - backward).abs() > KINK {
            return None;
        }
        gradient[k] = 0.5 * (forward + backward);
    }
    Some(gradient)
}

/// Checks `target` (the shape at `pose`) at `POINTS` random points around it. Returns the
/// (inside, outside) counts.
fn check(case: &Case, target: &dyn Target, pose: &Isometry3<f64>, rng: &mut ChaCha8Rng) -> (usize, usize) {
    let (mut inside, mut outside, mut skipped) = (0, 0, 0);
    for _ in 0..POINTS {
        let local = Point3::new(
            rng.random_range(-1.6..1.6) * case.extent.x,
            rng.random_range(-1.6..1.6) * case.extent.y,
            rng.random_range(-1.6..1.6) * case.extent.z,
        );
        let x = pose * local;
        let (d_ref, n_ref) = (case.reference)(&local);
        let n_ref = pose.rotation * n_ref;
        let d = target.distance(&x);
        let n = target.normal(&x);
        let name = case.name;
        assert!(
            (d - d_ref).abs() < DISTANCE_TOL,
            "{name} at local {local}: distance {d}, reference {d_ref}"
        );
        assert!(
            (n - n_ref).amax() < NORMAL_TOL,
            "{name} at local {local} (d = {d}): normal {n}, reference {n_ref}"
        );
        assert!((n.norm() - 1.0).abs() < NORMAL_TOL);
        let foot = x - n * d;
        assert!(
            target.distance(&foot).abs() < DISTANCE_TOL,
            "{name}: x − d n is not on the surface ({})",
            target.distance(&foot)
        );
        match fd_gradient(target, &x) {
            Some(g) => assert!(
                (g - n).amax() < FD_TOL,
                "{name} at local {local} (d = {d}): normal {n}, finite-difference gradient {g}"
            ),
            None => skipped += 1,
        }
        if d < 0.0 {
            inside += 1;
        } else {
            outside += 1;
        }
    }
    assert!(
        skipped * 50 <= POINTS,
        "{}: {skipped} of {POINTS} points skipped near ridges",
        case.name
    );
    (inside, outside)
}

/// Checks `shape` at the identity and at four random poses; returns the (inside, outside) counts.
fn check_shape<S: Shape + Clone>(case: &Case, shape: &S, rng: &mut ChaCha8Rng) -> (usize, usize) {
    let mut poses = vec![Isometry3::identity()];
    poses.extend((0..4).map(|_| random_pose(rng)));
    let (mut inside, mut outside) = (0, 0);
    for pose in &poses {
        let target = Posed::new(shape.clone(), *pose);
        let (i, o) = check(case, &target, pose, rng);
        inside += i;
        outside += o;
    }
    println!("{}: {inside} points inside, {outside} outside", case.name);
    // The sampling box is 1.6× the extent: a fair share falls on each side.
    assert!(inside * 20 > POINTS, "{}: only {inside} points inside", case.name);
    assert!(outside * 20 > POINTS, "{}: only {outside} points outside", case.name);
    (inside, outside)
}

#[test]
fn distances_and_normals_match_closed_forms() {
    let mut rng = ChaCha8Rng::seed_from_u64(20_250_601);
    let case = |name, reference: Reference, extent| Case {
        name,
        reference,
        extent,
    };
    check_shape(
        &case("plane", plane_ref, Vector3::new(0.1, 0.1, 0.05)),
        &Plane,
        &mut rng,
    );
    check_shape(
        &case("sphere", sphere_ref, Vector3::repeat(BALL)),
        &Sphere { radius: BALL },
        &mut rng,
    );
    check_shape(
        &case("cuboid", cuboid_ref, HALF),
        &Cuboid { half_extents: HALF },
        &mut rng,
    );
    check_shape(
        &case("cylinder", cylinder_ref, Vector3::new(CYL_R, 0.5 * CYL_H, CYL_R)),
        &Cylinder {
            radius: CYL_R,
            height: CYL_H,
        },
        &mut rng,
    );
    check_shape(
        &case("capsule", capsule_ref, Vector3::new(CAP_R, 0.5 * CAP_L + CAP_R, CAP_R)),
        &Capsule {
            radius: CAP_R,
            length: CAP_L,
        },
        &mut rng,
    );
    check_shape(
        &case("cone", cone_ref, Vector3::new(CONE_R, 0.5 * CONE_H, CONE_R)),
        &Cone {
            radius: CONE_R,
            height: CONE_H,
        },
        &mut rng,
    );
}

/// `Posed` of a moving shape agrees with the reference through its pose, and reports
/// the rigid velocity field `v + ω × (x − o)` of its twist.
#[test]
fn posed_shapes_transform_distance_normal_and_velocity() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let cone = Cone {
        radius: CONE_R,
        height: CONE_H,
    };
    let case = Case {
        name: "posed moving cone",
        reference: cone_ref,
        extent: Vector3::new(CONE_R, 0.5 * CONE_H, CONE_R),
    };
    for _ in 0..4 {
        let pose = random_pose(&mut rng);
        let twist = Twist {
            linear: Vector3::new(0.3, -0.2, 0.1),
            angular: Vector3::new(1.0, 2.0, -0.5),
        };
        let posed = Posed::new(cone, pose).moving(twist);
        check(&case, &posed, &pose, &mut rng);
        let x = Point3::new(0.1, 0.2, -0.3);
        let origin = Point3::from(pose.translation.vector);
        let expected = twist.linear + twist.angular.cross(&(x - origin));
        assert!((posed.surface_velocity(&x) - expected).norm() < 1e-15);
        // The rigid motion a pad evaluates in line gives the surface velocity bit for bit.
        let (motion, motion_origin) = posed.rigid_motion().expect("a posed target moves rigidly");
        let in_line = motion.velocity_at(&motion_origin, &x);
        let called = posed.surface_velocity(&x);
        assert!(in_line
            .iter()
            .zip(called.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }
    // A posed plane: distance is the height above the rotated, shifted surface.
    let pose = random_pose(&mut rng);
    let plane = Posed::new(Plane, pose);
    let up = pose.rotation * Vector3::z();
    for _ in 0..100 {
        let x = Point3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let height = (x - Point3::from(pose.translation.vector)).dot(&up);
        assert!((plane.distance(&x) - height).abs() < DISTANCE_TOL);
        assert!((plane.normal(&x) - up).amax() < NORMAL_TOL);
    }
}

/// The primitives declare an exact convex distance (`Shape::exact_convex_distance`), which lets
/// a pad skip queries: check both properties it relies on, at random pairs of points (inside and
/// outside, including the axis and the centre): 1-Lipschitz, `|d(q) − d(p)| ≤ |q − p|`, and never
/// below the tangent plane, `d(q) ≥ d(p) + n(p)·(q − p)`, within rounding.
#[test]
fn primitive_distances_are_convex_and_1_lipschitz() {
    let mut rng = ChaCha8Rng::seed_from_u64(1412);
    let shapes: [(&str, &dyn Shape, f64); 6] = [
        ("plane", &Plane, 0.1),
        ("sphere", &Sphere { radius: BALL }, 0.08),
        (
            "cuboid",
            &Cuboid {
                half_extents: Vector3::new(0.03, 0.02, 0.05),
            },
            0.08,
        ),
        (
            "cylinder",
            &Cylinder {
                radius: 0.02,
                height: 0.06,
            },
            0.06,
        ),
        (
            "cone",
            &Cone {
                radius: 0.03,
                height: 0.05,
            },
            0.06,
        ),
        (
            "capsule",
            &Capsule {
                radius: 0.01,
                length: 0.04,
            },
            0.05,
        ),
    ];
    for (name, shape, extent) in shapes {
        assert!(shape.exact_convex_distance(), "{name}");
        let point = |rng: &mut ChaCha8Rng| {
            let mut p = Point3::new(
                rng.random_range(-extent..extent),
                rng.random_range(-extent..extent),
                rng.random_range(-extent..extent),
            );
            // Every tenth point on the local Y axis, every twentieth at the origin.
            match rng.random_range(0..20) {
                0 => p = Point3::origin(),
                1 => (p.x, p.z) = (0.0, 0.0),
                _ => {}
            }
            p
        };
        for _ in 0..POINTS {
            let p = point(&mut rng);
            let q = if rng.random_bool(0.5) {
                point(&mut rng)
            } else {
                p + Vector3::new(
                    rng.random_range(-0.002..0.002),
                    rng.random_range(-0.002..0.002),
                    rng.random_range(-0.002..0.002),
                )
            };
            let (dp, np) = shape.local_distance_and_normal(&p);
            let dq = shape.local_distance(&q);
            assert!(
                (dq - dp).abs() <= (q - p).norm() + DISTANCE_TOL,
                "{name}: not 1-Lipschitz between {p} and {q}"
            );
            assert!(
                dq >= dp + np.dot(&(q - p)) - DISTANCE_TOL,
                "{name}: below the tangent plane at {p}: d(q) = {dq}, plane {}",
                dp + np.dot(&(q - p))
            );
        }
    }
}

/// A box's face stands for the box over a region (`Shape::face_within`) exactly where the
/// box's distance is that face's plane distance: for random regions, every point drawn in a
/// region with a face (on both sides of the face, inside the box down to its middle) has the
/// reference distance `m·(p − o)` and normal `m`, within the distance and normal tolerances;
/// regions that cross an edge, reach past the middle or come nearer another face get none.
/// Both outcomes are drawn (counts asserted).
#[test]
fn a_box_face_stands_for_the_box_only_where_its_plane_is_the_distance() {
    let mut rng = ChaCha8Rng::seed_from_u64(2027);
    let cuboid = Cuboid { half_extents: HALF };
    let (mut with_face, mut without) = (0, 0);
    for _ in 0..4000 {
        let centre = HALF.map(|e| rng.random_range(-1.6 * e..1.6 * e));
        let half = HALF.map(|e| rng.random_range(0.0..0.4 * e));
        let (lower, upper) = (centre - half, centre + half);
        let Some((origin, normal)) = cuboid.face_within(&lower, &upper) else {
            without += 1;
            continue;
        };
        with_face += 1;
        assert!((normal.norm() - 1.0).abs() < 1e-15);
        for _ in 0..20 {
            let p = Point3::new(
                rng.random_range(lower.x..=upper.x),
                rng.random_range(lower.y..=upper.y),
                rng.random_range(lower.z..=upper.z),
            );
            let (distance, n) = cuboid_ref(&p);
            assert!(
                (normal.dot(&(p - origin)) - distance).abs() < DISTANCE_TOL,
                "distance at {p}: plane {} against box {distance}",
                normal.dot(&(p - origin))
            );
            assert!((n - normal).norm() < NORMAL_TOL, "normal at {p}: {n} against {normal}");
            let (local, local_normal) = cuboid.local_distance_and_normal(&p);
            assert!((local - distance).abs() < DISTANCE_TOL);
            assert_eq!(local_normal, normal);
        }
    }
    assert!(
        with_face > 100 && without > 100,
        "{with_face} regions with a face, {without} without"
    );
    // A floor under a foot: the top face.
    let floor = Cuboid {
        half_extents: Vector3::new(5.0, 5.0, 0.1),
    };
    let foot = (Vector3::new(0.2, -0.1, 0.05), Vector3::new(0.4, 0.05, 0.13));
    assert_eq!(
        floor.face_within(&foot.0, &foot.1),
        Some((Point3::new(0.0, 0.0, 0.1), Vector3::z()))
    );
    // Over the floor's edge, or down past its middle: none.
    assert_eq!(
        floor.face_within(&Vector3::new(4.9, 0.0, 0.05), &Vector3::new(5.1, 0.1, 0.13)),
        None
    );
    assert_eq!(
        floor.face_within(&Vector3::new(0.2, 0.0, -0.01), &Vector3::new(0.4, 0.1, 0.13)),
        None
    );
    // Shapes without faces have none.
    assert_eq!(Sphere { radius: 0.1 }.face_within(&foot.0, &foot.1), None);
}
