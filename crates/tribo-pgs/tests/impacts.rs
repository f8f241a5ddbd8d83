//! Impacts on the `pgs` engine: three frictionless 0.5 kg balls (radius 5 cm) in zero gravity with
//! e = 1. Ball a at 1 m/s strikes ball b, which stands `gap` from ball c.
//!
//! - With a gap the impacts are sequential: a stops, b takes 1 m/s and stops on c, c leaves at
//!   1 m/s. Kinetic energy is conserved, also when b closes the gap within the step that a
//!   strikes it (gap < v h = 1 mm at h = 1 ms), where the b–c contact is speculative.
//! - Touching balls (no gap) are one simultaneous impact, the velocity-level LCP's answer:
//!   `v_b − v_a ≥ e · 1`, `v_c − v_b ≥ 0` with equal impulses on the shared ball give
//!   (−1/3, 2/3, 2/3) m/s (kinetic energy also conserved, but not Newton's cradle's (0, 0, 1)).

use std::sync::Arc;

use nalgebra::{Isometry3, Vector3};
use tribo_engine::Scene;
use tribo_model::Geometry;
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;
const RADIUS: f64 = 0.05;
const MASS: f64 = 0.5;

/// Balls a, b, c on the x axis: b at the origin, a `a_gap` to the left of b moving at 1 m/s
/// towards it, c `gap` to the right of b.
fn three_balls(a_gap: f64, gap: f64) -> Arc<Scene> {
    let table = table(
        "materials:\n  - name: Elastic\ncontact_materials:\n  - { materials: [ Elastic, Elastic ], friction: 0, restitution: 1 }\n",
        &["Elastic"],
    );
    let ball = |name: &str, x: f64| {
        let model = solid(name, Geometry::Sphere { radius: RADIUS }, MASS, "Elastic");
        place(name, model, Isometry3::translation(x, 0.0, 1.0), false, &table)
    };
    let mut a = ball("a", -2.0 * RADIUS - a_gap);
    a.root_linear_velocity = Vector3::new(1.0, 0.0, 0.0);
    let bodies = vec![a, ball("b", 0.0), ball("c", 2.0 * RADIUS + gap)];
    Arc::new(Scene {
        name: "three balls".to_owned(),
        gravity: Vector3::zeros(),
        bodies,
        contacts: table,
        pads: Vec::new(),
    })
}

/// The balls' x velocities after `time` seconds, with engine options `options` (YAML).
fn velocities_after(scene: &Arc<Scene>, time: f64, options: &str) -> [f64; 3] {
    let mut sim = engine_with(&PgsFactory, scene, options);
    run(sim.as_mut(), scene, DT, (time / DT).round() as usize, |_| {});
    let v = |b: usize| sim.state().bodies[b].links[0].linear_velocity.x;
    [v(0), v(1), v(2)]
}

/// Kinetic energy over the initial ½ m (1 m/s)².
fn energy_ratio(v: &[f64; 3]) -> f64 {
    v.iter().map(|x| x * x).sum()
}

#[test]
fn sequential_elastic_impacts_conserve_energy_whatever_the_gap() {
    // a starts 10 cm from b; 0.3–0.7 mm is below v h = 1 mm (b–c speculative in the step a strikes
    // b), 5 mm is above it (two impacts in separate steps).
    let mut failures = Vec::new();
    for options in ["{}", "{ solver: lemke, friction_cone: pyramid4 }"] {
        for gap in [0.3e-3, 0.5e-3, 0.7e-3, 5e-3] {
            let v = velocities_after(&three_balls(0.1, gap), 0.4, options);
            let ratio = energy_ratio(&v);
            eprintln!(
                "{options} gap {:.1} mm: v = ({:.6}, {:.6}, {:.6}) m/s, KE ratio {ratio:.6}",
                gap * 1e3,
                v[0],
                v[1],
                v[2]
            );
            // Sequential elastic impacts of equal masses: (0, 0, 1) m/s, kinetic energy conserved.
            if (ratio - 1.0).abs() > 0.01 || (v[2] - 1.0).abs() > 0.01 {
                failures.push(format!("{options} gap {gap}: v = {v:?}, KE ratio {ratio}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn touching_cradle_is_one_simultaneous_impact() {
    let v = velocities_after(&three_balls(0.0, 0.0), 0.1, "{}");
    eprintln!("touching: v = ({:.9}, {:.9}, {:.9}) m/s", v[0], v[1], v[2]);
    let expected = [-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
    for (got, want) in v.iter().zip(expected) {
        assert!((got - want).abs() < 1e-6, "v = {v:?}, expected {expected:?}");
    }
}

/// Largest speed of bodies 1.. between 0.5 s and 3 s.
fn largest_late_speed(scene: &Arc<Scene>) -> f64 {
    let mut sim = engine(&PgsFactory, scene);
    let (mut step, mut largest) = (0, 0.0_f64);
    run(sim.as_mut(), scene, DT, 3000, |state| {
        step += 1;
        if step > 500 {
            for body in &state.bodies[1..] {
                largest = largest.max(body.links[0].linear_velocity.norm());
            }
        }
    });
    largest
}

#[test]
fn resting_bodies_with_restitution_do_not_bounce_on_gravity() {
    // Gravity shuts a speculative contact's gap within a step at an approach below the
    // restitution threshold 2 |g| h: that contact is not struck by another, so it does not bounce.
    // A box and a stack of three balls, e = 0.8, start 0.5 mm above their supports and must come
    // to rest (a bounce at each landing would keep them hopping at ~e g h / (1 − e) = 4 g h).
    let table = pair_table(0.5, 0.5, 0.8);
    let cube = solid(
        "box",
        Geometry::Box {
            size: Vector3::repeat(0.2),
        },
        1.0,
        "Thing",
    );
    let box_scene = scene(
        vec![
            ground(0.0, &table),
            place("box", cube, Isometry3::translation(0.0, 0.0, 0.1005), false, &table),
        ],
        table.clone(),
    );
    let mut bodies = vec![ground(0.0, &table)];
    for i in 0..3 {
        let ball = solid("ball", Geometry::Sphere { radius: 0.1 }, 1.0, "Thing");
        let z = 0.1 + 0.2 * i as f64 + 0.0005 * (i + 1) as f64;
        bodies.push(place(
            &format!("ball{i}"),
            ball,
            Isometry3::translation(0.0, 0.0, z),
            false,
            &table,
        ));
    }
    let stack_scene = scene(bodies, table);
    for (name, s) in [("box", box_scene), ("ball stack", stack_scene)] {
        let speed = largest_late_speed(&s);
        eprintln!("{name}: largest speed after 0.5 s {speed:.3e} m/s");
        assert!(speed < 1e-6, "{name} keeps moving at {speed} m/s");
    }
}
