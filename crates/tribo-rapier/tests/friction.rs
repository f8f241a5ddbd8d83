//! Friction against analytic answers (box on a plane, box on an incline, static vs dynamic).

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_model::Geometry;
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;
const SIDE: f64 = 0.2;

/// A 1 kg cube of side `side` resting on `ground(tilt)` with its faces along the slope, moving at
/// `speed` down the slope.
fn box_on_slope(
    side: f64,
    tilt: f64,
    static_friction: f64,
    dynamic_friction: f64,
    speed: f64,
) -> std::sync::Arc<tribo_engine::Scene> {
    let table = pair_table(static_friction, dynamic_friction, 0.0);
    let (down, normal) = slope_axes(tilt);
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), tilt);
    let pose = Isometry3::from_parts(Translation3::from(normal * (side / 2.0)), rotation);
    let cube = solid(
        "box",
        Geometry::Box {
            size: Vector3::repeat(side),
        },
        1.0,
        "Thing",
    );
    let mut placed = place("box", cube, pose, false, &table);
    placed.root_linear_velocity = down * speed;
    scene(vec![ground(tilt, &table), placed], table)
}

/// Displacement down the slope and speed after `seconds` of the 0.2 m cube.
fn slide(tilt: f64, static_friction: f64, dynamic_friction: f64, speed: f64, seconds: f64) -> (f64, f64) {
    slide_from(SIDE, tilt, static_friction, dynamic_friction, speed, seconds)
}

/// Displacement down the slope and speed after `seconds` of a cube of side `side` released at rest.
fn slide_box(side: f64, tilt: f64, static_friction: f64, dynamic_friction: f64, seconds: f64) -> (f64, f64) {
    slide_from(side, tilt, static_friction, dynamic_friction, 0.0, seconds)
}

fn slide_from(
    side: f64,
    tilt: f64,
    static_friction: f64,
    dynamic_friction: f64,
    speed: f64,
    seconds: f64,
) -> (f64, f64) {
    let scene = box_on_slope(side, tilt, static_friction, dynamic_friction, speed);
    let mut engine = engine(&RapierFactory, &scene);
    let (down, _) = slope_axes(tilt);
    let start = root_position(engine.state(), 1);
    run(engine.as_mut(), &scene, DT, (seconds / DT).round() as usize, |_| {});
    let state = engine.state();
    (
        (root_position(state, 1) - start).dot(&down),
        state.bodies[1].links[0].linear_velocity.dot(&down),
    )
}

#[test]
fn sliding_box_stops_at_v2_over_2_mu_g() {
    for mu in [0.5, 0.2] {
        let v0: f64 = 2.0;
        let expected = v0 * v0 / (2.0 * mu * G);
        let (distance, speed) = slide(0.0, mu, mu, v0, 2.0 * v0 / (mu * G) + 0.5);
        let error = (distance - expected) / expected;
        eprintln!(
            "mu = {mu}: stopped after {distance:.5} m, expected {expected:.5} m ({:+.2} %)",
            error * 100.0
        );
        assert!(speed.abs() < 1e-3, "the box must have stopped, v = {speed}");
        assert!(error.abs() < 0.03, "stop distance {distance} m vs {expected} m");
    }
}

#[test]
fn box_sticks_below_the_friction_angle() {
    // μ = 0.5: the friction angle is atan 0.5 = 26.57°.
    for degrees in [20.0_f64, 25.0] {
        let (distance, _) = slide(degrees.to_radians(), 0.5, 0.5, 0.0, 2.0);
        eprintln!("{degrees}°: moved {:.3} mm in 2 s", distance * 1e3);
        assert!(distance.abs() < 0.5e-3, "{degrees}°: moved {distance} m");
    }
}

#[test]
fn box_slides_above_the_friction_angle() {
    let tilt = 30.0_f64.to_radians();
    let mu = 0.5;
    let t = 2.0;
    let expected = 0.5 * G * (tilt.sin() - mu * tilt.cos()) * t * t;
    let (distance, _) = slide(tilt, mu, mu, 0.0, t);
    let error = (distance - expected) / expected;
    eprintln!(
        "30°: slid {distance:.4} m in 2 s, expected {expected:.4} m ({:+.2} %)",
        error * 100.0
    );
    assert!(error.abs() < 0.05, "slid {distance} m vs {expected} m");
}

