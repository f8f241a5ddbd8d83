//! Restitution: a ball dropped on the ground rebounds to e² of its drop height.

use nalgebra::Isometry3;
use tribo_model::Geometry;
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

const RADIUS: f64 = 0.1;

/// Apex height of the ball's bottom after the first bounce, for a drop from `height`.
fn rebound_apex(restitution: f64, height: f64, dt: f64, options: Option<&str>) -> f64 {
    let table = pair_table(0.5, 0.5, restitution);
    let ball = solid("ball", Geometry::Sphere { radius: RADIUS }, 1.0, "Thing");
    let start = Isometry3::translation(0.0, 0.0, height + RADIUS);
    let scene = scene(
        vec![ground(0.0, &table), place("ball", ball, start, false, &table)],
        table,
    );
    let mut engine = match options {
        Some(yaml) => engine_with(&RapierFactory, &scene, yaml),
        None => engine(&RapierFactory, &scene),
    };
    let mut bounced = false;
    let mut apex: f64 = 0.0;
    let fall_time = (2.0 * height / G).sqrt();
    run(engine.as_mut(), &scene, dt, (3.0 * fall_time / dt) as usize, |state| {
        let link = &state.bodies[1].links[0];
        if link.linear_velocity.z > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(link.pose.translation.vector.z - RADIUS);
        }
    });
    apex
}

#[test]
fn apex_ratio_is_e_squared() {
    for e in [0.8, 0.5] {
        let height = 1.0;
        let ratio = rebound_apex(e, height, 1e-3, None) / height;
        eprintln!("e = {e}: apex ratio {ratio:.4}, expected {:.4}", e * e);
        assert!((ratio - e * e).abs() < 0.03, "e = {e}: apex ratio {ratio}");
    }
}

#[test]
fn rebound_speed_ratio_is_e_at_a_coarse_step() {
    // 1/60 s steps: the ball falls 7 cm per step at impact, so the contact is first seen as a
    // speculative one (and CCD guards against tunnelling). The apex of a coarse discrete
    // trajectory is off by O(v·dt), so compare the speeds just before and just after impact.
    let e: f64 = 0.8;
    let table = pair_table(0.5, 0.5, e);
    let ball = solid("ball", Geometry::Sphere { radius: RADIUS }, 1.0, "Thing");
    let scene = scene(
        vec![
            ground(0.0, &table),
            place(
                "ball",
                ball,
                Isometry3::translation(0.0, 0.0, 1.0 + RADIUS),
                false,
                &table,
            ),
        ],
        table,
    );
    let mut engine = engine(&RapierFactory, &scene);
    let (mut impact, mut rebound, mut previous) = (0.0_f64, 0.0_f64, 0.0_f64);
    run(engine.as_mut(), &scene, 1.0 / 60.0, 40, |state| {
        let vz = state.bodies[1].links[0].linear_velocity.z;
        if vz > 0.0 && rebound == 0.0 {
            impact = -previous;
            rebound = vz;
        }
        previous = vz;
    });
    let ratio = rebound / impact;
    eprintln!("dt = 1/60: impact {impact:.4} m/s, rebound {rebound:.4} m/s, ratio {ratio:.4}");
    assert!((ratio - e).abs() < 0.02, "rebound/impact speed ratio {ratio}");
}
