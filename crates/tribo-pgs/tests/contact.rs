//! Analytic contact cases on the `pgs` engine: restitution, sliding, inclines, static and dynamic
//! friction, resting forces, stacks, culling and compliant contact.

use nalgebra::{Isometry3, UnitQuaternion, Vector3};
use tribo_model::Geometry;
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;

fn cube(size: f64) -> Geometry {
    Geometry::Box {
        size: Vector3::repeat(size),
    }
}

/// A 1 kg, 0.2 m box resting on `ground(tilt)`, its bottom face on the surface.
fn box_on_slope(tilt: f64, table: tribo_material::ContactTable) -> std::sync::Arc<tribo_engine::Scene> {
    let (_, normal) = slope_axes(tilt);
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), tilt);
    let pose = Isometry3::from_parts((normal * 0.1).into(), rotation);
    let b = solid("box", cube(0.2), 1.0, "Thing");
    scene(vec![ground(tilt, &table), place("box", b, pose, false, &table)], table)
}

#[test]
fn ball_rebounds_to_e_squared() {
    let radius = 0.1;
    for e in [0.8, 0.5] {
        let table = pair_table(0.5, 0.5, e);
        let ball = solid("ball", Geometry::Sphere { radius }, 1.0, "Thing");
        let s = scene(
            vec![
                ground(0.0, &table),
                place(
                    "ball",
                    ball,
                    Isometry3::translation(0.0, 0.0, 1.0 + radius),
                    false,
                    &table,
                ),
            ],
            table,
        );
        let mut sim = engine(&PgsFactory, &s);
        let (mut bounced, mut apex) = (false, 0.0_f64);
        run(sim.as_mut(), &s, DT, 1300, |state| {
            let link = &state.bodies[1].links[0];
            bounced |= link.linear_velocity.z > 0.0;
            if bounced {
                apex = apex.max(link.pose.translation.vector.z - radius);
            }
        });
        eprintln!("e = {e}: apex ratio {apex:.4}, expected {:.4}", e * e);
        assert!((apex - e * e).abs() < 0.01, "e = {e}: apex ratio {apex}");
    }
}

#[test]
fn sliding_box_stops_at_v2_over_2_mu_g() {
    for mu in [0.5, 0.2] {
        let table = pair_table(mu, mu, 0.0);
        let b = solid("box", cube(0.2), 1.0, "Thing");
        let mut body = place("box", b, Isometry3::translation(0.0, 0.0, 0.1), false, &table);
        let v0 = 2.0;
        body.root_linear_velocity = Vector3::new(v0, 0.0, 0.0);
        let s = scene(vec![ground(0.0, &table), body], table);
        let mut sim = engine(&PgsFactory, &s);
        let time = v0 / (mu * G) + 0.3;
        run(sim.as_mut(), &s, DT, (time / DT) as usize, |_| {});
        let distance = root_position(sim.state(), 1).x;
        let expected = v0 * v0 / (2.0 * mu * G);
        eprintln!("μ = {mu}: stop distance {distance:.5} m, expected {expected:.5} m");
        assert!(
            (distance / expected - 1.0).abs() < 0.01,
            "μ = {mu}: {distance} vs {expected}"
        );
    }
}

/// Displacement of the box along the slope after `time` seconds from rest.
fn slope_displacement(tilt_degrees: f64, mu: f64, time: f64) -> f64 {
    let tilt = tilt_degrees.to_radians();
    let s = box_on_slope(tilt, pair_table(mu, mu, 0.0));
    let mut sim = engine(&PgsFactory, &s);
    let start = root_position(sim.state(), 1);
    run(sim.as_mut(), &s, DT, (time / DT).round() as usize, |_| {});
    let (down, _) = slope_axes(tilt);
    (root_position(sim.state(), 1) - start).dot(&down)
}

#[test]
fn box_sticks_on_gentle_slopes() {
    for tilt in [20.0, 25.0] {
        let d = slope_displacement(tilt, 0.5, 2.0);
        eprintln!("{tilt}°: creep {:.3e} m", d);
        assert!(d.abs() < 5e-5, "{tilt}°: the box crept {d} m");
    }
}

#[test]
fn box_slides_down_steep_slopes_at_the_coulomb_rate() {
    let (mu, time) = (0.5, 1.0);
    for tilt in [27.0_f64, 28.0, 30.0] {
        let d = slope_displacement(tilt, mu, time);
        let t = tilt.to_radians();
        let expected = 0.5 * G * (t.sin() - mu * t.cos()) * time * time;
        eprintln!("{tilt}°: {d:.5} m, expected {expected:.5} m");
        assert!((d / expected - 1.0).abs() < 0.02, "{tilt}°: {d} vs {expected}");
    }
}