#[test]
fn static_and_dynamic_friction_follow_the_aist_rule() {
    // μs = 0.6 > tan 0.4 = 0.423 > μk = 0.3 on a 0.4 rad slope.
    let tilt = 0.4_f64;
    let (distance, speed) = slide(tilt, 0.6, 0.3, 0.0, 2.0);
    eprintln!("from rest: moved {:.3} mm, v = {speed:.2e} m/s", distance * 1e3);
    assert!(
        distance.abs() < 0.5e-3 && speed.abs() < 1e-3,
        "held by static friction: moved {distance} m"
    );

    let expected = G * (tilt.sin() - 0.3 * tilt.cos());
    let (_, speed) = slide(tilt, 0.6, 0.3, 1.0, 2.0);
    let acceleration = (speed - 1.0) / 2.0;
    let error = (acceleration - expected) / expected;
    eprintln!(
        "started at 1 m/s: a = {acceleration:.4} m/s², expected {expected:.4} ({:+.2} %)",
        error * 100.0
    );
    assert!(error.abs() < 0.03, "a = {acceleration} vs {expected}");
}

/// μs = 0.6, μk = 0.4, a 0.1 m box released at rest: Coulomb's law holds it at every angle below
/// atan 0.6 = 30.96° (soft contact may creep, but its static cone is not saturated), and above it
/// the box slides at g (sin θ − μk cos θ).
#[test]
fn static_friction_holds_up_to_its_angle_and_dynamic_friction_slides_above() {
    for degrees in [20.0_f64, 25.0, 28.0, 30.0, 30.9] {
        let (distance, speed) = slide_box(0.1, degrees.to_radians(), 0.6, 0.4, 2.0);
        eprintln!("{degrees}°: moved {:.4} mm in 2 s, v = {speed:.2e} m/s", distance * 1e3);
        assert!(
            distance.abs() < 0.5e-3 && speed.abs() < 1e-3,
            "{degrees}°: static friction 0.6 must hold (tan θ = {:.4}), moved {distance} m",
            degrees.to_radians().tan()
        );
    }
    let tilt = 32.0_f64.to_radians();
    let expected = 0.5 * G * (tilt.sin() - 0.4 * tilt.cos()) * 4.0;
    let (distance, _) = slide_box(0.1, tilt, 0.6, 0.4, 2.0);
    let error = (distance - expected) / expected;
    eprintln!(
        "32°: slid {distance:.4} m in 2 s, expected {expected:.4} m ({:+.2} %)",
        error * 100.0
    );
    assert!((expected - 3.7415).abs() < 1e-4, "the closed form itself: {expected}");
    assert!(error.abs() < 0.01, "32°: slid {distance} m vs {expected} m (±1 %)");
}

#[test]
fn each_pair_uses_its_own_contact_material() {
    // Two boxes side by side on one ground, Ice (μ = 0.1) and Rubber (μ = 0.8), both at 2 m/s.
    let table = table(
        "materials:\n  - name: Ground\n  - name: Ice\n  - name: Rubber\ncontact_materials:\n  \
         - materials: [Ground, Ice]\n    friction: 0.1\n  - materials: [Ground, Rubber]\n    friction: 0.8\n",
        &["Ground", "Ice", "Rubber"],
    );
    let mut bodies = vec![ground(0.0, &table)];
    for (y, material) in [(-1.0, "Ice"), (1.0, "Rubber")] {
        let cube = solid(
            material,
            Geometry::Box {
                size: Vector3::repeat(SIDE),
            },
            1.0,
            material,
        );
        let mut placed = place(
            material,
            cube,
            Isometry3::translation(0.0, y, SIDE / 2.0),
            false,
            &table,
        );
        placed.root_linear_velocity = Vector3::new(2.0, 0.0, 0.0);
        bodies.push(placed);
    }
    let scene = scene(bodies, table);
    let mut engine = engine(&RapierFactory, &scene);
    run(engine.as_mut(), &scene, DT, 2500, |_| {});
    for (body, mu) in [(1, 0.1), (2, 0.8)] {
        let expected = 4.0 / (2.0 * mu * G);
        let distance = root_position(engine.state(), body).x;
        eprintln!("μ = {mu}: stopped after {distance:.4} m, expected {expected:.4} m");
        assert!(
            ((distance - expected) / expected).abs() < 0.03,
            "μ = {mu}: {distance} m vs {expected} m"
        );
    }
}