#[test]
fn static_friction_holds_and_dynamic_friction_slides() {
    // 28° slope: tan 28° = 0.532. μs = 0.6 holds a box at rest; a box already sliding feels
    // μd = 0.3 and accelerates at g (sin θ − μd cos θ).
    let tilt = 28.0_f64.to_radians();
    let (down, _) = slope_axes(tilt);
    let s = box_on_slope(tilt, pair_table(0.6, 0.3, 0.0));
    let mut sim = engine(&PgsFactory, &s);
    run(sim.as_mut(), &s, DT, 500, |_| {});
    let creep = root_position(sim.state(), 1).dot(&down);
    assert!(creep.abs() < 5e-5, "static friction: the box moved {creep} m");

    let mut sliding = s.as_ref().clone();
    sliding.bodies[1].root_linear_velocity = down * 0.5;
    let sliding = std::sync::Arc::new(sliding);
    let mut sim = engine(&PgsFactory, &sliding);
    let start = root_position(sim.state(), 1);
    let time = 0.5;
    run(sim.as_mut(), &sliding, DT, 500, |_| {});
    let d = (root_position(sim.state(), 1) - start).dot(&down);
    let a = G * (tilt.sin() - 0.3 * tilt.cos());
    let expected = 0.5 * time + 0.5 * a * time * time;
    eprintln!("dynamic: {d:.5} m, expected {expected:.5} m");
    assert!((d / expected - 1.0).abs() < 0.02, "{d} vs {expected}");
}

#[test]
fn resting_box_reports_its_weight_on_four_corners() {
    let s = box_on_slope(0.0, pair_table(0.5, 0.5, 0.0));
    let mut sim = engine(&PgsFactory, &s);
    run(sim.as_mut(), &s, DT, 200, |_| {});
    let contacts = sim.contacts();
    assert_eq!(contacts.len(), 4, "{contacts:#?}");
    let total: f64 = contacts.iter().map(|c| c.force_on_b().z).sum();
    eprintln!("normal force {total:.6} N, m g = {G} N");
    assert!((total / G - 1.0).abs() < 0.005, "{total}");
}

#[test]
fn max_num_contact_points_limits_the_contacts() {
    let yaml =
        "materials:\n  - name: Ground\n  - name: Thing\ncontact_materials:\n  - materials: [Ground, Thing]\n    \
                friction: 0.5\n    max_num_contact_points: 1\n";
    let table = table(yaml, &["Ground", "Thing"]);
    let b = solid("box", cube(0.2), 1.0, "Thing");
    let s = scene(
        vec![
            ground(0.0, &table),
            place("box", b, Isometry3::translation(0.0, 0.0, 0.1), false, &table),
        ],
        table,
    );
    let mut sim = engine(&PgsFactory, &s);
    let commands = idle(&s);
    let report = sim.step(DT, &commands).expect("step");
    assert_eq!(report.contacts, 1);
    let with_default = box_on_slope(0.0, pair_table(0.5, 0.5, 0.0));
    let mut sim = engine(&PgsFactory, &with_default);
    let report = sim.step(DT, &commands).expect("step");
    assert_eq!(report.contacts, 4);
}

#[test]
fn compliant_contact_sinks_m_g_over_k() {
    let k = 1e5;
    let yaml = format!(
        "materials:\n  - name: Ground\n  - name: Thing\n    stiffness: {k}\n    damping: 500\n\
         contact_materials:\n  - materials: [Ground, Thing]\n    friction: 0.5\n"
    );
    let table = table(&yaml, &["Ground", "Thing"]);
    let mass = 2.0;
    let b = solid("box", cube(0.2), mass, "Thing");
    let s = scene(
        vec![
            ground(0.0, &table),
            place("box", b, Isometry3::translation(0.0, 0.0, 0.1), false, &table),
        ],
        table,
    );
    let mut sim = engine(&PgsFactory, &s);
    run(sim.as_mut(), &s, DT, 1000, |_| {});
    let sink = 0.1 - root_position(sim.state(), 1).z;
    let expected = mass * G / k;
    eprintln!("sink {sink:.4e} m, m g / k = {expected:.4e} m");
    assert!((sink / expected - 1.0).abs() < 0.02, "{sink} vs {expected}");
}

/// A column of `n` boxes of 0.1 m; returns the largest drift of any box after `time` seconds.
fn stack_drift(n: usize, time: f64) -> f64 {
    let table = pair_table(0.5, 0.5, 0.0);
    let mut bodies = vec![ground(0.0, &table)];
    for i in 0..n {
        let b = solid("box", cube(0.1), 1.0, "Thing");
        bodies.push(place(
            &format!("box{i}"),
            b,
            Isometry3::translation(0.0, 0.0, 0.05 + 0.1 * i as f64),
            false,
            &table,
        ));
    }
    let s = scene(bodies, table);
    let mut sim = engine(&PgsFactory, &s);
    let start: Vec<_> = (1..=n).map(|b| root_position(sim.state(), b)).collect();
    run(sim.as_mut(), &s, 2e-3, (time / 2e-3) as usize, |_| {});
    (1..=n)
        .map(|b| (root_position(sim.state(), b) - start[b - 1]).norm())
        .fold(0.0, f64::max)
}

#[test]
fn stack_of_ten_rests_for_two_seconds() {
    let drift = stack_drift(10, 2.0);
    eprintln!("10-box stack, 2 s: drift {drift:.3e} m");
    assert!(drift < 1e-3, "{drift}");
}

#[test]
fn stack_of_ten_rests_for_ten_seconds() {
    let drift = stack_drift(10, 10.0);
    eprintln!("10-box stack, 10 s: drift {drift:.3e} m");
    assert!(drift < 1e-3, "{drift}");
}
